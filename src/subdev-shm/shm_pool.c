/* shm_pool.c - chunked freelists (shm_pool.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "shm_pool.h"

/* A chunk starts with one line holding the chunk link; objects follow. */
#define SHM_POOL_CHUNK_HDR 64u

int shm_pool_init(shm_pool_t *pool, size_t obj_size, size_t per_chunk,
                  size_t prealloc)
{
    memset(pool, 0, sizeof(*pool));
    if (obj_size < sizeof(void *))
        obj_size = sizeof(void *);
    pool->obj_size = (obj_size + 63) & ~(size_t)63;
    pool->per_chunk = per_chunk > 0 ? per_chunk : 1;
    while (pool->total < prealloc)
        if (shm_pool_grow(pool) != 0)
            return -1;
    return 0;
}

int shm_pool_grow(shm_pool_t *pool)
{
    size_t bytes = SHM_POOL_CHUNK_HDR + pool->per_chunk * pool->obj_size;
    uint8_t *chunk = aligned_alloc(64, bytes);

    if (chunk == NULL)
        return -1;
    *(void **)chunk = pool->chunks;
    pool->chunks = chunk;
    /* Thread the new objects so that they are handed out in address
     * order (friendlier to the prefetcher). */
    for (size_t i = pool->per_chunk; i-- > 0;) {
        void *obj = chunk + SHM_POOL_CHUNK_HDR + i * pool->obj_size;
        *(void **)obj = pool->free;
        pool->free = obj;
    }
    pool->total += pool->per_chunk;
    return 0;
}

void shm_pool_fini(shm_pool_t *pool)
{
    void *chunk = pool->chunks;

    while (chunk != NULL) {
        void *next = *(void **)chunk;
        free(chunk);
        chunk = next;
    }
    memset(pool, 0, sizeof(*pool));
}

int shm_bufpool_init(shm_bufpool_t *bp, size_t max_size)
{
    memset(bp, 0, sizeof(*bp));
    bp->max_size = max_size;
    bp->nclasses = shm_bufpool_class(max_size) + 1;
    if (bp->nclasses > SHM_BUFPOOL_MAX_CLASSES)
        return -1;
    for (unsigned c = 0; c < bp->nclasses; c++) {
        size_t size = (size_t)1 << (c + SHM_BUFPOOL_MIN_SHIFT);
        /* about 64 KiB per chunk, at least one buffer */
        size_t per_chunk = size >= 65536 ? 1 : 65536 / size;

        if (shm_pool_init(&bp->cls[c], size, per_chunk, 0) != 0)
            return -1;
    }
    return 0;
}

void shm_bufpool_fini(shm_bufpool_t *bp)
{
    for (unsigned c = 0; c < bp->nclasses; c++)
        shm_pool_fini(&bp->cls[c]);
    bp->nclasses = 0;
}
