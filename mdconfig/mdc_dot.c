/*
 * mdc_dot.c - mdconfig --dot: the topology as a Graphviz graph.  Nodes
 * are boxes (a double border: the node relays some route), switches
 * diamonds, rings circles, buses bars; each network has its colour.
 * Links that some route uses are bold, the others dashed; networks no
 * subdevice drives are grey and dotted.
 */
#include <stdlib.h>
#include <string.h>

#include "mdc_commands.h"
#include "mdc_run.h"

#define MAX_WORKERS 256

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
    "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
};

typedef struct dot {
    const mdc_graph_t *g;
    int                all_sizes;
    size_t             size;
    uint8_t           *edge_used;   /* [edge] */
    uint8_t           *relay;       /* [node] */
    mdc_tree_t        *tree[MAX_WORKERS];
} dot_t;

static void mark_paths(dot_t *c, mdc_tree_t *t)
{
    const mdc_graph_t *g = c->g;

    for (uint32_t d = 0; d < g->num_hosts; d++) {
        if (!t->reached[d] || d == t->src)
            continue;
        for (uint32_t v = d; v != t->src; v = t->pred[v]) {
            __atomic_store_n(&c->edge_used[t->pred_edge[v]], 1,
                             __ATOMIC_RELAXED);
            if (v < g->num_hosts && v != d)
                __atomic_store_n(&c->relay[v], 1, __ATOMIC_RELAXED);
        }
    }
}

static int visit(void *ctx, int w, const mdc_routes_t *r)
{
    dot_t *c = ctx;
    size_t sizes[64], n = 0;

    if (w >= MAX_WORKERS)
        return -1;
    if (c->tree[w] == NULL && (c->tree[w] = mdc_tree_new(c->g)) == NULL)
        return -1;
    if (!c->all_sizes) {
        sizes[n++] = c->size;
    } else {
        for (size_t i = 0; i < r->num_seg && n < 64; i++) {
            size_t k = 0;
            while (k < n && sizes[k] != r->seg[i].lo)
                k++;
            if (k == n)
                sizes[n++] = r->seg[i].lo;
        }
    }
    for (size_t k = 0; k < n; k++) {
        mdc_dijkstra(c->tree[w], r->src, sizes[k], -1);
        mark_paths(c, c->tree[w]);
    }
    return 0;
}

static void seg_id(const mdc_desc_t *d, size_t s, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", d->networks[d->segments[s].network].name,
             d->segments[s].name);
}

static const char *net_colour(const mdc_desc_t *d, int net)
{
    if (!mdc_desc_network_routable(d, net))
        return "grey60";
    return palette[(size_t)net % (sizeof(palette) / sizeof(palette[0]))];
}

/* Is the undirected link (u, v) of this network used in either direction? */
static int link_used(const dot_t *c, uint32_t u, uint32_t v, int net)
{
    const mdc_graph_t *g = c->g;

    for (uint32_t ei = g->first[u]; ei < g->first[u + 1]; ei++)
        if (g->edges[ei].to == v && g->edges[ei].network == net &&
            c->edge_used[ei])
            return 1;
    for (uint32_t ei = g->first[v]; ei < g->first[v + 1]; ei++)
        if (g->edges[ei].to == u && g->edges[ei].network == net &&
            c->edge_used[ei])
            return 1;
    return 0;
}

static const char *style(const mdc_desc_t *d, int net, int used)
{
    if (!mdc_desc_network_routable(d, net))
        return "style=dotted";
    return used ? "style=bold, penwidth=3" : "style=dashed";
}

static void print_nodes(FILE *out, const dot_t *c)
{
    const mdc_desc_t *d = c->g->desc;
    static const char *const shape[] = { "diamond", "circle", "box", "" };

    for (size_t i = 0; i < d->num_nodes; i++)
        fprintf(out, "  \"%s\" [shape=box, style=rounded%s, label=\"%s\\n%s, "
                "%d slot%s\"];\n", d->nodes[i].name,
                c->relay[i] ? ", peripheries=2" : "", d->nodes[i].name,
                d->nodes[i].host, d->nodes[i].slots,
                d->nodes[i].slots == 1 ? "" : "s");
    for (size_t s = 0; s < d->num_segments; s++) {
        const mdc_segment_t *seg = &d->segments[s];
        char id[2 * MD_NAME_MAX + 2];
        if (seg->kind == MDC_SEG_LINK)
            continue;
        seg_id(d, s, id, sizeof(id));
        fprintf(out, "  \"%s\" [shape=%s%s, color=\"%s\", fontsize=10, "
                "label=\"%s\\n%s\"];\n", id, shape[seg->kind],
                seg->kind == MDC_SEG_BUS ? ", height=0.2, width=2" : "",
                net_colour(d, seg->network), seg->name,
                d->networks[seg->network].name);
    }
}

static void print_edges(FILE *out, const dot_t *c)
{
    const mdc_graph_t *g = c->g;
    const mdc_desc_t *d = g->desc;
    char id[2 * MD_NAME_MAX + 2], id2[2 * MD_NAME_MAX + 2];

    for (size_t s = 0; s < d->num_segments; s++) {
        const mdc_segment_t *seg = &d->segments[s];
        const char *col = net_colour(d, seg->network);
        if (seg->kind == MDC_SEG_LINK) {
            uint32_t a = (uint32_t)seg->members[0].node;
            uint32_t b = (uint32_t)seg->members[1].node;
            fprintf(out, "  \"%s\" -- \"%s\" [color=\"%s\", %s];\n",
                    d->nodes[a].name, d->nodes[b].name, col,
                    style(d, seg->network,
                          mdc_desc_network_routable(d, seg->network) &&
                              link_used(c, a, b, seg->network)));
            continue;
        }
        seg_id(d, s, id, sizeof(id));
        for (size_t m = 0; m < seg->num_members; m++) {
            uint32_t node = (uint32_t)seg->members[m].node;
            int used = mdc_desc_network_routable(d, seg->network) &&
                       link_used(c, node, (uint32_t)g->segment_hub[s],
                                 seg->network);
            fprintf(out, "  \"%s\" -- \"%s\" [color=\"%s\", %s];\n",
                    d->nodes[node].name, id, col,
                    style(d, seg->network, used));
        }
    }
    for (size_t t = 0; t < d->num_trunks; t++) {
        const mdc_trunk_t *tr = &d->trunks[t];
        int used = mdc_desc_network_routable(d, tr->network) &&
                   link_used(c, (uint32_t)g->segment_hub[tr->seg_a],
                             (uint32_t)g->segment_hub[tr->seg_b], tr->network);
        seg_id(d, (size_t)tr->seg_a, id, sizeof(id));
        seg_id(d, (size_t)tr->seg_b, id2, sizeof(id2));
        fprintf(out, "  \"%s\" -- \"%s\" [color=\"%s\", %s];\n", id, id2,
                net_colour(d, tr->network), style(d, tr->network, used));
    }
}

int mdc_dot(FILE *out, const mdc_graph_t *g, int all_sizes, size_t size,
            int threads)
{
    const mdc_desc_t *d = g->desc;
    dot_t c = { .g = g, .all_sizes = all_sizes, .size = size };
    mdc_problems_t prob;
    int rc = 1;

    c.edge_used = calloc(g->first[g->num_vertices] + 1, 1);
    c.relay = calloc(g->num_hosts + 1, 1);
    if (c.edge_used == NULL || c.relay == NULL ||
        mdc_for_each_source(g, threads, MDC_ROUTES_FULL, visit, &c, &prob) != 0) {
        fprintf(stderr, "mdconfig: error: out of memory\n");
        goto out;
    }
    char src[sizeof(d->source)];
    size_t o = 0;
    for (const char *p = d->source; *p != '\0' && o + 1 < sizeof(src); p++)
        src[o++] = *p == '"' || *p == '\\' || (unsigned char)*p < 0x20
                   ? '_' : *p;             /* keep the label a DOT string */
    src[o] = '\0';
    fprintf(out, "graph \"multidev\" {\n");
    fprintf(out, "  graph [overlap=false, splines=true, fontsize=11, "
            "labelloc=t, label=\"%s: routes %s bold, unused links dashed, "
            "relays double-framed\"];\n", src,
            all_sizes ? "of every size" : "of the given size");
    fprintf(out, "  node [fontsize=11];\n");
    for (size_t n = 0; n < d->num_networks; n++)
        fprintf(out, "  // network %s (%s): %s\n", d->networks[n].name,
                d->types[d->networks[n].type].name, net_colour(d, (int)n));
    print_nodes(out, &c);
    print_edges(out, &c);
    fprintf(out, "}\n");
    rc = ferror(out) ? 1 : 0;
out:
    for (int w = 0; w < MAX_WORKERS; w++)
        mdc_tree_free(c.tree[w]);
    free(c.edge_used);
    free(c.relay);
    return rc;
}
