/*
 * mdc_dijkstra.c - shortest paths for one size (see mdc_dijkstra.h).
 *
 * The inner loop only compares and stores labels; everything else a node's
 * label records (cost line, path key, first hop) is derived afterwards
 * from the predecessors, in the order nodes were settled.
 */
#include <stdlib.h>
#include <string.h>

#include "mdc_dijkstra.h"
#include "mdc_heap.h"
#include "mdc_mem.h"

static inline mdc_u128 sat_add(mdc_u128 x, mdc_u128 y)
{
    mdc_u128 s = x + y;

    return s < x ? ~(mdc_u128)0 : s;
}

/* The tree's arrays, one entry per vertex. */
#define TREE_ARRAYS(t) { MDC_TREE_ARRAYS(t),                              \
    { (void **)&(t)->first_net, sizeof(*(t)->first_net) } }

mdc_tree_t *mdc_tree_new(const mdc_graph_t *g)
{
    mdc_tree_t *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    t->g = g;
    const mdc_array_t arrays[] = TREE_ARRAYS(t);
    if (mdc_arrays_alloc(arrays, sizeof(arrays) / sizeof(arrays[0]),
                         g->num_vertices + 1) != 0 ||
        (t->net_cost = malloc((g->desc->num_networks + 1) *
                              sizeof(*t->net_cost))) == NULL) {
        mdc_tree_free(t);
        return NULL;
    }
    return t;
}

void mdc_tree_free(mdc_tree_t *t)
{
    if (t == NULL)
        return;
    const mdc_array_t arrays[] = TREE_ARRAYS(t);
    mdc_arrays_free(arrays, sizeof(arrays) / sizeof(arrays[0]));
    free(t->net_cost);
    free(t);
}

static inline mdc_u128 edge_cost(const mdc_tree_t *t, const mdc_edge_t *e)
{
    switch (e->kind) {
    case MDC_EDGE_EGRESS: return 0;
    case MDC_EDGE_TRUNK:  return e->trunk_fs;
    default:              return t->net_cost[e->network];
    }
}

/* The forwarding cost line at host u (an intermediate node). */
static inline mdc_line_t fwd_line(const mdc_tree_t *t, uint32_t u)
{
    return t->g->fwd_line[t->cls * t->g->num_hosts + u];
}

static void relax_all(mdc_tree_t *t, uint32_t u, int first_net,
                      mdc_heap_t *heap)
{
    const mdc_graph_t *g = t->g;
    mdc_label_t base = t->label[u];
    int from_src = u == t->src;

    if (u < g->num_hosts && !from_src) {
        if (!g->can_forward[u])
            return;                    /* a node that may not forward */
        base.cost = sat_add(base.cost, mdc_line_at(fwd_line(t, u), t->size));
        base.relays++;
    }
    for (uint32_t ei = g->first[u]; ei < g->first[u + 1]; ei++) {
        const mdc_edge_t *e = &g->edges[ei];
        uint32_t v = e->to;
        if (t->done[v] ||
            (from_src && first_net >= 0 && e->network != (uint16_t)first_net))
            continue;
        mdc_label_t nl = { sat_add(base.cost, edge_cost(t, e)), base.relays,
                           base.rank + e->rank, base.tie + e->tie };
        if (t->reached[v] && !mdc_label_less(&nl, &t->label[v]))
            continue;
        t->label[v] = nl;
        t->pred[v] = u;
        t->pred_edge[v] = (int32_t)ei;
        mdc_heap_raise(heap, v, &nl, !t->reached[v]);
        t->reached[v] = 1;
    }
}

/* Cost line, path key, first hop and system-message flag of every settled
 * vertex, from its predecessor (settled before it). */
static void derive(mdc_tree_t *t)
{
    const mdc_graph_t *g = t->g;

    for (uint32_t i = 1; i < t->num_order; i++) {
        uint32_t v = t->order[i], u = t->pred[v];
        const mdc_edge_t *e = &g->edges[t->pred_edge[v]];
        mdc_line_t l = mdc_edge_line(g, e, t->cls);
        mdc_u128 a = t->line_a[u], b = t->line_b[u];
        if (u < g->num_hosts && u != t->src) {
            mdc_line_t f = fwd_line(t, u);
            a = sat_add(a, f.a);
            b = sat_add(b, f.b);
        }
        t->line_a[v] = sat_add(a, l.a);
        t->line_b[v] = sat_add(b, l.b);
        t->pathkey[v] = t->pathkey[u] + g->edge_key[t->pred_edge[v]];
        t->nosys[v] = t->nosys[u] | !e->sysmsg;
        int is_host = v < g->num_hosts;
        if (u == t->src) {
            t->first_net[v] = e->network;
            t->first_host[v] = is_host ? (int32_t)v : -1;
        } else {
            t->first_net[v] = t->first_net[u];
            t->first_host[v] = t->first_host[u] >= 0 ? t->first_host[u]
                               : is_host ? (int32_t)v : -1;
        }
    }
}

int mdc_tree_still_best(mdc_tree_t *t, size_t size)
{
    const mdc_graph_t *g = t->g;

    t->size = size;
    t->cls = mdc_graph_class_of(g, size);
    derive(t);                       /* the same paths, this size's lines */
    for (uint32_t i = 0; i < t->num_order; i++) {
        uint32_t v = t->order[i];
        t->label[v].cost = t->line_a[v] + t->line_b[v] * size;
    }
    for (uint32_t i = 0; i < t->num_order; i++) {
        uint32_t u = t->order[i];
        mdc_label_t base = t->label[u];
        if (u < g->num_hosts && u != t->src) {
            if (!g->can_forward[u])
                continue;
            base.cost += mdc_line_at(fwd_line(t, u), size);
            base.relays++;
        }
        for (uint32_t ei = g->first[u]; ei < g->first[u + 1]; ei++) {
            const mdc_edge_t *e = &g->edges[ei];
            if (e->to == t->src || t->pred_edge[e->to] == (int32_t)ei)
                continue;
            mdc_label_t alt = {
                base.cost + mdc_line_at(mdc_edge_line(g, e, t->cls), size),
                base.relays, base.rank + e->rank, base.tie + e->tie };
            if (mdc_label_less(&alt, &t->label[e->to]))
                return 0;
        }
    }
    return 1;
}

void mdc_dijkstra(mdc_tree_t *t, uint32_t src, size_t size, int first_net)
{
    const mdc_graph_t *g = t->g;
    uint32_t n = g->num_vertices;
    mdc_heap_t heap = { t->heap, t->heap_pos, 0 };
    size_t nn = g->desc->num_networks;

    t->src = src;
    t->size = size;
    t->cls = mdc_graph_class_of(g, size);
    for (size_t i = 0; i < nn; i++)
        t->net_cost[i] = mdc_line_at(g->net_line[t->cls * nn + i], size);
    memset(t->reached, 0, n);
    memset(t->done, 0, n);
    t->num_order = 0;
    t->label[src] = (mdc_label_t){ 0, 0, 0, 0 };
    t->line_a[src] = t->line_b[src] = 0;
    t->pathkey[src] = 0;
    t->pred_edge[src] = -1;
    t->pred[src] = src;
    t->first_net[src] = -1;
    t->first_host[src] = -1;
    t->nosys[src] = 0;
    t->reached[src] = 1;
    mdc_heap_raise(&heap, src, &t->label[src], 1);
    while (heap.n > 0) {
        uint32_t u = mdc_heap_pop(&heap);
        t->done[u] = 1;
        t->order[t->num_order++] = u;
        relax_all(t, u, first_net, &heap);
    }
    derive(t);
}
