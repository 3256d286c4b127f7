/* mdc_hubtree.c - a node's best paths to the hubs (mdc_hubtree.h). */
#include <stdlib.h>
#include <string.h>

#include "mdc_heap.h"
#include "mdc_hubtree.h"
#include "mdc_mem.h"

#define NEVER ((mdc_u128)1 << 64)     /* beyond every size */

/* The tree's arrays, one entry per hub. */
#define TREE_ARRAYS(t) { MDC_TREE_ARRAYS(t),                              \
    { (void **)&(t)->cand, 1 } }

mdc_hubtree_t *mdc_hubtree_new(const mdc_graph_t *g)
{
    mdc_hubtree_t *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    t->g = g;
    t->hg = g->hubs;
    const mdc_array_t arrays[] = TREE_ARRAYS(t);
    if (mdc_arrays_alloc(arrays, sizeof(arrays) / sizeof(arrays[0]),
                         g->hubs != NULL ? g->hubs->num_hubs : 0) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

void mdc_hubtree_free(mdc_hubtree_t *t)
{
    if (t == NULL)
        return;
    const mdc_array_t arrays[] = TREE_ARRAYS(t);
    mdc_arrays_free(arrays, sizeof(arrays) / sizeof(arrays[0]));
    free(t->iv);
    free(t->rec);
    free(t);
}

/* ---- the edges out of the source and out of a hub, as labels */

static const mdc_edge_t *src_edge(const mdc_hubtree_t *t, uint32_t i)
{
    return &t->g->edges[t->g->first[t->src] + i];
}

static uint32_t src_edges(const mdc_hubtree_t *t)
{
    return t->g->first[t->src + 1] - t->g->first[t->src];
}

static uint32_t src_hub(const mdc_hubtree_t *t, uint32_t i)
{
    return src_edge(t, i)->to - t->g->num_hosts;
}

static mdc_line_t src_line(const mdc_hubtree_t *t, uint32_t i)
{
    return mdc_edge_line(t->g, src_edge(t, i), t->cls);
}

static mdc_label_t src_label(const mdc_hubtree_t *t, uint32_t i,
                             size_t size)
{
    const mdc_edge_t *e = src_edge(t, i);

    return (mdc_label_t){ mdc_line_at(src_line(t, i), size), 0, e->rank,
                          e->tie };
}

static mdc_line_t hub_line(const mdc_hubtree_t *t, uint32_t ei)
{
    return t->hg->line[t->cls * t->hg->num_edges + ei];
}

/* u's label followed by hub edge ei: the tie-break sums only (cost 0). */
static mdc_label_t hub_rest(const mdc_hubtree_t *t, uint32_t u, uint32_t ei)
{
    const mdc_hubedge_t *e = &t->hg->edge[ei];
    const mdc_label_t *b = &t->label[u];

    return (mdc_label_t){ 0, b->relays + (e->relay >= 0), b->rank + e->rank,
                          b->tie + e->tie };
}

/* The same with the cost at size. */
static mdc_label_t hub_label(const mdc_hubtree_t *t, uint32_t u, uint32_t ei,
                             size_t size)
{
    mdc_label_t l = hub_rest(t, u, ei);

    l.cost = t->label[u].cost + mdc_line_at(hub_line(t, ei), size);
    return l;
}

/* Notes when only the tie hashes tell x from v's label, and x's path
 * starts on another first hop than v's. */
static void note_tie(mdc_hubtree_t *t, const mdc_label_t *x, uint8_t cand,
                     uint32_t v)
{
    const mdc_label_t *y = &t->label[v];

    if (x->cost == y->cost && x->relays == y->relays && x->rank == y->rank &&
        cand != t->cand[v])
        t->tie_used = 1;
}

/* ---- Dijkstra */

static void offer(mdc_hubtree_t *t, mdc_heap_t *heap, uint32_t v,
                  const mdc_label_t *l, int32_t pred_edge, uint32_t pred,
                  uint8_t cand)
{
    if (t->reached[v]) {
        note_tie(t, l, cand, v);
        if (t->done[v] || !mdc_label_less(l, &t->label[v]))
            return;
    }
    t->label[v] = *l;
    t->pred_edge[v] = pred_edge;
    t->pred[v] = pred;
    t->cand[v] = cand;
    mdc_heap_raise(heap, v, l, !t->reached[v]);
    t->reached[v] = 1;
}

/* Cost line, path key, first forwarding node and system-message flag of
 * every settled hub, from its predecessor, for the class t->cls. */
static void derive(mdc_hubtree_t *t)
{
    const mdc_graph_t *g = t->g;

    for (uint32_t k = 0; k < t->num_order; k++) {
        uint32_t v = t->order[k];
        int32_t pe = t->pred_edge[v];
        if (pe < 0) {
            uint32_t i = (uint32_t)(-1 - pe);
            mdc_line_t l = src_line(t, i);
            t->line_a[v] = l.a;
            t->line_b[v] = l.b;
            t->pathkey[v] = g->edge_key[g->first[t->src] + i];
            t->first_host[v] = -1;
            t->nosys[v] = (uint8_t)!src_edge(t, i)->sysmsg;
            continue;
        }
        uint32_t u = t->pred[v];
        const mdc_hubedge_t *e = &t->hg->edge[pe];
        mdc_line_t l = hub_line(t, (uint32_t)pe);
        t->line_a[v] = t->line_a[u] + l.a;
        t->line_b[v] = t->line_b[u] + l.b;
        t->pathkey[v] = t->pathkey[u] + e->key;
        t->first_host[v] = t->first_host[u] >= 0 ? t->first_host[u]
                                                 : e->relay;
        t->nosys[v] = t->nosys[u] | e->nosys;
    }
}

static void set_size(mdc_hubtree_t *t, size_t size)
{
    t->size = size;
    t->cls = mdc_graph_class_of(t->g, size);
}

static void dijkstra(mdc_hubtree_t *t, size_t size)
{
    const mdc_hubgraph_t *hg = t->hg;
    mdc_heap_t heap = { t->heap, t->heap_pos, 0 };

    set_size(t, size);
    memset(t->reached, 0, hg->num_hubs);
    memset(t->done, 0, hg->num_hubs);
    t->num_order = 0;
    for (uint32_t i = 0; i < src_edges(t); i++) {
        mdc_label_t l = src_label(t, i, size);
        offer(t, &heap, src_hub(t, i), &l, -1 - (int32_t)i, 0, (uint8_t)i);
    }
    while (heap.n > 0) {
        uint32_t u = mdc_heap_pop(&heap);
        t->done[u] = 1;
        t->order[t->num_order++] = u;
        for (uint32_t ei = hg->first[u]; ei < hg->first[u + 1]; ei++) {
            mdc_label_t l = hub_label(t, u, ei, size);
            offer(t, &heap, hg->edge[ei].to, &l, (int32_t)ei, u, t->cand[u]);
        }
    }
    derive(t);
    t->dijkstra_runs++;
}

/* Is the tree (computed for another class) still the best for size? */
static int still_best(mdc_hubtree_t *t, size_t size)
{
    const mdc_hubgraph_t *hg = t->hg;

    set_size(t, size);
    derive(t);                         /* the same paths, this class's lines */
    for (uint32_t k = 0; k < t->num_order; k++) {
        uint32_t v = t->order[k];
        t->label[v].cost = t->line_a[v] + t->line_b[v] * size;
    }
    for (uint32_t i = 0; i < src_edges(t); i++) {
        uint32_t v = src_hub(t, i);
        mdc_label_t l = src_label(t, i, size);
        if (t->pred_edge[v] == -1 - (int32_t)i)
            continue;
        note_tie(t, &l, (uint8_t)i, v);
        if (mdc_label_less(&l, &t->label[v]))
            return 0;
    }
    for (uint32_t k = 0; k < t->num_order; k++) {
        uint32_t u = t->order[k];
        for (uint32_t ei = hg->first[u]; ei < hg->first[u + 1]; ei++) {
            uint32_t v = hg->edge[ei].to;
            if (t->pred_edge[v] == (int32_t)ei)
                continue;
            mdc_label_t l = hub_label(t, u, ei, size);
            note_tie(t, &l, t->cand[u], v);
            if (mdc_label_less(&l, &t->label[v]))
                return 0;
        }
    }
    return 1;
}

/* The size from which the line aa + ab*size with the rest of the label
 * alt would give v a better label than the tree's; from if it already
 * does, NEVER if never. */
static mdc_u128 takes_over(mdc_hubtree_t *t, uint32_t v, mdc_u128 aa,
                           mdc_u128 ab, const mdc_label_t *alt, uint8_t cand,
                           size_t from)
{
    const mdc_label_t *y = &t->label[v];

    if (ab >= t->line_b[v])
        return NEVER;                  /* never catches up */
    if (aa < t->line_a[v])
        return from;                   /* cannot happen for a best tree */
    mdc_u128 m = t->line_b[v] - ab, da = aa - t->line_a[v], s = da / m;
    if (da % m != 0) {
        s++;
    } else {
        /* at s the two lines are equal: the rest of the label decides */
        if (y->relays == alt->relays && y->rank == alt->rank &&
            cand != t->cand[v])
            t->tie_used = 1;
        if (y->relays != alt->relays ? y->relays < alt->relays
            : y->rank != alt->rank ? y->rank < alt->rank
            : y->tie < alt->tie)
            s++;
    }
    return s < from ? from : s;
}

/* The largest size in [from, hi] up to which the tree stays the best. */
static size_t stable_until(mdc_hubtree_t *t, size_t from, size_t hi)
{
    const mdc_hubgraph_t *hg = t->hg;
    mdc_u128 first_change = NEVER;

    for (uint32_t i = 0; i < src_edges(t); i++) {
        uint32_t v = src_hub(t, i);
        if (t->pred_edge[v] == -1 - (int32_t)i)
            continue;
        mdc_line_t l = src_line(t, i);
        mdc_label_t alt = src_label(t, i, 0);
        mdc_u128 s = takes_over(t, v, l.a, l.b, &alt, (uint8_t)i, from);
        if (s < first_change)
            first_change = s;
    }
    for (uint32_t k = 0; k < t->num_order && first_change > from; k++) {
        uint32_t u = t->order[k];
        for (uint32_t ei = hg->first[u]; ei < hg->first[u + 1]; ei++) {
            uint32_t v = hg->edge[ei].to;
            if (t->pred_edge[v] == (int32_t)ei)
                continue;
            mdc_line_t l = hub_line(t, ei);
            mdc_label_t alt = hub_rest(t, u, ei);
            mdc_u128 s = takes_over(t, v, t->line_a[u] + l.a,
                                    t->line_b[u] + l.b, &alt, t->cand[u],
                                    from);
            if (s < first_change)
                first_change = s;
        }
    }
    if (first_change <= from)
        return from;                   /* only if arithmetic saturated */
    return first_change - 1 < hi ? (size_t)(first_change - 1) : hi;
}

static int record(mdc_hubtree_t *t, size_t lo, size_t hi)
{
    uint32_t H = t->hg->num_hubs;

    if (mdc_reserve((void **)&t->iv, &t->cap_iv, t->num_iv + 1,
                    sizeof(*t->iv)) != 0 ||
        mdc_reserve((void **)&t->rec, &t->cap_rec, (t->num_iv + 1) * H,
                    sizeof(*t->rec)) != 0)
        return -1;
    mdc_hubrec_t *r = &t->rec[t->num_iv * H];
    for (uint32_t v = 0; v < H; v++) {
        if (!t->reached[v]) {
            r[v] = (mdc_hubrec_t){ .reached = 0 };
            continue;
        }
        r[v] = (mdc_hubrec_t){ t->line_a[v], t->line_b[v], t->label[v].tie,
                               t->pathkey[v], t->label[v].relays,
                               t->label[v].rank, t->first_host[v],
                               t->cand[v], t->nosys[v], 1 };
    }
    t->iv[t->num_iv] = (mdc_hubiv_t){ lo, hi };
    t->num_iv++;
    return 0;
}

int mdc_hubtree_solve(mdc_hubtree_t *t, uint32_t src)
{
    const mdc_graph_t *g = t->g;
    int have = 0;

    t->src = src;
    t->num_iv = 0;
    t->tie_used = 0;
    t->dijkstra_runs = 0;
    for (size_t k = 0; k < g->num_classes; k++) {
        size_t hi = mdc_graph_class_end(g, k);
        for (size_t s = g->bounds[k];;) {
            /* a new class often keeps the previous class's tree */
            if (!have || s != g->bounds[k] || !still_best(t, s)) {
                dijkstra(t, s);
                have = 1;
            }
            size_t until = stable_until(t, s, hi);
            if (record(t, s, until) != 0)
                return -1;
            if (until >= hi)
                break;
            s = until + 1;
        }
    }
    return 0;
}
