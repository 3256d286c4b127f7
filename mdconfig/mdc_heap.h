/*
 * mdc_heap.h - the indexed priority queue of both Dijkstra variants (the
 * full graph's, mdc_dijkstra.c, and the hub graph's, mdc_hubtree.c):
 * vertices ordered by their labels (mdc_label_less), each vertex's place
 * kept so that a lowered label moves up in O(log n).
 *
 * A 4-ary heap: half the depth of a binary one, and the four children of
 * a node are adjacent in memory.
 */
#ifndef MDC_HEAP_H
#define MDC_HEAP_H

#include <stdint.h>

#include "mdc_dijkstra.h"

/* Each entry carries a copy of its vertex's label, so that sifting reads
 * the heap array only (the labels by vertex are scattered). */
typedef struct mdc_heap_entry {
    mdc_label_t label;
    uint32_t    v;
} mdc_heap_entry_t;

typedef struct mdc_heap {
    mdc_heap_entry_t *e;            /**< [place] */
    uint32_t         *pos;          /**< [vertex] place */
    uint32_t          n;
} mdc_heap_t;

#define MDC_HEAP_ARITY 4

static inline void mdc_heap_set(mdc_heap_t *h, uint32_t i,
                                const mdc_heap_entry_t *x)
{
    h->e[i] = *x;
    h->pos[x->v] = i;
}

static inline void mdc_heap_up(mdc_heap_t *h, uint32_t i)
{
    mdc_heap_entry_t x = h->e[i];

    while (i > 0) {
        uint32_t parent = (i - 1) / MDC_HEAP_ARITY;
        if (!mdc_label_less(&x.label, &h->e[parent].label))
            break;
        mdc_heap_set(h, i, &h->e[parent]);
        i = parent;
    }
    mdc_heap_set(h, i, &x);
}

static inline void mdc_heap_down(mdc_heap_t *h, uint32_t i)
{
    mdc_heap_entry_t x = h->e[i];
    uint32_t n = h->n;

    for (;;) {
        uint32_t c = MDC_HEAP_ARITY * i + 1, m, end;
        if (c >= n)
            break;
        m = c;
        end = c + MDC_HEAP_ARITY < n ? c + MDC_HEAP_ARITY : n;
        for (uint32_t k = c + 1; k < end; k++)
            if (mdc_label_less(&h->e[k].label, &h->e[m].label))
                m = k;
        if (!mdc_label_less(&h->e[m].label, &x.label))
            break;
        mdc_heap_set(h, i, &h->e[m]);
        i = m;
    }
    mdc_heap_set(h, i, &x);
}

/* v's label was just lowered to *l (is_new: v was not in the heap yet). */
static inline void mdc_heap_raise(mdc_heap_t *h, uint32_t v,
                                  const mdc_label_t *l, int is_new)
{
    if (is_new) {
        h->pos[v] = h->n++;
        h->e[h->pos[v]].v = v;
    }
    h->e[h->pos[v]].label = *l;
    mdc_heap_up(h, h->pos[v]);
}

/* Removes and returns the least vertex; the heap must not be empty. */
static inline uint32_t mdc_heap_pop(mdc_heap_t *h)
{
    uint32_t u = h->e[0].v;

    if (--h->n > 0) {
        mdc_heap_set(h, 0, &h->e[h->n]);
        mdc_heap_down(h, 0);
    }
    return u;
}

#endif /* MDC_HEAP_H */
