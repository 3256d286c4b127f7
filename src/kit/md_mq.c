/* md_mq.c - posted and unexpected queues with MPI matching rules. */
#include "config.h"

#include <string.h>

#include "md_mq.h"

/* A queued request's links live in its first two sd_priv words; memcpy
 * keeps the type punning defined (it compiles to plain moves). */
static inline md_request_t *md_mq_link(const md_request_t *r, int which)
{
    md_request_t *p;
    memcpy(&p, &r->sd_priv[which], sizeof(p));
    return p;
}

static inline void md_mq_set_link(md_request_t *r, int which, md_request_t *p)
{
    memcpy(&r->sd_priv[which], &p, sizeof(p));
}

#define MD_MQ_NEXT 0
#define MD_MQ_PREV 1

void md_mq_init(md_mq_t *q)
{
    memset(q, 0, sizeof(*q));
}

void md_mq_post(md_mq_t *q, md_request_t *req)
{
    md_mq_set_link(req, MD_MQ_NEXT, NULL);
    md_mq_set_link(req, MD_MQ_PREV, q->posted_tail);
    if (q->posted_tail != NULL)
        md_mq_set_link(q->posted_tail, MD_MQ_NEXT, req);
    else
        q->posted_head = req;
    q->posted_tail = req;
    q->num_posted++;
}

static void md_mq_unlink_posted(md_mq_t *q, md_request_t *req)
{
    md_request_t *prev = md_mq_link(req, MD_MQ_PREV), *next = md_mq_link(req, MD_MQ_NEXT);

    if (prev != NULL)
        md_mq_set_link(prev, MD_MQ_NEXT, next);
    else
        q->posted_head = next;
    if (next != NULL)
        md_mq_set_link(next, MD_MQ_PREV, prev);
    else
        q->posted_tail = prev;
    q->num_posted--;
}

md_request_t *md_mq_take_posted(md_mq_t *q, const md_envelope_t *env,
                                int subdev_index)
{
    for (md_request_t *req = q->posted_head; req != NULL; req = md_mq_link(req, MD_MQ_NEXT)) {
        if (!md_match_envelope(&req->match, env))
            continue;
        if (!md_request_claim(req, subdev_index))
            continue;   /* another subdevice owns this receive */
        md_mq_unlink_posted(q, req);
        return req;
    }
    return NULL;
}

int md_mq_cancel_posted(md_mq_t *q, md_request_t *req)
{
    for (md_request_t *r = q->posted_head; r != NULL; r = md_mq_link(r, MD_MQ_NEXT)) {
        if (r == req) {
            md_mq_unlink_posted(q, req);
            return MD_OK;
        }
    }
    return MD_ERR_NOT_FOUND;
}

void md_mq_foreach_posted(const md_mq_t *q, void (*fn)(void *arg, md_request_t *req), void *arg)
{
    for (md_request_t *r = q->posted_head; r != NULL; r = md_mq_link(r, MD_MQ_NEXT))
        fn(arg, r);
}

void md_mq_push_unexpected(md_mq_t *q, md_mq_msg_t *msg)
{
    msg->next = NULL;
    msg->prev = q->unexp_tail;
    if (q->unexp_tail != NULL)
        q->unexp_tail->next = msg;
    else
        q->unexp_head = msg;
    q->unexp_tail = msg;
    q->num_unexpected++;
}

md_mq_msg_t *md_mq_find_unexpected(const md_mq_t *q, const md_match_t *m)
{
    for (md_mq_msg_t *msg = q->unexp_head; msg != NULL; msg = msg->next)
        if (md_match_envelope(m, &msg->env))
            return msg;
    return NULL;
}

void md_mq_remove_unexpected(md_mq_t *q, md_mq_msg_t *msg)
{
    if (msg->prev != NULL)
        msg->prev->next = msg->next;
    else
        q->unexp_head = msg->next;
    if (msg->next != NULL)
        msg->next->prev = msg->prev;
    else
        q->unexp_tail = msg->prev;
    q->num_unexpected--;
}

void md_mq_status_from_env(const md_envelope_t *env, md_recv_status_t *st)
{
    memset(st, 0, sizeof(*st));
    st->src_rank = env->src_rank;
    st->src_world = env->src_world;
    st->tag = env->tag;
    st->size = env->size;
    st->msg_size = env->size;
    st->flags = env->flags;
    st->seq = env->seq;
}

void md_mq_fail_posted_from(md_mq_t *q, int32_t src, int subdev_index,
                            void (*fn)(void *arg, md_request_t *req), void *arg)
{
    md_request_t *req = q->posted_head;

    while (req != NULL) {
        md_request_t *next = md_mq_link(req, MD_MQ_NEXT);
        if (req->match.src_rank != MD_ANY_SOURCE && req->peer_world == src &&
            md_request_claim(req, subdev_index)) {
            md_mq_unlink_posted(q, req);
            fn(arg, req);
        }
        req = next;
    }
}
