/* myri_send.c - sends: protocol choice, the per-peer op queues drained
 * under credit flow control, rendezvous DATA pieces, synchronous sends. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "myri_impl.h"

void myri_op_push(myri_ctx_t *ctx, int32_t peer, md_op_t *op)
{
    md_opq_post(&ctx->peers[peer].ops, &ctx->base.busy, peer, op);
}

int myri_op_ctl(myri_ctx_t *ctx, int32_t peer, uint32_t handler, uint64_t a0, uint64_t a1,
                uint64_t a2)
{
    const uint64_t args[] = { a0, a1, a2 };

    return md_opq_post_ctl(&ctx->peers[peer].ops, &ctx->base.busy, peer, handler, args, 3);
}

int myri_isend(md_subdev_t *sd, md_request_t *req)
{
    myri_ctx_t *ctx = sd->priv;
    int32_t peer = req->peer_world;
    int sys = req->env.tag < 0, sync = (req->env.flags & MD_ENV_F_SYNC) && !sys;
    int eager = req->len <= ctx->eager_limit && !(sync && req->len + 8 > MYRI_PAGE);
    md_op_t *op;

    if (ctx->dead)
        return ctx->dead;
    if (!md_serves(ctx->base.serves, ctx->base.world_size, peer))
        return md_serves_refuse(sd, peer);
    if (ctx->peers[peer].failed)
        return ctx->peers[peer].failed;
    op = md_op_new(!eager ? MYRI_H_RTS : sync ? MYRI_H_EAGER_SYNC : MYRI_H_EAGER, req);
    if (op == NULL)
        return MD_ERR_NO_MEMORY;
    memset(myri_rp(req), 0, sizeof(myri_rpriv_t));
    if (eager)
        sd->counters.eager_sent += !sys;
    else
        sd->counters.rndv_sent += !sys;
    myri_rp(req)->state = MYRI_RS_QUEUED;
    myri_op_push(ctx, peer, op);
    myri_ops_drain(ctx);
    myri_flush_done(ctx);
    return MD_OK;
}

static void send_done(myri_ctx_t *ctx, md_request_t *req)
{
    req->status.error = MD_OK;
    myri_complete(ctx, req);
}

/* Try to put one op on the wire: 1 done, 0 no credit yet, <0 failed. */
static int op_emit(void *arg, int32_t peer, md_op_t *op)
{
    myri_ctx_t *ctx = arg;
    static __thread uint8_t piece[MYRI_PAGE];
    md_request_t *req = op->req;
    myri_rpriv_t *rp = req ? myri_rp(req) : NULL;
    uint64_t args[5] = { 0 };
    int rc;

    if (!myri_gam_can_request(ctx->gam, peer))
        return 0;
    switch (op->kind) {
    case MYRI_H_EAGER:
        myri_env_pack(&req->env, args);
        rc = myri_gam_request(ctx->gam, peer, MYRI_H_EAGER, args, req->buf, (uint32_t)req->len);
        if (rc != NIC_OK)
            return rc == NIC_ERR_NO_RESOURCE ? 0 : rc;
        send_done(ctx, req);   /* the data is in the copy block */
        return 1;
    case MYRI_H_EAGER_SYNC:
    case MYRI_H_RTS: {
        uint32_t cookie = md_cookie_new(&ctx->base.cookies, req);
        uint64_t c64 = cookie;
        uint32_t len = 8;
        if (cookie == 0)
            return MD_ERR_NO_MEMORY;
        rp->cookie = cookie;
        memcpy(piece, &c64, 8);
        if (op->kind == MYRI_H_EAGER_SYNC) {
            memcpy(piece + 8, req->buf, req->len);
            len += (uint32_t)req->len;
        }
        myri_env_pack(&req->env, args);
        rc = myri_gam_request(ctx->gam, peer, op->kind, args, piece, len);
        if (rc != NIC_OK) {
            md_cookie_take(&ctx->base.cookies, cookie);
            rp->cookie = 0;
            return rc == NIC_ERR_NO_RESOURCE ? 0 : rc;
        }
        rp->state = op->kind == MYRI_H_RTS ? MYRI_RS_WAIT_CTS : MYRI_RS_WAIT_ACK;
        return 1;
    }
    case MYRI_H_DATA:
        /* A rendezvous stream: as many 4 kB pieces as credits allow. */
        while (rp->sent < rp->expected) {
            uint64_t n = rp->expected - rp->sent;
            if (n > MYRI_PAGE)
                n = MYRI_PAGE;
            args[0] = rp->remote_cookie;
            args[1] = rp->sent;
            rc = myri_gam_request(ctx->gam, peer, MYRI_H_DATA, args,
                                  (const uint8_t *)req->buf + rp->sent, (uint32_t)n);
            if (rc == NIC_ERR_NO_RESOURCE)
                return 0;
            if (rc != NIC_OK)
                return rc;
            rp->sent += n;
        }
        send_done(ctx, req);
        return 1;
    default:   /* CTS, SYNC_ACK */
        rc = myri_gam_request(ctx->gam, peer, op->kind, op->args, NULL, 0);
        if (rc != NIC_OK)
            return rc == NIC_ERR_NO_RESOURCE ? 0 : rc;
        return 1;
    }
}

/* A send to q failed: q is lost. */
static void lose_peer(void *ctx, int32_t q, int status)
{
    myri_fail_peer(ctx, q, status);
}

static int ops_drain_peer(void *arg, int32_t q, int *events)
{
    myri_ctx_t *ctx = arg;

    return md_opq_drain_or_lose(&ctx->peers[q].ops, ctx->base.sd, op_emit, lose_peer, ctx, q,
                                events);
}

int myri_ops_drain(myri_ctx_t *ctx)
{
    return md_peerset_sweep(&ctx->base.busy, ops_drain_peer, ctx);
}

void myri_on_cts(myri_ctx_t *ctx, const uint64_t *args)
{
    md_request_t *req = md_cookie_take(&ctx->base.cookies, args[0]);
    md_op_t *op;

    if (req == NULL)
        return;
    myri_rp(req)->cookie = 0;
    if (myri_rp(req)->state != MYRI_RS_WAIT_CTS)
        return;
    myri_rp(req)->remote_cookie = args[1];
    myri_rp(req)->expected = args[2] < req->len ? args[2] : req->len;
    myri_rp(req)->sent = 0;
    myri_rp(req)->state = MYRI_RS_SENDING;
    op = md_op_new(MYRI_H_DATA, req);
    if (op == NULL) {
        req->status.error = MD_ERR_NO_MEMORY;
        myri_complete(ctx, req);
        return;
    }
    myri_op_push(ctx, req->peer_world, op);
}

void myri_on_sync_ack(myri_ctx_t *ctx, const uint64_t *args)
{
    md_request_t *req = md_cookie_take(&ctx->base.cookies, args[0]);

    if (req == NULL)
        return;
    myri_rp(req)->cookie = 0;
    if (myri_rp(req)->state == MYRI_RS_WAIT_ACK)
        send_done(ctx, req);
}
