/*
 * mdc_check.c - mdconfig --check: route every node and report
 *  - pairs of nodes with no route (unreachable nodes),
 *  - forwarded routes with a hop over a subdevice that cannot carry the
 *    system messages forwarding needs,
 *  - asymmetric routes (the route from A to B is not the route from B to A
 *    reversed, for some size),
 *  - cycles among the channel dependencies of forwarded routes: a relay
 *    holds a message on the channel it arrived on while it waits for the
 *    next one; a cycle of such waits can deadlock when buffers run out.
 *    A channel is (node, next node, network).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mdc_commands.h"
#include "mdc_path.h"
#include "mdc_run.h"

#define MAX_HOPS       256
#define MAX_WORKERS    256
#define SYMMETRY_LIMIT 8192         /* nodes; N^2/2 words of memory */

typedef struct dep {
    uint64_t from, to;              /* channel keys */
} dep_t;

typedef struct check {
    const mdc_graph_t *g;
    uint64_t          *pair_hash;   /* [pair]: XOR of both directions */
    mdc_tree_t        *tree[MAX_WORKERS];
    dep_t             *deps[MAX_WORKERS];
    size_t             num_deps[MAX_WORKERS], cap_deps[MAX_WORKERS];
    size_t             forwarded[MAX_WORKERS];
} check_t;

static uint64_t channel_key(uint32_t u, uint32_t v, int net)
{
    return (uint64_t)u << 42 | (uint64_t)v << 20 | (uint64_t)(uint32_t)net;
}

static size_t pair_index(uint32_t a, uint32_t b)
{
    if (a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    return (size_t)b * (b - 1) / 2 + a;
}

/* A route's identity over all sizes: its segments (lo, path), which are
 * the same seen from either end when the route is symmetric. */
static uint64_t route_hash(const mdc_routes_t *r, uint32_t d)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;

    for (uint32_t i = r->first[d]; i < r->first[d + 1]; i++) {
        uint64_t x[2] = { r->seg[i].lo, r->seg[i].dec.pathkey };
        /* merge segments whose paths are equal */
        if (i > r->first[d] && r->seg[i - 1].dec.pathkey == x[1])
            continue;
        h = mdc_hash_bytes(x, sizeof(x), h);
    }
    return h;
}

static int add_dep(check_t *c, int w, uint64_t from, uint64_t to)
{
    if (c->num_deps[w] == c->cap_deps[w]) {
        size_t cap = c->cap_deps[w] ? 2 * c->cap_deps[w] : 256;
        dep_t *d = realloc(c->deps[w], cap * sizeof(*d));
        if (d == NULL)
            return -1;
        c->deps[w] = d;
        c->cap_deps[w] = cap;
    }
    c->deps[w][c->num_deps[w]++] = (dep_t){ from, to };
    return 0;
}

/* Dependencies of the forwarded segments of size lo. */
static int follow(check_t *c, int w, const mdc_routes_t *r, size_t lo)
{
    const mdc_graph_t *g = c->g;
    mdc_hop_t hops[MAX_HOPS];

    if (c->tree[w] == NULL && (c->tree[w] = mdc_tree_new(g)) == NULL)
        return -1;
    mdc_dijkstra(c->tree[w], r->src, lo, -1);
    for (uint32_t d = 0; d < g->num_hosts; d++)
        for (uint32_t i = r->first[d]; i < r->first[d + 1]; i++) {
            if (r->seg[i].lo != lo || r->seg[i].dec.relays == 0)
                continue;
            c->forwarded[w]++;
            size_t n = mdc_path_hops(c->tree[w], d, hops, MAX_HOPS);
            for (size_t k = 1; k < n; k++)
                if (add_dep(c, w, channel_key(hops[k - 1].from,
                                              hops[k - 1].to,
                                              hops[k - 1].network),
                            channel_key(hops[k].from, hops[k].to,
                                        hops[k].network)) != 0)
                    return -1;
        }
    return 0;
}

static int visit(void *ctx, int w, const mdc_routes_t *r)
{
    check_t *c = ctx;
    const mdc_graph_t *g = c->g;

    if (w >= MAX_WORKERS)
        return -1;
    for (uint32_t d = 0; d < g->num_hosts && c->pair_hash != NULL; d++)
        if (d != r->src)
            __atomic_fetch_xor(&c->pair_hash[pair_index(r->src, d)],
                               route_hash(r, d), __ATOMIC_RELAXED);
    /* distinct sizes that start forwarded segments */
    size_t done_lo[64], ndone = 0;
    for (uint32_t i = 0; i < r->num_seg; i++) {
        if (r->seg[i].dec.relays == 0)
            continue;
        size_t lo = r->seg[i].lo, k = 0;
        while (k < ndone && done_lo[k] != lo)
            k++;
        if (k < ndone)
            continue;
        if (ndone < 64)
            done_lo[ndone++] = lo;
        if (follow(c, w, r, lo) != 0)
            return -1;
    }
    return 0;
}

/* ---- cycle search over the channel dependency graph */

static int cmp_dep(const void *x, const void *y)
{
    const dep_t *a = x, *b = y;

    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return a->to < b->to ? -1 : a->to > b->to;
}

static size_t find_from(const dep_t *d, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d[mid].from < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void print_channel(FILE *out, const mdc_desc_t *d, uint64_t key)
{
    uint32_t u = (uint32_t)(key >> 42), v = (uint32_t)(key >> 20) & 0x3fffff;
    int net = (int)(key & 0xfffff);

    fprintf(out, "%s -> %s (%s)", d->nodes[u].name, d->nodes[v].name,
            d->networks[net].name);
}

/* Iterative depth-first search; on a cycle prints it and returns 1. */
static int find_cycle(FILE *out, const mdc_desc_t *desc, const dep_t *d,
                      size_t n)
{
    uint8_t *state = calloc(n + 1, 1);   /* per dep index of its `from` */
    size_t *stack = malloc((n + 1) * sizeof(*stack));
    size_t *next = malloc((n + 1) * sizeof(*next));
    int found = 0;

    if (state == NULL || stack == NULL || next == NULL)
        goto out;
    /* a channel is identified by the first dep index with that `from`;
     * channels with no outgoing dep are never on a cycle */
    for (size_t s0 = 0; s0 < n && !found; s0++) {
        if (state[s0] != 0 || (s0 > 0 && d[s0 - 1].from == d[s0].from))
            continue;
        size_t depth = 0;
        stack[depth] = s0;
        next[depth] = s0;
        state[s0] = 1;
        depth++;
        while (depth > 0 && !found) {
            size_t top = stack[depth - 1], i = next[depth - 1];
            if (i >= n || d[i].from != d[top].from) {
                state[top] = 2;
                depth--;
                continue;
            }
            next[depth - 1] = i + 1;
            size_t child = find_from(d, n, d[i].to);
            if (child >= n || d[child].from != d[i].to)
                continue;                /* a channel with no dependency */
            if (state[child] == 1) {
                fprintf(out, "  cycle: ");
                size_t k = 0;
                while (stack[k] != child)
                    k++;
                for (; k < depth; k++) {
                    print_channel(out, desc, d[stack[k]].from);
                    fprintf(out, " waits for ");
                }
                print_channel(out, desc, d[child].from);
                fprintf(out, "\n");
                found = 1;
            } else if (state[child] == 0) {
                state[child] = 1;
                stack[depth] = child;
                next[depth] = child;
                depth++;
            }
        }
    }
out:
    free(state);
    free(stack);
    free(next);
    return found;
}

static size_t merge_deps(check_t *c, dep_t **all)
{
    size_t n = 0, k = 0;

    for (int w = 0; w < MAX_WORKERS; w++)
        n += c->num_deps[w];
    *all = malloc((n + 1) * sizeof(**all));
    if (*all == NULL)
        return 0;
    for (int w = 0; w < MAX_WORKERS; w++) {
        if (c->num_deps[w] > 0)
            memcpy(*all + k, c->deps[w], c->num_deps[w] * sizeof(dep_t));
        k += c->num_deps[w];
    }
    qsort(*all, n, sizeof(**all), cmp_dep);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || cmp_dep(&(*all)[u - 1], &(*all)[i]) != 0)
            (*all)[u++] = (*all)[i];
    return u;
}

static int report_symmetry(FILE *out, const check_t *c)
{
    const mdc_desc_t *d = c->g->desc;
    size_t bad = 0;
    uint32_t ba = 0, bb = 0;

    if (c->pair_hash == NULL) {
        fprintf(out, "  symmetry: not checked (more than %d nodes)\n",
                SYMMETRY_LIMIT);
        return 0;
    }
    for (uint32_t b = 1; b < c->g->num_hosts; b++)
        for (uint32_t a = 0; a < b; a++)
            if (c->pair_hash[pair_index(a, b)] != 0 && bad++ == 0) {
                ba = a;
                bb = b;
            }
    if (bad == 0) {
        fprintf(out, "  symmetry: ok (every route is the reverse of the route "
                "back, for every size)\n");
        return 0;
    }
    fprintf(out, "  symmetry: %zu pair%s with asymmetric routes, e.g. %s and "
            "%s (see mdconfig --explain %s %s SIZE and the reverse)\n", bad,
            bad == 1 ? "" : "s", d->nodes[ba].name, d->nodes[bb].name,
            d->nodes[ba].name, d->nodes[bb].name);
    return 1;
}

int mdc_check(FILE *out, const mdc_graph_t *g, int threads)
{
    const mdc_desc_t *d = g->desc;
    check_t *c = calloc(1, sizeof(*c));
    mdc_problems_t prob;
    dep_t *deps = NULL;
    int bad = 0;

    if (c == NULL)
        goto oom;
    c->g = g;
    if (g->num_hosts <= SYMMETRY_LIMIT &&
        (c->pair_hash = calloc((size_t)g->num_hosts * g->num_hosts / 2 + 1,
                               sizeof(uint64_t))) == NULL)
        goto oom;
    if (mdc_for_each_source(g, threads, MDC_ROUTES_FULL, visit, c, &prob) != 0)
        goto oom;
    fprintf(out, "%s: %zu nodes, %zu networks, %zu size classes\n", d->source,
            d->num_nodes, d->num_networks, g->num_classes);
    bad += mdc_problems_report(out, "  problem: ", d, &prob) > 0;
    if (prob.unreachable == 0)
        fprintf(out, "  reachability: ok (every node reaches every other)\n");
    if (prob.nosys == 0)
        fprintf(out, "  system messages: ok (every forwarded route runs over "
                "subdevices that carry them)\n");
    bad += report_symmetry(out, c);
    size_t fwd = 0, n = merge_deps(c, &deps);
    for (int w = 0; w < MAX_WORKERS; w++)
        fwd += c->forwarded[w];
    if (find_cycle(out, d, deps, n)) {
        fprintf(out, "  channel dependencies: a cycle among %zu dependencies "
                "of %zu forwarded route segments: deadlock risk when relay "
                "buffers fill up\n", n, fwd);
        bad++;
    } else {
        fprintf(out, "  channel dependencies: ok (%zu forwarded route "
                "segment%s, %zu dependenc%s, no cycle)\n", fwd,
                fwd == 1 ? "" : "s", n, n == 1 ? "y" : "ies");
    }
    fprintf(out, "%s\n", bad ? "problems found" : "no problems found");
    goto out;
oom:
    fprintf(stderr, "mdconfig: error: out of memory\n");
    bad = 1;
out:
    if (c != NULL) {
        for (int w = 0; w < MAX_WORKERS; w++) {
            mdc_tree_free(c->tree[w]);
            free(c->deps[w]);
        }
        free(c->pair_hash);
        free(c);
    }
    free(deps);
    return bad ? 1 : 0;
}
