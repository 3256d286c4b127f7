/* nic_rel_rx.c - the receiving end of a reliable stream (nic_rel.h):
 * in-order delivery, selective repeat (frames after a gap are copied aside
 * and delivered once the gap fills), the acknowledgements that tell the
 * sender where gaps are, and the SACK block that says what is kept. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nic_rel_internal.h"

/* Frames kept after a gap, slot seq % NIC_REL_WINDOW.  A kept frame's seq
 * is always in (rx_next, rx_next + window) when it is kept (the sender
 * never has more than a window out), and rx_next passes it only by
 * delivering it, so no two kept frames share a slot.  The one exception is
 * rx_next itself: a kept frame the personality refused when its turn came
 * (back-pressure) stays, at rx_next, until it is taken. */
struct nic_rel_rxq {
    unsigned held;                      /* frames kept */
    size_t   stride;                    /* bytes per slot: frame_max, 8-aligned */
    uint32_t seq[NIC_REL_WINDOW];
    uint32_t len[NIC_REL_WINDOW];       /* 0: the slot is empty */
    uint8_t *mem;                       /* NIC_REL_WINDOW x stride */
};

static int rxq_alloc(const nic_rel_t *rel, nic_rel_peer_t *p)
{
    nic_rel_rxq_t *q;

    if (p->rxq != NULL)
        return NIC_OK;
    if ((q = calloc(1, sizeof(*q))) == NULL)
        return NIC_ERR_NO_MEMORY;
    /* 8-byte aligned slots: personalities read their headers in place. */
    q->stride = (rel->cfg.frame_max + 7) & ~(size_t)7;
    if ((q->mem = malloc(NIC_REL_WINDOW * q->stride)) == NULL) {
        free(q);
        return NIC_ERR_NO_MEMORY;
    }
    p->rxq = q;
    return NIC_OK;
}

void rel_rx_reset(nic_rel_peer_t *p)
{
    if (p->rxq == NULL || p->rxq->held == 0)
        return;
    memset(p->rxq->len, 0, sizeof(p->rxq->len));
    p->rxq->held = 0;
}

void rel_rx_free(nic_rel_peer_t *p)
{
    if (p->rxq == NULL)
        return;
    free(p->rxq->mem);
    free(p->rxq);
    p->rxq = NULL;
}

static int rxq_has(const nic_rel_rxq_t *q, uint32_t seq)
{
    unsigned slot = seq % NIC_REL_WINDOW;
    return q != NULL && q->len[slot] != 0 && q->seq[slot] == seq;
}

static void rxq_drop(nic_rel_rxq_t *q, uint32_t seq)
{
    if (rxq_has(q, seq)) {
        q->len[seq % NIC_REL_WINDOW] = 0;
        q->held--;
    }
}

int rel_rx_sack(const nic_rel_peer_t *p, nic_rel_sack_t *s)
{
    const nic_rel_rxq_t *q = p->rxq;

    if (q == NULL || q->held == 0 || (q->held == 1 && rxq_has(q, p->rx_next)))
        return 0;
    memset(s, 0, sizeof(*s));
    s->base = p->rx_next;
    for (unsigned i = 0; i < NIC_REL_WINDOW - 1; i++)
        if (rxq_has(q, p->rx_next + 1 + i))
            s->bits[i / 64] |= 1ull << (i % 64);
    return 1;
}

/* Copy a frame after a gap aside (the wire's buffer is reused once this
 * receive call returns).  1: kept now; 0: kept already (a duplicate);
 * -1: no memory (dropped: it comes again). */
static int rxq_keep(const nic_rel_t *rel, nic_rel_peer_t *p, uint32_t seq, const uint8_t *frame,
                    size_t len)
{
    nic_rel_rxq_t *q;
    unsigned slot = seq % NIC_REL_WINDOW;

    if (rxq_alloc(rel, p) != NIC_OK)
        return -1;
    q = p->rxq;
    if (q->len[slot] != 0)
        return 0;
    memcpy(q->mem + slot * q->stride, frame, len);
    q->seq[slot] = seq;
    q->len[slot] = (uint32_t)len;
    q->held++;
    return 1;
}

/* Deliver the kept frames that follow rx_next without a gap.  Returns how
 * many; *refused: the personality could not take the next one (it stays
 * kept, and waits for its next copy). */
static unsigned rxq_drain(nic_rel_t *rel, nic_rel_peer_t *p, const struct sockaddr_in *from,
                          int *refused)
{
    nic_rel_rxq_t *q = p->rxq;
    unsigned n = 0;

    *refused = 0;
    while (q != NULL && q->held > 0 && rxq_has(q, p->rx_next)) {
        unsigned slot = p->rx_next % NIC_REL_WINDOW;
        if (rel->ops.deliver(rel->arg, p, from, q->mem + slot * q->stride, q->len[slot]) !=
            NIC_OK) {
            rel->c.backpressure++;
            *refused = 1;
            break;
        }
        q->len[slot] = 0;
        q->held--;
        p->rx_next++;
        n++;
    }
    return n;
}

/* One more frame to acknowledge: the delayed ack is armed by the first. */
static void rel_ack_later(nic_rel_t *rel, nic_rel_peer_t *p, uint64_t now)
{
    if (p->ack_owed++ == 0)
        p->ack_due_ns = now + rel->cfg.ack_delay_ns;
}

/* An ack at once, unless one went less than REL_DUPACK_NS ago; 1 if sent. */
static int rel_ack_limited(nic_rel_t *rel, nic_rel_peer_t *p, uint8_t flags, uint64_t now)
{
    if (rel_since(now, p->dupack_ns) <= REL_DUPACK_NS)
        return 0;
    p->dupack_ns = now;
    rel_send_ctl(rel, p, NIC_REL_KIND_ACK, flags);
    return 1;
}

/* An ack at once, or if one went just now, the delayed ack armed, so that
 * what it has to tell still goes soon. */
static void rel_ack_soon(nic_rel_t *rel, nic_rel_peer_t *p, uint8_t flags, uint64_t now)
{
    if (!rel_ack_limited(rel, p, flags, now))
        rel_ack_later(rel, p, now);
}

void rel_rx_data(nic_rel_t *rel, nic_rel_peer_t *p, const struct sockaddr_in *from,
                 const nic_rel_hdr_t *h, uint8_t *frame, size_t len, uint64_t now)
{
    int refused, gap;

    if (rel_seq_before(h->seq, p->rx_next)) {
        rel->c.duplicates++;
        rel_send_ctl(rel, p, NIC_REL_KIND_ACK, 0);    /* our ack may have been lost */
        return;
    }
    if (h->seq != p->rx_next) {
        /* After a gap.  Beyond the window it cannot be from this sender's
         * stream as we know it: dropped. */
        rel->c.out_of_order++;
        if (h->seq - p->rx_next >= NIC_REL_WINDOW)
            return;
        switch (rxq_keep(rel, p, h->seq, frame, len)) {
        case 1:
            rel->c.kept++;
            rel_ack_soon(rel, p, 0, now);    /* tells the sender where the gap is */
            break;
        case 0:
            /* Kept already: resent because our map did not reach the sender,
             * or a probe of the tail: answer it at once. */
            rel->c.duplicates++;
            rel_send_ctl(rel, p, NIC_REL_KIND_ACK, 0);
            break;
        default:
            break;                           /* no memory: it comes again */
        }
        return;
    }
    if (rel->ops.deliver(rel->arg, p, from, frame, len) != NIC_OK) {
        /* Not taken, so not acknowledged: it comes again.  The sender
         * learns that we are alive, so a host that drains slowly is never
         * mistaken for a dead node. */
        rel->c.backpressure++;
        rel_ack_limited(rel, p, NIC_REL_F_BUSY, now);
        return;
    }
    rxq_drop(p->rxq, p->rx_next);            /* a copy kept and refused earlier */
    p->rx_next++;
    gap = p->rxq != NULL && p->rxq->held > 0;  /* it filled (part of) a gap */
    rxq_drain(rel, p, from, &refused);
    if (gap || refused) {
        /* The sender learns at once what arrived and what is still
         * missing (RFC 5681 4.2). */
        rel_send_ctl(rel, p, NIC_REL_KIND_ACK, refused ? NIC_REL_F_BUSY : 0);
        return;
    }
    rel_ack_later(rel, p, now);
    if (p->ack_owed >= REL_ACK_EVERY)
        rel_send_ctl(rel, p, NIC_REL_KIND_ACK, 0);
}
