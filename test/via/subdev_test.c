/* subdev_test.c - subdev-via through its SDI ops, ranks as processes on
 * emulated nodes (each with its VI firmware): eager and rendezvous around
 * the switch point, truncation, probe / improbe / imrecv, cancel,
 * synchronous sends, system messages small and large, ANY_SOURCE in
 * posting order, held arrivals, credits under a flood of unexpected
 * messages, all-to-all with two ranks per node, sends to oneself, a lost
 * peer, the completion modes (poll, block: MPI/Pro's waiting mode). */
#include "config.h"

#include <criterion/criterion.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "via_harness.h"
#include "via_impl.h"
#include "test_job.h"

MD_LOAD_DEVICE_PTR(via);

TestSuite(subdev, .timeout = 120);

static void pattern(uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 13 + seed + (i >> 12));
}

static int check(const uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (uint8_t)(i * 13 + seed + (i >> 12)))
            return 0;
    return 1;
}

static const size_t sizes[] = { 0, 1, 100, 8192, 8193, 70000, 1u << 20, 5u << 20 };

static int pp_fail(vh_rank_t *r, int code, size_t n, int iter, int rc)
{
    fprintf(stderr, "rank %d: ping-pong of %zu bytes, iteration %d: %s (step %d)\n", r->rank, n,
            iter, md_status_string(rc), code);
    return code;
}

static int rank_pingpong(vh_rank_t *r)
{
    int other = 1 - r->rank, rc;
    uint8_t *buf = malloc(5u << 20), *in = malloc(5u << 20);

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        md_request_t s, q;
        for (int iter = 0; iter < 3; iter++) {
            if (r->rank == 0) {
                pattern(buf, n, (unsigned)(k + iter));
                if ((rc = vh_send(r, &s, other, 5, buf, n, 0)) != MD_OK ||
                    (rc = vh_wait(r, &s, 20000)) != MD_OK)
                    return pp_fail(r, 1, n, iter, rc);
                memset(in, 0, n);
                vh_recv(r, &q, other, 6, in, n);
                if ((rc = vh_wait(r, &q, 20000)) != MD_OK || q.status.size != n ||
                    !check(in, n, (unsigned)(k + iter + 1)))
                    return pp_fail(r, 2, n, iter, rc);
            } else {
                memset(in, 0, n);
                vh_recv(r, &q, other, 5, in, n);
                if ((rc = vh_wait(r, &q, 20000)) != MD_OK || q.status.size != n ||
                    q.status.src_rank != 0 || q.status.tag != 5 ||
                    !check(in, n, (unsigned)(k + iter)))
                    return pp_fail(r, 3, n, iter, rc);
                pattern(buf, n, (unsigned)(k + iter + 1));
                if ((rc = vh_send(r, &s, other, 6, buf, n, 0)) != MD_OK ||
                    (rc = vh_wait(r, &s, 20000)) != MD_OK)
                    return pp_fail(r, 4, n, iter, rc);
            }
        }
    }
    if (r->sd.counters.eager_sent == 0 || r->sd.counters.rndv_sent == 0)
        return 5;
    free(buf);
    free(in);
    return 0;
}

Test(subdev, pingpong_eager_and_rendezvous)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 } };
    cr_assert_eq(vh_run(&j, rank_pingpong), 0);
}

Test(subdev, pingpong_reliable_reception_small_switch_point)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 },
                   .params = { { "level", "rr" }, { "eager_limit", "1k" }, { "credits", "4" } },
                   .nparams = 3 };
    cr_assert_eq(vh_run(&j, rank_pingpong), 0);
}

static int rank_stream_check(vh_rank_t *r)
{
    enum { W = 8, N = 40, LEN = 1 << 20 };
    static uint8_t bufs[W][LEN];
    md_request_t q[W];

    /* Windows of rendezvous messages in flight both ways at once: every
     * byte checked (many frames per receive batch of the wire). */
    int other = 1 - r->rank;
    for (int base = 0; base < N; base += W) {
        md_request_t s[W];
        static uint8_t out[W][LEN];
        for (int j = 0; j < W; j++) {
            vh_recv(r, &q[j], other, 7, bufs[j], LEN);
            pattern(out[j], LEN, (unsigned)(base + j + r->rank * 100));
            vh_send(r, &s[j], other, 7, out[j], LEN, 0);
        }
        for (int j = 0; j < W; j++) {
            if (vh_wait(r, &s[j], 30000) != MD_OK || vh_wait(r, &q[j], 30000) != MD_OK)
                return 1;
            if (!check(bufs[j], LEN, (unsigned)(base + j + other * 100)))
                return 2;
        }
    }
    return 0;
}

Test(subdev, streaming_rendezvous_both_ways_every_byte_checked)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 } };
    cr_assert_eq(vh_run(&j, rank_stream_check), 0);
}

Test(subdev, streaming_both_ways_under_reliable_reception)
{
    /* placement reports owed while the stream back is full of data */
    vh_job_t j = { .n = 2, .node_of = { 0, 1 }, .params = { { "level", "rr" } }, .nparams = 1 };
    cr_assert_eq(vh_run(&j, rank_stream_check), 0);
}

static int rank_truncate(vh_rank_t *r)
{
    static uint8_t big[100000], small[1000];
    md_request_t s, q;

    if (r->rank == 0) {
        pattern(big, sizeof(big), 1);
        for (int k = 0; k < 2; k++) {
            size_t n = k ? sizeof(big) : 5000;      /* eager, then rendezvous */
            if (vh_send(r, &s, 1, 7, big, n, 0) != MD_OK || vh_wait(r, &s, 10000) != MD_OK)
                return 1;
        }
        return 0;
    }
    for (int k = 0; k < 2; k++) {
        size_t n = k ? sizeof(big) : 5000;
        memset(small, 0, sizeof(small));
        vh_recv(r, &q, 0, 7, small, sizeof(small));
        if (vh_wait(r, &q, 10000) != MD_ERR_TRUNCATE || q.status.size != sizeof(small) ||
            q.status.msg_size != n || !check(small, sizeof(small), 1))
            return 2 + k;
    }
    return 0;
}

Test(subdev, truncation_eager_and_rendezvous)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 } };
    cr_assert_eq(vh_run(&j, rank_truncate), 0);
}

static int rank_probe(vh_rank_t *r)
{
    static uint8_t buf[50000], in[50000];
    md_request_t s, q, msg;
    int flag = 0;

    if (r->rank == 0) {
        pattern(buf, sizeof(buf), 9);
        vh_send(r, &s, 1, 11, buf, 300, 0);
        if (vh_wait(r, &s, 10000) != MD_OK)
            return 1;
        md_request_t s2;
        vh_send(r, &s2, 1, 12, buf, sizeof(buf), 0);
        if (vh_wait(r, &s2, 10000) != MD_OK)
            return 2;
        return 0;
    }
    md_match_t m = { .src_rank = MD_ANY_SOURCE, .tag = 11 };
    md_recv_status_t st;
    uint64_t end = vh_usec() + 10000000;
    while (!flag && vh_usec() < end) {
        r->ops.progress(&r->sd);
        r->ops.iprobe(&r->sd, &m, &flag, &st);
    }
    if (!flag || st.size != 300 || st.src_rank != 0 || st.tag != 11)
        return 3;
    r->ops.iprobe(&r->sd, &m, &flag, &st);
    if (!flag)
        return 4;                         /* a probe leaves the message */
    vh_recv(r, &q, 0, 11, in, sizeof(in));
    if (vh_wait(r, &q, 1000) != MD_OK || !check(in, 300, 9))
        return 5;
    /* matched probe of a rendezvous message, then imrecv */
    md_match_t m2 = { .src_rank = 0, .tag = 12 };
    flag = 0;
    memset(&msg, 0, sizeof(msg));
    end = vh_usec() + 10000000;
    while (!flag && vh_usec() < end) {
        r->ops.progress(&r->sd);
        r->ops.improbe(&r->sd, &m2, &flag, &msg);
    }
    if (!flag || msg.status.size != sizeof(buf))
        return 6;
    r->ops.iprobe(&r->sd, &m2, &flag, &st);
    if (flag)
        return 7;                         /* improbe took it */
    memset(&q, 0, sizeof(q));
    q.kind = MD_REQ_RECV;
    q.buf = in;
    q.len = sizeof(in);
    memset(in, 0, sizeof(in));
    if (r->ops.imrecv(&r->sd, &msg, &q) != MD_OK || vh_wait(r, &q, 10000) != MD_OK ||
        !check(in, sizeof(in), 9))
        return 8;
    return 0;
}

Test(subdev, probe_improbe_imrecv)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 } };
    cr_assert_eq(vh_run(&j, rank_probe), 0);
}

static int rank_cancel_sync(vh_rank_t *r)
{
    static uint8_t buf[20000];
    int v = 42, w = 0;
    md_request_t s, q;

    if (r->rank == 0) {
        /* A synchronous eager send completes only once the receiver
         * matched it; rank 1 waits 200 ms before posting. */
        uint64_t t0 = vh_usec();
        vh_send(r, &s, 1, 3, &v, sizeof(v), MD_ENV_F_SYNC);
        if (vh_wait(r, &s, 10000) != MD_OK || vh_usec() - t0 < 150000)
            return 1;
        vh_send(r, &s, 1, 4, buf, sizeof(buf), MD_ENV_F_SYNC);   /* rendezvous sync */
        if (vh_wait(r, &s, 10000) != MD_OK)
            return 2;
        return 0;
    }
    /* cancel a posted receive that nothing matches */
    vh_recv(r, &q, 0, 99, &w, sizeof(w));
    if (r->ops.recv_cancel(&r->sd, &q) != MD_OK)
        return 3;
    if (r->ops.recv_cancel(&r->sd, &q) != MD_ERR_NOT_FOUND)
        return 4;
    uint64_t t0 = vh_usec();
    while (vh_usec() - t0 < 200000)
        r->ops.progress(&r->sd);
    vh_recv(r, &q, 0, 3, &w, sizeof(w));
    if (vh_wait(r, &q, 10000) != MD_OK || w != 42)
        return 5;
    vh_recv(r, &q, 0, 4, buf, sizeof(buf));
    if (vh_wait(r, &q, 10000) != MD_OK)
        return 6;
    /* a receive matched already cannot be cancelled */
    if (r->ops.recv_cancel(&r->sd, &q) != MD_ERR_NOT_FOUND)
        return 7;
    return 0;
}

Test(subdev, cancel_and_synchronous_sends)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 } };
    cr_assert_eq(vh_run(&j, rank_cancel_sync), 0);
}

static int rank_sysmsg(vh_rank_t *r)
{
    static uint8_t big[300000];
    md_request_t s1, s2;

    if (r->rank == 0) {
        pattern(big, sizeof(big), 4);
        vh_send(r, &s1, 1, -3, big, 100, 0);
        vh_send(r, &s2, 1, -4, big, sizeof(big), 0);
        if (vh_wait(r, &s1, 10000) != MD_OK || vh_wait(r, &s2, 10000) != MD_OK)
            return 1;
        return 0;
    }
    uint64_t end = vh_usec() + 10000000;
    while (r->nsys < 2 && vh_usec() < end)
        r->ops.progress(&r->sd);
    pattern(big, sizeof(big), 4);
    if (r->nsys != 2 || r->sys_env[0].tag != -3 || r->sys_sum[0] != vh_sum(big, 100) ||
        r->sys_env[1].tag != -4 || r->sys_sum[1] != vh_sum(big, sizeof(big)))
        return 2;
    /* never matched by a user receive */
    int flag;
    md_match_t m = { .src_rank = MD_ANY_SOURCE, .tag = MD_ANY_TAG };
    r->ops.iprobe(&r->sd, &m, &flag, NULL);
    return flag ? 3 : 0;
}

Test(subdev, system_messages)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 } };
    cr_assert_eq(vh_run(&j, rank_sysmsg), 0);
}

static int rank_anysource(vh_rank_t *r)
{
    int v = r->rank, got[4] = { -1, -1, -1, -1 };
    md_request_t q[4], s;

    /* Ranks 1 and 3 send first, rank 2 only once rank 0 has their
     * messages: so which receive each message matches is determined. */
    if (r->rank != 0) {
        vh_barrier(r);                     /* receives are posted */
        if (r->rank == 2)
            vh_barrier(r);
        vh_send(r, &s, 0, 1, &v, sizeof(v), 0);
        int rc = vh_wait(r, &s, 10000) == MD_OK ? 0 : 1;
        if (r->rank != 2)
            vh_barrier(r);
        return rc;
    }
    /* Two wildcard receives and one specific in between: a message
     * matches the earliest posted receive that accepts it. */
    vh_recv(r, &q[0], MD_ANY_SOURCE, 1, &got[0], sizeof(int));
    vh_recv(r, &q[1], 2, 1, &got[1], sizeof(int));
    vh_recv(r, &q[2], MD_ANY_SOURCE, 1, &got[2], sizeof(int));
    vh_barrier(r);
    if (vh_wait(r, &q[0], 10000) != MD_OK || vh_wait(r, &q[2], 10000) != MD_OK)
        return 2;
    if (q[1].complete)
        return 3;                          /* rank 1's or 3's took the specific one */
    vh_barrier(r);
    if (vh_wait(r, &q[1], 10000) != MD_OK)
        return 4;
    /* q[0] whichever of 1 and 3 came first, q[2] the other, q[1] rank 2's */
    if (got[1] != 2 || got[0] == got[2] || (got[0] != 1 && got[0] != 3) ||
        (got[2] != 1 && got[2] != 3))
        return 5;
    return 0;
}

Test(subdev, any_source_in_posting_order)
{
    vh_job_t j = { .n = 4, .node_of = { 0, 1, 1, 0 } };
    cr_assert_eq(vh_run(&j, rank_anysource), 0);
}

static int rank_held(vh_rank_t *r)
{
    int v[5], w[5];
    md_request_t s[5], q[5];

    if (r->rank == 0) {
        for (int i = 0; i < 5; i++) {
            v[i] = i;
            vh_send(r, &s[i], 1, 8, &v[i], sizeof(int), 0);
        }
        for (int i = 0; i < 5; i++)
            if (vh_wait(r, &s[i], 10000) != MD_OK)
                return 1;
        return 0;
    }
    r->hold = 1;                           /* an earlier message is elsewhere */
    for (int i = 0; i < 5; i++)
        vh_recv(r, &q[i], 0, 8, &w[i], sizeof(int));
    uint64_t t0 = vh_usec();
    while (vh_usec() - t0 < 200000)
        r->ops.progress(&r->sd);
    for (int i = 0; i < 5; i++)
        if (q[i].complete)
            return 2;                      /* matched while held */
    r->hold = 0;
    for (int i = 0; i < 5; i++)
        if (vh_wait(r, &q[i], 10000) != MD_OK || w[i] != i)
            return 3;                      /* in order once released */
    return r->arrivals == 5 && r->arrived_from[0] == 5 ? 0 : 4;
}

Test(subdev, held_arrivals_wait_and_keep_order)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 } };
    cr_assert_eq(vh_run(&j, rank_held), 0);
}

#define FLOOD 2000

static int rank_flood(vh_rank_t *r)
{
    static md_request_t s[FLOOD], q[FLOOD];
    static int v[FLOOD], w[FLOOD];

    /* Both directions at once, far more messages than credits, the
     * receives posted only after everything was sent: credits come back
     * as the receiver drains, nothing is dropped, no connection breaks. */
    int other = 1 - r->rank;
    for (int i = 0; i < FLOOD; i++) {
        v[i] = i * 3 + r->rank;
        if (vh_send(r, &s[i], other, 2, &v[i], sizeof(int), 0) != MD_OK)
            return 1;
    }
    uint64_t t0 = vh_usec();
    while (vh_usec() - t0 < 100000)
        r->ops.progress(&r->sd);          /* let them arrive unexpected */
    for (int i = 0; i < FLOOD; i++)
        vh_recv(r, &q[i], other, 2, &w[i], sizeof(int));
    for (int i = 0; i < FLOOD; i++) {
        if (vh_wait(r, &s[i], 20000) != MD_OK)
            return 2;
        if (vh_wait(r, &q[i], 20000) != MD_OK || w[i] != i * 3 + other)
            return 3;
    }
    return r->sd.counters.unexpected > 0 ? 0 : 4;
}

Test(subdev, credits_under_a_flood_of_unexpected_messages)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 }, .params = { { "credits", "4" } }, .nparams = 1 };
    cr_assert_eq(vh_run(&j, rank_flood), 0);
}

static int rank_alltoall(vh_rank_t *r)
{
    enum { N = 4, LEN = 20000 };
    static uint8_t out[N][LEN], in[N][LEN];
    md_request_t s[N], q[N];

    for (int p = 0; p < N; p++) {
        size_t n = (p + r->rank) % 2 ? LEN : 1000;
        pattern(out[p], n, (unsigned)(r->rank * 10 + p));
        vh_recv(r, &q[p], p, 1, in[p], LEN);
        vh_send(r, &s[p], p, 1, out[p], n, 0);
    }
    for (int p = 0; p < N; p++) {
        size_t n = (p + r->rank) % 2 ? LEN : 1000;
        if (vh_wait(r, &s[p], 20000) != MD_OK || vh_wait(r, &q[p], 20000) != MD_OK)
            return 1;
        if (q[p].status.size != n || !check(in[p], n, (unsigned)(p * 10 + r->rank)))
            return 2;
    }
    return 0;
}

Test(subdev, all_to_all_two_ranks_per_node_and_self)
{
    vh_job_t j = { .n = 4, .node_of = { 0, 0, 1, 1 }, .serve_self = 1 };
    cr_assert_eq(vh_run(&j, rank_alltoall), 0);
}

static int rank_wait_fd(vh_rank_t *r)
{
    int v = 5, w = 0;
    md_request_t s, q;

    if (r->rank == 0) {
        vh_barrier(r);
        vh_send(r, &s, 1, 9, &v, sizeof(v), 0);
        return vh_wait(r, &s, 10000) == MD_OK ? 0 : 1;
    }
    vh_recv(r, &q, 0, 9, &w, sizeof(w));
    for (int i = 0; i < 100; i++)
        r->ops.progress(&r->sd);
    /* Idle: at most a few wakes for bare protocol frames (an ack, a
     * credit update), each followed by progress as the thread does, and
     * nothing received.  Like the progress thread, yield after a pass that
     * found nothing: a frame stays readable while the firmware thread
     * holds the turn (a lent turn then does nothing), and with that thread
     * waiting for a CPU (make -j2 check) 21 wakes came in a row. */
    uint64_t end = vh_usec() + 100000;
    for (int wakes = 0; vh_usec() < end; wakes++) {
        int fd = r->ops.wait_fd(&r->sd, MD_WAIT_F_SOLE);
        if (fd < 0)
            return 2;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 100) != 0 && wakes > 20)
            return 3;                      /* idle, yet woken again and again */
        if (r->ops.progress(&r->sd) == 0)
            sched_yield();
    }
    if (atomic_load(&q.complete))
        return 6;                          /* received before it was sent */
    vh_barrier(r);                         /* rank 0 sends now */
    for (int wakes = 0; !atomic_load(&q.complete); wakes++) {
        struct pollfd p = { .fd = r->ops.wait_fd(&r->sd, MD_WAIT_F_SOLE), .events = POLLIN };
        if (p.fd < 0 || poll(&p, 1, 5000) != 1 || wakes > 20)
            return 4;                      /* the arrival wakes the sleeper */
        r->ops.progress(&r->sd);
    }
    return q.status.error == MD_OK && w == 5 ? 0 : 5;
}

Test(subdev, an_idle_rank_sleeps_on_wait_fd_until_a_message_arrives)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 } };
    cr_assert_eq(vh_run(&j, rank_wait_fd), 0);
}

/* Rank 1 looks for a message before rank 0 may send it (the barrier), so
 * the arrival is one it waited for; then the ping-pongs of every size.
 * 0: as the mode expects (block: woken at least once, poll: never). */
static int rank_completion_mode(vh_rank_t *r)
{
    int block = strcmp(r->job->params[0].value, "block") == 0, v = 0, rc;
    md_request_t q, s;

    if (r->rank == 1) {
        int k = 0;
        vh_recv(r, &q, 0, 9, &v, sizeof(v));
        while (r->ops.progress(&r->sd) != 0 && ++k < 1000)
            ;                              /* until it finds nothing to do */
        if (k == 1000 || atomic_load(&q.complete))
            return 10;                     /* the message cannot be here yet */
        vh_barrier(r);
        if (vh_wait(r, &q, 20000) != MD_OK || v != 42)
            return 11;
        if ((vsd_wakeups(&r->sd) >= 1) != block)
            return 12;
    } else {
        vh_barrier(r);
        v = 42;
        if (vh_send(r, &s, 1, 9, &v, sizeof(v), 0) != MD_OK || vh_wait(r, &s, 20000) != MD_OK)
            return 13;
    }
    if ((rc = rank_pingpong(r)) != 0)
        return rc;
    return block || vsd_wakeups(&r->sd) == 0 ? 0 : 14;
}

Test(subdev, blocking_completion_counts_wakeups_and_moves_every_byte)
{
    /* no timing model: the wake-ups are counted, not charged */
    vh_job_t j = { .n = 2, .node_of = { 0, 1 }, .params = { { "completion", "block" } },
                   .nparams = 1 };
    cr_assert_eq(vh_run(&j, rank_completion_mode), 0);
}

Test(subdev, polling_completion_is_never_woken)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 }, .params = { { "completion", "poll" } },
                   .nparams = 1 };
    cr_assert_eq(vh_run(&j, rank_completion_mode), 0);
}

/* Rank 0 sends 64 eager messages in block mode, each with the rank idle
 * before it (a progress pass that finds nothing: the rank waits).  Its send
 * queues complete on no CQ and no request waits for an eager copy, so none
 * of them wakes it. */
static int rank_eager_sends(vh_rank_t *r)
{
    int v[64] = { 0 };
    md_request_t q[64], s;

    if (r->rank == 1) {
        for (int i = 0; i < 64; i++)
            vh_recv(r, &q[i], 0, 3, &v[i], sizeof(v[i]));
        vh_barrier(r);
        for (int i = 0; i < 64; i++)
            if (vh_wait(r, &q[i], 20000) != MD_OK || v[i] != i)
                return 20;
        vh_barrier(r);
        return 0;
    }
    vh_barrier(r);
    for (int i = 0; i < 64; i++) {
        v[i] = i;
        if (vh_send(r, &s, 1, 3, &v[i], sizeof(v[i]), 0) != MD_OK || vh_wait(r, &s, 20000) != MD_OK)
            return 22;
        for (int k = 0; r->ops.progress(&r->sd) != 0 && k < 1000; k++)
            ;                              /* until it finds nothing to do */
    }
    vh_barrier(r);                         /* every send reaped meanwhile */
    return vsd_wakeups(&r->sd) == 0 ? 0 : 23;
}

Test(subdev, a_ranks_own_eager_sends_wake_it_not)
{
    /* clan's timing model: a send completes microseconds after it left, so
     * the rank is idle before it does */
    vh_job_t j = { .n = 2, .node_of = { 0, 1 },
                   .params = { { "completion", "block" }, { "timing", "clan" } }, .nparams = 2 };
    cr_assert_eq(vh_run(&j, rank_eager_sends), 0);
}

static void quiet_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    (void)sd, (void)level, (void)fmt;
}

/* init's answer to parameters that are refused before any NIC is opened. */
static int init_status(const md_param_t *params, size_t n)
{
    md_subdev_ops_t ops;
    md_sdi_host_t host = { .log = quiet_log };   /* init fails before any peer */
    md_subdev_t sd = { .ops = &ops, .host = &host };
    int32_t node_of[1] = { 0 };
    uint8_t serves[1] = { 0 }, card[MD_CARD_MAX];
    size_t card_len = 0;
    md_subdev_init_args_t a = { .world_rank = 0, .world_size = 1, .node_of_rank = node_of,
                                .num_nodes = 1, .node_name = "n0", .job_id = "bad-param",
                                .job_secret = test_job_secret("bad-param"),
                                .job_key = test_job_key("bad-param"),
                                .serves = serves, .params = params, .num_params = n };

    cr_assert_eq(via_LoadDevicePtr(&ops), MD_OK);
    return ops.init(&sd, &a, card, &card_len);
}

Test(subdev, completion_mode_must_be_poll_or_block)
{
    md_param_t bad = { "completion", "sleep" };
    cr_assert_eq(init_status(&bad, 1), MD_ERR_CONFIG);
    setenv("MULTIDEV_VIA_COMPLETION", "interrupt", 1);   /* the variable wins */
    md_param_t good = { "completion", "block" };
    cr_assert_eq(init_status(&good, 1), MD_ERR_CONFIG);
    unsetenv("MULTIDEV_VIA_COMPLETION");
}

static int rank_lost_peer(vh_rank_t *r)
{
    int v = 0;
    md_request_t q, s;

    /* Both leave through _exit: the harness's closing barrier would wait
     * for the rank that is gone. */
    if (r->rank == 1) {
        vh_barrier(r);
        _exit(0);                          /* gone without finalizing */
    }
    vh_recv(r, &q, 1, 1, &v, sizeof(v));
    vh_barrier(r);
    if (vh_wait(r, &q, 20000) != MD_ERR_PEER_FAILED)
        _exit(1);
    if (vh_send(r, &s, 1, 1, &v, sizeof(v), 0) != MD_ERR_PEER_FAILED)
        _exit(2);
    _exit(0);
}

Test(subdev, a_lost_peer_fails_its_requests)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 }, .timeout_s = 40 };
    cr_assert_eq(vh_run(&j, rank_lost_peer), 0);
}
