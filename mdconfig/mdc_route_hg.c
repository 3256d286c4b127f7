/*
 * mdc_route_hg.c - a node's routes from its best paths to the hubs
 * (mdc_hubtree.h): the route to node d over a range of sizes is the best,
 * over the hubs d is on, of the path to the hub followed by the free hop
 * out of it to d.
 */
#include <stdlib.h>

#include "mdc_envelope.h"
#include "mdc_hubtree.h"
#include "mdc_route_int.h"

/* The candidates for d over interval iv: one per hub of d that the tree
 * reaches, with src's first-hop hash and key shifted by tie_shift and
 * key_shift (zero but for a route computed from the kept node's tree). */
typedef struct hg_walk {
    const mdc_hubtree_t *t;
    mdc_routes_t        *out;
    uint32_t             d;
    const mdc_hubrec_t  *rec[MDC_MAX_HUBS];
    uint32_t             edge[MDC_MAX_HUBS];   /* d's edge to the hub */
    const uint64_t      *key_shift;
} hg_walk_t;

static int hg_piece(void *ctx, size_t lo, size_t hi, size_t best)
{
    hg_walk_t *w = ctx;
    const mdc_graph_t *g = w->t->g;
    const mdc_hubrec_t *h = w->rec[best];
    const mdc_edge_t *last = &g->edges[w->edge[best]];
    mdc_decision_t dec = {
        g->edges[g->first[w->out->src] + h->cand].network, h->first_host,
        h->pathkey + w->key_shift[h->cand] + g->edge_key[w->edge[best]],
        h->relays, (uint8_t)(h->nosys | !last->sysmsg), h->cand };

    return mdc_route_add_seg(w->out, w->out->first[w->d], lo, hi, &dec);
}

/* Appends the route to d (none if unreachable); -1 on out of memory. */
static int route_to(const mdc_hubtree_t *t, mdc_routes_t *out, uint32_t d,
                    const uint64_t *tie_shift, const uint64_t *key_shift,
                    mdc_env_ties_t *ties)
{
    const mdc_graph_t *g = t->g;
    hg_walk_t w = { .t = t, .out = out, .d = d, .key_shift = key_shift };
    mdc_env_cand_t c[MDC_MAX_HUBS];

    for (size_t iv = 0; iv < t->num_iv; iv++) {
        size_t n = 0;
        /* the hub's hop out to d is d's edge into it, reversed: same
         * hash, free, rank 0 */
        for (uint32_t ei = g->first[d]; ei < g->first[d + 1]; ei++) {
            const mdc_hubrec_t *h =
                mdc_hubtree_rec(t, iv, g->edges[ei].to - g->num_hosts);
            if (!h->reached)
                continue;
            c[n] = (mdc_env_cand_t){ h->a, h->b, h->relays, h->rank,
                                     h->tie + tie_shift[h->cand] +
                                         g->edges[ei].tie,
                                     h->cand };
            w.rec[n] = h;
            w.edge[n++] = ei;
        }
        if (n == 0)
            return 0;                  /* unreachable (at every size) */
        if (mdc_envelope_walk(c, n, t->iv[iv].lo, t->iv[iv].hi, ties, hg_piece,
                              &w) != 0)
            return -1;
    }
    return 0;
}

static const uint64_t no_shift[MDC_MAX_HUBS];

/* The route to the kept node q, from q's own tree (still in the router:
 * a copy follows the fresh computation it copies from), its first hops
 * replaced by src's. */
typedef struct to_kept {
    mdc_router_t *r;
    uint32_t      src;
} to_kept_t;

static int route_to_kept(void *ctx, mdc_routes_t *out, uint32_t q)
{
    to_kept_t *x = ctx;
    const mdc_graph_t *g = x->r->g;
    uint64_t tie_shift[MDC_MAX_HUBS], key_shift[MDC_MAX_HUBS];
    mdc_env_ties_t ties = { 0, 0 };

    mdc_route_key_shift(x->r, x->src, key_shift);
    for (uint32_t i = 0; i < g->first[q + 1] - g->first[q]; i++)
        tie_shift[i] = g->edges[g->first[x->src] + i].tie -
                       g->edges[g->first[q] + i].tie;
    return route_to(x->r->hubtree, out, q, tie_shift, key_shift, &ties);
}

/* Every node's route, segment by segment. */
static int all_routes(mdc_router_t *r, const mdc_hubtree_t *t,
                      mdc_routes_t *out)
{
    const mdc_graph_t *g = r->g;
    mdc_env_ties_t ties = { 0, 0 };

    for (uint32_t d = 0; d < g->num_hosts; d++) {
        out->first[d] = (uint32_t)out->num_seg;
        if (d != t->src &&
            route_to(t, out, d, no_shift, no_shift, &ties) != 0)
            return -1;
    }
    out->first[g->num_hosts] = (uint32_t)out->num_seg;
    r->tie_used |= ties.groups;
    return 0;
}

/* The route to d alone, as a run (out->seg: scratch). */
static int run_to(const mdc_hubtree_t *t, mdc_routes_t *out, uint32_t d,
                  mdc_env_ties_t *ties)
{
    out->num_seg = 0;
    out->first[d] = 0;
    if (d != t->src && route_to(t, out, d, no_shift, no_shift, ties) != 0)
        return -1;
    return mdc_routes_push_run(out, d, d, out->seg, out->num_seg);
}

/* Every node's route as runs only (compact mode).  The nodes of a block
 * on the same hubs have the same candidates but for the tie hash and key
 * of their own last hop, so unless a tie hash decided, the route of the
 * block's first node (or second, if the first is the source) is the
 * route of them all: one computation per block, not per node. */
static int all_runs(mdc_router_t *r, const mdc_hubtree_t *t,
                    mdc_routes_t *out)
{
    const mdc_graph_t *g = r->g;
    mdc_env_ties_t ties = { 0, 0 };

    for (uint32_t d = 0, end; d < g->num_hosts; d = end + 1) {
        end = g->hubs->same_hubs_until[d];
        uint32_t rep = d == t->src && d < end ? d + 1 : d;
        mdc_env_ties_t mine = { 0, 0 };
        if ((rep != d && mdc_routes_push_run(out, d, d, NULL, 0) != 0) ||
            run_to(t, out, rep, &mine) != 0)
            return -1;
        ties.groups |= mine.groups;
        if (rep == end)
            continue;                  /* a block of one node (and src) */
        if (mine.any) {                /* the members may differ */
            for (uint32_t x = rep + 1; x <= end; x++)
                if (run_to(t, out, x, &ties) != 0)
                    return -1;
            continue;
        }
        /* out->seg still holds rep's route */
        if (t->src > rep && t->src <= end) {
            if ((t->src > rep + 1 &&
                 mdc_routes_push_run(out, rep + 1, t->src - 1, out->seg,
                                     out->num_seg) != 0) ||
                mdc_routes_push_run(out, t->src, t->src, NULL, 0) != 0 ||
                (t->src < end &&
                 mdc_routes_push_run(out, t->src + 1, end, out->seg,
                                     out->num_seg) != 0))
                return -1;
        } else if (mdc_routes_push_run(out, rep + 1, end, out->seg,
                                       out->num_seg) != 0) {
            return -1;
        }
    }
    r->tie_used |= ties.groups;
    return 0;
}

int mdc_route_from_hubgraph(mdc_router_t *r, uint32_t src, mdc_routes_t *out)
{
    const mdc_graph_t *g = r->g;
    size_t nc = g->first[src + 1] - g->first[src], nb = g->num_classes;
    /* src's hop costs per size class, what a copy depends on: on the
     * stack for up to 64 classes */
    mdc_line_t hop[MDC_MAX_HUBS * 64];
    mdc_line_t *hops = nc * nb <= MDC_MAX_HUBS * 64
                       ? hop : malloc(nc * nb * sizeof(*hops));
    int rc = -1;

    if (hops == NULL)
        return -1;
    if (r->hubtree == NULL && (r->hubtree = mdc_hubtree_new(g)) == NULL)
        goto out;
    for (size_t i = 0; i < nc; i++)
        for (size_t k = 0; k < nb; k++)
            hops[i * nb + k] = mdc_edge_line(g, &g->edges[g->first[src] + i],
                                             k);
    if (mdc_route_can_copy(r, src, nb, hops)) {
        to_kept_t x = { r, src };
        rc = mdc_route_copy_prev(r, src, out, route_to_kept, &x);
        goto out;
    }
    mdc_hubtree_t *t = r->hubtree;
    if (mdc_hubtree_solve(t, src) != 0)
        goto out;
    out->dijkstra_runs += t->dijkstra_runs;
    r->tie_used = t->tie_used;
    if (r->compact) {
        out->full = 0;
        if (all_runs(r, t, out) != 0)
            goto out;
    } else if (all_routes(r, t, out) != 0) {
        goto out;
    }
    rc = mdc_route_keep(r, out, nb, hops);
out:
    if (hops != hop)
        free(hops);
    return rc;
}
