/* nic_rel_internal.h - what the files of the reliable streams share
 * (nic_rel.c: streams, transmit, timers; nic_rel_rx.c: the receiver's
 * selective repeat and SACK blocks; nic_rel_recover.c: the sender's
 * acknowledgements, round trips and retransmissions).  Not for
 * personalities: they include nic_rel.h. */
#ifndef NIC_REL_INTERNAL_H
#define NIC_REL_INTERNAL_H

#include "nic_rel.h"
#include "nic_wire.h"

#define REL_RETX_BURST 32             /* frames resent per timer expiry */
#define REL_ACK_EVERY  32             /* acknowledge at least every 32 frames */
#define REL_DUPACK_NS  (100 * 1000)   /* at most one duplicate ack per 100 us */

struct nic_rel {
    nic_wire_t        *wire;
    nic_rel_config_t   cfg;
    nic_rel_ops_t      ops;
    void              *arg;
    uint32_t           my_fw;             /* incarnation */
    nic_rel_peer_t     peer[NIC_REL_MAX_PEERS];
    unsigned           npeer;             /* slots in use are below this */
    nic_rel_peer_t    *last;              /* the peer found last (a cache) */
    int                full_logged;       /* the table-full error was logged */
    nic_rel_counters_t c;
};

static inline nic_rel_hdr_t *rel_hdr_of(const nic_rel_t *rel, uint8_t *frame)
{
    return (nic_rel_hdr_t *)(frame + rel->cfg.hdr_off);
}

/* a comes before b in sequence space (wraps) */
static inline int rel_seq_before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

/* Time from then to now; 0 when then is later (a caller's now may be
 * older than a stamp taken during the same firmware turn: unsigned
 * subtraction would make that look like an age of centuries). */
static inline uint64_t rel_since(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

/* The peer answered (or the window was empty until now): its silence
 * starts again. */
static inline void rel_heard(nic_rel_peer_t *p, uint64_t now)
{
    nic_stall_timer_start(&p->silence, now);
}

/* nic_rel.c: an ACK (with a SACK block when frames are kept) or a BYE. */
void rel_send_ctl(nic_rel_t *rel, nic_rel_peer_t *p, uint8_t kind, uint8_t flags);

/* nic_rel_rx.c */
/* A DATA frame of p's current incarnation (its piggy-backed ack taken). */
void rel_rx_data(nic_rel_t *rel, nic_rel_peer_t *p, const struct sockaddr_in *from,
                 const nic_rel_hdr_t *h, uint8_t *frame, size_t len, uint64_t now);
/* Forget the frames kept (a new incarnation of the sender). */
void rel_rx_reset(nic_rel_peer_t *p);
/* Fill s for an ack of p; 0 when nothing is kept (no block to send). */
int  rel_rx_sack(const nic_rel_peer_t *p, nic_rel_sack_t *s);
void rel_rx_free(nic_rel_peer_t *p);

/* nic_rel_recover.c */
/* An acknowledgement for every frame before ack, and (s != NULL) of those
 * s marks. */
void rel_tx_acked(nic_rel_t *rel, nic_rel_peer_t *p, uint32_t ack, const nic_rel_sack_t *s,
                  uint64_t now);
/* Retransmission timers of p (frames outstanding): lost frames, the tail
 * probe, the timeout.  Lowers *next; returns the frames resent. */
int  rel_tx_timers(nic_rel_t *rel, nic_rel_peer_t *p, uint64_t now, uint64_t *next);

#endif /* NIC_REL_INTERNAL_H */
