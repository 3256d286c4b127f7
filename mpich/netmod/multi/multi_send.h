/*
 * multi_send.h - MPI sends as md_isend.
 *
 * Contiguous data is handed to libmultidev in place; anything else is
 * packed into a temporary buffer that lives until the send completes.
 */
#ifndef MULTI_SEND_H_INCLUDED
#define MULTI_SEND_H_INCLUDED

#include "multi_impl.h"

MPL_STATIC_INLINE_PREFIX int MPIDI_MULTI_send(const void *buf, MPI_Aint count,
                                              MPI_Datatype datatype, int rank, int tag,
                                              MPIR_Comm * comm, int context_offset,
                                              MPIR_Request ** request, uint32_t flags)
{
    int mpi_errno = MPI_SUCCESS;
    int dt_contig;
    size_t data_sz;
    MPI_Aint dt_true_lb;
    MPIR_Datatype *dt_ptr;
    const void *send_buf;
    int rc;

    MPIR_FUNC_ENTER;

    int dst_world = MPIDI_MULTI_world_rank(comm, rank);

    /* MPIC_Ssend says a collective failed in the tag's error bits; the
     * subdevices match tags exactly, so they travel as flags (see
     * MPIDI_NM_isend_coll) */
    if (MPIR_TAG_CHECK_ERROR_BIT(tag)) {
        flags |= MD_ENV_F_COLL_ERR |
            (MPIR_TAG_CHECK_PROC_FAILURE_BIT(tag) ? MD_ENV_F_COLL_PROC_FAILED : 0);
        MPIR_TAG_CLEAR_ERROR_BITS(tag);
    }
    MPIR_ERR_CHKANDJUMP1(dst_world < 0, mpi_errno, MPI_ERR_OTHER, "**multi_dynamic",
                         "**multi_dynamic %d", rank);

    MPIDI_Datatype_get_info(count, datatype, dt_contig, data_sz, dt_ptr, dt_true_lb);

    /* A small contiguous message that a subdevice sends inside the call
     * needs no request of its own: MPICH's pre-completed one stands for it. */
    if (dt_contig || data_sz == 0) {
        rc = md_inject(MPIDI_MULTI_global.md, MPIR_get_contig_ptr(buf, dt_true_lb), data_sz,
                       dst_world, comm->rank, tag, (uint32_t) (comm->context_id + context_offset),
                       flags);
        if (likely(rc == MD_OK)) {
            *request = MPIR_Request_create_complete(MPIR_REQUEST_KIND__SEND);
            goto fn_exit;
        }
    }

    MPIR_Request *sreq = MPIR_Request_create_from_pool(MPIR_REQUEST_KIND__SEND, 0, 2);
    MPIR_ERR_CHKANDSTMT(sreq == NULL, mpi_errno, MPIX_ERR_NOREQ, goto fn_fail, "**nomemreq");
    md_request_t *mdr = MPIDI_MULTI_md_req_init(sreq, MPIDI_MULTI_send_complete);
    MPIDI_MULTI_REQ(sreq).staging = NULL;

    if (dt_contig || data_sz == 0) {
        send_buf = MPIR_get_contig_ptr(buf, dt_true_lb);
    } else {
        MPI_Aint packed;
        void *staging = MPL_malloc(data_sz, MPL_MEM_BUFFER);
        if (staging == NULL) {
            MPIR_Request_free(sreq);
            MPIR_Request_free(sreq);
            MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_OTHER, "**nomem2", "**nomem2 %d %s",
                                 (int) data_sz, "multi netmod pack buffer");
        }
        mpi_errno = MPIR_Typerep_pack(buf, count, datatype, 0, staging, data_sz, &packed);
        if (mpi_errno != MPI_SUCCESS || (size_t) packed != data_sz) {
            MPL_free(staging);
            MPIR_Request_free(sreq);
            MPIR_Request_free(sreq);
            MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**multi_pack");
        }
        MPIDI_MULTI_REQ(sreq).staging = staging;
        send_buf = staging;
    }

    /* libmultidev may call MPIDI_MULTI_send_complete before md_isend
     * returns (eager copy); everything above is in place by then. */
    for (;;) {
        rc = md_isend(MPIDI_MULTI_global.md, mdr, send_buf, data_sz, dst_world, comm->rank, tag,
                      (uint32_t) (comm->context_id + context_offset), flags);
        if (rc != MD_ERR_NO_RESOURCE)
            break;
        /* back-pressure: drain completions, then retry */
        rc = md_progress(MPIDI_MULTI_global.md);
        if (rc < 0)
            break;
        if (rc == 0)
            MPIDI_MULTI_idle();
    }
    if (unlikely(rc < 0)) {
        MPL_free(MPIDI_MULTI_REQ(sreq).staging);
        MPIR_Request_free(sreq);
        MPIR_Request_free(sreq);
        mpi_errno = MPIDI_MULTI_md_peer_error(rc, "send", dst_world);
        goto fn_fail;
    }
    *request = sreq;

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_isend(const void *buf, MPI_Aint count,
                                                MPI_Datatype datatype, int rank, int tag,
                                                MPIR_Comm * comm, int context_offset,
                                                MPIDI_av_entry_t * addr, MPIR_Request ** req_p)
{
    return MPIDI_MULTI_send(buf, count, datatype, rank, tag, comm, context_offset, req_p, 0);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_issend(const void *buf, MPI_Aint count,
                                                 MPI_Datatype datatype, int rank, int tag,
                                                 MPIR_Comm * comm, int context_offset,
                                                 MPIDI_av_entry_t * addr, MPIR_Request ** req_p)
{
    return MPIDI_MULTI_send(buf, count, datatype, rank, tag, comm, context_offset, req_p,
                            MD_ENV_F_SYNC);
}

/* Sends of MPICH's collective algorithms.  A sender that saw an error in
 * this collective (*errflag) says so with the message: other netmods fold
 * it into error bits of the tag and mask them when matching; subdevices
 * match tags exactly, so it travels in the envelope's flags, and the
 * receive's completion puts the tag bits back (multi_request.c), where
 * MPICH's collectives look for them.  So a failure seen by one rank fails
 * the collective on the ranks its data would have reached. */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_isend_coll(const void *buf, MPI_Aint count,
                                                 MPI_Datatype datatype, int rank, int tag,
                                                 MPIR_Comm * comm, int context_offset,
                                                 MPIDI_av_entry_t * addr, MPIR_Request ** req_p,
                                                 MPIR_Errflag_t * errflag)
{
    uint32_t flags = 0;

    if (*errflag == MPIR_ERR_PROC_FAILED)
        flags = MD_ENV_F_COLL_ERR | MD_ENV_F_COLL_PROC_FAILED;
    else if (*errflag != MPIR_ERR_NONE)
        flags = MD_ENV_F_COLL_ERR;
    return MPIDI_MULTI_send(buf, count, datatype, rank, tag, comm, context_offset, req_p, flags);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_cancel_send(MPIR_Request * sreq)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_FUNC_ENTER;
    if (!MPIR_Request_is_complete(sreq)) {
        /* MD_OK: the request completes as cancelled through its callback;
         * otherwise it was matched already (or the route cannot take a
         * send back) and completes normally - both are valid outcomes of
         * MPI_Cancel on a send. */
        int rc = md_cancel_send(MPIDI_MULTI_global.md, &MPIDI_MULTI_REQ(sreq).md);
        if (rc < 0 && rc != MD_ERR_NOT_FOUND && rc != MD_ERR_UNSUPPORTED)
            mpi_errno = MPIDI_MULTI_md_error(rc, "cancel of a send");
    }
    MPIR_FUNC_EXIT;
    return mpi_errno;
}

#endif /* MULTI_SEND_H_INCLUDED */
