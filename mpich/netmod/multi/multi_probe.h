/*
 * multi_probe.h - MPI_Iprobe / MPI_Improbe as md_iprobe / md_improbe.
 *
 * ch4 polls progress itself after an unsuccessful probe.
 */
#ifndef MULTI_PROBE_H_INCLUDED
#define MULTI_PROBE_H_INCLUDED

#include "multi_impl.h"

MPL_STATIC_INLINE_PREFIX int MPIDI_MULTI_probe_source(MPIR_Comm * comm, int source,
                                                      int32_t * src_world, int32_t * src_rank)
{
    if (source == MPI_ANY_SOURCE) {
        *src_world = -1;
        *src_rank = MD_ANY_SOURCE;
        return MPI_SUCCESS;
    }
    *src_rank = source;
    *src_world = MPIDI_MULTI_world_rank(comm, source);
    if (*src_world < 0)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**multi_dynamic", "**multi_dynamic %d",
                                    source);
    return MPI_SUCCESS;
}

/* A probe reports the whole message: count is the size the sender sent. */
MPL_STATIC_INLINE_PREFIX void MPIDI_MULTI_probe_status(const md_recv_status_t * st,
                                                       MPI_Status * status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = st->src_rank;
    status->MPI_TAG = st->tag;
    MPIR_STATUS_SET_COUNT(*status, st->msg_size);
    MPIR_STATUS_SET_CANCEL_BIT(*status, FALSE);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_iprobe(int source, int tag, MPIR_Comm * comm,
                                                 int context_offset, MPIDI_av_entry_t * addr,
                                                 int *flag, MPI_Status * status)
{
    int mpi_errno;
    int32_t src_world, src_rank;
    md_recv_status_t st;

    MPIR_FUNC_ENTER;

    mpi_errno = MPIDI_MULTI_probe_source(comm, source, &src_world, &src_rank);
    MPIR_ERR_CHECK(mpi_errno);

    int rc = md_iprobe(MPIDI_MULTI_global.md, src_world, src_rank,
                       tag == MPI_ANY_TAG ? MD_ANY_TAG : tag,
                       (uint32_t) (comm->recvcontext_id + context_offset),
                       MPIDI_MULTI_COMM(comm).md_comm, flag, &st);
    if (unlikely(rc < 0)) {
        mpi_errno = MPIDI_MULTI_md_error(rc, "probe");
        goto fn_fail;
    }
    if (*flag)
        MPIDI_MULTI_probe_status(&st, status);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_improbe(int source, int tag, MPIR_Comm * comm,
                                                  int context_offset, MPIDI_av_entry_t * addr,
                                                  int *flag, MPIR_Request ** message_p,
                                                  MPI_Status * status)
{
    int mpi_errno;
    int32_t src_world, src_rank;

    MPIR_FUNC_ENTER;

    mpi_errno = MPIDI_MULTI_probe_source(comm, source, &src_world, &src_rank);
    MPIR_ERR_CHECK(mpi_errno);

    /* The message handle outlives this call only if a message is found; an
     * unused one is kept for the next probe instead of being freed. */
    md_request_t *msg = MPIDI_MULTI_global.spare_msg;
    if (msg == NULL) {
        msg = MPL_malloc(sizeof(*msg), MPL_MEM_BUFFER);
        MPIR_ERR_CHKANDJUMP2(msg == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem2",
                             "**nomem2 %d %s", (int) sizeof(*msg), "multi netmod mprobe handle");
    }
    MPIDI_MULTI_global.spare_msg = NULL;
    memset(msg, 0, offsetof(md_request_t, sd_priv));

    int rc = md_improbe(MPIDI_MULTI_global.md, msg, src_world, src_rank,
                        tag == MPI_ANY_TAG ? MD_ANY_TAG : tag,
                        (uint32_t) (comm->recvcontext_id + context_offset),
                        MPIDI_MULTI_COMM(comm).md_comm, flag);
    if (unlikely(rc < 0) || !*flag) {
        MPIDI_MULTI_global.spare_msg = msg;
        if (rc < 0) {
            mpi_errno = MPIDI_MULTI_md_error(rc, "matched probe (MPI_Improbe)");
            goto fn_fail;
        }
        goto fn_exit;
    }

    /* One reference for the user's MPI_Message, one for the completion of
     * the receive that will consume it. */
    MPIR_Request *req = MPIR_Request_create_from_pool(MPIR_REQUEST_KIND__MPROBE, 0, 2);
    MPIR_ERR_CHKANDSTMT(req == NULL, mpi_errno, MPIX_ERR_NOREQ, goto fn_fail, "**nomemreq");
    req->comm = comm;
    MPIR_Comm_add_ref(comm);
    MPIDI_MULTI_REQ(req).mprobe_msg = msg;
    MPIDI_MULTI_REQ(req).staging = NULL;
    MPIDI_MULTI_probe_status(&msg->status, status);
    *message_p = req;

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

#endif /* MULTI_PROBE_H_INCLUDED */
