/* myri_recv.c - arrivals, matching (posted and unexpected queues),
 * held-back arrivals, probe, matched probe, cancel, rendezvous data.
 *
 * Both queues are FIFOs searched from the head: a message takes the
 * earliest posted receive that accepts it, and a receive the earliest
 * arrival.  Arrivals from one sender are matched in the order the NIC
 * delivered them (in order per pair); one that host->arrival_ok() holds
 * back stops its sender's later arrivals behind it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

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
        md_recv_status_set(req, env, n, ctx->sd->index);
        if (handler == MYRI_H_EAGER_SYNC)
            myri_op_ctl(ctx, src, MYRI_H_SYNC_ACK, cookie, 0, 0);
        myri_complete(ctx, req);
        return;
    }
    rp->expected = env->size < req->len ? env->size : req->len;
    rp->sent = 0;
    md_recv_status_set(req, env, rp->expected, ctx->sd->index);
    if (rp->expected == 0) {
        myri_op_ctl(ctx, src, MYRI_H_CTS, cookie, 0, 0);
        myri_complete(ctx, req);
        return;
    }
    rp->cookie = md_cookie_new(&ctx->cookies, req);
    if (rp->cookie == 0) {
        req->status.error = MD_ERR_NO_MEMORY;
        myri_complete(ctx, req);
        return;
    }
    rp->state = MYRI_RS_WAIT_DATA;
    myri_op_ctl(ctx, src, MYRI_H_CTS, cookie, rp->cookie, rp->expected);
}

static md_request_t *match_posted(myri_ctx_t *ctx, const md_envelope_t *env)
{
    md_request_t *req = ctx->posted.head;

    while (req != NULL) {
        md_request_t *next = myri_rp(req)->next;
        if (md_match_envelope(&req->match, env)) {
            myri_reqlist_remove(&ctx->posted, req);
            if (md_request_claim(req, ctx->sd->index))
                return req;
            myri_rp(req)->state = MYRI_RS_DROPPED;   /* another subdevice has it */
        }
        req = next;
    }
    return NULL;
}

static myri_msg_t *msg_copy(int32_t src, uint32_t handler, const md_envelope_t *env,
                            uint64_t cookie, const void *data, uint32_t len)
{
    myri_msg_t *m = malloc(sizeof(*m) + len);
    if (m == NULL)
        return NULL;
    m->env = *env;
    m->src = src;
    m->handler = handler;
    m->cookie = cookie;
    m->len = len;
    if (len)
        memcpy(m->data, data, len);
    return m;
}

/* An arrival that may be matched now. */
static void recv_accept(myri_ctx_t *ctx, int32_t src, uint32_t handler, const md_envelope_t *env,
                        uint64_t cookie, const void *data, uint32_t len, myri_msg_t *owned)
{
    md_request_t *req = match_posted(ctx, env);

    /* before delivering: env may live in owned, which delivery frees */
    ctx->host->arrived(ctx->sd, env);
    if (req != NULL) {
        recv_deliver(ctx, req, src, handler, env, cookie, data, len);
        free(owned);
    } else {
        myri_msg_t *m = owned ? owned : msg_copy(src, handler, env, cookie, data, len);
        if (m == NULL) {
            MYRI_LOG(ctx, MD_LOG_ERROR, "out of memory queueing a message from rank %d", src);
            return;
        }
        myri_msgq_append(&ctx->unexp, m);
        ctx->sd->counters.unexpected++;
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
    myri_peer_t *p = &ctx->peers[src];

    if (env->tag < 0) {
        if (handler == MYRI_H_RTS) {
            recv_sysmsg_rndv(ctx, src, env, cookie);
        } else {
            ctx->sd->counters.sysmsgs_recvd++;
            ctx->host->sysmsg(ctx->sd, env, data);
        }
        return;
    }
    if (p->held.head == NULL && ctx->host->arrival_ok(ctx->sd, env)) {
        recv_accept(ctx, src, handler, env, cookie, data, len, NULL);
        return;
    }
    myri_msg_t *m = msg_copy(src, handler, env, cookie, data, len);
    if (m == NULL) {
        MYRI_LOG(ctx, MD_LOG_ERROR, "out of memory holding a message from rank %d", src);
        return;
    }
    md_peerset_add(&ctx->held, src);
    myri_msgq_append(&p->held, m);
}

static int held_retry_peer(void *arg, int32_t src, int *events)
{
    myri_ctx_t *ctx = arg;
    myri_peer_t *p = &ctx->peers[src];
    myri_msg_t *m;

    while ((m = p->held.head) != NULL && ctx->host->arrival_ok(ctx->sd, &m->env)) {
        myri_msgq_remove(&p->held, m);
        recv_accept(ctx, m->src, m->handler, &m->env, m->cookie, m->data, m->len, m);
        (*events)++;
    }
    if (p->held.head != NULL)
        return 1;
    if (p->failed)
        myri_fail_posted(ctx, src, p->failed);   /* nothing more will come */
    return 0;
}

int myri_held_retry(myri_ctx_t *ctx)
{
    return md_peerset_sweep(&ctx->held, held_retry_peer, ctx);
}

void myri_on_data(myri_ctx_t *ctx, const uint64_t *args, const void *data, uint32_t len)
{
    md_request_t *req = md_cookie_peek(&ctx->cookies, args[0]);
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
        md_cookie_take(&ctx->cookies, args[0]);
        rp->cookie = 0;
        myri_complete(ctx, req);
    }
}

int myri_irecv(md_subdev_t *sd, md_request_t *req)
{
    myri_ctx_t *ctx = sd->priv;

    if (ctx->dead)
        return ctx->dead;
    memset(myri_rp(req), 0, sizeof(myri_rpriv_t));
    for (myri_msg_t *m = ctx->unexp.head; m != NULL; m = m->next) {
        if (!md_match_envelope(&req->match, &m->env))
            continue;
        if (!md_request_claim(req, sd->index)) {
            myri_rp(req)->state = MYRI_RS_DROPPED;
            return MD_OK;
        }
        myri_msgq_remove(&ctx->unexp, m);
        recv_deliver(ctx, req, m->src, m->handler, &m->env, m->cookie, m->data, m->len);
        free(m);
        myri_ops_drain(ctx);
        myri_flush_done(ctx);
        return MD_OK;
    }
    myri_rp(req)->state = MYRI_RS_POSTED;
    myri_reqlist_append(&ctx->posted, req);
    if (req->peer_world >= 0 && req->peer_world < ctx->world_size) {
        myri_peer_t *p = &ctx->peers[req->peer_world];
        if (p->failed && p->held.head == NULL) {   /* it will never be matched */
            myri_fail_posted(ctx, req->peer_world, p->failed);
            myri_flush_done(ctx);
        }
    }
    return MD_OK;
}

int myri_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    myri_ctx_t *ctx = sd->priv;
    myri_rpriv_t *rp = myri_rp(req);

    if (rp->state == MYRI_RS_POSTED) {
        myri_reqlist_remove(&ctx->posted, req);
        rp->state = MYRI_RS_FREE;
        return MD_OK;
    }
    if (rp->state == MYRI_RS_DROPPED) {
        rp->state = MYRI_RS_FREE;
        return MD_OK;
    }
    return MD_ERR_NOT_FOUND;
}

static myri_msg_t *find_unexp(myri_ctx_t *ctx, const md_match_t *match)
{
    for (myri_msg_t *m = ctx->unexp.head; m != NULL; m = m->next)
        if (md_match_envelope(match, &m->env))
            return m;
    return NULL;
}

static void probe_status(myri_ctx_t *ctx, const myri_msg_t *m, md_recv_status_t *st)
{
    memset(st, 0, sizeof(*st));
    st->src_rank = m->env.src_rank;
    st->src_world = m->env.src_world;
    st->tag = m->env.tag;
    st->size = m->env.size;
    st->msg_size = m->env.size;
    st->error = MD_OK;
    st->subdev = ctx->sd->index;
    st->seq = m->env.seq;    /* the multidevice orders across subdevices */
    st->flags = m->env.flags;
}

int myri_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag, md_recv_status_t *st)
{
    myri_ctx_t *ctx = sd->priv;
    myri_msg_t *m;

    if (ctx->dead)
        return ctx->dead;
    m = find_unexp(ctx, match);
    *flag = m != NULL;
    if (m != NULL && st != NULL)
        probe_status(ctx, m, st);
    return MD_OK;
}

int myri_improbe(md_subdev_t *sd, const md_match_t *match, int *flag, md_request_t *msg)
{
    myri_ctx_t *ctx = sd->priv;
    myri_msg_t *m;

    if (ctx->dead)
        return ctx->dead;
    m = find_unexp(ctx, match);
    *flag = m != NULL;
    if (m == NULL)
        return MD_OK;
    myri_msgq_remove(&ctx->unexp, m);
    probe_status(ctx, m, &msg->status);
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
    recv_deliver(ctx, req, m->src, m->handler, &m->env, m->cookie, m->data, m->len);
    free(m);
    myri_ops_drain(ctx);
    myri_flush_done(ctx);
    return MD_OK;
}
