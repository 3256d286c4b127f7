/*
 * md_mq.h - the matching engine of every subdevice: posted receives and
 * unexpected messages, matched by MPI's rules.
 *
 * Order.  Posted receives are searched in posting order, so an arriving
 * message matches the earliest receive that accepts it (specific and
 * MD_ANY_SOURCE receives share one list and keep their order).  Unexpected
 * messages are searched in the order they were pushed, so a receive or a
 * probe finds the earliest arrival it accepts.  A subdevice pushes a
 * sender's messages in the order that sender sent them (and asks
 * host->arrival_ok() first); non-overtaking follows.
 *
 * Claims: the one rule.  A receive posted on several subdevices (an
 * MD_ANY_SOURCE receive, or a peer reachable over several) shares a claim
 * with its duplicates (md_request_claim(), md_request.h); only the subdevice
 * that wins the claim delivers into it.  Whenever md_mq meets a receive
 * whose claim is lost (matching an arrival, matching the unexpected queue
 * at post time, or removing by predicate), it drops it: the receive is
 * unlinked, never delivered into, nor handed to the caller, and the search
 * goes on, so an arrival is never left unexpected while a receive that may
 * take it remains posted.  A dropped receive belongs to the multidevice,
 * which cancels it: md_mq_cancel_posted() answers MD_OK for it.
 *
 * Storage.  A receive's links and matching state live at the start of its
 * sd_priv (md_mq_req_t, whose links are md_reqlist's): a subdevice's own
 * overlay of sd_priv begins with an md_mq_req_t, and a request is on at
 * most one list at a time (md_reqlist.h).  Unexpected messages are the
 * subdevice's records with an md_mq_msg_t embedded.  Posting, taking,
 * cancelling and removing one message are O(1) beside the search.
 *
 * The fields of md_mq_t and md_mq_req_t are md_mq's: read them only
 * through these functions.  What runs on every message (post, take, claim)
 * is inline, as md_reqlist is: shm's ping-pong pays for each call into
 * libmdkit.  Not thread-safe: the caller serialises.
 */
#ifndef MD_MQ_H
#define MD_MQ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "md_reqlist.h"
#include "md_sdi.h"

/* What md_mq knows of a receive (md_mq_req_t.state). */
enum md_mq_state {
    MD_MQ_IDLE = 0,     /* not md_mq's: never posted, taken, or cancelled */
    MD_MQ_POSTED,       /* on the posted list */
    MD_MQ_DROPPED,      /* its claim was lost: unlinked, never delivered */
};

/* The head of a request's sd_priv: list links and matching state. */
typedef struct md_mq_req {
    md_reqlink_t link;
    uint32_t     state;     /* enum md_mq_state */
    uint32_t     reserved;
} md_mq_req_t;

_Static_assert(sizeof(md_mq_req_t) <= sizeof(((md_request_t *)0)->sd_priv),
               "md_mq's part fits sd_priv");

/* An unexpected message: embedded in the subdevice's own record. */
typedef struct md_mq_msg {
    md_envelope_t     env;
    struct md_mq_msg *prev, *next;
} md_mq_msg_t;

typedef struct md_mq {
    md_reqlist_t posted;
    md_mq_msg_t *unexp_head, *unexp_tail;
    size_t       num_posted, num_unexpected;
} md_mq_t;

/* Predicates and visitors of the walks; arg is the caller's. */
typedef int  (*md_mq_req_pred_t)(void *arg, const md_request_t *req);
typedef void (*md_mq_req_fn_t)(void *arg, md_request_t *req);
typedef int  (*md_mq_msg_pred_t)(void *arg, const md_mq_msg_t *msg);
typedef void (*md_mq_msg_fn_t)(void *arg, md_mq_msg_t *msg);

void md_mq_init(md_mq_t *q);

static inline size_t md_mq_num_posted(const md_mq_t *q) { return q->num_posted; }
static inline size_t md_mq_num_unexpected(const md_mq_t *q) { return q->num_unexpected; }

/* md_mq's part of req (inside md_mq's own functions). */
static inline md_mq_req_t *md_mq_req(md_request_t *req)
{
    return (md_mq_req_t *)(void *)req->sd_priv;
}

/* ---- claims -------------------------------------------------------- */

/* req's claim for the subdevice of index subdev_index (md_request_claim):
 * 1 if won (or req has no claim), req then idle; 0 if lost, req then
 * dropped.  For a subdevice that completes a receive it has not posted
 * (its peer is gone) instead of md_mq_post. */
static inline int md_mq_claim(md_request_t *req, int subdev_index)
{
    int won = md_request_claim(req, subdev_index);

    md_mq_req(req)->state = won ? MD_MQ_IDLE : MD_MQ_DROPPED;
    return won;
}

/* 1 if md_mq dropped req (lost claim) and no cancel has come yet. */
static inline int md_mq_dropped(const md_request_t *req)
{
    uint32_t state;

    memcpy(&state, (const char *)req->sd_priv + offsetof(md_mq_req_t, state), sizeof(state));
    return state == MD_MQ_DROPPED;
}

/* ---- unexpected messages -------------------------------------------- */

void md_mq_push_unexpected(md_mq_t *q, md_mq_msg_t *msg);
/* The earliest unexpected message that m accepts, or NULL; it stays. */
md_mq_msg_t *md_mq_find_unexpected(const md_mq_t *q, const md_match_t *m);
void md_mq_remove_unexpected(md_mq_t *q, md_mq_msg_t *msg);

/* ---- posting a receive ------------------------------------------------ */

/* The first step of an irecv: the earliest unexpected message that req
 * accepts.  Found and req's claim won: the message is unlinked and
 * returned, for the caller to deliver.  Found but the claim lost: req is
 * dropped, NULL.  None: NULL and req idle; the caller then posts it
 * (md_mq_post), after any checks of its own.  md_mq_dropped(req) tells
 * the two NULLs apart. */
static inline md_mq_msg_t *md_mq_take_unexpected(md_mq_t *q, md_request_t *req,
                                                 int subdev_index)
{
    md_mq_msg_t *msg = q->num_unexpected > 0 ? md_mq_find_unexpected(q, &req->match) : NULL;

    md_mq_req(req)->state = MD_MQ_IDLE;
    if (msg == NULL || !md_mq_claim(req, subdev_index))
        return NULL;
    md_mq_remove_unexpected(q, msg);
    return msg;
}

/* Appends req to the posted receives. */
static inline void md_mq_post(md_mq_t *q, md_request_t *req)
{
    md_reqlist_append(&q->posted, req);
    md_mq_req(req)->state = MD_MQ_POSTED;
    q->num_posted++;
}

/* Takes the posted req off the list; whether it is then idle or dropped is
 * its claim's to say (1: won). */
static inline int md_mq_unpost_claim(md_mq_t *q, md_request_t *req, int subdev_index)
{
    md_reqlist_remove(&q->posted, req);
    q->num_posted--;
    return md_mq_claim(req, subdev_index);
}

/* ---- an arrival ----------------------------------------------------- */

/* The earliest posted receive that accepts env and whose claim
 * subdev_index wins: unlinked and returned (idle), for the caller to
 * deliver into.  Matching receives with a lost claim met on the way are
 * dropped.  NULL: none; the caller pushes the message as unexpected. */
static inline md_request_t *md_mq_take_posted(md_mq_t *q, const md_envelope_t *env,
                                              int subdev_index)
{
    md_request_t *req = q->posted.head;

    while (req != NULL) {
        md_request_t *next = md_reqlist_next(req);

        if (md_match_envelope(&req->match, env) && md_mq_unpost_claim(q, req, subdev_index))
            return req;
        /* not this one, or dropped: its claim went to another subdevice */
        req = next;
    }
    return NULL;
}

/* ---- cancel and removal --------------------------------------------- */

/* recv_cancel: MD_OK if req was posted (it is unlinked) or dropped; it
 * will never complete.  MD_ERR_NOT_FOUND: md_mq does not hold it (it
 * matched, so it completes normally).  O(1). */
int md_mq_cancel_posted(md_mq_t *q, md_request_t *req);

/* Unlinks, in posting order, every posted receive for which pred is true
 * (pred NULL: every one).  Those whose claim subdev_index wins are handed
 * over in *out (set by the call; in posting order, linked by md_reqlist),
 * for the caller to finish, typically to fail them; the others are
 * dropped.  Returns how many are in *out. */
size_t md_mq_remove_posted_if(md_mq_t *q, int subdev_index, md_mq_req_pred_t pred, void *arg,
                              md_reqlist_t *out);

/* A predicate for md_mq_remove_posted_if: the receive names the world rank
 * *(const int32_t *)rank as its source (MD_ANY_SOURCE receives never do),
 * so only that rank can satisfy it. */
int md_mq_from_rank(void *rank, const md_request_t *req);

/* A peer is gone: md_mq_remove_posted_if with md_mq_from_rank for world
 * rank peer, or with no predicate if peer < 0 (everyone is gone). */
size_t md_mq_remove_posted_from(md_mq_t *q, int subdev_index, int32_t peer, md_reqlist_t *out);

/* The earliest posted receive for which pred is true, or NULL. */
md_request_t *md_mq_find_posted_if(const md_mq_t *q, md_mq_req_pred_t pred, void *arg);

/* Calls fn for every posted receive, in posting order; fn must not change
 * the queue. */
void md_mq_foreach_posted(const md_mq_t *q, md_mq_req_fn_t fn, void *arg);

/* ---- removing unexpected messages ----------------------------------- */

/* Unlinks every unexpected message for which pred is true (pred NULL:
 * every one) and then calls fn for each (which frees it, typically), in
 * arrival order.  Returns how many. */
size_t md_mq_remove_unexpected_if(md_mq_t *q, md_mq_msg_pred_t pred, void *arg,
                                  md_mq_msg_fn_t fn, void *fn_arg);
/* A visitor for md_mq_remove_unexpected_if: free(msg), for records
 * allocated with malloc whose first member is their md_mq_msg_t. */
void md_mq_free_msg(void *unused, md_mq_msg_t *msg);

/* ---- probes ----------------------------------------------------------- */

/* Fills a probe status from an unexpected message's envelope. */
void md_mq_status_from_env(const md_envelope_t *env, md_recv_status_t *st);

/* iprobe and improbe: the earliest unexpected message that m accepts (it
 * stays queued); *flag says whether there is one, and if so and st is not
 * NULL, *st is its status as the subdevice of index subdev_index reports
 * it.  Returns the message or NULL. */
md_mq_msg_t *md_mq_probe(const md_mq_t *q, const md_match_t *m, int subdev_index, int *flag,
                         md_recv_status_t *st);
/* The same, but the message found is unlinked (a matched probe takes it:
 * the caller binds it to the MD_REQ_MPROBE request for imrecv). */
md_mq_msg_t *md_mq_improbe(md_mq_t *q, const md_match_t *m, int subdev_index, int *flag,
                           md_recv_status_t *st);

#endif /* MD_MQ_H */
