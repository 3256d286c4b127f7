/* mdc_hubgraph.c - build the hub graph (mdc_hubgraph.h). */
#include <stdlib.h>
#include <string.h>

#include "mdc_hubgraph.h"
#include "mdc_strmap.h"

/* A way from hub h1 to hub h2 through node x, before duplicates go. */
typedef struct relay {
    uint32_t h1, h2;
    uint32_t x;
    uint32_t in, out;               /* x's edges to h1 and to h2 */
    uint64_t profile;               /* hash of x's forwarding lines */
    uint64_t tie;
} relay_t;

static int applicable(const mdc_graph_t *g)
{
    for (uint32_t x = 0; x < g->num_hosts; x++) {
        if (g->first[x + 1] - g->first[x] > MDC_MAX_HUBS)
            return 0;
        for (uint32_t ei = g->first[x]; ei < g->first[x + 1]; ei++)
            if (g->edges[ei].kind != MDC_EDGE_INGRESS)
                return 0;
    }
    return 1;
}

static int cmp_relay(const void *p, const void *q)
{
    const relay_t *x = p, *y = q;

    if (x->h1 != y->h1)
        return x->h1 < y->h1 ? -1 : 1;
    if (x->h2 != y->h2)
        return x->h2 < y->h2 ? -1 : 1;
    if (x->profile != y->profile)
        return x->profile < y->profile ? -1 : 1;
    if (x->tie != y->tie)
        return x->tie < y->tie ? -1 : 1;
    return x->x < y->x ? -1 : x->x > y->x;
}

static const mdc_line_t *fwd_lines(const mdc_graph_t *g, uint32_t x,
                                   size_t k)
{
    return &g->fwd_line[k * g->num_hosts + x];
}

/* Do x and y forward at the same cost in every size class? */
static int same_forwarding(const mdc_graph_t *g, uint32_t x, uint32_t y)
{
    for (size_t k = 0; k < g->num_classes; k++) {
        const mdc_line_t *a = fwd_lines(g, x, k), *b = fwd_lines(g, y, k);
        if (a->a != b->a || a->b != b->b)
            return 0;
    }
    return 1;
}

static uint64_t forwarding_hash(const mdc_graph_t *g, uint32_t x)
{
    uint64_t h = 0;

    for (size_t k = 0; k < g->num_classes; k++)
        h = mdc_hash_bytes(fwd_lines(g, x, k), sizeof(mdc_line_t), h);
    return h;
}

/* Every (h1, x, h2) with x forwarding, sorted so that alike ones follow
 * each other, the least hash first. */
static relay_t *all_relays(const mdc_graph_t *g, size_t *count)
{
    size_t n = 0;

    for (uint32_t x = 0; x < g->num_hosts; x++)
        if (g->can_forward[x]) {
            size_t k = g->first[x + 1] - g->first[x];
            n += k * (k - 1);
        }
    relay_t *r = malloc((n + 1) * sizeof(*r));
    if (r == NULL)
        return NULL;
    n = 0;
    for (uint32_t x = 0; x < g->num_hosts; x++) {
        if (!g->can_forward[x])
            continue;
        uint64_t profile = forwarding_hash(g, x);
        for (uint32_t i = g->first[x]; i < g->first[x + 1]; i++)
            for (uint32_t j = g->first[x]; j < g->first[x + 1]; j++)
                if (i != j && g->edges[i].to != g->edges[j].to)
                    r[n++] = (relay_t){
                        g->edges[i].to - g->num_hosts,
                        g->edges[j].to - g->num_hosts, x, i, j, profile,
                        g->edges[i].tie + g->edges[j].tie };
    }
    qsort(r, n, sizeof(*r), cmp_relay);
    *count = n;
    return r;
}

/* Leaves in r only the first of each run of alike relays (same hubs, same
 * forwarding cost). */
static size_t drop_dominated(const mdc_graph_t *g, relay_t *r, size_t n)
{
    size_t u = 0;

    for (size_t i = 0; i < n; i++) {
        const relay_t *head = u > 0 ? &r[u - 1] : NULL;
        if (head != NULL && head->h1 == r[i].h1 && head->h2 == r[i].h2 &&
            head->profile == r[i].profile &&
            same_forwarding(g, head->x, r[i].x))
            continue;
        r[u++] = r[i];
    }
    return u;
}

static mdc_hubedge_t relay_edge(const mdc_graph_t *g, const relay_t *r)
{
    const mdc_edge_t *in = &g->edges[r->in], *out = &g->edges[r->out];

    /* in is x's edge to h1, so h1 -> x is its egress twin: same key, same
     * hash, rank 0 */
    return (mdc_hubedge_t){ r->h2, (int32_t)r->x, out->rank, r->tie,
                            g->edge_key[r->in] + g->edge_key[r->out],
                            (uint8_t)(!in->sysmsg || !out->sysmsg) };
}

static int fill(const mdc_graph_t *g, mdc_hubgraph_t *hg, const relay_t *r,
                size_t nr)
{
    uint32_t H = hg->num_hubs, nn = (uint32_t)g->desc->num_networks;
    size_t trunks = 0;

    for (uint32_t v = g->num_hosts; v < g->num_vertices; v++)
        for (uint32_t ei = g->first[v]; ei < g->first[v + 1]; ei++)
            trunks += g->edges[ei].kind == MDC_EDGE_TRUNK;
    hg->num_edges = (uint32_t)(nr + trunks);
    hg->first = calloc(H + 1, sizeof(*hg->first));
    hg->edge = malloc((hg->num_edges + 1) * sizeof(*hg->edge));
    hg->line = malloc((g->num_classes * hg->num_edges + 1) *
                      sizeof(*hg->line));
    if (hg->first == NULL || hg->edge == NULL || hg->line == NULL)
        return -1;
    /* hub by hub: its trunks as the multigraph lists them, then its
     * relays (sorted by h1) */
    uint32_t n = 0;
    size_t ri = 0;
    for (uint32_t h = 0; h < H; h++) {
        uint32_t v = g->num_hosts + h;
        hg->first[h] = n;
        for (uint32_t ei = g->first[v]; ei < g->first[v + 1]; ei++) {
            const mdc_edge_t *e = &g->edges[ei];
            if (e->kind != MDC_EDGE_TRUNK)
                continue;
            for (size_t k = 0; k < g->num_classes; k++)
                hg->line[k * hg->num_edges + n] = mdc_edge_line(g, e, k);
            hg->edge[n++] = (mdc_hubedge_t){ e->to - g->num_hosts, -1,
                                             e->rank, e->tie,
                                             g->edge_key[ei],
                                             (uint8_t)!e->sysmsg };
        }
        for (; ri < nr && r[ri].h1 == h; ri++) {
            const mdc_edge_t *out = &g->edges[r[ri].out];
            for (size_t k = 0; k < g->num_classes; k++) {
                mdc_line_t f = *fwd_lines(g, r[ri].x, k);
                mdc_line_t l = g->net_line[k * nn + out->network];
                hg->line[k * hg->num_edges + n] =
                    (mdc_line_t){ f.a + l.a, f.b + l.b };
            }
            hg->edge[n++] = relay_edge(g, &r[ri]);
        }
    }
    hg->first[H] = n;
    return 0;
}

static int same_hubs(const mdc_graph_t *g, uint32_t x, uint32_t y)
{
    uint32_t n = g->first[x + 1] - g->first[x];

    if (g->first[y + 1] - g->first[y] != n)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (g->edges[g->first[x] + i].to != g->edges[g->first[y] + i].to)
            return 0;
    return 1;
}

static int find_same_hubs(const mdc_graph_t *g, mdc_hubgraph_t *hg)
{
    hg->same_hubs_until = malloc((g->num_hosts + 1) *
                                 sizeof(*hg->same_hubs_until));
    if (hg->same_hubs_until == NULL)
        return -1;
    for (uint32_t x = g->num_hosts; x-- > 0;)
        hg->same_hubs_until[x] = x + 1 < g->num_hosts && same_hubs(g, x, x + 1)
                                 ? hg->same_hubs_until[x + 1] : x;
    return 0;
}

int mdc_hubgraph_build(const mdc_graph_t *g, mdc_hubgraph_t **out)
{
    size_t nr = 0;

    *out = NULL;
    if (!applicable(g))
        return 0;
    mdc_hubgraph_t *hg = calloc(1, sizeof(*hg));
    relay_t *r = all_relays(g, &nr);
    if (hg == NULL || r == NULL) {
        free(hg);
        free(r);
        return -1;
    }
    hg->num_hubs = g->num_vertices - g->num_hosts;
    nr = drop_dominated(g, r, nr);
    int rc = fill(g, hg, r, nr) != 0 || find_same_hubs(g, hg) != 0 ? -1 : 0;
    free(r);
    if (rc != 0) {
        mdc_hubgraph_free(hg);
        return -1;
    }
    *out = hg;
    return 0;
}

void mdc_hubgraph_free(mdc_hubgraph_t *hg)
{
    if (hg == NULL)
        return;
    free(hg->first);
    free(hg->edge);
    free(hg->line);
    free(hg->same_hubs_until);
    free(hg);
}
