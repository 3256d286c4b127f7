/*
 * mdc_run.h - route every node, in parallel, and hand each node's routes
 * to a visitor (the file writer, the checks, the picture).  Sources are
 * independent, so workers take them from a shared counter; what a visitor
 * produces for one source depends only on that source, so the output does
 * not depend on the number of threads.
 */
#ifndef MDC_RUN_H
#define MDC_RUN_H

#include "mdc_route.h"

/* Problems every run finds (mdconfig -o refuses to write files then). */
typedef struct mdc_problems {
    size_t   unreachable;           /**< ordered pairs with no route */
    uint32_t unreach_src, unreach_dst;
    size_t   nosys;                 /**< forwarded routes with a hop that
                                         cannot carry system messages */
    uint32_t nosys_src, nosys_dst;
    size_t   nosys_lo;
    size_t   dijkstra_runs;
    size_t   intervals;             /**< route segments, all sources */
    size_t   copied;                /**< sources whose routes were copied
                                         from the previous one's */
} mdc_problems_t;

/* Called once per source, from worker `worker` (0..threads-1).  Nonzero
 * stops the run. */
typedef int (*mdc_visit_fn)(void *ctx, int worker, const mdc_routes_t *r);

/* threads <= 0: MULTIDEV_MDCONFIG_THREADS, else the online CPUs (at most
 * 256); -1 after an error line if the variable is malformed. */
int mdc_run_threads(int threads);

/* How the visitor gets the routes: every node's with every segment
 * (MDC_ROUTES_FULL: the checks, the picture), or, where routes were
 * copied, as runs of alike nodes only (MDC_ROUTES_RUNS: the files; see
 * mdc_routes_t). */
typedef enum mdc_routes_form { MDC_ROUTES_FULL, MDC_ROUTES_RUNS } mdc_routes_form_t;

/* 0, or -1 if a visitor failed or memory ran out. */
int mdc_for_each_source(const mdc_graph_t *g, int threads,
                        mdc_routes_form_t form, mdc_visit_fn fn, void *ctx,
                        mdc_problems_t *problems);

/* The same for the one source src (mdconfig --node): problems are those
 * of src's own routes. */
int mdc_for_one_source(const mdc_graph_t *g, uint32_t src,
                       mdc_routes_form_t form, mdc_visit_fn fn, void *ctx,
                       mdc_problems_t *problems);

/* Prints the problems to f, each line starting with prefix; returns how
 * many kinds were found. */
int mdc_problems_report(FILE *f, const char *prefix, const mdc_desc_t *d,
                        const mdc_problems_t *p);

#endif /* MDC_RUN_H */
