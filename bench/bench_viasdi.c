/* bench_viasdi.c - subdev-via driven through its SDI ops by two forked
 * ranks on two emulated nodes (test/via's harness): ping-pong latency,
 * streaming with a window of outstanding sends, and NetPIPE's peak
 * bandwidth (P6 measured MPI/Pro with NetPIPE): size / (round trip / 2),
 * the best over 64 kB .. 4 MB. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "via_bench.h"
#include "via_harness.h"

static const bench_opts_t *g_o;
static int g_netpipe;
static double *g_out;   /* [0] half rtt, [1] bw, [2] peak, [3] peak size */

static int wait_req(vh_rank_t *r, md_request_t *q)
{
    return vh_wait(r, q, 60000) == MD_OK ? 0 : -1;
}

/* Round trips of n bytes; the half round trip in us. */
static double pingpong(vh_rank_t *r, uint8_t *buf, size_t n, int iters, int tag)
{
    int peer = 1 - r->rank, warm = iters / 10 + 2;
    md_request_t s, q;
    double t0 = 0;

    for (int i = -warm; i < iters; i++) {
        if (i == 0)
            t0 = bench_now_us();
        if (r->rank == 0) {
            vh_recv(r, &q, peer, tag, buf, n);
            vh_send(r, &s, peer, tag, buf, n, 0);
            if (wait_req(r, &s) || wait_req(r, &q))
                return -1;
        } else {
            vh_recv(r, &q, peer, tag, buf, n);
            if (wait_req(r, &q))
                return -1;
            vh_send(r, &s, peer, tag, buf, n, 0);
            if (wait_req(r, &s))
                return -1;
        }
    }
    return (bench_now_us() - t0) / iters / 2;
}

static int sdi_rank(vh_rank_t *r)
{
    const bench_opts_t *o = g_o;
    int peer = 1 - r->rank;
    size_t max = o->bw_size > (4u << 20) ? o->bw_size : (4u << 20);
    uint8_t *buf = calloc(1, max);
    md_request_t s, q;

    double h = pingpong(r, buf, o->lat_size, o->iters, 1);
    if (h < 0)
        return 1;
    if (r->rank == 0)
        g_out[0] = h;
    vh_barrier(r);

    size_t count = o->bw_total / o->bw_size;
    int w = o->window;
    md_request_t *reqs = calloc((size_t)w, sizeof(*reqs));
    double t0 = bench_now_us();
    for (size_t i = 0; i < count; i += (size_t)w) {
        int k = count - i < (size_t)w ? (int)(count - i) : w;
        for (int j = 0; j < k; j++) {
            if (r->rank == 0)
                vh_send(r, &reqs[j], peer, 2, buf, o->bw_size, 0);
            else
                vh_recv(r, &reqs[j], peer, 2, buf, o->bw_size);
        }
        for (int j = 0; j < k; j++)
            if (wait_req(r, &reqs[j]))
                return 2;
    }
    if (r->rank == 1) {
        vh_send(r, &s, peer, 3, buf, 0, 0);
        if (wait_req(r, &s))
            return 3;
    } else {
        vh_recv(r, &q, peer, 3, buf, 0);
        if (wait_req(r, &q))
            return 4;
        g_out[1] = (double)(count * o->bw_size) / (bench_now_us() - t0);
    }
    vh_barrier(r);

    if (g_netpipe) {
        for (size_t n = 64 << 10; n <= (4u << 20); n *= 4) {
            int iters = (int)((32u << 20) / n);
            double hh = pingpong(r, buf, n, iters < 4 ? 4 : iters, 4);
            if (hh < 0)
                return 5;
            double bw = (double)n / hh;
            if (r->rank == 0 && bw > g_out[2]) {
                g_out[2] = bw;
                g_out[3] = (double)n;
            }
        }
    }
    free(reqs);
    free(buf);
    return 0;
}

int bench_via_sdi(const bench_opts_t *o, const char *timing, const char *completion, int netpipe,
                  via_sdi_result_t *res)
{
    /* pinned before init: each node's nicd starts on its rank's CPU */
    vh_job_t j = { .n = 2, .node_of = { 0, 1 }, .timeout_s = 900, .job = "bench-via",
                   .pin = o->pin };
    g_o = o;
    g_netpipe = netpipe;
    g_out = bench_shared(4 * sizeof(double));
    if (g_out == NULL)
        return -1;
    if (timing != NULL)
        j.params[j.nparams++] = (md_param_t){ "timing", timing };
    if (completion != NULL)
        j.params[j.nparams++] = (md_param_t){ "completion", completion };
    if (vh_run(&j, sdi_rank) != 0)
        return -1;
    res->half_rtt_us = g_out[0];
    res->bw_MBs = g_out[1];
    res->peak_MBs = g_out[2];
    res->peak_size = (size_t)g_out[3];
    return 0;
}
