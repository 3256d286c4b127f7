/*
 * relay_fail_test.c - a failure on a forwarded route reaches both ends
 * (DESIGN invariant 5, md_fail.c): n0 and n2 talk only through n1 (the
 * tnet test subdevice, which finds a dead peer when a send to it is
 * refused).
 *
 *   - the relay dies: n0 and n2 find it when they send through it; the
 *     rank behind it fails with it, so a receive from that rank and a send
 *     to it end in MD_ERR_PEER_FAILED, naming the relay;
 *   - the relay lives but the destination died: the relay finds it when it
 *     passes a chunk on, and tells the origin (FWD_UNREACH), whose receive
 *     from the destination fails although it never talked to it directly.
 *
 * A wildcard receive fails when a member fails (see the end).
 *
 * The job has lost a rank, so the survivors leave without md_finalize (as
 * MPI_Abort would), after their checks.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "forkjob.h"

#define CTX 5

static const char *const chain3_nodes[] = { "n0", "n1", "n2" };
static const char *const chain3[][2] = {
    { "n0", "multidev-node-config 1\nnode n0\ndevice tnet\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\nroute n2 0 inf tnet n1\n" },
    { "n1", "multidev-node-config 1\nnode n1\ndevice tnet\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\nroute n2 0 inf tnet -\n" },
    { "n2", "multidev-node-config 1\nnode n2\ndevice tnet\n"
            "route n0 0 inf tnet n1\nroute n1 0 inf tnet -\nroute n2 0 inf tnet -\n" },
    { NULL, NULL },
};

enum { GONE = 0, DONE = 1 };   /* shared counters */

/* Progress until req completes or 10 s pass; its error, or -1 on timeout. */
static int wait_error(md_t *md, md_request_t *req)
{
    double end = forkjob_now_s() + 10;

    while (!atomic_load(&req->complete) && forkjob_now_s() < end)
        if (md_progress(md) == 0)
            sched_yield();
    return atomic_load(&req->complete) ? req->status.error : -1;
}

/* A receive from `other` (which only the route through n1 reaches) and a
 * send to it fail with MD_ERR_PEER_FAILED, and the reason names who. */
static int far_end_fails(md_t *md, int other, const char *who)
{
    md_request_t r = { 0 }, s = { 0 };
    int v = 0, rc;
    const char *why;

    if (md_irecv(md, &r, &v, sizeof(v), other, other, 7, CTX, NULL) != MD_OK)
        return 30;
    /* the send finds the failure (a refused chunk, or the relay's notice);
     * if it went out first, it completed, and the next one is refused */
    rc = md_isend(md, &s, &v, sizeof(v), other, 0, 7, CTX, 0);
    if (rc == MD_OK)
        wait_error(md, &s);
    if ((rc = wait_error(md, &r)) != MD_ERR_PEER_FAILED) {
        fprintf(stderr, "receive from rank %d ended with %d\n", other, rc);
        return 31;
    }
    if (md_isend(md, &s, &v, sizeof(v), other, 0, 8, CTX, 0) != MD_ERR_PEER_FAILED)
        return 32;      /* once failed, a send to it is refused at once */
    if (md_irecv(md, &r, &v, sizeof(v), other, other, 8, CTX, NULL) != MD_ERR_PEER_FAILED)
        return 33;
    why = md_rank_failure(md, other);
    if (why == NULL || strstr(why, who) == NULL) {
        fprintf(stderr, "reason for rank %d: %s (expected it to name %s)\n", other,
                why ? why : "(none)", who);
        return 34;
    }
    return 0;
}

static int relay_dies(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc;

    (void)size; (void)arg;
    if (rank == 1) {
        atomic_store(&sh->counters[GONE], 1);
        fflush(NULL);
        _exit(0);                          /* no finalize: it died */
    }
    while (atomic_load(&sh->counters[GONE]) == 0)
        sched_yield();
    usleep(100 * 1000);                    /* its socket is closed by now */
    rc = far_end_fails(md, rank == 0 ? 2 : 0, "rank 1 (node n1)");
    fflush(NULL);
    _exit(rc);
}

Test(relay_failure, a_dead_relay_fails_the_ranks_behind_it_at_both_ends, .timeout = 60)
{
    cr_assert_eq(forkjob_run(3, chain3_nodes, chain3, relay_dies, NULL, 40), 0);
}

static int destination_dies(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0;

    (void)size; (void)arg;
    if (rank == 2) {
        atomic_store(&sh->counters[GONE], 1);
        fflush(NULL);
        _exit(0);
    }
    while (atomic_load(&sh->counters[GONE]) == 0)
        sched_yield();
    usleep(100 * 1000);
    if (rank == 1) {
        /* the relay serves until the origin has seen the failure */
        while (atomic_load(&sh->counters[DONE]) == 0)
            if (md_progress(md) == 0)
                sched_yield();
    } else {
        rc = far_end_fails(md, 2, "rank 1 (node n1)");
        atomic_store(&sh->counters[DONE], 1);
    }
    fflush(NULL);
    _exit(rc);
}

Test(relay_failure, a_relay_that_cannot_reach_the_destination_tells_the_origin, .timeout = 60)
{
    cr_assert_eq(forkjob_run(3, chain3_nodes, chain3, destination_dies, NULL, 40), 0);
}

/* MPI_ANY_SOURCE: a wildcard receive posted before a member of the job
 * failed fails (it might have waited for that member's message), naming a
 * failed rank; one posted after fails at once; whether it waited on one
 * subdevice (pair2: tnet alone) or on several (chain3: tnet and the
 * forwarding receiver, the AnyQueue). */
static const char *const pair2_nodes[] = { "n0", "n1" };
static const char *const pair2[][2] = {
    { "n0", "multidev-node-config 1\nnode n0\ndevice tnet\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n" },
    { "n1", "multidev-node-config 1\nnode n1\ndevice tnet\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n" },
    { NULL, NULL },
};

static int wildcard_fails(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    md_request_t w = { 0 }, s = { 0 }, w2 = { 0 };
    int v = 0, last = size - 1, rc = 0;

    (void)arg;
    if (rank == last) {
        atomic_store(&sh->counters[GONE], 1);
        fflush(NULL);
        _exit(0);
    }
    while (atomic_load(&sh->counters[GONE]) == 0)
        sched_yield();
    if (rank != 0) {                      /* the relay of chain3: it only serves */
        while (atomic_load(&sh->counters[DONE]) == 0)
            if (md_progress(md) == 0)
                sched_yield();
        fflush(NULL);
        _exit(0);
    }
    if (md_irecv(md, &w, &v, sizeof(v), -1, MD_ANY_SOURCE, 9, CTX, NULL) != MD_OK)
        rc = 40;
    usleep(100 * 1000);
    /* a send to the dead rank finds it (refused, or the relay's notice) */
    if (rc == 0 && md_isend(md, &s, &v, sizeof(v), last, 0, 7, CTX, 0) == MD_OK)
        wait_error(md, &s);
    if (rc == 0 && wait_error(md, &w) != MD_ERR_PEER_FAILED)
        rc = 41;
    else if (rc == 0 && (w.status.src_world < 1 || w.status.src_world > last))
        rc = 42;                          /* it names a failed rank */
    if (rc == 0 && md_irecv(md, &w2, &v, sizeof(v), -1, MD_ANY_SOURCE, 10, CTX, NULL) !=
                   MD_ERR_PEER_FAILED)
        rc = 43;
    atomic_store(&sh->counters[DONE], 1);
    fflush(NULL);
    _exit(rc);
}

Test(wildcard, a_waiting_any_source_receive_fails_when_a_member_fails_on_one_subdevice,
     .timeout = 60)
{
    cr_assert_eq(forkjob_run(2, pair2_nodes, pair2, wildcard_fails, NULL, 40), 0);
}

Test(wildcard, a_waiting_any_source_receive_fails_when_a_member_fails_on_several, .timeout = 60)
{
    cr_assert_eq(forkjob_run(3, chain3_nodes, chain3, wildcard_fails, NULL, 40), 0);
}
