/*
 * sci_layout.h - the memory every rank exports through its bridge, and
 * what a rank publishes about it (its business card).
 *
 * One segment per rank, one region behind it:
 *
 *   rx block of sender s (for every world rank s), written by s only:
 *     used[nmsg]     u64: message id once slot id % nmsg is filled
 *     tp_filled      u64: transport chunks s has stored (free-running)
 *     info[nmsg]     message info structs (64 bytes) + inline data
 *     ring           eager data, ring_size bytes
 *     staging        nchunk transport chunks of chunk bytes (DMA target)
 *   tx block of receiver d (for every world rank d), written by d only:
 *     ready[nmsg]    u64: message id once d has taken slot id % nmsg
 *     done[nrdv]     u64: message id once the synchronous or transport
 *                    message holding rendezvous handle h is finished
 *     tp_ctl         the transport d serves now: id, bytes, first chunk
 *     tp_grant       chunks s may store (free-running)
 *   stage            nstage chunks: this rank's DMA source (not remote)
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

#define SCI_CARD_MAGIC 0x53434931u    /* "SCI1" */
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

/* Offsets derived from the parameters. */
typedef struct sci_layout {
    sci_params_t p;
    uint64_t info_size;                      /* one info slot */
    uint64_t rx_used, rx_filled, rx_info, rx_ring, rx_staging, rx_block;
    uint64_t tx_ready, tx_done, tx_ctl, tx_grant, tx_block;
    uint64_t rx_base, tx_base, stage_base, size;
} sci_layout_t;

/* What a rank publishes. */
typedef struct sci_card {
    uint32_t     magic;
    uint32_t     ip;         /* its bridge, network order */
    uint16_t     port;
    uint16_t     pad;
    uint32_t     pad2;
    uint64_t     seg_off;    /* its segment's remote offset */
    uint64_t     seg_size;
    sci_params_t p;
} sci_card_t;

int sci_layout_make(const sci_params_t *p, sci_layout_t *l);

static inline uint64_t sci_rx_block(const sci_layout_t *l, int32_t sender)
{
    return l->rx_base + (uint64_t)sender * l->rx_block;
}

static inline uint64_t sci_tx_block(const sci_layout_t *l, int32_t receiver)
{
    return l->tx_base + (uint64_t)receiver * l->tx_block;
}

#endif /* SCI_LAYOUT_H */
