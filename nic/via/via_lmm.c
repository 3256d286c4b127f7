/* via_lmm.c - locked memory areas with lock counts (P8); see via_lmm.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/nic_env.h"
#include "../core/nic_status.h"
#include "via_lmm.h"

static int lmm_mlock(void *arg, uint64_t start, uint64_t end, int pin)
{
    via_lmm_t *m = arg;

    if (!m->real)
        return 0;
    if (!pin)
        return munlock((void *)(uintptr_t)start, end - start) == 0 ? 0 : -1;
    if (mlock((void *)(uintptr_t)start, end - start) != 0) {
        /* RLIMIT_MEMLOCK or no privilege: emulate pinning with the counts. */
        nic_log_info(m->log, "mlock of %llu bytes refused (%s): locked memory is emulated by "
                     "lock counts from now on", (unsigned long long)(end - start),
                     strerror(errno));
        m->real = 0;
    }
    return 0;
}

int via_lmm_init(via_lmm_t *m, via_lmm_pin_fn pin, void *arg, const nic_log_sink_t *sink)
{
    long page = sysconf(_SC_PAGESIZE);
    long long mlock_on = 1;

    memset(m, 0, sizeof(*m));
    m->page = page > 0 ? (size_t)page : 4096;
    m->pin = pin ? pin : lmm_mlock;
    m->pin_arg = pin ? arg : m;
    m->log = sink;
    if (pin == NULL && nic_env_num(sink, "MULTIDEV_VIA_MLOCK", &mlock_on) != NIC_OK)
        return NIC_ERR_CONFIG;
    m->real = pin == NULL && mlock_on;
    return NIC_OK;
}

void via_lmm_fini(via_lmm_t *m)
{
    for (size_t i = 0; i < m->n; i++) {
        m->pin(m->pin_arg, m->lma[i].start, m->lma[i].end, 0);
        m->unpins++;
    }
    free(m->lma);
    m->lma = NULL;
    m->n = m->cap = 0;
}

int via_lmm_pinning_real(const via_lmm_t *m) { return m->real; }

static uint64_t page_down(const via_lmm_t *m, uint64_t a) { return a & ~(uint64_t)(m->page - 1); }
static uint64_t page_up(const via_lmm_t *m, uint64_t a)
{
    return (a + m->page - 1) & ~(uint64_t)(m->page - 1);
}

/* Make room and insert an LMA at index i. */
static int lma_insert(via_lmm_t *m, size_t i, uint64_t start, uint64_t end, uint32_t count)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        via_lma_t *a = realloc(m->lma, cap * sizeof(*a));
        if (a == NULL)
            return -1;
        m->lma = a;
        m->cap = cap;
    }
    memmove(&m->lma[i + 1], &m->lma[i], (m->n - i) * sizeof(*m->lma));
    m->lma[i].start = start;
    m->lma[i].end = end;
    m->lma[i].count = count;
    m->n++;
    return 0;
}

static void lma_remove(via_lmm_t *m, size_t i)
{
    memmove(&m->lma[i], &m->lma[i + 1], (m->n - i - 1) * sizeof(*m->lma));
    m->n--;
}

/* A new LMA of count 1, pinned. */
static int lma_new(via_lmm_t *m, size_t i, uint64_t start, uint64_t end)
{
    if (lma_insert(m, i, start, end, 1) != 0)
        return -1;
    m->pin(m->pin_arg, start, end, 1);
    m->pins++;
    return 0;
}

/* Split LMA i at addr (inside it): [start, addr) stays at i, [addr, end)
 * goes to i + 1, with the same count; the pages stay pinned. */
static int lma_split(via_lmm_t *m, size_t i, uint64_t addr)
{
    uint64_t end = m->lma[i].end;
    if (lma_insert(m, i + 1, addr, end, m->lma[i].count) != 0)
        return -1;
    m->lma[i].end = addr;
    return 0;
}

/* First LMA whose end lies above addr. */
static size_t lma_first_above(const via_lmm_t *m, uint64_t addr)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->lma[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int via_lmm_lock(via_lmm_t *m, uint64_t start, uint64_t end)
{
    uint64_t s = page_down(m, start);
    size_t i;

    end = page_up(m, end);
    if (s >= end)
        return 0;
    i = lma_first_above(m, s);
    while (s < end) {
        if (i == m->n || m->lma[i].start >= end) {
            m->cases[VIA_LMM_DISJOINT]++;
            return lma_new(m, i, s, end);
        }
        via_lma_t l = m->lma[i];
        if (s <= l.start)
            m->cases[end < l.end ? VIA_LMM_FRONT : VIA_LMM_TOTAL]++;
        else
            m->cases[end < l.end ? VIA_LMM_MIDDLE : VIA_LMM_REAR]++;
        if (s < l.start) {
            /* the part before the LMA (FRONT, TOTAL) */
            if (lma_new(m, i, s, l.start) != 0)
                return -1;
            i++;
            s = l.start;
        }
        if (s > l.start) {
            /* REAR, MIDDLE: split off the LMA's part before the new area */
            if (lma_split(m, i, s) != 0)
                return -1;
            i++;
        }
        if (end < m->lma[i].end) {
            /* FRONT, MIDDLE: split off the part after the new area */
            if (lma_split(m, i, end) != 0)
                return -1;
        }
        m->lma[i].count++;
        s = m->lma[i].end;
        i++;
    }
    return 0;
}

int via_lmm_unlock(via_lmm_t *m, uint64_t start, uint64_t end)
{
    uint64_t s = page_down(m, start);
    size_t i, j;

    end = page_up(m, end);
    if (s >= end)
        return 0;
    /* The range must be tiled exactly by LMAs. */
    i = lma_first_above(m, s);
    if (i == m->n || m->lma[i].start != s)
        return -1;
    for (j = i; j < m->n && m->lma[j].end < end; j++)
        if (j + 1 == m->n || m->lma[j + 1].start != m->lma[j].end)
            return -1;
    if (j == m->n || m->lma[j].end != end)
        return -1;
    for (size_t left = j - i + 1, k = i; left > 0; left--) {
        if (--m->lma[k].count == 0) {
            m->pin(m->pin_arg, m->lma[k].start, m->lma[k].end, 0);
            m->unpins++;
            lma_remove(m, k);
        } else {
            k++;
        }
    }
    return 0;
}

int via_lmm_check(const via_lmm_t *m, uint64_t start, uint64_t end)
{
    uint64_t s = page_down(m, start);
    size_t i;

    end = page_up(m, end);
    for (i = lma_first_above(m, s); s < end; i++) {
        if (i == m->n || m->lma[i].start > s)
            return -1;                       /* a hole */
        s = m->lma[i].end;
    }
    return 0;
}

uint32_t via_lmm_count(const via_lmm_t *m, uint64_t addr)
{
    size_t i = lma_first_above(m, addr);
    return i < m->n && m->lma[i].start <= addr ? m->lma[i].count : 0;
}

int via_lmm_valid(const via_lmm_t *m)
{
    for (size_t i = 0; i < m->n; i++) {
        const via_lma_t *l = &m->lma[i];
        if (l->start >= l->end || l->count == 0 || l->start % m->page || l->end % m->page)
            return -1;
        if (i > 0 && m->lma[i - 1].end > l->start)
            return -1;
    }
    return 0;
}
