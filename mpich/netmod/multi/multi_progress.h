/*
 * multi_progress.h - ch4 progress drives libmultidev.
 */
#ifndef MULTI_PROGRESS_H_INCLUDED
#define MULTI_PROGRESS_H_INCLUDED

#include "multi_impl.h"

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_progress(int vci, int blocking)
{
    int mpi_errno = MPI_SUCCESS;

    if (unlikely(MPIDI_MULTI_global.md == NULL))
        return MPI_SUCCESS;     /* before init_world or after finalize */

    int events = md_progress(MPIDI_MULTI_global.md);
    /* ch4 counts the requests freed (MPID_Request_free_hook).  When that
     * moved since our last call, MPICH itself did something in between: a
     * progress hook, which runs just before us in this pass, completed a
     * nonblocking collective.  Its waiter must look at it, not sleep: an
     * MPI_Ibarrier waited a whole MULTIDEV_IDLE_SLEEP_MS each time. */
    int freed = MPL_atomic_relaxed_load_int(&MPIDI_VCI(vci).progress_count);
    if (unlikely(freed != MPIDI_MULTI_global.freed_seen)) {
        MPIDI_MULTI_global.freed_seen = freed;
        if (events == 0)
            events = 1;
    }
    if (likely(events > 0)) {
        MPIDI_MULTI_global.idle_polls = 0;
    } else if (events == 0) {
        MPIDI_MULTI_idle();
    } else {
        mpi_errno = MPIDI_MULTI_md_error(events, "progress");
    }
    if (unlikely(MPIDI_MULTI_global.pending_error != MPI_SUCCESS) && mpi_errno == MPI_SUCCESS) {
        mpi_errno = MPIDI_MULTI_global.pending_error;
        MPIDI_MULTI_global.pending_error = MPI_SUCCESS;
    }
    return mpi_errno;
}

#endif /* MULTI_PROGRESS_H_INCLUDED */
