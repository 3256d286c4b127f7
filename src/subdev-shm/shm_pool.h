/*
 * shm_pool.h - freelists for the shm subdevice's private objects.
 *
 * The fast path never calls malloc: unexpected-message entries, pending
 * control records and the buffers that hold unexpected eager payloads come
 * from these pools.  A pool grows by whole chunks when it runs dry (the
 * first burst of unexpected messages pays for it once) and gives memory
 * back only at finalize.
 *
 * shm_pool_t is one object size; shm_bufpool_t is a set of power-of-two
 * size classes (64 bytes up to a maximum) for payload buffers.
 * Not thread-safe: the multidevice calls a subdevice from one thread at a
 * time (md_sdi.h, "Threading").
 */
#ifndef SHM_POOL_H
#define SHM_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct shm_pool {
    void   *free;        /**< free objects, linked through their first word */
    void   *chunks;      /**< allocated chunks, linked through their first word */
    size_t  obj_size;    /**< bytes per object, multiple of 64 */
    size_t  per_chunk;   /**< objects added by one grow */
    size_t  total;       /**< objects created so far */
    size_t  in_use;      /**< objects handed out and not returned */
} shm_pool_t;

/* prealloc objects are created at once (0: on first use). 0 or -1 (ENOMEM). */
int shm_pool_init(shm_pool_t *pool, size_t obj_size, size_t per_chunk,
                  size_t prealloc);
/* Adds one chunk; 0 or -1. */
int shm_pool_grow(shm_pool_t *pool);
void shm_pool_fini(shm_pool_t *pool);

/* An object (64-byte aligned), or NULL if memory is exhausted. */
static inline void *shm_pool_get(shm_pool_t *pool)
{
    void *obj = pool->free;

    if (obj == NULL) {
        if (shm_pool_grow(pool) != 0)
            return NULL;
        obj = pool->free;
    }
    pool->free = *(void **)obj;
    pool->in_use++;
    return obj;
}

static inline void shm_pool_put(shm_pool_t *pool, void *obj)
{
    *(void **)obj = pool->free;
    pool->free = obj;
    pool->in_use--;
}

#define SHM_BUFPOOL_MIN_SHIFT 6     /**< smallest class: 64 bytes */
#define SHM_BUFPOOL_MAX_CLASSES 27  /**< up to 4 GiB */

typedef struct shm_bufpool {
    shm_pool_t cls[SHM_BUFPOOL_MAX_CLASSES];
    unsigned   nclasses;
    size_t     max_size;             /**< largest buffer served */
} shm_bufpool_t;

/* Serves buffers of up to max_size bytes. 0 or -1. */
int shm_bufpool_init(shm_bufpool_t *bp, size_t max_size);
void shm_bufpool_fini(shm_bufpool_t *bp);

/* Size class of a buffer of size bytes. */
static inline unsigned shm_bufpool_class(size_t size)
{
    if (size <= ((size_t)1 << SHM_BUFPOOL_MIN_SHIFT))
        return 0;
    return (unsigned)(64 - __builtin_clzll((unsigned long long)(size - 1))) -
           SHM_BUFPOOL_MIN_SHIFT;
}

/* A buffer of at least size bytes (size <= max_size), or NULL. */
static inline void *shm_bufpool_get(shm_bufpool_t *bp, size_t size)
{
    unsigned c = shm_bufpool_class(size);

    if (size > bp->max_size || c >= bp->nclasses)
        return NULL;
    return shm_pool_get(&bp->cls[c]);
}

/* Returns a buffer; size must be the size it was taken with. */
static inline void shm_bufpool_put(shm_bufpool_t *bp, void *buf, size_t size)
{
    shm_pool_put(&bp->cls[shm_bufpool_class(size)], buf);
}

#endif /* SHM_POOL_H */
