/* test_fail.c - failures never hang: a killed bridge firmware fails every
 * request of the ranks of its node at once, and a peer whose process or
 * bridge is gone fails what waits on it, in bounded time. */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
    /* the bridges as daemons: killing one must not kill its rank */
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40,
                   .params = { { "firmware", "nicd" } }, .nparams = 1 };
    cr_assert_eq(sj_run(&j, rank_bridge_killed), 0);
}

/* Rank 1's bridge is killed while rank 0 only stores to it (an eager send
 * completes when its stores are posted) and waits for nothing: no liveness
 * probe would look (MULTIDEV_SCI_PEER_CHECK_MS=0 here), yet rank 0's
 * bridge, whose stores go unacknowledged, tells the subdevice that the
 * remote bridge is gone (SCI_CQ_NODE_GONE), and the multidevice hears that
 * rank 1 failed, once.  Rank 1 itself learns it from its own watchdog. */
static int rank_only_stores(sj_rank_t *r)
{
    md_request_t s, q;
    int32_t x = 7, y;
    uint64_t t0;

    /* a first exchange: both ends know each other */
    sj_recv(r, &q, 1 - r->rank, 1, &y, sizeof(y));
    sj_send(r, &s, 1 - r->rank, 1, &x, sizeof(x), 0);
    if (sj_wait(r, &s, 10000) != MD_OK || sj_wait(r, &q, 10000) != MD_OK)
        return 1;
    sj_barrier(r);
    if (r->rank == 1) {
        if (kill(sj_bridge_pid(r), SIGKILL) != 0)
            return 3;
        sj_recv(r, &q, 0, 2, &y, sizeof(y));
        return sj_wait(r, &q, 20000) == MD_ERR_PEER_FAILED ? 0 : 2;
    }
    usleep(200 * 1000);                /* rank 1's bridge is dead by now */
    t0 = sj_now_us();
    sj_send(r, &s, 1, 2, &x, sizeof(x), 0);
    sj_wait(r, &s, 1000);
    while (r->failed.status[1] == 0 && sj_now_us() - t0 < 10000000u)
        r->ops.progress(&r->sd);
    if (r->failed.status[1] == 0) {
        fprintf(stderr, "rank 0: never told that rank 1 failed\n");
        return 4;
    }
    return r->failed.repeats == 0 ? 0 : 5;
}

Test(fail, a_bridge_that_stops_answering_is_reported_to_a_rank_that_only_stores)
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40,
                   .params = { { "firmware", "nicd" } }, .nparams = 1 };
    setenv("MULTIDEV_SCI_PEER_CHECK_MS", "0", 1);
    cr_assert_eq(sj_run(&j, rank_only_stores), 0);
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

/* Rank 0 sends (inline, eager and a ring-sized eager message) and leaves at
 * once: its segment goes.  What it sent is in rank 1's memory and is still
 * received, in order, although rank 1 held it back past the liveness probe
 * that found rank 0 gone; a receive nothing can match any more then fails
 * instead of hanging. */
#define GONE_MSGS 3
static const size_t gone_len[GONE_MSGS] = { 8, 4096, 60000 };

static int rank_sender_gone(sj_rank_t *r)
{
    md_request_t q[GONE_MSGS + 1];
    static uint8_t buf[GONE_MSGS][60000];
    int rc;

    if (r->rank == 0) {
        for (int i = 0; i < GONE_MSGS; i++) {
            sj_fill(buf[i], gone_len[i], (unsigned)i + 1);
            sj_send(r, &q[i], 1, 7, buf[i], gone_len[i], 0);
            if (sj_wait(r, &q[i], 5000) != MD_OK)
                return 1;
        }
        sj_barrier(r);
        r->ops.finalize(&r->sd);      /* as if the process had ended */
        return 0;
    }
    r->hold = 1;
    for (int i = 0; i < GONE_MSGS; i++)
        sj_recv(r, &q[i], 0, 7, buf[i], sizeof(buf[i]));
    sj_barrier(r);
    uint64_t end = sj_now_us() + 3000000;    /* past the probe and its timeout */
    while (sj_now_us() < end)
        r->ops.progress(&r->sd);
    for (int i = 0; i < GONE_MSGS; i++)
        if (q[i].complete) {
            fprintf(stderr, "rank 1: held message %d completed (%s)\n", i,
                    md_status_string(q[i].status.error));
            return 2;
        }
    r->hold = 0;
    for (int i = 0; i < GONE_MSGS; i++) {
        if ((rc = sj_wait(r, &q[i], 5000)) != MD_OK || q[i].status.size != gone_len[i] ||
            !sj_check(buf[i], gone_len[i], (unsigned)i + 1)) {
            fprintf(stderr, "rank 1: message %d: %s, %llu bytes\n", i, md_status_string(rc),
                    (unsigned long long)q[i].status.size);
            return 3;
        }
    }
    sj_recv(r, &q[GONE_MSGS], 0, 7, buf[0], sizeof(buf[0]));
    rc = sj_wait(r, &q[GONE_MSGS], 5000);
    return rc == MD_ERR_PEER_FAILED ? 0 : 4;
}

Test(fail, a_gone_senders_messages_are_still_received)
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40 };
    cr_assert_eq(sj_run(&j, rank_sender_gone), 0);
}
