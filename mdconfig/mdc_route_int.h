/*
 * mdc_route_int.h - what the parts of the router share (mdc_route.c,
 * mdc_route_copy.c, mdc_route_hg.c); not for other users.
 */
#ifndef MDC_ROUTE_INT_H
#define MDC_ROUTE_INT_H

#include "mdc_route.h"

/* Appends [lo, hi] to the current node's segments (merging with the
 * previous one when the route is the same); -1 on out of memory. */
int mdc_route_add_seg(mdc_routes_t *out, size_t node_first, size_t lo,
                      size_t hi, const mdc_decision_t *dec);
/* Room for n more segments. */
int mdc_route_reserve(mdc_routes_t *out, size_t n);

/* ---- runs of alike nodes (mdc_route_runs.c) */
void mdc_routes_clear_runs(mdc_routes_t *out);
/* Appends the run lo..hi with the num segments seg (copied), or extends
 * the last run if it ends at lo - 1 and is alike. */
int mdc_routes_push_run(mdc_routes_t *out, uint32_t lo, uint32_t hi,
                        const mdc_rseg_t *seg, size_t num);
/* The runs of out's per-node routes. */
int mdc_routes_make_runs(mdc_routes_t *out, uint32_t num_hosts);

/* ---- copying the routes of the previous node on the same hubs
 * (mdc_route_copy.c).  hop[i * nb + j]: the cost line of src's i-th hop
 * over the j-th of the nb size ranges the router cut the sizes into. */

/* May src copy the routes kept last (same hubs, same hop costs)? */
int mdc_route_can_copy(const mdc_router_t *r, uint32_t src, size_t nb,
                       const mdc_line_t *hop);
/* Keeps out, just computed afresh, for the next nodes on the same hubs,
 * unless a tie between hubs was broken by the first hop's hash. */
int mdc_route_keep(mdc_router_t *r, const mdc_routes_t *out, size_t nb,
                   const mdc_line_t *hop);

/* Computes the route from out->src to d (appending d's segments). */
typedef int (*mdc_route_to_fn)(void *ctx, mdc_routes_t *out, uint32_t d);

/* src's routes from the kept ones; to_prev computes the one route that
 * cannot be copied, to the kept node itself. */
int mdc_route_copy_prev(mdc_router_t *r, uint32_t src, mdc_routes_t *out,
                        mdc_route_to_fn to_prev, void *ctx);

/* The shift of the path keys of the kept routes to src's own first hops:
 * shift[i] for routes whose first hop is src's i-th edge. */
void mdc_route_key_shift(const mdc_router_t *r, uint32_t src,
                         uint64_t shift[MDC_MAX_HUBS]);

/* ---- routes on the hub graph (mdc_route_hg.c) */
int mdc_route_from_hubgraph(mdc_router_t *r, uint32_t src,
                            mdc_routes_t *out);

#endif /* MDC_ROUTE_INT_H */
