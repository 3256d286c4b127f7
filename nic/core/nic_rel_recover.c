/* nic_rel_recover.c - the sending end's loss recovery (nic_rel.h):
 * acknowledgements and SACK blocks taken in, round trips measured (RFC
 * 6298, Karn), lost frames found by time as RACK does (RFC 8985: a frame
 * is lost when one sent after it was delivered and it has been out longer
 * than that one's round trip plus a reordering allowance), the tail probe
 * and the retransmission timeout. */
#include "config.h"

#include <string.h>
#include <sys/uio.h>

#include "nic_rel_internal.h"

/* The RTO before any sample, or from srtt and rttvar, clamped. */
static uint64_t rel_rto(const nic_rel_t *rel, const nic_rel_peer_t *p)
{
    uint64_t rto;

    if (p->srtt_ns == 0)
        return rel->cfg.rto_init_ns;
    rto = p->srtt_ns + 4 * p->rttvar_ns;
    if (rto < rel->cfg.rto_min_ns)
        rto = rel->cfg.rto_min_ns;
    if (rto > rel->cfg.rto_max_ns)
        rto = rel->cfg.rto_max_ns;
    return rto;
}

/* One round trip measured (RFC 6298 2.2, 2.3: gains 1/8 and 1/4). */
static void rel_rtt_sample(nic_rel_t *rel, nic_rel_peer_t *p, uint64_t r)
{
    if (r == 0)
        r = 1;                          /* 0 means "no sample yet" */
    if (p->srtt_ns == 0) {
        p->srtt_ns = r;
        p->rttvar_ns = r / 2;
    } else {
        uint64_t delta = p->srtt_ns > r ? p->srtt_ns - r : r - p->srtt_ns;
        p->rttvar_ns = (3 * p->rttvar_ns + delta) / 4;
        p->srtt_ns = (7 * p->srtt_ns + r) / 8;
    }
    if (p->min_rtt_ns == 0 || r < p->min_rtt_ns)
        p->min_rtt_ns = r;
    rel->c.rtt_samples++;
}

/* Send a frame of the window again, with a fresh piggy-backed ack (and so
 * a fresh checksum).  The frame may still wait in the wire's send batch
 * (nic_wire_send_stable queues it by reference, its MAC made over the bytes
 * of then): that batch leaves first, before the bytes change under it. */
static void rel_resend(nic_rel_t *rel, nic_rel_peer_t *p, nic_rel_frame_t *f, uint64_t now)
{
    struct iovec iov = { f->buf, f->len };

    nic_wire_flush_tx(rel->wire);      /* nothing to do when nothing waits */
    rel_hdr_of(rel, f->buf)->ack = p->rx_next;
    rel->ops.seal(rel->arg, f->buf, f->len, now, NIC_REL_SEAL_RETRANSMIT);
    f->sent_ns = now;
    if (f->sends < UINT8_MAX)
        f->sends++;
    p->last_tx_ns = now;
    p->ack_owed = 0;
    nic_wire_send(rel->wire, &p->addr, p->job, &iov, 1);
    rel->c.retransmits++;
}

/* RACK: every frame not held that was sent before the newest frame known
 * delivered, and has been out longer than that one's round trip plus a
 * quarter of the smallest round trip (a frame overtaken by a later one
 * arrives within that), is lost: sent again now.  A frame just resent is
 * newer than every frame known delivered, so it waits for a frame sent
 * after it: at most once per round trip.  (Its deadlines do not wake the
 * firmware: rel_tx_timers says why.) */
static int rel_resend_lost(nic_rel_t *rel, nic_rel_peer_t *p, uint64_t now)
{
    uint64_t reo = p->min_rtt_ns / 4;
    int n = 0;

    if (p->rack_sent_ns == 0)
        return 0;
    for (uint32_t s = p->tx_una; rel_seq_before(s, p->tx_sack_hi); s++) {
        nic_rel_frame_t *f = &p->win[s % NIC_REL_WINDOW];
        if (f->sacked || f->sent_ns > p->rack_sent_ns)
            continue;
        if (now >= f->sent_ns + p->rack_rtt_ns + reo) {
            rel_resend(rel, p, f, now);
            rel->c.fast_retransmits++;
            n++;
        }
    }
    return n;
}

void rel_tx_acked(nic_rel_t *rel, nic_rel_peer_t *p, uint32_t ack, const nic_rel_sack_t *s,
                  uint64_t now)
{
    uint64_t newest = 0;      /* sent_ns of the newest frame sent once and delivered now */
    int moved = 0;

    /* Only an ack inside (una, next] moves the window. */
    if ((int32_t)(ack - p->tx_una) > 0 && (int32_t)(ack - p->tx_next) <= 0) {
        const nic_rel_frame_t *first = &p->win[p->tx_una % NIC_REL_WINDOW];
        const nic_rel_frame_t *last = &p->win[(ack - 1) % NIC_REL_WINDOW];
        /* Karn: the round trip of a frame sent once, and not behind a
         * resent one (it may have waited for the gap to fill). */
        if (!last->sacked && last->sends == 1 && first->sends == 1)
            newest = last->sent_ns;
        p->tx_una = ack;
        if (rel_seq_before(p->tx_sack_hi, ack))
            p->tx_sack_hi = ack;
        p->acked_ns = now;
        p->probes = 0;
        rel_heard(p, now);
        moved = 1;
    }
    if (s != NULL) {
        for (unsigned i = 0; i < NIC_REL_WINDOW - 1; i++) {
            if (!(s->bits[i / 64] & (1ull << (i % 64))))
                continue;
            uint32_t seq = s->base + 1 + i;
            if (rel_seq_before(seq, p->tx_una) || !rel_seq_before(seq, p->tx_next))
                continue;
            nic_rel_frame_t *f = &p->win[seq % NIC_REL_WINDOW];
            if (f->sacked)
                continue;
            f->sacked = 1;
            rel->c.sacked++;
            if (f->sends == 1 && f->sent_ns > newest)
                newest = f->sent_ns;
            if (!rel_seq_before(seq, p->tx_sack_hi))
                p->tx_sack_hi = seq + 1;
        }
    }
    if (newest != 0) {
        rel_rtt_sample(rel, p, rel_since(now, newest));
        if (newest > p->rack_sent_ns) {
            p->rack_sent_ns = newest;
            p->rack_rtt_ns = rel_since(now, newest);
        }
    }
    if (moved)
        p->rto_ns = rel_rto(rel, p);    /* the back-off ends with progress */
    if (s != NULL)
        rel_resend_lost(rel, p, now);
}

/* The tail probe (RFC 8985 7): with frames out and nothing heard for two
 * smoothed round trips (at least one plus the peer's ack delay, which a
 * lone frame waits for), the newest frame not held goes again; again
 * after twice as long while nothing moves, NIC_REL_MAX_PROBES times.  It
 * recovers a lost last frame in a round trip or two instead of a timeout,
 * or its answer's SACK block shows what else is missing. */
static int rel_probe_tail(nic_rel_t *rel, nic_rel_peer_t *p, uint64_t now, uint64_t rto_due)
{
    uint64_t pto, base, due;

    if (p->probes >= NIC_REL_MAX_PROBES || p->srtt_ns == 0)
        return 0;
    pto = 2 * p->srtt_ns;
    if (pto < p->srtt_ns + rel->cfg.ack_delay_ns)
        pto = p->srtt_ns + rel->cfg.ack_delay_ns;
    /* after the last frame that left (an earlier probe included) */
    base = p->acked_ns > p->last_tx_ns ? p->acked_ns : p->last_tx_ns;
    due = base + (pto << p->probes);
    if (due >= rto_due)
        return 0;                       /* the timeout comes first anyway */
    if (now < due)
        return 0;
    for (uint32_t s = p->tx_next; s != p->tx_una; s--) {
        nic_rel_frame_t *f = &p->win[(s - 1) % NIC_REL_WINDOW];
        if (!f->sacked) {
            rel_resend(rel, p, f, now);
            rel->c.tail_probes++;
            break;
        }
    }
    p->probes++;
    return 1;
}

int rel_tx_timers(nic_rel_t *rel, nic_rel_peer_t *p, uint64_t now, uint64_t *next)
{
    nic_rel_frame_t *oldest = &p->win[p->tx_una % NIC_REL_WINDOW];
    int events = 0;

    /* The deadlines of lost frames and of the tail probe are not the
     * firmware's to wake for: they are met by the next turn after them (a
     * host that waits polls turns; an arrival is one; a firmware thread
     * naps at most a millisecond while its host waits on the wire).  A
     * deadline nearer than the firmware's sleep grain makes it poll
     * instead of sleep, and one is pending whenever a frame is out: that
     * would take the CPU from the ranks it shares with for every round
     * trip.  Only the timeout, at least rto_min away, is a wake-up. */
    if (rel_seq_before(p->tx_una, p->tx_sack_hi))
        events += rel_resend_lost(rel, p, now);
    if (rel_since(now, oldest->sent_ns) >= p->rto_ns) {
        /* Nothing moved the window for a timeout: whatever has been out
         * as long and the receiver is not known to hold goes again, a
         * burst at most, and the timeout doubles (RFC 6298 5.5) until an
         * acknowledgement moves the window. */
        uint64_t overdue = p->rto_ns;   /* a frame sent since cannot be late yet */
        unsigned n = 0;
        rel->c.timeouts++;
        p->rto_ns = p->rto_ns * 2 < rel->cfg.rto_max_ns ? p->rto_ns * 2 : rel->cfg.rto_max_ns;
        for (uint32_t s = p->tx_una; s != p->tx_next && n < REL_RETX_BURST; s++) {
            nic_rel_frame_t *f = &p->win[s % NIC_REL_WINDOW];
            if (f->sacked || rel_since(now, f->sent_ns) < overdue)
                continue;
            rel_resend(rel, p, f, now);
            n++;
        }
        events++;
    } else {
        events += rel_probe_tail(rel, p, now, oldest->sent_ns + p->rto_ns);
    }
    uint64_t due = oldest->sent_ns + p->rto_ns;
    if (due < *next)
        *next = due;
    return events;
}
