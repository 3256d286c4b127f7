/* sci_liveness.c - is a peer still there?  Remote stores are posted
 * writes: nothing answers them, so a rank whose peer died (or whose peer's
 * bridge died) would wait for its flags forever.  While requests wait on a
 * peer, every MULTIDEV_SCI_PEER_CHECK_MS this rank reads one word of the
 * peer's exported memory (a remote PIO read, the only one the subdevice
 * ever makes, and only under suspicion): a read that fails (the segment is
 * gone: the process exited; or the bridge stopped, which it says as it
 * does) or gets no answer (the bridge died, after MULTIDEV_SCI_TIMEOUT_MS)
 * fails everything waiting on that peer with
 * MD_ERR_PEER_FAILED, except what it had already stored into our memory:
 * that is still received (sci_peer_gone). */
#include "config.h"

#include "sci_impl.h"

#define SCI_PROBE_COOKIE 0x5052000000000000ull   /* "PR" | peer */

/* Requests of the user wait on peer (slots alone do not count: they are
 * freed by flags a finished peer no longer needs to write). */
static int waits_on(sci_ctx_t *ctx, int32_t peer)
{
    sci_peer_t *p = &ctx->peers[peer];

    if (!md_reqlist_empty(&p->sendq) || p->rdv_used > 0 || p->tp_head != NULL)
        return 1;
    return md_mq_find_posted_if(&ctx->base.mq, md_mq_from_rank, &peer) != NULL;
}

int sci_liveness_check(sci_ctx_t *ctx)
{
    const sci_layout_t *l = &ctx->lay;
    int n = 0;

    if (ctx->check_ms == 0 || !md_liveness_due(&ctx->last_check_ms, (unsigned)ctx->check_ms))
        return 0;
    for (int32_t i = 0; i < ctx->nserved; i++) {
        int32_t q = ctx->served[i];
        sci_peer_t *p = &ctx->peers[q];
        if (p->activity != p->activity_seen || !waits_on(ctx, q)) {
            p->activity_seen = p->activity;
            p->suspect = 0;
            continue;
        }
        if (p->failed || p->probe_out || ++p->suspect < 2)
            continue;
        /* one word of its rx block for us, into our unused first page */
        if (sci_post(ctx->dev, SCI_OP_PIO_READ, p->rx_win.addr + l->rx_used,
                     ctx->seg.offset + (uint64_t)(q % 512) * 8, 8, 0,
                     SCI_PROBE_COOKIE | (uint32_t)q) == NIC_OK) {
            p->probe_out = 1;
            n++;
        }
    }
    return n;
}

void sci_node_gone(sci_ctx_t *ctx, const sci_cqe_t *c)
{
    for (int32_t i = 0; i < ctx->nserved; i++) {
        int32_t q = ctx->served[i];
        if (ctx->peers[q].node != c->from || ctx->peers[q].failed)
            continue;
        SCI_LOG(ctx, c->status == NIC_ERR_NOT_FOUND ? 2 : 0, "rank %d's bridge %s", q,
                c->status == NIC_ERR_NOT_FOUND ? "stopped" : "answers nothing: it or the link "
                "to it is gone");
        sci_peer_gone(ctx, q);
    }
}

int sci_liveness_answer(sci_ctx_t *ctx, const sci_cqe_t *c)
{
    int32_t q = (int32_t)(c->cookie & 0xffffffffu);

    if ((c->cookie & ~0xffffffffull) != SCI_PROBE_COOKIE || q < 0 || q >= ctx->base.world_size)
        return 0;
    ctx->peers[q].probe_out = 0;
    if (c->status != NIC_OK) {
        SCI_LOG(ctx, MD_LOG_ERROR, "rank %d does not answer (%s): its process or its node's bridge "
                "is gone", q, c->status == NIC_ERR_PEER_FAILED ? "no bridge answers"
                              : c->status == NIC_ERR_NOT_FOUND ? "its bridge stopped"
                                                               : "its segment is gone");
        sci_peer_gone(ctx, q);
    }
    return 1;
}
