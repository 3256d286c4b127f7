/*
 * multi_comm.c - communicators as libmultidev member sets.
 *
 * Registering a communicator lets libmultidev post an ANY_SOURCE receive
 * only on the subdevices that reach its members.  The set is the group a
 * receive names its sources in: the communicator itself, or the remote
 * group of an intercommunicator.
 */
/* mpidimpl.h first: it pulls in our inline headers (netmod_inline.h) */
#include <mpidimpl.h>
#include "multi_impl.h"
#include "multi_noinline.h"

int MPIDI_MULTI_mpi_comm_commit_pre_hook(MPIR_Comm * comm)
{
    int mpi_errno = MPI_SUCCESS;
    int32_t *members = NULL;

    MPIR_FUNC_ENTER;

    MPIDI_MULTI_COMM(comm).md_comm = NULL;
    /* ch4 answers size-1 communicators itself; before init_world there is
     * no multidevice to register with (that comm is then unregistered,
     * which only costs ANY_SOURCE duplicates). */
    if (MPIDI_MULTI_global.md == NULL || MPIDI_is_self_comm(comm))
        goto fn_exit;

    int n = comm->remote_size;
    members = MPL_malloc(sizeof(int32_t) * n, MPL_MEM_COMM);
    MPIR_ERR_CHKANDJUMP2(members == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem2",
                         "**nomem2 %d %s", (int) (sizeof(int32_t) * n), "communicator members");
    for (int i = 0; i < n; i++) {
        members[i] = MPIDI_MULTI_world_rank(comm, i);
        if (members[i] < 0)
            goto fn_exit;       /* a dynamic process: leave it unregistered */
    }

    int rc = md_comm_create(MPIDI_MULTI_global.md, n, members, &MPIDI_MULTI_COMM(comm).md_comm);
    if (rc < 0) {
        MPIDI_MULTI_COMM(comm).md_comm = NULL;
        mpi_errno = MPIDI_MULTI_md_error(rc, "communicator registration");
        goto fn_fail;
    }

  fn_exit:
    MPL_free(members);
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_MULTI_mpi_comm_commit_post_hook(MPIR_Comm * comm)
{
    return MPI_SUCCESS;
}

int MPIDI_MULTI_mpi_comm_free_hook(MPIR_Comm * comm)
{
    if (MPIDI_MULTI_COMM(comm).md_comm && MPIDI_MULTI_global.md) {
        md_comm_free(MPIDI_MULTI_global.md, MPIDI_MULTI_COMM(comm).md_comm);
        MPIDI_MULTI_COMM(comm).md_comm = NULL;
    }
    return MPI_SUCCESS;
}
