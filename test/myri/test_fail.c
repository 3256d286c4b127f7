/* test_fail.c - a killed NIC firmware becomes MD_ERR_PEER_FAILED, with a
 * message, on every rank of its node within bounded time; ranks on other
 * nodes that talk to it learn that their peer failed. */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "myri_harness.h"

static int rank_fwkill(mh_rank_t *r)
{
    md_request_t req;
    int v = 0;

    /* everyone has talked to everyone: each firmware knows its peers */
    for (int i = 0; i < r->w->n; i++) {
        md_request_t s, q;
        int x = r->rank, y;
        mh_irecv(r, &q, i, 1, &y, sizeof(y));
        mh_isend(r, &s, i, 1, &x, sizeof(x), 0);
        if (mh_wait(r, &s, 5000) != MD_OK || mh_wait(r, &q, 5000) != MD_OK)
            return 1;
    }
    mh_barrier(r);
    if (r->rank == 0) {
        int pid = mh_nicd_pid("n1");
        if (pid <= 0 || kill(pid, SIGKILL) != 0)
            return 2;
    }
    if (r->w->node_of_rank[r->rank] == 1) {
        /* A receive that can never complete: progress must fail it. */
        uint64_t t0 = mh_now_us();
        mh_irecv(r, &req, 0, 99, &v, sizeof(v));
        int rc = mh_wait(r, &req, 10000);
        uint64_t dt = mh_now_us() - t0;
        if (rc != MD_ERR_PEER_FAILED || dt > 3000000)
            return 3;
        /* and it stays failed: new operations are refused */
        md_request_t s;
        if (mh_isend(r, &s, 0, 1, &v, sizeof(v), 0) != MD_ERR_PEER_FAILED)
            return 4;
        /* the multidevice was told, once per peer this NIC carried */
        for (int q = 0; q < r->w->n; q++)
            if (q != r->rank && r->w->node_of_rank[q] != 1 && r->failed.status[q] == 0)
                return 6;
        return r->failed.repeats == 0 && r->failed.out_of_range == 0 ? 0 : 7;
    }
    /* node 0: a send to the dead node completes with PEER_FAILED once the
     * firmware gives up on its peer (MULTIDEV_MYRI_PEER_TIMEOUT_MS) */
    uint64_t t0 = mh_now_us();
    mh_isend(r, &req, 2, 1, &v, sizeof(v), MD_ENV_F_SYNC);
    int rc = mh_wait(r, &req, 10000);
    if (rc != MD_ERR_PEER_FAILED || mh_now_us() - t0 >= 5000000)
        return 5;
    /* the multidevice was told that rank 2 failed, and only once */
    return r->failed.status[2] != 0 && r->failed.repeats == 0 ? 0 : 8;
}

Test(fail, killed_firmware_fails_every_rank_of_its_node, .timeout = 60)
{
    mh_world_t w = { .n = 4, .node_of_rank = { 0, 0, 1, 1 }, .timeout_s = 40 };
    setenv("MULTIDEV_MYRI_PEER_TIMEOUT_MS", "1000", 1);
    setenv("MULTIDEV_NIC_WATCHDOG_MS", "50", 1);
    cr_assert_eq(mh_run(&w, rank_fwkill), 0);
}
