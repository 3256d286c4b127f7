/*
 * via_lmm.h - locked memory management (LMM) after P8 (Seifert, Rehm,
 * "Reliably Locking VIA Communication Memory in Linux"): the VI user agent
 * registers the same range of memory any number of times, with overlaps,
 * and every page stays pinned until the last registration that covers it
 * is gone.  Linux mlock() does not nest (one munlock undoes any number of
 * mlocks), so the counts live here.
 *
 * The process's locked memory is a list of locked memory areas (LMAs),
 * sorted by start, non-overlapping, each with one lock count.  Locking a
 * new area walks the LMAs it meets and, per LMA, takes one of P8's five
 * intersection cases:
 *
 *   FRONT     new starts at or before the LMA and ends inside it: a new LMA
 *             for the part before, the LMA is split at the new end and its
 *             left part counted up
 *   REAR      new starts inside the LMA and ends at or after its end: split
 *             at the new start, right part counted up, continue after it
 *   MIDDLE    new lies strictly inside: split in three, middle counted up
 *   TOTAL     new covers the LMA: a new LMA for the part before it, the LMA
 *             counted up, continue after it
 *   DISJOINT  no LMA left to meet: one new LMA for the rest
 *
 * (An empty part before an LMA - new start == LMA start - is not created;
 * P8's pseudo code would.)  Unlocking takes exactly a range given to lock
 * before; it covers whole LMAs, each counted down and, at zero, unpinned
 * and removed.  Ranges are widened to whole pages so that two LMAs never
 * share a page (mlock works on pages).
 *
 * Pinning is a callback: mlock/munlock by default; when mlock is refused
 * (RLIMIT_MEMLOCK, or MULTIDEV_VIA_MLOCK=0) pinning is emulated by the
 * counts alone and the LMM says so (via_lmm_pinning_real).
 *
 * Not thread-safe: the caller (the NIC handle's lock) serialises.
 */
#ifndef VIA_LMM_H
#define VIA_LMM_H

#include <stddef.h>
#include <stdint.h>

#include "../core/nic_log.h"

enum via_lmm_case {
    VIA_LMM_FRONT = 0, VIA_LMM_REAR, VIA_LMM_MIDDLE, VIA_LMM_TOTAL, VIA_LMM_DISJOINT,
    VIA_LMM_NCASES
};

typedef struct via_lma {
    uint64_t start, end;     /* [start, end), page aligned */
    uint32_t count;          /* registrations covering it */
} via_lma_t;

/* pin = 1: lock [start, end); 0: unlock.  0 on success. */
typedef int (*via_lmm_pin_fn)(void *arg, uint64_t start, uint64_t end, int pin);

typedef struct via_lmm {
    via_lma_t      *lma;
    size_t          n, cap;
    size_t          page;
    via_lmm_pin_fn  pin;
    void           *pin_arg;
    int             real;            /* pages really locked (mlock) */
    uint64_t        cases[VIA_LMM_NCASES];
    uint64_t        pins, unpins;    /* calls of the pin callback */
    const nic_log_sink_t *log;       /* its NIC's (via_lmm_init) */
} via_lmm_t;

/* pin NULL: mlock/munlock, falling back to counting alone (at once with
 * MULTIDEV_VIA_MLOCK=0).  NIC_OK, or NIC_ERR_CONFIG after an error line if
 * that variable is malformed.  sink: where its lines go (its NIC's, kept
 * for its life; NULL: stderr). */
int  via_lmm_init(via_lmm_t *m, via_lmm_pin_fn pin, void *arg, const nic_log_sink_t *sink);
void via_lmm_fini(via_lmm_t *m);     /* unpins whatever is left */
/* Lock [start, end); may be called again for overlapping ranges.
 * 0, or -1 (out of memory). */
int  via_lmm_lock(via_lmm_t *m, uint64_t start, uint64_t end);
/* Unlock a range given to via_lmm_lock before: 0, or -1 if [start, end) is
 * not exactly covered by LMAs (never locked, or already unlocked). */
int  via_lmm_unlock(via_lmm_t *m, uint64_t start, uint64_t end);
/* P8's lmm_get_pages: 0 if every page of [start, end) is locked, -1 if the
 * range has a hole. */
int  via_lmm_check(const via_lmm_t *m, uint64_t start, uint64_t end);
/* Lock count of the page holding addr (0: not locked). */
uint32_t via_lmm_count(const via_lmm_t *m, uint64_t addr);
/* 0 if the list is sorted, non-overlapping, page aligned, counts > 0. */
int  via_lmm_valid(const via_lmm_t *m);
int  via_lmm_pinning_real(const via_lmm_t *m);

#endif /* VIA_LMM_H */
