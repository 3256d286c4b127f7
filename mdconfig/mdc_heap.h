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

typedef struct mdc_heap {
    uint32_t          *item;        /**< [place] vertex */
    uint32_t          *pos;         /**< [vertex] place */
    uint32_t           n;
    const mdc_label_t *label;       /**< [vertex] the order */
} mdc_heap_t;

#define MDC_HEAP_ARITY 4

static inline void mdc_heap_set(mdc_heap_t *h, uint32_t i, uint32_t v)
{
    h->item[i] = v;
    h->pos[v] = i;
}

static inline void mdc_heap_up(mdc_heap_t *h, uint32_t i)
{
    uint32_t v = h->item[i];
    const mdc_label_t *lv = &h->label[v];

    while (i > 0) {
        uint32_t parent = (i - 1) / MDC_HEAP_ARITY;
        if (!mdc_label_less(lv, &h->label[h->item[parent]]))
            break;
        mdc_heap_set(h, i, h->item[parent]);
        i = parent;
    }
    mdc_heap_set(h, i, v);
}

static inline void mdc_heap_down(mdc_heap_t *h, uint32_t i)
{
    uint32_t v = h->item[i], n = h->n;
    const mdc_label_t *lv = &h->label[v];

    for (;;) {
        uint32_t c = MDC_HEAP_ARITY * i + 1, m, end;
        if (c >= n)
            break;
        m = c;
        end = c + MDC_HEAP_ARITY < n ? c + MDC_HEAP_ARITY : n;
        for (uint32_t k = c + 1; k < end; k++)
            if (mdc_label_less(&h->label[h->item[k]], &h->label[h->item[m]]))
                m = k;
        if (!mdc_label_less(&h->label[h->item[m]], lv))
            break;
        mdc_heap_set(h, i, h->item[m]);
        i = m;
    }
    mdc_heap_set(h, i, v);
}

/* v's label was just lowered (is_new: v was not in the heap yet). */
static inline void mdc_heap_raise(mdc_heap_t *h, uint32_t v, int is_new)
{
    if (is_new)
        mdc_heap_set(h, h->n++, v);
    mdc_heap_up(h, h->pos[v]);
}

/* Removes and returns the least vertex; the heap must not be empty. */
static inline uint32_t mdc_heap_pop(mdc_heap_t *h)
{
    uint32_t u = h->item[0];

    if (--h->n > 0) {
        mdc_heap_set(h, 0, h->item[h->n]);
        mdc_heap_down(h, 0);
    }
    return u;
}

#endif /* MDC_HEAP_H */
