/*
 * mdc_nodefile.h - turn one node's routes into its per-node file
 * (doc/node-config.md): device list, route lines, arrive lines, rails
 * lines.
 */
#ifndef MDC_NODEFILE_H
#define MDC_NODEFILE_H

#include <stdio.h>

#include "mdc_rails.h"
#include "mdc_route.h"

/* The order of a file's peers, the same in every file: node indices
 * sorted by name (byte order), and for each whether its name follows the
 * previous one's (md_names_follows: the two may share a range); stride:
 * how many peers from this one on have consecutive indices and names that
 * follow each other (a run of alike nodes, mdc_prun_t, is then written a
 * stretch at a time). */
typedef struct mdc_peer_order {
    uint32_t *node;
    uint8_t  *follows;
    uint32_t *stride;
} mdc_peer_order_t;

/* 0, or -1 on out of memory. */
int mdc_peer_order_init(mdc_peer_order_t *o, const mdc_desc_t *desc);
void mdc_peer_order_fini(mdc_peer_order_t *o);

/* Writes routes->src's file to f: a comment naming the description, then
 * the canonical form (md_nodeconf_write's bytes for the same content,
 * peers with the same lines as ranges), streamed from the routes without
 * building the node's md_nodeconf; with rails (NULL: none, --rails=off)
 * each peer's rails line too, worked out in sr (one per thread, kept from
 * file to file: see mdc_src_rails_t).  0, or -1 on a write error or out
 * of memory. */
int mdc_nodefile_write(FILE *f, const mdc_graph_t *g,
                       const mdc_routes_t *routes,
                       const mdc_peer_order_t *order,
                       const mdc_rails_t *rails, mdc_src_rails_t *sr);

#endif /* MDC_NODEFILE_H */
