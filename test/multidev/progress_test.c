/*
 * progress_test.c - progress without MPI calls (P1 §3.4 footnote 4).
 *
 * T-IND-7: the relay's application computes and never calls into the
 * multidevice, yet a message passes through it.  T-SYS-3: a system
 * message is handled while its target computes.  And the converse: with
 * the progress thread off, the same forwarding stalls until the relay calls
 * in again, which is the deadlock the paper warns of.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "forkjob.h"
#include "solo_bootstrap.h"

#define CTX 4

static const char *const nodes3[] = { "n0", "n1", "n2" };
static const char *const chain3[][2] = {
    { "n0", "multidev-node-config 1\nnode n0\ndevice tnet\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet n1\n" },
    { "n1", "multidev-node-config 1\nnode n1\ndevice tnet\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\n" },
    { "n2", "multidev-node-config 1\nnode n2\ndevice tnet\n"
            "route n0 0 inf tnet n1\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\n" },
    { NULL, NULL },
};

enum { C_GOT_IT = 0, RELAY_BACK = 1, SYS_SEEN = 2 };

/* "Computes" for up to limit seconds without calling the multidevice,
 * until counter becomes nonzero.  Returns that counter. */
static int compute_until(forkjob_shared_t *sh, int counter, double limit)
{
    double end = forkjob_now_s() + limit;

    while (atomic_load(&sh->counters[counter]) == 0 && forkjob_now_s() < end)
        sched_yield();
    return atomic_load(&sh->counters[counter]);
}

static int relay_busy(md_t *md, int rank, int size, forkjob_shared_t *sh,
                      void *arg)
{
    static uint8_t buf[1 << 20];
    int expect_stall = arg != NULL;
    md_request_t req = { 0 };
    int rc = 0;

    if (rank == 1) {
        /* compute; with the thread, C gets the message meanwhile */
        int got = compute_until(sh, C_GOT_IT, expect_stall ? 1.0 : 20.0);
        if (expect_stall ? got != 0 : got == 0)
            rc = 30;
        atomic_store(&sh->counters[RELAY_BACK], 1);
    } else if (rank == 0) {
        memset(buf, 7, sizeof(buf));
        if (md_isend(md, &req, buf, sizeof(buf), 2, 0, 1, CTX, 0) != MD_OK ||
            forkjob_wait(md, &req) != 0)
            rc = 20;
    } else {
        if (md_irecv(md, &req, buf, sizeof(buf), 0, 0, 1, CTX, NULL) != MD_OK)
            rc = 21;
        while (rc == 0 && !md_request_is_complete(&req) &&
               atomic_load(&sh->counters[RELAY_BACK]) == 0)
            md_progress(md);
        if (rc == 0 && md_request_is_complete(&req))
            atomic_store(&sh->counters[C_GOT_IT], 1);
        if (rc == 0 && forkjob_wait(md, &req) != 0)
            rc = 22;
        if (rc == 0 && (buf[0] != 7 || buf[sizeof(buf) - 1] != 7))
            rc = 23;
    }
    forkjob_finish(sh);
    if (forkjob_serve(md, sh, size) != 0 && rc == 0)
        rc = 99;
    return rc;
}

Test(progress, forwarding_passes_a_relay_that_computes, .timeout = 60)
{
    setenv("MULTIDEV_PROGRESS_THREAD", "on", 1);
    cr_assert_eq(forkjob_run(3, nodes3, chain3, relay_busy, NULL, 50), 0);
}

Test(progress, without_the_thread_a_computing_relay_stalls_forwarding,
     .timeout = 60)
{
    setenv("MULTIDEV_PROGRESS_THREAD", "off", 1);
    cr_assert_eq(forkjob_run(3, nodes3, chain3, relay_busy, "stall", 50), 0);
}

static forkjob_shared_t *shared_for_handler;

static void on_sys_any_thread(void *ctx, int32_t src, int32_t tag,
                              const void *p, size_t len)
{
    (void)ctx; (void)tag; (void)p;
    if (src == 0 && len == 64)
        atomic_store(&shared_for_handler->counters[SYS_SEEN], 1);
}

static int sysmsg_while_computing(md_t *md, int rank, int size,
                                  forkjob_shared_t *sh, void *arg)
{
    static uint8_t buf[64];
    md_request_t req = { 0 };
    int rc = 0;

    (void)arg;
    shared_for_handler = sh;
    md_sysmsg_register_flags(md, -65, on_sys_any_thread, NULL,
                             MD_SYSMSG_F_ANY_THREAD);
    forkjob_finish(sh);     /* all registered */
    forkjob_serve(md, sh, size);
    if (rank == 0) {
        if (md_sysmsg_isend(md, &req, 1, -65, buf, sizeof(buf)) != MD_OK ||
            forkjob_wait(md, &req) != 0)
            rc = 20;
    } else if (rank == 1 && compute_until(sh, SYS_SEEN, 20.0) == 0) {
        rc = 21;            /* handled although rank 1 never called in */
    }
    atomic_fetch_add(&sh->counters[10], 1);
    while (atomic_load(&sh->counters[10]) < size)
        md_progress(md);
    return rc;
}

Test(progress, a_system_message_is_handled_while_its_target_computes,
     .timeout = 60)
{
    setenv("MULTIDEV_PROGRESS_THREAD", "on", 1);
    cr_assert_eq(forkjob_run(2, nodes3, chain3, sysmsg_while_computing, NULL, 50), 0);
}

/* md_idle on an oversubscribed host blocks on the subdevices' wait
 * descriptors instead of burning the core: a rank waiting 300 ms for a
 * message uses far less CPU time than that, and still gets the message. */
#include <sys/resource.h>

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int idle_blocks(md_t *md, int rank, int size, forkjob_shared_t *sh,
                       void *arg)
{
    md_request_t req = { 0 };
    int v = 0, rc = 0;

    (void)arg;
    if (rank == 0) {
        double cpu0 = cpu_seconds(), t0 = forkjob_now_s();
        if (md_irecv(md, &req, &v, sizeof(v), 1, 1, 9, CTX, NULL) != MD_OK)
            rc = 20;
        atomic_store(&sh->counters[0], 1);
        while (rc == 0 && !md_request_is_complete(&req)) {
            if (md_progress(md) == 0)
                md_idle(md);
        }
        double cpu = cpu_seconds() - cpu0, wall = forkjob_now_s() - t0;
        if (rc == 0 && (v != 77 || wall < 0.25))
            rc = 21;
        if (rc == 0 && cpu > 0.5 * wall)
            rc = 22;    /* it spun instead of sleeping */
    } else if (rank == 1) {
        while (atomic_load(&sh->counters[0]) == 0)
            md_progress(md);
        nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
        v = 77;
        if (md_isend(md, &req, &v, sizeof(v), 0, 1, 9, CTX, 0) != MD_OK ||
            forkjob_wait(md, &req) != 0)
            rc = 30;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(progress, an_idle_oversubscribed_rank_sleeps_until_a_message_comes,
     .timeout = 60)
{
    setenv("MULTIDEV_PROGRESS_THREAD", "off", 1);
    setenv("MULTIDEV_IDLE", "block", 1);
    cr_assert_eq(forkjob_run(2, nodes3, chain3, idle_blocks, NULL, 50), 0);
}

/* A completion that the progress thread queued for the caller runs when
 * the caller's next md_progress() leaves, and must count as an event: a
 * caller told "nothing happened" goes idle (past its yield window: to
 * sleep) with its request complete, until something else wakes it. */
static int wait_counting(md_t *md, md_request_t *req)
{
    while (!md_request_is_complete(req)) {
        if (md_progress(md) == 0) {
            if (md_request_is_complete(req))
                return 42;      /* completed, yet "no events" */
            md_idle(md);
        }
    }
    return 0;
}

/* A ping-pong, so that each receive waits for a message that comes later
 * (the thread, not the caller, then sees it arrive). */
static int queued_completions_count(md_t *md, int rank, int size, forkjob_shared_t *sh,
                                    void *arg)
{
    int rc = 0;

    (void)arg;
    for (int i = 0; i < 50 && rc == 0 && rank < 2; i++) {
        md_request_t s = { 0 }, r = { 0 };
        int out = i, in = -1, peer = 1 - rank;
        if (rank == 1 && (md_irecv(md, &r, &in, sizeof(in), peer, 0, 5, CTX, NULL) != MD_OK ||
                          (rc = wait_counting(md, &r)) != 0))
            break;
        if (md_isend(md, &s, &out, sizeof(out), peer, 0, 5, CTX, 0) != MD_OK ||
            (rc = wait_counting(md, &s)) != 0)
            break;
        if (rank == 0 && (md_irecv(md, &r, &in, sizeof(in), peer, 0, 5, CTX, NULL) != MD_OK ||
                          (rc = wait_counting(md, &r)) != 0))
            break;
        if (in != i)
            rc = 43;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(progress, completions_queued_by_the_thread_count_as_events, .timeout = 60)
{
    static const char *const env[][2] = {
        { "MULTIDEV_PROGRESS_THREAD", "on" }, { "MULTIDEV_IDLE", "block" },
        { "MULTIDEV_YIELD_US", "0" }, { "MULTIDEV_SPIN_POLLS", "0" }, { NULL }
    };
    int rc = forkjob_run_env(env, 2, nodes3, chain3, queued_completions_count, NULL, 50);
    cr_assert_eq(rc, 0, "rank status %d (42: md_progress said 0 events after completing "
                 "the request)", rc);
}

/* Idle settings that make no sense stop md_init with MD_ERR_CONFIG; sane
 * ones (including a yield time of 0: sleep at once) are taken. */
static int init_with(const char *var, const char *value)
{
    md_t *md = NULL;
    setenv(var, value, 1);
    int rc = solo_init(NULL, &md);
    unsetenv(var);
    if (md != NULL)
        md_finalize(md);
    return rc;
}

Test(progress, idle_settings_are_checked_at_init)
{
    cr_assert_eq(init_with("MULTIDEV_YIELD_US", "abc"), MD_ERR_CONFIG);
    cr_assert_eq(init_with("MULTIDEV_YIELD_US", "-5"), MD_ERR_CONFIG);
    cr_assert_eq(init_with("MULTIDEV_YIELD_US", "20ms"), MD_ERR_CONFIG);
    cr_assert_eq(init_with("MULTIDEV_SPIN_POLLS", "-1"), MD_ERR_CONFIG);
    cr_assert_eq(init_with("MULTIDEV_SPIN_US", "5us"), MD_ERR_CONFIG);
    cr_assert_eq(init_with("MULTIDEV_SPIN_US", "-1"), MD_ERR_CONFIG);
    cr_assert_eq(init_with("MULTIDEV_SPIN_US", "0"), MD_OK);
    cr_assert_eq(init_with("MULTIDEV_IDLE", "sometimes"), MD_ERR_CONFIG);
    cr_assert_eq(init_with("MULTIDEV_YIELD_US", "0"), MD_OK);
    cr_assert_eq(init_with("MULTIDEV_YIELD_US", "500"), MD_OK);
}

/* The sleeps md_idle began (md_print_stats counts them) in `span` seconds
 * of empty polls, each after `compute` seconds of work outside the
 * multidevice.  Counted, not timed: a loaded machine makes a yield as long
 * as a sleep. */
static unsigned long long idle_sleeps(md_t *md, double span, double compute)
{
    double stop = forkjob_now_s() + span;
    forkjob_idle_t before, after;

    forkjob_idle_stats(md, &before);
    while (forkjob_now_s() < stop) {
        double end = forkjob_now_s() + compute;
        while (forkjob_now_s() < end) {
            /* an application computing between two MPI_Test calls */
        }
        md_progress(md);
        md_idle(md);
    }
    forkjob_idle_stats(md, &after);
    return after.sleeps - before.sleeps;
}

/* MPICH's progress does not tell MPI_Test from MPI_Wait, so md_idle must:
 * a caller that keeps polling in a wait loop yields for the yield time and
 * then sleeps (10 ms at a time when nothing comes), one that computes
 * between its polls only yields.  It used to sleep there too: an MPI_Test
 * loop then lost 10 ms a call. */
Test(progress, a_caller_that_computes_between_polls_is_never_put_to_sleep, .timeout = 60)
{
    md_t *md = NULL;

    setenv("MULTIDEV_IDLE", "block", 1);
    setenv("MULTIDEV_YIELD_US", "1000", 1);
    setenv("MULTIDEV_SPIN_POLLS", "0", 1);
    int rc = solo_init(NULL, &md);
    unsetenv("MULTIDEV_IDLE");
    unsetenv("MULTIDEV_YIELD_US");
    unsetenv("MULTIDEV_SPIN_POLLS");
    cr_assert_eq(rc, MD_OK);
    unsigned long long waiting = idle_sleeps(md, 0.06, 0);
    unsigned long long testing = idle_sleeps(md, 0.06, 300e-6);
    md_finalize(md);
    cr_assert_geq(waiting, 1, "a wait loop never slept in 60 ms");
    cr_assert_eq(testing, 0, "a test loop was put to sleep %llu times in 60 ms", testing);
}
