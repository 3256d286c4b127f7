/*
 * mdc_hubgraph.h - the hub graph: the switches, rings and buses only,
 * with the nodes contracted into its edges.
 *
 * When every node is attached to hubs only (no point-to-point link), a
 * route is: first hop into a hub, then hub to hub, either over a trunk or
 * through a node that forwards (hub -> node -> hub: free, the node's
 * forwarding cost, then its network's time), and last hop out of a hub.
 * So the best paths from a node to all others follow from those to the
 * hubs, computed on this graph of about N/4 vertices instead of the
 * multigraph's 1.25 N.
 *
 * The forwarding nodes between two hubs are many (the 8 nodes of a ring
 * all join it to their switch), but those that cost the same (the same
 * forwarding profile; both hubs fix the networks) differ only in the tie
 * hash, so only the one with the least hash can be on a best path and the
 * others are left out: one edge per hub pair and forwarding profile.
 * (The node that a route starts from may be that one; the route never
 * forwards through it, but it never needs to: it is on the second hub
 * itself, and going there directly is better.)
 */
#ifndef MDC_HUBGRAPH_H
#define MDC_HUBGRAPH_H

#include "mdc_graph.h"

typedef struct mdc_hubedge {
    uint32_t to;                    /**< hub index (vertex - num_hosts) */
    int32_t  relay;                 /**< the forwarding node; -1: trunk */
    uint32_t rank;                  /**< tie-break sums (mdc_label_t) */
    uint64_t tie;
    uint64_t key;                   /**< path key: the links' keys */
    uint8_t  nosys;                 /**< a link cannot carry system msgs */
} mdc_hubedge_t;

typedef struct mdc_hubgraph {
    uint32_t       num_hubs;
    uint32_t       num_edges;
    uint32_t      *first;           /**< CSR: edges of hub h */
    mdc_hubedge_t *edge;
    mdc_line_t    *line;            /**< [class * num_edges + edge]: the
                                         forwarding cost plus the second
                                         hop, or the trunk's latency */
    uint32_t      *same_hubs_until; /**< [node]: the last of the nodes
                                         from this one on that are on the
                                         same hubs (in the same order) */
} mdc_hubgraph_t;

/* Builds g's hub graph into *out, or sets it NULL when some node has a
 * point-to-point link or more than MDC_MAX_HUBS hubs (such graphs are
 * routed on the multigraph).  -1 on out of memory. */
int mdc_hubgraph_build(const mdc_graph_t *g, mdc_hubgraph_t **out);
void mdc_hubgraph_free(mdc_hubgraph_t *hg);

#endif /* MDC_HUBGRAPH_H */
