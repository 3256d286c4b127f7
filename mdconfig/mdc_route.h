/*
 * mdc_route.h - every route of one node: for each other node, the sizes
 * 0..SIZE_MAX cut into segments, each with its decision.
 *
 * A node's routes are computed either from its own best-path trees
 * (mdc_rootsolve.h), or, when all its networks reach it through hubs
 * (switches, rings, buses), by combining the hubs' trees: the best route
 * from s to d is the best, over s's hubs h, of the hop s->h followed by
 * h's best path to d.  The second way is exact too (it compares the same
 * sums), and nodes on the same hubs share the hubs' work: the router
 * keeps the last hubs' results in a small cache.
 */
#ifndef MDC_ROUTE_H
#define MDC_ROUTE_H

#include "mdc_rootsolve.h"

/* What the per-node file and the checks need about the route to a node
 * over one size range. */
typedef struct mdc_decision {
    int32_t  first_net;             /**< -1: unreachable */
    int32_t  next_hop;              /**< -1: direct */
    uint64_t pathkey;               /**< identity of the whole path */
    uint32_t relays;
    uint8_t  nosys;                 /**< some hop cannot carry sysmsgs */
    uint8_t  cand;                  /**< routes from hubs: which hub */
} mdc_decision_t;

typedef struct mdc_rseg {
    size_t         lo, hi;          /**< inclusive; hi SIZE_MAX = inf */
    mdc_decision_t dec;
} mdc_rseg_t;

/* Nodes lo..hi (by index) whose routes have the same segments, path keys
 * aside: rseg[seg] .. rseg[seg + num - 1] (none: unreachable).  The source
 * itself is always a run of its own. */
typedef struct mdc_prun {
    uint32_t lo, hi;
    uint32_t seg, num;
} mdc_prun_t;

/* A node's routes in two forms: per node (first, seg: every segment, with
 * its path key) and as runs of alike nodes (run, rseg: what the files and
 * the problem counts need, a few entries per node instead of N).  The
 * router fills both, except in compact mode (mdc_router_t.compact) where
 * a node whose routes were copied gets the runs only (full = 0). */
typedef struct mdc_routes {
    uint32_t    src;
    uint32_t   *first;              /**< [node]: its segments are
                                         seg[first[d]] .. seg[first[d+1]-1] */
    mdc_rseg_t *seg;
    size_t      num_seg, cap_seg;
    int         full;               /**< first and seg are valid */
    mdc_prun_t *run;                /**< by lo; they cover every node */
    size_t      num_runs, cap_runs;
    mdc_rseg_t *rseg;
    size_t      num_rseg, cap_rseg;
    size_t      dijkstra_runs;      /**< done for this node (cache misses) */
    int         copied;             /**< from the previous node's routes */
} mdc_routes_t;

/* &base[i], or NULL while base has no segments at all (NULL + 0 is undefined
 * in C; the fuzzer's description with one node and no network found it). */
static inline const mdc_rseg_t *mdc_rseg_at(const mdc_rseg_t *base, size_t i)
{
    return base != NULL ? base + i : NULL;
}

#define MDC_ROOT_CACHE 16

/* What a node's routes from hubs depend on, besides the hubs' trees:
 * nodes with the same one (on the same switches, rings and buses, at the
 * same cost) get the same routes, apart from the tie-break hash of their
 * own first hop and the path keys that include it. */
typedef struct mdc_hub_sig {
    size_t      nc, nb;
    uint32_t    hub[MDC_MAX_HUBS];
    uint16_t    network[MDC_MAX_HUBS];
    uint8_t     sysmsg[MDC_MAX_HUBS];
    uint32_t    rank[MDC_MAX_HUBS];
    uint64_t    key[MDC_MAX_HUBS];  /**< not compared: the pathkey shift */
    mdc_line_t *hop;                /**< [hub * nb + piece] */
    size_t      cap_hop;
} mdc_hub_sig_t;

/* Per-thread state: trees, the hub cache, scratch. */
typedef struct mdc_router {
    const mdc_graph_t *g;
    mdc_treepool_t     pool;
    mdc_rootres_t      cache[MDC_ROOT_CACHE];
    uint64_t           cache_used[MDC_ROOT_CACHE]; /* LRU clock, 0 = empty */
    uint64_t           clock;
    mdc_rootres_t      own;         /* a node's own result */
    size_t            *bounds;      /* scratch: combined breakpoints */
    size_t            *iv_of;       /* scratch: [hub * bounds + j] */
    size_t             cap_bounds, cap_iv_of;
    /* The last routes computed from hubs afresh, and what they depend on:
     * the next node with the same signature copies them (see from_prev in
     * mdc_route.c) unless a tie between hubs was broken by the first
     * hop's hash (tie_used), which differs from node to node. */
    mdc_routes_t       prev;
    mdc_hub_sig_t      prev_sig;
    int                prev_valid;
    int                tie_used;
    int                no_reuse;    /**< tests: always compute afresh */
    int                compact;     /**< copied routes as runs only */
    struct mdc_hubtree *hubtree;    /* routes on the hub graph (g->hubs) */
} mdc_router_t;

mdc_router_t *mdc_router_new(const mdc_graph_t *g);
void mdc_router_free(mdc_router_t *r);

/* Computes out (reusing its memory); -1 on out of memory. */
int mdc_route_source(mdc_router_t *r, uint32_t src, mdc_routes_t *out);
void mdc_routes_fini(mdc_routes_t *routes);

/* The run holding node d. */
const mdc_prun_t *mdc_routes_run_of(const mdc_routes_t *routes, uint32_t d);

/* The segment of the route to d holding size, or NULL (unreachable). */
const mdc_rseg_t *mdc_routes_find(const mdc_routes_t *routes, uint32_t d,
                                  size_t size);

#endif /* MDC_ROUTE_H */
