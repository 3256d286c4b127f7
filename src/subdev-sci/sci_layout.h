/*
 * sci_layout.h - the memory every rank exports through its bridge, and
 * what a rank publishes about it (its business card).
 *
 * One segment per rank, one region behind it:
 *
 *   page 0           unused (a liveness probe's answer lands there)
 *   stage            nstage chunks: this rank's DMA source (not remote)
 *   a block per peer the rank serves (its slot: sci_slots.h), all written
 *   by that peer q only:
 *     rx part, what q writes as a sender:
 *       used[nmsg]     u64: message id once slot id % nmsg is filled
 *       tp_filled      u64: transport chunks q has stored (free-running)
 *       info[nmsg]     message info structs (64 bytes) + inline data
 *     tx part, what q writes as the receiver of this rank's messages:
 *       ready[nmsg]    u64: message id once q has taken slot id % nmsg
 *       done[nrdv]     u64: message id once the synchronous or transport
 *                      message holding rendezvous handle h is finished
 *       tp_ctl         the transport q serves now: id, bytes, first chunk
 *       tp_grant       chunks this rank may store (free-running)
 *     rx part again:
 *       ring           eager data, ring_size bytes
 *       staging        nchunk transport chunks of chunk bytes (DMA target)
 *
 * Only the peers a rank serves have a block, so a segment grows with the
 * peers the SCI routes reach, not with the world.
 *
 * So every cross-node access is a remote write and every read is local
 * (P4 §5.2, footnote 10): the sender writes info, used, data and
 * tp_filled into the receiver's memory; the receiver writes ready, done,
 * tp_ctl and tp_grant into the sender's.
 */
#ifndef SCI_LAYOUT_H
#define SCI_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define SCI_CARD_MAGIC 0x53434932u    /* "SCI2": blocks per served peer, the slot map */
#define SCI_INFO_HDR   64u

enum sci_proto { SCI_P_INLINE = 1, SCI_P_EAGER = 2, SCI_P_TRANSPORT = 3 };

/* The message info struct: the first 64 bytes of an info slot. */
typedef struct sci_msg_info {
    int32_t  src_rank, src_world;
    int32_t  tag;
    uint32_t context_id;
    uint32_t env_flags;
    uint32_t proto;          /* enum sci_proto */
    uint64_t seq;
    uint64_t size;
    uint64_t id;             /* message id (per sender and receiver, from 1) */
    uint32_t ring_off;       /* EAGER: where in the ring */
    uint32_t rdv;            /* handle + 1 for SYNC and TRANSPORT; 0: none */
    int32_t  dst_world;
    uint32_t pad;
} sci_msg_info_t;

_Static_assert(sizeof(sci_msg_info_t) == SCI_INFO_HDR, "message info layout");

/* The transport the receiver serves now (in the sender's tx block). */
typedef struct sci_tp_ctl {
    uint64_t id, want, base;
} sci_tp_ctl_t;

/* Sizes every rank of a job must agree on. */
typedef struct sci_params {
    uint32_t nmsg, nrdv;
    uint32_t inline_max;     /* <= info slot size - 64 */
    uint32_t ring_size;
    uint32_t chunk, nchunk, nstage;
    uint32_t world_size;
} sci_params_t;

/* Offsets derived from the parameters and the number of blocks.  rx_*
 * and tx_part are offsets in a block, tx_* in its tx part. */
typedef struct sci_layout {
    sci_params_t p;
    uint32_t nblocks;
    uint64_t info_size;                      /* one info slot */
    uint64_t rx_used, rx_filled, rx_info, rx_ring, rx_staging;
    uint64_t tx_part, tx_len, tx_ready, tx_done, tx_ctl, tx_grant;
    uint64_t block;                          /* bytes of one peer's block */
    uint64_t stage_base, block_base, size;
} sci_layout_t;

/* What a rank publishes. */
typedef struct sci_card {
    uint32_t     magic;
    uint32_t     ip;         /* its bridge, network order */
    uint16_t     port;
    uint16_t     pad;
    uint32_t     map_len;    /* bytes of the slot map after the card; 0: a
                                block for every rank, at its rank (sci_slots.h) */
    uint64_t     seg_off;    /* its segment's remote offset */
    uint64_t     seg_size;
    sci_params_t p;
} sci_card_t;

/* MD_OK, or MD_ERR_CONFIG for parameters out of range. */
int sci_layout_make(const sci_params_t *p, uint32_t nblocks, sci_layout_t *l);

/* The block in slot slot (its rx part), and its tx part. */
static inline uint64_t sci_rx_block(const sci_layout_t *l, int32_t slot)
{
    return l->block_base + (uint64_t)slot * l->block;
}

static inline uint64_t sci_tx_block(const sci_layout_t *l, int32_t slot)
{
    return sci_rx_block(l, slot) + l->tx_part;
}

#endif /* SCI_LAYOUT_H */
