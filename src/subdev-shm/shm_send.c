/*
 * shm_send.c - isend and everything a sender writes into a peer's ring.
 *
 * A send goes straight into the ring when the peer's outbox is empty and
 * the ring has room; otherwise it waits, in order, in peer->sendq and
 * progress retries it (never spinning here).  Eager sends complete when
 * written (the payload is copied), unless MD_ENV_F_SYNC asks to wait for
 * the receiver's ACK.  Large sends write an RTS and wait for FIN (the
 * receiver copied with CMA) or CTS (stream DATA fragments through the
 * ring, then complete).
 *
 * Requests travel as cookies (their address in the sender's memory) and
 * are checked for SHM_REQ_MAGIC and state when a peer echoes them back.
 */
#include "config.h"

#include <string.h>

#include "shm_impl.h"

#define SHM_STREAM_FRAGS_PER_CALL 8   /* bound on DATA records per flush */

static inline uint64_t shm_cookie(const md_request_t *req)
{
    return (uint64_t)(uintptr_t)req;
}

static void shm_fill_hdr(shm_msg_hdr_t *h, const md_envelope_t *env, uint64_t sreq)
{
    h->src_rank = env->src_rank;
    h->src_world = env->src_world;
    h->dst_world = env->dst_world;
    h->tag = env->tag;
    h->context_id = env->context_id;
    h->env_flags = env->flags;
    h->seq = env->seq;
    h->sreq = sreq;
}

static void shm_count_send(shm_ctx_t *ctx, const md_envelope_t *env, int rndv)
{
    md_subdev_counters_t *c = &ctx->sd->counters;

    if (env->tag < 0) {
        c->sysmsgs_sent++;
        return;
    }
    c->msgs_sent++;
    c->bytes_sent += env->size;
    if (rndv)
        c->rndv_sent++;
    else
        c->eager_sent++;
}

/* An EAGER record of env and its env->size payload bytes into the peer's
 * ring.  1: written; 0: the ring is full. */
static int shm_write_eager(shm_ctx_t *ctx, shm_peer_t *peer, const md_envelope_t *env,
                           const void *buf, uint64_t sreq)
{
    uint32_t rec_len = (uint32_t)(sizeof(shm_msg_hdr_t) + env->size);
    shm_msg_hdr_t *h = shm_ring_reserve(&peer->out, rec_len);

    if (h == NULL)
        return 0;
    shm_fill_hdr(h, env, sreq);
    if (env->size > 0)
        memcpy(h + 1, buf, env->size);
    shm_ring_commit(&peer->out, h, SHM_REC_EAGER, rec_len);
    shm_wake_kick(ctx, peer);
    shm_count_send(ctx, env, 0);
    return 1;
}

/* Writes the message's first record (EAGER or RTS).  1: written; 0: the
 * ring is full. */
static int shm_write_msg(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req)
{
    if (req->len <= peer->eager_limit) {
        return shm_write_eager(ctx, peer, &req->env, req->buf, shm_cookie(req));
    } else {
        shm_rts_rec_t *r = shm_ring_reserve(&peer->out, sizeof(*r));

        if (r == NULL)
            return 0;
        shm_fill_hdr(&r->hdr, &req->env, shm_cookie(req));
        r->rts.size = req->len;
        r->rts.addr = (uint64_t)(uintptr_t)req->buf;
        shm_ring_commit(&peer->out, r, SHM_REC_RTS, sizeof(*r));
        shm_wake_kick(ctx, peer);
        shm_count_send(ctx, &req->env, 1);
        return 1;
    }
}

static void shm_send_finish(shm_ctx_t *ctx, md_request_t *req, int error)
{
    req->status.error = error;
    req->status.size = error == MD_OK ? req->len : 0;
    req->status.msg_size = req->len;
    req->status.subdev = ctx->sd->index;
    shm_complete(ctx, req);
}

/* The first record is in the ring: complete, or wait for the receiver. */
static void shm_send_written(shm_ctx_t *ctx, shm_peer_t *peer,
                             md_request_t *req)
{
    if (req->len > peer->eager_limit ||
        (req->env.flags & MD_ENV_F_SYNC) != 0) {
        shm_rp(req)->state = SHM_RS_SEND_WAIT;
        md_reqlist_append(&peer->waiting, req);
    } else {
        shm_send_finish(ctx, req, MD_OK);
    }
}

int shm_isend(md_subdev_t *sd, md_request_t *req)
{
    shm_ctx_t *ctx = shm_ctx(sd);
    shm_peer_t *peer = shm_peer_of_world(ctx, req->peer_world);
    shm_req_priv_t *rp = shm_rp(req);

    if (peer == NULL) {
        SHM_ERROR(ctx, "rank %d is not on node %d; shm reaches only "
                  "ranks of its own node", (int)req->peer_world,
                  (int)ctx->my_node);
        return MD_ERR_NO_ROUTE;
    }
    if (peer->dead)
        return MD_ERR_PEER_FAILED;
    if (req->len > 0 && req->buf == NULL)
        return MD_ERR_INVALID;

    memset(rp, 0, sizeof(*rp));
    rp->magic = SHM_REQ_MAGIC;
    rp->peer = (int32_t)(peer - ctx->peers);
    ctx->outstanding++;

    if (peer->sendq.head == NULL && shm_write_msg(ctx, peer, req)) {
        shm_send_written(ctx, peer, req);
    } else {
        rp->state = SHM_RS_SEND_QUEUED;
        md_reqlist_append(&peer->sendq, req);
        ctx->out_pending++;
    }
    shm_complete_flush(ctx);
    return MD_OK;
}

/* An eager message with nothing queued before it, written at once and done
 * with: no request, no completion (md_sdi.h, inject). */
int shm_inject(md_subdev_t *sd, const md_envelope_t *env, const void *buf)
{
    shm_ctx_t *ctx = shm_ctx(sd);
    shm_peer_t *peer = shm_peer_of_world(ctx, env->dst_world);

    if (peer == NULL || peer->dead || peer->sendq.head != NULL || env->size > peer->eager_limit)
        return MD_ERR_NO_RESOURCE;      /* isend says why, or queues it */
    return shm_write_eager(ctx, peer, env, buf, 0) ? MD_OK : MD_ERR_NO_RESOURCE;
}

/* ---------------------------------------------------------------- controls */

static int shm_write_ctrl(shm_ctx_t *ctx, shm_peer_t *peer, uint16_t type,
                          uint64_t sreq, uint64_t rreq, uint64_t len, uint64_t offset)
{
    shm_ctrl_rec_t *c = shm_ring_reserve(&peer->out, sizeof(*c));

    if (c == NULL)
        return 0;
    c->sreq = sreq;
    c->rreq = rreq;
    c->offset = offset;
    c->len = len;
    shm_ring_commit(&peer->out, c, type, sizeof(*c));
    shm_wake_kick(ctx, peer);
    return 1;
}

int shm_send_ctrl(shm_ctx_t *ctx, shm_peer_t *peer, uint16_t type,
                  uint64_t sreq, uint64_t rreq, uint64_t len, uint64_t offset)
{
    shm_ctrl_item_t *item;

    if (peer->dead)
        return MD_OK;    /* nobody is left to tell */
    if (peer->ctrl_head == NULL && shm_write_ctrl(ctx, peer, type, sreq, rreq, len, offset))
        return MD_OK;
    item = shm_pool_get(&ctx->ctrl_pool);
    if (item == NULL) {
        SHM_ERROR(ctx, "out of memory queueing a control record for "
                  "rank %d", (int)peer->world);
        return MD_ERR_NO_MEMORY;
    }
    item->next = NULL;
    item->type = type;
    item->sreq = sreq;
    item->rreq = rreq;
    item->len = len;
    item->offset = offset;
    if (peer->ctrl_tail != NULL)
        peer->ctrl_tail->next = item;
    else
        peer->ctrl_head = item;
    peer->ctrl_tail = item;
    ctx->out_pending++;
    return MD_OK;
}

/* ---------------------------------------------------------------- outbox */

/* Writes DATA fragments of one pipelined send; 1 when it has finished. */
static int shm_stream_some(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req,
                           int *events)
{
    shm_req_priv_t *rp = shm_rp(req);
    int written = 0;

    for (int n = 0; n < SHM_STREAM_FRAGS_PER_CALL && rp->done < rp->total; n++) {
        uint64_t frag = rp->total - rp->done;
        shm_ctrl_rec_t *c;

        if (frag > peer->frag_size)
            frag = peer->frag_size;
        c = shm_ring_reserve(&peer->out, (uint32_t)(SHM_DATA_OFFSET + frag));
        if (c == NULL)
            break;
        c->sreq = 0;
        c->rreq = rp->remote;
        c->offset = rp->done;
        c->len = frag;
        memcpy((uint8_t *)c + SHM_DATA_OFFSET, (const uint8_t *)req->buf + rp->done,
               frag);
        shm_ring_commit(&peer->out, c, SHM_REC_DATA,
                        (uint32_t)(SHM_DATA_OFFSET + frag));
        rp->done += frag;
        written++;
    }
    if (written > 0)
        shm_wake_kick(ctx, peer);
    *events += written;
    return rp->done == rp->total;
}

int shm_flush_peer(shm_ctx_t *ctx, shm_peer_t *peer)
{
    int events = 0;

    while (peer->ctrl_head != NULL) {
        shm_ctrl_item_t *item = peer->ctrl_head;

        if (!shm_write_ctrl(ctx, peer, item->type, item->sreq, item->rreq, item->len,
                            item->offset))
            return events;
        peer->ctrl_head = item->next;
        if (peer->ctrl_head == NULL)
            peer->ctrl_tail = NULL;
        shm_pool_put(&ctx->ctrl_pool, item);
        ctx->out_pending--;
        events++;
    }
    while (peer->sendq.head != NULL) {
        md_request_t *req = peer->sendq.head;

        if (!shm_write_msg(ctx, peer, req))
            break;
        md_reqlist_remove(&peer->sendq, req);
        ctx->out_pending--;
        shm_send_written(ctx, peer, req);
        events++;
    }
    while (peer->streams.head != NULL) {
        md_request_t *req = peer->streams.head;

        if (!shm_stream_some(ctx, peer, req, &events)) {
            /* ring full or fragment budget used: let others go next */
            if (req != peer->streams.tail) {
                md_reqlist_remove(&peer->streams, req);
                md_reqlist_append(&peer->streams, req);
            }
            break;
        }
        md_reqlist_remove(&peer->streams, req);
        ctx->out_pending--;
        shm_send_finish(ctx, req, MD_OK);
    }
    return events;
}

/* ---------------------------------------------------------------- replies */

static md_request_t *shm_sreq_from_cookie(shm_ctx_t *ctx, shm_peer_t *peer,
                                          uint64_t cookie)
{
    md_request_t *req = (md_request_t *)(uintptr_t)cookie;
    shm_req_priv_t *rp;

    if (req == NULL)
        return NULL;
    rp = shm_rp(req);
    if (rp->magic != SHM_REQ_MAGIC || rp->state != SHM_RS_SEND_WAIT ||
        &ctx->peers[rp->peer] != peer)
        return NULL;
    return req;
}

void shm_send_on_ctrl(shm_ctx_t *ctx, shm_peer_t *peer, const shm_ctrl_rec_t *rec)
{
    md_request_t *req = shm_sreq_from_cookie(ctx, peer, rec->sreq);
    shm_req_priv_t *rp;

    if (req == NULL) {
        SHM_ERROR(ctx, "rank %d answered (record type %u) for a send "
                  "that is not waiting; ignored", (int)peer->world,
                  (unsigned)rec->rec.type);
        return;
    }
    if (rec->rec.type == SHM_REC_HELP) {
        shm_help_send(ctx, peer, req, rec);     /* it still waits for FIN */
        return;
    }
    rp = shm_rp(req);
    md_reqlist_remove(&peer->waiting, req);
    if (rec->rec.type != SHM_REC_CTS || rec->len == 0) {
        shm_send_finish(ctx, req, MD_OK);
        return;
    }
    rp->state = SHM_RS_SEND_STREAM;
    rp->total = rec->len < req->len ? rec->len : req->len;
    rp->done = 0;
    rp->remote = rec->rreq;
    md_reqlist_append(&peer->streams, req);
    ctx->out_pending++;
}

void shm_send_fail_peer(shm_ctx_t *ctx, shm_peer_t *peer)
{
    md_request_t *req;

    while (peer->ctrl_head != NULL) {
        shm_ctrl_item_t *item = peer->ctrl_head;

        peer->ctrl_head = item->next;
        shm_pool_put(&ctx->ctrl_pool, item);
        ctx->out_pending--;
    }
    peer->ctrl_tail = NULL;
    while ((req = md_reqlist_pop(&peer->sendq)) != NULL) {
        ctx->out_pending--;
        shm_send_finish(ctx, req, MD_ERR_PEER_FAILED);
    }
    while ((req = md_reqlist_pop(&peer->streams)) != NULL) {
        ctx->out_pending--;
        shm_send_finish(ctx, req, MD_ERR_PEER_FAILED);
    }
    while ((req = md_reqlist_pop(&peer->waiting)) != NULL)
        shm_send_finish(ctx, req, MD_ERR_PEER_FAILED);
}
