/* vi_threads.c - (plain C, for ThreadSanitizer) the VI user agent from
 * several threads at once: each thread streams messages over its own VI
 * pair, one more registers and deregisters overlapping ranges (the LMM
 * under the NIC handle's lock), all on in-process firmware threads.
 * Exits non-zero on a lost, corrupted or misordered message. */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vi_pair.h"

#define PAIRS 3
#define MSGS  300
#define DEPTH 8

static vi_pair_t p;
static _Atomic int failures, running;

typedef struct lane {
    vipl_vi_t *a, *b;
    vi_buf_t   da, db;
} lane_t;

static lane_t lanes[PAIRS];

static int wait_done(vipl_result_t (*done)(vipl_vi_t *, via_desc_t **), vipl_vi_t *vi,
                     via_desc_t **d)
{
    uint64_t end = vi_now_us() + 10000000;
    while (done(vi, d) != VIPL_SUCCESS) {
        if (vi_now_us() > end)
            return -1;
        sched_yield();
    }
    return 0;
}

static void *lane_main(void *arg)
{
    lane_t *l = arg;
    uint8_t *abuf = l->da.mem + DEPTH * 512, *bbuf = l->db.mem + DEPTH * 512;

    for (int i = 0; i < DEPTH; i++) {
        via_desc_t *r = vi_desc(&l->db, i);
        vipl_desc_init(r, 0);
        vipl_desc_add_data(r, bbuf + i * 1024, l->db.h, 1024);
        vipl_post_recv(l->b, r, l->db.h);
    }
    for (int m = 0; m < MSGS; m++) {
        int slot = m % DEPTH;
        via_desc_t *s = vi_desc(&l->da, slot), *d;
        memcpy(abuf + slot * 1024, &m, sizeof(m));
        vipl_desc_init(s, 0);
        vipl_desc_add_data(s, abuf + slot * 1024, l->da.h, 64);
        if (vipl_post_send(l->a, s, l->da.h) != VIPL_SUCCESS ||
            wait_done(vipl_send_done, l->a, &d) != 0 || wait_done(vipl_recv_done, l->b, &d) != 0) {
            atomic_fetch_add(&failures, 1);
            break;
        }
        int got;
        memcpy(&got, (void *)(uintptr_t)d->seg[0].ds.data, sizeof(got));
        if (got != m)
            atomic_fetch_add(&failures, 1);
        vipl_desc_init(d, 0);
        vipl_desc_add_data(d, bbuf + (m % DEPTH) * 1024, l->db.h, 1024);
        vipl_post_recv(l->b, d, l->db.h);
    }
    atomic_fetch_sub(&running, 1);
    return NULL;
}

static void *registrar_main(void *arg)
{
    static uint8_t mem[64 * 4096] __attribute__((aligned(4096)));
    vipl_mem_attr_t ma = { .ptag = p.node[0].ptag };
    unsigned seed = 1;

    (void)arg;
    while (atomic_load(&running) > 0) {
        vipl_mem_handle_t h[4];
        void *va[4];
        for (int i = 0; i < 4; i++) {
            size_t off = (size_t)(rand_r(&seed) % 32) * 4096, len = (size_t)(1 + rand_r(&seed) % 30) * 4096;
            va[i] = mem + off;
            if (vipl_register_mem(p.node[0].nic, va[i], len, &ma, &h[i]) != VIPL_SUCCESS)
                atomic_fetch_add(&failures, 1);
        }
        for (int i = 3; i >= 0; i--)
            if (vipl_deregister_mem(p.node[0].nic, va[i], h[i]) != VIPL_SUCCESS)
                atomic_fetch_add(&failures, 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[PAIRS + 1];

    if (vi_pair_start(&p, NULL) != 0) {
        fprintf(stderr, "vi_threads: cannot start the emulated nodes\n");
        return 1;
    }
    for (int i = 0; i < PAIRS; i++) {
        vipl_vi_attr_t aa = vi_attr(&p.node[0], VIA_RELIABLE_DELIVERY, 0, 0);
        vipl_vi_attr_t ba = vi_attr(&p.node[1], VIA_RELIABLE_DELIVERY, 0, 0);
        if (vi_connect(&p, 0, 1, &aa, &ba, NULL, NULL, &lanes[i].a, &lanes[i].b) != VIPL_SUCCESS ||
            vi_buf_make(&p.node[0], DEPTH * (512 + 1024), 1, 0, 0, &lanes[i].da) != VIPL_SUCCESS ||
            vi_buf_make(&p.node[1], DEPTH * (512 + 1024), 1, 0, 0, &lanes[i].db) != VIPL_SUCCESS) {
            fprintf(stderr, "vi_threads: set-up of lane %d failed\n", i);
            return 1;
        }
    }
    atomic_store(&running, PAIRS);
    for (int i = 0; i < PAIRS; i++)
        pthread_create(&t[i], NULL, lane_main, &lanes[i]);
    pthread_create(&t[PAIRS], NULL, registrar_main, NULL);
    for (int i = 0; i <= PAIRS; i++)
        pthread_join(t[i], NULL);
    vi_pair_stop(&p);
    if (atomic_load(&failures) != 0) {
        fprintf(stderr, "vi_threads: %d failure(s)\n", atomic_load(&failures));
        return 1;
    }
    printf("vi_threads: %d lanes x %d messages, concurrent registrations: ok\n", PAIRS, MSGS);
    return 0;
}
