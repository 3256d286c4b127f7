/*
 * mdc_hubtree.h - best paths from one node to every hub, for every size,
 * on the hub graph (mdc_hubgraph.h).
 *
 * The same modified Dijkstra as mdc_dijkstra.h (labels compared as time,
 * relays, sum of ranks, sum of tie hashes; forwarding costs on the way),
 * started from the node's own hops into its hubs, and the same
 * sensitivity analysis as mdc_rootsolve.h: a tree computed for the first
 * size of a class holds up to the first size at which some edge's line
 * undercuts it.  The result is exact for every size; the routes to the
 * nodes follow from it, each the best over the hubs the node is on
 * (mdc_route_hg.c).
 *
 * Each hub's label also records which of the node's first hops its path
 * starts with (cand).  tie_used is set when a comparison between paths
 * starting on different first hops was decided by the tie hash: only then
 * can a node on the same hubs have different routes (mdc_route_copy.c).
 */
#ifndef MDC_HUBTREE_H
#define MDC_HUBTREE_H

#include "mdc_dijkstra.h"
#include "mdc_hubgraph.h"

/* A hub's best path from the node over one interval of sizes. */
typedef struct mdc_hubrec {
    mdc_u128 a, b;                  /**< cost line (fs; fs per byte) */
    uint64_t tie, pathkey;
    uint32_t relays, rank;
    int32_t  first_host;            /**< first forwarding node, -1: none */
    uint8_t  cand;                  /**< the node's first hop (edge index) */
    uint8_t  nosys;
    uint8_t  reached;
} mdc_hubrec_t;

/* An interval of sizes, inclusive. */
typedef struct mdc_hubiv {
    size_t lo, hi;
} mdc_hubiv_t;

typedef struct mdc_hubtree {
    const mdc_graph_t    *g;
    const mdc_hubgraph_t *hg;
    uint32_t      src;
    size_t        size, cls;
    /* the current tree, [hub] */
    mdc_label_t  *label;
    mdc_u128     *line_a, *line_b;
    uint64_t     *pathkey;
    int32_t      *pred_edge;        /**< hub edge; -1 - i: src's edge i */
    uint32_t     *pred;
    int32_t      *first_host;
    uint8_t      *cand, *nosys, *reached, *done;
    struct mdc_heap_entry *heap;
    uint32_t     *heap_pos, *order;
    uint32_t      num_order;
    int           tie_used;
    size_t        dijkstra_runs;
    /* the result: intervals, and per interval every hub's record */
    size_t        num_iv, cap_iv;
    mdc_hubiv_t  *iv;
    mdc_hubrec_t *rec;              /**< [iv * num_hubs + hub] */
    size_t        cap_rec;
} mdc_hubtree_t;

mdc_hubtree_t *mdc_hubtree_new(const mdc_graph_t *g);
void mdc_hubtree_free(mdc_hubtree_t *t);

/* The best paths from src (a node on hubs only) to every hub, for every
 * size; -1 on out of memory. */
int mdc_hubtree_solve(mdc_hubtree_t *t, uint32_t src);

static inline const mdc_hubrec_t *mdc_hubtree_rec(const mdc_hubtree_t *t,
                                                  size_t iv, uint32_t hub)
{
    return &t->rec[iv * t->hg->num_hubs + hub];
}

#endif /* MDC_HUBTREE_H */
