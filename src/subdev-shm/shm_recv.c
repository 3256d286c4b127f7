/*
 * shm_recv.c - receives: posting, probing, cancelling, and delivering a
 * matched message into the user's buffer.
 *
 * A message is matched either by shm_progress (a posted receive is waiting
 * when it arrives: eager data goes straight from the ring to the user's
 * buffer) or by irecv/imrecv (it waited in the unexpected queue); the
 * kit's md_mq does the matching, and drops a receive whose claim another
 * subdevice won.  Posted receives are not in ctx->outstanding: one that
 * md_mq hands over for delivery (or for failing) is counted then.  Large
 * messages are pulled by the receiver: one process_vm_readv from the
 * sender's buffer when CMA works for that peer, otherwise a CTS asks the
 * sender to stream the bytes through the ring.  Truncation delivers what
 * fits and reports MD_ERR_TRUNCATE with the full msg_size.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_complete.h"
#include "md_recv.h"
#include "shm_impl.h"

static void shm_count_recv(shm_ctx_t *ctx, const md_envelope_t *env,
                           uint64_t delivered)
{
    if (env->tag < 0)
        return;     /* counted when host->sysmsg() is called */
    ctx->sd->counters.msgs_recvd++;
    ctx->sd->counters.bytes_recvd += delivered;
}

static void shm_deliver_eager(shm_ctx_t *ctx, shm_peer_t *peer,
                              md_request_t *req, const md_envelope_t *env,
                              const void *payload, uint64_t sreq)
{
    uint64_t n = env->size < req->len ? env->size : req->len;

    if (n > 0)
        memcpy(req->buf, payload, n);
    md_recv_status_fill(&req->status, env, n, ctx->sd->index);
    shm_count_recv(ctx, env, n);
    if ((env->flags & MD_ENV_F_SYNC) != 0)
        shm_send_ctrl(ctx, peer, SHM_REC_ACK, sreq, 0, 0, 0);
    shm_complete(ctx, req);
}

static void shm_recv_fail(shm_ctx_t *ctx, md_request_t *req, int error)
{
    req->status.error = error;
    req->status.subdev = ctx->sd->index;
    shm_complete(ctx, req);
}

static void shm_deliver_rts(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req,
                            const md_envelope_t *env, uint64_t sreq,
                            uint64_t addr)
{
    uint64_t n = env->size < req->len ? env->size : req->len;
    shm_req_priv_t *rp = shm_rp(req);

    md_recv_status_fill(&req->status, env, n, ctx->sd->index);
    shm_count_recv(ctx, env, n);
    if (peer->dead) {
        shm_recv_fail(ctx, req, MD_ERR_PEER_FAILED);
        return;
    }
    if (n == 0 || peer->is_self) {
        if (n > 0)
            memcpy(req->buf, (const void *)(uintptr_t)addr, n);
        shm_send_ctrl(ctx, peer, SHM_REC_FIN, sreq, 0, 0, 0);
        shm_complete(ctx, req);
        return;
    }
    if (peer->cma_ok && shm_help_recv(ctx, peer, req, sreq, addr, n))
        return;     /* copied with the sender's help */
    if (peer->cma_ok) {
        int rc = shm_cma_read(peer->pid, req->buf, addr, n);

        if (rc == MD_OK) {
            shm_send_ctrl(ctx, peer, SHM_REC_FIN, sreq, 0, 0, 0);
            shm_complete(ctx, req);
            return;
        }
        if (rc != MD_ERR_UNSUPPORTED) {
            SHM_ERROR(ctx, "single-copy read of %llu bytes from rank %d "
                      "failed: %s", (unsigned long long)n, (int)peer->world,
                      md_status_string(rc));
            /* the sender may be alive: release it */
            shm_send_ctrl(ctx, peer, SHM_REC_FIN, sreq, 0, 0, 0);
            shm_recv_fail(ctx, req, rc);
            return;
        }
        SHM_WARN(ctx, "process_vm_readv from rank %d is not permitted; "
                 "using the pipelined copy for it", (int)peer->world);
        peer->cma_ok = 0;
    }
    rp->state = SHM_RS_RECV_DATA;
    rp->peer = (int32_t)(peer - ctx->peers);
    rp->total = n;
    rp->done = 0;
    md_reqlist_append(&peer->rndv_recvs, req);
    shm_send_ctrl(ctx, peer, SHM_REC_CTS, sreq, (uint64_t)(uintptr_t)req, n, 0);
}

static shm_unexp_t *shm_unexp_of(md_mq_msg_t *m)
{
    return (shm_unexp_t *)(void *)((char *)m - offsetof(shm_unexp_t, mq));
}

void shm_unexp_free(shm_ctx_t *ctx, shm_unexp_t *e)
{
    if (e->data != NULL)
        shm_bufpool_put(&ctx->bufs, e->data, e->mq.env.size);
    shm_pool_put(&ctx->unexp_pool, e);
}

static void shm_deliver_unexp(shm_ctx_t *ctx, md_request_t *req, shm_unexp_t *e)
{
    shm_peer_t *peer = &ctx->peers[e->peer];

    if (e->rts)
        shm_deliver_rts(ctx, peer, req, &e->mq.env, e->sreq, e->addr);
    else
        shm_deliver_eager(ctx, peer, req, &e->mq.env, e->data, e->sreq);
    shm_unexp_free(ctx, e);
}

static void shm_req_init(md_request_t *req, uint16_t state)
{
    shm_req_priv_t *rp = shm_rp(req);

    memset(rp, 0, sizeof(*rp));
    rp->magic = SHM_REQ_MAGIC;
    rp->state = state;
    rp->peer = -1;
}

/* MD_ERR_PEER_FAILED when only a local peer that died could match a
 * receive; else 0. */
static int sender_failed(shm_ctx_t *ctx, const md_request_t *req)
{
    shm_peer_t *peer = shm_peer_of_world(ctx, md_recv_sender(req, ctx->world_size));

    return peer != NULL && peer->dead ? MD_ERR_PEER_FAILED : 0;
}

int shm_irecv(md_subdev_t *sd, md_request_t *req)
{
    shm_ctx_t *ctx = shm_ctx(sd);
    md_mq_msg_t *m;

    if (req->len > 0 && req->buf == NULL)
        return MD_ERR_INVALID;
    shm_req_init(req, SHM_RS_RECV);

    switch (md_recv_start(&ctx->mq, req, sd->index, sender_failed(ctx, req), &m)) {
    case MD_RECV_FROM_UNEXPECTED:
        ctx->outstanding++;
        shm_deliver_unexp(ctx, req, shm_unexp_of(m));
        break;
    case MD_RECV_SENDER_GONE:
        ctx->outstanding++;
        shm_recv_fail(ctx, req, MD_ERR_PEER_FAILED);
        break;
    default:                /* posted, or another subdevice delivers it */
        return MD_OK;
    }
    shm_complete_flush(ctx);
    return MD_OK;
}

int shm_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    shm_ctx_t *ctx = shm_ctx(sd);
    shm_req_priv_t *rp = shm_rp(req);

    if (rp->magic != SHM_REQ_MAGIC || rp->state != SHM_RS_RECV ||
        md_mq_cancel_posted(&ctx->mq, req) != MD_OK)
        return MD_ERR_NOT_FOUND;
    rp->state = SHM_RS_NONE;
    return MD_OK;
}

/* ---------------------------------------------------------------- probes */

/* Probes see what has arrived by now, not only what progress took. */
static shm_unexp_t *shm_probe_find(shm_ctx_t *ctx, const md_match_t *match,
                                   int *flag, md_recv_status_t *status)
{
    md_mq_msg_t *m;

    shm_poll_inbound(ctx);
    m = md_mq_probe(&ctx->mq, match, ctx->sd->index, flag, status);
    return m != NULL ? shm_unexp_of(m) : NULL;
}

int shm_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag,
               md_recv_status_t *status)
{
    shm_ctx_t *ctx = shm_ctx(sd);

    shm_probe_find(ctx, match, flag, status);
    shm_complete_flush(ctx);
    return MD_OK;
}

int shm_improbe(md_subdev_t *sd, const md_match_t *match, int *flag,
                md_request_t *msg)
{
    shm_ctx_t *ctx = shm_ctx(sd);
    shm_unexp_t *e = shm_probe_find(ctx, match, flag, &msg->status);

    if (e != NULL) {
        md_mq_remove_unexpected(&ctx->mq, &e->mq);
        shm_req_init(msg, SHM_RS_MPROBE);
        shm_rp(msg)->unexp = e;
        shm_rp(msg)->peer = e->peer;
        /* improbe is the match: a synchronous eager sender may go now */
        if (!e->rts && (e->mq.env.flags & MD_ENV_F_SYNC) != 0) {
            shm_send_ctrl(ctx, &ctx->peers[e->peer], SHM_REC_ACK, e->sreq, 0, 0, 0);
            e->mq.env.flags &= ~MD_ENV_F_SYNC;
        }
    }
    shm_complete_flush(ctx);
    return MD_OK;
}

int shm_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req)
{
    shm_ctx_t *ctx = shm_ctx(sd);
    shm_req_priv_t *mp = shm_rp(msg);
    shm_unexp_t *e;

    if (mp->magic != SHM_REQ_MAGIC || mp->state != SHM_RS_MPROBE ||
        mp->unexp == NULL)
        return MD_ERR_INVALID;
    if (req->len > 0 && req->buf == NULL)
        return MD_ERR_INVALID;
    e = mp->unexp;
    mp->unexp = NULL;
    mp->state = SHM_RS_NONE;
    shm_req_init(req, SHM_RS_NONE);
    ctx->outstanding++;
    shm_deliver_unexp(ctx, req, e);
    shm_complete_flush(ctx);
    return MD_OK;
}

/* ---------------------------------------------------------------- arrivals */

int shm_recv_incoming(shm_ctx_t *ctx, shm_peer_t *peer, const shm_msg_hdr_t *hdr,
                      const md_envelope_t *env)
{
    md_request_t *req = md_mq_take_posted(&ctx->mq, env, ctx->sd->index);
    const shm_rts_rec_t *rts = (const shm_rts_rec_t *)hdr;
    shm_unexp_t *e;

    if (req != NULL) {
        ctx->outstanding++;
        if (hdr->rec.type == SHM_REC_EAGER)
            shm_deliver_eager(ctx, peer, req, env, hdr + 1, hdr->sreq);
        else
            shm_deliver_rts(ctx, peer, req, env, hdr->sreq, rts->rts.addr);
        return MD_OK;
    }

    e = shm_pool_get(&ctx->unexp_pool);
    if (e == NULL)
        return MD_ERR_NO_MEMORY;
    e->mq.env = *env;
    e->sreq = hdr->sreq;
    e->peer = (int32_t)(peer - ctx->peers);
    e->data = NULL;
    e->addr = 0;
    e->rts = hdr->rec.type == SHM_REC_RTS;
    if (e->rts) {
        e->addr = rts->rts.addr;
    } else if (env->size > 0) {
        e->data = shm_bufpool_get(&ctx->bufs, env->size);
        if (e->data == NULL) {
            shm_pool_put(&ctx->unexp_pool, e);
            return MD_ERR_NO_MEMORY;
        }
        memcpy(e->data, hdr + 1, env->size);
    }
    md_arrival_keep_unexpected(&ctx->mq, ctx->sd, &e->mq);
    return MD_OK;
}

int shm_recv_sysmsg(shm_ctx_t *ctx, shm_peer_t *peer, const shm_msg_hdr_t *hdr,
                    const md_envelope_t *env)
{
    const shm_rts_rec_t *rts = (const shm_rts_rec_t *)hdr;
    md_request_t *req;

    if (hdr->rec.type == SHM_REC_EAGER) {
        /* the payload stays in the ring for the duration of the call */
        ctx->sd->counters.sysmsgs_recvd++;
        ctx->host->sysmsg(ctx->sd, env, hdr + 1);
        if ((env->flags & MD_ENV_F_SYNC) != 0)
            shm_send_ctrl(ctx, peer, SHM_REC_ACK, hdr->sreq, 0, 0, 0);
        return MD_OK;
    }
    /* A large system message: receive it into a buffer of our own, hand it
     * over in shm_complete_flush, then free both. */
    req = calloc(1, sizeof(*req));
    if (req == NULL)
        return MD_ERR_NO_MEMORY;
    req->buf = malloc(env->size);
    if (req->buf == NULL) {
        free(req);
        return MD_ERR_NO_MEMORY;
    }
    req->kind = MD_REQ_RECV;
    req->internal = 1;
    req->len = env->size;
    req->env = *env;
    req->peer_world = peer->world;
    shm_req_init(req, SHM_RS_NONE);
    shm_rp(req)->sysmsg = 1;
    ctx->outstanding++;
    shm_deliver_rts(ctx, peer, req, env, hdr->sreq, rts->rts.addr);
    return MD_OK;
}

void shm_recv_on_data(shm_ctx_t *ctx, shm_peer_t *peer, const shm_ctrl_rec_t *rec)
{
    md_request_t *req = (md_request_t *)(uintptr_t)rec->rreq;
    shm_req_priv_t *rp = req != NULL ? shm_rp(req) : NULL;

    if (rp == NULL || rp->magic != SHM_REQ_MAGIC ||
        rp->state != SHM_RS_RECV_DATA || &ctx->peers[rp->peer] != peer ||
        rec->offset + rec->len > rp->total) {
        SHM_ERROR(ctx, "rank %d sent data for no pipelined receive; "
                  "ignored", (int)peer->world);
        return;
    }
    memcpy((uint8_t *)req->buf + rec->offset,
           (const uint8_t *)rec + SHM_DATA_OFFSET, rec->len);
    rp->done += rec->len;
    if (rp->done == rp->total) {
        md_reqlist_remove(&peer->rndv_recvs, req);
        shm_complete(ctx, req);
    }
}

void shm_recv_fail_peer(shm_ctx_t *ctx, shm_peer_t *peer)
{
    md_reqlist_t posted;
    md_request_t *req;

    while ((req = md_reqlist_pop(&peer->rndv_recvs)) != NULL)
        shm_recv_fail(ctx, req, MD_ERR_PEER_FAILED);
    shm_help_fail_peer(ctx, peer);
    /* the receives that only it could satisfy */
    ctx->outstanding += md_mq_remove_posted_from(&ctx->mq, ctx->sd->index, peer->world, &posted);
    while ((req = md_reqlist_pop(&posted)) != NULL)
        shm_recv_fail(ctx, req, MD_ERR_PEER_FAILED);
}
