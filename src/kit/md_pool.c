/* md_pool.c - large buffers kept for reuse (see md_pool.h). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "md_pool.h"

typedef struct pool_block {
    size_t      cap;
    max_align_t data[];
} pool_block_t;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pool_block_t *kept[MD_POOL_KEPT];
static int nkept;

static pool_block_t *block_of(void *p)
{
    return (pool_block_t *)((char *)p - offsetof(pool_block_t, data));
}

/* A kept block for size bytes (size >= MD_POOL_MIN), or NULL. */
static pool_block_t *pool_take(size_t size)
{
    pool_block_t *b = NULL;

    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < nkept; i++) {
        if (kept[i]->cap >= size && kept[i]->cap / 2 <= size) {
            b = kept[i];
            kept[i] = kept[--nkept];
            break;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return b;
}

void *md_pool_alloc(size_t size)
{
    pool_block_t *b = size >= MD_POOL_MIN ? pool_take(size) : NULL;

    if (b == NULL) {
        size_t cap = size ? size : 1;
        if ((b = malloc(offsetof(pool_block_t, data) + cap)) == NULL)
            return NULL;
        b->cap = cap;
    }
    return b->data;
}

void md_pool_release(void *p)
{
    pool_block_t *b;

    if (p == NULL)
        return;
    b = block_of(p);
    if (b->cap >= MD_POOL_MIN) {
        pthread_mutex_lock(&pool_lock);
        if (nkept < MD_POOL_KEPT) {
            kept[nkept++] = b;
            b = NULL;
        }
        pthread_mutex_unlock(&pool_lock);
    }
    free(b);
}

void md_pool_drain(void)
{
    pthread_mutex_lock(&pool_lock);
    while (nkept > 0)
        free(kept[--nkept]);
    pthread_mutex_unlock(&pool_lock);
}
