/*
 * md_fwd_ack.c - the acknowledgements of forwarded messages (P1 §3.4 steps
 * 4 to 6), gathered.
 *
 * A standard-mode send completes at its origin once its last chunk has
 * left (the payload was copied into the chunks, so the user's buffer is
 * free, as after any eager send); only the flow stays in the IndirectQueues
 * of the origin and the relays until its acknowledgement comes back.  So
 * the destination need not acknowledge at once: it gathers the
 * acknowledgements per upstream neighbour and sends them as one FWD_ACK
 * message of several entries once MULTIDEV_FWD_ACK_BATCH are waiting, once
 * the oldest has waited MULTIDEV_FWD_ACK_DELAY_US (checked after every
 * progress pass: a rank asleep sends them at its next pass, at most the
 * progress thread's 50 ms poll later; flushing before every sleep sent
 * each one alone, since a progress thread sleeps between most messages),
 * and at finalize.  An MPI_Ssend's origin waits for its acknowledgement
 * (sent once the message is matched), so that one leaves at once, with
 * whatever waits for the same neighbour.  A relay passes the entries of an
 * arriving FWD_ACK upstream at once, in one message per neighbour.
 *
 * Before (one FWD_ACK per message, the origin's send waiting for it), a
 * forwarded ping-pong carried an acknowledgement in each direction on its
 * critical path: at the relay and at the origin its handling came between
 * the reply's arrival and its delivery (a GAM entry read of the timing
 * model, 6 us), 10-25 us a message in all (bench/route.sh, 2026-11-26).
 */
#include "config.h"

#include <string.h>

#include "md_fwd_state.h"
#include "md_log.h"
#include "md_thread.h"

/* One FWD_ACK message with the n entries of ctl to one neighbour. */
static void md_fwd_ack_send(md_t *md, int subdev, int32_t to,
                            const md_fwd_ctl_t *ctl, int n)
{
    if (md_fwd_send_ctl(md, subdev, to, MD_SYSTAG_FWD_ACK, ctl, n) != MD_OK)
        return;
    md->fwd->counters.ack_msgs_sent++;
    md->fwd->counters.acks_sent += (uint64_t)n;
}

/* One message per neighbour for the n entries of q, in the order they
 * were queued; q is used up (its subdevices overwritten). */
static void md_fwd_ack_send_grouped(md_t *md, md_fwd_ack_pending_t *q, int n)
{
    md_fwd_ctl_t group[MD_FWD_ACKQ_MAX];

    for (int i = 0; i < n; i++) {
        const md_fwd_ack_pending_t first = q[i];
        int g = 0;

        if (first.up_subdev < 0)
            continue;           /* sent with an earlier group */
        for (int k = i; k < n; k++) {
            if (q[k].up_subdev == first.up_subdev && q[k].upstream == first.upstream) {
                group[g++] = q[k].ctl;
                q[k].up_subdev = -1;
            }
        }
        md_fwd_ack_send(md, first.up_subdev, first.upstream, group, g);
    }
}

void md_fwd_ack_flush(md_t *md, int force)
{
    md_fwd_state_t *st = md->fwd;

    if (st == NULL || st->nackq == 0)
        return;
    if (!force && md_now_ns() - st->ackq_since_ns < st->params.ack_delay_ns)
        return;
    md_fwd_ack_send_grouped(md, st->ackq, st->nackq);
    st->nackq = 0;
}

void md_fwd_ack_queue(md_t *md, int up_subdev, int32_t upstream,
                      const md_fwd_ctl_t *ctl, int urgent)
{
    md_fwd_state_t *st = md->fwd;
    int same = 0;

    if (st->nackq == MD_FWD_ACKQ_MAX)
        md_fwd_ack_flush(md, 1);
    if (st->nackq == 0)
        st->ackq_since_ns = md_now_ns();
    st->ackq[st->nackq++] = (md_fwd_ack_pending_t){ .upstream = upstream,
                                                    .up_subdev = up_subdev,
                                                    .ctl = *ctl };
    for (int i = 0; i < st->nackq; i++)
        same += st->ackq[i].upstream == upstream && st->ackq[i].up_subdev == up_subdev;
    if (urgent || same >= st->params.ack_batch)
        md_fwd_ack_flush(md, 1);
}

/* The entries for flows that began here end them; those of relayed flows
 * go on upstream at once, one message per neighbour (the destination
 * gathered them already).  The acknowledgements this rank gathers as a
 * destination wait on: an arriving batch is no reason to send them. */
void md_fwd_on_acks(md_t *md, const void *payload, size_t len)
{
    md_fwd_ack_pending_t pass[MD_FWD_ACKQ_MAX];
    size_t n = len / sizeof(md_fwd_ctl_t);
    int npass = 0;

    for (size_t i = 0; i < n; i++) {
        md_fwd_ctl_t ctl;
        memcpy(&ctl, (const uint8_t *)payload + i * sizeof(ctl), sizeof(ctl));
        if (ctl.origin == md->rank) {
            md_fwd_on_ack(md, &ctl);
        } else if (md_fwd_relay_ack(md, &ctl, &pass[npass])) {
            if (++npass == MD_FWD_ACKQ_MAX) {
                md_fwd_ack_send_grouped(md, pass, npass);
                npass = 0;
            }
        }
    }
    md_fwd_ack_send_grouped(md, pass, npass);
}

void md_fwd_ack_finish(md_t *md)
{
    md_fwd_state_t *st = md->fwd;

    if (st == NULL)
        return;
    md_fwd_batch_flush(md);
    md_fwd_ack_flush(md, 1);
    for (int spins = 0; st->ctl_inflight > 0 && spins < 1000000; spins++)
        if (md_progress(md) < 0)
            break;
}
