/*
 * md_p2p.c - point-to-point dispatch (P1 §3.3): the connection table picks
 * the subdevice of a send by destination and size; a receive goes to the
 * subdevices its sender's messages can arrive on, duplicated through the
 * AnyQueue when there are several.
 */
#include "config.h"

#include <string.h>

#include "md_core.h"
#include "md_fail.h"
#include "md_log.h"
#include "md_fwd.h"
#include "md_thread.h"

static inline int md_mask_single(uint32_t mask)
{
    return mask != 0 && (mask & (mask - 1)) == 0;
}

static inline uint32_t md_recv_mask(const md_t *md, int32_t src_world,
                                    const md_comm_t *comm)
{
    if (src_world >= 0)
        return md_conntab_arrive_mask(md, src_world);
    return comm != NULL ? comm->subdev_mask : md->all_mask;
}

void md_request_reset(md_request_t *req, uint8_t kind)
{
    req->kind = kind;
    req->internal = 0;
    req->md_flags = 0;
    req->claim = NULL;
    req->orig = NULL;
    req->next_dup = NULL;
    memset(&req->status, 0, sizeof(req->status));
    atomic_store_explicit(&req->complete, 0, memory_order_relaxed);
}

int md_send_start(md_t *md, md_request_t *req)
{
    md_subdev_t *sd = md_sd(md, req->subdev);
    int rc;

    if (req->subdev >= md->devs_initialised) {
        md_log_debug("send to rank %d over %s refused: the subdevice is finalized",
                     req->env.dst_world, sd->name);
        return MD_ERR_NOT_FOUND;
    }
    if (md->pending.head != NULL) {     /* keep posting order */
        md_pending_push(&md->pending, req);
        return MD_OK;
    }
    rc = sd->ops->isend(sd, req);
    if (rc == MD_ERR_NO_RESOURCE) {
        md_pending_push(&md->pending, req);
        return MD_OK;
    }
    if (rc != MD_OK)
        md_log_error("send of %zu bytes to rank %d over %s failed: %s",
                     req->len, req->env.dst_world, sd->name,
                     md_status_string(rc));
    return rc;
}

static const md_route_class_t *md_send_route(md_t *md, md_request_t *req,
                                             int32_t dst_world, size_t len)
{
    const md_route_class_t *c;

    if (dst_world < 0 || dst_world >= md->size) {
        md_log_error("send to rank %d: there are ranks 0..%d", dst_world,
                     md->size - 1);
        return NULL;
    }
    c = md_conntab_lookup(md, dst_world, len);  /* md_init checked peers */
    if (c != NULL) {
        req->subdev = c->subdev;
        req->peer_world = c->next_hop_node < 0
                              ? dst_world : md->node_relay_rank[c->next_hop_node];
    }
    return c;
}

/* Starts a send whose envelope is set: directly, or through an
 * intermediate node when the route says so. */
static int md_send_routed(md_t *md, md_request_t *req,
                          const md_route_class_t *c)
{
    if (c->next_hop_node >= 0)
        return md_fwd_isend(md, req, c);
    return md_send_start(md, req);
}

/* The envelope of a user message to dst_world, the next of that sequence. */
static md_envelope_t md_user_envelope(const md_t *md, size_t len, int32_t dst_world,
                                      int32_t src_rank, int32_t tag, uint32_t context_id,
                                      uint32_t flags)
{
    return (md_envelope_t){
        .src_rank = src_rank, .src_world = md->rank, .dst_world = dst_world,
        .tag = tag, .context_id = context_id, .flags = flags,
        .seq = md->send_seq[dst_world], .size = len,
    };
}

static int md_isend_locked(md_t *md, md_request_t *req, const void *buf, size_t len,
             int32_t dst_world, int32_t src_rank, int32_t tag,
             uint32_t context_id, uint32_t flags)
{
    const md_route_class_t *c;
    int rc;

    if (tag < 0) {
        md_log_error("send with tag %d: negative tags are reserved for system "
                     "messages", tag);
        return MD_ERR_INVALID;
    }
    md_request_reset(req, MD_REQ_SEND);
    c = md_send_route(md, req, dst_world, len);
    if (c == NULL)
        return MD_ERR_INVALID;
    if ((rc = md_rank_failed(md, dst_world)) != MD_OK)
        return rc;       /* it cannot be reached any more (md_fail.c) */
    req->buf = (void *)buf;
    req->len = len;
    req->env = md_user_envelope(md, len, dst_world, src_rank, tag, context_id, flags);
    if (md_fwd_stripe_wanted(md, dst_world, len))
        rc = md_fwd_stripe_isend(md, req);
    else
        rc = md_send_routed(md, req, c);
    if (rc == MD_OK)
        md->send_seq[dst_world]++;
    return rc;
}

/* md_inject under the lock: only a user message that is not synchronous,
 * on a direct route whose subdevice can inject, with nothing of ours
 * queued before it. */
static int md_inject_locked(md_t *md, const void *buf, size_t len, int32_t dst_world,
                            int32_t src_rank, int32_t tag, uint32_t context_id,
                            uint32_t flags)
{
    const md_route_class_t *c;
    md_subdev_t *sd;
    md_envelope_t env;
    int rc;

    if (tag < 0 || (flags & MD_ENV_F_SYNC) != 0 || dst_world < 0 || dst_world >= md->size ||
        md->pending.head != NULL)
        return MD_ERR_NO_RESOURCE;      /* md_isend says why, or queues it */
    c = md_conntab_lookup(md, dst_world, len);
    if (c == NULL || c->next_hop_node >= 0 || c->subdev >= md->devs_initialised)
        return MD_ERR_NO_RESOURCE;
    sd = md_sd(md, c->subdev);
    if (sd->ops->inject == NULL || md_fwd_stripe_wanted(md, dst_world, len) ||
        md_rank_failed(md, dst_world) != MD_OK)
        return MD_ERR_NO_RESOURCE;
    env = md_user_envelope(md, len, dst_world, src_rank, tag, context_id, flags);
    rc = sd->ops->inject(sd, &env, buf);
    if (rc == MD_OK)
        md->send_seq[dst_world]++;
    return rc;
}

int md_sysmsg_send_locked(md_t *md, md_request_t *req, int32_t dst_world,
                          int32_t tag, const void *buf, size_t len)
{
    const md_route_class_t *c;
    int rc;

    if (tag >= 0) {
        md_log_error("system message with tag %d: system tags are negative",
                     tag);
        return MD_ERR_INVALID;
    }
    md_request_reset(req, MD_REQ_SEND);
    c = md_send_route(md, req, dst_world, len);
    if (c == NULL)
        return MD_ERR_INVALID;
    req->buf = (void *)buf;
    req->len = len;
    req->env = (md_envelope_t){
        .src_rank = md->rank, .src_world = md->rank, .dst_world = dst_world,
        .tag = tag, .size = len, .seq = MD_SYS_SEQ_BIT | md->sys_seq++,
    };
    rc = md_send_routed(md, req, c);
    return rc;
}

/* The message a receive or probe for *m must take among the subdevices in
 * mask, so that no message overtakes an earlier one of the same sender
 * that sits on another subdevice (MPI non-overtaking).  A subdevice's
 * unexpected queue keeps each sender's messages in sequence, so: take the
 * first match of the first subdevice that has one, then ask every other
 * subdevice for that sender's earliest matching message and keep the
 * lowest sequence number.  *exact is *m narrowed to that sender: the
 * chosen subdevice's first match for it is the chosen message.  -1: none.
 * (Sequence numbers are compared only between messages of one sender.) */
static int md_probe_earliest(md_t *md, uint32_t mask, const md_match_t *m,
                             md_recv_status_t *best, md_match_t *exact)
{
    int found = -1;

    for (int i = 0; i < md->devs.num && found < 0; i++) {
        md_subdev_t *sd = md_sd(md, i);
        int flag = 0;

        if ((mask & (1u << i)) && sd->ops->iprobe(sd, m, &flag, best) == MD_OK &&
            flag)
            found = i;
    }
    if (found < 0)
        return -1;
    *exact = *m;
    exact->src_rank = best->src_rank;
    for (int i = found + 1; i < md->devs.num; i++) {
        md_subdev_t *sd = md_sd(md, i);
        md_recv_status_t st;
        int flag = 0;

        if (!(mask & (1u << i)) ||
            sd->ops->iprobe(sd, exact, &flag, &st) != MD_OK || !flag)
            continue;
        if (st.src_world == best->src_world && st.seq < best->seq) {
            found = i;
            *best = st;
        }
    }
    best->subdev = found;
    return found;
}

/* Receives the message md_probe_earliest chose.  When the receive names
 * its source, the subdevice's first match is that message; for
 * MPI_ANY_SOURCE it may be another sender's, so the message is taken by
 * its sender (improbe) and received from there (imrecv). */
static int md_recv_chosen(md_t *md, md_request_t *req, int target,
                          const md_match_t *exact)
{
    md_subdev_t *sd = md_sd(md, target);
    md_request_t msg;
    int flag = 0, rc;

    req->subdev = target;
    if (exact->src_rank == req->match.src_rank || sd->ops->improbe == NULL)
        return sd->ops->irecv(sd, req);
    memset(&msg, 0, sizeof(msg));
    msg.kind = MD_REQ_MPROBE;
    msg.match = *exact;
    rc = sd->ops->improbe(sd, exact, &flag, &msg);
    if (rc != MD_OK || !flag)
        return rc != MD_OK ? rc : sd->ops->irecv(sd, req);
    return sd->ops->imrecv(sd, &msg, req);
}

static int md_irecv_locked(md_t *md, md_request_t *req, void *buf, size_t len,
             int32_t src_world, int32_t src_rank, int32_t tag,
             uint32_t context_id, const md_comm_t *comm)
{
    uint32_t mask = md_recv_mask(md, src_world, comm);
    md_recv_status_t st;
    md_match_t exact;
    int target;

    md_request_reset(req, MD_REQ_RECV);
    req->buf = buf;
    req->len = len;
    req->peer_world = src_world;
    req->match = (md_match_t){ .src_rank = src_rank, .tag = tag,
                               .context_id = context_id };
    if (mask == 0) {
        md_log_error("receive from rank %d: no subdevice carries its messages",
                     src_world);
        return MD_ERR_NO_ROUTE;
    }
    if (src_rank != MD_ANY_SOURCE && md_rank_failed(md, src_world) != MD_OK &&
        md_probe_earliest(md, mask, &req->match, &st, &exact) < 0)
        return md_rank_failed(md, src_world);   /* nothing of it here, and none will come */
    /* a wildcard whose communicator lost a member: only what is here (ULFM) */
    if (src_rank == MD_ANY_SOURCE && md->failures != NULL &&
        md_comm_failed_member(md, comm) >= 0 &&
        md_probe_earliest(md, mask, &req->match, &st, &exact) < 0)
        return MD_ERR_PEER_FAILED;
    if (md_mask_single(mask)) {
        int rc;
        target = __builtin_ctz(mask);
        req->subdev = target;
        rc = md_sd(md, target)->ops->irecv(md_sd(md, target), req);
        if (rc == MD_OK && src_rank == MD_ANY_SOURCE && !md_request_is_complete(req))
            rc = md_wild_track(md, req, comm);
        return rc;
    }
    /* P1 §3.3.4 step 1: a message already here is taken directly */
    target = md_probe_earliest(md, mask, &req->match, &st, &exact);
    if (target < 0)
        return md_anyq_post(md, req, mask, comm);
    return md_recv_chosen(md, req, target, &exact);
}

static int md_iprobe_locked(md_t *md, int32_t src_world, int32_t src_rank, int32_t tag,
              uint32_t context_id, const md_comm_t *comm, int *flag,
              md_recv_status_t *status)
{
    md_match_t m = { .src_rank = src_rank, .tag = tag,
                     .context_id = context_id }, exact;

    *flag = md_probe_earliest(md, md_recv_mask(md, src_world, comm), &m,
                              status, &exact) >= 0;
    return MD_OK;
}

static int md_improbe_locked(md_t *md, md_request_t *msg, int32_t src_world,
               int32_t src_rank, int32_t tag, uint32_t context_id,
               const md_comm_t *comm, int *flag)
{
    uint32_t mask = md_recv_mask(md, src_world, comm);
    md_match_t m = { .src_rank = src_rank, .tag = tag,
                     .context_id = context_id }, exact;
    md_recv_status_t st;
    md_subdev_t *sd;
    int target;

    *flag = 0;
    md_request_reset(msg, MD_REQ_MPROBE);
    msg->match = m;
    msg->peer_world = src_world;
    target = md_probe_earliest(md, mask, &m, &st, &exact);
    if (target < 0)
        return MD_OK;
    sd = md_sd(md, target);
    if (sd->ops->improbe == NULL) {
        md_log_error("%s does not support MPI_Improbe/MPI_Mprobe", sd->name);
        return MD_ERR_UNSUPPORTED;
    }
    msg->subdev = target;
    return sd->ops->improbe(sd, &exact, flag, msg);
}

static int md_imrecv_locked(md_t *md, md_request_t *msg, md_request_t *req, void *buf,
              size_t len)
{
    md_subdev_t *sd = md_sd(md, msg->subdev);

    md_request_reset(req, MD_REQ_RECV);
    req->buf = buf;
    req->len = len;
    req->match = msg->match;
    req->peer_world = msg->status.src_world;
    req->subdev = msg->subdev;
    return sd->ops->imrecv(sd, msg, req);
}

static int md_cancel_recv_locked(md_t *md, md_request_t *req)
{
    md_subdev_t *sd;
    int rc;

    if (md_request_is_complete(req))
        return MD_ERR_NOT_FOUND;
    if (req->subdev < 0)
        return md_anyq_cancel(md, req);
    sd = md_sd(md, req->subdev);
    rc = sd->ops->recv_cancel(sd, req);
    if (rc == MD_OK) {
        if (req->md_flags & MD_REQ_F_WILD)
            md_wild_untrack(md, req);
        req->status.cancelled = 1;
        md_request_done(md, req);
    }
    return rc;
}

static int md_cancel_send_locked(md_t *md, md_request_t *req)
{
    md_subdev_t *sd;
    int rc;

    if (req->subdev < 0)
        return MD_ERR_NOT_FOUND;    /* forwarded: in the multidevice's hands */
    sd = md_sd(md, req->subdev);
    /* A cancelled send would leave a hole in the sequence numbers the
     * receiver waits on; only senders whose messages take one subdevice
     * may cancel. */
    if (md_request_is_complete(req) || sd->ops->send_cancel == NULL ||
        md->ordered_node[md->node_of_rank[req->env.dst_world]])
        return MD_ERR_NOT_FOUND;
    rc = sd->ops->send_cancel(sd, req);
    if (rc == MD_OK) {
        req->status.cancelled = 1;
        md_request_done(md, req);
    }
    return rc;
}

/* A subdevice's progress said it failed (a NIC firmware died, a peer
 * vanished): it has failed the requests that needed it and told us which
 * peers it lost (md_fail.c), so the other subdevices go on; the error is
 * said once here and is not the caller's. */
static int md_progress_one(md_t *md, int i)
{
    md_subdev_t *sd = md_sd(md, i);
    int rc = sd->ops->progress(sd);

    if (rc >= 0)
        return rc;
    if (!md->progress_error[i])
        md_log_info("subdevice %s: progress: %s; its requests that needed what failed have "
                    "failed, the other subdevices go on", sd->name, md_status_string(rc));
    md->progress_error[i] = rc;
    return 0;
}

int md_progress_locked(md_t *md)
{
    int events = 0, n = md->devs.num, start;

    md_fwd_batch_pass_begin(md);
    if (md->fail_pending)
        events += md_fail_progress(md);
    if (md->any_cancel != NULL)
        md_anyq_drain_cancels(md);
    if (md->pending.head != NULL)
        events += md_pending_retry(md);
    if (n == 1) {
        events += md_progress_one(md, 0);   /* a relay may have but one subdevice */
    } else {
        start = md->progress_rr;
        md->progress_rr = start + 1 == n ? 0 : start + 1;
        for (int k = 0; k < n; k++)
            events += md_progress_one(md, start + k < n ? start + k : start + k - n);
        events += md_fwd_stripe_progress(md);
        md_fwd_ack_flush(md, 0);        /* those that waited long enough */
        events += md_fwd_watch(md);
    }
    md_fwd_batch_flush(md);         /* the chunks held in this pass leave */
    return events;
}


/* ---- public entry points: the lock when a progress thread runs ---- */

int md_isend(md_t *md, md_request_t *req, const void *buf, size_t len,
             int32_t dst_world, int32_t src_rank, int32_t tag,
             uint32_t context_id, uint32_t flags)
{
    return MD_LOCKED(md, md_isend_locked(md, req, buf, len, dst_world, src_rank, tag, context_id, flags));
}

int md_inject(md_t *md, const void *buf, size_t len, int32_t dst_world,
              int32_t src_rank, int32_t tag, uint32_t context_id, uint32_t flags)
{
    return MD_LOCKED(md, md_inject_locked(md, buf, len, dst_world, src_rank, tag, context_id, flags));
}

int md_sysmsg_isend(md_t *md, md_request_t *req, int32_t dst_world,
                    int32_t tag, const void *buf, size_t len)
{
    return MD_LOCKED(md, md_sysmsg_send_locked(md, req, dst_world, tag, buf, len));
}

int md_irecv(md_t *md, md_request_t *req, void *buf, size_t len,
             int32_t src_world, int32_t src_rank, int32_t tag,
             uint32_t context_id, const md_comm_t *comm)
{
    return MD_LOCKED(md, md_irecv_locked(md, req, buf, len, src_world, src_rank, tag, context_id, comm));
}

int md_iprobe(md_t *md, int32_t src_world, int32_t src_rank, int32_t tag,
              uint32_t context_id, const md_comm_t *comm, int *flag,
              md_recv_status_t *status)
{
    return MD_LOCKED(md, md_iprobe_locked(md, src_world, src_rank, tag, context_id, comm, flag, status));
}

int md_improbe(md_t *md, md_request_t *msg, int32_t src_world,
               int32_t src_rank, int32_t tag, uint32_t context_id,
               const md_comm_t *comm, int *flag)
{
    return MD_LOCKED(md, md_improbe_locked(md, msg, src_world, src_rank, tag, context_id, comm, flag));
}

int md_imrecv(md_t *md, md_request_t *msg, md_request_t *req, void *buf,
              size_t len)
{
    return MD_LOCKED(md, md_imrecv_locked(md, msg, req, buf, len));
}

int md_cancel_recv(md_t *md, md_request_t *req)
{
    return MD_LOCKED(md, md_cancel_recv_locked(md, req));
}

int md_cancel_send(md_t *md, md_request_t *req)
{
    return MD_LOCKED(md, md_cancel_send_locked(md, req));
}

/* The completions and handlers that the progress thread queued for us run
 * as we leave, and count as events: a caller told "nothing happened"
 * would go idle - to sleep, past its yield window - with an MPI request
 * that has just completed, until something else woke it (up to
 * MULTIDEV_IDLE_SLEEP_MS). */
int md_progress(md_t *md)
{
    int events, ran;

    md_api_enter(md);
    events = md_idle_after_progress(md, md_progress_locked(md));
    ran = md_api_leave(md);
    if (events >= 0)
        events += ran;
    if (events != 0) {
        md->idle_polls = 0;     /* the caller's own count: only it writes it */
        md_set_caller_polling(md, 0);
    }
    return events;
}
