/*
 * mp_test.c - the shm subdevice between forked processes (one rank each),
 * driven through its ops with the fake host of shm_test_boot.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <ltdl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm_impl.h"
#include "shm_test_boot.h"
#include "mp_ranks.h"

TestSuite(mp, .timeout = 120);

TestSuite(module, .timeout = 30);


static int run(tb_shared_t *tb, tb_rank_fn fn, const char *const *params,
               int timeout_s)
{
    int failed = tb_run(tb, fn, (void *)params, timeout_s, NULL);

    cr_assert_eq(failed, 0, "%d rank(s) failed", failed);
    cr_assert_eq(tb_count_segments(tb), 0, "segments left in /dev/shm");
    return failed;
}

/* A job of nprocs ranks on one node running fn to the end. */
static void run_job(int nprocs, tb_rank_fn fn, const char *const *params)
{
    tb_shared_t *tb = tb_create(nprocs);

    cr_assert_not_null(tb);
    run(tb, fn, params, 50);
    tb_destroy(tb);
}

/* ------------------------------------------------------------ ping-pong */

Test(mp, pingpong_eager_and_single_copy, .timeout = 120)
{
    tb_shared_t *tb = tb_create(2);

    run(tb, pingpong_rank, NULL, 100);
    cr_assert_eq(atomic_load(&tb->flags[0]), 1, "CMA works on this machine");
    tb_destroy(tb);
}

Test(mp, pingpong_pipelined_when_cma_is_off, .timeout = 120)
{
    static const char *const params[] = { "cma=0", NULL };
    tb_shared_t *tb = tb_create(2);

    run(tb, pingpong_rank, (void *)params, 100);
    cr_assert_eq(atomic_load(&tb->flags[0]), 2, "pipelined path");
    cr_assert_eq(atomic_load(&tb->flags[1]), 2, "pipelined path");
    tb_destroy(tb);
}

Test(mp, pingpong_small_ring_wraps_and_queues, .timeout = 120)
{
    static const char *const params[] = {
        "ring_size=4k", "eager_limit=1k", "frag_size=1k", "cma=0", NULL };

    run_job(2, pingpong_rank, params);
}

/* Ranks configured differently: rank 0 has a large eager limit and ring,
 * rank 1 a small ring.  Sends towards rank 1 must fit its ring (eager
 * limit cut per peer), and rank 1 must store rank 0's larger eager
 * messages when they arrive unexpected. */
static int mixed_rank(tb_shared_t *tb, int rank, void *arg)
{
    static const size_t sizes[] = { 100, 3000, 5000, 40000, 60000, 200000 };
    const char *const *const *per_rank = arg;
    static uint8_t buf[200000];
    tb_dev_t dev;

    TB_CHECK(tb_dev_open(tb, rank, &dev, per_rank[rank], 0) == MD_OK, "open");
    for (int dir = 0; dir < 2; dir++) {
        int sender = dir;               /* 0 -> 1, then 1 -> 0 */

        if (rank == sender) {
            static md_request_t s[6];
            static uint8_t out[6][200000];
            md_request_t *list[6];

            for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
                tb_fill(out[k], sizes[k], (uint32_t)(dir * 10 + k));
                tb_send_req(&dev, &s[k], 1 - rank, out[k], sizes[k], (int)k, CTX, 0);
                TB_CHECK(dev.ops.isend(&dev.sd, &s[k]) == MD_OK, "isend");
                list[k] = &s[k];
            }
            TB_CHECK(tb_wait_all(&dev, list, 6, 20) == 0, "sends");
        } else {
            double until = tb_now() + 0.2;

            while (tb_now() < until)            /* let them arrive unexpected */
                tb_progress(&dev);
            /* last first: every earlier one must be out of the ring */
            for (size_t k = sizeof(sizes) / sizeof(sizes[0]); k-- > 0;) {
                md_request_t r;

                recv_wait(&dev, 1 - rank, buf, sizeof(buf), (int)k, &r);
                TB_CHECK(r.status.size == sizes[k], "size");
                TB_CHECK(tb_check(buf, sizes[k], (uint32_t)(dir * 10 + k)) == -1,
                         "data of %zu bytes", sizes[k]);
            }
        }
        tb_barrier(tb);
    }
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

Test(mp, ranks_with_different_eager_limits_and_rings, .timeout = 60)
{
    static const char *const big[] = { "eager_limit=60k", "ring_size=256k", NULL };
    static const char *const small[] = { "eager_limit=1k", "ring_size=8k", NULL };
    static const char *const bigring[] = { "eager_limit=1k", "ring_size=256k", NULL };
    const char *const *a[] = { big, small }, *const *b[] = { big, bigring };
    tb_shared_t *tb = tb_create(2);

    run(tb, mixed_rank, (void *)a, 50);
    tb_destroy(tb);
    tb = tb_create(2);
    run(tb, mixed_rank, (void *)b, 50);
    tb_destroy(tb);
}

/* ------------------------------------------------------------ streaming */

Test(mp, window_of_sends_keeps_order_through_a_full_ring, .timeout = 60)
{
    static const char *const params[] = {
        "ring_size=8k", "eager_limit=2k", "frag_size=1k", NULL };
    run_job(2, window_rank, params);
}

/* ------------------------------------------------------------ ANY_SOURCE */

Test(mp, any_source_from_several_senders, .timeout = 60)
{
    run_job(4, any_source_rank, NULL);
}

/* Every rank sends to every other rank at once, sizes across eager,
 * single-copy and (with cma=0) pipelined, and receives with ANY_SOURCE:
 * 8 ranks on a machine that may have 2 cores. */
#define A2A_MSGS 12

static size_t a2a_size(int i)
{
    static const size_t sizes[] = { 0, 8, 200, 5000, 16384, 30000, 100000 };
    return sizes[i % 7];
}

static int alltoall_rank(tb_shared_t *tb, int rank, void *arg)
{
    int n = tb->nprocs, total = A2A_MSGS * (n - 1);
    md_request_t *reqs = calloc((size_t)(2 * total), sizeof(md_request_t));
    md_request_t **list = calloc((size_t)(2 * total), sizeof(md_request_t *));
    uint8_t *out = malloc(100000), *in = malloc((size_t)total * 100000);
    int next[TB_MAX_PROCS] = { 0 }, k = 0;
    tb_dev_t dev;

    TB_CHECK(reqs && list && out && in, "malloc");
    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    memset(out, rank, 100000);
    for (int i = 0; i < total; i++) {
        tb_recv_req(&reqs[k], MD_ANY_SOURCE, in + (size_t)i * 100000, 100000,
                    MD_ANY_TAG, CTX);
        TB_CHECK(dev.ops.irecv(&dev.sd, &reqs[k]) == MD_OK, "irecv");
        list[k] = &reqs[k];
        k++;
    }
    for (int i = 0; i < A2A_MSGS; i++) {
        for (int d = 1; d < n; d++) {
            int dst = (rank + d) % n;

            tb_send_req(&dev, &reqs[k], dst, out, a2a_size(i), i, CTX, 0);
            TB_CHECK(dev.ops.isend(&dev.sd, &reqs[k]) == MD_OK, "isend");
            list[k] = &reqs[k];
            k++;
        }
    }
    TB_CHECK(tb_wait_all(&dev, list, k, 60) == 0, "all-to-all timed out");
    for (int i = 0; i < total; i++) {
        md_recv_status_t *st = &reqs[i].status;
        int src = st->src_rank;
        uint8_t *b = in + (size_t)i * 100000;

        TB_CHECK(src >= 0 && src < n && src != rank, "source %d", src);
        TB_CHECK(st->tag == next[src], "from %d: tag %d before %d", src,
                 (int)st->tag, next[src]);
        TB_CHECK(st->size == a2a_size(st->tag), "size");
        for (size_t j = 0; j < st->size; j++)
            TB_CHECK(b[j] == (uint8_t)src, "data from %d", src);
        next[src]++;
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    free(reqs);
    free(list);
    free(out);
    free(in);
    return 0;
}

Test(mp, all_to_all_eight_ranks_oversubscribed)
{
    static const char *const nocma[] = { "cma=0", "ring_size=16k", NULL };

    run_job(8, alltoall_rank, NULL);
    run_job(8, alltoall_rank, nocma);
}

/* Rank 0 holds rank 1's messages back (arrival_ok = 0) and must still take
 * rank 2's; released, rank 1's arrive in order. */
static _Atomic int *release_flag;

static int hold_rank1(const md_envelope_t *env)
{
    return env->src_world != 1 || atomic_load(release_flag);
}

static int hold_rank(tb_shared_t *tb, int rank, void *arg)
{
    tb_dev_t dev;
    int v;

    release_flag = &tb->flags[0];
    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    if (rank == 0) {
        md_request_t r[6];
        int got[6];

        tb_arrival_hook = hold_rank1;
        tb_barrier(tb);                 /* both senders have sent */
        for (int i = 0; i < 3; i++) {
            recv_wait(&dev, MD_ANY_SOURCE, &got[i], sizeof(int), MD_ANY_TAG, &r[i]);
            TB_CHECK(r[i].status.src_rank == 2, "held sender overtook: %d",
                     (int)r[i].status.src_rank);
        }
        TB_CHECK(tb_host_log.held > 0, "arrival_ok was asked");
        atomic_store(release_flag, 1);
        for (int i = 3; i < 6; i++) {
            recv_wait(&dev, 1, &got[i], sizeof(int), MD_ANY_TAG, &r[i]);
            TB_CHECK(got[i] == i - 3, "order of the held sender: %d", got[i]);
        }
    } else {
        for (v = 0; v < 3; v++)
            send_wait(&dev, 0, &v, sizeof(v), 5, 0);
        tb_barrier(tb);
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

Test(mp, arrival_ok_holds_one_sender_not_the_others, .timeout = 60)
{
    run_job(3, hold_rank, NULL);
}

/* ------------------------------------------------------------ wait_fd */

/* An idle progress thread sleeps on wait_fd(): a message from a peer must
 * make it readable, and one that is already there must not let it sleep. */
static int wait_fd_rank(tb_shared_t *tb, int rank, void *arg)
{
    tb_dev_t dev;
    int v = 42, x = 0;

    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    TB_CHECK(dev.ops.wait_fd != NULL, "no wait_fd");
    if (rank == 1) {
        md_request_t r;
        struct pollfd pfd = { .events = POLLIN };
        double t0;

        tb_recv_req(&r, 0, &x, sizeof(x), 1, CTX);
        TB_CHECK(dev.ops.irecv(&dev.sd, &r) == MD_OK, "irecv");
        tb_progress(&dev);
        pfd.fd = dev.ops.wait_fd(&dev.sd, MD_WAIT_F_SOLE);
        TB_CHECK(pfd.fd >= 0, "wait_fd %d", pfd.fd);
        TB_CHECK(poll(&pfd, 1, 0) == 0, "readable before anything was sent");
        atomic_store(&tb->flags[1], 1);             /* go ahead and send */
        t0 = tb_now();
        TB_CHECK(poll(&pfd, 1, 10000) == 1, "not woken by the message");
        TB_CHECK(tb_now() - t0 < 5, "woken late");
        TB_CHECK(tb_wait(&dev, &r, 10) == 0 && x == 42, "message");
        TB_CHECK(poll(&pfd, 1, 0) == 0, "progress drains the socket");

        /* second round: the message is there before wait_fd */
        atomic_store(&tb->flags[1], 2);
        while (!atomic_load(&tb->flags[0]))
            usleep(1000);
        tb_recv_req(&r, 0, &x, sizeof(x), 2, CTX);
        TB_CHECK(dev.ops.irecv(&dev.sd, &r) == MD_OK, "irecv");
        pfd.fd = dev.ops.wait_fd(&dev.sd, MD_WAIT_F_SOLE);
        TB_CHECK(pfd.fd >= 0 && poll(&pfd, 1, 0) == 1,
                 "slept with a message in the ring");
        TB_CHECK(tb_wait(&dev, &r, 10) == 0, "second message");
    } else {
        while (!atomic_load(&tb->flags[1]))
            usleep(1000);
        usleep(20000);                              /* let it fall asleep */
        send_wait(&dev, 1, &v, sizeof(v), 1, 0);
        while (atomic_load(&tb->flags[1]) != 2)
            usleep(1000);
        send_wait(&dev, 1, &v, sizeof(v), 2, 0);
        atomic_store(&tb->flags[0], 1);
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

Test(mp, wait_fd_wakes_a_sleeping_progress_thread, .timeout = 60)
{
    run_job(2, wait_fd_rank, NULL);
}

/* ------------------------------------------------------------ sync sends */

static int sync_rank(tb_shared_t *tb, int rank, void *arg)
{
    static const size_t sizes[] = { 8, 100000 };
    static uint8_t buf[100000];
    tb_dev_t dev;

    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    for (int k = 0; k < 2; k++) {
        size_t len = sizes[k];

        if (rank == 0) {
            md_request_t s;
            double until = tb_now() + 0.2;

            tb_fill(buf, len, 9);
            tb_send_req(&dev, &s, 1, buf, len, 4, CTX, MD_ENV_F_SYNC);
            TB_CHECK(dev.ops.isend(&dev.sd, &s) == MD_OK, "isend");
            while (tb_now() < until)
                tb_progress(&dev);
            TB_CHECK(!atomic_load(&s.complete), "%zu B sync send completed "
                     "before the receiver posted", len);
            atomic_store(&tb->flags[0], k + 1);     /* go ahead */
            TB_CHECK(tb_wait(&dev, &s, 20) == 0, "sync send never completed");
        } else {
            md_request_t r;
            double until = tb_now() + 20;

            while (atomic_load(&tb->flags[0]) != k + 1 && tb_now() < until) {
                tb_progress(&dev);          /* the message arrives unexpected */
                usleep(1000);
            }
            recv_wait(&dev, 0, buf, len, 4, &r);
            TB_CHECK(tb_check(buf, len, 9) == -1, "data");
        }
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

Test(mp, sync_send_completes_only_once_matched, .timeout = 60)
{
    run_job(2, sync_rank, NULL);
}

/* ------------------------------------------------------------ sysmsgs */

Test(mp, system_messages_small_and_large, .timeout = 60)
{
    static const char *const nocma[] = { "cma=0", NULL };

    run_job(2, sysmsg_rank, NULL);
    run_job(2, sysmsg_rank, nocma);
}

/* ------------------------------------------------------------ cleanup */

static int cleanup_rank(tb_shared_t *tb, int rank, void *arg)
{
    tb_dev_t dev;

    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 1) == MD_OK, "open");
    /* every segment was unlinked by the last peer to map it */
    if (rank == 0)
        TB_CHECK(tb_count_segments(tb) == 0, "segments linked after connect");
    tb_barrier(tb);
    TB_CHECK(dev.ops.ready(&dev.sd) == MD_OK, "ready");
    /* traffic still flows over the unlinked segments */
    if (rank == 0) {
        int v = 5;
        send_wait(&dev, 1, &v, sizeof(v), 1, 0);
    } else if (rank == 1) {
        md_request_t r;
        int v = 0;
        recv_wait(&dev, 0, &v, sizeof(v), 1, &r);
        TB_CHECK(v == 5, "data");
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

Test(mp, segments_unlinked_once_mapped, .timeout = 60)
{
    run_job(3, cleanup_rank, NULL);
}

/* Rank 2 is SIGKILLed while rank 0 waits for it to take a large message
 * and rank 1 waits for a message from it: both requests fail with
 * MD_ERR_PEER_FAILED in bounded time, progress reports it, and nothing is
 * left in /dev/shm. */
static int kill_rank(tb_shared_t *tb, int rank, void *arg)
{
    static uint8_t big[200000];
    tb_dev_t dev;
    md_request_t req, other;
    int x = 0;

    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    if (rank == 2) {
        tb_barrier(tb);
        kill(getpid(), SIGKILL);
        pause();
    }
    if (rank == 0) {
        tb_send_req(&dev, &req, 2, big, sizeof(big), 1, CTX, 0);
        TB_CHECK(dev.ops.isend(&dev.sd, &req) == MD_OK, "isend");
    } else {
        tb_recv_req(&req, 2, &x, sizeof(x), 1, CTX);
        TB_CHECK(dev.ops.irecv(&dev.sd, &req) == MD_OK, "irecv");
    }
    tb_barrier(tb);
    TB_CHECK(tb_wait(&dev, &req, 20) == 0, "not failed after 20 s");
    TB_CHECK(req.status.error == MD_ERR_PEER_FAILED, "status %s",
             md_status_string(req.status.error));
    TB_CHECK(dev.last_progress_error == MD_ERR_PEER_FAILED, "progress said %d",
             dev.last_progress_error);
    /* the survivors still talk to each other */
    if (rank == 0) {
        send_wait(&dev, 1, &x, sizeof(x), 3, 0);
        tb_send_req(&dev, &other, 2, &x, sizeof(x), 1, CTX, 0);
        TB_CHECK(dev.ops.isend(&dev.sd, &other) == MD_ERR_PEER_FAILED,
                 "send to a dead peer");
    } else {
        recv_wait(&dev, 0, &x, sizeof(x), 3, &other);
    }
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

Test(mp, sigkilled_peer_fails_requests_and_leaves_nothing, .timeout = 60)
{
    static const char *const params[] = { "peer_check_ms=20", NULL };
    tb_shared_t *tb = tb_create(3);
    int status[3];
    int failed;

    tb_log_level = -2;   /* the expected "died" errors stay quiet */
    failed = tb_run(tb, kill_rank, (void *)params, 50, status);
    tb_log_level = -1;
    cr_assert_eq(failed, 1, "only the killed rank fails");
    cr_assert(WIFEXITED(status[0]) && WEXITSTATUS(status[0]) == 0);
    cr_assert(WIFEXITED(status[1]) && WEXITSTATUS(status[1]) == 0);
    cr_assert(WIFSIGNALED(status[2]) && WTERMSIG(status[2]) == SIGKILL);
    cr_assert_eq(tb_count_segments(tb), 0, "nothing left after a crash");
    tb_destroy(tb);
}

/* Rank 1 is SIGKILLed after init, before it maps anything: the others'
 * connect fails with MD_ERR_PEER_FAILED, and their finalize together with
 * the last-mapper unlink leaves nothing in /dev/shm. */
static int startup_kill_rank(tb_shared_t *tb, int rank, void *arg)
{
    tb_dev_t dev;
    int rc = tb_dev_open(tb, rank, &dev, arg, 0);

    TB_CHECK(rc == MD_ERR_PEER_FAILED, "connect said %s", md_status_string(rc));
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

Test(mp, crash_during_startup_leaves_nothing, .timeout = 60)
{
    tb_shared_t *tb = tb_create(3);
    int status[3];

    tb->die_after_init = 2;     /* rank 1 */
    tb_log_level = -2;
    cr_assert_eq(tb_run(tb, startup_kill_rank, NULL, 50, status), 1);
    tb_log_level = -1;
    cr_assert(WIFSIGNALED(status[1]) && WTERMSIG(status[1]) == SIGKILL);
    cr_assert_eq(tb_count_segments(tb), 0, "segments left after a start-up crash");
    tb_destroy(tb);
}

/* ------------------------------------------------------------ emulated nodes */

/* Ranks 0,1 on emulated node "ea", ranks 2,3 on "eb", one host, one job,
 * and every rank served: shm must connect only within a node. */
static int nodes_rank(tb_shared_t *tb, int rank, void *arg)
{
    tb_dev_t dev;
    shm_ctx_t *ctx;
    int buddy = rank ^ 1, other = rank ^ 2;
    int v = rank * 10, x = -1;
    md_request_t s, r;

    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 1) == MD_OK, "open");
    ctx = shm_ctx(&dev.sd);
    TB_CHECK(ctx->nlocal == 2, "local ranks: %d", (int)ctx->nlocal);
    TB_CHECK(ctx->local_of_world[other] < 0, "sees the other node");
    TB_CHECK(strstr(ctx->seg_name, rank < 2 ? "-ea-" : "-eb-") != NULL,
             "segment name %s lacks the node name", ctx->seg_name);
    tb_barrier(tb);
    TB_CHECK(dev.ops.ready(&dev.sd) == MD_OK, "ready");

    tb_send_req(&dev, &s, other, &v, sizeof(v), 1, CTX, 0);
    TB_CHECK(dev.ops.isend(&dev.sd, &s) == MD_ERR_NO_ROUTE, "reached the other node");
    /* same tags and context on both nodes at once */
    tb_recv_req(&r, MD_ANY_SOURCE, &x, sizeof(x), MD_ANY_TAG, CTX);
    TB_CHECK(dev.ops.irecv(&dev.sd, &r) == MD_OK, "irecv");
    tb_send_req(&dev, &s, buddy, &v, sizeof(v), 1, CTX, 0);
    TB_CHECK(dev.ops.isend(&dev.sd, &s) == MD_OK, "isend");
    TB_CHECK(tb_wait(&dev, &r, 20) == 0 && tb_wait(&dev, &s, 20) == 0, "wait");
    TB_CHECK(x == buddy * 10, "rank %d got %d", rank, x);
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

Test(mp, emulated_nodes_on_one_host_do_not_see_each_other, .timeout = 60)
{
    tb_shared_t *tb = tb_create(4);

    tb_set_node(tb, 0, 0, "ea");
    tb_set_node(tb, 1, 0, "ea");
    tb_set_node(tb, 2, 1, "eb");
    tb_set_node(tb, 3, 1, "eb");
    run(tb, nodes_rank, NULL, 50);
    tb_destroy(tb);
}

/* ------------------------------------------------------------ the module */

Test(module, loads_with_ltdl_and_exports_only_its_entry_point)
{
    md_subdev_ops_t ops;
    lt_dlhandle h;
    md_load_device_ptr_fn load;

    cr_assert_eq(lt_dlinit(), 0);
    h = lt_dlopenext(SHM_TEST_MODULE_DIR "/libmd_shm");
    cr_assert_not_null(h, "%s", lt_dlerror());
    load = (md_load_device_ptr_fn)(uintptr_t)lt_dlsym(h, "shm_LoadDevicePtr");
    cr_assert_not_null(load);
    cr_assert_null(lt_dlsym(h, "shm_isend"), "internal symbols stay hidden");
    cr_assert_eq(load(&ops), MD_OK);
    cr_assert_eq(ops.abi_version, MD_SDI_ABI_VERSION);
    cr_assert_eq(ops.kit_abi_version, MD_KIT_ABI_VERSION, "built against this tree's kit");
    cr_assert_str_eq(ops.name, "shm");
    cr_assert(ops.init && ops.connect && ops.ready && ops.finalize && ops.isend &&
              ops.irecv && ops.recv_cancel && ops.iprobe && ops.improbe &&
              ops.imrecv && ops.progress);
    lt_dlclose(h);
    lt_dlexit();
}
