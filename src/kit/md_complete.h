/*
 * md_complete.h - finishing a subdevice's requests, helpers for subdevices:
 * the status of a receive, the per-subdevice counters, the hand-off of a
 * finished request to the host, and the request a subdevice makes for
 * itself to receive a system message too large to arrive in one piece.
 * Not thread-safe: the caller serialises.
 */
#ifndef MD_COMPLETE_H
#define MD_COMPLETE_H

#include <stdint.h>

#include "md_reqlist.h"
#include "md_sdi.h"

/* Fills *st for a message of envelope env of which delivered bytes
 * reached the buffer (fewer than env->size: MD_ERR_TRUNCATE), received by
 * the subdevice of index subdev.  Inline: shm's receive path fills one per
 * message. */
static inline void md_recv_status_fill(md_recv_status_t *st, const md_envelope_t *env,
                                       uint64_t delivered, int32_t subdev)
{
    st->src_rank = env->src_rank;
    st->src_world = env->src_world;
    st->tag = env->tag;
    st->msg_size = env->size;
    st->size = delivered;
    st->error = delivered < env->size ? MD_ERR_TRUNCATE : MD_OK;
    st->cancelled = 0;
    st->subdev = subdev;
    st->seq = env->seq;
    st->flags = env->flags;
}

/* md_recv_status_fill into req->status. */
void md_recv_status_set(md_request_t *req, const md_envelope_t *env, uint64_t delivered,
                        int32_t subdev);

/* Counts a finished request in the per-subdevice counters (successes and
 * truncations; sends by user or system message). */
void md_counters_complete(md_subdev_counters_t *c, const md_request_t *req);

/* A receive request with a buffer of env->size bytes, for a system message
 * from world rank src that the subdevice receives itself; NULL when out of
 * memory.  md_complete_hand() with sysmsg set frees both. */
md_request_t *md_sysmsg_recv_new(const md_envelope_t *env, int32_t src);

/* Hands a finished request to the host.  sysmsg: req came from
 * md_sysmsg_recv_new(); its payload goes to host->sysmsg() (or, if it
 * failed, its loss is logged as from rank src) and it is freed.
 * Otherwise req is counted and goes to host->complete(). */
void md_complete_hand(md_subdev_t *sd, md_request_t *req, int sysmsg, int32_t src);

/* Whether req is the subdevice's own system-message receive
 * (md_sysmsg_recv_new); if so it may correct *src, the rank a lost one is
 * logged as from (preset to req->peer_world). */
typedef int (*md_complete_sysmsg_fn)(md_request_t *req, int32_t *src);

/* Hands the requests on done (finished where calling the host back would
 * re-enter the subdevice) to the host with md_complete_hand, oldest first.
 * One at a time: the host may call back into the subdevice, which flushes
 * too.  Inline, so that sysmsg_of, a function of the subdevice's, is a
 * direct call on every completion. */
static inline __attribute__((always_inline)) void
md_complete_flush(md_subdev_t *sd, md_reqlist_t *done, md_complete_sysmsg_fn sysmsg_of)
{
    md_request_t *req;

    while ((req = md_reqlist_pop(done)) != NULL) {
        int32_t src = req->peer_world;
        int sysmsg = sysmsg_of(req, &src);
        md_complete_hand(sd, req, sysmsg, src);
    }
}

#endif /* MD_COMPLETE_H */
