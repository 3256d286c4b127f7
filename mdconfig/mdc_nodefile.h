/*
 * mdc_nodefile.h - turn one node's routes into its per-node file
 * (doc/node-config.md): device list, route lines, arrive lines.
 */
#ifndef MDC_NODEFILE_H
#define MDC_NODEFILE_H

#include <stdio.h>

#include "mdc_route.h"

/* Node indices sorted by name (byte order): the order of the file's route
 * lines, so that md_nodeconf only ever appends. */
uint32_t *mdc_nodes_by_name(const mdc_desc_t *desc);

/* Builds the configuration of routes->src; NULL on out of memory. */
md_nodeconf_t *mdc_nodefile_build(const mdc_graph_t *g,
                                  const mdc_routes_t *routes,
                                  const uint32_t *by_name);

/* Writes it with a comment header naming the description. */
int mdc_nodefile_write(FILE *f, const mdc_desc_t *desc, uint32_t node,
                       const md_nodeconf_t *conf);

#endif /* MDC_NODEFILE_H */
