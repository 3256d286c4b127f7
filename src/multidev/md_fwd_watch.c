/*
 * md_fwd_watch.c - liveness of forwarded routes.  A subdevice watches the
 * peers it talks to, but a rank that waits for a message from a rank
 * behind a relay may send nothing at all: if the relay stops or dies, or
 * loses its way to that rank, no subdevice of the waiting rank would ever
 * ask.  So while a receive for such a rank is posted, every
 * MULTIDEV_FWD_PROBE_MS a probe (FWD_PROBE, a forwarded system message of
 * no bytes, which the destination ignores) goes to it along its route:
 * a relay that does not answer leaves it unacknowledged on the first hop,
 * whose subdevice then reports the relay failed (md_fail.c: the ranks
 * behind it fail with it), and a relay that cannot pass it on answers
 * FWD_UNREACH.
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "md_fail.h"
#include "md_fwd_state.h"
#include "md_log.h"
#include "md_mq.h"
#include "md_tun.h"

#define MD_FWD_PROBE_MAX 64           /* ranks probed per round */

static uint64_t md_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int md_fwd_watch_setup(md_t *md)
{
    long long ms = 0;

    if (md_tun_env_num("MULTIDEV_FWD_PROBE_MS", &ms, md_log_say_error) < 0)
        return MD_ERR_CONFIG;
    md->fwd->probe_ns = (uint64_t)ms * 1000000ull;
    md->fwd->probe_next_ns = md_now_ns() + md->fwd->probe_ns;
    return MD_OK;
}

typedef struct md_fwd_waited {
    md_t   *md;
    int32_t rank[MD_FWD_PROBE_MAX];
    int     n;
} md_fwd_waited_t;

/* A posted receive naming a rank that its route reaches through a relay. */
static void md_fwd_note_waited(void *arg, md_request_t *req)
{
    md_fwd_waited_t *w = arg;
    int32_t r = req->peer_world;
    const md_route_class_t *c;

    if (req->match.src_rank == MD_ANY_SOURCE || r < 0 || r >= w->md->size ||
        w->n == MD_FWD_PROBE_MAX || md_rank_failed(w->md, r) != MD_OK ||
        (c = md_conntab_lookup(w->md, r, 0)) == NULL || c->next_hop_node < 0)
        return;
    for (int i = 0; i < w->n; i++)
        if (w->rank[i] == r)
            return;
    w->rank[w->n++] = r;
}

static void md_fwd_probe_done(md_request_t *req)
{
    free(req);
}

int md_fwd_watch(md_t *md)
{
    md_fwd_state_t *st = md->fwd;
    md_fwd_waited_t w = { .md = md };
    uint64_t now;
    int sent = 0;

    if (st == NULL || st->probe_ns == 0 || md->fwd_index < 0 || md->tearing_down)
        return 0;
    now = md_now_ns();
    if (now < st->probe_next_ns)
        return 0;
    st->probe_next_ns = now + st->probe_ns;
    md_fwd_recv_foreach_posted(md_sd(md, md->fwd_index), md_fwd_note_waited, &w);
    for (int i = 0; i < w.n; i++) {
        md_request_t *req = calloc(1, sizeof(*req));
        if (req == NULL)
            break;
        req->on_complete = md_fwd_probe_done;
        if (md_sysmsg_send_locked(md, req, w.rank[i], MD_SYSTAG_FWD_PROBE, NULL, 0) != MD_OK) {
            free(req);
            continue;
        }
        md_log_debug("forwarding: probing the route to rank %d", w.rank[i]);
        sent++;
    }
    return sent;
}
