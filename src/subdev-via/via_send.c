/* via_send.c - sends: protocol choice at the switch point, the per-peer op
 * queues drained while credits and send descriptors allow, the rendezvous
 * RDMA writes, synchronous sends, credit updates by RDMA write, and sends
 * to ourselves (no NIC). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "via_impl.h"

#define VSD_RNDV_CHUNK (16u << 20)    /* bytes per RDMA write descriptor */

void vsd_op_push(vsd_ctx_t *ctx, int32_t peer, md_op_t *op)
{
    md_opq_post(&ctx->peers[peer].ops, &ctx->base.busy, peer, op);
}

int vsd_op_ctl(vsd_ctx_t *ctx, int32_t peer, uint32_t type, uint64_t a0, uint64_t a1, uint64_t a2,
               uint64_t a3, uint64_t a4)
{
    const uint64_t args[] = { a0, a1, a2, a3, a4 };

    return md_opq_post_ctl(&ctx->peers[peer].ops, &ctx->base.busy, peer, type, args, 5);
}

/* A send to ourselves: no NIC, the arrival path directly.  Small standard
 * sends are copied (they complete at once, as eager ones do); large and
 * synchronous ones complete when matched. */
static int send_local(vsd_ctx_t *ctx, md_request_t *req)
{
    if (req->env.tag < 0) {
        ctx->base.sd->counters.sysmsgs_recvd++;
        ctx->base.host->sysmsg(ctx->base.sd, &req->env, req->buf);
        req->status.error = MD_OK;
        vsd_complete(ctx, req);
        return MD_OK;
    }
    if (req->len <= ctx->eager_limit && !(req->env.flags & MD_ENV_F_SYNC)) {
        vsd_on_arrival(ctx, ctx->base.me, VSD_EAGER, &req->env, 0, req->buf, (uint32_t)req->len, NULL);
        req->status.error = MD_OK;
        vsd_complete(ctx, req);
    } else {
        vsd_rp(req)->state = VSD_RS_WAIT_CTS;
        vsd_on_arrival(ctx, ctx->base.me, VSD_RTS, &req->env, 0, NULL, 0, req);
    }
    return MD_OK;
}

int vsd_isend(md_subdev_t *sd, md_request_t *req)
{
    vsd_ctx_t *ctx = sd->priv;
    int32_t peer = req->peer_world;
    int sys = req->env.tag < 0, sync = (req->env.flags & MD_ENV_F_SYNC) && !sys;
    md_op_t *op;

    if (ctx->dead)
        return ctx->dead;
    if (!md_serves(ctx->base.serves, ctx->base.world_size, peer))
        return md_serves_refuse(sd, peer);
    memset(vsd_rp(req), 0, sizeof(via_rpriv_t));
    if (req->len <= ctx->eager_limit)
        sd->counters.eager_sent += !sys;
    else
        sd->counters.rndv_sent += !sys;
    if (peer == ctx->base.me) {
        send_local(ctx, req);
        vsd_flush_done(ctx);
        return MD_OK;
    }
    if (ctx->peers[peer].failed)
        return ctx->peers[peer].failed;
    op = md_op_new(req->len > ctx->eager_limit ? VSD_RTS : sync ? VSD_EAGER_SYNC : VSD_EAGER,
                   req);
    if (op == NULL)
        return MD_ERR_NO_MEMORY;
    vsd_rp(req)->state = VSD_RS_QUEUED;
    vsd_op_push(ctx, peer, op);
    vsd_ops_drain(ctx);
    vsd_flush_done(ctx);
    return MD_OK;
}

static int64_t credits_of(vsd_ctx_t *ctx, int32_t q)
{
    vsd_peer_t *p = &ctx->peers[q];
    uint64_t word = vsd_credit_word(ctx, q);
    if (word > p->remote_posted)
        p->remote_posted = word;
    return (int64_t)(p->remote_posted - p->consumed);
}

/* Post one message that takes a receive descriptor at the peer:
 * 1 posted, 0 no send descriptor yet, < 0 failed. */
static int emit_msg(vsd_ctx_t *ctx, int32_t q, const via_msg_t *h, const void *payload,
                    uint32_t len)
{
    vsd_peer_t *p = &ctx->peers[q];
    uint32_t i = vsd_sctx_get(p);
    vipl_result_t r;

    if (i == UINT32_MAX)
        return 0;
    uint8_t *slot = vsd_sslot(ctx, p, i);
    via_msg_t *m = (via_msg_t *)slot;
    *m = *h;
    m->len = len;
    m->posted = p->posted;
    if (len)
        memcpy(slot + VIA_HDR_BYTES, payload, len);
    via_desc_t *d = vsd_sdesc(p, i);
    vipl_desc_init(d, VIA_CONTROL_OP_SENDRECV);
    vipl_desc_add_data(d, slot, ctx->pool_h, VIA_HDR_BYTES + len);
    if ((r = vipl_post_send(p->vi, d, ctx->pool_h)) != VIPL_SUCCESS) {
        vsd_sctx_put(p, i);
        return r == VIPL_ERROR_RESOURCE ? 0 : MD_ERR_PEER_FAILED;
    }
    vsd_sctx_posted(ctx, q, i, VSD_CTX_MSG, NULL);
    p->consumed++;
    p->advertised = p->posted;           /* the header carried it */
    return 1;
}

/* Post RDMA writes of a rendezvous: 1 all posted, 0 later, < 0 failed. */
static int emit_writes(vsd_ctx_t *ctx, int32_t q, md_request_t *req)
{
    vsd_peer_t *p = &ctx->peers[q];
    via_rpriv_t *rp = vsd_rp(req);

    while (rp->written < rp->rlen) {
        uint64_t n = rp->rlen - rp->written < VSD_RNDV_CHUNK ? rp->rlen - rp->written
                                                              : VSD_RNDV_CHUNK;
        int last = rp->written + n == rp->rlen;
        uint32_t i;
        vipl_result_t r;

        if (last && credits_of(ctx, q) < 1)
            return 0;                     /* the immediate takes a descriptor */
        if ((i = vsd_sctx_get(p)) == UINT32_MAX)
            return 0;
        via_desc_t *d = vsd_sdesc(p, i);
        vipl_desc_init(d, VIA_CONTROL_OP_RDMAWRITE);
        vipl_desc_set_remote(d, rp->raddr + rp->written, rp->rhandle);
        vipl_desc_add_data(d, (uint8_t *)req->buf + rp->written, rp->rc->handle, (uint32_t)n);
        if (last) {
            uint32_t cookie = (uint32_t)rp->remote_cookie;
            vipl_desc_set_immediate(d, &cookie, sizeof(cookie));
        }
        if ((r = vipl_post_send(p->vi, d, ctx->pool_h)) != VIPL_SUCCESS) {
            vsd_sctx_put(p, i);
            return r == VIPL_ERROR_RESOURCE ? 0 : MD_ERR_PEER_FAILED;
        }
        vsd_sctx_posted(ctx, q, i, last ? VSD_CTX_WRITE_LAST : VSD_CTX_WRITE, req);
        if (last)
            p->consumed++;
        rp->written += n;
    }
    return 1;
}

/* Try to put one op on the wire: 1 done, 0 not yet, < 0 failed. */
static int op_emit(void *arg, int32_t q, md_op_t *op)
{
    vsd_ctx_t *ctx = arg;
    md_request_t *req = op->req;
    via_msg_t h;
    int rc;

    if (op->kind == VSD_OP_WRITE)
        return emit_writes(ctx, q, req);
    if (credits_of(ctx, q) < 1)
        return 0;
    memset(&h, 0, sizeof(h));
    h.type = op->kind;
    switch (op->kind) {
    case VSD_EAGER:
        h.u.m.env = req->env;
        if ((rc = emit_msg(ctx, q, &h, req->buf, (uint32_t)req->len)) == 1) {
            req->status.error = MD_OK;    /* the data is in the slot */
            vsd_complete(ctx, req);
        }
        return rc;
    case VSD_EAGER_SYNC:
    case VSD_RTS: {
        uint32_t cookie = md_cookie_new(&ctx->base.cookies, req);
        if (cookie == 0)
            return MD_ERR_NO_MEMORY;
        vsd_rp(req)->cookie = cookie;
        h.u.m.env = req->env;
        h.u.m.cookie = cookie;
        rc = emit_msg(ctx, q, &h, op->kind == VSD_RTS ? NULL : req->buf,
                      op->kind == VSD_RTS ? 0 : (uint32_t)req->len);
        if (rc != 1) {
            md_cookie_take(&ctx->base.cookies, cookie);
            return rc;
        }
        vsd_rp(req)->state = op->kind == VSD_RTS ? VSD_RS_WAIT_CTS : VSD_RS_WAIT_ACK;
        return 1;
    }
    case VSD_CTS:
        h.u.cts.scookie = op->args[0];
        h.u.cts.addr = op->args[1];
        h.u.cts.len = op->args[2];
        h.u.cts.handle = (uint32_t)op->args[3];
        h.u.cts.rcookie = (uint32_t)op->args[4];
        return emit_msg(ctx, q, &h, NULL, 0);
    case VSD_SYNC_ACK:
        h.u.ack.scookie = op->args[0];
        return emit_msg(ctx, q, &h, NULL, 0);
    default:
        return 1;
    }
}

void vsd_credit_maybe(vsd_ctx_t *ctx, int32_t q)
{
    vsd_peer_t *p = &ctx->peers[q];
    uint64_t half = ctx->credits / 2 ? ctx->credits / 2 : 1;

    if (p->posted - p->advertised >= half)
        vsd_credit_send(ctx, q);
}

void vsd_credit_send(vsd_ctx_t *ctx, int32_t q)
{
    vsd_peer_t *p = &ctx->peers[q];
    uint32_t i;

    if (p->credit_inflight || p->failed || !p->connected)
        return;
    if ((i = vsd_sctx_get(p)) == UINT32_MAX)
        return;                           /* the drain tries again */
    uint8_t *src = ctx->credit_src + (size_t)q * 64;
    memcpy(src, &p->posted, sizeof(p->posted));
    via_desc_t *d = vsd_sdesc(p, i);
    vipl_desc_init(d, VIA_CONTROL_OP_RDMAWRITE);
    vipl_desc_set_remote(d, p->remote_credit_va + (uint64_t)ctx->base.me * 64, p->remote_credit_h);
    vipl_desc_add_data(d, src, ctx->pool_h, sizeof(uint64_t));
    if (vipl_post_send(p->vi, d, ctx->pool_h) != VIPL_SUCCESS) {
        vsd_sctx_put(p, i);
        return;
    }
    vsd_sctx_posted(ctx, q, i, VSD_CTX_CREDIT, NULL);
    p->credit_inflight = 1;
    p->advertised = p->posted;
}

/* A send to q failed: q is lost. */
static void lose_peer(void *ctx, int32_t q, int status)
{
    vsd_fail_peer(ctx, q, status);
}

/* Peer q's ops, as far as credits and descriptors allow: 1 while some wait. */
static int ops_drain_peer(void *arg, int32_t q, int *events)
{
    vsd_ctx_t *ctx = arg;
    md_opq_t *ops = &ctx->peers[q].ops;

    md_opq_drain_or_lose(ops, ctx->base.sd, op_emit, lose_peer, ctx, q, events);
    vsd_credit_maybe(ctx, q);      /* which sends, or not, outside the queue */
    return !md_opq_empty(ops);
}

int vsd_ops_drain(vsd_ctx_t *ctx)
{
    return md_peerset_sweep(&ctx->base.busy, ops_drain_peer, ctx);
}

void vsd_on_cts(vsd_ctx_t *ctx, const via_msg_t *m)
{
    md_request_t *req = md_cookie_take(&ctx->base.cookies, m->u.cts.scookie);
    via_rpriv_t *rp;
    md_op_t *op;

    if (req == NULL || vsd_rp(req)->state != VSD_RS_WAIT_CTS)
        return;
    rp = vsd_rp(req);
    rp->cookie = 0;
    if (m->u.cts.len == 0) {
        req->status.error = MD_OK;        /* the receiver takes nothing */
        vsd_complete(ctx, req);
        return;
    }
    rp->rc = via_rc_acquire(&ctx->rc, req->buf, m->u.cts.len, 0, VIA_RC_ONESHOT);
    op = rp->rc ? md_op_new(VSD_OP_WRITE, req) : NULL;
    if (op == NULL) {
        VSD_LOG(ctx, MD_LOG_ERROR, "cannot register %llu bytes of a send buffer",
                (unsigned long long)m->u.cts.len);
        if (rp->rc)
            via_rc_release(&ctx->rc, rp->rc);
        /* The receiver waits for this data: it learns that this rank is
         * out of its reach (the SDI's one status for that), and the send
         * fails with its own cause, for good: no retry would register. */
        vsd_fail_peer(ctx, req->peer_world, MD_ERR_PEER_FAILED);
        req->status.error = MD_ERR_NO_MEMORY;
        vsd_complete(ctx, req);
        return;
    }
    rp->raddr = m->u.cts.addr;
    rp->rlen = m->u.cts.len < req->len ? m->u.cts.len : req->len;
    rp->rhandle = m->u.cts.handle;
    rp->remote_cookie = m->u.cts.rcookie;
    rp->written = 0;
    rp->state = VSD_RS_WRITING;
    vsd_op_push(ctx, req->peer_world, op);
}

void vsd_on_sync_ack(vsd_ctx_t *ctx, const via_msg_t *m)
{
    md_request_t *req = md_cookie_take(&ctx->base.cookies, m->u.ack.scookie);
    if (req != NULL)
        vsd_rp(req)->cookie = 0;
    if (req != NULL && vsd_rp(req)->state == VSD_RS_WAIT_ACK) {
        req->status.error = MD_OK;
        vsd_complete(ctx, req);
    }
}

void vsd_send_completed(vsd_ctx_t *ctx, int32_t q, uint32_t i, uint32_t status)
{
    vsd_peer_t *p = &ctx->peers[q];
    vsd_sctx_t *sc = &p->sctx[i];
    md_request_t *req = sc->req;
    uint32_t kind = sc->kind;

    vsd_sctx_put(p, i);
    if (status & VIA_STATUS_ERROR_MASK) {
        if (!p->failed)
            VSD_LOG(ctx, MD_LOG_ERROR,
                    "a send to rank %d failed (descriptor status %#x)", q, status);
        vsd_fail_peer(ctx, q, MD_ERR_PEER_FAILED);
        return;
    }
    switch (kind) {
    case VSD_CTX_WRITE_LAST:
        /* Reliable delivery: the data has left; the buffer is free. */
        via_rc_release(&ctx->rc, vsd_rp(req)->rc);
        vsd_rp(req)->rc = NULL;
        req->status.error = MD_OK;
        vsd_complete(ctx, req);
        break;
    case VSD_CTX_CREDIT:
        p->credit_inflight = 0;
        vsd_credit_maybe(ctx, q);
        break;
    default:
        break;
    }
}
