/*
 * md_peerfail.h - for network subdevices: failing the requests that wait
 * on a lost peer.
 *
 * When its NIC reports a peer lost (the peer's process, its firmware or
 * the link to it), a subdevice completes every request that waits on that
 * peer with the failure, so that it reaches the host (DESIGN invariant 5):
 * the requests with a live cookie (md_cookie.h: a rendezvous or
 * synchronous send waiting for its answer, a receive waiting for its data)
 * and the sends still queued for the peer (md_opq.h).  A dead NIC loses
 * every peer at once (peer -1).  md_peerfail_t says which peer, with which
 * status, and how the subdevice completes a request; md_peerfail_req
 * applies it to one request, as md_cookie_foreach and md_opq_flush call
 * it.  Not thread-safe: the caller serialises.
 */
#ifndef MD_PEERFAIL_H
#define MD_PEERFAIL_H

#include <stdint.h>

#include "md_cookie.h"
#include "md_held.h"
#include "md_mq.h"
#include "md_sdi.h"

typedef struct md_peerfail {
    int32_t  peer;                  /* the lost peer; -1: every peer */
    int      status;                /* what its requests complete with */
    /* The peer req waits on; NULL: req->peer_world. */
    int32_t (*peer_of)(md_request_t *req);
    /* Completes req with status (no data), releasing what it holds. */
    void    (*fail)(void *arg, md_request_t *req, int status);
    void    *arg;
} md_peerfail_t;

/* Fails req if it waits on the lost peer.  f is the md_peerfail_t (fits
 * md_cookie_foreach and md_opq_flush). */
void md_peerfail_req(void *f, md_request_t *req);

/* Fails, through f->fail, the receives posted in mq (by the subdevice of
 * index subdev_index) that only f->peer can satisfy (f->peer < 0: every
 * one). */
void md_peerfail_posted(md_mq_t *mq, int subdev_index, const md_peerfail_t *f);

/* The kit-held part of failing f->peer (f->peer < 0: every peer), after the
 * subdevice failed its own queues (md_opq_flush with md_peerfail_req):
 * every request with a live cookie that waits on the peer fails; with
 * every peer lost, all held-back arrivals are dropped.  A single peer's
 * held arrivals stay: the peer sent them before it went, so the receives
 * posted for it fail (md_peerfail_posted) only once they have drained --
 * at once when nothing of it is held. */
void md_peerfail_waiting(const md_peerfail_t *f, const md_cookies_t *cookies, md_held_set_t *held,
                         md_mq_t *mq, int subdev_index);

/* A dead NIC, after its requests failed: every peer it carried (serves[q],
 * q < world_size) that was not lost yet is lost now with status: its
 * status word (*status_of(arg, q), where the subdevice keeps it; 0 while
 * the peer is fine) is set, and the host hears it (host->peer_failed),
 * once per peer. */
void md_peerfail_served(md_subdev_t *sd, const uint8_t *serves, int32_t world_size,
                        int *(*status_of)(void *arg, int32_t q), void *arg, int status);

#endif /* MD_PEERFAIL_H */
