/*
 * match_test.c - matching in the shm subdevice, driven through its ops in
 * one process: rank 0 of a one-rank job sends to itself over its own ring,
 * so every message takes the real wire path (eager, and rendezvous by
 * memcpy) and the real posted/unexpected queues.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm_impl.h"
#include "shm_test_boot.h"

#define CTX 7u

static tb_shared_t *tb;
static tb_dev_t dev;

static void open_dev(void)
{
    static const char *const params[] = { "eager_limit=1k", NULL };

    tb = tb_create(1);
    cr_assert_not_null(tb);
    cr_assert_eq(tb_dev_open(tb, 0, &dev, params, 0), MD_OK);
    tb_arrival_hook = NULL;
    memset(&tb_host_log, 0, sizeof(tb_host_log));
}

static void close_dev(void)
{
    cr_assert_eq(tb_dev_close(&dev), MD_OK);
    cr_assert_eq(tb_count_segments(tb), 0);
    tb_destroy(tb);
}

TestSuite(match, .init = open_dev, .fini = close_dev, .timeout = 30);

TestSuite(segment, .timeout = 30);

static void send_msg(md_request_t *req, const void *buf, size_t len, int tag,
                     uint32_t ctx, uint32_t flags)
{
    tb_send_req(&dev, req, 0, buf, len, tag, ctx, flags);
    cr_assert_eq(dev.ops.isend(&dev.sd, req), MD_OK);
}

static void post(md_request_t *req, int src, void *buf, size_t len, int tag,
                 uint32_t ctx)
{
    tb_recv_req(req, src, buf, len, tag, ctx);
    cr_assert_eq(dev.ops.irecv(&dev.sd, req), MD_OK);
}

static void progress_some(void)
{
    for (int i = 0; i < 20; i++)
        tb_progress(&dev);
}

static int done(md_request_t *req)
{
    return atomic_load(&req->complete) != 0;
}

Test(match, posted_then_sent)
{
    md_request_t s, r;
    char out[32] = "hello shm", in[32] = { 0 };

    post(&r, 0, in, sizeof(in), 5, CTX);
    send_msg(&s, out, 10, 5, CTX, 0);
    cr_assert(done(&s), "an eager send completes when written");
    cr_assert_eq(tb_wait(&dev, &r, 5), 0);
    cr_assert_str_eq(in, "hello shm");
    cr_assert_eq(r.status.error, MD_OK);
    cr_assert_eq(r.status.size, 10);
    cr_assert_eq(r.status.msg_size, 10);
    cr_assert_eq(r.status.tag, 5);
    cr_assert_eq(r.status.src_rank, 0);
    cr_assert_eq(dev.sd.counters.unexpected, 0);
    cr_assert_eq(dev.sd.counters.msgs_sent, 1);
    cr_assert_eq(dev.sd.counters.msgs_recvd, 1);
    cr_assert_eq(dev.sd.counters.bytes_recvd, 10);
    cr_assert_eq(dev.sd.counters.eager_sent, 1);
    cr_assert_eq(tb_host_log.arrived, 1);
}

Test(match, unexpected_then_posted_completes_in_irecv)
{
    md_request_t s, r;
    char out[8] = "abcdefg", in[8] = { 0 };

    send_msg(&s, out, 8, 1, CTX, 0);
    progress_some();
    cr_assert_eq(dev.sd.counters.unexpected, 1);
    post(&r, 0, in, sizeof(in), 1, CTX);
    cr_assert(done(&r), "matched from the unexpected queue inside irecv");
    cr_assert_str_eq(in, "abcdefg");
}

Test(match, wildcards_and_context)
{
    md_request_t s[3], r[3];
    int a = 11, b = 22, c = 33, x[3] = { 0 };

    send_msg(&s[0], &a, sizeof(a), 4, CTX + 1, 0);   /* other context */
    send_msg(&s[1], &b, sizeof(b), 9, CTX, 0);
    progress_some();
    post(&r[0], MD_ANY_SOURCE, &x[0], sizeof(int), MD_ANY_TAG, CTX);
    cr_assert(done(&r[0]));
    cr_assert_eq(x[0], 22, "the other context must not match");
    cr_assert_eq(r[0].status.tag, 9);
    post(&r[1], 0, &x[1], sizeof(int), MD_ANY_TAG, CTX + 1);
    cr_assert(done(&r[1]));
    cr_assert_eq(x[1], 11);
    post(&r[2], MD_ANY_SOURCE, &x[2], sizeof(int), 3, CTX);
    send_msg(&s[2], &c, sizeof(c), 4, CTX, 0);       /* wrong tag */
    progress_some();
    cr_assert_not(done(&r[2]));
    cr_assert_eq(dev.ops.recv_cancel(&dev.sd, &r[2]), MD_OK);
}

Test(match, posted_receives_match_in_posting_order)
{
    md_request_t s[2], r[2];
    int v0 = 100, v1 = 200, x0 = 0, x1 = 0;

    post(&r[0], MD_ANY_SOURCE, &x0, sizeof(int), MD_ANY_TAG, CTX);
    post(&r[1], 0, &x1, sizeof(int), 7, CTX);
    send_msg(&s[0], &v0, sizeof(int), 7, CTX, 0);
    progress_some();
    cr_assert(done(&r[0]), "the wildcard was posted first");
    cr_assert_not(done(&r[1]));
    send_msg(&s[1], &v1, sizeof(int), 7, CTX, 0);
    cr_assert_eq(tb_wait(&dev, &r[1], 5), 0);
    cr_assert_eq(x0, 100);
    cr_assert_eq(x1, 200);
}

Test(match, unexpected_messages_match_in_arrival_order)
{
    md_request_t s[3], r[3];
    int v[3] = { 1, 2, 3 }, x[3] = { 0 };

    for (int i = 0; i < 3; i++)
        send_msg(&s[i], &v[i], sizeof(int), 6, CTX, 0);
    progress_some();
    for (int i = 0; i < 3; i++) {
        post(&r[i], MD_ANY_SOURCE, &x[i], sizeof(int), MD_ANY_TAG, CTX);
        cr_assert(done(&r[i]));
        cr_assert_eq(x[i], i + 1);
    }
}

static void check_truncation(size_t msg_len, size_t buf_len)
{
    md_request_t s, r;
    uint8_t *out = malloc(msg_len), *in = malloc(buf_len + 16);

    tb_fill(out, msg_len, 3);
    memset(in, 0xee, buf_len + 16);
    post(&r, 0, in, buf_len, 2, CTX);
    send_msg(&s, out, msg_len, 2, CTX, 0);
    cr_assert_eq(tb_wait(&dev, &r, 5), 0);
    cr_assert_eq(tb_wait(&dev, &s, 5), 0);
    cr_assert_eq(r.status.error, MD_ERR_TRUNCATE);
    cr_assert_eq(r.status.size, buf_len);
    cr_assert_eq(r.status.msg_size, msg_len);
    cr_assert_eq(tb_check(in, buf_len, 3), -1, "what fits is delivered");
    for (size_t i = buf_len; i < buf_len + 16; i++)
        cr_assert_eq(in[i], 0xee, "nothing written past the buffer");
    free(out);
    free(in);
}

Test(match, truncation_eager)
{
    check_truncation(100, 40);
}

Test(match, truncation_rendezvous)
{
    check_truncation(5000, 3000);
    cr_assert_eq(dev.sd.counters.rndv_sent, 1);
}

Test(match, cancel_posted_and_matched)
{
    md_request_t s, r, r2;
    int v = 5, x = 0, y = 0;

    post(&r, 0, &x, sizeof(int), 1, CTX);
    cr_assert_eq(dev.ops.recv_cancel(&dev.sd, &r), MD_OK);
    cr_assert_eq(dev.ops.recv_cancel(&dev.sd, &r), MD_ERR_NOT_FOUND);
    send_msg(&s, &v, sizeof(int), 1, CTX, 0);
    progress_some();
    cr_assert_not(done(&r), "a cancelled receive never completes");
    cr_assert_eq(x, 0);
    cr_assert_eq(dev.sd.counters.unexpected, 1);
    post(&r2, 0, &y, sizeof(int), 1, CTX);
    cr_assert(done(&r2));
    cr_assert_eq(y, 5);
    cr_assert_eq(dev.ops.recv_cancel(&dev.sd, &r2), MD_ERR_NOT_FOUND,
                 "already matched");
}

Test(match, iprobe_leaves_the_message)
{
    md_request_t s, r;
    md_recv_status_t st;
    int flag = 1, v = 77, x = 0;
    md_match_t m = { .src_rank = MD_ANY_SOURCE, .tag = MD_ANY_TAG, .context_id = CTX };

    cr_assert_eq(dev.ops.iprobe(&dev.sd, &m, &flag, &st), MD_OK);
    cr_assert_eq(flag, 0);
    send_msg(&s, &v, sizeof(int), 12, CTX, 0);
    cr_assert_eq(dev.ops.iprobe(&dev.sd, &m, &flag, &st), MD_OK);
    cr_assert_eq(flag, 1, "iprobe polls the ring itself");
    cr_assert_eq(st.tag, 12);
    cr_assert_eq(st.msg_size, sizeof(int));
    cr_assert_eq(dev.ops.iprobe(&dev.sd, &m, &flag, &st), MD_OK);
    cr_assert_eq(flag, 1, "still there");
    post(&r, 0, &x, sizeof(int), 12, CTX);
    cr_assert(done(&r));
    cr_assert_eq(x, 77);
    cr_assert_eq(dev.ops.iprobe(&dev.sd, &m, &flag, &st), MD_OK);
    cr_assert_eq(flag, 0);
}

Test(match, improbe_then_imrecv)
{
    md_request_t s[2], msg, r, r2;
    int flag = 0, v = 41, w = 42, x = 0, y = 0;
    md_match_t m = { .src_rank = 0, .tag = 3, .context_id = CTX };

    send_msg(&s[0], &v, sizeof(int), 3, CTX, 0);
    send_msg(&s[1], &w, sizeof(int), 3, CTX, 0);
    memset(&msg, 0, sizeof(msg));
    msg.kind = MD_REQ_MPROBE;
    cr_assert_eq(dev.ops.improbe(&dev.sd, &m, &flag, &msg), MD_OK);
    cr_assert_eq(flag, 1);
    cr_assert_eq(msg.status.msg_size, sizeof(int));
    /* the bound message is gone from the queue: a receive gets the next */
    post(&r2, 0, &y, sizeof(int), 3, CTX);
    cr_assert(done(&r2));
    cr_assert_eq(y, 42);
    tb_recv_req(&r, 0, &x, sizeof(int), 0, 0);
    cr_assert_eq(dev.ops.imrecv(&dev.sd, &msg, &r), MD_OK);
    cr_assert(done(&r));
    cr_assert_eq(x, 41);
    cr_assert_eq(r.status.tag, 3);
    cr_assert_eq(dev.ops.imrecv(&dev.sd, &msg, &r), MD_ERR_INVALID, "used up");
}

Test(match, lost_claim_is_skipped)
{
    md_request_t s, dup, r;
    md_claim_t claim;
    int v = 9, x = 0, y = 0;

    atomic_init(&claim.owner, -1);
    post(&dup, MD_ANY_SOURCE, &x, sizeof(int), MD_ANY_TAG, CTX);
    dup.claim = &claim;
    post(&r, 0, &y, sizeof(int), 8, CTX);
    atomic_store(&claim.owner, 3);          /* another subdevice won */
    send_msg(&s, &v, sizeof(int), 8, CTX, 0);
    progress_some();
    cr_assert_not(done(&dup), "a lost claim never delivers");
    cr_assert(done(&r), "the next posted receive gets the message");
    cr_assert_eq(x, 0);
    cr_assert_eq(y, 9);
    cr_assert_eq(dev.ops.recv_cancel(&dev.sd, &dup), MD_OK);
}

Test(match, won_claim_delivers_and_records_owner)
{
    md_request_t s, dup;
    md_claim_t claim;
    int v = 10, x = 0;

    atomic_init(&claim.owner, -1);
    send_msg(&s, &v, sizeof(int), 8, CTX, 0);
    progress_some();
    tb_recv_req(&dup, MD_ANY_SOURCE, &x, sizeof(int), MD_ANY_TAG, CTX);
    dup.claim = &claim;
    cr_assert_eq(dev.ops.irecv(&dev.sd, &dup), MD_OK);
    cr_assert(done(&dup));
    cr_assert_eq(atomic_load(&claim.owner), dev.sd.index);
    cr_assert_eq(x, 10);
}

static int hold_all;
static int hold_hook(const md_envelope_t *env)
{
    (void)env;
    return !hold_all;
}

Test(match, arrival_ok_holds_a_sender_in_order)
{
    md_request_t s[2], r[2];
    int v0 = 1, v1 = 2, x0 = 0, x1 = 0;

    hold_all = 1;
    tb_arrival_hook = hold_hook;
    send_msg(&s[0], &v0, sizeof(int), 1, CTX, 0);
    send_msg(&s[1], &v1, sizeof(int), 1, CTX, 0);
    post(&r[0], 0, &x0, sizeof(int), MD_ANY_TAG, CTX);
    progress_some();
    cr_assert_not(done(&r[0]), "held back by arrival_ok");
    cr_assert_gt(tb_host_log.held, 0);
    cr_assert_eq(tb_host_log.arrived, 0);
    hold_all = 0;
    post(&r[1], 0, &x1, sizeof(int), MD_ANY_TAG, CTX);
    cr_assert_eq(tb_wait(&dev, &r[1], 5), 0);
    cr_assert(done(&r[0]));
    cr_assert_eq(x0, 1, "first message to the first receive");
    cr_assert_eq(x1, 2);
    cr_assert_eq(tb_host_log.arrived, 2);
    tb_arrival_hook = NULL;
}

Test(match, system_messages_are_never_matched)
{
    md_request_t s[2], r;
    uint8_t small[100], *big = malloc(3000);
    int x = 0;

    tb_fill(small, sizeof(small), 1);
    tb_fill(big, 3000, 2);
    post(&r, MD_ANY_SOURCE, &x, sizeof(int), MD_ANY_TAG, CTX);
    send_msg(&s[0], small, sizeof(small), -5, CTX, 0);
    send_msg(&s[1], big, 3000, -6, CTX, 0);          /* above eager_limit */
    cr_assert_eq(tb_wait(&dev, &s[1], 5), 0);
    cr_assert_eq(tb_host_log.sysmsgs, 2);
    cr_assert_eq(tb_host_log.last_sys_tag, -6);
    cr_assert_eq(tb_host_log.last_sys_size, 3000);
    cr_assert_eq(tb_host_log.sys_checksum,
                 tb_checksum(small, sizeof(small)) + tb_checksum(big, 3000));
    cr_assert_not(done(&r));
    cr_assert_eq(dev.sd.counters.sysmsgs_sent, 2);
    cr_assert_eq(dev.sd.counters.sysmsgs_recvd, 2);
    cr_assert_eq(dev.sd.counters.msgs_sent, 0);
    cr_assert_eq(tb_host_log.arrived, 0, "no ordering for system messages");
    cr_assert_eq(dev.ops.recv_cancel(&dev.sd, &r), MD_OK);
    free(big);
}

Test(match, sync_send_waits_for_the_match)
{
    md_request_t s, r;
    int v = 3, x = 0;

    send_msg(&s, &v, sizeof(int), 2, CTX, MD_ENV_F_SYNC);
    progress_some();
    cr_assert_not(done(&s), "unmatched: a sync send is not complete");
    post(&r, 0, &x, sizeof(int), 2, CTX);
    cr_assert(done(&r));
    cr_assert_eq(tb_wait(&dev, &s, 5), 0);
    cr_assert_eq(x, 3);
}

Test(match, send_to_rank_off_node_has_no_route)
{
    md_request_t s;
    int v = 0;

    tb_send_req(&dev, &s, 0, &v, sizeof(v), 1, CTX, 0);
    s.peer_world = 3;
    cr_assert_eq(dev.ops.isend(&dev.sd, &s), MD_ERR_NO_ROUTE);
}

Test(match, attributes)
{
    cr_assert_eq(dev.ops.caps, MD_CAP_LOCAL_ONLY);
    cr_assert_eq(dev.sd.attr.eager_limit, 1024);
    cr_assert_null(dev.ops.send_cancel);
}

/* Two instances with one job id on one node collide while the first one's
 * segment is still linked (between init and connect): O_EXCL refuses the
 * second instead of sharing a segment.  Another job id does not collide. */
Test(segment, same_job_id_collides_other_job_does_not, .timeout = 30)
{
    tb_shared_t *a = tb_create(1), *b = tb_create(1);
    md_subdev_ops_t ops;
    md_subdev_t sd;
    md_subdev_init_args_t args;
    uint8_t card[MD_CARD_MAX];
    size_t card_len;
    tb_dev_t db, dc;

    cr_assert_eq(shm_LoadDevicePtr(&ops), MD_OK);
    memset(&sd, 0, sizeof(sd));
    sd.ops = &ops;
    sd.host = &tb_host;
    memset(&args, 0, sizeof(args));
    args.world_size = 1;
    args.node_of_rank = a->node_of_rank;
    args.node_name = "n0";
    args.job_id = a->job_id;
    cr_assert_eq(ops.init(&sd, &args, card, &card_len), MD_OK);
    cr_assert_eq(tb_count_segments(a), 1);

    snprintf(b->job_id, sizeof(b->job_id), "%s", a->job_id);
    tb_log_level = -2;   /* the expected error need not be printed */
    cr_assert_eq(tb_dev_open(b, 0, &db, NULL, 1), MD_ERR_IO);
    tb_log_level = -1;
    b->job_id[strlen(b->job_id) - 1] ^= 1;    /* another job id */
    cr_assert_eq(tb_dev_open(b, 0, &dc, NULL, 1), MD_OK);
    cr_assert_eq(tb_count_segments(b), 0, "a one-rank job unlinks at connect");
    cr_assert_eq(tb_dev_close(&dc), MD_OK);
    cr_assert_eq(ops.finalize(&sd), MD_OK);
    cr_assert_eq(tb_count_segments(a), 0, "finalize unlinks what is left");
    tb_destroy(a);
    tb_destroy(b);
}

Test(segment, names_carry_job_node_and_rank)
{
    char n1[SHM_SEG_NAME_MAX], n2[SHM_SEG_NAME_MAX], n3[SHM_SEG_NAME_MAX];

    cr_assert_eq(shm_segment_name(n1, sizeof(n1), "job/1", "node a", 3), 0);
    cr_assert_eq(strncmp(n1, "/mdshm-job_1-node_a-3-", 22), 0, "%s", n1);
    cr_assert_eq(shm_segment_name(n2, sizeof(n2), "job_1", "node_a", 3), 0);
    cr_assert_str_neq(n1, n2, "the hash keeps reduced spellings apart");
    cr_assert_eq(shm_segment_name(n3, sizeof(n3), "job/1", "node b", 3), 0);
    cr_assert_str_neq(n1, n3);
    cr_assert_null(strchr(n1 + 1, '/'));
}

/* The NUMA placement path (hwloc sees two nodes here) must not get in the
 * way of a working subdevice, whether the binding succeeds or not. */
Test(segment, numa_binding_with_two_nodes, .timeout = 30)
{
    tb_shared_t *t = tb_create(1);
    tb_dev_t d;
    md_request_t s, r;
    int v = 1, x = 0;

    setenv("HWLOC_SYNTHETIC", "node:2 pu:1", 1);
    cr_assert_eq(tb_dev_open(t, 0, &d, NULL, 0), MD_OK);
    unsetenv("HWLOC_SYNTHETIC");
    tb_recv_req(&r, 0, &x, sizeof(x), 1, CTX);
    cr_assert_eq(d.ops.irecv(&d.sd, &r), MD_OK);
    tb_send_req(&d, &s, 0, &v, sizeof(v), 1, CTX, 0);
    cr_assert_eq(d.ops.isend(&d.sd, &s), MD_OK);
    cr_assert_eq(tb_wait(&d, &r, 5), 0);
    cr_assert_eq(x, 1);
    cr_assert_eq(tb_dev_close(&d), MD_OK);
    tb_destroy(t);
}

/* Without settings the ring shrinks as the node fills (a segment stays
 * near 4 MiB) and the eager limit follows what the ring takes. */
Test(segment, automatic_ring_size_and_eager_limit)
{
    static const struct { int ranks; size_t ring, eager; } cases[] = {
        { 2, 256u << 10, 32u << 10 },
        { 16, 256u << 10, 32u << 10 },
        { 20, 128u << 10, 32u << 10 },
        { 40, 64u << 10, 32648 },   /* what a 64 KiB ring takes */
    };
    int32_t node_of_rank[40] = { 0 };

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        md_subdev_ops_t ops;
        md_subdev_t sd;
        md_subdev_init_args_t args;
        uint8_t card[MD_CARD_MAX];
        size_t card_len;
        char job[64];
        size_t ring;

        cr_assert_eq(shm_LoadDevicePtr(&ops), MD_OK);
        memset(&sd, 0, sizeof(sd));
        sd.ops = &ops;
        sd.host = &tb_host;
        memset(&args, 0, sizeof(args));
        snprintf(job, sizeof(job), "tshmauto%dx%zu", (int)getpid(), k);
        args.world_size = cases[k].ranks;
        args.node_of_rank = node_of_rank;
        args.node_name = "n0";
        args.job_id = job;
        cr_assert_eq(ops.init(&sd, &args, card, &card_len), MD_OK);
        ring = shm_ctx(&sd)->tun.ring_size;
        cr_assert_eq(ops.finalize(&sd), MD_OK);     /* before any assert */
        cr_assert_eq(ring, cases[k].ring, "%d ranks", cases[k].ranks);
        cr_assert_eq(sd.attr.eager_limit, cases[k].eager, "%d ranks: %zu",
                     cases[k].ranks, sd.attr.eager_limit);
    }
}
