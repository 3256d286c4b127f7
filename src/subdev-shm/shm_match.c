/*
 * shm_match.c - the posted-receive and unexpected-message queues.
 *
 * Both are FIFOs searched from the head, which gives MPI's rules: a message
 * matches the earliest posted receive that accepts it (ANY_SOURCE and
 * specific receives in one list keep their posting order), and a receive
 * takes the earliest arrived message it accepts.  Per-sender arrival order
 * is the order in which shm_progress feeds messages in (it drains each
 * ring in order and asks host->arrival_ok first).
 */
#include "config.h"

#include "shm_impl.h"

md_request_t *shm_match_posted(shm_ctx_t *ctx, const md_envelope_t *env)
{
    md_request_t *req = ctx->posted.head;

    while (req != NULL) {
        md_request_t *next = shm_rp(req)->next;

        if (md_match_envelope(&req->match, env)) {
            shm_reqlist_remove(&ctx->posted, req);
            if (md_request_claim(req, ctx->sd->index))
                return req;
            /* Another subdevice delivers this receive; it will never
             * complete here (recv_cancel answers MD_OK for it). */
            shm_rp(req)->state = SHM_RS_RECV_DROPPED;
            ctx->outstanding--;
        }
        req = next;
    }
    return NULL;
}

shm_unexp_t *shm_match_unexp(shm_ctx_t *ctx, const md_match_t *match)
{
    for (shm_unexp_t *e = ctx->unexp.head; e != NULL; e = e->next)
        if (md_match_envelope(match, &e->env))
            return e;
    return NULL;
}

void shm_unexp_append(shm_unexp_queue_t *q, shm_unexp_t *e)
{
    e->next = NULL;
    e->prev = q->tail;
    if (q->tail != NULL)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
}

void shm_unexp_remove(shm_unexp_queue_t *q, shm_unexp_t *e)
{
    if (e->prev != NULL)
        e->prev->next = e->next;
    else
        q->head = e->next;
    if (e->next != NULL)
        e->next->prev = e->prev;
    else
        q->tail = e->prev;
    e->next = e->prev = NULL;
}
