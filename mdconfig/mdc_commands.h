/*
 * mdc_commands.h - the subcommands of mdconfig besides writing files:
 * each prints to out and returns the process exit status.
 */
#ifndef MDC_COMMANDS_H
#define MDC_COMMANDS_H

#include <stdio.h>

#include "mdc_graph.h"

/* --explain SRC DST SIZE: the route, each hop's subdevice and its cost. */
int mdc_explain(FILE *out, const mdc_graph_t *g, const char *src,
                const char *dst, size_t size);

/* --dot: Graphviz source of the topology, routes in use drawn bold.
 * size < 0 (as SIZE_MAX marker all_sizes): routes of every size. */
int mdc_dot(FILE *out, const mdc_graph_t *g, int all_sizes, size_t size,
            int threads);

/* --check: unreachable pairs, forwarding over subdevices without system
 * messages, asymmetric routes, cyclic channel dependencies. */
int mdc_check(FILE *out, const mdc_graph_t *g, int threads);

#endif /* MDC_COMMANDS_H */
