/* sci_send.c - the sender: protocol choice, message slots and ring space
 * (freed in order as ready flags come back), rendezvous handles, and the
 * three stores of every message.  Sends to one peer leave in the order
 * they were posted; only the head of a peer's queue is tried. */
#include "config.h"

#include <stdatomic.h>
#include <string.h>

#include "sci_impl.h"

static uint64_t load_acq(const uint8_t *p)
{
    return atomic_load_explicit((const _Atomic uint64_t *)(const void *)p, memory_order_acquire);
}

/* Slots and ring bytes the receiver has taken, and finished rendezvous. */
static int reclaim(sci_ctx_t *ctx, int32_t peer)
{
    sci_peer_t *p = &ctx->peers[peer];
    const sci_layout_t *l = &ctx->lay;
    const uint8_t *tx = sci_peer_tx(ctx, peer);
    int n = 0;

    while (p->oldest_id < p->next_id) {
        uint32_t slot = (uint32_t)((p->oldest_id - 1) % l->p.nmsg);
        if (load_acq(tx + l->tx_ready + slot * 8u) != p->oldest_id)
            break;
        p->ring_tail = p->ring_end[slot];
        p->oldest_id++;
        n++;
    }
    for (uint32_t h = 0; p->rdv_used > 0 && h < l->p.nrdv; h++) {
        md_request_t *req = p->rdv_req[h];
        /* A transport is WAIT_DONE once its last chunk is out. */
        if (req == NULL || sci_rp(req)->state != SCI_RS_WAIT_DONE ||
            load_acq(tx + l->tx_done + h * 8u) != sci_rp(req)->id)
            continue;
        p->rdv_req[h] = NULL;
        p->rdv_used--;
        req->status.error = MD_OK;
        sci_complete(ctx, req);
        n++;
    }
    return n;
}

static int ring_alloc(sci_peer_t *p, uint32_t ring_size, uint64_t len, uint32_t *off)
{
    uint64_t need = (len + 63) / 64 * 64, used = p->ring_head - p->ring_tail;
    uint64_t pos = p->ring_head % ring_size;

    if (need == 0)
        need = 64;
    if (pos + need > ring_size) {
        uint64_t waste = ring_size - pos;   /* skip to the start: the ring wraps */
        if (used + waste + need > ring_size)
            return 0;
        *off = 0;
        p->ring_head += waste + need;
        return 1;
    }
    if (used + need > ring_size)
        return 0;
    *off = (uint32_t)pos;
    p->ring_head += need;
    return 1;
}

static int rdv_alloc(sci_peer_t *p, uint32_t nrdv)
{
    for (uint32_t i = 0; i < nrdv; i++) {
        uint32_t h = (p->rdv_next + i) % nrdv;
        if (p->rdv_req[h] == NULL) {
            p->rdv_next = h + 1;
            return (int)h;
        }
    }
    return -1;
}

static uint32_t proto_of(const sci_ctx_t *ctx, size_t len)
{
    if (len <= ctx->lay.p.inline_max)
        return SCI_P_INLINE;
    return len <= ctx->eager_limit ? SCI_P_EAGER : SCI_P_TRANSPORT;
}

/* Issue the head send: 2 issued and done (its data has left the user's
 * buffer), 1 issued (waits for its done flag), 0 not now (no slot, ring
 * space, handle or window room), < 0 failed. */
static int issue(sci_ctx_t *ctx, int32_t peer, md_request_t *req)
{
    sci_peer_t *p = &ctx->peers[peer];
    const sci_layout_t *l = &ctx->lay;
    sci_rpriv_t *rp = sci_rp(req);
    int sys = req->env.tag < 0;
    int rdv_needed = rp->proto == SCI_P_TRANSPORT || (!sys && (req->env.flags & MD_ENV_F_SYNC));
    uint32_t inl = rp->proto == SCI_P_INLINE ? (uint32_t)req->len : 0;
    uint32_t need = 1 + sci_sqe_slots(SCI_OP_STORE, SCI_INFO_HDR + inl), off = 0;
    int h = -1, rc;

    if (p->next_id - p->oldest_id >= l->p.nmsg)
        return 0;
    if (rdv_needed && p->rdv_used == l->p.nrdv)
        return 0;
    if (rp->proto == SCI_P_EAGER)
        need += sci_sqe_slots(SCI_OP_STORE, (uint32_t)req->len);
    if (ctx->ctl_head != NULL || sci_window_space(ctx->dev) < need)
        return 0;
    if (rp->proto == SCI_P_EAGER && !ring_alloc(p, l->p.ring_size, req->len, &off))
        return 0;
    if (rdv_needed)
        h = rdv_alloc(p, l->p.nrdv);

    uint64_t id = p->next_id, rx = p->rx_win.addr;
    uint32_t slot = (uint32_t)((id - 1) % l->p.nmsg);
    sci_msg_info_t info = {
        .src_rank = req->env.src_rank, .src_world = req->env.src_world, .tag = req->env.tag,
        .context_id = req->env.context_id, .env_flags = req->env.flags, .proto = rp->proto,
        .seq = req->env.seq, .size = req->len, .id = id, .ring_off = off,
        .rdv = h >= 0 ? (uint32_t)h + 1 : 0, .dst_world = req->env.dst_world,
    };
    struct iovec iov[2] = { { &info, sizeof(info) }, { req->buf, inl } };

    sci_cpu_software(ctx->dev);
    if (rp->proto == SCI_P_EAGER &&
        (rc = sci_store(ctx->dev, rx + l->rx_ring + off, req->buf, (uint32_t)req->len, 0, 0)) != NIC_OK)
        return rc;
    if ((rc = sci_storev(ctx->dev, rx + l->rx_info + slot * l->info_size, iov, inl ? 2 : 1, 0,
                         0)) != NIC_OK ||
        (rc = sci_store(ctx->dev, rx + l->rx_used + slot * 8u, &id, sizeof(id), 0, 0)) != NIC_OK)
        return rc;
    p->ring_end[slot] = p->ring_head;
    p->next_id++;
    rp->id = id;
    if (h >= 0) {
        p->rdv_req[h] = req;
        p->rdv_used++;
        rp->rdv = (uint32_t)h + 1;
        rp->state = rp->proto == SCI_P_TRANSPORT ? SCI_RS_WAIT_CTS : SCI_RS_WAIT_DONE;
        return 1;
    }
    return 2;
}

int sci_send_progress(sci_ctx_t *ctx, int32_t peer)
{
    sci_peer_t *p = &ctx->peers[peer];
    md_request_t *req;
    int n = reclaim(ctx, peer);

    while ((req = p->sendq.head) != NULL) {
        int rc = issue(ctx, peer, req);
        if (rc == 0)
            break;
        md_reqlist_pop(&p->sendq);   /* before completing: that relinks it */
        if (rc < 0)
            SCI_LOG(ctx, MD_LOG_ERROR, "send to rank %d failed: %s", peer, md_status_string(rc));
        if (rc != 1) {
            req->status.error = rc < 0 ? rc : MD_OK;
            sci_complete(ctx, req);
        }
        n++;
    }
    if (p->rdv_used > 0)
        n += sci_tp_send_progress(ctx, peer);
    return n;
}

int sci_isend(md_subdev_t *sd, md_request_t *req)
{
    sci_ctx_t *ctx = sd->priv;
    int32_t peer = req->peer_world;
    sci_rpriv_t *rp = sci_rp(req);

    if (ctx->dead)
        return ctx->dead;
    if (!md_serves(ctx->base.serves, ctx->base.world_size, peer) || !ctx->peers[peer].connected)
        return md_serves_refuse(sd, peer);
    if (ctx->peers[peer].failed)
        return ctx->peers[peer].failed;
    memset(rp, 0, sizeof(*rp));
    rp->state = SCI_RS_QUEUED;
    rp->proto = proto_of(ctx, req->len);
    if (req->env.tag >= 0) {
        if (rp->proto == SCI_P_TRANSPORT)
            sd->counters.rndv_sent++;
        else
            sd->counters.eager_sent++;
    }
    md_reqlist_append(&ctx->peers[peer].sendq, req);
    sci_send_progress(ctx, peer);
    sci_flush_done(ctx);
    return MD_OK;
}
