/*
 * md_liveness.h - for network subdevices: liveness probes of the peers
 * that requests wait on.
 *
 * A request waiting for a peer's answer (a message on a posted receive, a
 * rendezvous reply, an acknowledgement) learns that the peer's node died
 * only through traffic.  So, every interval (MD_LIVENESS_PROBE_MS), the
 * subdevice sends each awaited peer something its NIC must deliver
 * reliably (an empty request, a credit write); towards a dead firmware the
 * reliability layer gives up and reports the peer failed, which fails what
 * waits on it.  This keeps the timer and the marks (md_awaited.h) and asks
 * the subdevice for what only it knows: its posted receives and how to
 * probe.  Not thread-safe: the caller serialises.
 */
#ifndef MD_LIVENESS_H
#define MD_LIVENESS_H

#include <stdint.h>

#include "md_awaited.h"
#include "md_cookie.h"
#include "md_sdi.h"

#define MD_LIVENESS_PROBE_MS 250u   /**< between two rounds of probes */

typedef struct md_liveness {
    md_awaited_t   awaited;      /* the peers marked this round */
    unsigned       interval_ms;
    int32_t        me;           /* never probed */
    const uint8_t *serves;       /* [world_size] the subdevice's: 1 for a peer it carries */
} md_liveness_t;

typedef struct md_liveness_ops {
    /* Marks, with md_liveness_mark(l, req), what the subdevice's posted
     * receives wait on. */
    void (*mark_posted)(void *arg, md_liveness_t *l);
    /* Sends peer q a probe (it may decide not to, e.g. when traffic to q
     * is queued anyway or q failed already). */
    void (*probe)(void *arg, int32_t q);
} md_liveness_ops_t;

/* The clock of liveness checks, in ms: a coarse one (a few ms), read
 * without a system call. */
uint64_t md_liveness_now_ms(void);
/* The timer of a periodic liveness check: 1 when interval_ms have passed
 * since *last_ms (0: never), which then becomes now; 0 before. */
int  md_liveness_due(uint64_t *last_ms, unsigned interval_ms);

/* serves must outlive l.  MD_OK or MD_ERR_NO_MEMORY. */
int  md_liveness_init(md_liveness_t *l, int32_t world_size, int32_t me, const uint8_t *serves,
                      unsigned interval_ms);
void md_liveness_fini(md_liveness_t *l);
/* Marks the peer req waits on (req->peer_world, if any); arg is the
 * md_liveness_t (fits md_mq_foreach_posted). */
void md_liveness_mark(void *l, md_request_t *req);
/* A round, when interval_ms have passed since the last: marks the peers of
 * the live cookies' requests and of the posted receives, then calls
 * ops->probe for each marked peer that serves names, other than me.
 * Returns 1 if a round ran, 0 if it was not due. */
int  md_liveness_round(md_liveness_t *l, const md_cookies_t *cookies,
                       const md_liveness_ops_t *ops, void *arg);

#endif /* MD_LIVENESS_H */
