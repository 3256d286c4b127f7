/*
 * multi_am.h - MPIDIG active messages over libmultidev system messages.
 *
 * ch4 implements RMA and partitioned communication with active messages
 * (MPIDIG) on top of whatever the netmod offers.  Each active message
 * travels as one system message with tag MPIDI_MULTI_AM_SYSTAG:
 *
 *     MPIDI_MULTI_am_wire_t | MPIDIG header (padded to 8) | data
 *
 * and is handed to MPIDIG's target callback on arrival (multi_am.c), in the
 * order its sender sent it: MPIDIG relies on that (an MPI_Accumulate
 * after a larger one to the same place must land after it), and system
 * messages are not ordered (a small one may overtake a large one, or go
 * over another subdevice), so each carries a per-peer sequence number and
 * one that comes early waits for its turn.  The
 * data is always copied into the message, so MPIDIG's buffer is free at
 * once; its origin callback runs when libmultidev completes the system
 * message (at once for a small one, after the transfer for a large one).
 */
#ifndef MULTI_AM_H_INCLUDED
#define MULTI_AM_H_INCLUDED

#include "multi_impl.h"

typedef struct {
    uint16_t handler_id;
    uint16_t seq;               /* per (sender, receiver), wrapping */
    uint32_t am_hdr_sz;
    uint64_t data_sz;
} MPIDI_MULTI_am_wire_t;

#define MPIDI_MULTI_AM_HDR_PAD(sz)  (((size_t) (sz) + 7) & ~(size_t) 7)

/* The sequence numbers and held arrivals of world_size peers; freed by
 * MPIDI_MULTI_am_order_fini (at finalize). */
int MPIDI_MULTI_am_order_init(int world_size);
void MPIDI_MULTI_am_order_fini(void);

/* Sends one active message to comm rank 'rank'; sreq (may be NULL) gets
 * MPIDIG's origin callback once the message is on its way. */
int MPIDI_MULTI_am_send(MPIR_Comm * comm, int rank, int handler_id, const void *am_hdr,
                        MPI_Aint am_hdr_sz, const void *data, MPI_Aint count,
                        MPI_Datatype datatype, MPIR_Request * sreq);

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_am_send_hdr(int rank, MPIR_Comm * comm, int handler_id,
                                                  const void *am_hdr, MPI_Aint am_hdr_sz,
                                                  int src_vci, int dst_vci)
{
    return MPIDI_MULTI_am_send(comm, rank, handler_id, am_hdr, am_hdr_sz, NULL, 0,
                               MPI_DATATYPE_NULL, NULL);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_am_isend(int rank, MPIR_Comm * comm, int handler_id,
                                               const void *am_hdr, MPI_Aint am_hdr_sz,
                                               const void *data, MPI_Aint count,
                                               MPI_Datatype datatype, int src_vci, int dst_vci,
                                               MPIR_Request * sreq)
{
    return MPIDI_MULTI_am_send(comm, rank, handler_id, am_hdr, am_hdr_sz, data, count,
                               datatype, sreq);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_am_send_hdr_reply(MPIR_Comm * comm, int src_rank,
                                                        int handler_id, const void *am_hdr,
                                                        MPI_Aint am_hdr_sz, int src_vci,
                                                        int dst_vci)
{
    return MPIDI_MULTI_am_send(comm, src_rank, handler_id, am_hdr, am_hdr_sz, NULL, 0,
                               MPI_DATATYPE_NULL, NULL);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_am_isend_reply(MPIR_Comm * comm, int src_rank,
                                                     int handler_id, const void *am_hdr,
                                                     MPI_Aint am_hdr_sz, const void *data,
                                                     MPI_Aint count, MPI_Datatype datatype,
                                                     int src_vci, int dst_vci,
                                                     MPIR_Request * sreq)
{
    return MPIDI_MULTI_am_send(comm, src_rank, handler_id, am_hdr, am_hdr_sz, data, count,
                               datatype, sreq);
}

MPL_STATIC_INLINE_PREFIX MPI_Aint MPIDI_NM_am_hdr_max_sz(void)
{
    return MPIDI_MULTI_AM_BUF_LIMIT - sizeof(MPIDI_MULTI_am_wire_t);
}

MPL_STATIC_INLINE_PREFIX MPI_Aint MPIDI_NM_am_eager_limit(void)
{
    return MPIDI_MULTI_AM_BUF_LIMIT - sizeof(MPIDI_MULTI_am_wire_t);
}

MPL_STATIC_INLINE_PREFIX MPI_Aint MPIDI_NM_am_eager_buf_limit(void)
{
    return MPIDI_MULTI_AM_BUF_LIMIT;
}

MPL_STATIC_INLINE_PREFIX bool MPIDI_NM_am_check_eager(MPI_Aint am_hdr_sz, MPI_Aint data_sz,
                                                      const void *data, MPI_Aint count,
                                                      MPI_Datatype datatype, MPIR_Request * sreq)
{
    return sizeof(MPIDI_MULTI_am_wire_t) + MPIDI_MULTI_AM_HDR_PAD(am_hdr_sz) + (size_t) data_sz
        <= MPIDI_MULTI_AM_BUF_LIMIT;
}

/* Data always arrives whole inside one system message: no asynchronous
 * copy, hence no copy callback. */
MPL_STATIC_INLINE_PREFIX MPIDIG_recv_data_copy_cb MPIDI_NM_am_get_data_copy_cb(uint32_t attr)
{
    return NULL;
}

MPL_STATIC_INLINE_PREFIX void MPIDI_NM_am_request_init(MPIR_Request * req)
{
    MPIDI_MULTI_AMREQ(req).send = NULL;
}

MPL_STATIC_INLINE_PREFIX void MPIDI_NM_am_request_finalize(MPIR_Request * req)
{
}

#endif /* MULTI_AM_H_INCLUDED */
