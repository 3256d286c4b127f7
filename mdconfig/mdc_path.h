/*
 * mdc_path.h - a route as hops between nodes, read off a Dijkstra tree:
 * what --explain prints and what --check follows (channel dependencies).
 */
#ifndef MDC_PATH_H
#define MDC_PATH_H

#include "mdc_dijkstra.h"

/* One hop: from one node to the next over one network, through zero or
 * more hubs and trunks. */
typedef struct mdc_hop {
    uint32_t from, to;              /**< nodes */
    int      network;
    uint32_t first_edge;            /**< the edge leaving `from` */
    int      num_trunks;
    uint64_t trunk_fs;              /**< summed trunk latencies */
} mdc_hop_t;

/* The hops of the tree's path to node d (which must be reached), in order;
 * returns their number (at most max). */
size_t mdc_path_hops(const mdc_tree_t *t, uint32_t d, mdc_hop_t *hops,
                     size_t max);

#endif /* MDC_PATH_H */
