/* myri_progress.c - progress (GAM poll, held arrivals, op queues),
 * completions, and failures: a send the NIC reports lost fails its peer,
 * a dead firmware fails everything. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "myri_impl.h"

void myri_complete(myri_ctx_t *ctx, md_request_t *req)
{
    myri_rp(req)->state = MYRI_RS_DONE;
    md_reqlist_append(&ctx->base.done, req);
}

/* A receive of a system message the subdevice made for itself. */
static int is_sysmsg(md_request_t *req, int32_t *src)
{
    (void)src;   /* req->peer_world: md_sysmsg_recv_new set it */
    return myri_rp(req)->flags & MYRI_RF_SYSMSG;
}

void myri_flush_done(myri_ctx_t *ctx)
{
    md_complete_flush(ctx->base.sd, &ctx->base.done, is_sysmsg);
}

static void fail_req(void *arg, md_request_t *req, int status)
{
    myri_ctx_t *ctx = arg;

    if (myri_rp(req)->cookie)
        md_cookie_take(&ctx->base.cookies, myri_rp(req)->cookie);
    myri_rp(req)->cookie = 0;
    req->status.error = status;
    req->status.size = 0;
    myri_complete(ctx, req);
}

/* Every request that waits on peer (or on anyone, peer < 0) fails: the
 * sends queued for it here, then what the kit holds (md_peerfail_waiting;
 * posted receives fail once the peer's held arrivals have drained, by
 * myri_fail_posted from myri_held_retry). */
static void fail_matching(myri_ctx_t *ctx, int32_t peer, int status)
{
    /* what waits on a peer names it in peer_world: a request with a live
     * cookie, or a send still queued for it */
    md_peerfail_t f = { .peer = peer, .status = status, .fail = fail_req, .arg = ctx };

    for (int32_t q = 0; q < ctx->base.world_size; q++) {
        if (peer < 0 || q == peer)
            md_opq_flush(&ctx->peers[q].ops, md_peerfail_req, &f);
    }
    md_peerfail_waiting(&f, &ctx->base.cookies, &ctx->base.held, &ctx->base.mq, ctx->base.sd->index);
}

/* Posted receives that only peer (peer < 0: anyone) can satisfy fail. */
void myri_fail_posted(myri_ctx_t *ctx, int32_t peer, int status)
{
    md_peerfail_t f = { .peer = peer, .status = status, .fail = fail_req, .arg = ctx };

    md_peerfail_posted(&ctx->base.mq, ctx->base.sd->index, &f);
}

void myri_fail_peer(myri_ctx_t *ctx, int32_t peer, int status)
{
    if (peer < 0 || peer >= ctx->base.world_size)
        return;
    if (ctx->peers[peer].failed)
        return;
    if (status == MD_ERR_NOT_FOUND)
        MYRI_LOG(ctx, MD_LOG_INFO, "rank %d has closed its endpoint (finalized or exited)", peer);
    else
        MYRI_LOG(ctx, MD_LOG_ERROR, "rank %d is unreachable: %s", peer, md_status_string(status));
    ctx->peers[peer].failed = status;
    fail_matching(ctx, peer, status);
    ctx->base.host->peer_failed(ctx->base.sd, peer, status);
}

/* Where peer q's failure is kept (md_peerfail_served). */
static int *peer_status(void *arg, int32_t q)
{
    return &((myri_ctx_t *)arg)->peers[q].failed;
}

void myri_fail_all(myri_ctx_t *ctx, int status)
{
    fail_matching(ctx, -1, status);
    md_peerset_clear(&ctx->base.busy);
    /* every peer this NIC carried is out of reach now */
    md_peerfail_served(ctx->base.sd, ctx->base.serves, ctx->base.world_size, peer_status, ctx, status);
}

/* --- GAM handlers (run inside myri_gam_poll; never block) --- */

static void h_eager(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    md_envelope_t env;
    myri_env_unpack(d->arg, &env);
    myri_on_arrival(arg, src, MYRI_H_EAGER, &env, 0, p, d->len);
}

static void h_cookie_first(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d,
                           const void *p)
{
    md_envelope_t env;
    uint64_t cookie;
    if (d->len < 8)
        return;
    memcpy(&cookie, p, 8);
    myri_env_unpack(d->arg, &env);
    myri_on_arrival(arg, src, d->handler, &env, cookie, (const uint8_t *)p + 8, d->len - 8);
}

static void h_cts(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    myri_on_cts(arg, d->arg);
}

static void h_data(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    myri_on_data(arg, d->arg, p, d->len);
}

static void h_sync_ack(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d,
                       const void *p)
{
    myri_on_sync_ack(arg, d->arg);
}

static void h_error(myri_gam_t *g, void *arg, const myri_desc_t *d, int status)
{
    myri_fail_peer(arg, d->peer, status);
}

void myri_install_handlers(myri_ctx_t *ctx)
{
    myri_gam_set_handler(ctx->gam, MYRI_H_EAGER, h_eager, ctx);
    myri_gam_set_handler(ctx->gam, MYRI_H_EAGER_SYNC, h_cookie_first, ctx);
    myri_gam_set_handler(ctx->gam, MYRI_H_RTS, h_cookie_first, ctx);
    myri_gam_set_handler(ctx->gam, MYRI_H_CTS, h_cts, ctx);
    myri_gam_set_handler(ctx->gam, MYRI_H_DATA, h_data, ctx);
    myri_gam_set_handler(ctx->gam, MYRI_H_SYNC_ACK, h_sync_ack, ctx);
    myri_gam_set_error(ctx->gam, h_error, ctx);
}

/* A request waiting for a peer's answer (CTS, SYNC_ACK, DATA, or a message
 * on a posted receive) learns of the peer's death only through traffic:
 * every MD_LIVENESS_PROBE_MS, each awaited peer gets an empty request
 * (unless traffic to it is queued anyway).  Its firmware then retransmits
 * to a dead peer until it gives up and reports the peer failed. */
static void probe_mark_posted(void *arg, md_liveness_t *l)
{
    md_mq_foreach_posted(&((myri_ctx_t *)arg)->base.mq, md_liveness_mark, l);
}

static void probe_peer(void *arg, int32_t q)
{
    myri_ctx_t *ctx = arg;
    if (!ctx->peers[q].failed && md_opq_empty(&ctx->peers[q].ops))
        myri_op_ctl(ctx, q, MYRI_H_PROBE, 0, 0, 0);
}

static void myri_probe_awaited(myri_ctx_t *ctx)
{
    static const md_liveness_ops_t ops = { .mark_posted = probe_mark_posted,
                                           .probe = probe_peer };
    md_liveness_round(&ctx->base.live, &ctx->base.cookies, &ops, ctx);
}

/* The multidevice's progress thread sleeps on this while idle: the NIC
 * writes it after a completion-queue entry (nic_ep_wake_arm). */
int myri_wait_fd(md_subdev_t *sd, unsigned flags)
{
    myri_ctx_t *ctx = sd->priv;
    if (ctx->dead || ctx->base.busy.n > 0 || ctx->base.held.waiting.n > 0)
        return -1;   /* work that no arrival announces: keep polling */
    return nic_ep_wake_arm(myri_gam_ep(ctx->gam), !!(flags & MD_WAIT_F_SOLE));
}

int myri_progress(md_subdev_t *sd)
{
    myri_ctx_t *ctx = sd->priv;
    int n;

    if (ctx->dead) {
        myri_flush_done(ctx);
        return ctx->dead;
    }
    nic_ep_wake_disarm(myri_gam_ep(ctx->gam));
    n = myri_gam_poll(ctx->gam, 64);   /* lends an in-process firmware a turn first */
    if (n < 0) {
        ctx->dead = n;
        MYRI_LOG(ctx, MD_LOG_ERROR, "the NIC firmware of this node (%s) is gone: %s; every "
                 "request on this subdevice fails", ctx->nic_name, md_status_string(n));
        myri_fail_all(ctx, n);
        myri_flush_done(ctx);
        return n;
    }
    n += myri_held_retry(ctx);
    if (n == 0)
        myri_probe_awaited(ctx);
    n += myri_ops_drain(ctx);
    myri_flush_done(ctx);
    return n;
}
