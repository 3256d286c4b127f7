/* bench_sdi.c - subdev-myri driven through its SDI ops by two forked ranks
 * on two emulated nodes (each node its own nicd): ping-pong and streaming
 * with a window of outstanding sends. */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "myri_bench.h"
#include "myri_harness.h"

static const bench_opts_t *g_o;
static double *g_out;   /* [0] rtt, [1] bw */

static int wait_req(mh_rank_t *r, md_request_t *q)
{
    return mh_wait(r, q, 30000) == MD_OK ? 0 : -1;
}

static int sdi_rank(mh_rank_t *r)
{
    const bench_opts_t *o = g_o;
    int peer = 1 - r->rank;
    uint8_t *buf = calloc(1, o->bw_size > o->lat_size ? o->bw_size : o->lat_size);
    md_request_t s, q;
    int warm = o->iters / 10 + 10;
    double t0 = 0;

    if (o->pin)
        bench_pin(r->rank);
    for (int i = -warm; i < o->iters; i++) {
        if (i == 0)
            t0 = bench_now_us();
        if (r->rank == 0) {
            mh_irecv(r, &q, peer, 1, buf, o->lat_size);
            mh_isend(r, &s, peer, 1, buf, o->lat_size, 0);
            if (wait_req(r, &s) || wait_req(r, &q))
                return 1;
        } else {
            mh_irecv(r, &q, peer, 1, buf, o->lat_size);
            if (wait_req(r, &q))
                return 2;
            mh_isend(r, &s, peer, 1, buf, o->lat_size, 0);
            if (wait_req(r, &s))
                return 3;
        }
    }
    if (r->rank == 0)
        g_out[0] = (bench_now_us() - t0) / o->iters;
    mh_barrier(r);

    size_t count = o->bw_total / o->bw_size;
    int w = o->window;
    md_request_t *reqs = calloc((size_t)w, sizeof(*reqs));
    t0 = bench_now_us();
    for (size_t i = 0; i < count; i += (size_t)w) {
        int k = count - i < (size_t)w ? (int)(count - i) : w;
        for (int j = 0; j < k; j++) {
            if (r->rank == 0)
                mh_isend(r, &reqs[j], peer, 2, buf, o->bw_size, 0);
            else
                mh_irecv(r, &reqs[j], peer, 2, buf, o->bw_size);
        }
        for (int j = 0; j < k; j++)
            if (wait_req(r, &reqs[j]))
                return 4;
    }
    /* the last byte has arrived when the receiver says so */
    if (r->rank == 1) {
        mh_isend(r, &s, peer, 3, buf, 0, 0);
        if (wait_req(r, &s))
            return 5;
    } else {
        mh_irecv(r, &q, peer, 3, buf, 0);
        if (wait_req(r, &q))
            return 6;
        g_out[1] = (double)(count * o->bw_size) / (bench_now_us() - t0);
    }
    free(reqs);
    free(buf);
    return 0;
}

int bench_sdi(const bench_opts_t *o, const char *timing, bench_result_t *res)
{
    mh_world_t w = { .n = 2, .node_of_rank = { 0, 1 }, .timeout_s = 600, .job = "bench" };
    g_o = o;
    g_out = bench_shared(2 * sizeof(double));
    if (g_out == NULL)
        return -1;
    if (timing != NULL) {
        w.params[w.nparams++] = (md_param_t){ "timing", timing };
    }
    if (mh_run(&w, sdi_rank) != 0)
        return -1;
    res->rtt_us = g_out[0];
    res->bw_MBs = g_out[1];
    return 0;
}
