/*
 * md_fail.c - ranks this rank can no longer reach, and everything that
 * waits on them (DESIGN invariant 5: a failure is an error on every request
 * that needs the failed peer, never a wrong answer or a hang).
 *
 * A subdevice fails its own requests to and from a peer it finds dead, and
 * tells the multidevice (md_sdi_host_t.peer_failed).  What lies beyond one
 * subdevice is the multidevice's:
 *
 *   - a receive posted on several subdevices (the AnyQueue), forwarded
 *     messages (the forwarding receiver, flows leaving from here), sends
 *     held back by back-pressure: failed here;
 *   - the ranks reached *through* a failed rank, when it is their relay:
 *     failed too;
 *   - the ranks that reach a rank through this one: a relay tells every
 *     rank it reaches directly (FWD_UNREACH), and each of them whose route
 *     to the failed rank passes here fails it in turn (and, being a relay
 *     itself, passes the news on).
 *
 * Reports arrive inside subdevice calls; acting on them sends and cancels
 * on other subdevices, which must not happen there (P1 §4: locks taken
 * across subdevices), so they are queued and handled from md_progress.
 * Once failed, a rank stays failed: new sends to it and receives that only
 * it could match fail at once.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_core.h"
#include "md_fail.h"
#include "md_fwd.h"
#include "md_log.h"

struct md_failure {
    int32_t            rank;
    int                status;
    int                handled;      /**< its consequences were drawn */
    char               why[200];
    struct md_failure *next;
};

int md_fail_setup(md_t *md)
{
    md->rank_failed = calloc((size_t)md->size, 1);
    return md->rank_failed != NULL ? MD_OK : MD_ERR_NO_MEMORY;
}

void md_fail_free(md_t *md)
{
    while (md->failures != NULL) {
        md_failure_t *f = md->failures;
        md->failures = f->next;
        free(f);
    }
    free(md->rank_failed);
    md->rank_failed = NULL;
}

/* The list only grows (until md_finalize), each entry published whole by
 * a release store of the head: the netmod may read it from a completion
 * callback, which runs with or without the multidevice's lock held. */
static md_failure_t *md_failure_of(const md_t *md, int32_t rank)
{
    for (md_failure_t *f = __atomic_load_n(&md->failures, __ATOMIC_ACQUIRE); f != NULL;
         f = f->next)
        if (f->rank == rank)
            return f;
    return NULL;
}

int md_rank_failed(const md_t *md, int32_t rank)
{
    const md_failure_t *f;

    if (md->rank_failed == NULL || rank < 0 || rank >= md->size || !md->rank_failed[rank])
        return MD_OK;
    f = md_failure_of(md, rank);
    return f != NULL ? f->status : MD_ERR_PEER_FAILED;
}

const char *md_rank_failure(md_t *md, int32_t rank)
{
    const md_failure_t *f;

    if (rank < 0 || rank >= md->size || (f = md_failure_of(md, rank)) == NULL)
        return NULL;
    return f->why;
}

/* Records the failure (once per rank); its consequences are drawn by
 * md_fail_progress. */
static void md_fail_note(md_t *md, int32_t rank, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void md_fail_note(md_t *md, int32_t rank, int status, const char *fmt, ...)
{
    md_failure_t *f;
    va_list ap;
    int len;

    if (md->rank_failed == NULL || md->tearing_down || rank < 0 || rank >= md->size ||
        rank == md->rank || md->rank_failed[rank])
        return;
    f = calloc(1, sizeof(*f));
    if (f == NULL) {
        md_log_error("out of memory recording that rank %d failed", rank);
        return;
    }
    md->rank_failed[rank] = 1;
    f->rank = rank;
    f->status = status == MD_OK ? MD_ERR_PEER_FAILED : status;
    len = snprintf(f->why, sizeof(f->why), "rank %d (node %s) ", rank,
                   md->node_names[md->node_of_rank[rank]]);
    va_start(ap, fmt);
    if (len > 0 && (size_t)len < sizeof(f->why))
        vsnprintf(f->why + len, sizeof(f->why) - (size_t)len, fmt, ap);
    va_end(ap);
    f->next = md->failures;
    __atomic_store_n(&md->failures, f, __ATOMIC_RELEASE);
    md->fail_pending = 1;
    md_log_warn("%s; what needs it fails", f->why);
}

int32_t md_comm_failed_member(const md_t *md, const md_comm_t *comm)
{
    for (const md_failure_t *f = md->failures; f != NULL; f = f->next)
        if (md_comm_has(comm, f->rank))
            return f->rank;
    return -1;
}

void md_fail_peer_reported(md_t *md, md_subdev_t *sd, int32_t rank, int status)
{
    /* one of the rails to the rank's node while another lives: a rail is
     * lost, the rank is still reached (md_fwd_stripe.c) */
    if (rank >= 0 && rank < md->size && md->routes != NULL &&
        md_fwd_stripe_survives(md, md->node_of_rank[rank], sd->index)) {
        md_fwd_stripe_rail_lost(md, md->node_of_rank[rank], sd->index);
        return;
    }
    md_fail_note(md, rank, status, "is unreachable over %s: %s", sd->name,
                 status == MD_ERR_NOT_FOUND ? "its process or NIC has left"
                                            : md_status_string(status));
}

/* Whether some size class of this rank's route to dst goes through node. */
static int md_route_through(const md_t *md, int32_t dst, int32_t node)
{
    const md_node_route_t *r = &md->routes[md->node_of_rank[dst]];

    for (int32_t c = 0; c < r->num_classes; c++)
        if (r->classes[c].next_hop_node == node)
            return 1;
    return 0;
}

/* Whether some size class of the route to dst goes direct (no relay). */
static int md_route_direct(const md_t *md, int32_t dst)
{
    const md_node_route_t *r = &md->routes[md->node_of_rank[dst]];

    for (int32_t c = 0; c < r->num_classes; c++)
        if (r->classes[c].next_hop_node < 0)
            return 1;
    return 0;
}

void md_fail_unreach_received(md_t *md, int32_t from, int32_t rank, int status)
{
    if (from < 0 || from >= md->size || rank < 0 || rank >= md->size ||
        !md_route_through(md, rank, md->node_of_rank[from]))
        return;        /* our way to it does not pass the sender */
    md_fail_note(md, rank, status, "cannot be reached: rank %d (node %s), through which "
                 "messages to it pass, cannot reach it", from,
                 md->node_names[md->node_of_rank[from]]);
}

/* The consequences of one failure, outside any subdevice call. */
static void md_fail_apply(md_t *md, md_failure_t *f)
{
    int32_t node = md->node_of_rank[f->rank];

    md_fwd_fail_rank(md, f->rank, f->status);
    md_anyq_fail_source(md, f->rank, f->status);
    md_wild_fail(md, f->rank, f->status);
    md_pending_fail(md, f->rank, f->status);
    /* Ranks whose messages went through it, if it relayed. */
    if (md->node_relay_rank[node] == f->rank)
        for (int32_t r = 0; r < md->size; r++)
            if (r != md->rank && md->node_of_rank[r] != node && md_route_through(md, r, node))
                md_fail_note(md, r, f->status, "cannot be reached: its messages pass rank %d "
                             "(node %s), which failed", f->rank, md->node_names[node]);
    /* The ranks that may reach it through us learn it from us: this rank
     * relays for its node, and whether anybody routes through the node is
     * in their configurations, not ours. */
    if (md->node_relay_rank[md->my_node] == md->rank)
        for (int32_t r = 0; r < md->size; r++)
            if (r != md->rank && r != f->rank && !md->rank_failed[r] &&
                md->node_of_rank[r] != md->my_node && md_route_direct(md, r))
                md_fwd_send_unreach(md, r, f->rank, f->status);
}

int md_fail_progress(md_t *md)
{
    int events = 0;

    /* Applying one may note more (ranks behind a failed relay). */
    while (md->fail_pending) {
        md->fail_pending = 0;
        for (md_failure_t *f = md->failures; f != NULL; f = f->next) {
            if (f->handled)
                continue;
            f->handled = 1;
            md_fail_apply(md, f);
            events++;
        }
    }
    return events;
}
