/* test_subdev.c - subdev-sci through its SDI ops: ranks are processes on
 * emulated nodes, each node with its own bridge firmware. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sci_job.h"

#define RUN(job, fn) cr_assert_eq(sj_run(&(job), fn), 0, "a rank failed")

static sj_job_t two_nodes(void)
{
    sj_job_t j = { .n = 2, .node = { 0, 1 }, .timeout_s = 40 };
    return j;
}

/* Sizes around every protocol switch: inline (560), eager (128 KB), and
 * transport chunks (128 KB). */
static const size_t sizes[] = { 0, 1, 8, 559, 560, 561, 4096, 65536, 131071, 131072, 131073,
                                262144, 300001, 1 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static int g_transport_pio;   /* the job runs transport=pio: no DMA at all */

static int rank_pingpong(sj_rank_t *r)
{
    uint8_t *buf = malloc(1 << 20);
    md_request_t req;
    int peer = 1 - r->rank;
    sci_stats_t st;

    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        for (unsigned rep = 0; rep < 3; rep++) {
            unsigned seed = (unsigned)(s * 7 + rep);
            if (r->rank == 0) {
                sj_fill(buf, n, seed);
                if (sj_send(r, &req, peer, 5, buf, n, 0) != MD_OK || sj_wait(r, &req, 5000) != MD_OK)
                    return 1;
                memset(buf, 0, n);
                if (sj_recv(r, &req, peer, 6, buf, n) != MD_OK || sj_wait(r, &req, 5000) != MD_OK)
                    return 2;
                if (req.status.size != n || !sj_check(buf, n, seed))
                    return 3;
            } else {
                if (sj_recv(r, &req, peer, 5, buf, n) != MD_OK || sj_wait(r, &req, 5000) != MD_OK)
                    return 4;
                if (req.status.size != n || req.status.src_rank != 0 || req.status.tag != 5 ||
                    !sj_check(buf, n, seed))
                    return 5;
                if (sj_send(r, &req, peer, 6, buf, n, 0) != MD_OK || sj_wait(r, &req, 5000) != MD_OK)
                    return 6;
            }
        }
    }
    free(buf);
    sj_barrier(r);
    /* The protocols write remote memory and read only their own. */
    if (sj_stats(r, &st) != MD_OK)
        return 7;
    if (st.ep.remote_reads != 0 || st.ep.rx_reads_served != 0)
        return 8;
    if ((g_transport_pio ? st.ep.dma_ops != 0 : st.ep.dma_ops == 0) || st.ep.stores == 0 ||
        st.ep.rx_writes == 0)
        return 9;
    return r->sd.counters.eager_sent > 0 && r->sd.counters.rndv_sent > 0 ? 0 : 10;
}

Test(subdev, pingpong_every_protocol_no_remote_reads, .timeout = 60)
{
    sj_job_t j = two_nodes();
    RUN(j, rank_pingpong);
}

/* The transport's chunks by PIO stores from the user's buffer (ScaMPI's
 * way, and what transport=auto takes under the d310 model): the same bytes
 * arrive, and the DMA engine is never used. */
Test(subdev, pingpong_every_protocol_transport_by_pio, .timeout = 60)
{
    sj_job_t j = two_nodes();
    j.params[j.nparams++] = (md_param_t){ "transport", "pio" };
    g_transport_pio = 1;
    RUN(j, rank_pingpong);
}

/* ------------------------------------------------------------------ */

/* Two ranks on each of two nodes (ranks of a node share its bridge): every
 * rank sends to every other one, in all three protocols, at once. */
static int rank_alltoall(sj_rank_t *r)
{
    static const size_t lens[] = { 100, 20000, 200000 };
    enum { N = 4 };
    uint8_t *out[N], *in[N];
    md_request_t sreq[N], rreq[N];

    for (size_t l = 0; l < 3; l++) {
        size_t n = lens[l];
        for (int p = 0; p < N; p++) {
            out[p] = malloc(n);
            in[p] = calloc(1, n);
            sj_fill(out[p], n, (unsigned)(r->rank * 10 + p + l * 100));
        }
        for (int p = 0; p < N; p++)
            if (p != r->rank && sj_recv(r, &rreq[p], p, 3, in[p], n) != MD_OK)
                return 1;
        for (int p = 0; p < N; p++)
            if (p != r->rank && sj_send(r, &sreq[p], p, 3, out[p], n, 0) != MD_OK)
                return 2;
        for (int p = 0; p < N; p++) {
            if (p == r->rank)
                continue;
            if (sj_wait(r, &sreq[p], 10000) != MD_OK || sj_wait(r, &rreq[p], 10000) != MD_OK)
                return 3;
            if (rreq[p].status.size != n || !sj_check(in[p], n, (unsigned)(p * 10 + r->rank + l * 100)))
                return 4;
        }
        for (int p = 0; p < N; p++) {
            free(out[p]);
            free(in[p]);
        }
    }
    sj_barrier(r);
    return sj_remote_reads(r) == 0 ? 0 : 5;
}

Test(subdev, alltoall_two_ranks_per_node, .timeout = 60)
{
    sj_job_t j = { .n = 4, .node = { 0, 0, 1, 1 }, .timeout_s = 50 };
    RUN(j, rank_alltoall);
}
