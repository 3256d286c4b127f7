/*
 * drain_test.c - md_drain, the bounded drain at finalize: it steps while
 * work is pending, stops when it is done, when a step fails, and when the
 * time is up.
 */
#include <criterion/criterion.h>
#include <time.h>

#include "md_drain.h"
#include "md_sdi.h"

typedef struct drain_log {
    int pending_left;      /* steps until nothing is pending; < 0: forever */
    int steps;
    int fail_at;           /* the step that fails (1-based), 0: none */
} drain_log_t;

static int log_pending(void *arg)
{
    drain_log_t *l = arg;
    return l->pending_left != 0;
}

static int log_step(void *arg)
{
    drain_log_t *l = arg;

    l->steps++;
    if (l->pending_left > 0)
        l->pending_left--;
    return l->steps == l->fail_at ? MD_ERR_PEER_FAILED : 0;
}

static int slow_step(void *arg)
{
    struct timespec ms = { 0, 1000000 };

    nanosleep(&ms, NULL);
    return log_step(arg);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

Test(drain, nothing_pending_takes_no_step)
{
    drain_log_t l = { .pending_left = 0 };

    cr_assert_eq(md_drain(log_pending, log_step, &l, MD_DRAIN_MS), MD_OK);
    cr_assert_eq(l.steps, 0);
}

Test(drain, steps_until_the_work_is_done)
{
    drain_log_t l = { .pending_left = 5 };

    cr_assert_eq(md_drain(log_pending, log_step, &l, MD_DRAIN_MS), MD_OK);
    cr_assert_eq(l.steps, 5, "one step per unit of work, none after");
}

Test(drain, a_failed_step_ends_it_with_its_status)
{
    drain_log_t l = { .pending_left = -1, .fail_at = 3 };

    cr_assert_eq(md_drain(log_pending, log_step, &l, MD_DRAIN_MS), MD_ERR_PEER_FAILED);
    cr_assert_eq(l.steps, 3);
}

Test(drain, work_that_never_ends_is_given_up_after_the_limit, .timeout = 20)
{
    drain_log_t l = { .pending_left = -1 };
    double t0 = now_s();

    cr_assert_eq(md_drain(log_pending, slow_step, &l, 100), MD_ERR_TIMEOUT);
    double took = now_s() - t0;
    cr_assert_geq(took, 0.1, "gave up after %.3f s, before the limit", took);
    cr_assert_lt(took, 10.0, "the limit did not hold: %.3f s", took);
    cr_assert_gt(l.steps, 0);
}
