/*
 * md_mq.h - MPI matching queues: posted receives and unexpected messages.
 *
 * A small engine any subdevice may use for its matching (the multidevice's
 * own forwarding receiver does).  Posted receives match in posting order;
 * unexpected messages in arrival order; a posted receive whose claim is lost
 * (an ANY_SOURCE duplicate another subdevice delivered) is skipped, so the
 * message matches the next candidate or becomes unexpected (P1 §3.3.4).
 *
 * Not thread-safe: the caller serialises.  A posted request is linked
 * through its sd_priv[0] and sd_priv[1] words while queued.
 */
#ifndef MD_MQ_H
#define MD_MQ_H

#include "md_sdi.h"

typedef struct md_mq_msg {
    md_envelope_t     env;
    struct md_mq_msg *prev, *next;
} md_mq_msg_t;

typedef struct md_mq {
    md_request_t *posted_head, *posted_tail;
    md_mq_msg_t  *unexp_head, *unexp_tail;
    size_t        num_posted, num_unexpected;
} md_mq_t;

void md_mq_init(md_mq_t *q);

/* Posted receives */
void md_mq_post(md_mq_t *q, md_request_t *req);
/* The first posted receive matching env whose claim subdev_index wins; it
 * is unlinked.  NULL: none (the message is unexpected). */
md_request_t *md_mq_take_posted(md_mq_t *q, const md_envelope_t *env,
                                int subdev_index);
/* Unlinks req; MD_OK, or MD_ERR_NOT_FOUND if it is not queued. */
int md_mq_cancel_posted(md_mq_t *q, md_request_t *req);
/* Unlinks every posted receive that names world rank src (not
 * MD_ANY_SOURCE) and whose claim subdev_index wins, and calls fn for it
 * (which may complete it), in posting order. */
void md_mq_fail_posted_from(md_mq_t *q, int32_t src, int subdev_index,
                            void (*fn)(void *arg, md_request_t *req), void *arg);
/* Calls fn for every posted receive, in posting order (fn must not change
 * the queue). */
void md_mq_foreach_posted(const md_mq_t *q, void (*fn)(void *arg, md_request_t *req), void *arg);

/* Unexpected messages (the caller embeds md_mq_msg_t in its own record) */
void md_mq_push_unexpected(md_mq_t *q, md_mq_msg_t *msg);
md_mq_msg_t *md_mq_find_unexpected(const md_mq_t *q, const md_match_t *m);
void md_mq_remove_unexpected(md_mq_t *q, md_mq_msg_t *msg);

/* Fills a probe status from an unexpected message's envelope. */
void md_mq_status_from_env(const md_envelope_t *env, md_recv_status_t *st);

#endif /* MD_MQ_H */
