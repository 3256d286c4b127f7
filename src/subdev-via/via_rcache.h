/*
 * via_rcache.h - the registration cache of subdev-via (P8's advice, P4
 * §3.2's memory classes): a user buffer registered for a rendezvous stays
 * registered after it, so the next message from or into it skips the
 * registration (6.7 us per 4 kB page on P8's hardware).
 *
 * Entries cover whole pages.  An entry in use (refs > 0) is never evicted.
 * When the cache holds more than its limit, or the NIC refuses a new
 * registration, unused entries are evicted least recently used first,
 * one-shot user memory before persistent-request memory (P4 §3.2: "the
 * buffer least likely to be reused").  The SDI does not say which requests
 * are persistent, so an entry is promoted to the persistent class the
 * second time its buffer is used; a caller that knows may say so.
 *
 * The backend (register / deregister) is a pair of callbacks: VIPL in the
 * subdevice, a fake in the unit test.  Not thread-safe.
 */
#ifndef VIA_RCACHE_H
#define VIA_RCACHE_H

#include <stddef.h>
#include <stdint.h>

enum via_rc_class { VIA_RC_ONESHOT = 0, VIA_RC_PERSISTENT = 1 };

typedef struct via_rc_entry {
    uint64_t start, end;       /* page aligned */
    uint32_t handle;
    uint32_t flags;            /* backend flags it was registered with */
    int      refs;             /* users now; > 0: never evicted */
    int      klass;            /* enum via_rc_class */
    uint32_t uses;
    uint64_t last_use;         /* LRU tick */
} via_rc_entry_t;

typedef struct via_rc_backend {
    /* 0 and *handle on success, else an error (e.g. out of resources). */
    int  (*reg)(void *ctx, uint64_t va, uint64_t len, uint32_t flags, uint32_t *handle);
    void (*dereg)(void *ctx, uint64_t va, uint32_t handle);
    void *ctx;
} via_rc_backend_t;

typedef struct via_rc_stats {
    uint64_t hits, misses, registrations;
    uint64_t evicted_oneshot, evicted_persistent, refused;
} via_rc_stats_t;

typedef struct via_rcache {
    via_rc_backend_t  be;
    via_rc_entry_t  **e;       /* entries, unordered */
    size_t            n, cap;
    uint64_t          bytes, limit, tick, page;
    via_rc_stats_t    st;
} via_rcache_t;

void via_rc_init(via_rcache_t *c, const via_rc_backend_t *be, uint64_t limit_bytes);
/* Deregisters everything (entries still in use included). */
void via_rc_fini(via_rcache_t *c);
/* An entry covering [va, va+len) registered with at least flags, its use
 * count raised.  klass: a hint (VIA_RC_PERSISTENT promotes at once).
 * NULL: the backend refused even after evicting every unused entry. */
via_rc_entry_t *via_rc_acquire(via_rcache_t *c, const void *va, size_t len, uint32_t flags,
                               int klass);
void via_rc_release(via_rcache_t *c, via_rc_entry_t *e);
/* Evict unused entries until bytes <= target; returns how many went. */
size_t via_rc_shrink(via_rcache_t *c, uint64_t target);

#endif /* VIA_RCACHE_H */
