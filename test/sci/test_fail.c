/* test_fail.c - failures never hang: a killed bridge firmware fails every
 * request of the ranks of its node at once, and a peer whose process or
 * bridge is gone fails what waits on it, in bounded time. */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "sci_job.h"

static void fast_checks(void)
{
    setenv("MULTIDEV_SCI_PEER_CHECK_MS", "200", 1);
    setenv("MULTIDEV_SCI_TIMEOUT_MS", "1000", 1);
    setenv("MULTIDEV_SCI_PEER_TIMEOUT_MS", "1000", 1);
}

TestSuite(fail, .init = fast_checks, .timeout = 60);

/* Rank 0's node loses its bridge while both ranks wait in a receive. */
static int rank_bridge_killed(sj_rank_t *r)
{
    md_request_t q;
    int32_t x;
    uint64_t t0 = sj_now_us();
    int rc;

    sj_recv(r, &q, 1 - r->rank, 1, &x, sizeof(x));
    if (r->rank == 0 && kill(sj_bridge_pid(r), SIGKILL) != 0)
        return 1;
    rc = sj_wait(r, &q, 20000);
    if (rc != MD_ERR_PEER_FAILED) {
        fprintf(stderr, "rank %d: receive ended with %s\n", r->rank, md_status_string(rc));
        return 2;
    }
    /* its own node: the watchdog; the other node: a probe nobody answers */
    return sj_now_us() - t0 < (r->rank == 0 ? 2000000u : 10000000u) ? 0 : 3;
}

Test(fail, killed_bridge_fails_both_sides)
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40 };
    cr_assert_eq(sj_run(&j, rank_bridge_killed), 0);
}

/* Rank 0's segment goes away (its endpoint closes) while rank 1 waits for
 * a message from it and has a synchronous send to it outstanding. */
static int rank_peer_gone(sj_rank_t *r)
{
    md_request_t q, s;
    int32_t x = 1, y;
    int rc;

    if (r->rank == 0) {
        r->ops.finalize(&r->sd);   /* as if the process had ended */
        return 0;
    }
    sj_recv(r, &q, 0, 1, &y, sizeof(y));
    sj_send(r, &s, 0, 2, &x, sizeof(x), MD_ENV_F_SYNC);
    if ((rc = sj_wait(r, &q, 20000)) != MD_ERR_PEER_FAILED) {
        fprintf(stderr, "rank 1: receive ended with %s\n", md_status_string(rc));
        return 1;
    }
    return sj_wait(r, &s, 1000) == MD_ERR_PEER_FAILED ? 0 : 2;
}

Test(fail, vanished_peer_fails_what_waits_on_it)
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40 };
    cr_assert_eq(sj_run(&j, rank_peer_gone), 0);
}
