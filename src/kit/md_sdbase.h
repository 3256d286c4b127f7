/*
 * md_sdbase.h - subdevice kit: the state every subdevice that talks to
 * other processes keeps, set up and torn down in one place.
 *
 * A subdevice embeds an md_sdbase_t as the member `base` of its own state
 * (as transports embed their base interface in UCX) and reaches the
 * pieces through it: ctx->base.mq, ctx->base.cookies, ...  What is in it:
 *
 *   sd, host        the subdevice instance and its host's upcalls
 *   me, world_size  this rank and the job's size
 *   serves          [world_size]: a copy of args->serves, the peers this
 *                   subdevice carries traffic to (its connection table's
 *                   share)
 *   mq              posted receives and unexpected messages (md_mq.h)
 *   done            finished requests not yet handed to the host
 *                   (md_complete_flush)
 *   cookies         requests waiting for a peer's answer (md_cookie.h)
 *   busy            peers with queued operations (md_peerset.h)
 *   held            arrivals held back by arrival_ok, per peer (md_held.h)
 *   live            probe rounds over the peers requests wait on
 *                   (md_liveness.h, every MD_LIVENESS_PROBE_MS)
 *
 * A subdevice that has no use for a piece leaves it empty; the per-peer
 * sets cost a few bytes per rank of the job.  Not thread-safe: the caller
 * serialises, as for every SDI call.
 */
#ifndef MD_SDBASE_H
#define MD_SDBASE_H

#include <stdint.h>

#include "md_cookie.h"
#include "md_held.h"
#include "md_liveness.h"
#include "md_mq.h"
#include "md_peerset.h"
#include "md_reqlist.h"
#include "md_sdi.h"

typedef struct md_sdbase {
    md_subdev_t         *sd;
    const md_sdi_host_t *host;
    int32_t              me, world_size;
    uint8_t             *serves;
    md_mq_t              mq;
    md_reqlist_t         done;
    md_cookies_t         cookies;
    md_peerset_t         busy;
    md_held_set_t        held;
    md_liveness_t        live;
} md_sdbase_t;

/* A log line through the host (md_sdi_host_t.log), which names the
 * subdevice: lvl MD_LOG_* (md_log.h). */
#define MD_SDBASE_LOG(b, lvl, ...) (b)->host->log((b)->sd, (lvl), __VA_ARGS__)

/* Sets b up for sd from its init arguments.  MD_OK, or MD_ERR_NO_MEMORY
 * (b is then as md_sdbase_fini leaves it, and md_sdbase_fini may be called
 * again).  b must be zeroed before (the subdevice's state is calloc'ed). */
int  md_sdbase_init(md_sdbase_t *b, md_subdev_t *sd, const md_subdev_init_args_t *args);
/* Frees what md_sdbase_init made, and the unexpected messages still queued
 * (md_mq_free_msg); safe on a zeroed or partly set-up b. */
void md_sdbase_fini(md_sdbase_t *b);

#endif /* MD_SDBASE_H */
