/* test_idle.h - how a test rank waits when its progress call did nothing:
 * yield for a short while, then nap.  Ranks that only ever yield keep every
 * core busy, and on a loaded machine the emulated NIC firmwares they wait
 * for then get the CPU late (seconds, under a sanitizer), which looks like
 * a dead peer. */
#ifndef TEST_IDLE_H
#define TEST_IDLE_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#define TEST_IDLE_SPIN_US 200     /* yield this long before napping */
#define TEST_IDLE_NAP_NS  50000   /* then sleep this long per turn */

typedef struct test_idle {
    uint64_t since_us;            /* 0: busy */
} test_idle_t;

static inline uint64_t test_idle_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/* Progress happened: spin again next time. */
static inline void test_idle_busy(test_idle_t *t)
{
    t->since_us = 0;
}

/* Nothing happened this turn. */
static inline void test_idle_wait(test_idle_t *t)
{
    uint64_t now = test_idle_now_us();
    if (t->since_us == 0)
        t->since_us = now;
    /* A SCHED_FIFO process (a benchmark run with --rt) only yields: that
     * gives its core to the firmware of the same priority, which is all a
     * nap is for here, and a nap would stretch the wait by its length. */
    if (now - t->since_us < TEST_IDLE_SPIN_US || sched_getscheduler(0) == SCHED_FIFO) {
        sched_yield();
        return;
    }
    nanosleep(&(struct timespec){ 0, TEST_IDLE_NAP_NS }, NULL);
}

#endif
