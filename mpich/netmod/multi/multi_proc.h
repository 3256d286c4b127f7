/*
 * multi_proc.h - process identity queries ch4 asks the netmod.
 */
#ifndef MULTI_PROC_H_INCLUDED
#define MULTI_PROC_H_INCLUDED

#include "multi_impl.h"

/* Locality as the launcher sees it (same host), which is what ch4 uses for
 * MPI_COMM_TYPE_SHARED and shared-memory windows. */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_rank_is_local(int target, MPIR_Comm * comm)
{
    return MPIDIU_rank_is_local(target, comm);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_comm_get_gpid(MPIR_Comm * comm_ptr, int idx,
                                                    uint64_t * gpid_ptr, bool is_remote)
{
    int avtid = 0, lpid = 0;

    /* intracommunicators have one group; intercommunicators pick theirs */
    if (comm_ptr->comm_kind == MPIR_COMM_KIND__INTRACOMM || is_remote)
        MPIDIU_comm_rank_to_pid(comm_ptr, idx, &lpid, &avtid);
    else
        MPIDIU_comm_rank_to_pid_local(comm_ptr, idx, &lpid, &avtid);
    *gpid_ptr = MPIDIU_GPID_CREATE(avtid, lpid);
    return MPI_SUCCESS;
}

#endif /* MULTI_PROC_H_INCLUDED */
