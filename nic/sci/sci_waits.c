/* sci_waits.c - remote reads and store barriers wait on other bridges'
 * answers.  Each ends here: when the answers are in (sci_rx.c hands them
 * over), or failed: after
 * MULTIDEV_SCI_TIMEOUT_MS without them (counted only while this firmware
 * runs, nic_clock.h), or at once when a bridge it waits on is gone - it
 * said BYE as its firmware stopped, or its stream timed out (nic_rel's
 * peer_gone).  Before the second way a read to a bridge whose process had
 * finalized waited out the whole timeout, and with it subdev-sci's
 * liveness check. */
#include "config.h"

#include "../core/nic_log.h"
#include "sci_fw.h"

void sci_waits_read_end(sci_bridge_t *b, sci_read_t *r, int status)
{
    sci_cqe_t c = { .kind = SCI_CQ_DONE, .op = r->op, .status = (int16_t)status,
                    .len = (uint32_t)(r->got < r->len ? r->got : r->len), .cookie = r->cookie };
    nic_fw_ep_t *ep = r->ep;

    r->ep = NULL;
    b->nreads--;
    sci_cq_complete(b, ep, &c, 0);
}

static void barrier_end(sci_bridge_t *b, sci_barrier_t *bar, int status)
{
    sci_cqe_t c = { .kind = SCI_CQ_DONE, .op = SCI_OP_BARRIER, .status = (int16_t)status,
                    .cookie = bar->cookie };
    nic_fw_ep_t *ep = bar->ep;

    bar->ep = NULL;
    b->nbarriers--;
    sci_cq_complete(b, ep, &c, 0);
}

int sci_waits_timeout(sci_bridge_t *b, uint64_t now, uint64_t *next)
{
    unsigned long long ms = (unsigned long long)(b->timeout_ns / 1000000);
    int n = 0;

    for (unsigned i = 0; b->nreads > 0 && i < SCI_READS_MAX; i++) {
        sci_read_t *r = &b->reads[i];
        if (r->ep == NULL || !nic_stall_timer_expired(&r->waited, now, b->timeout_ns, next))
            continue;
        nic_log_warn(b->log, "endpoint %#x: a remote read got no answer in %llu ms", r->ep->id, ms);
        sci_waits_read_end(b, r, NIC_ERR_PEER_FAILED);
        n++;
    }
    for (unsigned i = 0; b->nbarriers > 0 && i < SCI_BARRIERS_MAX; i++) {
        sci_barrier_t *bar = &b->barriers[i];
        if (bar->ep == NULL || !nic_stall_timer_expired(&bar->waited, now, b->timeout_ns, next))
            continue;
        nic_log_warn(b->log,
                     "endpoint %#x: a store barrier got no answer from %u bridge(s) in %llu ms",
                     bar->ep->id, sci_peers_count(bar->waits), ms);
        barrier_end(b, bar, NIC_ERR_PEER_FAILED);
        n++;
    }
    return n;
}

void sci_waits_barrier_ack(sci_bridge_t *b, int peer, uint32_t token)
{
    for (unsigned i = 0; b->nbarriers > 0 && i < SCI_BARRIERS_MAX; i++) {
        sci_barrier_t *bar = &b->barriers[i];
        if (bar->ep == NULL || bar->token != token)
            continue;
        if (!sci_peers_has(bar->waits, peer))
            return;     /* not asked, or answered already */
        sci_peers_del(bar->waits, peer);
        if (sci_peers_count(bar->waits) == 0)
            barrier_end(b, bar, NIC_OK);
        return;
    }
}

void sci_waits_peer_gone(sci_bridge_t *b, int peer, int status)
{
    const char *why = status == NIC_ERR_NOT_FOUND ? "stopped" : "died";
    unsigned reads = 0, barriers = 0;

    for (unsigned i = 0; b->nreads > 0 && i < SCI_READS_MAX; i++)
        if (b->reads[i].ep != NULL && sci_peers_has(b->reads[i].from, peer)) {
            sci_waits_read_end(b, &b->reads[i], status);
            reads++;
        }
    for (unsigned i = 0; b->nbarriers > 0 && i < SCI_BARRIERS_MAX; i++)
        if (b->barriers[i].ep != NULL && sci_peers_has(b->barriers[i].waits, peer)) {
            barrier_end(b, &b->barriers[i], status);
            barriers++;
        }
    if (reads + barriers > 0)
        nic_log_info(b->log, "a bridge %s: %u remote read(s) and %u store barrier(s) waiting on it "
                     "failed", why, reads, barriers);
}
