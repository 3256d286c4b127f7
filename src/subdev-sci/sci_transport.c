/* sci_transport.c - the TRANSPORT protocol (messages above the eager
 * limit), both sides.
 *
 * Receiver: once it has matched a transport message it serves it, one at
 * a time per sender: it writes tp_ctl {id, bytes wanted, first chunk} into
 * the sender's memory and then tp_grant, the number of chunks the sender
 * may have stored (free-running; nchunk ahead of what it has consumed).
 * Sender: copies chunk k of the user's buffer into a stage chunk of its own
 * exported memory, lets the DMA engine write it into the receiver's staging
 * slot k % nchunk, and stores tp_filled = k + 1 after it (ordered behind
 * the DMA data); or, with ctx->tp_pio, stores the chunk there itself from
 * the user's buffer (no stage chunk, no DMA).  The receiver copies each filled chunk out, grants one
 * more, and writes done[handle] after the last one, which completes the
 * send.  Remote writes only, on both sides. */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sci_impl.h"

static uint64_t load_acq(const uint8_t *p)
{
    return atomic_load_explicit((const _Atomic uint64_t *)(const void *)p, memory_order_acquire);
}

/* --- sender --- */

static md_request_t *waiting_cts(sci_peer_t *p, uint32_t nrdv, uint64_t id)
{
    for (uint32_t h = 0; h < nrdv; h++) {
        md_request_t *r = p->rdv_req[h];
        if (r != NULL && sci_rp(r)->id == id && sci_rp(r)->state == SCI_RS_WAIT_CTS)
            return r;
    }
    return NULL;
}

static int stage_take(sci_ctx_t *ctx)
{
    for (uint32_t i = 0; i < ctx->lay.p.nstage; i++)
        if (!(ctx->stage_busy & (1u << i))) {
            ctx->stage_busy |= 1u << i;
            return (int)i;
        }
    return -1;
}

void sci_tp_stage_done(sci_ctx_t *ctx, uint64_t cookie, int status)
{
    uint32_t slot = (uint32_t)(cookie & 0xffffffffu) - 1;
    int32_t peer = (int32_t)(cookie >> 32);

    if (slot < 32)
        ctx->stage_busy &= ~(1u << slot);
    if (status != NIC_OK && peer >= 0 && peer < ctx->base.world_size) {
        SCI_LOG(ctx, MD_LOG_ERROR, "DMA of a transport chunk to rank %d failed: %s", peer,
                md_status_string(status));
        sci_fail_peer(ctx, peer, status);
    }
}

int sci_tp_send_progress(sci_ctx_t *ctx, int32_t peer)
{
    sci_peer_t *p = &ctx->peers[peer];
    const sci_layout_t *l = &ctx->lay;
    const uint8_t *tx = sci_peer_tx(ctx, peer);
    uint64_t grant = load_acq(tx + l->tx_grant);
    md_request_t *req = p->tp_active;
    int n = 0;

    if (req == NULL) {
        sci_tp_ctl_t c;
        if (grant <= p->tp_sent)
            return 0;
        memcpy(&c, tx + l->tx_ctl, sizeof(c));   /* stored before the grant */
        req = waiting_cts(p, l->p.nrdv, c.id);
        if (req == NULL || c.base != p->tp_sent || c.want > req->len) {
            SCI_LOG(ctx, MD_LOG_ERROR, "rank %d granted transport chunks for message %llu that "
                    "this rank does not expect", peer, (unsigned long long)c.id);
            sci_fail_peer(ctx, peer, MD_ERR_IO);
            return 0;
        }
        p->tp_active = req;
        p->tp_base = c.base;
        p->tp_want = c.want;
        p->tp_chunks = (c.want + l->p.chunk - 1) / l->p.chunk;
        sci_rp(req)->state = SCI_RS_SENDING;
    }
    while (p->tp_sent < grant && p->tp_sent < p->tp_base + p->tp_chunks) {
        uint64_t k = p->tp_sent - p->tp_base, off = k * l->p.chunk;
        uint64_t len = p->tp_want - off < l->p.chunk ? p->tp_want - off : l->p.chunk;
        uint64_t filled = p->tp_sent + 1, stage_off;
        int slot, rc;

        uint64_t dst = p->rx_win.addr + l->rx_staging + (p->tp_sent % l->p.nchunk) * l->p.chunk;

        if (ctx->tp_pio) {   /* the CPU stores the chunk itself, from the user's buffer */
            if (sci_window_space(ctx->dev) < 2 + sci_sqe_slots(SCI_OP_STORE, (uint32_t)len))
                break;
            rc = sci_store(ctx->dev, dst, (const uint8_t *)req->buf + off, (uint32_t)len, 0, 0);
        } else {
            if (sci_window_space(ctx->dev) < 2 || (slot = stage_take(ctx)) < 0)
                break;
            stage_off = l->stage_base + (uint64_t)slot * l->p.chunk;
            memcpy(sci_mem(ctx, stage_off), (const uint8_t *)req->buf + off, len);
            rc = sci_post(ctx->dev, SCI_OP_DMA_WRITE, dst, ctx->seg.offset + stage_off, len, 0,
                          (uint64_t)peer << 32 | (uint32_t)(slot + 1));
        }
        if (rc == NIC_OK)
            rc = sci_store(ctx->dev, p->rx_win.addr + l->rx_filled, &filled, sizeof(filled), 0, 0);
        if (rc != NIC_OK) {
            sci_fail_peer(ctx, peer, rc);
            return n;
        }
        p->tp_sent++;
        n++;
    }
    if (p->tp_sent == p->tp_base + p->tp_chunks) {
        sci_rp(req)->state = SCI_RS_WAIT_DONE;   /* its done flag completes it */
        p->tp_active = NULL;
    }
    return n;
}

/* --- receiver --- */

void sci_write_done(sci_ctx_t *ctx, int32_t peer, uint32_t rdv, uint64_t id)
{
    const sci_layout_t *l = &ctx->lay;
    if (ctx->peers[peer].failed)
        return;   /* nobody waits for it any more */
    sci_ctl_write(ctx, ctx->peers[peer].tx_win.addr + l->tx_done + (uint64_t)(rdv - 1) * 8, &id,
                  sizeof(id));
}

/* Serve the first matched transport of peer, if none is being served. */
static void tp_serve_next(sci_ctx_t *ctx, int32_t peer)
{
    sci_peer_t *p = &ctx->peers[peer];
    const sci_layout_t *l = &ctx->lay;
    sci_tp_recv_t *t;

    while ((t = p->tp_head) != NULL && !p->tp_started) {
        if (t->chunks == 0) {   /* nothing wanted (truncated to 0 bytes) */
            sci_write_done(ctx, peer, t->rdv, t->id);
            sci_complete(ctx, t->req);
            p->tp_head = t->next;
            if (p->tp_head == NULL)
                p->tp_tail = NULL;
            free(t);
            continue;
        }
        sci_tp_ctl_t c = { .id = t->id, .want = t->want, .base = p->tp_rx_base };
        uint64_t grant = p->tp_rx_base + (t->chunks < l->p.nchunk ? t->chunks : l->p.nchunk);
        sci_ctl_write(ctx, p->tx_win.addr + l->tx_ctl, &c, sizeof(c));
        sci_ctl_write(ctx, p->tx_win.addr + l->tx_grant, &grant, sizeof(grant));
        p->tp_granted = grant;
        p->tp_started = 1;
    }
}

void sci_tp_recv_start(sci_ctx_t *ctx, int32_t peer, md_request_t *req, uint64_t id,
                       uint32_t rdv, uint64_t want)
{
    sci_peer_t *p = &ctx->peers[peer];
    sci_tp_recv_t *t = calloc(1, sizeof(*t));

    if (t == NULL) {
        req->status.error = MD_ERR_NO_MEMORY;
        sci_complete(ctx, req);
        return;
    }
    t->req = req;
    t->id = id;
    t->rdv = rdv;
    t->want = want;
    t->chunks = (want + ctx->lay.p.chunk - 1) / ctx->lay.p.chunk;
    sci_rp(req)->state = SCI_RS_RECV_TP;
    if (p->tp_tail != NULL)
        p->tp_tail->next = t;
    else
        p->tp_head = t;
    p->tp_tail = t;
    tp_serve_next(ctx, peer);
}

int sci_tp_recv_progress(sci_ctx_t *ctx, int32_t peer)
{
    sci_peer_t *p = &ctx->peers[peer];
    const sci_layout_t *l = &ctx->lay;
    const uint8_t *rx = sci_peer_rx(ctx, peer);
    sci_tp_recv_t *t = p->tp_head;
    uint64_t filled;
    int n = 0;

    if (t == NULL || !p->tp_started)
        return 0;
    filled = load_acq(rx + l->rx_filled);
    while (p->tp_rx_base + t->consumed < filled && t->consumed < t->chunks) {
        uint64_t k = p->tp_rx_base + t->consumed, off = t->consumed * l->p.chunk;
        uint64_t len = t->want - off < l->p.chunk ? t->want - off : l->p.chunk;
        uint64_t grant;
        memcpy((uint8_t *)t->req->buf + off, rx + l->rx_staging + (k % l->p.nchunk) * l->p.chunk,
               len);
        sci_cpu_copy(ctx->dev, len);   /* the timing model's copy, before the grant */
        t->consumed++;
        grant = p->tp_rx_base +
                (t->consumed + l->p.nchunk < t->chunks ? t->consumed + l->p.nchunk : t->chunks);
        if (grant > p->tp_granted) {
            sci_ctl_write(ctx, p->tx_win.addr + l->tx_grant, &grant, sizeof(grant));
            p->tp_granted = grant;
        }
        n++;
    }
    if (t->consumed == t->chunks) {
        sci_write_done(ctx, peer, t->rdv, t->id);
        p->tp_rx_base += t->chunks;
        p->tp_head = t->next;
        if (p->tp_head == NULL)
            p->tp_tail = NULL;
        p->tp_started = 0;
        sci_complete(ctx, t->req);
        free(t);
        tp_serve_next(ctx, peer);
    }
    return n;
}
