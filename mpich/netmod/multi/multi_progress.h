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
