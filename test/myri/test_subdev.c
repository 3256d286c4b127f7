/* test_subdev.c - subdev-myri through its SDI ops: several processes on
 * several emulated nodes, each node with its own NIC firmware. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "myri_harness.h"

static void fill(uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 11));
}

static int check(const uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (uint8_t)(seed * 131 + i * 7 + (i >> 11)))
            return 0;
    return 1;
}

#define RUN(w, fn) cr_assert_eq(mh_run(&(w), fn), 0, "some rank failed")

static mh_world_t two_nodes(void)
{
    mh_world_t w = { .n = 2, .node_of_rank = { 0, 1 }, .timeout_s = 30 };
    return w;
}

/* ------------------------------------------------------------------ */

static const size_t sizes[] = { 0, 1, 7, 4088, 4089, 4096, 4097, 65536, 100003, 1 << 20 };

static int rank_pingpong(mh_rank_t *r)
{
    uint8_t *buf = malloc(1 << 20);
    md_request_t req;
    int peer = 1 - r->rank;

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        for (int rep = 0; rep < 3; rep++) {
            if (r->rank == 0) {
                fill(buf, n, (unsigned)(s + rep));
                if (mh_isend(r, &req, peer, 7, buf, n, 0) != MD_OK || mh_wait(r, &req, 5000) != MD_OK)
                    return 1;
                memset(buf, 0, n);
                if (mh_irecv(r, &req, peer, 8, buf, n) != MD_OK || mh_wait(r, &req, 5000) != MD_OK)
                    return 2;
            } else {
                if (mh_irecv(r, &req, peer, 7, buf, n) != MD_OK || mh_wait(r, &req, 5000) != MD_OK)
                    return 3;
                if (req.status.size != n || req.status.src_rank != 0 || req.status.tag != 7)
                    return 4;
                if (mh_isend(r, &req, peer, 8, buf, n, 0) != MD_OK || mh_wait(r, &req, 5000) != MD_OK)
                    return 5;
                continue;
            }
            if (req.status.size != n || !check(buf, n, (unsigned)(s + rep)))
                return 6;
        }
    }
    free(buf);
    return r->sd.counters.eager_sent > 0 && r->sd.counters.rndv_sent > 0 ? 0 : 7;
}

Test(subdev, pingpong_eager_and_rendezvous, .timeout = 60)
{
    mh_world_t w = two_nodes();
    RUN(w, rank_pingpong);
}

/* ------------------------------------------------------------------ */

static int rank_truncate(mh_rank_t *r)
{
    static uint8_t buf[20000];
    md_request_t req;
    size_t lens[] = { 100, 20000 };

    for (int i = 0; i < 2; i++) {
        if (r->rank == 0) {
            fill(buf, lens[i], 3);
            if (mh_isend(r, &req, 1, 1, buf, lens[i], 0) != MD_OK || mh_wait(r, &req, 5000) != MD_OK)
                return 1;
        } else {
            memset(buf, 0, sizeof(buf));
            mh_irecv(r, &req, 0, 1, buf, 50);
            if (mh_wait(r, &req, 5000) != MD_ERR_TRUNCATE)
                return 2;
            if (req.status.size != 50 || req.status.msg_size != lens[i] || !check(buf, 50, 3) ||
                buf[50] != 0)
                return 3;
        }
    }
    return 0;
}

Test(subdev, truncation_eager_and_rendezvous, .timeout = 60)
{
    mh_world_t w = two_nodes();
    RUN(w, rank_truncate);
}

/* ------------------------------------------------------------------ */

static int rank_probe(mh_rank_t *r)
{
    static uint8_t buf[10000];
    md_request_t req, msg;
    md_match_t m = { .src_rank = MD_ANY_SOURCE, .tag = MD_ANY_TAG };
    md_recv_status_t st;
    int flag = 0;

    if (r->rank == 0) {
        fill(buf, 3000, 1);
        mh_isend(r, &req, 1, 21, buf, 3000, 0);
        if (mh_wait(r, &req, 5000) != MD_OK)
            return 1;
        fill(buf, 10000, 2);
        mh_isend(r, &req, 1, 22, buf, 10000, 0);
        return mh_wait(r, &req, 5000) != MD_OK;
    }
    uint64_t end = mh_now_us() + 5000000;
    while (!flag && mh_now_us() < end) {
        r->ops.progress(&r->sd);
        r->ops.iprobe(&r->sd, &m, &flag, &st);
    }
    if (!flag || st.tag != 21 || st.msg_size != 3000 || st.src_rank != 0)
        return 2;
    /* probe leaves it there */
    r->ops.iprobe(&r->sd, &m, &flag, &st);
    if (!flag)
        return 3;
    mh_irecv(r, &req, 0, 21, buf, sizeof(buf));
    if (mh_wait(r, &req, 5000) != MD_OK || !check(buf, 3000, 1))
        return 4;
    /* matched probe of the rendezvous message, then imrecv */
    m.tag = 22;
    flag = 0;
    memset(&msg, 0, sizeof(msg));
    while (!flag && mh_now_us() < end) {
        r->ops.progress(&r->sd);
        r->ops.improbe(&r->sd, &m, &flag, &msg);
    }
    if (!flag || msg.status.msg_size != 10000)
        return 5;
    r->ops.iprobe(&r->sd, &m, &flag, &st);
    if (flag)
        return 6;   /* improbe took it */
    memset(&req, 0, sizeof(req));
    req.kind = MD_REQ_RECV;
    req.buf = buf;
    req.len = sizeof(buf);
    memset(buf, 0, sizeof(buf));
    if (r->ops.imrecv(&r->sd, &msg, &req) != MD_OK || mh_wait(r, &req, 5000) != MD_OK)
        return 7;
    return !check(buf, 10000, 2) ? 8 : 0;
}

Test(subdev, probe_improbe_imrecv, .timeout = 60)
{
    mh_world_t w = two_nodes();
    RUN(w, rank_probe);
}

/* ------------------------------------------------------------------ */

static int rank_cancel_sync(mh_rank_t *r)
{
    static uint8_t buf[64];
    md_request_t req, rcv;

    if (r->rank == 1) {
        /* a posted receive cancelled before anything arrives */
        mh_irecv(r, &rcv, 0, 5, buf, sizeof(buf));
        if (r->ops.recv_cancel(&r->sd, &rcv) != MD_OK)
            return 1;
        mh_barrier(r);              /* 1: cancelled; rank 0 sends tag 5 synchronously */
        uint64_t end = mh_now_us() + 10000000;
        while (r->sd.counters.unexpected == 0 && mh_now_us() < end)
            r->ops.progress(&r->sd);   /* the message arrives, unexpected */
        if (r->sd.counters.unexpected != 1)
            return 2;
        mh_barrier(r);              /* 2: rank 0 saw its Ssend still pending */
        mh_irecv(r, &rcv, 0, 5, buf, sizeof(buf));
        if (mh_wait(r, &rcv, 5000) != MD_OK || rcv.status.size != 10)
            return 3;
        /* a completed receive cannot be cancelled */
        return r->ops.recv_cancel(&r->sd, &rcv) == MD_ERR_NOT_FOUND ? 0 : 4;
    }
    mh_barrier(r);
    memset(buf, 9, 10);
    mh_isend(r, &req, 1, 5, buf, 10, MD_ENV_F_SYNC);
    uint64_t end = mh_now_us() + 400000;
    while (mh_now_us() < end)
        r->ops.progress(&r->sd);
    if (req.complete)
        return 5;                   /* Ssend done before the receiver matched */
    mh_barrier(r);
    return mh_wait(r, &req, 5000) == MD_OK ? 0 : 6;
}

Test(subdev, cancel_and_synchronous_send, .timeout = 60)
{
    mh_world_t w = two_nodes();
    RUN(w, rank_cancel_sync);
}

/* ------------------------------------------------------------------ */

static int rank_sysmsg(mh_rank_t *r)
{
    static uint8_t buf[10000];
    md_request_t req;

    if (r->rank == 0) {
        for (int i = 0; i < 2; i++) {
            size_t n = i ? sizeof(buf) : 40;
            for (size_t k = 0; k < n; k++)
                buf[k] = (uint8_t)(k * 3 + i);
            mh_isend(r, &req, 1, -3 - i, buf, n, 0);
            if (mh_wait(r, &req, 5000) != MD_OK)
                return 1;
        }
        mh_barrier(r);
        return r->sd.counters.sysmsgs_sent == 2 ? 0 : 2;
    }
    uint64_t end = mh_now_us() + 5000000;
    while (r->sys_count < 2 && mh_now_us() < end)
        r->ops.progress(&r->sd);
    mh_barrier(r);
    if (r->sys_count != 2 || r->sys_env[0].tag != -3 || r->sys_env[1].tag != -4 ||
        r->sys_env[1].size != sizeof(buf))
        return 3;
    for (int i = 0; i < 2; i++) {
        size_t n = i ? sizeof(buf) : 40;
        uint64_t sum = 0;
        for (size_t k = 0; k < n; k++)
            sum = sum * 31 + (uint8_t)(k * 3 + i);
        if (sum != r->sys_sum[i])
            return 4;
    }
    /* a system message never matches a user receive */
    return r->sd.counters.unexpected == 0 ? 0 : 5;
}

Test(subdev, system_messages, .timeout = 60)
{
    mh_world_t w = two_nodes();
    RUN(w, rank_sysmsg);
}

/* ------------------------------------------------------------------ */

#define ORDER_N 200

static int rank_anysource_order(mh_rank_t *r)
{
    uint32_t v;
    md_request_t req;

    if (r->rank != 1) {
        for (uint32_t i = 0; i < ORDER_N; i++) {
            /* mixed sizes: eager and rendezvous must not overtake */
            static uint8_t big[9000];
            int rndv = (i % 17) == 3;
            memcpy(big, &i, 4);
            mh_isend(r, &req, 1, (int32_t)(i % 3), big, rndv ? sizeof(big) : 4, 0);
            if (mh_wait(r, &req, 10000) != MD_OK)
                return 1;
        }
        return 0;
    }
    uint32_t next[3] = { 0, 0, 0 };
    static uint8_t big[9000];
    for (int i = 0; i < 2 * ORDER_N; i++) {
        mh_irecv(r, &req, MD_ANY_SOURCE, MD_ANY_TAG, big, sizeof(big));
        if (mh_wait(r, &req, 10000) != MD_OK)
            return 2;
        memcpy(&v, big, 4);
        int s = req.status.src_rank;
        if (s != 0 && s != 2)
            return 3;
        if (v != next[s] || req.status.tag != (int32_t)(v % 3))
            return 4;     /* overtaken */
        next[s]++;
    }
    return 0;
}

Test(subdev, any_source_keeps_per_sender_order, .timeout = 60)
{
    mh_world_t w = { .n = 3, .node_of_rank = { 0, 1, 2 }, .timeout_s = 40 };
    RUN(w, rank_anysource_order);
}

/* ------------------------------------------------------------------ */

static int rank_held(mh_rank_t *r)
{
    md_request_t req[4];
    uint32_t v[4];

    if (r->rank == 0) {
        mh_barrier(r);
        for (uint32_t i = 0; i < 4; i++) {
            mh_isend(r, &req[i], 1, 1, &i, 4, 0);
            if (mh_wait(r, &req[i], 5000) != MD_OK)
                return 1;
        }
        mh_barrier(r);
        return 0;
    }
    r->hold_arrivals = 1;     /* an earlier message is "on another subdevice" */
    for (int i = 0; i < 4; i++)
        mh_irecv(r, &req[i], 0, 1, &v[i], 4);
    mh_barrier(r);
    mh_barrier(r);
    uint64_t end = mh_now_us() + 200000;
    while (mh_now_us() < end)
        r->ops.progress(&r->sd);
    for (int i = 0; i < 4; i++)
        if (req[i].complete)
            return 2;         /* matched although arrival_ok said no */
    r->hold_arrivals = 0;
    for (int i = 0; i < 4; i++)
        if (mh_wait(r, &req[i], 5000) != MD_OK || v[i] != (uint32_t)i)
            return 3;
    return 0;
}

Test(subdev, arrival_ok_holds_messages_in_order, .timeout = 60)
{
    mh_world_t w = two_nodes();
    RUN(w, rank_held);
}

/* Rank 0 sends and leaves at once (its endpoint closes).  What it sent
 * before is still received, in order, although rank 1 held it back past
 * several liveness probes; a receive that nothing can match any more then
 * fails instead of hanging. */
static int rank_sender_gone(mh_rank_t *r)
{
    md_request_t req[5];
    uint32_t v[5] = { 0 };

    if (r->rank == 0) {
        mh_barrier(r);
        for (uint32_t i = 0; i < 4; i++) {
            v[i] = i + 10;
            mh_isend(r, &req[i], 1, 1, &v[i], 4, 0);
            if (mh_wait(r, &req[i], 5000) != MD_OK)
                return 1;
        }
        mh_barrier(r);
        return 0;                 /* finalize: the endpoint closes */
    }
    r->hold_arrivals = 1;
    for (int i = 0; i < 4; i++)
        mh_irecv(r, &req[i], 0, 1, &v[i], 4);
    mh_barrier(r);
    mh_barrier(r);
    uint64_t end = mh_now_us() + 1000000;    /* four probe intervals */
    while (mh_now_us() < end)
        r->ops.progress(&r->sd);
    for (int i = 0; i < 4; i++)
        if (req[i].complete)
            return 2;
    r->hold_arrivals = 0;
    for (int i = 0; i < 4; i++)
        if (mh_wait(r, &req[i], 5000) != MD_OK || v[i] != (uint32_t)i + 10)
            return 3;
    mh_irecv(r, &req[4], 0, 1, &v[4], 4);
    int rc = mh_wait(r, &req[4], 5000);
    return rc == MD_OK || rc == MD_ERR_TIMEOUT ? 4 : 0;
}

Test(subdev, a_finalized_senders_messages_are_still_received, .timeout = 60)
{
    mh_world_t w = two_nodes();
    RUN(w, rank_sender_gone);
}

/* ------------------------------------------------------------------ */

#define FLOOD 400

static int rank_flood(mh_rank_t *r)
{
    static md_request_t sreq[FLOOD], rreq[FLOOD];
    static uint32_t out[FLOOD], in[FLOOD];
    int peer = 1 - r->rank;

    /* Both send everything before receiving anything: with 2 credits the
     * senders queue, progress pays credits, nothing deadlocks. */
    for (uint32_t i = 0; i < FLOOD; i++) {
        out[i] = i;
        if (mh_isend(r, &sreq[i], peer, 4, &out[i], 4, 0) != MD_OK)
            return 1;
    }
    if (r->rank == 1) {
        uint64_t end = mh_now_us() + 200000;   /* a slow receiver */
        while (mh_now_us() < end)
            usleep(1000);
    }
    for (uint32_t i = 0; i < FLOOD; i++)
        mh_irecv(r, &rreq[i], peer, 4, &in[i], 4);
    for (uint32_t i = 0; i < FLOOD; i++)
        if (mh_wait(r, &rreq[i], 10000) != MD_OK || in[i] != i)
            return 2;
    for (uint32_t i = 0; i < FLOOD; i++)
        if (mh_wait(r, &sreq[i], 10000) != MD_OK)
            return 3;
    return 0;
}

Test(subdev, credit_exhaustion_without_deadlock, .timeout = 60)
{
    mh_world_t w = two_nodes();
    w.params[0] = (md_param_t){ "credits", "2" };
    w.nparams = 1;
    RUN(w, rank_flood);
}

/* ------------------------------------------------------------------ */

#define A2A_LEN 20000

static int rank_alltoall(mh_rank_t *r)
{
    int n = r->w->n;
    uint8_t *sb = malloc((size_t)n * A2A_LEN), *rb = calloc((size_t)n, A2A_LEN);
    md_request_t sreq[MH_MAX_RANKS], rreq[MH_MAX_RANKS];

    for (int i = 0; i < n; i++) {
        fill(sb + (size_t)i * A2A_LEN, A2A_LEN, (unsigned)(r->rank * 16 + i));
        mh_irecv(r, &rreq[i], i, 9, rb + (size_t)i * A2A_LEN, A2A_LEN);
    }
    for (int i = 0; i < n; i++)
        mh_isend(r, &sreq[i], i, 9, sb + (size_t)i * A2A_LEN, A2A_LEN, 0);
    for (int i = 0; i < n; i++) {
        if (mh_wait(r, &rreq[i], 10000) != MD_OK || mh_wait(r, &sreq[i], 10000) != MD_OK)
            return 1;
        if (!check(rb + (size_t)i * A2A_LEN, A2A_LEN, (unsigned)(i * 16 + r->rank)))
            return 2;
    }
    free(sb);
    free(rb);
    return 0;
}

Test(subdev, alltoall_two_ranks_per_node_and_self, .timeout = 60)
{
    mh_world_t w = { .n = 4, .node_of_rank = { 0, 0, 1, 1 }, .timeout_s = 40 };
    RUN(w, rank_alltoall);
}

/* ------------------------------------------------------------------ */

#include <poll.h>

static int rank_wait_fd(mh_rank_t *r)
{
    md_request_t req;
    int v = 0;

    if (r->rank == 0) {
        mh_barrier(r);
        usleep(200000);          /* the other side is asleep by now */
        v = 42;
        mh_isend(r, &req, 1, 3, &v, sizeof(v), 0);
        return mh_wait(r, &req, 5000) == MD_OK ? 0 : 1;
    }
    mh_irecv(r, &req, 0, 3, &v, sizeof(v));
    mh_barrier(r);
    r->ops.progress(&r->sd);
    /* What the progress thread does: sleep, progress when woken.  A wake
     * may be a bare protocol frame on the wire (an ack) rather than the
     * message: a few of those are allowed, a busy loop is not. */
    uint64_t t0 = mh_now_us();
    for (int wakes = 0; !atomic_load(&req.complete); wakes++) {
        int fd = r->ops.wait_fd(&r->sd, MD_WAIT_F_SOLE);
        if (fd < 0)
            return 2;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 5000) != 1)
            return 3;            /* the NIC never woke us */
        if (wakes > 20)
            return 6;            /* woken again and again for nothing */
        r->ops.progress(&r->sd);
    }
    if (mh_now_us() - t0 < 100000)
        return 4;                /* received before it was sent */
    return v == 42 ? 0 : 5;
}

Test(subdev, an_idle_progress_thread_sleeps_on_wait_fd, .timeout = 60)
{
    mh_world_t w = two_nodes();
    RUN(w, rank_wait_fd);
}
