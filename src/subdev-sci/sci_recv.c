/* sci_recv.c - receives, cancel, probe, matched probe.  Matching uses
 * md_mq: posted receives in posting order, unexpected messages in arrival
 * order; a receive whose claim another subdevice won is dropped, for the
 * multidevice to cancel. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_recv.h"
#include "sci_impl.h"

static void take_unexpected(sci_ctx_t *ctx, md_request_t *req, sci_msg_t *m)
{
    sci_deliver(ctx, req, m->src, &m->mq.env, m->proto, m->rdv, m->id, m->data);
    free(m);
}

/* The error a receive fails with when only a sender that is gone, with
 * nothing of it left to take, could match it; else 0. */
static int sender_failed(const sci_ctx_t *ctx, const md_request_t *req)
{
    int32_t src = md_recv_sender(req, ctx->base.world_size);

    return src < 0 || !ctx->peers[src].drained ? 0 : ctx->peers[src].failed;
}

int sci_irecv(md_subdev_t *sd, md_request_t *req)
{
    sci_ctx_t *ctx = sd->priv;
    md_mq_msg_t *mm;

    if (ctx->dead)
        return ctx->dead;
    memset(sci_rp(req), 0, sizeof(sci_rpriv_t));
    sci_progress_inner(ctx);   /* see what has arrived first */
    switch (md_recv_start(&ctx->base.mq, req, sd->index, sender_failed(ctx, req), &mm)) {
    case MD_RECV_FROM_UNEXPECTED:
        take_unexpected(ctx, req, (sci_msg_t *)mm);
        break;
    case MD_RECV_SENDER_GONE:
        sci_complete(ctx, req);    /* failed: nothing can match it any more */
        break;
    default:                       /* posted, or another subdevice has it */
        break;
    }
    sci_flush_done(ctx);
    return MD_OK;
}

int sci_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    return md_mq_cancel_posted(&((sci_ctx_t *)sd->priv)->base.mq, req);
}

int sci_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag, md_recv_status_t *st)
{
    sci_ctx_t *ctx = sd->priv;

    if (ctx->dead)
        return ctx->dead;
    sci_progress_inner(ctx);
    md_mq_probe(&ctx->base.mq, match, sd->index, flag, st);
    sci_flush_done(ctx);
    return MD_OK;
}

int sci_improbe(md_subdev_t *sd, const md_match_t *match, int *flag, md_request_t *msg)
{
    sci_ctx_t *ctx = sd->priv;
    md_mq_msg_t *mm;
    sci_msg_t *m;

    if (ctx->dead)
        return ctx->dead;
    sci_progress_inner(ctx);
    mm = md_mq_improbe(&ctx->base.mq, match, sd->index, flag, &msg->status);
    if (mm != NULL) {
        m = (sci_msg_t *)mm;
        memset(sci_rp(msg), 0, sizeof(sci_rpriv_t));
        sci_rp(msg)->bound = m;
        if (m->rdv != 0 && m->proto != SCI_P_TRANSPORT) {
            /* the matched probe is the match: a synchronous sender may go */
            sci_write_done(ctx, m->src, m->rdv, m->id);
            m->rdv = 0;
        }
    }
    sci_flush_done(ctx);
    return MD_OK;
}

int sci_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req)
{
    sci_ctx_t *ctx = sd->priv;
    sci_msg_t *m = sci_rp(msg)->bound;

    if (m == NULL)
        return MD_ERR_INVALID;
    sci_rp(msg)->bound = NULL;
    memset(sci_rp(req), 0, sizeof(sci_rpriv_t));
    take_unexpected(ctx, req, m);
    sci_flush_done(ctx);
    return MD_OK;
}
