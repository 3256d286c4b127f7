/*
 * multi_part.h - partitioned communication: ch4's active-message
 * implementation (MPIDIG), carried by our system messages.
 */
#ifndef MULTI_PART_H_INCLUDED
#define MULTI_PART_H_INCLUDED

#include "multi_impl.h"

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_part_start(MPIR_Request * req)
{
    return MPIDIG_part_start(req);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_pready_range(int partition_low, int partition_high,
                                                       MPIR_Request * sreq)
{
    return MPIDIG_mpi_pready_range(partition_low, partition_high, sreq);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_pready_list(int length, int array_of_partitions[],
                                                      MPIR_Request * sreq)
{
    return MPIDIG_mpi_pready_list(length, array_of_partitions, sreq);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_parrived(MPIR_Request * rreq, int partition, int *flag)
{
    return MPIDIG_mpi_parrived(rreq, partition, flag);
}

#endif /* MULTI_PART_H_INCLUDED */
