/* mdc_rootsolve.c - exact best paths from one vertex (mdc_rootsolve.h). */
#include <stdlib.h>
#include <string.h>

#include "mdc_rootsolve.h"

void mdc_treepool_init(mdc_treepool_t *p, const mdc_graph_t *g)
{
    memset(p, 0, sizeof(*p));
    p->g = g;
}

void mdc_treepool_fini(mdc_treepool_t *p)
{
    for (size_t i = 0; i < p->num_free; i++)
        mdc_tree_free(p->free[i]);
    free(p->free);
    memset(p, 0, sizeof(*p));
}

static mdc_tree_t *tree_get(mdc_treepool_t *p)
{
    if (p->num_free > 0)
        return p->free[--p->num_free];
    return mdc_tree_new(p->g);
}

static void tree_put(mdc_treepool_t *p, mdc_tree_t *t)
{
    if (p->num_free == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 4;
        mdc_tree_t **f = realloc(p->free, cap * sizeof(*f));
        if (f == NULL) {
            mdc_tree_free(t);
            return;
        }
        p->free = f;
        p->cap = cap;
    }
    p->free[p->num_free++] = t;
}

static int secondary_less(const mdc_label_t *x, const mdc_label_t *y)
{
    if (x->relays != y->relays)
        return x->relays < y->relays;
    if (x->rank != y->rank)
        return x->rank < y->rank;
    return x->tie < y->tie;
}

#define NEVER ((mdc_u128)1 << 64)     /* beyond every size */

/* The size from which the edge ei (out of u, whose outgoing label is
 * base with line ua + ub*size) would give e->to a better label than the
 * tree's; from if it already does, NEVER if never. */
static mdc_u128 edge_takes_over(const mdc_tree_t *t, uint32_t ei,
                              const mdc_label_t *base, mdc_u128 ua,
                              mdc_u128 ub, size_t from)
{
    const mdc_graph_t *g = t->g;
    const mdc_edge_t *e = &g->edges[ei];
    uint32_t v = e->to;
    mdc_line_t l = mdc_edge_line(g, e, t->cls);
    mdc_u128 aa = ua + l.a, ab = ub + l.b;

    if (ab >= t->line_b[v])
        return NEVER;                  /* never catches up */
    if (aa < t->line_a[v])
        return from;                   /* cannot happen for a best tree */
    mdc_label_t alt = { 0, base->relays, base->rank + e->rank,
                        base->tie + e->tie };
    mdc_u128 m = t->line_b[v] - ab, da = aa - t->line_a[v];
    mdc_u128 s = da / m;
    /* at s the two lines are equal if m divides da: the tie-break decides */
    if (da % m != 0 || secondary_less(&t->label[v], &alt))
        s++;
    return s < from ? from : s;
}

/* The largest size in [from, hi] up to which tree t (computed for size
 * from) stays the best one. */
static size_t stable_until(const mdc_tree_t *t, size_t from, size_t hi)
{
    const mdc_graph_t *g = t->g;
    mdc_u128 first_change = NEVER;     /* first size another tree wins */

    for (uint32_t i = 0; i < t->num_order && first_change > from; i++) {
        uint32_t u = t->order[i];
        mdc_label_t base = t->label[u];
        mdc_u128 ua = t->line_a[u], ub = t->line_b[u];
        if (u < g->num_hosts && u != t->src) {
            if (!g->can_forward[u])
                continue;
            mdc_line_t f = g->fwd_line[t->cls * g->num_hosts + u];
            ua += f.a;
            ub += f.b;
            base.relays++;
        }
        for (uint32_t ei = g->first[u]; ei < g->first[u + 1]; ei++) {
            uint32_t v = g->edges[ei].to;
            if (v == t->src || t->pred_edge[v] == (int32_t)ei)
                continue;
            mdc_u128 s = edge_takes_over(t, ei, &base, ua, ub, from);
            if (s < first_change)
                first_change = s;
        }
    }
    if (first_change <= from)
        return from;                   /* only if arithmetic saturated */
    return first_change - 1 < hi ? (size_t)(first_change - 1) : hi;
}

static int reserve(mdc_rootres_t *r, size_t n)
{
    if (r->num_iv == r->cap_iv) {
        size_t cap = r->cap_iv ? 2 * r->cap_iv : 4;
        size_t *lo = realloc(r->lo, cap * sizeof(*lo));
        if (lo != NULL)
            r->lo = lo;
        size_t *hi = realloc(r->hi, cap * sizeof(*hi));
        if (hi != NULL)
            r->hi = hi;
        size_t *cls = realloc(r->cls, cap * sizeof(*cls));
        if (cls != NULL)
            r->cls = cls;
        if (lo == NULL || hi == NULL || cls == NULL)
            return -1;
        r->cap_iv = cap;
    }
    if ((r->num_iv + 1) * n > r->cap_e) {
        size_t cap = r->cap_e ? 2 * r->cap_e : 4 * n;
        while (cap < (r->num_iv + 1) * n)
            cap *= 2;
        mdc_root_entry_t *e = realloc(r->e, cap * sizeof(*e));
        if (e != NULL)
            r->e = e;
        mdc_root_line_t *l = realloc(r->line, cap * sizeof(*l));
        if (l != NULL)
            r->line = l;
        if (e == NULL || l == NULL)
            return -1;
        r->cap_e = cap;
    }
    return 0;
}

static int record(mdc_rootres_t *r, const mdc_tree_t *t, size_t lo,
                  size_t hi)
{
    uint32_t n = t->g->num_hosts;

    if (reserve(r, n) != 0)
        return -1;
    mdc_root_entry_t *e = &r->e[r->num_iv * n];
    mdc_root_line_t *l = &r->line[r->num_iv * n];
    for (uint32_t h = 0; h < n; h++) {
        int ok = t->reached[h] && h != t->src;
        l[h] = (mdc_root_line_t){ (uint64_t)t->line_a[h],
                                  ok ? (uint64_t)(t->line_a[h] >> 64)
                                     : UINT64_MAX,
                                  (uint64_t)t->line_b[h] };
        e[h] = (mdc_root_entry_t){
            .tie = ok ? t->label[h].tie : 0,
            .pathkey = ok ? t->pathkey[h] : 0,
            .relays = ok ? t->label[h].relays : 0,
            .rank = ok ? t->label[h].rank : 0,
            .first_host = ok ? t->first_host[h] : -1,
            .first_net = (int16_t)(ok ? t->first_net[h] : -1),
            .nosys = ok ? t->nosys[h] : 0,
            .reached = (uint8_t)ok,
        };
    }
    r->lo[r->num_iv] = lo;
    r->hi[r->num_iv] = hi;
    r->cls[r->num_iv] = t->cls;
    r->num_iv++;
    return 0;
}

int mdc_root_solve(mdc_treepool_t *pool, uint32_t root, mdc_rootres_t *out)
{
    const mdc_graph_t *g = pool->g;
    mdc_tree_t *t = NULL;              /* the last tree, kept for reuse */

    out->root = root;
    out->num_iv = 0;
    out->dijkstra_runs = 0;
    for (size_t k = 0; k < g->num_classes; k++) {
        size_t hi = mdc_graph_class_end(g, k);
        for (size_t s = g->bounds[k];;) {
            /* a new class often keeps the previous class's tree */
            if (t == NULL || s != g->bounds[k] || !mdc_tree_still_best(t, s)) {
                if (t == NULL && (t = tree_get(pool)) == NULL)
                    return -1;
                mdc_dijkstra(t, root, s, -1);
                out->dijkstra_runs++;
            }
            size_t until = stable_until(t, s, hi);
            if (record(out, t, s, until) != 0) {
                tree_put(pool, t);
                return -1;
            }
            if (until >= hi)
                break;
            s = until + 1;
        }
    }
    if (t != NULL)
        tree_put(pool, t);
    return 0;
}

void mdc_rootres_fini(mdc_rootres_t *r)
{
    free(r->lo);
    free(r->hi);
    free(r->cls);
    free(r->e);
    free(r->line);
    memset(r, 0, sizeof(*r));
}
