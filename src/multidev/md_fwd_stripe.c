/*
 * md_fwd_stripe.c - a large message striped over every rail to its
 * destination's node (issue 22 §2: several networks at once).
 *
 * mdconfig writes, per peer node, the networks that reach it directly with
 * their modelled bandwidths, and the size from which striping pays (the
 * node file's rails line; md_conntab.c reads it).  A message of that size
 * or more becomes a flow of the forwarding machinery (md_fwd.h) whose next
 * hop is the destination itself: chunks of MULTIDEV_FWD_CHUNK bytes, each
 * a FWD_DATA system message carrying the original envelope, go out over the
 * rails, and the destination's forwarding receiver matches the message like
 * any arrival (sequence numbers keep MPI's non-overtaking, ANY_SOURCE
 * receives see it) and puts the chunks in place in whatever order they
 * come.  Smaller messages keep their one route.
 *
 * Shares: each chunk goes to the rail that would finish its bytes first by
 * the weights (bytes given to the rail over its weight), so the rails' shares
 * are the weights' (counted per destination node, over all its flows).  A
 * rail holds at most its share of 2 x MULTIDEV_FWD_WINDOW chunks in flight
 * to a node, all flows together (at least two); when the rail whose
 * turn it is has no room, the flow waits for it (a subdevice may complete a
 * send as soon as it has buffered it, so room says little of how fast a
 * rail drains, and giving its turn away would pile everything on the rail
 * that buffers most).  A rail that stalls, with chunks in flight and none
 * completed for MD_STRIPE_STALL_NS, is passed over until one completes: its
 * share goes to the others meanwhile.
 *
 * A lost rail (its subdevice reported the peer failed, or failed a chunk,
 * while another rail to the node lives): the chunks that went over it, of
 * flows not yet acknowledged, go again over the rails that live, and the
 * receiver counts a chunk once; the sizes whose route went over it go over
 * the live rail of the largest weight from then on (a message already
 * handed to the lost subdevice fails with it, an error, as any message on
 * a network that breaks under it; a receive duplicated onto it drops that
 * duplicate and waits on the others).  So a striped
 * send completes at the destination's acknowledgement (asked for at once,
 * and sent back over a rail that lives), and keeps no copy: a chunk sent
 * again is copied again from the user's buffer.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_fwd_state.h"
#include "md_log.h"
#include "md_thread.h"

/* A rail with chunks in flight and none completed for this long stalls. */
#define MD_STRIPE_STALL_NS (50u * 1000u * 1000u)

#define MD_STRIPE_AGAIN 0xffu           /* rail_of: to be sent (again) */

typedef struct md_fwd_stripe {
    int32_t  node;                      /* the destination's node */
    size_t   chunk;                     /* bytes per chunk; the last may be shorter */
    size_t   nchunks;
    size_t   next;                      /* the first chunk never sent */
    size_t   again;                     /* chunks below next to send again */
    int      want_pump;                 /* room was made or chunks wait */
    int      waiting;                   /* its rail has no room, or all stall */
    uint64_t chunks_sent;               /* sends begun, chunks sent again included */
    uint8_t *rail_of;                   /* [nchunks] rail of the chunk's last send */
} md_fwd_stripe_t;

static int md_stripe_live(const md_node_route_t *r, int k)
{
    return !(r->rails_down & (1u << k));
}

static int md_stripe_live_count(const md_node_route_t *r)
{
    int n = 0;

    for (int k = 0; k < r->num_rails; k++)
        n += md_stripe_live(r, k);
    return n;
}

int md_fwd_stripe_wanted(const md_t *md, int32_t dst_world, size_t len)
{
    const md_node_route_t *r = &md->routes[md->node_of_rank[dst_world]];

    /* rails exist only with a forwarding receiver (md_conntab.c refuses them without) */
    return r->num_rails > 0 && len >= r->stripe_from && md_stripe_live_count(r) >= 2;
}

int md_fwd_stripe_survives(const md_t *md, int32_t node, int subdev)
{
    const md_node_route_t *r = &md->routes[node];
    int rail = 0, others = 0;

    for (int k = 0; k < r->num_rails; k++) {
        if (r->rails[k].subdev == subdev)
            rail = 1;
        else
            others += md_stripe_live(r, k);
    }
    return rail && others > 0;
}

/* The live rail of the largest weight, or -1. */
static int md_stripe_best_live(const md_node_route_t *r)
{
    int best = -1;

    for (int k = 0; k < r->num_rails; k++)
        if (md_stripe_live(r, k) && (best < 0 || r->rails[k].weight > r->rails[best].weight))
            best = k;
    return best;
}

/* The sizes whose route went over a lost rail go over the best rail left. */
static void md_stripe_reroute(md_t *md, int32_t node, int subdev)
{
    md_node_route_t *r = &md->routes[node];
    int best = md_stripe_best_live(r);

    for (int32_t c = 0; c < r->num_classes && best >= 0; c++) {
        md_route_class_t *rc = &r->classes[c];
        if (rc->subdev != subdev || rc->next_hop_node >= 0)
            continue;
        char hi[24] = "inf";
        if (rc->max != MD_SIZE_INF)
            snprintf(hi, sizeof(hi), "%zu", rc->max);
        md_log_info("messages of %zu..%s bytes to node %s now go over %s: %s is lost",
                    c == 0 ? (size_t)0 : r->classes[c - 1].max + 1, hi, md->node_names[node],
                    md_sd(md, r->rails[best].subdev)->name, md_sd(md, subdev)->name);
        rc->subdev = r->rails[best].subdev;
        r->arrive_mask |= 1u << rc->subdev;
    }
}

int md_fwd_stripe_ack_subdev(const md_t *md, int32_t rank, int fallback)
{
    const md_node_route_t *r = &md->routes[md->node_of_rank[rank]];

    for (int k = 0; k < r->num_rails; k++)
        if (md_stripe_live(r, k))
            return r->rails[k].subdev;
    return fallback;
}

/* Chunks of one rail in flight at most: its weight's share of the window. */
static int md_stripe_budget(const md_t *md, const md_node_route_t *r, int k)
{
    uint64_t sum = 0, window = 2 * (uint64_t)md->fwd->params.window, b;

    for (int i = 0; i < r->num_rails; i++)
        if (md_stripe_live(r, i))
            sum += r->rails[i].weight;
    b = sum ? (window * r->rails[k].weight + sum / 2) / sum : 0;
    return b < 2 ? 2 : (int)b;
}

static int md_stripe_stalled(const md_node_route_t *r, int k, uint64_t now)
{
    return r->rail_inflight[k] > 0 && now - r->rail_moved_ns[k] > MD_STRIPE_STALL_NS;
}

/* The rail whose turn it is: the one that would finish len more bytes
 * first by the weights, among those that live and do not stall; -1 if it
 * has no room or every live rail stalls: the flow waits (looked at again
 * at every progress; a completion wakes only its own flow, so a flow that
 * stopped without waiting, begun while the rails stalled under another
 * flow's chunks, was never pumped again: the stream hung). */
static int md_stripe_pick(const md_t *md, const md_node_route_t *r,
                          md_fwd_stripe_t *s, size_t len)
{
    uint64_t now = md_now_ns();
    double best_t = 0;
    int best = -1;

    for (int k = 0; k < r->num_rails; k++) {
        double t;
        if (!md_stripe_live(r, k) || md_stripe_stalled(r, k, now))
            continue;
        t = (double)(r->rail_given[k] + len) / r->rails[k].weight;
        if (best < 0 || t < best_t) {
            best = k;
            best_t = t;
        }
    }
    s->waiting = best < 0 || r->rail_inflight[best] >= md_stripe_budget(md, r, best);
    return s->waiting ? -1 : best;
}

/* The next chunk to send: one to send again first, then a new one; or
 * nchunks when there is none. */
static size_t md_stripe_next_chunk(const md_fwd_stripe_t *s)
{
    if (s->again > 0)
        for (size_t k = 0; k < s->next; k++)
            if (s->rail_of[k] == MD_STRIPE_AGAIN)
                return k;
    return s->next;
}

static void md_stripe_chunk_done(md_request_t *req)
{
    md_fwd_send_t *c = req->user;
    md_fwd_out_t *o = c->out;
    md_t *md = c->md;
    md_fwd_stripe_t *s = o->stripe;
    md_node_route_t *r = &md->routes[s->node];

    o->chunks_inflight--;
    r->rail_inflight[c->rail]--;
    r->rail_moved_ns[c->rail] = md_now_ns();
    s->want_pump = 1;
    md->fwd->stripe_work = 1;
    if (req->status.error != MD_OK && !o->acked && md_stripe_live(r, c->rail))
        md_fwd_stripe_rail_lost(md, s->node, r->rails[c->rail].subdev);
    md_fwd_chunk_free(c);
    md_fwd_out_maybe_finish(md, o, MD_OK);   /* a lost chunk goes again: no error */
}

/* Sends chunk k over rail; MD_OK, or the subdevice's refusal (nothing sent). */
static int md_stripe_send_chunk(md_t *md, md_fwd_out_t *o, size_t k, int rail)
{
    md_fwd_stripe_t *s = o->stripe;
    size_t off = k * s->chunk, len = o->env.size - off < s->chunk ? o->env.size - off : s->chunk;
    md_fwd_hdr_t hdr = { .env = o->env, .offset = off, .len = (uint32_t)len,
                         .hop_src = md->rank,
                         .flags = MD_FWD_F_NO_CREDITS | MD_FWD_F_ACK_NOW | MD_FWD_F_STRIPED };
    md_fwd_send_t *c = md_fwd_chunk_new(md, &hdr, (const uint8_t *)o->user->buf + off,
                                        md_stripe_chunk_done);
    md_node_route_t *r = &md->routes[s->node];
    int subdev = r->rails[rail].subdev, rc;

    if (c == NULL)
        return MD_ERR_NO_MEMORY;
    c->out = o;
    c->rail = rail;
    c->chunk_index = k;
    if (k == s->next) {
        s->next++;
        o->sent += len;
    } else {
        s->again--;
    }
    s->rail_of[k] = (uint8_t)rail;
    if (r->rail_inflight[rail]++ == 0)
        r->rail_moved_ns[rail] = md_now_ns();
    r->rail_given[rail] += len;
    o->chunks_inflight++;
    o->started = 1;
    s->chunks_sent++;
    rc = md_fwd_send_raw(md, &c->req, subdev, o->env.dst_world, MD_SYSTAG_FWD_DATA,
                         c->buf, c->len);
    if (rc != MD_OK) {          /* it never left: as if sent and lost */
        r->rail_inflight[rail]--;
        r->rail_given[rail] -= len;
        s->rail_of[k] = MD_STRIPE_AGAIN;
        s->again++;
        o->chunks_inflight--;
        md_fwd_chunk_free(c);
    }
    return rc;
}

/* Sends chunks while a rail has room.  The flow is pinned meanwhile (a
 * chunk may complete inside its send); the caller then calls
 * md_fwd_out_maybe_finish with the result. */
static int md_stripe_pump(md_t *md, md_fwd_out_t *o)
{
    md_fwd_stripe_t *s = o->stripe;
    const md_node_route_t *r = &md->routes[s->node];
    int rc = MD_OK;

    o->chunks_inflight++;            /* the pin */
    s->want_pump = 0;
    while (o->error == MD_OK && !o->acked) {
        size_t k = md_stripe_next_chunk(s);
        int rail;

        if (k == s->nchunks)
            break;
        if (md_stripe_live_count(r) == 0) {
            md_log_error("striping to rank %d: every rail to node %s is lost",
                         o->env.dst_world, md->node_names[s->node]);
            rc = MD_ERR_PEER_FAILED;
            break;
        }
        rail = md_stripe_pick(md, r, s, s->chunk);
        if (rail < 0)
            break;                   /* chunk completions, or a stall, pump again */
        rc = md_stripe_send_chunk(md, o, k, rail);
        if (rc == MD_ERR_NO_MEMORY)
            break;
        if (rc != MD_OK) {
            md_fwd_stripe_rail_lost(md, s->node, r->rails[rail].subdev);
            rc = MD_OK;
        }
    }
    o->chunks_inflight--;
    return rc;
}

int md_fwd_stripe_isend(md_t *md, md_request_t *req)
{
    int32_t node = md->node_of_rank[req->env.dst_world];
    const md_node_route_t *r = &md->routes[node];
    md_fwd_stripe_t *s = calloc(1, sizeof(*s));
    md_fwd_out_t *o;
    int rc;

    if (s == NULL)
        return MD_ERR_NO_MEMORY;
    s->node = node;
    s->chunk = md->fwd->params.chunk;
    s->nchunks = (req->len + s->chunk - 1) / s->chunk;
    if (s->nchunks == 0)
        s->nchunks = 1;
    s->rail_of = malloc(s->nchunks);
    o = s->rail_of ? md_fwd_out_new(md, req, req->env.dst_world, r->rails[0].subdev) : NULL;
    if (o == NULL) {
        md_fwd_stripe_free(s);
        return MD_ERR_NO_MEMORY;
    }
    o->stripe = s;
    md_log_debug("striping %llu bytes to rank %d over %d rails",
                 (unsigned long long)o->env.size, o->env.dst_world, md_stripe_live_count(r));
    rc = md_stripe_pump(md, o);
    md_fwd_out_maybe_finish(md, o, rc);      /* an error completes the request */
    return MD_OK;
}

void md_fwd_stripe_rail_lost(md_t *md, int32_t node, int subdev)
{
    md_node_route_t *r = &md->routes[node];
    md_fwd_state_t *st = md->fwd;

    for (int k = 0; k < r->num_rails; k++) {
        if (r->rails[k].subdev != subdev || !md_stripe_live(r, k))
            continue;
        r->rails_down |= 1u << k;
        md_log_info("rail %s to node %s is lost: its share goes to the other %d rail(s)",
                    md_sd(md, subdev)->name, md->node_names[node], md_stripe_live_count(r));
        md_stripe_reroute(md, node, subdev);
        for (md_fwd_out_t *o = st ? st->out : NULL; o != NULL; o = o->next) {
            md_fwd_stripe_t *s = o->stripe;
            if (s == NULL || s->node != node || o->acked)
                continue;
            for (size_t i = 0; i < s->next; i++)
                if (s->rail_of[i] == (uint8_t)k) {
                    s->rail_of[i] = MD_STRIPE_AGAIN;
                    s->again++;
                }
            s->want_pump = 1;
        }
        if (st != NULL)
            st->stripe_work = st->rail_news = 1;
    }
}

/* Tells the ranks of every node whose rail was lost here, over a rail that
 * lives, so that they stop sending over it too (their side of a cut link
 * may take a peer timeout to find it out). */
static void md_stripe_tell(md_t *md)
{
    for (int32_t n = 0; n < md->num_nodes; n++) {
        md_node_route_t *r = &md->routes[n];
        uint32_t news = r->rails_down & ~r->rails_told;
        int via = md_stripe_best_live(r);

        for (int k = 0; news != 0 && k < r->num_rails; k++) {
            char name[MD_NAME_MAX] = { 0 };
            if (!(news & (1u << k)))
                continue;
            r->rails_told |= 1u << k;
            if (via < 0)
                continue;
            snprintf(name, sizeof(name), "%s", md_sd(md, r->rails[k].subdev)->name);
            for (int32_t rank = 0; rank < md->size; rank++)
                if (md->node_of_rank[rank] == n && rank != md->rank)
                    md_fwd_send_ctl_bytes(md, r->rails[via].subdev, rank,
                                          MD_SYSTAG_FWD_RAIL_LOST, name, sizeof(name));
        }
    }
}

void md_fwd_stripe_rail_news(md_t *md, int32_t rank, const void *payload, size_t len)
{
    char name[MD_NAME_MAX];
    int32_t node;
    int sd;

    if (rank < 0 || rank >= md->size || len != sizeof(name)) {
        md_log_error("striping: a malformed rail-lost message from rank %d (%zu bytes); "
                     "dropped", rank, len);
        return;
    }
    memcpy(name, payload, sizeof(name));
    name[sizeof(name) - 1] = '\0';
    node = md->node_of_rank[rank];
    sd = md_devlist_index(md, name);
    if (sd < 0 || !md_fwd_stripe_survives(md, node, sd))
        return;             /* not a rail here, or the last one: our own subdevice decides */
    for (int k = 0; k < md->routes[node].num_rails; k++)
        if (md->routes[node].rails[k].subdev == sd)
            md->routes[node].rails_told |= 1u << k;     /* no need to tell it back */
    md_log_info("rank %d (node %s) says rail %s is lost", rank, md->node_names[node], name);
    md_fwd_stripe_rail_lost(md, node, sd);
}

void md_fwd_stripe_ack_failed(md_t *md, int32_t rank, int subdev, const md_fwd_ctl_t *ctl,
                              int n)
{
    int32_t node;

    if (rank < 0 || rank >= md->size ||
        !md_fwd_stripe_survives(md, (node = md->node_of_rank[rank]), subdev))
        return;
    md_fwd_stripe_rail_lost(md, node, subdev);
    for (int i = 0; i < n; i++)     /* sent from the next progress, over a rail that lives */
        md_fwd_ack_queue(md, md_fwd_stripe_ack_subdev(md, rank, subdev), rank, &ctl[i], 0);
}

int md_fwd_stripe_progress(md_t *md)
{
    md_fwd_state_t *st = md->fwd;
    int events = 0, found = 1;

    if (st == NULL || !st->stripe_work)
        return 0;
    st->stripe_work = 0;
    if (st->rail_news) {
        st->rail_news = 0;
        md_stripe_tell(md);
    }
    /* A flow waiting for its rail looks again once per progress: the room
     * may have been made by another flow's chunk (the rails' room is the
     * node's), or the rail may have stalled. */
    for (md_fwd_out_t *o = st->out; o != NULL; o = o->next)
        if (o->stripe != NULL && o->stripe->waiting) {
            o->stripe->want_pump = 1;
            st->stripe_work = 1;
        }
    /* a pump may finish (and free) other flows: look again from the start */
    while (found) {
        found = 0;
        for (md_fwd_out_t *o = st->out; o != NULL; o = o->next) {
            if (o->stripe == NULL || !o->stripe->want_pump)
                continue;
            uint64_t before = o->stripe->chunks_sent;
            int rc = md_stripe_pump(md, o);
            /* o lives until md_fwd_out_maybe_finish: its count is read first */
            events += o->stripe->chunks_sent != before || rc != MD_OK;
            md_fwd_out_maybe_finish(md, o, rc);
            found = 1;
            break;
        }
    }
    return events;
}

void md_fwd_stripe_acked(md_fwd_out_t *o)
{
    if (o->stripe != NULL)
        o->stripe->again = 0;    /* everything is there */
}

void md_fwd_stripe_free(md_fwd_stripe_t *s)
{
    if (s == NULL)
        return;
    free(s->rail_of);
    free(s);
}
