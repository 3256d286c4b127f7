/*
 * md_recv.h - the receive and arrival skeleton every subdevice shares: the
 * decisions, once; the subdevice acts on them with its own transport
 * (copying, rendezvous, acknowledgements).
 *
 * A receive (irecv): md_recv_start() searches the unexpected messages,
 * tells a receive whose claim another subdevice won from one whose sender
 * is gone, and otherwise posts it.
 *
 * An arrival: md_arrival_route() tells a system message from one that must
 * be held back behind an earlier message of its sender (host->arrival_ok)
 * and from one that may be matched now; md_arrival_match() finds the posted
 * receive it goes into and tells the host it arrived; what no receive takes
 * stays with md_arrival_keep_unexpected().  md_recv_msg_new() copies an
 * arrival into a message of the subdevice's own kind, to hold or keep.
 *
 * The decisions are inline and return an enum: no indirect call per
 * message on the receive paths.
 */
#ifndef MD_RECV_H
#define MD_RECV_H

#include <stddef.h>
#include <stdint.h>

#include "md_held.h"
#include "md_mq.h"
#include "md_sdi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a receive ------------------------------------------------------- */

/* What md_recv_start() made of a receive. */
typedef enum md_recv_start {
    MD_RECV_FROM_UNEXPECTED, /* *msg, unlinked and claimed: deliver it into req now */
    MD_RECV_SENDER_GONE,     /* its sender is gone with nothing left of it, so nothing
                                will ever match: req failed (claimed, status filled);
                                complete it */
    MD_RECV_DROPPED,         /* another subdevice won req's claim: nothing to do */
    MD_RECV_POSTED           /* posted: an arrival will match it */
} md_recv_start_t;

/* The world rank a receive waits on: -1 for MPI_ANY_SOURCE or a rank
 * outside 0..world_size-1. */
static inline int32_t md_recv_sender(const md_request_t *req, int32_t world_size)
{
    if (req->match.src_rank == MD_ANY_SOURCE || req->peer_world < 0 ||
        req->peer_world >= world_size)
        return -1;
    return req->peer_world;
}

/* Starts receive req on subdevice sd_index.  sender_failed: 0, or the
 * error with which req's sender (md_recv_sender) failed when nothing it
 * sent is left to match (nothing held back on this subdevice); the
 * unexpected messages are searched first all the same. */
static inline md_recv_start_t md_recv_start(md_mq_t *mq, md_request_t *req, int sd_index,
                                            int sender_failed, md_mq_msg_t **msg)
{
    *msg = md_mq_take_unexpected(mq, req, sd_index);
    if (*msg != NULL)
        return MD_RECV_FROM_UNEXPECTED;
    if (md_mq_dropped(req))
        return MD_RECV_DROPPED;
    if (sender_failed) {
        if (!md_mq_claim(req, sd_index))
            return MD_RECV_DROPPED;
        req->status.error = sender_failed;
        req->status.size = 0;
        return MD_RECV_SENDER_GONE;
    }
    md_mq_post(mq, req);
    return MD_RECV_POSTED;
}

/* ---- an arrival ------------------------------------------------------ */

/* What md_arrival_route() made of an arrival. */
typedef enum md_arrival_route {
    MD_ARRIVAL_SYSMSG, /* a system message (tag < 0): not matched, not ordered */
    MD_ARRIVAL_HOLD,   /* an earlier message of its sender is still on its way over
                          another subdevice: hold this one back, in order */
    MD_ARRIVAL_MATCH   /* may be matched now (md_arrival_match) */
} md_arrival_route_t;

/* Routes an arrival with envelope env; held: what its sender has held back
 * on this subdevice. */
static inline md_arrival_route_t md_arrival_route(const md_held_t *held, md_subdev_t *sd,
                                                  const md_envelope_t *env)
{
    if (env->tag < 0)
        return MD_ARRIVAL_SYSMSG;
    return md_held_must_wait(held, sd, env) ? MD_ARRIVAL_HOLD : MD_ARRIVAL_MATCH;
}

/* A system message small enough to come whole: counted and handed to the
 * host (data is valid only during the call). */
static inline void md_arrival_sysmsg(md_subdev_t *sd, const md_envelope_t *env,
                                     const void *data)
{
    sd->counters.sysmsgs_recvd++;
    sd->host->sysmsg(sd, env, data);
}

/* An arrival that may be matched now: the earliest posted receive that
 * takes it (unlinked and claimed), or NULL: keep it unexpected.  Tells the
 * host it arrived first, so that the caller may free env while it
 * delivers. */
static inline md_request_t *md_arrival_match(md_mq_t *mq, md_subdev_t *sd,
                                             const md_envelope_t *env)
{
    md_request_t *req = md_mq_take_posted(mq, env, sd->index);

    sd->host->arrived(sd, env);
    return req;
}

/* An arrival no posted receive took: queued, in arrival order, for a later
 * receive or probe, and counted. */
static inline void md_arrival_keep_unexpected(md_mq_t *mq, md_subdev_t *sd, md_mq_msg_t *msg)
{
    md_mq_push_unexpected(mq, msg);
    sd->counters.unexpected++;
}

/* A copy of an arrival, to hold back or keep unexpected: a subdevice's
 * own message struct of head_size bytes, filled from head (its md_mq_msg_t
 * carrying the envelope, its own fields), then len bytes of data copied at
 * data_offset (where its flexible array member starts).  NULL when out of
 * memory. */
void *md_recv_msg_new(const void *head, size_t head_size, size_t data_offset, const void *data,
                      size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MD_RECV_H */
