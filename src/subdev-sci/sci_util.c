/* sci_util.c - request queues and envelopes. */
#include "config.h"

#include "sci_impl.h"

void sci_reqq_push(sci_reqq_t *q, md_request_t *r)
{
    sci_rp(r)->next = NULL;
    if (q->tail != NULL)
        sci_rp(q->tail)->next = r;
    else
        q->head = r;
    q->tail = r;
}

md_request_t *sci_reqq_pop(sci_reqq_t *q)
{
    md_request_t *r = q->head;
    if (r != NULL) {
        q->head = sci_rp(r)->next;
        if (q->head == NULL)
            q->tail = NULL;
        sci_rp(r)->next = NULL;
    }
    return r;
}

void sci_env_from_info(const sci_msg_info_t *in, md_envelope_t *env)
{
    env->src_rank = in->src_rank;
    env->src_world = in->src_world;
    env->dst_world = in->dst_world;
    env->tag = in->tag;
    env->context_id = in->context_id;
    env->flags = in->env_flags;
    env->seq = in->seq;
    env->size = in->size;
}
