/* sci_recv.c - receives, cancel, probe, matched probe.  Matching uses
 * md_mq: posted receives in posting order, unexpected messages in arrival
 * order; a receive whose claim another subdevice won is left for the
 * multidevice to cancel. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sci_impl.h"

static void take_unexpected(sci_ctx_t *ctx, md_request_t *req, sci_msg_t *m)
{
    sci_deliver(ctx, req, m->src, &m->mq.env, m->proto, m->rdv, m->id, m->data);
    free(m);
}

/* A receive that only a gone peer, with nothing of it left, could match. */
static int from_drained_peer(const sci_ctx_t *ctx, const md_request_t *req)
{
    return req->match.src_rank != MD_ANY_SOURCE && req->peer_world >= 0 &&
           req->peer_world < ctx->world_size && ctx->peers[req->peer_world].drained;
}

int sci_irecv(md_subdev_t *sd, md_request_t *req)
{
    sci_ctx_t *ctx = sd->priv;
    md_mq_msg_t *mm;

    if (ctx->dead)
        return ctx->dead;
    memset(sci_rp(req), 0, sizeof(sci_rpriv_t));
    sci_progress_inner(ctx);   /* see what has arrived first */
    mm = md_mq_find_unexpected(&ctx->mq, &req->match);
    if (mm != NULL) {
        if (!md_request_claim(req, sd->index)) {
            sci_rp(req)->state = SCI_RS_DROPPED;   /* another subdevice has it */
        } else {
            md_mq_remove_unexpected(&ctx->mq, mm);
            take_unexpected(ctx, req, (sci_msg_t *)mm);
        }
    } else if (from_drained_peer(ctx, req)) {
        /* nothing can match it any more */
        if (md_request_claim(req, sd->index))
            sci_fail_req(ctx, req, ctx->peers[req->peer_world].failed);
        else
            sci_rp(req)->state = SCI_RS_DROPPED;
    } else {
        sci_rp(req)->state = SCI_RS_POSTED;
        md_mq_post(&ctx->mq, req);
    }
    sci_flush_done(ctx);
    return MD_OK;
}

int sci_recv_cancel(md_subdev_t *sd, md_request_t *req)
{
    sci_ctx_t *ctx = sd->priv;
    sci_rpriv_t *rp = sci_rp(req);

    if (rp->state == SCI_RS_POSTED && md_mq_cancel_posted(&ctx->mq, req) == MD_OK) {
        rp->state = SCI_RS_FREE;
        return MD_OK;
    }
    if (rp->state == SCI_RS_DROPPED) {
        rp->state = SCI_RS_FREE;
        return MD_OK;
    }
    return MD_ERR_NOT_FOUND;
}

int sci_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag, md_recv_status_t *st)
{
    sci_ctx_t *ctx = sd->priv;
    md_mq_msg_t *mm;

    if (ctx->dead)
        return ctx->dead;
    sci_progress_inner(ctx);
    mm = md_mq_find_unexpected(&ctx->mq, match);
    *flag = mm != NULL;
    if (mm != NULL && st != NULL) {
        md_mq_status_from_env(&mm->env, st);
        st->subdev = sd->index;
    }
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
    mm = md_mq_find_unexpected(&ctx->mq, match);
    *flag = mm != NULL;
    if (mm != NULL) {
        m = (sci_msg_t *)mm;
        md_mq_remove_unexpected(&ctx->mq, mm);
        md_mq_status_from_env(&m->mq.env, &msg->status);
        msg->status.subdev = sd->index;
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
