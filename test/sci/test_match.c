/* test_match.c - matching in subdev-sci: wildcards and order, probe and
 * matched probe, cancel, truncation in every protocol, synchronous sends,
 * system messages, arrivals held back by the multidevice. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sci_job.h"

#define RUN(job, fn) cr_assert_eq(sj_run(&(job), fn), 0, "a rank failed")

static sj_job_t pair(void)
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40 };
    return j;
}

/* Progress for ms milliseconds. */
static void spin(sj_rank_t *r, int ms)
{
    uint64_t end = sj_now_us() + (uint64_t)ms * 1000;
    while (sj_now_us() < end)
        r->ops.progress(&r->sd);
}

/* ------------------------------------------------------------------ */

/* Ranks 1 and 2 each send tags 1..4 to rank 0, which has posted, in this
 * order: (1, tag 3), (ANY, tag 2), (ANY, ANY) x 6.  MPI's rules say which
 * receive gets which message; within one sender, order is kept. */
static int rank_wildcards(sj_rank_t *r)
{
    md_request_t req[8];
    int32_t v[8];

    if (r->rank != 0) {
        for (int32_t t = 1; t <= 4; t++) {
            int32_t x = r->rank * 100 + t;
            if (sj_send(r, &req[0], 0, t, &x, sizeof(x), 0) != MD_OK || sj_wait(r, &req[0], 5000))
                return 1;
        }
        return 0;
    }
    sj_recv(r, &req[0], 1, 3, &v[0], 4);
    sj_recv(r, &req[1], MD_ANY_SOURCE, 2, &v[1], 4);
    for (int i = 2; i < 8; i++)
        sj_recv(r, &req[i], MD_ANY_SOURCE, MD_ANY_TAG, &v[i], 4);
    for (int i = 0; i < 8; i++)
        if (sj_wait(r, &req[i], 10000) != MD_OK)
            return 2;
    if (v[0] != 103 || (v[1] != 102 && v[1] != 202))
        return 3;
    /* the wildcard receives see each sender's remaining messages in order */
    int last[3] = { 0, 0, 0 };
    for (int i = 2; i < 8; i++) {
        int s = v[i] / 100, t = v[i] % 100;
        if (s < 1 || s > 2 || t <= last[s] || req[i].status.src_rank != s || req[i].status.tag != t)
            return 4;
        last[s] = t;
    }
    return 0;
}

Test(match, wildcards_keep_posting_and_sending_order, .timeout = 60)
{
    sj_job_t j = { .n = 3, .node = { 0, 1, 1 }, .timeout_s = 40 };
    RUN(j, rank_wildcards);
}

/* ------------------------------------------------------------------ */

static int rank_probe(sj_rank_t *r)
{
    static uint8_t buf[300000];
    md_request_t req, msg;
    md_match_t any = { .src_rank = MD_ANY_SOURCE, .tag = MD_ANY_TAG };
    md_recv_status_t st;
    int flag = 0;
    size_t lens[] = { 40, 5000, 250000 };   /* inline, eager, transport */

    if (r->rank == 0) {
        for (int i = 0; i < 3; i++) {
            sj_fill(buf, lens[i], (unsigned)i);
            if (sj_send(r, &req, 1, 20 + i, buf, lens[i], 0) != MD_OK || sj_wait(r, &req, 5000))
                return 1;
            sj_barrier(r);
        }
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        uint64_t end = sj_now_us() + 5000000;
        /* probe until it is there; probing does not take it */
        do {
            if (r->ops.iprobe(&r->sd, &any, &flag, &st) != MD_OK || sj_now_us() > end)
                return 2;
        } while (!flag);
        if (st.tag != 20 + i || st.size != lens[i] || st.src_rank != 0)
            return 3;
        r->ops.iprobe(&r->sd, &any, &flag, &st);
        if (!flag)
            return 4;
        /* the matched probe takes it: invisible to probes afterwards */
        memset(&msg, 0, sizeof(msg));
        msg.kind = MD_REQ_MPROBE;
        if (r->ops.improbe(&r->sd, &any, &flag, &msg) != MD_OK || !flag)
            return 5;
        r->ops.iprobe(&r->sd, &any, &flag, &st);
        if (flag)
            return 6;
        memset(&req, 0, sizeof(req));
        req.kind = MD_REQ_RECV;
        req.buf = buf;
        req.len = sizeof(buf);
        memset(buf, 0, lens[i]);
        if (r->ops.imrecv(&r->sd, &msg, &req) != MD_OK || sj_wait(r, &req, 5000) != MD_OK)
            return 7;
        if (req.status.size != lens[i] || !sj_check(buf, lens[i], (unsigned)i))
            return 8;
        sj_barrier(r);
    }
    return 0;
}

Test(match, probe_then_matched_probe_in_every_protocol, .timeout = 60)
{
    sj_job_t j = pair();
    RUN(j, rank_probe);
}

/* ------------------------------------------------------------------ */

static int rank_cancel(sj_rank_t *r)
{
    md_request_t a, b;
    int32_t x = 5, y = 0;

    if (r->rank == 1) {
        sj_recv(r, &a, 0, 1, &y, 4);
        sj_recv(r, &b, 0, 1, &y, 4);
        if (r->ops.recv_cancel(&r->sd, &a) != MD_OK)
            return 1;
        sj_barrier(r);
        /* the message goes to b: a is gone */
        if (sj_wait(r, &b, 5000) != MD_OK || y != 5 || atomic_load(&a.complete))
            return 2;
        /* a matched receive cannot be cancelled */
        if (r->ops.recv_cancel(&r->sd, &b) != MD_ERR_NOT_FOUND)
            return 3;
        return 0;
    }
    sj_barrier(r);
    return sj_send(r, &a, 1, 1, &x, 4, 0) == MD_OK && sj_wait(r, &a, 5000) == MD_OK ? 0 : 4;
}

Test(match, cancel_unlinks_a_posted_receive, .timeout = 60)
{
    sj_job_t j = pair();
    RUN(j, rank_cancel);
}

/* ------------------------------------------------------------------ */

static int rank_truncate(sj_rank_t *r)
{
    static uint8_t buf[300000];
    size_t lens[] = { 500, 30000, 300000 };
    md_request_t req;

    for (int i = 0; i < 3; i++) {
        if (r->rank == 0) {
            sj_fill(buf, lens[i], 7);
            if (sj_send(r, &req, 1, 1, buf, lens[i], 0) != MD_OK || sj_wait(r, &req, 5000) != MD_OK)
                return 1;
        } else {
            memset(buf, 0, sizeof(buf));
            sj_recv(r, &req, 0, 1, buf, 100);
            if (sj_wait(r, &req, 5000) != MD_ERR_TRUNCATE)
                return 2;
            if (req.status.size != 100 || req.status.msg_size != lens[i] || !sj_check(buf, 100, 7) ||
                buf[100] != 0)
                return 3;
        }
        sj_barrier(r);
    }
    /* and the next message is intact */
    if (r->rank == 0) {
        sj_fill(buf, 1000, 8);
        return sj_send(r, &req, 1, 2, buf, 1000, 0) == MD_OK && sj_wait(r, &req, 5000) == MD_OK ? 0 : 4;
    }
    sj_recv(r, &req, 0, 2, buf, sizeof(buf));
    return sj_wait(r, &req, 5000) == MD_OK && sj_check(buf, 1000, 8) ? 0 : 5;
}

Test(match, truncation_in_every_protocol, .timeout = 60)
{
    sj_job_t j = pair();
    RUN(j, rank_truncate);
}

/* ------------------------------------------------------------------ */

/* A synchronous send completes only once the receiver has matched it. */
static int rank_sync(sj_rank_t *r)
{
    static uint8_t buf[200000];
    size_t lens[] = { 8, 9000, 200000 };
    md_request_t req;

    for (int i = 0; i < 3; i++) {
        if (r->rank == 0) {
            sj_fill(buf, lens[i], 3);
            if (sj_send(r, &req, 1, 4, buf, lens[i], MD_ENV_F_SYNC) != MD_OK)
                return 1;
            spin(r, 150);
            if (atomic_load(&req.complete))
                return 2;   /* completed before the receive was posted */
            sj_barrier(r);
            if (sj_wait(r, &req, 5000) != MD_OK)
                return 3;
        } else {
            spin(r, 150);   /* it arrives, unexpected */
            sj_barrier(r);
            sj_recv(r, &req, 0, 4, buf, sizeof(buf));
            if (sj_wait(r, &req, 5000) != MD_OK || !sj_check(buf, lens[i], 3))
                return 4;
        }
        sj_barrier(r);
    }
    return sj_remote_reads(r) == 0 ? 0 : 5;
}

Test(match, synchronous_send_waits_for_the_match, .timeout = 60)
{
    sj_job_t j = pair();
    RUN(j, rank_sync);
}

/* ------------------------------------------------------------------ */

static int rank_sysmsg(sj_rank_t *r)
{
    static uint8_t buf[200000];
    size_t lens[] = { 0, 16, 3000, 200000 };
    md_request_t req, user;

    if (r->rank == 0) {
        for (int i = 0; i < 4; i++) {
            sj_fill(buf, lens[i], 11);
            if (sj_send(r, &req, 1, -3 - i, buf, lens[i], 0) != MD_OK || sj_wait(r, &req, 5000))
                return 1;
        }
        int32_t x = 1;
        return sj_send(r, &req, 1, 0, &x, 4, 0) == MD_OK && sj_wait(r, &req, 5000) == MD_OK ? 0 : 2;
    }
    /* an ANY_TAG receive must not take a system message */
    int32_t y = 0;
    sj_recv(r, &user, 0, MD_ANY_TAG, &y, 4);
    if (sj_wait(r, &user, 10000) != MD_OK || y != 1 || user.status.tag != 0)
        return 3;
    spin(r, 100);
    if (r->nsys != 4)
        return 4;
    for (int i = 0; i < 4; i++) {
        uint64_t h = 14695981039346656037ull;
        sj_fill(buf, lens[i], 11);
        for (size_t k = 0; k < lens[i]; k++)
            h = (h ^ buf[k]) * 1099511628211ull;
        if (r->sys_env[i].tag != -3 - i || r->sys_env[i].size != lens[i] || r->sys_sum[i] != h)
            return 5;
    }
    return r->sd.counters.sysmsgs_recvd == 4 ? 0 : 6;
}

Test(match, system_messages_bypass_matching, .timeout = 60)
{
    sj_job_t j = pair();
    RUN(j, rank_sysmsg);
}

/* ------------------------------------------------------------------ */

/* While the multidevice holds arrivals back, nothing is matched; then they
 * come in order. */
static int rank_held(sj_rank_t *r)
{
    md_request_t req[5];
    int32_t v[5];

    if (r->rank == 0) {
        sj_barrier(r);
        for (int32_t i = 0; i < 5; i++) {
            v[i] = i;
            sj_send(r, &req[i], 1, 1, &v[i], 4, 0);
        }
        for (int i = 0; i < 5; i++)
            if (sj_wait(r, &req[i], 5000) != MD_OK)
                return 1;
        sj_barrier(r);
        return 0;
    }
    r->hold = 1;
    sj_barrier(r);
    for (int i = 0; i < 5; i++)
        sj_recv(r, &req[i], 0, MD_ANY_TAG, &v[i], 4);
    spin(r, 200);
    for (int i = 0; i < 5; i++)
        if (atomic_load(&req[i].complete))
            return 2;
    if (r->arrived != 0)
        return 3;
    r->hold = 0;
    for (int i = 0; i < 5; i++)
        if (sj_wait(r, &req[i], 5000) != MD_OK || v[i] != i)
            return 4;
    sj_barrier(r);
    return r->arrived == 5 ? 0 : 5;
}

Test(match, held_arrivals_keep_their_order, .timeout = 60)
{
    sj_job_t j = pair();
    RUN(j, rank_held);
}
