/*
 * mdc_route_copy.c - a node's routes copied from those of the previous
 * node on the same hubs (mdc_route_int.h).
 *
 * Two nodes on the same switches, rings and buses, over the same networks
 * at the same cost, have the same routes to every other node: each is the
 * best over the same hubs of the same hop cost plus the same onward path.
 * Only the tie-break hash and the path key of their own first hop differ;
 * so a copy is exact unless some tie between paths starting on different
 * hubs was decided by that hash (the router then keeps nothing).  The
 * route between the two nodes themselves is computed.
 */
#include <stdlib.h>
#include <string.h>

#include "mdc_route_int.h"

/* The signature of src's hops. */
static int make_sig(mdc_hub_sig_t *sig, const mdc_graph_t *g, uint32_t src,
                    size_t nb, const mdc_line_t *hop)
{
    size_t nc = g->first[src + 1] - g->first[src];

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
        const mdc_edge_t *e = &g->edges[g->first[src] + i];
        sig->hub[i] = e->to;
        sig->network[i] = e->network;
        sig->sysmsg[i] = e->sysmsg;
        sig->rank[i] = e->rank;
        sig->key[i] = g->edge_key[g->first[src] + i];
    }
    if (nc * nb > 0)        /* memcpy may not take NULL, even for 0 bytes */
        memcpy(sig->hop, hop, nc * nb * sizeof(*hop));
    return 0;
}

int mdc_route_can_copy(const mdc_router_t *r, uint32_t src, size_t nb,
                       const mdc_line_t *hop)
{
    const mdc_graph_t *g = r->g;
    const mdc_hub_sig_t *x = &r->prev_sig;
    size_t nc = g->first[src + 1] - g->first[src];

    if (!r->prev_valid || r->no_reuse || x->nc != nc || x->nb != nb)
        return 0;
    for (size_t i = 0; i < nc; i++) {
        const mdc_edge_t *e = &g->edges[g->first[src] + i];
        if (x->hub[i] != e->to || x->network[i] != e->network ||
            x->sysmsg[i] != e->sysmsg || x->rank[i] != e->rank)
            return 0;
    }
    for (size_t k = 0; k < nc * nb; k++)
        if (x->hop[k].a != hop[k].a || x->hop[k].b != hop[k].b)
            return 0;
    return 1;
}

int mdc_route_keep(mdc_router_t *r, const mdc_routes_t *out, size_t nb,
                   const mdc_line_t *hop)
{
    const mdc_graph_t *g = r->g;
    mdc_routes_t *p = &r->prev;

    r->prev_valid = 0;
    if (r->no_reuse || r->tie_used)
        return 0;
    p->src = out->src;
    if (r->compact) {
        /* copies will be made from the runs only */
        mdc_routes_clear_runs(p);
        for (size_t k = 0; k < out->num_runs; k++) {
            const mdc_prun_t *x = &out->run[k];
            if (mdc_routes_push_run(p, x->lo, x->hi, mdc_rseg_at(out->rseg, x->seg),
                                    x->num) != 0)
                return -1;
        }
        goto sig;
    }
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
sig:
    if (make_sig(&r->prev_sig, g, out->src, nb, hop) != 0)
        return -1;
    r->prev_valid = 1;
    return 0;
}

void mdc_route_key_shift(const mdc_router_t *r, uint32_t src,
                         uint64_t shift[MDC_MAX_HUBS])
{
    const mdc_graph_t *g = r->g;

    for (size_t i = 0; i < r->prev_sig.nc; i++)
        shift[i] = g->edge_key[g->first[src] + i] - r->prev_sig.key[i];
}

/* The kept routes to the nodes d0..d1-1, their keys shifted: one block
 * (within a node the kept segments are already merged). */
static int copy_block(mdc_routes_t *out, const mdc_routes_t *p, uint32_t d0,
                      uint32_t d1, const uint64_t *shift)
{
    size_t from = p->first[d0], n = p->first[d1] - from;

    if (mdc_route_reserve(out, n) != 0)
        return -1;
    uint32_t delta = (uint32_t)out->num_seg - (uint32_t)from;
    for (uint32_t d = d0; d < d1; d++)
        out->first[d] = p->first[d] + delta;      /* modulo 2^32: exact */
    if (n == 0)
        return 0;                                 /* (seg may be NULL) */
    mdc_rseg_t *to = &out->seg[out->num_seg];
    memcpy(to, &p->seg[from], n * sizeof(*to));
    for (size_t k = 0; k < n; k++)
        to[k].dec.pathkey += shift[to[k].dec.cand];
    out->num_seg += n;
    return 0;
}

/* The same from the kept runs (compact mode): the run holding src is cut
 * around it, and the kept node's own run gets its computed route. */
static int copy_runs(mdc_router_t *r, uint32_t src, mdc_routes_t *out,
                     mdc_route_to_fn to_prev, void *ctx)
{
    const mdc_routes_t *p = &r->prev;

    out->full = 0;
    mdc_routes_clear_runs(out);
    for (size_t k = 0; k < p->num_runs; k++) {
        const mdc_prun_t *x = &p->run[k];
        const mdc_rseg_t *seg = mdc_rseg_at(p->rseg, x->seg);
        int rc = 0;
        if (x->lo == p->src) {
            out->num_seg = 0;
            out->first[p->src] = 0;
            rc = to_prev(ctx, out, p->src) != 0 ||
                 mdc_routes_push_run(out, p->src, p->src, out->seg,
                                     out->num_seg) != 0;
        } else if (src < x->lo || src > x->hi) {
            rc = mdc_routes_push_run(out, x->lo, x->hi, seg, x->num);
        } else {
            rc = (src > x->lo &&
                  mdc_routes_push_run(out, x->lo, src - 1, seg, x->num)) ||
                 mdc_routes_push_run(out, src, src, NULL, 0) != 0 ||
                 (src < x->hi &&
                  mdc_routes_push_run(out, src + 1, x->hi, seg, x->num));
        }
        if (rc != 0)
            return -1;
    }
    return 0;
}

int mdc_route_copy_prev(mdc_router_t *r, uint32_t src, mdc_routes_t *out,
                        mdc_route_to_fn to_prev, void *ctx)
{
    const mdc_graph_t *g = r->g;
    const mdc_routes_t *p = &r->prev;
    uint64_t shift[MDC_MAX_HUBS];
    uint32_t a = src < p->src ? src : p->src, b = src < p->src ? p->src : src;

    out->copied = 1;
    if (r->compact)
        return copy_runs(r, src, out, to_prev, ctx);
    mdc_route_key_shift(r, src, shift);
    if (copy_block(out, p, 0, a, shift) != 0)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t d = pass == 0 ? a : b;
        out->first[d] = (uint32_t)out->num_seg;
        if (d == p->src && to_prev(ctx, out, d) != 0)
            return -1;                 /* no route to src itself */
        if (copy_block(out, p, d + 1, pass == 0 ? b : g->num_hosts,
                       shift) != 0)
            return -1;
    }
    out->first[g->num_hosts] = (uint32_t)out->num_seg;
    return 0;
}
