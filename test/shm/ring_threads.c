/* ring_threads.c - threaded producer/consumer check of shm_ring.h. */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring_threads.h"
#include "shm_ring.h"

#define RT_TYPE 9

typedef struct rt_arg {
    void   *mem;
    long    records;
    size_t  max_len;
    int     failed;
} rt_arg_t;

static size_t rt_len(long i, size_t max_len)
{
    /* header + 0..max_len bytes, stepping through odd sizes */
    return sizeof(shm_ring_rec_t) + sizeof(long) +
           (size_t)((unsigned long)i * 37u % (max_len + 1));
}

static void *rt_producer(void *p)
{
    rt_arg_t *a = p;
    shm_ring_producer_t prod;

    shm_ring_producer_attach(&prod, a->mem);
    for (long i = 0; i < a->records; i++) {
        size_t len = rt_len(i, a->max_len);
        uint8_t *rec;

        while ((rec = shm_ring_reserve(&prod, (uint32_t)len)) == NULL)
            sched_yield();
        memcpy(rec + sizeof(shm_ring_rec_t), &i, sizeof(i));
        for (size_t k = sizeof(shm_ring_rec_t) + sizeof(long); k < len; k++)
            rec[k] = (uint8_t)(i + (long)k);
        shm_ring_commit(&prod, rec, RT_TYPE, (uint32_t)len);
    }
    return NULL;
}

static void *rt_consumer(void *p)
{
    rt_arg_t *a = p;
    shm_ring_consumer_t cons;

    shm_ring_consumer_attach(&cons, a->mem);
    for (long i = 0; i < a->records; i++) {
        shm_ring_rec_t *rec;
        const uint8_t *b;
        long seen;

        while ((rec = shm_ring_peek(&cons)) == NULL)
            sched_yield();
        b = (const uint8_t *)rec;
        memcpy(&seen, b + sizeof(shm_ring_rec_t), sizeof(seen));
        if (seen != i || rec->type != RT_TYPE || rec->len != rt_len(i, a->max_len)) {
            fprintf(stderr, "ring_threads: record %ld: got number %ld, type %u, "
                    "len %u\n", i, seen, (unsigned)rec->type, (unsigned)rec->len);
            a->failed = 1;
            return NULL;
        }
        for (size_t k = sizeof(shm_ring_rec_t) + sizeof(long); k < rec->len; k++) {
            if (b[k] != (uint8_t)(i + (long)k)) {
                fprintf(stderr, "ring_threads: record %ld byte %zu wrong\n", i, k);
                a->failed = 1;
                return NULL;
            }
        }
        shm_ring_release(&cons, rec);
    }
    if (shm_ring_peek(&cons) != NULL) {
        fprintf(stderr, "ring_threads: a record after the last one\n");
        a->failed = 1;
    }
    return NULL;
}

int ring_threads_run(size_t ring_size, long records, size_t max_len)
{
    rt_arg_t a = { .records = records, .max_len = max_len };
    pthread_t tp, tc;

    a.mem = aligned_alloc(64, shm_ring_footprint(ring_size));
    if (a.mem == NULL)
        return -1;
    memset(a.mem, 0xa5, shm_ring_footprint(ring_size));   /* not zero */
    shm_ring_format(a.mem, ring_size);
    pthread_create(&tc, NULL, rt_consumer, &a);
    pthread_create(&tp, NULL, rt_producer, &a);
    pthread_join(tp, NULL);
    pthread_join(tc, NULL);
    free(a.mem);
    return a.failed ? -1 : 0;
}
