/* bench_sci.c - subdev-sci driven through its SDI ops by two forked ranks
 * on two emulated nodes (each node its own bridge firmware, nicd), with the
 * job harness of test/sci: ping-pong, windowed streaming, and NetPIPE's
 * smallest-round-trip sweep (bench_netpipe.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bench_netpipe.h"
#include "sci_bench.h"
#include "sci_job.h"

static const bench_opts_t *g_o;
static double *g_out;               /* shared with the ranks */
static const size_t *g_sizes;
static int g_nsizes, g_budget_ms;

static int wait_ok(sj_rank_t *r, md_request_t *q)
{
    return sj_wait(r, q, 60000) == MD_OK ? 0 : -1;
}

/* One round trip of n bytes, seen from rank 0. */
static int round_trip(sj_rank_t *r, uint8_t *buf, size_t n)
{
    md_request_t s, q;
    int peer = 1 - r->rank;

    if (r->rank == 0) {
        sj_recv(r, &q, peer, 1, buf, n);
        sj_send(r, &s, peer, 1, buf, n, 0);
        return wait_ok(r, &s) || wait_ok(r, &q);
    }
    sj_recv(r, &q, peer, 1, buf, n);
    if (wait_ok(r, &q))
        return -1;
    sj_send(r, &s, peer, 1, buf, n, 0);
    return wait_ok(r, &s);
}

static int stream(sj_rank_t *r, uint8_t *buf)
{
    const bench_opts_t *o = g_o;
    size_t count = o->bw_total / o->bw_size;
    int w = o->window, peer = 1 - r->rank;
    md_request_t *reqs = calloc((size_t)w, sizeof(*reqs)), s;
    double t0 = bench_now_us();

    for (size_t i = 0; i < count; i += (size_t)w) {
        int k = count - i < (size_t)w ? (int)(count - i) : w;
        for (int j = 0; j < k; j++) {
            if (r->rank == 0)
                sj_send(r, &reqs[j], peer, 2, buf, o->bw_size, 0);
            else
                sj_recv(r, &reqs[j], peer, 2, buf, o->bw_size);
        }
        for (int j = 0; j < k; j++)
            if (wait_ok(r, &reqs[j]))
                return -1;
    }
    /* the last byte is there when the receiver says so */
    if (r->rank == 1) {
        sj_send(r, &s, peer, 3, buf, 0, 0);
        if (wait_ok(r, &s))
            return -1;
    } else {
        sj_recv(r, &s, peer, 3, buf, 0);
        if (wait_ok(r, &s))
            return -1;
        g_out[1] = (double)(count * o->bw_size) / (bench_now_us() - t0);
    }
    free(reqs);
    return 0;
}

static int rank_pp_stream(sj_rank_t *r)
{
    const bench_opts_t *o = g_o;
    uint8_t *buf = calloc(1, o->bw_size > o->lat_size ? o->bw_size : o->lat_size);
    int warm = o->iters / 10 + 10;
    double t0 = 0;

    if (o->pin)
        bench_pin(r->rank);
    for (int i = -warm; i < o->iters; i++) {
        if (i == 0)
            t0 = bench_now_us();
        if (round_trip(r, buf, o->lat_size))
            return 1;
    }
    if (r->rank == 0)
        g_out[0] = (bench_now_us() - t0) / o->iters;
    sj_barrier(r);
    if (stream(r, buf))
        return 2;
    free(buf);
    return 0;
}

static int sj_round_trip(void *r, uint8_t *buf, size_t n)
{
    return round_trip(r, buf, n);
}

static void sj_barrier_op(void *r)
{
    sj_barrier(r);
}

static int rank_netpipe(sj_rank_t *r)
{
    static const np_ops_t ops = { .round_trip = sj_round_trip, .barrier = sj_barrier_op };

    if (g_o->pin)
        bench_pin(r->rank);
    return np_run(r, r->rank, &ops, g_sizes, g_nsizes, g_budget_ms, g_out) ? 1 : 0;
}

static int run(const char *timing, int (*fn)(sj_rank_t *r))
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 1200, .id = "bench-sci" };
    if (timing != NULL)
        j.params[j.nparams++] = (md_param_t){ "timing", timing };
    return sj_run(&j, fn) == 0 ? 0 : -1;
}

int bench_sci(const bench_opts_t *o, const char *timing, bench_result_t *res)
{
    g_o = o;
    if ((g_out = bench_shared(2 * sizeof(double))) == NULL || run(timing, rank_pp_stream) != 0)
        return -1;
    res->rtt_us = g_out[0];
    res->bw_MBs = g_out[1];
    return 0;
}

int bench_sci_netpipe(const bench_opts_t *o, const char *timing, const size_t *sizes, int n,
                      int budget_ms, double *rtt_us)
{
    g_o = o;
    g_sizes = sizes;
    g_nsizes = n;
    g_budget_ms = budget_ms;
    if ((g_out = bench_shared(np_shared_len(n))) == NULL || run(timing, rank_netpipe) != 0)
        return -1;
    memcpy(rtt_us, g_out, (size_t)n * sizeof(double));
    return 0;
}
