/*
 * mdc_explain.c - mdconfig --explain SRC DST SIZE: the route, hop by hop,
 * with the cost of each hop and of each relay, the line the per-node file
 * holds for it, and the best route starting on each of SRC's networks.
 */
#include <stdlib.h>
#include <string.h>

#include "mdc_commands.h"
#include "mdc_path.h"
#include "mdc_route.h"

#define MAX_HOPS 256

static const char *seg_desc(const mdc_desc_t *d, const mdc_edge_t *e,
                            char *buf, size_t len)
{
    static const char *const kind[] = { "switch", "ring", "bus", "link" };
    const mdc_segment_t *s = &d->segments[e->segment];

    if (e->kind == MDC_EDGE_LINK)
        snprintf(buf, len, "link");
    else
        snprintf(buf, len, "%s %s", kind[s->kind], s->name);
    return buf;
}

static void print_hop(FILE *out, const mdc_graph_t *g, const mdc_tree_t *t,
                      const mdc_hop_t *h, int num)
{
    const mdc_desc_t *d = g->desc;
    const mdc_network_t *net = &d->networks[h->network];
    mdc_line_t l = g->net_line[t->cls * d->num_networks + (size_t)h->network];
    char lat[32], bw[32], total[32], where[160], trunks[64] = "";

    mdc_format_time(l.a, lat, sizeof(lat));
    mdc_format_bandwidth(l.b, bw, sizeof(bw));
    mdc_format_time(mdc_line_at(l, t->size) + h->trunk_fs, total,
                    sizeof(total));
    if (h->num_trunks > 0) {
        char tr[32];
        mdc_format_time(h->trunk_fs, tr, sizeof(tr));
        snprintf(trunks, sizeof(trunks), " + %d trunk%s %s", h->num_trunks,
                 h->num_trunks == 1 ? "" : "s", tr);
    }
    fprintf(out, "  hop %d  %s -> %s over %s (network %s, %s)\n", num,
            d->nodes[h->from].name, d->nodes[h->to].name,
            d->types[net->type].subdev, net->name,
            seg_desc(d, &g->edges[h->first_edge], where, sizeof(where)));
    fprintf(out, "         %s + %zu B / %s%s = %s\n", lat, t->size, bw,
            trunks, total);
}

static void print_relay(FILE *out, const mdc_graph_t *g, const mdc_tree_t *t,
                        uint32_t node)
{
    mdc_line_t f = g->fwd_line[t->cls * g->num_hosts + node];
    char c[32];

    mdc_format_time(mdc_line_at(f, t->size), c, sizeof(c));
    fprintf(out, "  relay  %s forwards (forwarding cost) = %s\n",
            g->desc->nodes[node].name, c);
}

/* The file's route line holding size, with its merged range. */
static void print_decision(FILE *out, const mdc_graph_t *g, uint32_t src,
                           uint32_t dst, size_t size)
{
    const mdc_desc_t *d = g->desc;
    mdc_router_t *r = mdc_router_new(g);
    mdc_routes_t routes;

    memset(&routes, 0, sizeof(routes));
    if (r == NULL || mdc_route_source(r, src, &routes) != 0) {
        fprintf(out, "  (out of memory)\n");
        goto out;
    }
    uint32_t lo = routes.first[dst], hi = routes.first[dst + 1], at = lo;
    while (at < hi && routes.seg[at].hi < size)
        at++;
    if (at == hi)
        goto out;
    uint32_t a = at, b = at;
    const mdc_decision_t *x = &routes.seg[at].dec;
    while (a > lo && routes.seg[a - 1].dec.first_net == x->first_net &&
           routes.seg[a - 1].dec.next_hop == x->next_hop)
        a--;
    while (b + 1 < hi && routes.seg[b + 1].dec.first_net == x->first_net &&
           routes.seg[b + 1].dec.next_hop == x->next_hop)
        b++;
    char max[32];
    if (routes.seg[b].hi == SIZE_MAX)
        snprintf(max, sizeof(max), "inf");
    else
        snprintf(max, sizeof(max), "%zu", routes.seg[b].hi);
    fprintf(out, "in %s.conf:  route %s %zu %s %s %s\n", d->nodes[src].name,
            d->nodes[dst].name, routes.seg[a].lo, max,
            d->types[d->networks[x->first_net].type].subdev,
            x->next_hop < 0 ? "-" : d->nodes[x->next_hop].name);
out:
    mdc_routes_fini(&routes);
    mdc_router_free(r);
}

static void print_alternatives(FILE *out, const mdc_graph_t *g,
                               mdc_tree_t *t, uint32_t src, uint32_t dst,
                               size_t size, int chosen)
{
    const mdc_desc_t *d = g->desc;
    mdc_hop_t hops[MAX_HOPS];
    uint8_t *seen = calloc(d->num_networks + 1, 1);

    if (seen == NULL)
        return;
    fprintf(out, "best route starting on each network of %s:\n",
            d->nodes[src].name);
    for (uint32_t ei = g->first[src]; ei < g->first[src + 1]; ei++) {
        int net = g->edges[ei].network;
        if (seen[net]++)
            continue;
        mdc_dijkstra(t, src, size, net);
        fprintf(out, "  %-6s %-12s ", d->types[d->networks[net].type].subdev,
                d->networks[net].name);
        if (!t->reached[dst]) {
            fprintf(out, "no route\n");
            continue;
        }
        char c[32];
        mdc_format_time(t->label[dst].cost, c, sizeof(c));
        size_t n = mdc_path_hops(t, dst, hops, MAX_HOPS);
        fprintf(out, "%14s  %s", c, d->nodes[src].name);
        for (size_t i = 0; i < n; i++)
            fprintf(out, " -> %s", d->nodes[hops[i].to].name);
        fprintf(out, "%s\n", net == chosen ? "   (chosen)" : "");
    }
    free(seen);
}

int mdc_explain(FILE *out, const mdc_graph_t *g, const char *src_name,
                const char *dst_name, size_t size)
{
    const mdc_desc_t *d = g->desc;
    int src = mdc_desc_find_node(d, src_name);
    int dst = mdc_desc_find_node(d, dst_name);
    mdc_hop_t hops[MAX_HOPS];
    char c[32];

    if (src < 0 || dst < 0) {
        fprintf(stderr, "mdconfig: error: %s: no node named '%s'\n",
                d->source, src < 0 ? src_name : dst_name);
        return 1;
    }
    size_t k = mdc_graph_class_of(g, size);
    char end[32];
    if (mdc_graph_class_end(g, k) == SIZE_MAX)
        snprintf(end, sizeof(end), "inf");
    else
        snprintf(end, sizeof(end), "%zu", mdc_graph_class_end(g, k));
    fprintf(out, "route %s -> %s for %zu bytes (size class %zu..%s)\n",
            src_name, dst_name, size, g->bounds[k], end);
    if (src == dst) {
        fprintf(out, "same node: the local subdevice %s carries it\n",
                d->types[d->nodes[src].local_type].subdev);
        return 0;
    }
    mdc_tree_t *t = mdc_tree_new(g);
    if (t == NULL) {
        fprintf(stderr, "mdconfig: error: out of memory\n");
        return 1;
    }
    mdc_dijkstra(t, (uint32_t)src, size, -1);
    if (!t->reached[dst]) {
        fprintf(out, "no route: %s cannot reach %s (no common network, and "
                "no node between them that may forward)\n", src_name,
                dst_name);
        mdc_tree_free(t);
        return 1;
    }
    print_decision(out, g, (uint32_t)src, (uint32_t)dst, size);
    size_t n = mdc_path_hops(t, (uint32_t)dst, hops, MAX_HOPS);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            print_relay(out, g, t, hops[i].from);
        print_hop(out, g, t, &hops[i], (int)i + 1);
    }
    mdc_format_time(t->label[dst].cost, c, sizeof(c));
    fprintf(out, "  total  %s (%u relay%s)\n", c, t->label[dst].relays,
            t->label[dst].relays == 1 ? "" : "s");
    int chosen = t->first_net[dst];
    print_alternatives(out, g, t, (uint32_t)src, (uint32_t)dst, size, chosen);
    mdc_tree_free(t);
    return 0;
}
