/*
 * mdc_nodefile.h - turn one node's routes into its per-node file
 * (doc/node-config.md): device list, route lines, arrive lines.
 */
#ifndef MDC_NODEFILE_H
#define MDC_NODEFILE_H

#include <stdio.h>

#include "mdc_route.h"

/* Node indices sorted by name (byte order): the order of the file's route
 * lines, and of its peer ranges. */
uint32_t *mdc_nodes_by_name(const mdc_desc_t *desc);

/* Writes routes->src's file to f: a comment naming the description, then
 * the canonical form (md_nodeconf_write's bytes for the same content,
 * peers with the same lines as ranges), streamed from the routes without
 * building the node's md_nodeconf.  0, or -1 on a write error or out of
 * memory. */
int mdc_nodefile_write(FILE *f, const mdc_graph_t *g,
                       const mdc_routes_t *routes, const uint32_t *by_name);

#endif /* MDC_NODEFILE_H */
