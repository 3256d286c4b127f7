/* mdc_run.c - the parallel loop over sources (mdc_run.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_tun.h"
#include "mdc_run.h"

/* Workers take sources in chunks of consecutive entries of `order`, which
 * lists nodes sharing a hub next to each other: a worker's hub cache then
 * serves a whole chunk. */
#define CHUNK 32

typedef struct run {
    const mdc_graph_t *g;
    mdc_visit_fn       fn;
    void              *ctx;
    const uint32_t    *order;        /* the sources, in the order taken */
    uint32_t           count;
    mdc_routes_form_t  form;
    uint32_t           next;         /* atomic: next chunk start */
    int                failed;       /* atomic */
} run_t;

typedef struct worker {
    run_t         *run;
    int            id;
    mdc_problems_t prob;
    pthread_t      thread;
} worker_t;

static void say_error(const char *line)
{
    fprintf(stderr, "mdconfig: error: %s\n", line);
}

int mdc_run_threads(int threads)
{
    long long env;
    int origin;

    if (threads > 0)
        return threads;
    if ((origin = md_tun_env_num("MULTIDEV_MDCONFIG_THREADS", &env, say_error)) < 0)
        return -1;
    if (origin == MD_TUN_ENV)
        return (int)env;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (n > 256 ? 256 : (int)n) : 1;
}

/* Keeps the example with the smallest (src, dst): the same whatever the
 * order the workers ran in. */
static void note(uint32_t *src, uint32_t *dst, size_t count, uint32_t s,
                 uint32_t d)
{
    if (count == 0 || s < *src || (s == *src && d < *dst)) {
        *src = s;
        *dst = d;
    }
}

static void examine(mdc_problems_t *p, const mdc_routes_t *r)
{
    p->dijkstra_runs += r->dijkstra_runs;
    p->copied += (size_t)r->copied;
    for (size_t k = 0; k < r->num_runs; k++) {
        const mdc_prun_t *x = &r->run[k];
        const mdc_rseg_t *seg = mdc_rseg_at(r->rseg, x->seg);
        size_t len = (size_t)x->hi - x->lo + 1;
        if (x->lo == r->src)
            continue;
        p->intervals += len * x->num;
        /* the run's first node is its smallest: the example to note */
        if (x->num == 0) {
            note(&p->unreach_src, &p->unreach_dst, p->unreachable, r->src,
                 x->lo);
            p->unreachable += len;
            continue;
        }
        for (uint32_t i = 0; i < x->num; i++) {
            const mdc_decision_t *dec = &seg[i].dec;
            if (dec->relays == 0 || !dec->nosys)
                continue;
            if (p->nosys == 0 || r->src < p->nosys_src ||
                (r->src == p->nosys_src && x->lo < p->nosys_dst))
                p->nosys_lo = seg[i].lo;
            note(&p->nosys_src, &p->nosys_dst, p->nosys, r->src, x->lo);
            p->nosys += len;
            break;
        }
    }
}

static void *work(void *arg)
{
    worker_t *w = arg;
    run_t *run = w->run;
    mdc_router_t *router = mdc_router_new(run->g);
    mdc_routes_t routes;

    memset(&routes, 0, sizeof(routes));
    if (router == NULL) {
        __atomic_store_n(&run->failed, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    router->compact = run->form == MDC_ROUTES_RUNS;
    for (;;) {
        uint32_t start = __atomic_fetch_add(&run->next, CHUNK,
                                            __ATOMIC_RELAXED);
        if (start >= run->count ||
            __atomic_load_n(&run->failed, __ATOMIC_RELAXED))
            break;
        for (uint32_t i = start; i < start + CHUNK && i < run->count; i++) {
            if (mdc_route_source(router, run->order[i], &routes) != 0 ||
                (examine(&w->prob, &routes),
                 run->fn != NULL && run->fn(run->ctx, w->id, &routes) != 0)) {
                __atomic_store_n(&run->failed, 1, __ATOMIC_RELAXED);
                break;
            }
        }
    }
    mdc_routes_fini(&routes);
    mdc_router_free(router);
    return NULL;
}

static void merge(mdc_problems_t *into, const mdc_problems_t *p)
{
    if (p->unreachable > 0)
        note(&into->unreach_src, &into->unreach_dst, into->unreachable,
             p->unreach_src, p->unreach_dst);
    if (p->nosys > 0) {
        if (into->nosys == 0 || p->nosys_src < into->nosys_src ||
            (p->nosys_src == into->nosys_src && p->nosys_dst < into->nosys_dst))
            into->nosys_lo = p->nosys_lo;
        note(&into->nosys_src, &into->nosys_dst, into->nosys, p->nosys_src,
             p->nosys_dst);
    }
    into->unreachable += p->unreachable;
    into->nosys += p->nosys;
    into->dijkstra_runs += p->dijkstra_runs;
    into->intervals += p->intervals;
    into->copied += p->copied;
}

/* Nodes by their first hub (the lowest vertex they reach in one edge),
 * then by index. */
static uint32_t *hub_order(const mdc_graph_t *g)
{
    uint64_t *key = malloc(g->num_hosts * sizeof(*key));
    uint32_t *order = malloc((g->num_hosts + 1) * sizeof(*order));

    if (key == NULL || order == NULL) {
        free(key);
        free(order);
        return NULL;
    }
    for (uint32_t h = 0; h < g->num_hosts; h++) {
        uint32_t low = UINT32_MAX;
        for (uint32_t ei = g->first[h]; ei < g->first[h + 1]; ei++)
            if (g->edges[ei].to < low)
                low = g->edges[ei].to;
        key[h] = (uint64_t)low << 32 | h;
    }
    /* radix would do; n log n is nothing next to routing */
    for (uint32_t h = 0; h < g->num_hosts; h++)
        order[h] = h;
    for (uint32_t gap = g->num_hosts / 2; gap > 0; gap /= 2)  /* shell sort */
        for (uint32_t i = gap; i < g->num_hosts; i++)
            for (uint32_t j = i; j >= gap &&
                 key[order[j - gap]] > key[order[j]]; j -= gap) {
                uint32_t t = order[j];
                order[j] = order[j - gap];
                order[j - gap] = t;
            }
    free(key);
    return order;
}

/* Routes order[0..count) on n threads (the caller is worker 0). */
static int run_sources(const mdc_graph_t *g, const uint32_t *order,
                       uint32_t count, int n, mdc_routes_form_t form,
                       mdc_visit_fn fn, void *ctx, mdc_problems_t *problems)
{
    run_t run = { g, fn, ctx, order, count, form, 0, 0 };
    worker_t *w;

    if ((uint32_t)n > count)
        n = count > 0 ? (int)count : 1;
    w = calloc((size_t)n, sizeof(*w));
    if (w == NULL)
        return -1;
    memset(problems, 0, sizeof(*problems));
    for (int i = 0; i < n; i++) {
        w[i].run = &run;
        w[i].id = i;
        if (i > 0 && pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
            run.failed = 1;
            n = i;
            break;
        }
    }
    if (!run.failed)
        work(&w[0]);
    for (int i = 1; i < n; i++)
        pthread_join(w[i].thread, NULL);
    for (int i = 0; i < n; i++)
        merge(problems, &w[i].prob);
    free(w);
    return run.failed ? -1 : 0;
}

int mdc_for_each_source(const mdc_graph_t *g, int threads,
                        mdc_routes_form_t form, mdc_visit_fn fn, void *ctx,
                        mdc_problems_t *problems)
{
    int n = mdc_run_threads(threads);

    if (n < 0)
        return -1;
    uint32_t *order = hub_order(g);
    if (order == NULL)
        return -1;
    int rc = run_sources(g, order, g->num_hosts, n, form, fn, ctx, problems);
    free(order);
    return rc;
}

int mdc_for_one_source(const mdc_graph_t *g, uint32_t src,
                       mdc_routes_form_t form, mdc_visit_fn fn, void *ctx,
                       mdc_problems_t *problems)
{
    return run_sources(g, &src, 1, 1, form, fn, ctx, problems);
}

int mdc_problems_report(FILE *f, const char *prefix, const mdc_desc_t *d,
                        const mdc_problems_t *p)
{
    int kinds = 0;

    if (p->unreachable > 0) {
        fprintf(f, "%s%s: node %s cannot reach node %s (%zu "
                "ordered pair%s without a route; are the networks connected, "
                "and may the nodes between them forward?)\n", prefix, d->source,
                d->nodes[p->unreach_src].name, d->nodes[p->unreach_dst].name,
                p->unreachable, p->unreachable == 1 ? "" : "s");
        kinds++;
    }
    if (p->nosys > 0) {
        fprintf(f, "%s%s: the route from %s to %s (from %zu "
                "bytes) is forwarded over a network whose subdevice cannot "
                "carry system messages (%zu route%s; declare the type with "
                "sysmsg=yes if it can, or forbid forwarding there)\n",
                prefix, d->source, d->nodes[p->nosys_src].name,
                d->nodes[p->nosys_dst].name, p->nosys_lo, p->nosys,
                p->nosys == 1 ? "" : "s");
        kinds++;
    }
    return kinds;
}
