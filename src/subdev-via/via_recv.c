/* via_recv.c - arrivals, matching (md_mq: posted receives in posting
 * order, unexpected messages in arrival order, ANY_SOURCE claims),
 * held-back arrivals, the receiver's side of the rendezvous (register the
 * buffer, advertise it, complete on the RDMA write's immediate data),
 * probe, matched probe, cancel, system messages. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "md_recv.h"
#include "via_impl.h"

static vsd_msg_t *msg_of(md_mq_msg_t *m)
{
    return (vsd_msg_t *)((uint8_t *)m - offsetof(vsd_msg_t, mq));
}

static vsd_msg_t *msg_copy(int32_t src, uint32_t type, const md_envelope_t *env, uint64_t cookie,
                           const void *data, uint32_t len, md_request_t *local)
{
    const vsd_msg_t head = { .mq.env = *env, .src = src, .type = type, .cookie = cookie,
                             .local = local, .len = len };

    return md_recv_msg_new(&head, sizeof(head), offsetof(vsd_msg_t, data), data, len);
}

/* The receiver's side of a rendezvous: register the buffer and send CTS. */
static void rndv_accept(vsd_ctx_t *ctx, md_request_t *req, int32_t src, const md_envelope_t *env,
                        uint64_t cookie)
{
    via_rpriv_t *rp = vsd_rp(req);
    uint64_t n = env->size < req->len ? env->size : req->len;

    md_recv_status_set(req, env, n, ctx->base.sd->index);
    if (n == 0) {
        vsd_op_ctl(ctx, src, VSD_CTS, cookie, 0, 0, 0, 0);
        vsd_complete(ctx, req);
        return;
    }
    rp->rc = via_rc_acquire(&ctx->rc, req->buf, n, VIA_MR_RDMA_WRITE, VIA_RC_ONESHOT);
    rp->cookie = rp->rc ? md_cookie_new(&ctx->base.cookies, req) : 0;
    if (rp->cookie == 0) {
        VSD_LOG(ctx, MD_LOG_ERROR, "cannot register a %llu-byte receive buffer for rank %d",
                (unsigned long long)n, src);
        if (rp->rc)
            via_rc_release(&ctx->rc, rp->rc);
        rp->rc = NULL;
        req->status.error = MD_ERR_NO_MEMORY;   /* for good: not back-pressure */
        vsd_complete(ctx, req);
        return;
    }
    rp->state = VSD_RS_WAIT_DATA;
    rp->src = src;
    vsd_op_ctl(ctx, src, VSD_CTS, cookie, (uint64_t)(uintptr_t)req->buf, n, rp->rc->handle,
               rp->cookie);
}

/* Hand an arrival (eager bytes, an RTS, or a local send) to a matched
 * receive. */
static void deliver(vsd_ctx_t *ctx, md_request_t *req, int32_t src, uint32_t type,
                    const md_envelope_t *env, uint64_t cookie, const void *data, uint32_t len,
                    md_request_t *local)
{
    memset(vsd_rp(req), 0, sizeof(via_rpriv_t));
    if (local != NULL) {
        uint64_t n = local->len < req->len ? local->len : req->len;
        if (n)
            memcpy(req->buf, local->buf, n);
        md_recv_status_set(req, env, n, ctx->base.sd->index);
        vsd_complete(ctx, req);
        local->status.error = MD_OK;
        vsd_complete(ctx, local);
        return;
    }
    if (type == VSD_RTS) {
        rndv_accept(ctx, req, src, env, cookie);
        return;
    }
    uint64_t n = len < req->len ? len : req->len;
    if (n)
        memcpy(req->buf, data, n);
    md_recv_status_set(req, env, n, ctx->base.sd->index);
    if (type == VSD_EAGER_SYNC)
        vsd_op_ctl(ctx, src, VSD_SYNC_ACK, cookie, 0, 0, 0, 0);
    vsd_complete(ctx, req);
}

/* An arrival that may be matched now. */
static void accept(vsd_ctx_t *ctx, int32_t src, uint32_t type, const md_envelope_t *envp,
                   uint64_t cookie, const void *data, uint32_t len, md_request_t *local,
                   vsd_msg_t *owned)
{
    /* A copy: envp may lie in owned, which is freed below.  The host hears
     * of the arrival only once it is delivered or queued (not when it is
     * lost for want of memory). */
    const md_envelope_t envc = *envp, *env = &envc;
    md_request_t *req = md_mq_take_posted(&ctx->base.mq, env, ctx->base.sd->index);

    if (req != NULL) {
        deliver(ctx, req, src, type, env, cookie, data, len, local);
        free(owned);
    } else {
        vsd_msg_t *m = owned ? owned : msg_copy(src, type, env, cookie, data, len, local);
        if (m == NULL) {
            VSD_LOG(ctx, MD_LOG_ERROR, "out of memory queueing a message from rank %d", src);
            return;
        }
        md_arrival_keep_unexpected(&ctx->base.mq, ctx->base.sd, &m->mq);
    }
    ctx->base.host->arrived(ctx->base.sd, env);
}

/* A large system message: receive it into a buffer of our own. */
static void sysmsg_rndv(vsd_ctx_t *ctx, int32_t src, const md_envelope_t *env, uint64_t cookie)
{
    md_request_t *req = md_sysmsg_recv_new(env, src);

    if (req == NULL) {
        VSD_LOG(ctx, MD_LOG_ERROR, "no memory for a %llu-byte system message from rank %d",
                (unsigned long long)env->size, src);
        return;
    }
    rndv_accept(ctx, req, src, env, cookie);
    vsd_rp(req)->flags |= VSD_RF_SYSMSG;
}

void vsd_on_arrival(vsd_ctx_t *ctx, int32_t src, uint32_t type, const md_envelope_t *env,
                    uint64_t cookie, const void *data, uint32_t len, md_request_t *local)
{
    vsd_msg_t *m;

    switch (md_arrival_route(&ctx->base.held.peer[src], ctx->base.sd, env)) {
    case MD_ARRIVAL_SYSMSG:
        if (type == VSD_RTS)
            sysmsg_rndv(ctx, src, env, cookie);
        else
            md_arrival_sysmsg(ctx->base.sd, env, data);
        return;
    case MD_ARRIVAL_MATCH:
        accept(ctx, src, type, env, cookie, data, len, local, NULL);
        return;
    case MD_ARRIVAL_HOLD:
        /* an earlier message from this sender is still on its way over
         * another subdevice: keep this one, in order */
        break;
    }
    m = msg_copy(src, type, env, cookie, data, len, local);
    if (m == NULL) {
        VSD_LOG(ctx, MD_LOG_ERROR, "out of memory holding a message from rank %d", src);
        return;
    }
    md_held_set_hold(&ctx->base.held, src, &m->held, m, &m->mq.env);
}

/* A held arrival whose turn has come. */
static void held_accept(void *arg, void *msg)
{
    vsd_msg_t *m = msg;
    accept(arg, m->src, m->type, &m->mq.env, m->cookie, m->data, m->len, m->local, m);
}

/* Sender src has nothing held any more: if it failed, nothing more will
 * come from it. */
static void held_drained(void *arg, int32_t src)
{
    vsd_ctx_t *ctx = arg;
    if (ctx->peers[src].failed)
        vsd_fail_posted(ctx, src, ctx->peers[src].failed);
}

int vsd_held_retry(vsd_ctx_t *ctx)
{
    static const md_held_ops_t ops = { .accept = held_accept, .drained = held_drained };
    return md_held_set_retry(&ctx->base.held, ctx->base.sd, &ops, ctx);
}

void vsd_on_fin(vsd_ctx_t *ctx, uint32_t rcookie)
{
    md_request_t *req = md_cookie_take(&ctx->base.cookies, rcookie);

    if (req == NULL || vsd_rp(req)->state != VSD_RS_WAIT_DATA)
        return;
    vsd_rp(req)->cookie = 0;
    via_rc_release(&ctx->rc, vsd_rp(req)->rc);
    vsd_rp(req)->rc = NULL;
    vsd_complete(ctx, req);
}

/* The error a receive fails with when only a sender that failed, and has
 * nothing held back any more, could match it; else 0. */
static int sender_failed(const vsd_ctx_t *ctx, const md_request_t *req)
{
    int32_t src = md_recv_sender(req, ctx->base.world_size);

    return src < 0 || !md_held_empty(&ctx->base.held.peer[src]) ? 0 : ctx->peers[src].failed;
}

/* Delivers unexpected message m into receive req. */
static void take_unexpected(vsd_ctx_t *ctx, md_request_t *req, vsd_msg_t *m)
{
    deliver(ctx, req, m->src, m->type, &m->mq.env, m->cookie, m->data, m->len, m->local);
    free(m);
    vsd_ops_drain(ctx);
}

int vsd_irecv(md_subdev_t *sd, md_request_t *req)
{
    vsd_ctx_t *ctx = sd->priv;
    md_mq_msg_t *mm;

    if (ctx->dead)
        return ctx->dead;
    memset(vsd_rp(req), 0, sizeof(via_rpriv_t));
    switch (md_recv_start(&ctx->base.mq, req, sd->index, sender_failed(ctx, req), &mm)) {
    case MD_RECV_FROM_UNEXPECTED:
        take_unexpected(ctx, req, msg_of(mm));
        break;
    case MD_RECV_SENDER_GONE:
        vsd_complete(ctx, req);     /* failed: it would never be matched */
        break;
    default:                        /* posted, or another subdevice has it */
        return MD_OK;
    }
    vsd_flush_done(ctx);
    return MD_OK;
}

int vsd_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    return md_mq_cancel_posted(&((vsd_ctx_t *)sd->priv)->base.mq, req);
}

int vsd_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag, md_recv_status_t *st)
{
    vsd_ctx_t *ctx = sd->priv;

    if (ctx->dead)
        return ctx->dead;
    md_mq_probe(&ctx->base.mq, match, sd->index, flag, st);
    return MD_OK;
}

int vsd_improbe(md_subdev_t *sd, const md_match_t *match, int *flag, md_request_t *msg)
{
    vsd_ctx_t *ctx = sd->priv;
    md_mq_msg_t *mm;
    vsd_msg_t *m;

    if (ctx->dead)
        return ctx->dead;
    mm = md_mq_improbe(&ctx->base.mq, match, sd->index, flag, &msg->status);
    if (mm == NULL)
        return MD_OK;
    m = msg_of(mm);
    memset(vsd_rp(msg), 0, sizeof(via_rpriv_t));
    vsd_rp(msg)->unexp = m;
    if (m->type == VSD_EAGER_SYNC) {
        /* the matched probe is the match: a synchronous sender may go */
        vsd_op_ctl(ctx, m->src, VSD_SYNC_ACK, m->cookie, 0, 0, 0, 0);
        m->type = VSD_EAGER;
        vsd_ops_drain(ctx);
    }
    return MD_OK;
}

int vsd_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req)
{
    vsd_ctx_t *ctx = sd->priv;
    vsd_msg_t *m = vsd_rp(msg)->unexp;

    if (m == NULL)
        return MD_ERR_INVALID;
    vsd_rp(msg)->unexp = NULL;
    take_unexpected(ctx, req, m);
    vsd_flush_done(ctx);
    return MD_OK;
}
