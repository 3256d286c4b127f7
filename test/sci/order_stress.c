/* order_stress.c - ordering under load, as a plain threaded program (for
 * ThreadSanitizer, which Criterion cannot run under).  A writer thread on
 * node A stores a data block and then its flag into a ring of slots on
 * node B; a reader thread on B waits for each flag, checks that the data
 * before it is all there, and stores its acknowledgement back into A's
 * memory, which is the writer's flow control.  Exits non-zero on any
 * inconsistency or after 60 s. */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge_pair.h"

#define SLOTS  16
#define DATA   1000
#define ROUNDS 4000
#define STRIDE 1024      /* data, then its flag at the end */

static bridge_pair_t bp;
static nic_mr_t ring_mr, ack_mr;
static sci_win_t ring_win, ack_win;
static atomic_int failed;

static uint64_t load(const void *p)
{
    return atomic_load_explicit((const _Atomic uint64_t *)p, memory_order_acquire);
}

static void store_retry(sci_dev_t *d, uint64_t addr, const void *src, uint32_t len)
{
    while (sci_store(d, addr, src, len, 0, 0) == NIC_ERR_NO_RESOURCE)
        sched_yield();
}

static void *writer(void *arg)
{
    uint8_t data[DATA];

    for (uint64_t k = 1; k <= ROUNDS && !atomic_load(&failed); k++) {
        uint64_t slot = k % SLOTS;
        while (k > SLOTS && load(ack_mr.addr) < k - SLOTS && !atomic_load(&failed))
            sched_yield();
        memset(data, (int)(k & 0xff), DATA);
        store_retry(bp.node[0].dev, ring_win.addr + slot * STRIDE, data, DATA);
        store_retry(bp.node[0].dev, ring_win.addr + slot * STRIDE + STRIDE - 8, &k, 8);
    }
    return NULL;
}

static void *reader(void *arg)
{
    const uint8_t *ring = ring_mr.addr;

    for (uint64_t k = 1; k <= ROUNDS; k++) {
        const uint8_t *at = ring + (k % SLOTS) * STRIDE;
        uint64_t spins = 0;
        while (load(at + STRIDE - 8) != k) {
            if (++spins > 2000000000ull / 100 || atomic_load(&failed))
                goto fail;
            sched_yield();
        }
        for (int i = 0; i < DATA; i++)
            if (at[i] != (uint8_t)(k & 0xff)) {
                fprintf(stderr, "order_stress: flag %llu seen, data byte %d is %u\n",
                        (unsigned long long)k, i, at[i]);
                goto fail;
            }
        store_retry(bp.node[1].dev, ack_win.addr, &k, 8);
    }
    return NULL;
fail:
    atomic_store(&failed, 1);
    return NULL;
}

int main(void)
{
    sci_seg_t seg;
    pthread_t w, r;

    alarm(60);
    if (bp_start(&bp, 2, NULL, NULL) != NIC_OK ||
        bp_region(&bp, 1, SLOTS * STRIDE, &ring_mr) != NIC_OK ||
        sci_export_range(bp.node[1].dev, &ring_mr, 0, SLOTS * STRIDE, 0, SCI_EXP_REMOTE, &seg) !=
            NIC_OK ||
        sci_import(bp.node[0].dev, sci_local_node(bp.node[1].dev), seg.offset, seg.size, 0,
                   &ring_win) != NIC_OK ||
        bp_region(&bp, 0, 4096, &ack_mr) != NIC_OK ||
        sci_export_range(bp.node[0].dev, &ack_mr, 0, 64, 0, SCI_EXP_REMOTE, &seg) != NIC_OK ||
        sci_import(bp.node[1].dev, sci_local_node(bp.node[0].dev), seg.offset, seg.size, 0,
                   &ack_win) != NIC_OK) {
        fprintf(stderr, "order_stress: set-up failed\n");
        return 2;
    }
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    bp_stop(&bp);
    if (atomic_load(&failed))
        return 1;
    printf("order_stress: %d rounds, every flag after its data\n", ROUNDS);
    return 0;
}
