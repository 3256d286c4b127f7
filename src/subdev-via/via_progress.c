/* via_progress.c - progress: the completion queue (receives, as the NIC
 * delivers them: dispatch, then repost the descriptor), the send queues
 * polled (free the descriptor, finish rendezvous sends), held arrivals, op
 * queues;
 * completions to the host; failures: a broken connection fails its peer,
 * a dead NIC fails everything. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "via_impl.h"

#define VSD_CQ_BUDGET 64

void vsd_complete(vsd_ctx_t *ctx, md_request_t *req)
{
    if (vsd_rp(req)->state == VSD_RS_DONE)
        return;
    vsd_rp(req)->state = VSD_RS_DONE;
    md_reqlist_append(&ctx->base.done, req);
}

/* A receive of a system message the subdevice made for itself; a lost
 * one is logged as from the rendezvous sender it recorded. */
static int is_sysmsg(md_request_t *req, int32_t *src)
{
    if (!(vsd_rp(req)->flags & VSD_RF_SYSMSG))
        return 0;
    *src = vsd_rp(req)->src;
    return 1;
}

void vsd_flush_done(vsd_ctx_t *ctx)
{
    md_complete_flush(ctx->base.sd, &ctx->base.done, is_sysmsg);
}

static void fail_req(void *arg, md_request_t *req, int status)
{
    vsd_ctx_t *ctx = arg;
    via_rpriv_t *rp = vsd_rp(req);

    if (rp->state == VSD_RS_DONE)
        return;
    if (rp->cookie)
        md_cookie_take(&ctx->base.cookies, rp->cookie);
    rp->cookie = 0;
    if (rp->rc != NULL) {
        via_rc_release(&ctx->rc, rp->rc);
        rp->rc = NULL;
    }
    req->status.error = status;
    req->status.size = 0;
    vsd_complete(ctx, req);
}

/* The peer a request with a live cookie, or a send still queued, waits
 * on: the one it talks to. */
static int32_t waits_on(md_request_t *req)
{
    return req->kind == MD_REQ_SEND ? req->peer_world : vsd_rp(req)->src;
}

/* Every request that waits on peer (or on anyone, peer < 0) fails: the
 * sends queued for it or in its send queue here, then what the kit holds
 * (md_peerfail_waiting; posted receives fail once the peer's held arrivals
 * have drained, by vsd_fail_posted from vsd_held_retry). */
static void fail_matching(vsd_ctx_t *ctx, int32_t peer, int status)
{
    md_peerfail_t f = { .peer = peer, .status = status, .peer_of = waits_on, .fail = fail_req,
                        .arg = ctx };

    for (int32_t q = 0; q < ctx->base.world_size; q++) {
        vsd_peer_t *p = &ctx->peers[q];
        if (peer >= 0 && q != peer)
            continue;
        md_opq_flush(&p->ops, md_peerfail_req, &f);
        for (uint32_t i = 0; p->sctx != NULL && i < ctx->sdepth; i++)
            if (p->sctx[i].req != NULL)
                fail_req(ctx, p->sctx[i].req, status);
    }
    md_peerfail_waiting(&f, &ctx->base.cookies, &ctx->base.held, &ctx->base.mq, ctx->base.sd->index);
}

/* Posted receives that can only be satisfied by the lost peer (peer < 0:
 * every one). */
void vsd_fail_posted(vsd_ctx_t *ctx, int32_t peer, int status)
{
    md_peerfail_t f = { .peer = peer, .status = status, .peer_of = waits_on, .fail = fail_req,
                        .arg = ctx };

    md_peerfail_posted(&ctx->base.mq, ctx->base.sd->index, &f);
}

void vsd_fail_peer(vsd_ctx_t *ctx, int32_t peer, int status)
{
    int first;

    if (peer < 0 || peer >= ctx->base.world_size)
        return;
    first = !ctx->peers[peer].failed;
    if (first) {
        if (status == MD_ERR_NOT_FOUND)
            VSD_LOG(ctx, MD_LOG_INFO, "rank %d has closed its NIC (finalized or exited)", peer);
        else
            VSD_LOG(ctx, MD_LOG_ERROR,
                    "rank %d is unreachable: %s", peer, md_status_string(status));
    }
    ctx->peers[peer].failed = status;
    fail_matching(ctx, peer, status);
    if (first)
        ctx->base.host->peer_failed(ctx->base.sd, peer, status);
}

/* Where peer q's failure is kept (md_peerfail_served). */
static int *peer_status(void *arg, int32_t q)
{
    return &((vsd_ctx_t *)arg)->peers[q].failed;
}

void vsd_fail_all(vsd_ctx_t *ctx, int status)
{
    fail_matching(ctx, -1, status);
    md_peerset_clear(&ctx->base.busy);
    /* every peer this NIC carried is out of reach now */
    md_peerfail_served(ctx->base.sd, ctx->base.serves, ctx->base.world_size, peer_status, ctx, status);
}

/* A receive descriptor of peer q completed. */
static void recv_completed(vsd_ctx_t *ctx, int32_t q, via_desc_t *d)
{
    vsd_peer_t *p = &ctx->peers[q];
    uint32_t status = atomic_load_explicit(&d->cs.status, memory_order_acquire);
    uint32_t i = (uint32_t)(((uint8_t *)d - p->rdesc) / VIA_DESC_STRIDE);

    if (status & VIA_STATUS_ERROR_MASK) {
        vipl_vi_info_t info = { 0 };
        vipl_query_vi(p->vi, &info);
        if (info.async_error == VIA_AERR_PEER_STOPPED) {
            vsd_fail_peer(ctx, q, MD_ERR_NOT_FOUND);   /* it finalized or exited */
            return;
        }
        if (!p->failed && !ctx->dead)
            VSD_LOG(ctx, MD_LOG_ERROR,
                    "the connection to rank %d is broken (receive status %#x)", q,
                    status);
        vsd_fail_peer(ctx, q, MD_ERR_PEER_FAILED);
        return;
    }
    if ((status & VIA_STATUS_OP_MASK) == VIA_STATUS_OP_REMOTE_RDMA_WRITE) {
        vsd_on_fin(ctx, d->cs.immediate);
    } else {
        const via_msg_t *m = (const via_msg_t *)vsd_rslot(ctx, p, i);
        const uint8_t *payload = (const uint8_t *)m + VIA_HDR_BYTES;
        if (m->posted > p->remote_posted)
            p->remote_posted = m->posted;
        switch (m->type) {
        case VSD_EAGER:
        case VSD_EAGER_SYNC:
        case VSD_RTS:
            vsd_on_arrival(ctx, q, m->type, &m->u.m.env, m->u.m.cookie, payload, m->len, NULL);
            break;
        case VSD_CTS:
            vsd_on_cts(ctx, m);
            break;
        case VSD_SYNC_ACK:
            vsd_on_sync_ack(ctx, m);
            break;
        default:
            VSD_LOG(ctx, MD_LOG_WARN, "unknown message type %u from rank %d", m->type, q);
            break;
        }
    }
    if (!p->failed && vsd_post_recv(ctx, q, i) == MD_OK)
        vsd_credit_maybe(ctx, q);
}

static int32_t peer_of(vsd_ctx_t *ctx, vipl_vi_t *vi)
{
    return vi != NULL ? (int32_t)(intptr_t)vipl_vi_context(vi) - 1 : -1;
}

static int poll_cq(vsd_ctx_t *ctx)
{
    int n = 0;

    for (; n < VSD_CQ_BUDGET; n++) {
        vipl_vi_t *vi;
        int is_recv;
        via_desc_t *d;
        vipl_result_t r = vipl_cq_done(ctx->cq, &vi, &is_recv);
        if (r == VIPL_NOT_DONE)
            break;
        if (r != VIPL_SUCCESS) {
            VSD_LOG(ctx, MD_LOG_ERROR, "the completion queue failed: %s", vipl_result_str(r));
            return MD_ERR_IO;
        }
        int32_t q = peer_of(ctx, vi);
        if (q < 0)
            continue;
        (void)is_recv;                    /* only receive queues are bound to it */
        while (vipl_recv_done(vi, &d) == VIPL_SUCCESS)
            recv_completed(ctx, q, d);
    }
    return n;
}

/* Reap peer q's send descriptors that are done, oldest first (a send queue
 * completes in order): 1 while some are still posted.  Completions may post
 * more (a credit update), to q or another peer, which the sweep then also
 * visits. */
static int reap_sends_peer(void *arg, int32_t q, int *events)
{
    vsd_ctx_t *ctx = arg;
    vsd_peer_t *p = &ctx->peers[q];
    via_desc_t *d;

    while (p->sbusy > 0 && vipl_send_done(p->vi, &d) == VIPL_SUCCESS) {
        uint32_t i = (uint32_t)(((uint8_t *)d - p->sdesc) / VIA_DESC_STRIDE);
        vsd_send_completed(ctx, q, i, atomic_load(&d->cs.status));
        (*events)++;
    }
    return p->sbusy > 0;
}

/* Nothing to do: the host waits for what completes on the CQ (receives) and
 * for the sends a request waits for (the last RDMA write of a rendezvous);
 * the other sends (eager copies, control messages, credit writes) wake no
 * one. */
static void wait_begin(vsd_ctx_t *ctx)
{
    vipl_cq_wait_begin(ctx->cq);
    for (uint32_t k = 0; k < ctx->sending.n; k++) {
        vsd_peer_t *p = &ctx->peers[ctx->sending.peer[k]];
        if (p->sawaited > 0)
            vipl_send_wait_begin(p->vi);
    }
}

/* The multidevice's progress thread sleeps on this while idle: the NIC
 * writes it after a completion-queue entry.  Work no completion announces
 * (messages waiting for credits, which come back by RDMA write; held
 * arrivals; sends to reap, which complete on no CQ) keeps it polling. */
int vsd_wait_fd(md_subdev_t *sd, unsigned flags)
{
    vsd_ctx_t *ctx = sd->priv;
    if (ctx->dead || ctx->base.busy.n > 0 || ctx->base.held.waiting.n > 0 || ctx->sending.n > 0 ||
        ctx->base.done.head != NULL)
        return -1;
    return vipl_cq_wake_fd(ctx->cq, !!(flags & MD_WAIT_F_SOLE));
}

/* A request waiting for a peer's answer (a message on a posted receive, a
 * CTS, an acknowledgement) learns that the peer's node died only through
 * traffic: every MD_LIVENESS_PROBE_MS, write each awaited peer's credit
 * word again (an RDMA write, which needs no receive descriptor there).
 * Towards a dead firmware the reliability layer gives up and the
 * connection breaks, which fails what waits on that peer. */
static void probe_mark_posted(void *arg, md_liveness_t *l)
{
    md_mq_foreach_posted(&((vsd_ctx_t *)arg)->base.mq, md_liveness_mark, l);
}

static void probe_peer(void *arg, int32_t q)
{
    vsd_credit_send(arg, q);
}

static void vsd_probe_awaited(vsd_ctx_t *ctx)
{
    static const md_liveness_ops_t ops = { .mark_posted = probe_mark_posted,
                                           .probe = probe_peer };
    md_liveness_round(&ctx->base.live, &ctx->base.cookies, &ops, ctx);
}

int vsd_progress(md_subdev_t *sd)
{
    vsd_ctx_t *ctx = sd->priv;
    int n, rc;

    if (ctx->dead) {
        vsd_flush_done(ctx);
        return ctx->dead;
    }
    vipl_cq_wake_done(ctx->cq);
    vipl_nic_lend(ctx->nic);   /* an in-process firmware's turn, instead of a hand-off */
    n = poll_cq(ctx);
    if (n >= 0)
        n += md_peerset_sweep(&ctx->sending, reap_sends_peer, ctx);
    if (n == 0 && (rc = vipl_nic_check(ctx->nic)) != MD_OK)
        n = rc;
    if (n < 0) {
        ctx->dead = n == MD_ERR_IO ? MD_ERR_PEER_FAILED : n;
        VSD_LOG(ctx, MD_LOG_ERROR,
                "the VI NIC of this node (%s) is gone: %s; every request on this "
                "subdevice fails", ctx->nic_name, md_status_string(n));
        vsd_fail_all(ctx, ctx->dead);
        vsd_flush_done(ctx);
        return ctx->dead;
    }
    n += vsd_held_retry(ctx);
    if (n == 0)
        vsd_probe_awaited(ctx);
    n += vsd_ops_drain(ctx);
    vsd_flush_done(ctx);
    /* Nothing to do: the host waits.  MPI/Pro's waiting mode would sleep in
     * the kernel now, so the next completion costs the interrupt and the
     * wake-up (the user agent charges them).  We keep polling instead of
     * sleeping here: the rank's other subdevices need their progress too,
     * and whether the rank really sleeps is the multidevice's idle policy
     * (on vsd_wait_fd). */
    if (n == 0 && ctx->block)
        wait_begin(ctx);
    return n;
}

uint64_t vsd_wakeups(md_subdev_t *sd)
{
    vsd_ctx_t *ctx = sd->priv;
    return ctx != NULL && ctx->nic != NULL ? vipl_nic_wakeups(ctx->nic) : 0;
}
