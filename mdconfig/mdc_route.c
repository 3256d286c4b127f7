/* mdc_route.c - all routes of one node (mdc_route.h). */
#include <stdlib.h>
#include <string.h>

#include "mdc_envelope.h"
#include "mdc_hubtree.h"
#include "mdc_mem.h"
#include "mdc_route_int.h"

mdc_router_t *mdc_router_new(const mdc_graph_t *g)
{
    mdc_router_t *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return NULL;
    r->g = g;
    mdc_treepool_init(&r->pool, g);
    return r;
}

void mdc_router_free(mdc_router_t *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < MDC_ROOT_CACHE; i++)
        mdc_rootres_fini(&r->cache[i]);
    mdc_rootres_fini(&r->own);
    mdc_treepool_fini(&r->pool);
    free(r->bounds);
    free(r->iv_of);
    mdc_routes_fini(&r->prev);
    free(r->prev_sig.hop);
    mdc_hubtree_free(r->hubtree);
    free(r);
}

void mdc_routes_fini(mdc_routes_t *routes)
{
    free(routes->first);
    free(routes->seg);
    free(routes->run);
    free(routes->rseg);
    memset(routes, 0, sizeof(*routes));
}

static int same_decision(const mdc_decision_t *x, const mdc_decision_t *y)
{
    return x->first_net == y->first_net && x->next_hop == y->next_hop &&
           x->pathkey == y->pathkey;
}

int mdc_route_reserve(mdc_routes_t *out, size_t n)
{
    return mdc_reserve((void **)&out->seg, &out->cap_seg, out->num_seg + n,
                       sizeof(*out->seg));
}

int mdc_route_add_seg(mdc_routes_t *out, size_t node_first, size_t lo,
                      size_t hi, const mdc_decision_t *dec)
{
    if (out->num_seg > node_first &&
        same_decision(&out->seg[out->num_seg - 1].dec, dec) &&
        out->seg[out->num_seg - 1].hi + 1 == lo) {
        out->seg[out->num_seg - 1].hi = hi;
        return 0;
    }
    if (mdc_route_reserve(out, 1) != 0)
        return -1;
    out->seg[out->num_seg++] = (mdc_rseg_t){ lo, hi, *dec };
    return 0;
}

static int begin(const mdc_graph_t *g, mdc_routes_t *out, uint32_t src)
{
    out->src = src;
    out->num_seg = 0;
    out->full = 1;
    mdc_routes_clear_runs(out);
    out->dijkstra_runs = 0;
    out->copied = 0;
    if (out->first == NULL &&
        (out->first = malloc((g->num_hosts + 1) * sizeof(*out->first))) ==
            NULL)
        return -1;
    return 0;
}

/* ---- routes from the node's own trees */

static int from_own_trees(mdc_router_t *r, uint32_t src, mdc_routes_t *out)
{
    const mdc_graph_t *g = r->g;
    const mdc_rootres_t *res = &r->own;

    if (mdc_root_solve(&r->pool, src, &r->own) != 0)
        return -1;
    out->dijkstra_runs += res->dijkstra_runs;
    for (uint32_t d = 0; d < g->num_hosts; d++) {
        out->first[d] = (uint32_t)out->num_seg;
        for (size_t i = 0; i < res->num_iv && d != src; i++) {
            const mdc_root_entry_t *e = mdc_rootres_entry(res, g, i, d);
            if (!e->reached)
                break;
            mdc_decision_t dec = {
                e->first_net, e->first_host == (int32_t)d ? -1 : e->first_host,
                e->pathkey, e->relays, e->nosys, 0 };
            if (mdc_route_add_seg(out, out->first[d], res->lo[i], res->hi[i],
                                  &dec) != 0)
                return -1;
        }
    }
    out->first[g->num_hosts] = (uint32_t)out->num_seg;
    return 0;
}

/* ---- routes combined from the hubs' trees */

static const mdc_rootres_t *hub_result(mdc_router_t *r, uint32_t hub,
                                       mdc_routes_t *out)
{
    size_t victim = 0;

    for (size_t i = 0; i < MDC_ROOT_CACHE; i++) {
        if (r->cache_used[i] != 0 && r->cache[i].root == hub) {
            r->cache_used[i] = ++r->clock;
            return &r->cache[i];
        }
        if (r->cache_used[i] < r->cache_used[victim])
            victim = i;
    }
    r->cache_used[victim] = 0;
    if (mdc_root_solve(&r->pool, hub, &r->cache[victim]) != 0)
        return NULL;
    out->dijkstra_runs += r->cache[victim].dijkstra_runs;
    r->cache_used[victim] = ++r->clock;
    return &r->cache[victim];
}

typedef struct cand {
    const mdc_edge_t    *e;          /* src -> hub */
    uint64_t             key;
    const mdc_rootres_t *res;
} cand_t;

/* The breakpoints where any hub's tree or any class changes. */
static int combined_bounds(mdc_router_t *r, const cand_t *c, size_t nc,
                           size_t *nb)
{
    const mdc_graph_t *g = r->g;
    size_t need = g->num_classes;

    for (size_t i = 0; i < nc; i++)
        need += c[i].res->num_iv;
    if (need > r->cap_bounds) {
        size_t *b = realloc(r->bounds, need * sizeof(*b));
        if (b == NULL)
            return -1;
        r->bounds = b;
        r->cap_bounds = need;
    }
    /* every hub's intervals already start at every class bound; merge */
    size_t n = 0;
    for (size_t i = 0; i < nc; i++)
        for (size_t k = 0; k < c[i].res->num_iv; k++)
            r->bounds[n++] = c[i].res->lo[k];
    if (nc == 0)
        for (size_t k = 0; k < g->num_classes; k++)
            r->bounds[n++] = g->bounds[k];
    /* insertion sort: few elements */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && r->bounds[j - 1] > r->bounds[j]; j--) {
            size_t t = r->bounds[j];
            r->bounds[j] = r->bounds[j - 1];
            r->bounds[j - 1] = t;
        }
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || r->bounds[i] != r->bounds[u - 1])
            r->bounds[u++] = r->bounds[i];
    *nb = u;
    /* for each hub and piece j, the hub's interval holding it */
    if (nc * u > r->cap_iv_of) {
        size_t *iv = realloc(r->iv_of, nc * u * sizeof(*iv));
        if (iv == NULL)
            return -1;
        r->iv_of = iv;
        r->cap_iv_of = nc * u;
    }
    for (size_t i = 0; i < nc; i++)
        for (size_t j = 0, k = 0; j < u; j++) {
            while (k + 1 < c[i].res->num_iv &&
                   c[i].res->lo[k + 1] <= r->bounds[j])
                k++;
            r->iv_of[i * u + j] = k;
        }
    return 0;
}

/* The pieces of the route to d over one range of sizes, as the envelope
 * walk finds them. */
typedef struct hub_walk {
    mdc_routes_t           *out;
    const cand_t           *c;
    uint32_t                d;
    size_t                  idx[MDC_MAX_HUBS];  /* candidate -> hub */
    const mdc_root_entry_t *e[MDC_MAX_HUBS];
} hub_walk_t;

static int hub_piece(void *ctx, size_t lo, size_t hi, size_t best)
{
    hub_walk_t *w = ctx;
    const cand_t *c = &w->c[w->idx[best]];
    const mdc_root_entry_t *e = w->e[best];
    mdc_decision_t dec = { c->e->network,
                           e->first_host == (int32_t)w->d ? -1 : e->first_host,
                           c->key + e->pathkey, e->relays,
                           (uint8_t)(e->nosys | !c->e->sysmsg),
                           (uint8_t)w->idx[best] };

    return mdc_route_add_seg(w->out, w->out->first[w->d], lo, hi, &dec);
}

/* The best candidate for d over piece j of the combined bounds: hop to
 * the hub, then the hub's path; each hub a group of its own, so that any
 * tie the hashes decide marks the routes as not to be copied. */
static int envelope(mdc_router_t *r, mdc_routes_t *out, const cand_t *c,
                    size_t nc, size_t nb, size_t j, uint32_t d,
                    const mdc_line_t *hop)
{
    const mdc_graph_t *g = r->g;
    mdc_env_cand_t l[MDC_MAX_HUBS];
    hub_walk_t w = { .out = out, .c = c, .d = d };
    size_t lo = r->bounds[j], hi = j + 1 < nb ? r->bounds[j + 1] - 1
                                              : SIZE_MAX;
    size_t n = 0;

    for (size_t i = 0; i < nc; i++) {
        size_t iv = r->iv_of[i * nb + j];
        const mdc_root_line_t *rl = mdc_rootres_line(c[i].res, g, iv, d);
        if (rl->a_hi == UINT64_MAX)
            continue;                  /* the hub does not reach d */
        const mdc_root_entry_t *e = mdc_rootres_entry(c[i].res, g, iv, d);
        mdc_line_t h = hop[i * nb + j];
        l[n] = (mdc_env_cand_t){ h.a + mdc_root_line_a(rl),
                                 (mdc_u128)h.b + rl->b, e->relays,
                                 c[i].e->rank + e->rank, c[i].e->tie + e->tie,
                                 (uint32_t)i };
        w.idx[n] = i;
        w.e[n++] = e;
    }
    if (n == 0)
        return 1;                      /* unreachable */
    mdc_env_ties_t ties = { 0, 0 };
    int rc = mdc_envelope_walk(l, n, lo, hi, &ties, hub_piece, &w);
    r->tie_used |= ties.groups;
    return rc;
}

/* The routes to d from the candidates: 0, or -1 on out of memory. */
static int routes_to(mdc_router_t *r, mdc_routes_t *out, const cand_t *c,
                     size_t nc, size_t nb, uint32_t d, const mdc_line_t *hop)
{
    for (size_t j = 0; j < nb; j++) {
        int rc = envelope(r, out, c, nc, nb, j, d, hop);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
    }
    return 0;
}

/* The route to the kept node (mdc_route_copy_prev's to_prev). */
typedef struct hubs_ctx {
    mdc_router_t      *r;
    const cand_t      *c;
    size_t             nc, nb;
    const mdc_line_t  *hop;
} hubs_ctx_t;

static int hubs_route_to(void *ctx, mdc_routes_t *out, uint32_t d)
{
    hubs_ctx_t *x = ctx;

    return routes_to(x->r, out, x->c, x->nc, x->nb, d, x->hop);
}

static int from_hubs(mdc_router_t *r, uint32_t src, mdc_routes_t *out)
{
    const mdc_graph_t *g = r->g;
    cand_t c[MDC_MAX_HUBS];
    size_t nc = 0, nb;
    int rc = -1;

    for (uint32_t ei = g->first[src]; ei < g->first[src + 1]; ei++) {
        c[nc].e = &g->edges[ei];
        c[nc].key = g->edge_key[ei];
        c[nc].res = hub_result(r, g->edges[ei].to, out);
        if (c[nc].res == NULL)
            return -1;
        nc++;
    }
    if (combined_bounds(r, c, nc, &nb) != 0)
        return -1;
    mdc_line_t *hop = malloc(nc * nb * sizeof(*hop));
    if (hop == NULL)
        return -1;
    for (size_t i = 0; i < nc; i++)
        for (size_t j = 0; j < nb; j++)
            hop[i * nb + j] = mdc_edge_line(g, c[i].e,
                                            c[i].res->cls[r->iv_of[i * nb + j]]);
    if (mdc_route_can_copy(r, src, nb, hop)) {
        hubs_ctx_t x = { r, c, nc, nb, hop };
        rc = mdc_route_copy_prev(r, src, out, hubs_route_to, &x);
        free(hop);
        return rc;
    }
    r->tie_used = 0;
    for (uint32_t d = 0; d < g->num_hosts; d++) {
        out->first[d] = (uint32_t)out->num_seg;
        if (d != src && routes_to(r, out, c, nc, nb, d, hop) != 0)
            goto out;
    }
    out->first[g->num_hosts] = (uint32_t)out->num_seg;
    if (r->compact && mdc_routes_make_runs(out, g->num_hosts) != 0)
        goto out;
    rc = mdc_route_keep(r, out, nb, hop);
out:
    free(hop);
    return rc;
}

/* Hubs only (no point-to-point link), and few of them. */
static int use_hubs(const mdc_graph_t *g, uint32_t src)
{
    uint32_t n = g->first[src + 1] - g->first[src];

    if (n == 0 || n > MDC_MAX_HUBS)
        return 0;
    for (uint32_t ei = g->first[src]; ei < g->first[src + 1]; ei++)
        if (g->edges[ei].kind != MDC_EDGE_INGRESS)
            return 0;
    return 1;
}

int mdc_route_source(mdc_router_t *r, uint32_t src, mdc_routes_t *out)
{
    int rc;

    if (begin(r->g, out, src) != 0)
        return -1;
    if (use_hubs(r->g, src))
        rc = r->g->hubs != NULL ? mdc_route_from_hubgraph(r, src, out)
                                : from_hubs(r, src, out);
    else
        rc = from_own_trees(r, src, out);
    if (rc == 0 && out->full && out->num_runs == 0)
        rc = mdc_routes_make_runs(out, r->g->num_hosts);
    return rc;
}

const mdc_rseg_t *mdc_routes_find(const mdc_routes_t *routes, uint32_t d,
                                  size_t size)
{
    for (uint32_t i = routes->first[d]; i < routes->first[d + 1]; i++)
        if (routes->seg[i].lo <= size && size <= routes->seg[i].hi)
            return &routes->seg[i];
    return NULL;
}
