/* test_ring.c - the eager ring of one sender at one receiver: wrapping
 * around its end, and exhaustion (the sender waits, nothing is lost or
 * overwritten) while the receiver makes no progress at all. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sci_job.h"

#define MSGS 60

/* 3000..6900 bytes: never a whole number of them fits the 16 kB ring, so
 * the allocator keeps skipping the ring's end. */
static size_t len_of(int i)
{
    return 3000 + (size_t)(i * 1300) % 3901;
}

static int rank_exhaust(sj_rank_t *r)
{
    static md_request_t req[MSGS];
    static uint8_t buf[MSGS][8192];

    if (r->rank == 0) {
        int done = 0;
        uint64_t end;
        for (int i = 0; i < MSGS; i++) {
            sj_fill(buf[i], len_of(i), (unsigned)i);
            if (sj_send(r, &req[i], 1, 9, buf[i], len_of(i), 0) != MD_OK)
                return 1;
        }
        /* The receiver sleeps: only what fits the ring and the slots can go. */
        end = sj_now_us() + 300000;
        while (sj_now_us() < end)
            r->ops.progress(&r->sd);
        for (int i = 0; i < MSGS; i++)
            done += atomic_load(&req[i].complete);
        if (done == 0 || done >= MSGS) {
            fprintf(stderr, "rank 0: %d of %d sends done while the receiver slept\n", done, MSGS);
            return 2;
        }
        sj_barrier(r);
        for (int i = 0; i < MSGS; i++)
            if (sj_wait(r, &req[i], 10000) != MD_OK)
                return 3;
        return 0;
    }
    usleep(400000);   /* no progress at all */
    sj_barrier(r);
    for (int i = 0; i < MSGS; i++) {
        memset(buf[i], 0, sizeof(buf[i]));
        if (sj_recv(r, &req[i], 0, 9, buf[i], sizeof(buf[i])) != MD_OK ||
            sj_wait(r, &req[i], 10000) != MD_OK)
            return 4;
        if (req[i].status.size != len_of(i) || !sj_check(buf[i], len_of(i), (unsigned)i)) {
            fprintf(stderr, "rank 1: message %d damaged\n", i);
            return 5;
        }
    }
    return sj_remote_reads(r) == 0 ? 0 : 6;   /* waiting is polling local memory */
}

Test(ring, wraps_and_exhausts_without_loss, .timeout = 60)
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40,
                   .params = { { "ring_size", "16k" }, { "eager_limit", "8k" },
                               { "nmsg", "32" }, { "inline_max", "256" } },
                   .nparams = 4 };
    cr_assert_eq(sj_run(&j, rank_exhaust), 0);
}

/* The message slots run out before the ring does. */
static int rank_slots(sj_rank_t *r)
{
    static md_request_t req[MSGS];
    static uint8_t buf[MSGS][64];

    for (int i = 0; i < MSGS; i++) {
        if (r->rank == 0) {
            buf[i][0] = (uint8_t)i;
            if (sj_send(r, &req[i], 1, 1, buf[i], 1 + (size_t)i % 64, 0) != MD_OK)
                return 1;
        } else if (sj_recv(r, &req[i], 0, 1, buf[i], 64) != MD_OK) {
            return 2;
        }
    }
    for (int i = 0; i < MSGS; i++)
        if (sj_wait(r, &req[i], 10000) != MD_OK) {
            fprintf(stderr, "rank %d: request %d incomplete\n", r->rank, i);
            sj_dump(r);
            return 3;
        }
    if (r->rank == 1)
        for (int i = 0; i < MSGS; i++)
            if (buf[i][0] != (uint8_t)i || req[i].status.size != 1 + (size_t)i % 64)
                return 4;
    return 0;
}

Test(ring, message_slots_wrap, .timeout = 60)
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40,
                   .params = { { "nmsg", "4" } }, .nparams = 1 };
    cr_assert_eq(sj_run(&j, rank_slots), 0);
}
