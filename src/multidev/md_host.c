/*
 * md_host.c - the upcalls subdevices make into the multidevice
 * (md_sdi_host_t): completion, cross-subdevice ordering, system messages,
 * logging.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "md_core.h"
#include "md_fail.h"
#include "md_log.h"
#include "md_sysmsg.h"
#include "md_thread.h"

static inline md_t *md_of(md_subdev_t *sd)
{
    return (md_t *)sd->host_ctx;
}

static void md_host_complete(md_subdev_t *sd, md_request_t *req)
{
    if (req->kind != MD_REQ_SEND)
        req->status.subdev = sd->index;
    if (req->md_flags & MD_REQ_F_WILD)
        md_wild_untrack(md_of(sd), req);
    if (req->internal)
        md_anyq_dup_complete(md_of(sd), req);
    else
        md_request_done(md_of(sd), req);
}

/* Non-overtaking across subdevices: a sender's messages are numbered; one
 * whose predecessor has not arrived yet must wait.  Peers whose messages
 * all arrive on one subdevice are ordered by that subdevice already. */
static int md_host_arrival_ok(md_subdev_t *sd, const md_envelope_t *env)
{
    md_t *md = md_of(sd);
    int32_t src = env->src_world;

    if (!md->ordered_node[md->node_of_rank[src]])
        return 1;
    return env->seq == md->recv_seq[src];
}

static void md_host_arrived(md_subdev_t *sd, const md_envelope_t *env)
{
    md_t *md = md_of(sd);
    int32_t src = env->src_world;

    if (src < 0 || src >= md->size) {
        md_log_error("subdevice %s reported an arrival from rank %d, which does "
                     "not exist (a subdevice bug)", sd->name, src);
        return;
    }
    if (!md->ordered_node[md->node_of_rank[src]])
        return;
    if (env->seq != md->recv_seq[src]) {
        /* only arrival_ok() lets a message in, so this is a subdevice bug */
        md_log_error("subdevice %s reported message %llu from rank %d as "
                     "arrived, but %llu is next", sd->name,
                     (unsigned long long)env->seq, src,
                     (unsigned long long)md->recv_seq[src]);
        return;
    }
    md->recv_seq[src]++;
}

static void md_host_sysmsg(md_subdev_t *sd, const md_envelope_t *env,
                           const void *payload)
{
    md_sysmsg_dispatch(md_of(sd), sd, env, payload);
}

static void md_host_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    char text[900];
    va_list ap;

    if (level > md_log_current_level)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    md_log_emit(level < MD_LOG_ERROR ? MD_LOG_ERROR
                : level > MD_LOG_TRACE ? MD_LOG_TRACE : level,
                "%s: %s", sd->name, text);
}

static void md_host_peer_failed(md_subdev_t *sd, int32_t world_rank, int status)
{
    md_fail_peer_reported(md_of(sd), sd, world_rank, status);
}

void md_host_setup(md_t *md)
{
    md->host.complete = md_host_complete;
    md->host.arrival_ok = md_host_arrival_ok;
    md->host.arrived = md_host_arrived;
    md->host.sysmsg = md_host_sysmsg;
    md->host.log = md_host_log;
    md->host.peer_failed = md_host_peer_failed;
}
