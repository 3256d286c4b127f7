/*
 * mdc_rootsolve.h - best paths from one vertex for every message size.
 *
 * Inside a size class every cost is a line in the size.  A shortest-path
 * tree computed for the class's first size stays the best tree up to the
 * first size where some edge's line undercuts the tree's (found in one
 * pass over the edges: sensitivity analysis of the tree); from the next
 * size on a new tree is computed.  So a class costs one Dijkstra run per
 * distinct best tree, whatever its width, and the result is exact for every
 * size from 0 to SIZE_MAX.
 *
 * The root is a node (the routes of that node) or a hub (a switch, ring or
 * bus: mdc_route.c combines the hubs' results into the routes of the nodes
 * on them, so that a switch of 64 nodes costs one run instead of 64).
 */
#ifndef MDC_ROOTSOLVE_H
#define MDC_ROOTSOLVE_H

#include "mdc_dijkstra.h"

/* The best path from the root to one node, valid over one interval: its
 * cost line (read for every candidate when combining hubs: 24 bytes, kept
 * apart) and the rest (read for the winner and for exact ties). */
typedef struct mdc_root_line {
    uint64_t a_lo, a_hi;            /**< cost line: a + b * size (fs) */
    uint64_t b;                     /**< a_hi == UINT64_MAX: unreachable */
} mdc_root_line_t;

typedef struct mdc_root_entry {
    uint64_t tie;                   /**< tie-break sums (see mdc_label_t) */
    uint64_t pathkey;               /**< identity of the path */
    uint32_t relays, rank;
    int32_t  first_host;            /**< first node after the root */
    int16_t  first_net;             /**< network of the first hop */
    uint8_t  nosys;                 /**< a hop cannot carry system msgs */
    uint8_t  reached;
} mdc_root_entry_t;

static inline mdc_u128 mdc_root_line_a(const mdc_root_line_t *l)
{
    return ((mdc_u128)l->a_hi << 64) | l->a_lo;
}

typedef struct mdc_rootres {
    uint32_t          root;         /**< vertex */
    size_t            num_iv, cap_iv;
    size_t           *lo, *hi;      /**< [interval], inclusive; one class */
    size_t           *cls;          /**< [interval] its size class */
    mdc_root_line_t  *line;         /**< [interval * num_hosts + node] */
    mdc_root_entry_t *e;            /**< [interval * num_hosts + node] */
    size_t            cap_e;        /**< entries allocated */
    size_t            dijkstra_runs;
} mdc_rootres_t;

/* A few trees, reused. */
typedef struct mdc_treepool {
    const mdc_graph_t *g;
    mdc_tree_t       **free;
    size_t             num_free, cap;
} mdc_treepool_t;

void mdc_treepool_init(mdc_treepool_t *p, const mdc_graph_t *g);
void mdc_treepool_fini(mdc_treepool_t *p);

/* Fills out (reusing its memory) for root; -1 on out of memory. */
int mdc_root_solve(mdc_treepool_t *pool, uint32_t root, mdc_rootres_t *out);
void mdc_rootres_fini(mdc_rootres_t *res);

static inline const mdc_root_entry_t *
mdc_rootres_entry(const mdc_rootres_t *r, const mdc_graph_t *g, size_t iv,
                  uint32_t node)
{
    return &r->e[iv * g->num_hosts + node];
}

static inline const mdc_root_line_t *
mdc_rootres_line(const mdc_rootres_t *r, const mdc_graph_t *g, size_t iv,
                 uint32_t node)
{
    return &r->line[iv * g->num_hosts + node];
}

#endif /* MDC_ROOTSOLVE_H */
