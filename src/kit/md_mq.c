/* md_mq.c - posted and unexpected queues with MPI matching rules, and the
 * one rule for a receive whose claim is lost (md_mq.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_complete.h"
#include "md_mq.h"

void md_mq_init(md_mq_t *q)
{
    memset(q, 0, sizeof(*q));
    md_reqlist_init(&q->posted);
}

int md_mq_cancel_posted(md_mq_t *q, md_request_t *req)
{
    md_mq_req_t *r = md_mq_req(req);

    switch (r->state) {
    case MD_MQ_POSTED:
        md_reqlist_remove(&q->posted, req);
        q->num_posted--;
        r->state = MD_MQ_IDLE;
        return MD_OK;
    case MD_MQ_DROPPED:
        r->state = MD_MQ_IDLE;
        return MD_OK;
    default:
        return MD_ERR_NOT_FOUND;
    }
}

size_t md_mq_remove_posted_if(md_mq_t *q, int subdev_index, md_mq_req_pred_t pred, void *arg,
                              md_reqlist_t *out)
{
    md_request_t *req = q->posted.head;
    size_t n = 0;

    md_reqlist_init(out);
    while (req != NULL) {
        md_request_t *next = md_reqlist_next(req);

        if ((pred == NULL || pred(arg, req)) && md_mq_unpost_claim(q, req, subdev_index)) {
            md_reqlist_append(out, req);
            n++;
        }
        req = next;
    }
    return n;
}

int md_mq_from_rank(void *rank, const md_request_t *req)
{
    return req->match.src_rank != MD_ANY_SOURCE && req->peer_world == *(const int32_t *)rank;
}

size_t md_mq_remove_posted_from(md_mq_t *q, int subdev_index, int32_t peer, md_reqlist_t *out)
{
    return md_mq_remove_posted_if(q, subdev_index, peer < 0 ? NULL : md_mq_from_rank, &peer, out);
}

md_request_t *md_mq_find_posted_if(const md_mq_t *q, md_mq_req_pred_t pred, void *arg)
{
    for (md_request_t *req = q->posted.head; req != NULL; req = md_reqlist_next(req))
        if (pred(arg, req))
            return req;
    return NULL;
}

void md_mq_foreach_posted(const md_mq_t *q, md_mq_req_fn_t fn, void *arg)
{
    for (md_request_t *req = q->posted.head; req != NULL; req = md_reqlist_next(req))
        fn(arg, req);
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
    msg->next = msg->prev = NULL;
    q->num_unexpected--;
}

size_t md_mq_remove_unexpected_if(md_mq_t *q, md_mq_msg_pred_t pred, void *arg,
                                  md_mq_msg_fn_t fn, void *fn_arg)
{
    md_mq_msg_t *msg = q->unexp_head, *taken = NULL, **tail = &taken;
    size_t n = 0;

    while (msg != NULL) {
        md_mq_msg_t *next = msg->next;

        if (pred == NULL || pred(arg, msg)) {
            md_mq_remove_unexpected(q, msg);
            *tail = msg;            /* a private chain through next */
            tail = &msg->next;
        }
        msg = next;
    }
    while (taken != NULL) {
        md_mq_msg_t *next = taken->next;

        taken->next = NULL;
        fn(fn_arg, taken);      /* may free it */
        taken = next;
        n++;
    }
    return n;
}

void md_mq_free_msg(void *unused, md_mq_msg_t *msg)
{
    (void)unused;
    free(msg);
}

void md_mq_status_from_env(const md_envelope_t *env, md_recv_status_t *st)
{
    memset(st, 0, sizeof(*st));
    md_recv_status_fill(st, env, env->size, 0);
}

md_mq_msg_t *md_mq_probe(const md_mq_t *q, const md_match_t *m, int subdev_index, int *flag,
                         md_recv_status_t *st)
{
    md_mq_msg_t *msg = md_mq_find_unexpected(q, m);

    *flag = msg != NULL;
    if (msg != NULL && st != NULL) {
        md_mq_status_from_env(&msg->env, st);
        st->subdev = subdev_index;
    }
    return msg;
}

md_mq_msg_t *md_mq_improbe(md_mq_t *q, const md_match_t *m, int subdev_index, int *flag,
                           md_recv_status_t *st)
{
    md_mq_msg_t *msg = md_mq_probe(q, m, subdev_index, flag, st);

    if (msg != NULL)
        md_mq_remove_unexpected(q, msg);
    return msg;
}
