/*
 * md_pool.h - large buffers kept for reuse, per process.
 *
 * A stream through the multidevice (a forwarded message at its origin, its
 * relays and its destination) needs one buffer of about a chunk for every
 * chunk it moves.  A malloc and free of each, which glibc's heap gives
 * back to the kernel, faulted its pages in anew every time (2026-11-26:
 * 3.5-4x the page faults, 4 MiB forwarded at 320 instead of 373 MB/s).
 * Buffers of MD_POOL_MIN bytes and more are therefore kept, up to
 * MD_POOL_KEPT of them, and serve any later request that fits them
 * without wasting more than half.  Thread-safe.
 */
#ifndef MD_POOL_H
#define MD_POOL_H

#include <stddef.h>

#define MD_POOL_MIN  (16 * 1024)
#define MD_POOL_KEPT 24

/* At least size bytes, aligned for any type; NULL when out of memory. */
void *md_pool_alloc(size_t size);
/* Gives p (from md_pool_alloc, or NULL) back. */
void  md_pool_release(void *p);
/* Frees the buffers kept (the process's last multidevice is gone). */
void  md_pool_drain(void);

#endif /* MD_POOL_H */
