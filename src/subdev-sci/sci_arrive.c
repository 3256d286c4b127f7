/* sci_arrive.c - arrivals: the receiver polls, for each sender, the used
 * flag of the next message id (messages of one sender are taken in the
 * order it sent them), reads the message info struct locally, and takes
 * the message: a system message goes to the host, a user message is
 * matched against the posted receives, or copied into the unexpected queue,
 * or, when host->arrival_ok() says an earlier message of that sender is
 * still on another subdevice, held back in order.  In every case the data
 * leaves the slot and the ring before the ready flag frees them. */
#include "config.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "md_recv.h"
#include "sci_impl.h"

#define SCI_ARRIVAL_BUDGET 32   /* messages taken from one sender per call */

static uint64_t load_acq(const uint8_t *p)
{
    return atomic_load_explicit((const _Atomic uint64_t *)(const void *)p, memory_order_acquire);
}

static sci_msg_t *msg_copy(int32_t src, const md_envelope_t *env, uint32_t proto, uint32_t rdv,
                           uint64_t id, const void *data)
{
    uint64_t len = proto == SCI_P_TRANSPORT ? 0 : env->size;
    const sci_msg_t head = { .mq.env = *env, .src = src, .proto = proto, .rdv = rdv, .id = id,
                             .len = len };

    return md_recv_msg_new(&head, sizeof(head), offsetof(sci_msg_t, data), data, len);
}

void sci_deliver(sci_ctx_t *ctx, md_request_t *req, int32_t src, const md_envelope_t *env,
                 uint32_t proto, uint32_t rdv, uint64_t id, const void *data)
{
    uint64_t n = env->size < req->len ? env->size : req->len;

    md_recv_status_set(req, env, n, ctx->base.sd->index);
    if (proto == SCI_P_TRANSPORT) {
        if (ctx->peers[src].failed)
            sci_fail_req(ctx, req, ctx->peers[src].failed);   /* its data never came */
        else
            sci_tp_recv_start(ctx, src, req, id, rdv, n);
        return;
    }
    if (n) {
        memcpy(req->buf, data, n);
        sci_cpu_copy(ctx->dev, n);   /* the timing model's copy out of the ring */
    }
    if (rdv != 0)
        sci_write_done(ctx, src, rdv, id);   /* a synchronous sender may go */
    sci_complete(ctx, req);
}

/* A user message that may be matched now; owned: its copy, if it was held. */
static void accept(sci_ctx_t *ctx, int32_t src, const md_envelope_t *env, uint32_t proto,
                   uint32_t rdv, uint64_t id, const void *data, sci_msg_t *owned)
{
    /* env may live in owned, which delivery frees: md_arrival_match tells
     * the host first */
    md_request_t *req = md_arrival_match(&ctx->base.mq, ctx->base.sd, env);

    if (req != NULL) {
        sci_deliver(ctx, req, src, env, proto, rdv, id, data);
        free(owned);
    } else {
        sci_msg_t *m = owned ? owned : msg_copy(src, env, proto, rdv, id, data);
        if (m == NULL) {
            SCI_LOG(ctx, MD_LOG_ERROR, "out of memory queueing a message from rank %d", src);
            sci_fail_peer(ctx, src, MD_ERR_NO_MEMORY);
            return;
        }
        md_arrival_keep_unexpected(&ctx->base.mq, ctx->base.sd, &m->mq);
    }
}

/* A system message larger than the eager limit: received into our own
 * buffer, handed to the host when complete (sci_flush_done). */
static void sysmsg_transport(sci_ctx_t *ctx, int32_t src, const md_envelope_t *env,
                             uint32_t rdv, uint64_t id)
{
    md_request_t *req;

    if (ctx->peers[src].failed) {
        SCI_LOG(ctx, MD_LOG_WARN,
                "a %llu-byte system message from rank %d is lost: the rank is gone",
                (unsigned long long)env->size, src);
        return;
    }
    if ((req = md_sysmsg_recv_new(env, src)) == NULL) {
        SCI_LOG(ctx, MD_LOG_ERROR, "no memory for a %llu-byte system message from rank %d",
                (unsigned long long)env->size, src);
        sci_fail_peer(ctx, src, MD_ERR_NO_MEMORY);
        return;
    }
    sci_rp(req)->flags = SCI_RF_SYSMSG;
    sci_deliver(ctx, req, src, env, SCI_P_TRANSPORT, rdv, id, NULL);
}

static void arrival(sci_ctx_t *ctx, int32_t src, const md_envelope_t *env, uint32_t proto,
                    uint32_t rdv, uint64_t id, const void *data)
{
    sci_peer_t *p = &ctx->peers[src];
    sci_msg_t *m;

    switch (md_arrival_route(&p->held, ctx->base.sd, env)) {
    case MD_ARRIVAL_SYSMSG:
        if (proto == SCI_P_TRANSPORT)
            sysmsg_transport(ctx, src, env, rdv, id);
        else
            md_arrival_sysmsg(ctx->base.sd, env, data);
        return;
    case MD_ARRIVAL_MATCH:
        accept(ctx, src, env, proto, rdv, id, data, NULL);
        return;
    case MD_ARRIVAL_HOLD:
        break;
    }
    m = msg_copy(src, env, proto, rdv, id, data);
    if (m == NULL) {
        SCI_LOG(ctx, MD_LOG_ERROR, "out of memory holding a message from rank %d", src);
        sci_fail_peer(ctx, src, MD_ERR_NO_MEMORY);
        return;
    }
    md_held_push(&p->held, &m->held, m, &m->mq.env);
}

/* A held message whose turn has come. */
static void held_accept(void *arg, void *msg)
{
    sci_msg_t *m = msg;
    accept(arg, m->src, &m->mq.env, m->proto, m->rdv, m->id, m->data, m);
}

int sci_held_retry(sci_ctx_t *ctx, int32_t peer)
{
    return md_held_release(&ctx->peers[peer].held, ctx->base.sd, held_accept, ctx);
}

/* Is what the info struct says possible?  (A broken sender must not make
 * us read outside its block.) */
static int info_sane(const sci_ctx_t *ctx, const sci_msg_info_t *in, uint64_t id)
{
    const sci_params_t *pp = &ctx->lay.p;

    if (in->id != id || in->rdv > pp->nrdv)
        return 0;
    switch (in->proto) {
    case SCI_P_INLINE:
        return in->size <= pp->inline_max;
    case SCI_P_EAGER:
        return in->size <= pp->ring_size && in->ring_off <= pp->ring_size - in->size;
    case SCI_P_TRANSPORT:
        return in->rdv != 0;
    default:
        return 0;
    }
}

int sci_arrivals(sci_ctx_t *ctx, int32_t peer)
{
    sci_peer_t *p = &ctx->peers[peer];
    const sci_layout_t *l = &ctx->lay;
    const uint8_t *rx = sci_peer_rx(ctx, peer);
    int n = 0;

    while (n < SCI_ARRIVAL_BUDGET && !p->drained) {
        uint64_t id = p->rx_next;
        uint32_t slot = (uint32_t)((id - 1) % l->p.nmsg);
        const uint8_t *info_at = rx + l->rx_info + slot * l->info_size;
        sci_msg_info_t in;
        md_envelope_t env;
        const void *data;

        if (load_acq(rx + l->rx_used + slot * 8u) != id)
            break;
        memcpy(&in, info_at, sizeof(in));
        if (!info_sane(ctx, &in, id)) {
            SCI_LOG(ctx, MD_LOG_ERROR, "message %llu from rank %d is malformed (protocol %u, %llu "
                    "bytes)", (unsigned long long)id, peer, in.proto, (unsigned long long)in.size);
            sci_fail_peer(ctx, peer, MD_ERR_IO);
            break;
        }
        sci_env_from_info(&in, &env);
        data = in.proto == SCI_P_INLINE ? info_at + SCI_INFO_HDR
             : in.proto == SCI_P_EAGER  ? rx + l->rx_ring + in.ring_off : NULL;
        p->rx_next++;
        arrival(ctx, peer, &env, in.proto, in.rdv, id, data);
        /* the slot and its ring bytes are free again (for a sender still there) */
        if (!p->failed)
            sci_ctl_write(ctx, p->tx_win.addr + l->tx_ready + slot * 8u, &id, sizeof(id));
        n++;
    }
    return n;
}
