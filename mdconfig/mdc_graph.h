/*
 * mdc_graph.h - the weighted multigraph the router works on.
 *
 * Vertices are the nodes (hosts) 0..num_hosts-1, then one hub vertex per
 * switch, ring or bus of a network that carries traffic.  A node on a
 * segment has an ingress edge node->hub, costing the network's time for
 * the size, and an egress edge hub->node costing nothing; a trunk joins
 * two hubs at its latency; a point-to-point link is a pair of node->node
 * edges.  So a switch of k nodes costs 2k edges, not k^2, and a hop
 * node->hub->node costs exactly the network's time.
 *
 * Costs are lines a + b*size (femtoseconds) that change only at the
 * breakpoints of the profiles: the size classes.
 */
#ifndef MDC_GRAPH_H
#define MDC_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "mdc_desc.h"
#include "mdc_units.h"

typedef struct mdc_line {
    uint64_t a;                     /**< fs */
    uint64_t b;                     /**< fs per byte */
} mdc_line_t;

typedef enum mdc_edge_kind {
    MDC_EDGE_INGRESS,               /**< node -> hub: the network's time */
    MDC_EDGE_EGRESS,                /**< hub -> node: free */
    MDC_EDGE_LINK,                  /**< node -> node: the network's time */
    MDC_EDGE_TRUNK,                 /**< hub -> hub: the trunk's latency */
} mdc_edge_kind_t;

/* 32 bytes: what the Dijkstra inner loop reads, plus the trunk latency. */
typedef struct mdc_edge {
    uint32_t to;
    uint16_t network;
    uint8_t  kind;
    uint8_t  sysmsg;                /**< the network carries system msgs */
    uint32_t rank;                  /**< tie-break: network rank, 0 free */
    uint32_t segment;               /**< segment (or trunk for TRUNK) */
    uint64_t trunk_fs;
    uint64_t tie;                   /**< tie-break hash (40 bits) */
} mdc_edge_t;

/* A node on more hubs than this is routed from its own trees. */
#define MDC_MAX_HUBS   8

struct mdc_hubgraph;

typedef struct mdc_graph {
    const mdc_desc_t *desc;
    uint32_t    num_hosts;
    uint32_t    num_vertices;
    uint32_t   *first;              /**< CSR: edges of v are first[v]..first[v+1]-1 */
    mdc_edge_t *edges;
    uint64_t   *edge_key;           /**< [edge] identity of the undirected
                                         link (path identity, checks) */
    uint32_t   *hub_segment;        /**< [v - num_hosts] */
    int        *segment_hub;        /**< segment -> vertex, -1 if none */

    size_t     *bounds;             /**< class k starts at bounds[k] */
    size_t      num_classes;
    mdc_line_t *net_line;           /**< [class * num_networks + network] */
    mdc_line_t *fwd_line;           /**< [class * num_hosts + node] */
    uint8_t    *can_forward;        /**< [node] */
    struct mdc_hubgraph *hubs;      /**< the hubs joined through the nodes
                                         (mdc_hubgraph.h); NULL if some
                                         node has a link or too many hubs */
} mdc_graph_t;

/* Builds the graph; NULL on out of memory. */
mdc_graph_t *mdc_graph_build(const mdc_desc_t *desc);
void mdc_graph_free(mdc_graph_t *g);

/* The class holding size (bounds[k] <= size < bounds[k+1]). */
size_t mdc_graph_class_of(const mdc_graph_t *g, size_t size);
/* Last size of class k (SIZE_MAX for the last class). */
size_t mdc_graph_class_end(const mdc_graph_t *g, size_t k);

/* Cost of an edge at a size, using the lines of class k. */
mdc_u128 mdc_edge_cost(const mdc_graph_t *g, const mdc_edge_t *e, size_t k,
                       size_t size);
mdc_line_t mdc_edge_line(const mdc_graph_t *g, const mdc_edge_t *e, size_t k);

static inline mdc_u128 mdc_line_at(mdc_line_t l, size_t size)
{
    return (mdc_u128)l.a + (mdc_u128)l.b * size;
}

#endif /* MDC_GRAPH_H */
