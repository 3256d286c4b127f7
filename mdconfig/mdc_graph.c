/* mdc_graph.c - build the multigraph and the size classes (mdc_graph.h). */
#include <stdlib.h>
#include <string.h>

#include "mdc_graph.h"
#include "mdc_hubgraph.h"

/* Ties break on a hash of names, so that they do not depend on the order
 * of lines; 40 bits leave room to add up a million of them in 64. */
#define TIE_BITS 40

static uint64_t name_key(const char *a, const char *b, const char *c,
                         uint64_t seed)
{
    uint64_t h = mdc_hash_bytes(a, strlen(a) + 1, seed);

    h = mdc_hash_bytes(b, strlen(b) + 1, h);
    return mdc_hash_bytes(c, strlen(c) + 1, h);
}

typedef struct builder {
    mdc_graph_t *g;
    uint32_t    *count;             /* out-degree, then fill cursor */
} builder_t;

/* An edge with its key while building. */
typedef struct edge_k {
    mdc_edge_t e;
    uint64_t   key;
} edge_k_t;

static const mdc_desc_t *D(const builder_t *b)
{
    return b->g->desc;
}

/* Calls add(b, from, edge) for every directed edge; used twice: to count
 * and to fill. */
typedef void (*edge_fn)(builder_t *b, uint32_t from, const edge_k_t *e);

static void edge_pair(builder_t *b, edge_fn add, uint32_t u, uint32_t v,
                      edge_k_t fwd, edge_k_t back)
{
    fwd.e.to = v;
    back.e.to = u;
    add(b, u, &fwd);
    add(b, v, &back);
}

static edge_k_t make_edge(const mdc_desc_t *d, int network, uint32_t seg,
                          mdc_edge_kind_t kind, uint64_t key)
{
    edge_k_t k = { .key = key };

    k.e.network = (uint16_t)network;
    k.e.kind = (uint8_t)kind;
    k.e.sysmsg = (uint8_t)d->types[d->networks[network].type].sysmsg;
    k.e.segment = seg;
    k.e.tie = key >> (64 - TIE_BITS);
    /* crossing a network counts its rank once: on the way in */
    k.e.rank = kind == MDC_EDGE_INGRESS || kind == MDC_EDGE_LINK
               ? (uint32_t)network + 1 : 0;
    return k;
}

static void segment_edges(builder_t *b, edge_fn add, uint32_t s)
{
    const mdc_desc_t *d = D(b);
    const mdc_segment_t *seg = &d->segments[s];
    const char *net = d->networks[seg->network].name;

    if (seg->kind == MDC_SEG_LINK) {
        uint32_t x = (uint32_t)seg->members[0].node;
        uint32_t y = (uint32_t)seg->members[1].node;
        const char *nx = d->nodes[x].name, *ny = d->nodes[y].name;
        int order = strcmp(nx, ny) < 0;       /* one key for both ways */
        edge_k_t l = make_edge(d, seg->network, s, MDC_EDGE_LINK,
                               name_key(net, order ? nx : ny,
                                        order ? ny : nx, 1));
        edge_pair(b, add, x, y, l, l);
        return;
    }
    for (size_t m = 0; m < seg->num_members; m++) {
        uint32_t node = (uint32_t)seg->members[m].node;
        uint64_t key = name_key(net, seg->name, d->nodes[node].name, 0);
        edge_pair(b, add, node, (uint32_t)b->g->segment_hub[s],
                  make_edge(d, seg->network, s, MDC_EDGE_INGRESS, key),
                  make_edge(d, seg->network, s, MDC_EDGE_EGRESS, key));
    }
}

static void all_edges(builder_t *b, edge_fn add)
{
    const mdc_desc_t *d = D(b);

    for (uint32_t s = 0; s < d->num_segments; s++)
        if (mdc_desc_network_routable(d, d->segments[s].network))
            segment_edges(b, add, s);
    for (uint32_t t = 0; t < d->num_trunks; t++) {
        const mdc_trunk_t *tr = &d->trunks[t];
        if (!mdc_desc_network_routable(d, tr->network))
            continue;
        const char *x = d->segments[tr->seg_a].name;
        const char *y = d->segments[tr->seg_b].name;
        int order = strcmp(x, y) < 0;
        edge_k_t e = make_edge(d, tr->network, t, MDC_EDGE_TRUNK,
                               name_key(d->networks[tr->network].name,
                                        order ? x : y, order ? y : x, 2 + t));
        e.e.trunk_fs = tr->lat_fs;
        edge_pair(b, add, (uint32_t)b->g->segment_hub[tr->seg_a],
                  (uint32_t)b->g->segment_hub[tr->seg_b], e, e);
    }
}

static void count_edge(builder_t *b, uint32_t from, const edge_k_t *e)
{
    (void)e;
    b->count[from]++;
}

static void fill_edge(builder_t *b, uint32_t from, const edge_k_t *e)
{
    uint32_t i = b->count[from]++;

    b->g->edges[i] = e->e;
    b->g->edge_key[i] = e->key;
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;

    return a < b ? -1 : a > b;
}

/* Breakpoints: every `from` of every profile a network or node uses. */
static int build_classes(mdc_graph_t *g)
{
    const mdc_desc_t *d = g->desc;
    size_t n = 0, cap = 1;
    uint8_t *used = calloc(d->num_profiles + 1, 1);

    if (used == NULL)
        return -1;
    for (size_t i = 0; i < d->num_networks; i++)
        if (mdc_desc_network_routable(d, (int)i))
            used[d->networks[i].profile] = 1;
    for (size_t i = 0; i < d->num_nodes; i++) {
        int f = mdc_desc_node_forward(d, (int)i);
        if (f >= 0)
            used[f] = 1;
    }
    for (size_t i = 0; i < d->num_profiles; i++)
        if (used[i])
            cap += d->profiles[i].num_rows;
    g->bounds = malloc(cap * sizeof(*g->bounds));
    if (g->bounds == NULL) {
        free(used);
        return -1;
    }
    g->bounds[n++] = 0;
    for (size_t i = 0; i < d->num_profiles; i++)
        for (size_t r = 1; used[i] && r < d->profiles[i].num_rows; r++)
            g->bounds[n++] = d->profiles[i].rows[r].from;
    free(used);
    qsort(g->bounds, n, sizeof(*g->bounds), cmp_size);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || g->bounds[i] != g->bounds[u - 1])
            g->bounds[u++] = g->bounds[i];
    g->num_classes = u;
    return 0;
}

static mdc_line_t profile_line(const mdc_profile_t *p, size_t size)
{
    size_t r = 0;

    while (r + 1 < p->num_rows && p->rows[r + 1].from <= size)
        r++;
    return (mdc_line_t){ p->rows[r].lat_fs, p->rows[r].byte_fs };
}

static int build_lines(mdc_graph_t *g)
{
    const mdc_desc_t *d = g->desc;
    size_t k, nn = d->num_networks ? d->num_networks : 1;

    g->net_line = calloc(g->num_classes * nn, sizeof(*g->net_line));
    g->fwd_line = calloc(g->num_classes * d->num_nodes, sizeof(*g->fwd_line));
    g->can_forward = calloc(d->num_nodes, 1);
    if (g->net_line == NULL || g->fwd_line == NULL || g->can_forward == NULL)
        return -1;
    for (k = 0; k < g->num_classes; k++) {
        for (size_t i = 0; i < d->num_networks; i++)
            g->net_line[k * nn + i] =
                profile_line(&d->profiles[d->networks[i].profile],
                             g->bounds[k]);
        for (size_t i = 0; i < d->num_nodes; i++) {
            int f = mdc_desc_node_forward(d, (int)i);
            if (f >= 0)
                g->fwd_line[k * d->num_nodes + i] =
                    profile_line(&d->profiles[f], g->bounds[k]);
        }
    }
    for (size_t i = 0; i < d->num_nodes; i++)
        g->can_forward[i] = mdc_desc_node_forward(d, (int)i) >= 0;
    return 0;
}

static int build_vertices(mdc_graph_t *g)
{
    const mdc_desc_t *d = g->desc;
    uint32_t hubs = 0;

    g->segment_hub = malloc((d->num_segments + 1) * sizeof(int));
    g->hub_segment = malloc((d->num_segments + 1) * sizeof(uint32_t));
    if (g->segment_hub == NULL || g->hub_segment == NULL)
        return -1;
    for (uint32_t s = 0; s < d->num_segments; s++) {
        g->segment_hub[s] = -1;
        if (d->segments[s].kind == MDC_SEG_LINK ||
            !mdc_desc_network_routable(d, d->segments[s].network))
            continue;
        g->hub_segment[hubs] = s;
        g->segment_hub[s] = (int)(g->num_hosts + hubs++);
    }
    g->num_vertices = g->num_hosts + hubs;
    return 0;
}

mdc_graph_t *mdc_graph_build(const mdc_desc_t *desc)
{
    mdc_graph_t *g = calloc(1, sizeof(*g));
    builder_t b = { g, NULL };

    if (g == NULL)
        return NULL;
    g->desc = desc;
    g->num_hosts = (uint32_t)desc->num_nodes;
    if (build_vertices(g) != 0 || build_classes(g) != 0 ||
        build_lines(g) != 0)
        goto fail;
    b.count = calloc(g->num_vertices + 1, sizeof(*b.count));
    g->first = calloc(g->num_vertices + 1, sizeof(*g->first));
    if (b.count == NULL || g->first == NULL)
        goto fail;
    all_edges(&b, count_edge);
    for (uint32_t v = 0; v < g->num_vertices; v++)
        g->first[v + 1] = g->first[v] + b.count[v];
    g->edges = malloc((g->first[g->num_vertices] + 1) * sizeof(*g->edges));
    g->edge_key = malloc((g->first[g->num_vertices] + 1) *
                         sizeof(*g->edge_key));
    if (g->edges == NULL || g->edge_key == NULL)
        goto fail;
    memcpy(b.count, g->first, g->num_vertices * sizeof(*b.count));
    all_edges(&b, fill_edge);
    free(b.count);
    b.count = NULL;
    if (mdc_hubgraph_build(g, &g->hubs) != 0)
        goto fail;
    return g;
fail:
    free(b.count);
    mdc_graph_free(g);
    return NULL;
}

void mdc_graph_free(mdc_graph_t *g)
{
    if (g == NULL)
        return;
    free(g->first);
    free(g->edges);
    free(g->edge_key);
    free(g->hub_segment);
    free(g->segment_hub);
    free(g->bounds);
    free(g->net_line);
    free(g->fwd_line);
    free(g->can_forward);
    mdc_hubgraph_free(g->hubs);
    free(g);
}

size_t mdc_graph_class_of(const mdc_graph_t *g, size_t size)
{
    size_t lo = 0, hi = g->num_classes;

    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->bounds[mid] <= size)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

size_t mdc_graph_class_end(const mdc_graph_t *g, size_t k)
{
    return k + 1 < g->num_classes ? g->bounds[k + 1] - 1 : SIZE_MAX;
}

mdc_line_t mdc_edge_line(const mdc_graph_t *g, const mdc_edge_t *e, size_t k)
{
    size_t nn = g->desc->num_networks;

    switch (e->kind) {
    case MDC_EDGE_INGRESS:
    case MDC_EDGE_LINK:
        return g->net_line[k * nn + e->network];
    case MDC_EDGE_TRUNK:
        return (mdc_line_t){ e->trunk_fs, 0 };
    default:
        return (mdc_line_t){ 0, 0 };
    }
}

mdc_u128 mdc_edge_cost(const mdc_graph_t *g, const mdc_edge_t *e, size_t k,
                       size_t size)
{
    return mdc_line_at(mdc_edge_line(g, e, k), size);
}
