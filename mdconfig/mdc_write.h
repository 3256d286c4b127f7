/*
 * mdc_write.h - write every node's file into a directory (mdconfig -o).
 * Files are written under temporary names and renamed only when every
 * node has a route to every other: a failed run leaves no files behind
 * that libmultidev could pick up.
 */
#ifndef MDC_WRITE_H
#define MDC_WRITE_H

#include "mdc_run.h"

/* 0: all written; 1: problems found (reported on stderr, nothing
 * written); -1: an I/O or memory error (reported).  rails: write each
 * node's rails lines (doc/mdconfig.md "Rails"; 0: --rails=off). */
int mdc_write_all(const mdc_graph_t *g, const char *outdir, int threads,
                  int rails, mdc_problems_t *problems);

/* Only node's file (mdconfig --node): its routes alone, so it takes a few
 * Dijkstra runs however large the cluster; the problems checked are those
 * of node's own routes.  Returns as mdc_write_all. */
int mdc_write_node(const mdc_graph_t *g, const char *outdir, uint32_t node,
                   int rails, mdc_problems_t *problems);

#endif /* MDC_WRITE_H */
