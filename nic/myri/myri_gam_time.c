/* myri_gam_time.c - the host side of the timing model (doc/nic.md §8):
 * what LAM's host library paid in programmed I/O and copies (P2 Table 4.1),
 * charged as deadlines from the events the hardware would have timed, so
 * that this emulation's own delays hide inside the modelled time. */
#include "config.h"

#include <sched.h>
#include <string.h>

#include "myri_gam_impl.h"

/* Timing model: the host is stalled (a PIO access, a copy) until the
 * deadline.  Costs are deadlines from when the host began the operation, so
 * a late turn here shortens the next wait of the same operation instead of
 * adding to it.  Meanwhile the emulated LANai, which ran beside the host
 * CPU, needs a processor: with the node's firmware in this process the
 * host lends it turns while the rest is longer than a lent turn has been
 * taking per event it handled (so the firmware's work overlaps the stall,
 * as the LANai's overlapped the host's PIO, and a turn rarely outlasts
 * it), except in the PIO writes of its own request (lend 0: 1.6 us, less
 * than a turn on this guest, and the entry they write is not the LANai's
 * until they end); otherwise it yields while the rest is longer than a
 * yield has been taking (another process's turn on this core: an emulated
 * NIC's loop turn is a few microseconds).  It spins the tail, so a
 * request's time is kept exactly.  (A mean of whole turns rose when turns
 * carried batches, stalls then lent less, so work piled up into bigger
 * batches: a long burst settled at 17-19 us a message, or at 9.  Lending
 * in a request's PIO writes made every request of a burst pay a turn: o_s
 * 3.7 us against P2's 2.9.  2026-11-26.) */
/* A running mean of how long a turn (or a yield) takes, to which one
 * sample adds at most four times the mean: a turn the kernel preempted for
 * milliseconds (a loaded or sanitized run) would otherwise make every stall
 * shorter than it look too short to lend in, and, no turn being lent any
 * more, the mean would never come down again. */
static uint64_t turn_mean(uint64_t mean, uint64_t sample)
{
    uint64_t most = 4 * mean + 1000;   /* (+1 us: a mean near 0 may still grow) */

    if (sample > most)
        sample = most;
    return (mean * 7 + sample) / 8;
}

int gam_lend(myri_gam_t *g)
{
    if (!g->lends)
        return 0;
    uint64_t t0 = nic_now_ns();
    int events = nic_host_lend(g->ep->host);
    if (events > 0)
        g->turn_ns = turn_mean(g->turn_ns, (nic_now_ns() - t0) / (uint64_t)events);
    return events;
}

void gam_wait_until(myri_gam_t *g, uint64_t end, int lend)
{
    uint64_t now;

    while ((now = nic_now_ns()) < end) {
        if (g->lends) {
            if (lend && end - now > g->turn_ns && gam_lend(g) > 0)
                g->st.stall_turns++;
        } else if (end - now > g->yield_ns) {
            sched_yield();
            g->yield_ns = turn_mean(g->yield_ns, nic_now_ns() - now);
        }
    }
}

/* Host costs of the timing model (0 when it is off), P2 Table 4.1 applied
 * to what LAM's host library does. */
static uint64_t gam_copy_ns(const myri_gam_t *g, size_t len)
{
    /* a load and a store per word */
    return g->t.mem_ns ? 2ull * ((len + g->t.mem_word - 1) / g->t.mem_word) * g->t.mem_ns : 0;
}

static uint64_t gam_enqueue_ns(const myri_gam_t *g)
{
    /* P2 §4.1: "one write to set the Page Map register followed by eight
     * reads or writes" per queue-entry access, which its 14.7 us of PIO
     * per round trip adds up to.  (Until 2026-11-26 a request also read
     * the entry's op word first, is it free?, under a page map of its
     * own: 0.87 us that P2 does not count; the library knows its free
     * out-queue entries from its own count.) */
    return (uint64_t)g->t.pagemap_ns + (uint64_t)g->t.entry_words * g->t.pio_write_ns;
}

static uint64_t gam_poll_ns(const myri_gam_t *g)
{
    /* page map, read the next in-queue entry's op word */
    return (uint64_t)g->t.pagemap_ns + g->t.pio_read_ns;
}

uint64_t gam_dequeue_ns(const myri_gam_t *g)
{
    /* the other 7 words of a valid entry and the write that frees it */
    return g->t.pio_read_ns ? (uint64_t)(g->t.entry_words - 1) * g->t.pio_read_ns +
                                  g->t.pio_write_ns
                            : 0;
}

/* Now, or later if the host is still busy in the model. */
static uint64_t gam_busy_from_now(const myri_gam_t *g)
{
    uint64_t now = nic_now_ns();
    return now > g->busy_until ? now : g->busy_until;
}

/* When a host operation that the caller starts now starts in the model:
 * after the read of the last poll, which returned at once. */
static uint64_t gam_start(myri_gam_t *g)
{
    g->polling_since = 0;
    return gam_busy_from_now(g);
}

/* The next in-queue entry the host's poll finds, and when (*found, 0 if
 * the host timing is off); NULL if none is valid yet.  LAM polls by reading
 * the op word of the next entry (page map + one read); the entry counts
 * from the time its stamp says the LCP made it valid (the emulated NIC may
 * have put it there earlier).  A poll that finds nothing returns at once
 * (the next operation starts after its read: gam_start), so that the core
 * is free at once for whatever else runs on it.  A host that has been
 * polling in vain since polling_since did, in the model, read the op word
 * every poll time since then, so it saw the entry at the first read that
 * ended after the entry became valid, even if this emulation ran the host
 * only later (another process had the core): that delay hides in the time
 * the model charges for the read.  Caveat: a caller that does its own work
 * between polls that find nothing is modelled as having polled throughout;
 * what it can gain so is at most one entry's read (under 6 us) per
 * message.  A turn lent to an in-process firmware runs inside the poll's
 * read (it may bring the entry); its time hides in the read of an entry
 * found valid. */
nic_entry_t *gam_poll_entry(myri_gam_t *g, int lend, uint64_t *found)
{
    uint64_t p = gam_poll_ns(g), read_end = 0, valid;
    nic_entry_t *slot;

    /* Without the host's timing the clock matters only for an entry the
     * LCP stamped: an empty poll (most of a waiting rank's) reads none. */
    if (p != 0)
        read_end = gam_busy_from_now(g) + p;
    /* With the host's timing on, the first poll after an operation lends
     * no turn: a read (0.87 us) cannot hide a turn (a few us here), and a
     * poll that is not waiting for anything (the one every GAM call makes
     * first) would pay it in full.  Polls that follow an empty one wait,
     * and the turns they lend hide in the waiting. */
    if (lend && (p == 0 || g->polling_since != 0))
        gam_lend(g);
    slot = nic_ep_cq_peek(g->ep);
    valid = slot != NULL ? g->cq_stamp[nic_ring_index(&g->ep->cq)] : 0;
    if (p == 0 && valid != 0)
        read_end = gam_busy_from_now(g);
    if (slot == NULL || valid > read_end) {
        if (p != 0) {
            if (g->polling_since == 0)
                g->polling_since = read_end - p;
            g->busy_until = read_end;
        }
        return NULL;
    }
    if (p != 0 && g->polling_since != 0) {
        uint64_t first = g->polling_since + p;
        uint64_t at = valid <= first ? first : first + (valid - first + p - 1) / p * p;
        if (at < read_end)
            read_end = at;
    }
    g->polling_since = 0;
    *found = p != 0 ? read_end : 0;
    return slot;
}

uint64_t gam_post_ready(myri_gam_t *g, size_t len)
{
    if (g->t.pio_write_ns == 0)
        return 0;
    /* the host copies into the pinned copy block, then writes the entry */
    return gam_start(g) + gam_copy_ns(g, len) + gam_enqueue_ns(g);
}

void myri_gam_set_host_timing(myri_gam_t *g, const myri_host_timing_t *t)
{
    g->t = *t;
}

void myri_gam_host_copy(myri_gam_t *g, void *dst, const void *src, size_t len)
{
    uint64_t end = g->t.mem_ns ? gam_start(g) + gam_copy_ns(g, len) : 0;
    memcpy(dst, src, len);
    gam_wait_until(g, end, 1);
}

void myri_gam_host_work(myri_gam_t *g, uint64_t ns)
{
    gam_wait_until(g, gam_start(g) + ns, 1);
}

void myri_gam_arrival(const myri_gam_t *g, uint64_t *valid_ns, uint64_t *found_ns)
{
    *valid_ns = g->cur_valid;
    *found_ns = g->cur_found;
}
