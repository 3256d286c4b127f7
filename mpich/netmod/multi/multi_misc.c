/*
 * multi_misc.c - the remaining netmod entry points: partitioned
 * requests, MPI_Alloc_mem, datatype and operation hooks.
 */
/* mpidimpl.h first: it pulls in our inline headers (netmod_inline.h) */
#include <mpidimpl.h>
#include "multi_impl.h"
#include "multi_noinline.h"

int MPIDI_MULTI_mpi_psend_init(const void *buf, int partitions, MPI_Aint count,
                               MPI_Datatype datatype, int rank, int tag, MPIR_Comm * comm,
                               MPIR_Info * info, MPIDI_av_entry_t * av, MPIR_Request ** req_p)
{
    return MPIDIG_mpi_psend_init(buf, partitions, count, datatype, rank, tag, comm, info, req_p);
}

int MPIDI_MULTI_mpi_precv_init(void *buf, int partitions, MPI_Aint count, MPI_Datatype datatype,
                               int rank, int tag, MPIR_Comm * comm, MPIR_Info * info,
                               MPIDI_av_entry_t * av, MPIR_Request ** req_p)
{
    return MPIDIG_mpi_precv_init(buf, partitions, count, datatype, rank, tag, comm, info, req_p);
}

/* No subdevice registers user memory yet: plain memory. */
void *MPIDI_MULTI_mpi_alloc_mem(MPI_Aint size, MPIR_Info * info)
{
    return MPIDIG_mpi_alloc_mem(size, info);
}

int MPIDI_MULTI_mpi_free_mem(void *ptr)
{
    return MPIDIG_mpi_free_mem(ptr);
}

/* Datatypes are packed by MPICH (multi_send.h, multi_request.c), so the
 * netmod keeps no per-type state. */
int MPIDI_MULTI_mpi_type_commit_hook(MPIR_Datatype * datatype_p)
{
    return MPI_SUCCESS;
}

int MPIDI_MULTI_mpi_type_free_hook(MPIR_Datatype * datatype_p)
{
    return MPI_SUCCESS;
}

int MPIDI_MULTI_mpi_op_commit_hook(MPIR_Op * op_p)
{
    return MPI_SUCCESS;
}

int MPIDI_MULTI_mpi_op_free_hook(MPIR_Op * op_p)
{
    return MPI_SUCCESS;
}
