/* myri_recv.c - arrivals, matching (the kit's md_mq: posted receives in
 * posting order, unexpected messages in arrival order, ANY_SOURCE claims),
 * held-back arrivals, probe, matched probe, cancel, rendezvous data.
 *
 * Arrivals from one sender are matched in the order the NIC
 * delivered them (in order per pair); one that host->arrival_ok() holds
 * back stops its sender's later arrivals behind it. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "md_recv.h"
#include "myri_impl.h"

/* Hand an arrival (eager bytes, or an RTS) to a matched receive. */
static void recv_deliver(myri_ctx_t *ctx, md_request_t *req, int32_t src, uint32_t handler,
                         const md_envelope_t *env, uint64_t cookie, const void *data,
                         uint32_t len)
{
    myri_rpriv_t *rp = myri_rp(req);

    if (handler != MYRI_H_RTS) {
        uint64_t n = len < req->len ? len : req->len;
        if (n)
            memcpy(req->buf, data, n);
        md_recv_status_set(req, env, n, ctx->base.sd->index);
        if (handler == MYRI_H_EAGER_SYNC)
            myri_op_ctl(ctx, src, MYRI_H_SYNC_ACK, cookie, 0, 0);
        myri_complete(ctx, req);
        return;
    }
    rp->expected = env->size < req->len ? env->size : req->len;
    rp->sent = 0;
    md_recv_status_set(req, env, rp->expected, ctx->base.sd->index);
    if (rp->expected == 0) {
        myri_op_ctl(ctx, src, MYRI_H_CTS, cookie, 0, 0);
        myri_complete(ctx, req);
        return;
    }
    rp->cookie = md_cookie_new(&ctx->base.cookies, req);
    if (rp->cookie == 0) {
        req->status.error = MD_ERR_NO_MEMORY;
        myri_complete(ctx, req);
        return;
    }
    rp->state = MYRI_RS_WAIT_DATA;
    myri_op_ctl(ctx, src, MYRI_H_CTS, cookie, rp->cookie, rp->expected);
}

static myri_msg_t *msg_copy(int32_t src, uint32_t handler, const md_envelope_t *env,
                            uint64_t cookie, const void *data, uint32_t len)
{
    const myri_msg_t head = { .mq.env = *env, .src = src, .handler = handler,
                              .cookie = cookie, .len = len };

    return md_recv_msg_new(&head, sizeof(head), offsetof(myri_msg_t, data), data, len);
}

/* An arrival that may be matched now. */
static void recv_accept(myri_ctx_t *ctx, int32_t src, uint32_t handler, const md_envelope_t *env,
                        uint64_t cookie, const void *data, uint32_t len, myri_msg_t *owned)
{
    /* env may live in owned, which delivery frees: md_arrival_match tells
     * the host first */
    md_request_t *req = md_arrival_match(&ctx->base.mq, ctx->base.sd, env);

    if (req != NULL) {
        recv_deliver(ctx, req, src, handler, env, cookie, data, len);
        free(owned);
    } else {
        myri_msg_t *m = owned ? owned : msg_copy(src, handler, env, cookie, data, len);
        if (m == NULL) {
            MYRI_LOG(ctx, MD_LOG_ERROR, "out of memory queueing a message from rank %d", src);
            return;
        }
        md_arrival_keep_unexpected(&ctx->base.mq, ctx->base.sd, &m->mq);
    }
}

/* A large system message: receive it into our own buffer. */
static void recv_sysmsg_rndv(myri_ctx_t *ctx, int32_t src, const md_envelope_t *env,
                             uint64_t cookie)
{
    md_request_t *req = md_sysmsg_recv_new(env, src);

    if (req == NULL) {
        MYRI_LOG(ctx, MD_LOG_ERROR, "no memory for a %llu-byte system message from rank %d",
                 (unsigned long long)env->size, src);
        return;
    }
    myri_rp(req)->flags = MYRI_RF_SYSMSG;
    recv_deliver(ctx, req, src, MYRI_H_RTS, env, cookie, NULL, 0);
}

void myri_on_arrival(myri_ctx_t *ctx, int32_t src, uint32_t handler, const md_envelope_t *env,
                     uint64_t cookie, const void *data, uint32_t len)
{
    myri_msg_t *m;

    switch (md_arrival_route(&ctx->base.held.peer[src], ctx->base.sd, env)) {
    case MD_ARRIVAL_SYSMSG:
        if (handler == MYRI_H_RTS)
            recv_sysmsg_rndv(ctx, src, env, cookie);
        else
            md_arrival_sysmsg(ctx->base.sd, env, data);
        return;
    case MD_ARRIVAL_MATCH:
        recv_accept(ctx, src, handler, env, cookie, data, len, NULL);
        return;
    case MD_ARRIVAL_HOLD:
        break;
    }
    m = msg_copy(src, handler, env, cookie, data, len);
    if (m == NULL) {
        MYRI_LOG(ctx, MD_LOG_ERROR, "out of memory holding a message from rank %d", src);
        return;
    }
    md_held_set_hold(&ctx->base.held, src, &m->held, m, &m->mq.env);
}

/* A held arrival whose turn has come. */
static void held_accept(void *arg, void *msg)
{
    myri_msg_t *m = msg;
    recv_accept(arg, m->src, m->handler, &m->mq.env, m->cookie, m->data, m->len, m);
}

/* Sender src has nothing held any more: if it failed, nothing more will
 * come from it. */
static void held_drained(void *arg, int32_t src)
{
    myri_ctx_t *ctx = arg;
    if (ctx->peers[src].failed)
        myri_fail_posted(ctx, src, ctx->peers[src].failed);
}

int myri_held_retry(myri_ctx_t *ctx)
{
    static const md_held_ops_t ops = { .accept = held_accept, .drained = held_drained };
    return md_held_set_retry(&ctx->base.held, ctx->base.sd, &ops, ctx);
}

void myri_on_data(myri_ctx_t *ctx, const uint64_t *args, const void *data, uint32_t len)
{
    md_request_t *req = md_cookie_peek(&ctx->base.cookies, args[0]);
    myri_rpriv_t *rp;
    uint64_t off = args[1];

    if (req == NULL || myri_rp(req)->state != MYRI_RS_WAIT_DATA)
        return;
    rp = myri_rp(req);
    if (off < rp->expected) {
        uint64_t n = rp->expected - off < len ? rp->expected - off : len;
        memcpy((uint8_t *)req->buf + off, data, n);
        rp->sent += n;
    }
    if (rp->sent >= rp->expected) {
        md_cookie_take(&ctx->base.cookies, args[0]);
        rp->cookie = 0;
        myri_complete(ctx, req);
    }
}

/* The error a receive fails with when only a sender that failed, and has
 * nothing held back any more, could match it; else 0. */
static int sender_failed(const myri_ctx_t *ctx, const md_request_t *req)
{
    int32_t src = md_recv_sender(req, ctx->base.world_size);

    return src < 0 || !md_held_empty(&ctx->base.held.peer[src]) ? 0 : ctx->peers[src].failed;
}

/* Delivers unexpected message m into receive req. */
static void take_unexpected(myri_ctx_t *ctx, md_request_t *req, myri_msg_t *m)
{
    recv_deliver(ctx, req, m->src, m->handler, &m->mq.env, m->cookie, m->data, m->len);
    free(m);
    myri_ops_drain(ctx);
}

int myri_irecv(md_subdev_t *sd, md_request_t *req)
{
    myri_ctx_t *ctx = sd->priv;
    md_mq_msg_t *mm;

    if (ctx->dead)
        return ctx->dead;
    memset(myri_rp(req), 0, sizeof(myri_rpriv_t));
    switch (md_recv_start(&ctx->base.mq, req, sd->index, sender_failed(ctx, req), &mm)) {
    case MD_RECV_FROM_UNEXPECTED:
        take_unexpected(ctx, req, (myri_msg_t *)mm);
        break;
    case MD_RECV_SENDER_GONE:
        myri_complete(ctx, req);    /* failed: it would never be matched */
        break;
    default:                        /* posted, or another subdevice has it */
        return MD_OK;
    }
    myri_flush_done(ctx);
    return MD_OK;
}

int myri_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    return md_mq_cancel_posted(&((myri_ctx_t *)sd->priv)->base.mq, req);
}

int myri_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag, md_recv_status_t *st)
{
    myri_ctx_t *ctx = sd->priv;

    if (ctx->dead)
        return ctx->dead;
    md_mq_probe(&ctx->base.mq, match, sd->index, flag, st);
    return MD_OK;
}

int myri_improbe(md_subdev_t *sd, const md_match_t *match, int *flag, md_request_t *msg)
{
    myri_ctx_t *ctx = sd->priv;
    myri_msg_t *m;

    if (ctx->dead)
        return ctx->dead;
    m = (myri_msg_t *)md_mq_improbe(&ctx->base.mq, match, sd->index, flag, &msg->status);
    if (m == NULL)
        return MD_OK;
    memset(myri_rp(msg), 0, sizeof(myri_rpriv_t));
    myri_rp(msg)->unexp = m;
    if (m->handler == MYRI_H_EAGER_SYNC) {
        /* the matched probe is the match: a synchronous sender may go */
        myri_op_ctl(ctx, m->src, MYRI_H_SYNC_ACK, m->cookie, 0, 0);
        m->handler = MYRI_H_EAGER;
        myri_ops_drain(ctx);
    }
    return MD_OK;
}

int myri_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req)
{
    myri_ctx_t *ctx = sd->priv;
    myri_msg_t *m = myri_rp(msg)->unexp;

    if (m == NULL)
        return MD_ERR_INVALID;
    myri_rp(msg)->unexp = NULL;
    memset(myri_rp(req), 0, sizeof(myri_rpriv_t));
    take_unexpected(ctx, req, m);
    myri_flush_done(ctx);
    return MD_OK;
}
