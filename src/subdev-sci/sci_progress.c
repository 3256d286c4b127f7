/* sci_progress.c - progress (completions of the bridge, control stores,
 * arrivals, held messages, transports, sends), the completion list, and
 * failures: a dead firmware fails everything, a peer that stops answering
 * fails what waits on it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sci_impl.h"

void sci_complete(sci_ctx_t *ctx, md_request_t *req)
{
    sci_rp(req)->state = SCI_RS_DONE;
    md_reqlist_append(&ctx->base.done, req);
}

/* A receive of a system message the subdevice made for itself. */
static int is_sysmsg(md_request_t *req, int32_t *src)
{
    (void)src;   /* req->peer_world: md_sysmsg_recv_new set it */
    return sci_rp(req)->flags & SCI_RF_SYSMSG;
}

void sci_flush_done(sci_ctx_t *ctx)
{
    md_complete_flush(ctx->base.sd, &ctx->base.done, is_sysmsg);
}

void sci_fail_req(sci_ctx_t *ctx, md_request_t *req, int status)
{
    req->status.error = status;
    req->status.size = 0;
    sci_complete(ctx, req);
}

/* sci_fail_req as md_peerfail_t.fail. */
static void fail_req(void *ctx, md_request_t *req, int status)
{
    sci_fail_req(ctx, req, status);
}

/* Receives that only peer (peer < 0: anyone) can match fail with status. */
static void fail_posted(sci_ctx_t *ctx, int32_t peer, int status)
{
    md_peerfail_t f = { .peer = peer, .status = status, .fail = fail_req, .arg = ctx };

    md_peerfail_posted(&ctx->base.mq, ctx->base.sd->index, &f);
}

/* Everything that waits on peer fails with status; with keep_arrived,
 * what peer sent before it failed stays to be received. */
static void fail_peer(sci_ctx_t *ctx, int32_t peer, int status, int keep_arrived)
{
    sci_peer_t *p = &ctx->peers[peer];
    md_request_t *req;

    if (!p->failed) {
        SCI_LOG(ctx, keep_arrived ? MD_LOG_INFO : MD_LOG_ERROR, "rank %d is %s: %s", peer,
                keep_arrived ? "gone (what it sent before is still received)" : "unreachable",
                md_status_string(status));
        p->failed = status;
        ctx->base.host->peer_failed(ctx->base.sd, peer, status);
        while ((req = md_reqlist_pop(&p->sendq)) != NULL)
            sci_fail_req(ctx, req, status);
        for (uint32_t h = 0; p->rdv_req != NULL && h < ctx->lay.p.nrdv; h++) {
            if ((req = p->rdv_req[h]) != NULL) {
                p->rdv_req[h] = NULL;
                sci_fail_req(ctx, req, status);
            }
        }
        p->rdv_used = 0;
        p->tp_active = NULL;
        while (p->tp_head != NULL) {
            sci_tp_recv_t *t = p->tp_head;
            p->tp_head = t->next;
            sci_fail_req(ctx, t->req, status);
            free(t);
        }
        p->tp_tail = NULL;
    }
    if (keep_arrived || p->drained)
        return;
    md_held_drop(&p->held);
    p->drained = 1;
    fail_posted(ctx, peer, status);
}

void sci_fail_peer(sci_ctx_t *ctx, int32_t peer, int status)
{
    if (peer >= 0 && peer < ctx->base.world_size)
        fail_peer(ctx, peer, status, 0);
}

void sci_peer_gone(sci_ctx_t *ctx, int32_t peer)
{
    if (peer >= 0 && peer < ctx->base.world_size)
        fail_peer(ctx, peer, MD_ERR_PEER_FAILED, 1);
}

/* Take what a gone peer left in our memory; once nothing is left, the
 * receives only it could match fail. */
static int drain_gone_peer(sci_ctx_t *ctx, int32_t peer)
{
    sci_peer_t *p = &ctx->peers[peer];
    int n = sci_arrivals(ctx, peer);

    if (!md_held_empty(&p->held))
        n += sci_held_retry(ctx, peer);
    if (n == 0 && md_held_empty(&p->held)) {
        p->drained = 1;
        fail_posted(ctx, peer, p->failed);
    }
    return n;
}

void sci_fail_all(sci_ctx_t *ctx, int status)
{
    for (int32_t i = 0; i < ctx->nserved; i++)
        sci_fail_peer(ctx, ctx->served[i], status);
    fail_posted(ctx, -1, status);
    sci_ctl_drop_all(ctx);
}

/* Completions from the bridge: DMA chunks done (stage chunks free again),
 * and errors of stores (a store beyond its window is a bug here). */
static int poll_bridge(sci_ctx_t *ctx)
{
    sci_cqe_t c;
    int n = 0, rc;

    while ((rc = sci_poll(ctx->dev, &c)) == 1) {
        n++;
        if (c.kind == SCI_CQ_NODE_GONE) {
            sci_node_gone(ctx, &c);
            continue;
        }
        if (c.kind != SCI_CQ_DONE || sci_liveness_answer(ctx, &c))
            continue;
        if (c.op == SCI_OP_DMA_WRITE) {
            sci_tp_stage_done(ctx, c.cookie, c.status);
        } else if (c.status != NIC_OK) {
            SCI_LOG(ctx, MD_LOG_ERROR, "the bridge refused a request (op %u): %s", c.op,
                    md_status_string(c.status));
        }
    }
    if (rc < 0) {
        ctx->dead = rc;
        SCI_LOG(ctx, MD_LOG_ERROR, "the bridge firmware of this node (%s) is gone: %s; every "
                "request on this subdevice fails", ctx->nic_name, md_status_string(rc));
        sci_fail_all(ctx, rc);
        return rc;
    }
    return n;
}

int sci_progress_inner(sci_ctx_t *ctx)
{
    int n, rc;

    if (ctx->dead)
        return ctx->dead;
    if ((rc = poll_bridge(ctx)) < 0)
        return rc;
    n = rc + sci_ctl_flush(ctx);
    for (int32_t i = 0; i < ctx->nserved; i++) {
        int32_t peer = ctx->served[i];
        sci_peer_t *p = &ctx->peers[peer];
        int k = 0;
        if (!p->connected || p->drained)
            continue;
        if (p->failed) {
            n += drain_gone_peer(ctx, peer);
            continue;
        }
        k += sci_arrivals(ctx, peer);
        if (!md_held_empty(&p->held))
            k += sci_held_retry(ctx, peer);
        if (p->tp_head != NULL)
            k += sci_tp_recv_progress(ctx, peer);
        if (!md_reqlist_empty(&p->sendq) || p->oldest_id < p->next_id || p->rdv_used > 0)
            k += sci_send_progress(ctx, peer);
        p->activity += (uint64_t)k;
        n += k;
    }
    if (n == 0)
        sci_liveness_check(ctx);
    return n;
}

/* Local work that no remote store announces: it must be polled. */
static int work_unannounced(const sci_ctx_t *ctx)
{
    if (ctx->ctl_head != NULL)
        return 1;      /* control stores waiting for room in the window */
    for (int32_t i = 0; i < ctx->nserved; i++) {
        const sci_peer_t *p = &ctx->peers[ctx->served[i]];
        if (!md_held_empty(&p->held) || p->tp_head != NULL || !md_reqlist_empty(&p->sendq))
            return 1;
    }
    return 0;
}

/* The multidevice's progress thread sleeps on this while idle: the bridge
 * writes it after a frame that stored into our memory (or a CQ entry);
 * what landed since sci_progress disarmed it makes it readable at once. */
int sci_wait_fd(md_subdev_t *sd, unsigned flags)
{
    sci_ctx_t *ctx = sd->priv;

    if (ctx->dead || work_unannounced(ctx))
        return -1;
    return nic_ep_wake_arm(ctx->dev->ep, !!(flags & MD_WAIT_F_SOLE));
}

int sci_progress(md_subdev_t *sd)
{
    sci_ctx_t *ctx = sd->priv;
    int n;

    nic_ep_wake_disarm(ctx->dev->ep);   /* before the pass looks (mem_gen) */

    /* The timing model's PIO writes of our last stores end before we look
     * for answers; an in-process firmware gets the wait's turns. */
    sci_pio_settle(ctx->dev);
    nic_host_lend(ctx->nic);   /* an in-process firmware's turn, instead of a hand-off */
    n = sci_progress_inner(ctx);
    sci_flush_done(ctx);
    return n;
}
