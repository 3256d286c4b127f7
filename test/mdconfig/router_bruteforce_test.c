/*
 * The router against brute force: on many random small multigraphs (fixed
 * seeds), for every pair of nodes and many sizes, the route mdconfig
 * chooses must be the best of all simple paths, enumerated one by one
 * with the same cost and tie-break rules.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "mdc_test_util.h"

#define RUNS      300
#define MAX_TEXT  8192

/* ---- a random description */

static void add_profile_rows(char *t, size_t *o, mdct_rng_t *r,
                             const char *name)
{
    size_t from = 0;
    int rows = 1 + (int)mdct_rand(r, 3);

    for (int i = 0; i < rows; i++) {
        if (i > 0)
            from += 1 + mdct_rand(r, 20000);
        *o += (size_t)snprintf(t + *o, MAX_TEXT - *o,
                               "profile %s from=%zu latency=%uus", name, from,
                               1 + mdct_rand(r, 100));
        if (mdct_rand(r, 5) != 0)
            *o += (size_t)snprintf(t + *o, MAX_TEXT - *o, " bandwidth=%uMB/s",
                                   5 + mdct_rand(r, 200));
        *o += (size_t)snprintf(t + *o, MAX_TEXT - *o, "\n");
    }
}

static const char *forward_cost(mdct_rng_t *r, char *buf, size_t len)
{
    switch (mdct_rand(r, 3)) {
    case 0: return "no";
    case 1: snprintf(buf, len, "%uus", mdct_rand(r, 60)); return buf;
    default: return "fw";
    }
}

/* Members: a random subset of at least `min` of the n nodes. */
static int members(mdct_rng_t *r, int n, int min, char *out, size_t len)
{
    int count = 0, tries = 0;
    size_t o = 0;

    out[0] = '\0';
    while (count < min && tries++ < 4) {
        count = 0;
        o = 0;
        for (int i = 0; i < n; i++)
            if (mdct_rand(r, 2)) {
                o += (size_t)snprintf(out + o, len - o, " n%d", i);
                count++;
            }
    }
    if (count < min) {                       /* fall back: the first ones */
        o = 0;
        for (count = 0; count < min; count++)
            o += (size_t)snprintf(out + o, len - o, " n%d", count);
    }
    return count;
}

static void random_desc(mdct_rng_t *r, char *t)
{
    static const char *const types[] = { "sci", "via", "myri" };
    int n = 2 + (int)mdct_rand(r, 5), nets = 1 + (int)mdct_rand(r, 3);
    char buf[32], mem[256];
    size_t o = 0;

    o += (size_t)snprintf(t + o, MAX_TEXT - o, "multidev-network 1\n");
    add_profile_rows(t, &o, r, "fw");
    for (int k = 0; k < nets; k++) {
        snprintf(buf, sizeof(buf), "p%d", k);
        add_profile_rows(t, &o, r, buf);
    }
    o += (size_t)snprintf(t + o, MAX_TEXT - o, "forward %s\n",
                          forward_cost(r, buf, sizeof(buf)));
    for (int i = 0; i < n; i++) {
        o += (size_t)snprintf(t + o, MAX_TEXT - o, "node n%d", i);
        if (mdct_rand(r, 3) == 0)
            o += (size_t)snprintf(t + o, MAX_TEXT - o, " forward=%s",
                                  forward_cost(r, buf, sizeof(buf)));
        o += (size_t)snprintf(t + o, MAX_TEXT - o, "\n");
    }
    for (int k = 0; k < nets; k++) {
        o += (size_t)snprintf(t + o, MAX_TEXT - o,
                              "network net%d type=%s profile=p%d\n", k,
                              types[k], k);
        switch (mdct_rand(r, 4)) {
        case 0: {                              /* two switches, a trunk */
            char m2[256] = "";
            size_t o1 = 0, o2 = 0;
            mem[0] = '\0';
            for (int i = 0; i < n; i++) {
                uint32_t where = mdct_rand(r, 3);
                if (where == 1)
                    o1 += (size_t)snprintf(mem + o1, sizeof(mem) - o1, " n%d", i);
                else if (where == 2)
                    o2 += (size_t)snprintf(m2 + o2, sizeof(m2) - o2, " n%d", i);
            }
            o += (size_t)snprintf(t + o, MAX_TEXT - o,
                                  "switch net%d s0%s\nswitch net%d s1%s\n"
                                  "trunk net%d s0 s1 latency=%uus\n", k, mem, k,
                                  m2, k, mdct_rand(r, 5));
            break;
        }
        case 1:
            members(r, n, 2, mem, sizeof(mem));
            o += (size_t)snprintf(t + o, MAX_TEXT - o, "ring net%d r%s\n", k,
                                  mem);
            break;
        case 2:
            members(r, n, 2, mem, sizeof(mem));
            o += (size_t)snprintf(t + o, MAX_TEXT - o, "bus net%d b%s\n", k,
                                  mem);
            break;
        default:                               /* random links */
            for (int a = 0; a < n; a++)
                for (int b = a + 1; b < n; b++)
                    if (mdct_rand(r, 2))
                        o += (size_t)snprintf(t + o, MAX_TEXT - o,
                                              "link net%d n%d n%d\n", k, a, b);
        }
    }
}

/* ---- brute force over simple paths */

typedef struct best {
    int         found;
    mdc_label_t label;
    uint64_t    pathkey;
    int         first_net;
    int         first_host;
} best_t;

typedef struct search {
    const mdc_graph_t *g;
    uint32_t           src, dst;
    size_t             size, cls;
    uint8_t            on_path[64];
    best_t             best;
} search_t;

static mdc_u128 line_at(mdc_line_t l, size_t s)
{
    return (mdc_u128)l.a + (mdc_u128)l.b * s;
}

static void dfs(search_t *s, uint32_t u, mdc_label_t lab, uint64_t key,
                int first_net, int first_host)
{
    const mdc_graph_t *g = s->g;

    if (u == s->dst) {
        if (!s->best.found || mdc_label_less(&lab, &s->best.label))
            s->best = (best_t){ 1, lab, key, first_net, first_host };
        return;
    }
    if (u < g->num_hosts && u != s->src) {       /* an intermediate node */
        if (!g->can_forward[u])
            return;
        lab.cost += line_at(g->fwd_line[s->cls * g->num_hosts + u], s->size);
        lab.relays++;
    }
    s->on_path[u] = 1;
    for (uint32_t ei = g->first[u]; ei < g->first[u + 1]; ei++) {
        const mdc_edge_t *e = &g->edges[ei];
        if (s->on_path[e->to])
            continue;
        mdc_label_t nl = lab;
        nl.cost += line_at(mdc_edge_line(g, e, s->cls), s->size);
        nl.rank += e->rank;
        nl.tie += e->tie;
        int fn = u == s->src ? e->network : first_net;
        int fh = first_host >= 0 ? first_host
                 : e->to < g->num_hosts ? (int)e->to : -1;
        dfs(s, e->to, nl, key + g->edge_key[ei], fn, fh);
    }
    s->on_path[u] = 0;
}

static best_t brute_force(const mdc_graph_t *g, uint32_t src, uint32_t dst,
                          size_t size)
{
    search_t s;

    memset(&s, 0, sizeof(s));
    s.g = g;
    s.src = src;
    s.dst = dst;
    s.size = size;
    s.cls = mdc_graph_class_of(g, size);
    dfs(&s, src, (mdc_label_t){ 0, 0, 0, 0 }, 0, -1, -1);
    return s.best;
}

/* Sizes worth trying: every segment edge +-1, the class bounds, randoms. */
static size_t sizes_to_try(const mdc_graph_t *g, const mdc_routes_t *r,
                           mdct_rng_t *rng, size_t *out, size_t max)
{
    size_t n = 0;

    for (size_t k = 0; k < g->num_classes && n + 2 < max; k++) {
        out[n++] = g->bounds[k];
        if (g->bounds[k] > 0)
            out[n++] = g->bounds[k] - 1;
    }
    for (size_t i = 0; i < r->num_seg && n + 4 < max; i++) {
        out[n++] = r->seg[i].lo;
        out[n++] = r->seg[i].hi;
        if (r->seg[i].lo > 0)
            out[n++] = r->seg[i].lo - 1;
        if (r->seg[i].hi < SIZE_MAX)
            out[n++] = r->seg[i].hi + 1;
    }
    for (int i = 0; i < 8 && n < max; i++)
        out[n++] = mdct_rand(rng, 200000);
    if (n < max)
        out[n++] = SIZE_MAX;
    return n;
}

static void check_segments_cover(const mdc_routes_t *r, uint32_t d)
{
    if (r->first[d] == r->first[d + 1])
        return;
    cr_assert_eq(r->seg[r->first[d]].lo, 0);
    cr_assert_eq(r->seg[r->first[d + 1] - 1].hi, SIZE_MAX);
    for (uint32_t i = r->first[d] + 1; i < r->first[d + 1]; i++)
        cr_assert_eq(r->seg[i].lo, r->seg[i - 1].hi + 1);
}

static void check_one(const char *text, mdct_rng_t *rng, int run)
{
    mdc_graph_t *g = mdct_graph(text);
    size_t sizes[512];

    for (uint32_t src = 0; src < g->num_hosts; src++) {
        mdc_routes_t r;
        mdct_routes(g, src, &r);
        size_t ns = sizes_to_try(g, &r, rng, sizes, 512);
        for (uint32_t d = 0; d < g->num_hosts; d++) {
            if (d == src)
                continue;
            check_segments_cover(&r, d);
            for (size_t k = 0; k < ns; k++) {
                best_t b = brute_force(g, src, d, sizes[k]);
                const mdc_rseg_t *seg = mdc_routes_find(&r, d, sizes[k]);
                cr_assert_eq(seg != NULL, b.found, "run %d: n%u -> n%u at %zu: "
                             "reachability differs\n%s", run, src, d, sizes[k],
                             text);
                if (!b.found)
                    continue;
                int hop = b.first_host == (int)d ? -1 : b.first_host;
                cr_assert(seg->dec.pathkey == b.pathkey &&
                          seg->dec.first_net == b.first_net &&
                          seg->dec.next_hop == hop &&
                          seg->dec.relays == b.label.relays,
                          "run %d: n%u -> n%u at %zu bytes: router chose net "
                          "%d hop %d relays %u, brute force net %d hop %d "
                          "relays %u\n%s", run, src, d, sizes[k],
                          seg->dec.first_net, seg->dec.next_hop,
                          seg->dec.relays, b.first_net, hop, b.label.relays,
                          text);
            }
        }
        mdc_routes_fini(&r);
    }
    mdct_graph_free(g);
}

Test(router_bruteforce, random_multigraphs, .timeout = 120)
{
    char text[MAX_TEXT];

    for (int run = 0; run < RUNS; run++) {
        mdct_rng_t rng = { 0x5eed0000ULL + (uint64_t)run };
        random_desc(&rng, text);
        check_one(text, &rng, run);
    }
}
