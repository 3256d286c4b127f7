/*
 * mdc_dijkstra.h - the modified Dijkstra: shortest paths from one node for
 * one message size over the multigraph of mdc_graph.h.
 *
 * Modified in three ways (P1 §5 says only "slightly modified"):
 *  - a path that passes through a node pays that node's forwarding cost
 *    for the size, and a node that may not forward is never passed through;
 *  - labels are compared as (time, intermediate nodes, sum of network
 *    ranks, sum of link hashes): every part is a sum over the path, the
 *    same in both directions, so ties break the same way from either end
 *    (symmetric routes) and never depend on the order of input lines;
 *  - besides the cost, each node's label records what the per-node file
 *    needs: the network of the first hop, the first intermediate node,
 *    and the path's cost line (A + B*size) for finding crossovers.
 */
#ifndef MDC_DIJKSTRA_H
#define MDC_DIJKSTRA_H

#include "mdc_graph.h"

typedef struct mdc_label {
    mdc_u128 cost;                  /**< fs at the tree's size */
    uint32_t relays;                /**< intermediate nodes */
    uint32_t rank;                  /**< sum of network ranks */
    uint64_t tie;                   /**< sum of link hashes */
} mdc_label_t;

typedef struct mdc_tree {
    const mdc_graph_t *g;
    uint32_t     src;
    size_t       size;
    size_t       cls;
    mdc_label_t *label;             /**< [vertex] */
    mdc_u128    *line_a, *line_b;   /**< [vertex] the path's cost line */
    uint64_t    *pathkey;           /**< [vertex] sum of link keys */
    int32_t     *pred_edge;         /**< [vertex] edge index entering it */
    uint32_t    *pred;              /**< [vertex] */
    int32_t     *first_net;         /**< [vertex] network of the first hop */
    int32_t     *first_host;        /**< [vertex] first node after src */
    uint8_t     *nosys;             /**< [vertex] a hop lacks system msgs */
    uint8_t     *reached;           /**< [vertex] */
    /* workspace */
    struct mdc_heap_entry *heap;
    uint32_t    *heap_pos;
    uint8_t     *done;
    uint32_t    *order;             /**< vertices in the order settled */
    uint32_t     num_order;
    mdc_u128    *net_cost;          /**< [network] cost at the size */
} mdc_tree_t;

/* The per-vertex arrays both trees (mdc_tree_t and the hub graph's
 * mdc_hubtree_t) have under these names, as mdc_array_t initializers
 * (mdc_mem.h). */
#define MDC_TREE_ARRAYS(t)                                                   \
    { (void **)&(t)->label, sizeof(*(t)->label) },                          \
    { (void **)&(t)->line_a, sizeof(*(t)->line_a) },                        \
    { (void **)&(t)->line_b, sizeof(*(t)->line_b) },                        \
    { (void **)&(t)->pathkey, sizeof(*(t)->pathkey) },                      \
    { (void **)&(t)->pred_edge, sizeof(*(t)->pred_edge) },                  \
    { (void **)&(t)->pred, sizeof(*(t)->pred) },                            \
    { (void **)&(t)->first_host, sizeof(*(t)->first_host) },                \
    { (void **)&(t)->nosys, 1 }, { (void **)&(t)->reached, 1 },             \
    { (void **)&(t)->done, 1 },                                             \
    { (void **)&(t)->heap, sizeof(*(t)->heap) },                            \
    { (void **)&(t)->heap_pos, sizeof(*(t)->heap_pos) },                    \
    { (void **)&(t)->order, sizeof(*(t)->order) }

mdc_tree_t *mdc_tree_new(const mdc_graph_t *g);
void mdc_tree_free(mdc_tree_t *t);

/* Fills t with the shortest paths from src for a message of size bytes.
 * first_net >= 0 restricts the first hop to that network (--explain's
 * alternatives). */
void mdc_dijkstra(mdc_tree_t *t, uint32_t src, size_t size, int first_net);

/* Is the tree t (computed for another size) still the best one for size?
 * Recomputes its labels for size (the paths stay) and checks that no edge
 * offers any vertex a better label: one pass over the edges instead of a
 * Dijkstra run.  On 0 the tree's labels are stale: run mdc_dijkstra. */
int mdc_tree_still_best(mdc_tree_t *t, size_t size);

static inline int mdc_label_less(const mdc_label_t *x, const mdc_label_t *y)
{
    if (x->cost != y->cost)
        return x->cost < y->cost;
    if (x->relays != y->relays)
        return x->relays < y->relays;
    if (x->rank != y->rank)
        return x->rank < y->rank;
    return x->tie < y->tie;
}

/* For a reached node d: its next hop (-1 = direct) and the network of the
 * first hop. */
static inline int mdc_tree_next_hop(const mdc_tree_t *t, uint32_t d)
{
    return t->first_host[d] == (int32_t)d ? -1 : t->first_host[d];
}

#endif /* MDC_DIJKSTRA_H */
