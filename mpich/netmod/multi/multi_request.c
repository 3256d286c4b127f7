/*
 * multi_request.c - completion of point-to-point requests.
 *
 * libmultidev calls these through md_request_t.on_complete, once per
 * request, from inside md_progress() or from the call that started the
 * request - always under MPICH's global lock.
 */
/* mpidimpl.h first: it pulls in our inline headers (netmod_inline.h) */
#include <mpidimpl.h>
#include "multi_impl.h"

int MPIDI_MULTI_md_error(int md_rc, const char *what)
{
    int errclass = (md_rc == MD_ERR_NO_MEMORY) ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__, errclass,
                                "**multi_md", "**multi_md %s %s %d", what,
                                md_status_string(md_rc), md_rc);
}

int MPIDI_MULTI_md_peer_error(int md_rc, const char *what, int peer_world)
{
    const char *why;

    if (md_rc != MD_ERR_PEER_FAILED && md_rc != MD_ERR_NOT_FOUND)
        return MPIDI_MULTI_md_error(md_rc, what);
    if (peer_world < 0)              /* MPI_ANY_SOURCE, and a member failed */
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPIX_ERR_PROC_FAILED, "**multi_procfail_any",
                                    "**multi_procfail_any %s", what);
    why = md_rank_failure(MPIDI_MULTI_global.md, peer_world);
    if (why == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPIX_ERR_PROC_FAILED, "**multi_procfail_rank",
                                    "**multi_procfail_rank %s %d %s", what, peer_world,
                                    md_status_string(md_rc));
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPIX_ERR_PROC_FAILED, "**multi_procfail",
                                "**multi_procfail %s %s", what, why);
}

void MPIDI_MULTI_send_complete(md_request_t * mdr)
{
    MPIR_Request *sreq = mdr->user;
    MPIDI_MULTI_request_t *mreq = &MPIDI_MULTI_REQ(sreq);

    if (mdr->status.cancelled) {
        MPIR_STATUS_SET_CANCEL_BIT(sreq->status, TRUE);
    } else if (mdr->status.error != MD_OK) {
        sreq->status.MPI_ERROR = MPIDI_MULTI_md_peer_error(mdr->status.error, "send",
                                                           mdr->env.dst_world);
    }
    if (mreq->staging) {
        MPL_free(mreq->staging);
        mreq->staging = NULL;
    }
    MPIDIU_request_complete(sreq);
}

void MPIDI_MULTI_recv_complete(md_request_t * mdr)
{
    MPIR_Request *rreq = mdr->user;
    MPIDI_MULTI_request_t *mreq = &MPIDI_MULTI_REQ(rreq);
    const md_recv_status_t *st = &mdr->status;

    if (st->cancelled) {
        MPIR_STATUS_SET_CANCEL_BIT(rreq->status, TRUE);
        MPIR_STATUS_SET_COUNT(rreq->status, 0);
    } else {
        rreq->status.MPI_SOURCE = st->src_rank;
        rreq->status.MPI_TAG = st->tag;
        /* the sender's collective had failed (MPIDI_NM_isend_coll) */
        if (st->flags & MD_ENV_F_COLL_PROC_FAILED)
            MPIR_TAG_SET_PROC_FAILURE_BIT(rreq->status.MPI_TAG);
        else if (st->flags & MD_ENV_F_COLL_ERR)
            MPIR_TAG_SET_ERROR_BIT(rreq->status.MPI_TAG);
        MPIR_STATUS_SET_COUNT(rreq->status, st->size);
        if (st->error == MD_ERR_TRUNCATE)
            rreq->status.MPI_ERROR =
                MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                     MPI_ERR_TRUNCATE, "**truncate", "**truncate %d %d %d %d",
                                     st->src_rank, st->tag, (int) st->msg_size, (int) mdr->len);
        else if (st->error != MD_OK) {
            rreq->status.MPI_ERROR =
                MPIDI_MULTI_md_peer_error(st->error, "receive",
                                          mdr->peer_world >= 0 ? mdr->peer_world : st->src_world);
            /* The count of a failed receive is undefined (MPI 4.0 §9.3);
             * it says "all that was asked" rather than 0.  MPICH 4.0.2's
             * binomial broadcast compares it with the size it expects and,
             * on a mismatch, chains a second error onto the receive's in a
             * way that makes the chain a cycle: the error handler and
             * MPI_Error_string then never return (test/mpi/faults.sh
             * stop-bcast). */
            MPIR_STATUS_SET_COUNT(rreq->status, (MPI_Aint) mdr->len);
        }

        if (mreq->staging && st->size > 0) {
            MPI_Aint unpacked;
            int mpi_errno = MPIR_Typerep_unpack(mreq->staging, (MPI_Aint) st->size,
                                                mreq->user_buf, mreq->user_count,
                                                mreq->user_type, 0, &unpacked);
            if (mpi_errno != MPI_SUCCESS && rreq->status.MPI_ERROR == MPI_SUCCESS)
                rreq->status.MPI_ERROR = mpi_errno;
            /* bytes that end inside a basic element of the receive type: the
             * sender's type signature is not the receiver's (MPI 3.3.1) */
            if (mpi_errno == MPI_SUCCESS && unpacked != (MPI_Aint) st->size &&
                rreq->status.MPI_ERROR == MPI_SUCCESS) {
                MPIR_STATUS_SET_COUNT(rreq->status, unpacked);
                rreq->status.MPI_ERROR =
                    MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                         MPI_ERR_TYPE, "**dtypemismatch", 0);
            }
        }
    }
    if (mreq->staging) {
        MPL_free(mreq->staging);
        mreq->staging = NULL;
        MPIR_Datatype_release_if_not_builtin(mreq->user_type);
    }
    if (mreq->mprobe_msg) {
        MPL_free(mreq->mprobe_msg);
        mreq->mprobe_msg = NULL;
    }
    MPIDIU_request_complete(rreq);
}
