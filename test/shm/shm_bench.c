/*
 * shm_bench.c - raw performance of the shm subdevice: two forked ranks
 * drive its ops directly (no libmultidev, no MPI).
 *
 *   shm_bench [max_bytes]
 *
 * Prints, per size, the ping-pong latency (half a round trip, us), the
 * streaming bandwidth (windows of 64 sends, MB/s = 10^6 B/s) and the
 * exchange bandwidth (both ranks send one message to each other at once,
 * MB/s per direction).  Data is
 * not verified in the timed loops (test/shm/mp_test does that).  The
 * subdevice reads its tunables from MULTIDEV_SHM_* as usual, e.g.
 *   MULTIDEV_SHM_EAGER_LIMIT=8k MULTIDEV_SHM_CMA=0 ./shm_bench
 * Waits spin SHM_BENCH_SPIN idle polls (default 100000: one core per
 * rank) before they yield; use a small value when ranks share a core.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shm_test_boot.h"

#define BENCH_WINDOW 64
#define BENCH_CTX 3u

typedef struct bench_result {
    double lat_us[40];
    double bw_MBs[40];
    double bidir_MBs[40];
    size_t size[40];
    int    n;
} bench_result_t;

static size_t bench_max = 4u << 20;

static int bench_iters(size_t len, int base)
{
    int it = (int)((64u << 20) / (len + 1024));

    it = it < 20 ? 20 : it;
    return it > base ? base : it;
}

static void bench_sendrecv(tb_dev_t *dev, int send, int peer, void *buf,
                           size_t len, int tag)
{
    md_request_t req;

    if (send) {
        tb_send_req(dev, &req, peer, buf, len, tag, BENCH_CTX, 0);
        if (dev->ops.isend(&dev->sd, &req) != MD_OK)
            exit(2);
    } else {
        tb_recv_req(&req, peer, buf, len, tag, BENCH_CTX);
        if (dev->ops.irecv(&dev->sd, &req) != MD_OK)
            exit(2);
    }
    if (tb_wait(dev, &req, 60) != 0)
        exit(3);
}

static double bench_latency(tb_dev_t *dev, int rank, void *buf, size_t len)
{
    int iters = bench_iters(len, 20000), warm = iters / 10 + 10;
    double t0 = 0;

    for (int i = 0; i < warm + iters; i++) {
        if (i == warm)
            t0 = tb_now();
        bench_sendrecv(dev, rank == 0, 1 - rank, buf, len, 1);
        bench_sendrecv(dev, rank != 0, 1 - rank, buf, len, 1);
    }
    return (tb_now() - t0) * 1e6 / iters / 2;
}

static double bench_bandwidth(tb_dev_t *dev, int rank, void *buf, size_t len)
{
    static md_request_t req[BENCH_WINDOW];
    md_request_t *list[BENCH_WINDOW];
    int iters = bench_iters(len * 16, 200), warm = 2;
    double t0 = 0;
    char ack = 0;

    for (int i = 0; i < warm + iters; i++) {
        if (i == warm)
            t0 = tb_now();
        for (int w = 0; w < BENCH_WINDOW; w++) {
            list[w] = &req[w];
            if (rank == 0) {
                tb_send_req(dev, &req[w], 1, buf, len, 2, BENCH_CTX, 0);
                dev->ops.isend(&dev->sd, &req[w]);
            } else {
                tb_recv_req(&req[w], 0, buf, len, 2, BENCH_CTX);
                dev->ops.irecv(&dev->sd, &req[w]);
            }
        }
        if (tb_wait_all(dev, list, BENCH_WINDOW, 60) != 0)
            exit(3);
        bench_sendrecv(dev, rank == 1, 1 - rank, &ack, 1, 3);
    }
    return (double)len * BENCH_WINDOW * iters / (tb_now() - t0) / 1e6;
}

/* Both ranks send and receive one message at once (a halo exchange);
 * MB/s per direction. */
static double bench_exchange(tb_dev_t *dev, int rank, void *sbuf, void *rbuf,
                             size_t len)
{
    int iters = bench_iters(len, 20000), warm = iters / 10 + 2;
    double t0 = 0;

    for (int i = 0; i < warm + iters; i++) {
        md_request_t s, r;
        md_request_t *list[2] = { &s, &r };

        if (i == warm)
            t0 = tb_now();
        tb_recv_req(&r, 1 - rank, rbuf, len, 4, BENCH_CTX);
        tb_send_req(dev, &s, 1 - rank, sbuf, len, 4, BENCH_CTX, 0);
        if (dev->ops.irecv(&dev->sd, &r) != MD_OK ||
            dev->ops.isend(&dev->sd, &s) != MD_OK)
            exit(2);
        if (tb_wait_all(dev, list, 2, 60) != 0)
            exit(3);
    }
    return (double)len * iters / (tb_now() - t0) / 1e6;
}

static int bench_rank(tb_shared_t *tb, int rank, void *arg)
{
    bench_result_t *res = (bench_result_t *)(void *)tb->scratch;
    uint8_t *buf = malloc(bench_max + 64), *buf2 = malloc(bench_max + 64);
    tb_dev_t dev;
    int k = 0;

    (void)arg;
    /* one rank per core: spin; SHM_BENCH_SPIN=16 for shared cores */
    tb_spin_before_yield = getenv("SHM_BENCH_SPIN") != NULL
                               ? (unsigned)atoi(getenv("SHM_BENCH_SPIN")) : 100000;
    memset(buf, 1, bench_max + 64);
    memset(buf2, 2, bench_max + 64);
    if (tb_dev_open(tb, rank, &dev, NULL, 0) != MD_OK)
        return 1;
    for (size_t len = 0; len <= bench_max && k < 40; len = len ? len * 2 : 1) {
        double lat = bench_latency(&dev, rank, buf, len);
        double bw = len > 0 ? bench_bandwidth(&dev, rank, buf, len) : 0;
        double bidir = len > 0 ? bench_exchange(&dev, rank, buf, buf2, len) : 0;

        if (rank == 0) {
            res->size[k] = len;
            res->lat_us[k] = lat;
            res->bw_MBs[k] = bw;
            res->bidir_MBs[k] = bidir;
            res->n = ++k;
        }
    }
    tb_barrier(tb);
    tb_dev_close(&dev);
    free(buf);
    free(buf2);
    return 0;
}

int main(int argc, char **argv)
{
    tb_shared_t *tb = tb_create(2);
    bench_result_t *res = (bench_result_t *)(void *)tb->scratch;
    const char *eager = getenv("MULTIDEV_SHM_EAGER_LIMIT");
    const char *cma = getenv("MULTIDEV_SHM_CMA");
    const char *ring = getenv("MULTIDEV_SHM_RING_SIZE");

    _Static_assert(sizeof(bench_result_t) <= sizeof(tb->scratch), "scratch");
    if (argc > 1)
        bench_max = strtoull(argv[1], NULL, 0);
    if (tb_run(tb, bench_rank, NULL, 600, NULL) != 0)
        return 1;
    printf("# shm_bench: 2 ranks; eager_limit %s, ring_size %s, cma %s\n",
           eager ? eager : "default", ring ? ring : "default",
           cma ? cma : "default");
    printf("# %10s %12s %12s %12s\n", "bytes", "latency_us", "bw_MBs",
           "exchange_MBs");
    for (int k = 0; k < res->n; k++)
        printf("  %10zu %12.3f %12.1f %12.1f\n", res->size[k], res->lat_us[k],
               res->bw_MBs[k], res->bidir_MBs[k]);
    tb_destroy(tb);
    return 0;
}
