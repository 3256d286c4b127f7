/* via_rcache.c - registration cache (see via_rcache.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "via_rcache.h"

void via_rc_init(via_rcache_t *c, const via_rc_backend_t *be, uint64_t limit_bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    memset(c, 0, sizeof(*c));
    c->be = *be;
    c->limit = limit_bytes;
    c->page = page > 0 ? (uint64_t)page : 4096;
}

static void rc_drop(via_rcache_t *c, size_t i)
{
    via_rc_entry_t *e = c->e[i];
    c->be.dereg(c->be.ctx, e->start, e->handle);
    c->bytes -= e->end - e->start;
    c->e[i] = c->e[--c->n];
    free(e);
}

void via_rc_fini(via_rcache_t *c)
{
    while (c->n > 0)
        rc_drop(c, c->n - 1);
    free(c->e);
    c->e = NULL;
    c->cap = 0;
}

/* The unused entry to evict next: one-shot before persistent, then the
 * least recently used; -1 if every entry is in use. */
static long rc_victim(const via_rcache_t *c)
{
    long best = -1;
    for (size_t i = 0; i < c->n; i++) {
        const via_rc_entry_t *e = c->e[i];
        if (e->refs > 0)
            continue;
        if (best < 0 || e->klass < c->e[best]->klass ||
            (e->klass == c->e[best]->klass && e->last_use < c->e[best]->last_use))
            best = (long)i;
    }
    return best;
}

static int rc_evict_one(via_rcache_t *c)
{
    long v = rc_victim(c);
    if (v < 0)
        return 0;
    if (c->e[v]->klass == VIA_RC_PERSISTENT)
        c->st.evicted_persistent++;
    else
        c->st.evicted_oneshot++;
    rc_drop(c, (size_t)v);
    return 1;
}

size_t via_rc_shrink(via_rcache_t *c, uint64_t target)
{
    size_t n = 0;
    while (c->bytes > target && rc_evict_one(c))
        n++;
    return n;
}

via_rc_entry_t *via_rc_acquire(via_rcache_t *c, const void *va, size_t len, uint32_t flags,
                               int klass)
{
    uint64_t a = (uint64_t)(uintptr_t)va;
    uint64_t start = a & ~(c->page - 1);
    uint64_t end = (a + (len ? len : 1) + c->page - 1) & ~(c->page - 1);
    via_rc_entry_t *e;

    c->tick++;
    for (size_t i = 0; i < c->n; i++) {
        e = c->e[i];
        if (e->start <= start && end <= e->end && (e->flags & flags) == flags) {
            e->refs++;
            e->uses++;
            e->last_use = c->tick;
            if (e->uses >= 2 || klass == VIA_RC_PERSISTENT)
                e->klass = VIA_RC_PERSISTENT;      /* reused: likely again */
            c->st.hits++;
            return e;
        }
    }
    c->st.misses++;
    e = calloc(1, sizeof(*e));
    if (e == NULL)
        return NULL;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        via_rc_entry_t **a2 = realloc(c->e, cap * sizeof(*a2));
        if (a2 == NULL) {
            free(e);
            return NULL;
        }
        c->e = a2;
        c->cap = cap;
    }
    /* Make room under the limit first, then register; on refusal evict
     * unused entries one by one and try again. */
    if (c->limit)
        via_rc_shrink(c, end - start >= c->limit ? 0 : c->limit - (end - start));
    for (;;) {
        if (c->be.reg(c->be.ctx, start, end - start, flags, &e->handle) == 0)
            break;
        if (!rc_evict_one(c)) {
            c->st.refused++;
            free(e);
            return NULL;
        }
    }
    c->st.registrations++;
    e->start = start;
    e->end = end;
    e->flags = flags;
    e->refs = 1;
    e->uses = 1;
    e->klass = klass;
    e->last_use = c->tick;
    c->bytes += end - start;
    c->e[c->n++] = e;
    return e;
}

void via_rc_release(via_rcache_t *c, via_rc_entry_t *e)
{
    (void)c;
    if (e != NULL && e->refs > 0)
        e->refs--;
}
