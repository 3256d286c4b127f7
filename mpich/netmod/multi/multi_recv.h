/*
 * multi_recv.h - MPI receives as md_irecv / md_imrecv.
 *
 * A receive into a non-contiguous datatype lands in a staging buffer and is
 * unpacked by MPIDI_MULTI_recv_complete.
 */
#ifndef MULTI_RECV_H_INCLUDED
#define MULTI_RECV_H_INCLUDED

#include "multi_impl.h"

/* Where the bytes of a receive go: the user buffer itself, or a staging
 * buffer remembered in the request together with what to unpack into. */
MPL_STATIC_INLINE_PREFIX int MPIDI_MULTI_recv_buffer(MPIR_Request * rreq, void *buf,
                                                     MPI_Aint count, MPI_Datatype datatype,
                                                     void **recv_buf, size_t * recv_len)
{
    int dt_contig;
    size_t data_sz;
    MPI_Aint dt_true_lb;
    MPIR_Datatype *dt_ptr;
    MPIDI_MULTI_request_t *mreq = &MPIDI_MULTI_REQ(rreq);

    MPIDI_Datatype_get_info(count, datatype, dt_contig, data_sz, dt_ptr, dt_true_lb);
    mreq->staging = NULL;
    *recv_len = data_sz;
    if (dt_contig || data_sz == 0) {
        *recv_buf = MPIR_get_contig_ptr(buf, dt_true_lb);
        return MPI_SUCCESS;
    }
    mreq->staging = MPL_malloc(data_sz, MPL_MEM_BUFFER);
    if (mreq->staging == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem2", "**nomem2 %d %s",
                                    (int) data_sz, "multi netmod receive staging buffer");
    mreq->user_buf = buf;
    mreq->user_count = count;
    mreq->user_type = datatype;
    MPIR_Datatype_ptr_add_ref(dt_ptr);
    *recv_buf = mreq->staging;
    return MPI_SUCCESS;
}

/* Undoes MPIDI_MULTI_recv_buffer when the receive could not be started. */
MPL_STATIC_INLINE_PREFIX void MPIDI_MULTI_recv_buffer_drop(MPIR_Request * rreq)
{
    MPIDI_MULTI_request_t *mreq = &MPIDI_MULTI_REQ(rreq);
    if (mreq->staging) {
        MPL_free(mreq->staging);
        mreq->staging = NULL;
        MPIR_Datatype_release_if_not_builtin(mreq->user_type);
    }
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_irecv(void *buf, MPI_Aint count, MPI_Datatype datatype,
                                                int rank, int tag, MPIR_Comm * comm,
                                                int context_offset, MPIDI_av_entry_t * addr,
                                                MPIR_Request ** req_p, MPIR_Request * partner)
{
    int mpi_errno = MPI_SUCCESS;
    int32_t src_world, src_rank;
    void *recv_buf;
    size_t recv_len;
    int rc;

    MPIR_FUNC_ENTER;

    if (rank == MPI_ANY_SOURCE) {
        src_world = -1;
        src_rank = MD_ANY_SOURCE;
    } else {
        src_world = MPIDI_MULTI_world_rank(comm, rank);
        src_rank = rank;
        MPIR_ERR_CHKANDJUMP1(src_world < 0, mpi_errno, MPI_ERR_OTHER, "**multi_dynamic",
                             "**multi_dynamic %d", rank);
    }

    MPIR_Request *rreq = MPIR_Request_create_from_pool(MPIR_REQUEST_KIND__RECV, 0, 2);
    MPIR_ERR_CHKANDSTMT(rreq == NULL, mpi_errno, MPIX_ERR_NOREQ, goto fn_fail, "**nomemreq");
    md_request_t *mdr = MPIDI_MULTI_md_req_init(rreq, MPIDI_MULTI_recv_complete);
    MPIDI_MULTI_REQ(rreq).mprobe_msg = NULL;

    mpi_errno = MPIDI_MULTI_recv_buffer(rreq, buf, count, datatype, &recv_buf, &recv_len);
    if (mpi_errno != MPI_SUCCESS) {
        MPIR_Request_free(rreq);
        MPIR_Request_free(rreq);
        goto fn_fail;
    }

    rc = md_irecv(MPIDI_MULTI_global.md, mdr, recv_buf, recv_len, src_world, src_rank,
                  tag == MPI_ANY_TAG ? MD_ANY_TAG : tag,
                  (uint32_t) (comm->recvcontext_id + context_offset),
                  MPIDI_MULTI_COMM(comm).md_comm);
    if (unlikely(rc < 0)) {
        MPIDI_MULTI_recv_buffer_drop(rreq);
        MPIR_Request_free(rreq);
        MPIR_Request_free(rreq);
        mpi_errno = MPIDI_MULTI_md_peer_error(rc, "receive", src_world);
        goto fn_fail;
    }
    *req_p = rreq;

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Receives the message an improbe bound to 'message'; ch4 reuses the
 * message request as the receive request. */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_imrecv(void *buf, MPI_Aint count, MPI_Datatype datatype,
                                                 MPIR_Request * message)
{
    int mpi_errno = MPI_SUCCESS;
    void *recv_buf;
    size_t recv_len;
    md_request_t *msg = MPIDI_MULTI_REQ(message).mprobe_msg;

    MPIR_FUNC_ENTER;

    MPIR_Assert(msg != NULL);
    md_request_t *mdr = MPIDI_MULTI_md_req_init(message, MPIDI_MULTI_recv_complete);

    mpi_errno = MPIDI_MULTI_recv_buffer(message, buf, count, datatype, &recv_buf, &recv_len);
    MPIR_ERR_CHECK(mpi_errno);

    int rc = md_imrecv(MPIDI_MULTI_global.md, msg, mdr, recv_buf, recv_len);
    if (unlikely(rc < 0)) {
        MPIDI_MULTI_recv_buffer_drop(message);
        mpi_errno = MPIDI_MULTI_md_error(rc, "matched receive (MPI_Imrecv)");
        goto fn_fail;
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_cancel_recv(MPIR_Request * rreq)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_FUNC_ENTER;
    if (!MPIR_Request_is_complete(rreq)) {
        /* MD_OK: completes through its callback with status.cancelled set;
         * MD_ERR_NOT_FOUND: already matched, completes normally. */
        int rc = md_cancel_recv(MPIDI_MULTI_global.md, &MPIDI_MULTI_REQ(rreq).md);
        if (rc < 0 && rc != MD_ERR_NOT_FOUND)
            mpi_errno = MPIDI_MULTI_md_error(rc, "cancel of a receive");
    }
    MPIR_FUNC_EXIT;
    return mpi_errno;
}

#endif /* MULTI_RECV_H_INCLUDED */
