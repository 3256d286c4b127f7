/* mdc_route.c - all routes of one node (mdc_route.h). */
#include <stdlib.h>
#include <string.h>

#include "mdc_route.h"

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
    free(r);
}

void mdc_routes_fini(mdc_routes_t *routes)
{
    free(routes->first);
    free(routes->seg);
    memset(routes, 0, sizeof(*routes));
}

static int same_decision(const mdc_decision_t *x, const mdc_decision_t *y)
{
    return x->first_net == y->first_net && x->next_hop == y->next_hop &&
           x->pathkey == y->pathkey;
}

/* Appends [lo, hi] to the current node's segments (merging with the
 * previous one when the route is the same). */
static int add_seg(mdc_routes_t *out, size_t node_first, size_t lo, size_t hi,
                   const mdc_decision_t *dec)
{
    if (out->num_seg > node_first &&
        same_decision(&out->seg[out->num_seg - 1].dec, dec) &&
        out->seg[out->num_seg - 1].hi + 1 == lo) {
        out->seg[out->num_seg - 1].hi = hi;
        return 0;
    }
    if (out->num_seg == out->cap_seg) {
        size_t cap = out->cap_seg ? 2 * out->cap_seg : 1024;
        mdc_rseg_t *s = realloc(out->seg, cap * sizeof(*s));
        if (s == NULL)
            return -1;
        out->seg = s;
        out->cap_seg = cap;
    }
    out->seg[out->num_seg++] = (mdc_rseg_t){ lo, hi, *dec };
    return 0;
}

static int begin(const mdc_graph_t *g, mdc_routes_t *out, uint32_t src)
{
    out->src = src;
    out->num_seg = 0;
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
            if (add_seg(out, out->first[d], res->lo[i], res->hi[i], &dec) != 0)
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

/* A candidate route to one node: hop to the hub, then the hub's path.
 * The tie-break sums are only looked at on exact ties. */
typedef struct line_label {
    mdc_u128                a, b;
    const mdc_edge_t       *hop;
    const mdc_root_entry_t *e;
    int                     ok;
} line_label_t;

/* *tie_used: the first hops' hashes decided (they differ between nodes
 * that otherwise share their routes). */
static int sec_less(const line_label_t *x, const line_label_t *y,
                    int *tie_used)
{
    if (x->e->relays != y->e->relays)
        return x->e->relays < y->e->relays;
    uint32_t rx = x->hop->rank + x->e->rank, ry = y->hop->rank + y->e->rank;
    if (rx != ry)
        return rx < ry;
    *tie_used = 1;
    return x->hop->tie + x->e->tie < y->hop->tie + y->e->tie;
}

/* Does candidate x beat y at size s? */
static int beats(const line_label_t *x, const line_label_t *y, size_t s,
                 int *tie_used)
{
    mdc_u128 cx = x->a + x->b * s, cy = y->a + y->b * s;

    return cx != cy ? cx < cy : sec_less(x, y, tie_used);
}

#define NEVER ((mdc_u128)1 << 64)     /* beyond every size */

/* First size >= from at which x beats the current best y, or NEVER. */
static mdc_u128 overtakes(const line_label_t *x, const line_label_t *y,
                          size_t from, int *tie_used)
{
    if (x->b >= y->b)
        return NEVER;
    if (x->a < y->a)
        return from;
    mdc_u128 m = y->b - x->b, da = x->a - y->a, s = da / m;
    if (da % m != 0 || !sec_less(x, y, tie_used))
        s++;
    return s < from ? from : s;
}

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

static line_label_t candidate(const mdc_graph_t *g, const cand_t *c,
                              size_t iv, uint32_t d, mdc_line_t hop)
{
    const mdc_root_line_t *rl = mdc_rootres_line(c->res, g, iv, d);
    line_label_t l = { .ok = rl->a_hi != UINT64_MAX };

    if (l.ok) {
        l.a = hop.a + mdc_root_line_a(rl);
        l.b = (mdc_u128)hop.b + rl->b;
        l.hop = c->e;
        l.e = mdc_rootres_entry(c->res, g, iv, d);
    }
    return l;
}

/* The best candidate for d over [lo, hi]: the lower envelope of at most
 * nc lines, walked from lo. */
static int envelope(mdc_router_t *r, mdc_routes_t *out, const cand_t *c,
                    size_t nc, size_t nb, size_t j, uint32_t d,
                    const mdc_line_t *hop)
{
    const mdc_graph_t *g = r->g;
    line_label_t l[MDC_MAX_HUBS];
    size_t lo = r->bounds[j], hi = j + 1 < nb ? r->bounds[j + 1] - 1
                                              : SIZE_MAX;
    int any = 0;

    for (size_t i = 0; i < nc; i++) {
        l[i] = candidate(g, &c[i], r->iv_of[i * nb + j], d, hop[i * nb + j]);
        any |= l[i].ok;
    }
    if (!any)
        return 1;                      /* unreachable */
    for (size_t s = lo;;) {
        size_t best = nc;
        mdc_u128 next = NEVER;
        for (size_t i = 0; i < nc; i++)
            if (l[i].ok &&
                (best == nc || beats(&l[i], &l[best], s, &r->tie_used)))
                best = i;
        for (size_t i = 0; i < nc; i++)
            if (l[i].ok && i != best && s < SIZE_MAX) {
                mdc_u128 o = overtakes(&l[i], &l[best], s + 1,
                                       &r->tie_used);
                if (o < next)
                    next = o;
            }
        const mdc_root_entry_t *e = l[best].e;
        mdc_decision_t dec = { c[best].e->network,
                               e->first_host == (int32_t)d ? -1 : e->first_host,
                               c[best].key + e->pathkey, e->relays,
                               (uint8_t)(e->nosys | !c[best].e->sysmsg),
                               (uint8_t)best };
        size_t end = next - 1 >= hi ? hi : (size_t)(next - 1);
        if (add_seg(out, out->first[d], s, end, &dec) != 0)
            return -1;
        if (end >= hi)
            return 0;
        s = end + 1;
    }
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

/* The signature of src's candidates (hop: this source's hop lines). */
static int make_sig(mdc_hub_sig_t *sig, const cand_t *c, size_t nc,
                    size_t nb, const mdc_line_t *hop)
{
    if (nc * nb > sig->cap_hop) {
        mdc_line_t *h = realloc(sig->hop, nc * nb * sizeof(*h));
        if (h == NULL)
            return -1;
        sig->hop = h;
        sig->cap_hop = nc * nb;
    }
    sig->nc = nc;
    sig->nb = nb;
    for (size_t i = 0; i < nc; i++) {
        sig->hub[i] = c[i].e->to;
        sig->network[i] = c[i].e->network;
        sig->sysmsg[i] = c[i].e->sysmsg;
        sig->rank[i] = c[i].e->rank;
        sig->key[i] = c[i].key;
    }
    if (nc * nb > 0)        /* memcpy may not take NULL, even for 0 bytes */
        memcpy(sig->hop, hop, nc * nb * sizeof(*hop));
    return 0;
}

static int same_sig(const mdc_hub_sig_t *x, const cand_t *c, size_t nc,
                    size_t nb, const mdc_line_t *hop)
{
    if (x->nc != nc || x->nb != nb)
        return 0;
    for (size_t i = 0; i < nc; i++)
        if (x->hub[i] != c[i].e->to || x->network[i] != c[i].e->network ||
            x->sysmsg[i] != c[i].e->sysmsg || x->rank[i] != c[i].e->rank)
            return 0;
    for (size_t k = 0; k < nc * nb; k++)
        if (x->hop[k].a != hop[k].a || x->hop[k].b != hop[k].b)
            return 0;
    return 1;
}

/* Keeps out (computed afresh) for the next nodes with the same signature. */
static int keep(mdc_router_t *r, const mdc_routes_t *out, const cand_t *c,
                size_t nc, size_t nb, const mdc_line_t *hop)
{
    const mdc_graph_t *g = r->g;
    mdc_routes_t *p = &r->prev;

    r->prev_valid = 0;
    if (r->no_reuse || r->tie_used)
        return 0;
    if (p->first == NULL &&
        (p->first = malloc((g->num_hosts + 1) * sizeof(*p->first))) == NULL)
        return -1;
    if (out->num_seg > p->cap_seg) {
        mdc_rseg_t *seg = realloc(p->seg, out->num_seg * sizeof(*seg));
        if (seg == NULL)
            return -1;
        p->seg = seg;
        p->cap_seg = out->num_seg;
    }
    memcpy(p->first, out->first, (g->num_hosts + 1) * sizeof(*p->first));
    if (out->num_seg > 0)   /* a node with no routes: p->seg may be NULL */
        memcpy(p->seg, out->seg, out->num_seg * sizeof(*p->seg));
    p->num_seg = out->num_seg;
    p->src = out->src;
    if (make_sig(&r->prev_sig, c, nc, nb, hop) != 0)
        return -1;
    r->prev_valid = 1;
    return 0;
}

/* src's routes from those of the last node with the same signature: the
 * same for every other node d (each is the best over the same hubs of the
 * same hop cost plus the hub's path to d, and no tie needed the first
 * hop's hash), their path keys shifted to src's own first hop; the route
 * to that node itself is computed, and none to src. */
static int from_prev(mdc_router_t *r, uint32_t src, mdc_routes_t *out,
                     const cand_t *c, size_t nc, size_t nb,
                     const mdc_line_t *hop)
{
    const mdc_graph_t *g = r->g;
    const mdc_routes_t *p = &r->prev;
    uint64_t shift[MDC_MAX_HUBS];

    for (size_t i = 0; i < nc; i++)
        shift[i] = c[i].key - r->prev_sig.key[i];
    for (uint32_t d = 0; d < g->num_hosts; d++) {
        out->first[d] = (uint32_t)out->num_seg;
        if (d == src)
            continue;
        if (d == p->src) {
            if (routes_to(r, out, c, nc, nb, d, hop) != 0)
                return -1;
            continue;
        }
        for (uint32_t k = p->first[d]; k < p->first[d + 1]; k++) {
            mdc_decision_t dec = p->seg[k].dec;
            dec.pathkey += shift[dec.cand];
            if (add_seg(out, out->first[d], p->seg[k].lo, p->seg[k].hi,
                        &dec) != 0)
                return -1;
        }
    }
    out->first[g->num_hosts] = (uint32_t)out->num_seg;
    return 0;
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
    if (r->prev_valid && !r->no_reuse && same_sig(&r->prev_sig, c, nc, nb, hop)) {
        rc = from_prev(r, src, out, c, nc, nb, hop);
        out->copied = 1;
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
    rc = keep(r, out, c, nc, nb, hop);
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
    if (begin(r->g, out, src) != 0)
        return -1;
    if (use_hubs(r->g, src))
        return from_hubs(r, src, out);
    return from_own_trees(r, src, out);
}

const mdc_rseg_t *mdc_routes_find(const mdc_routes_t *routes, uint32_t d,
                                  size_t size)
{
    for (uint32_t i = routes->first[d]; i < routes->first[d + 1]; i++)
        if (routes->seg[i].lo <= size && size <= routes->seg[i].hi)
            return &routes->seg[i];
    return NULL;
}
