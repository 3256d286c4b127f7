/* test_subdev.c - subdev-sci through its SDI ops: ranks are processes on
 * emulated nodes, each node with its own bridge firmware. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sci_impl.h"
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

/* Every rank sends to every peer its SCI serves (sj_job_t.serves), in all
 * three protocols, at once; with two ranks on each of two nodes (ranks of a
 * node share its bridge), and with twelve on three. */
static int served(const sj_rank_t *r, int p)
{
    return p != r->rank && (r->job->serves == NULL || r->job->serves(r->job, r->rank, p));
}

static int rank_alltoall(sj_rank_t *r)
{
    static const size_t lens[] = { 100, 4000, 20000, 200000 };
    uint8_t *out[SJ_MAX_RANKS], *in[SJ_MAX_RANKS];
    md_request_t sreq[SJ_MAX_RANKS], rreq[SJ_MAX_RANKS];
    int np = r->job->n;

    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        size_t n = lens[l];
        for (int p = 0; p < np; p++) {
            out[p] = malloc(n);
            in[p] = calloc(1, n);
            sj_fill(out[p], n, (unsigned)(r->rank * 100 + p + l * 10000));
        }
        for (int p = 0; p < np; p++)
            if (served(r, p) && sj_recv(r, &rreq[p], p, 3, in[p], n) != MD_OK)
                return 1;
        for (int p = 0; p < np; p++)
            if (served(r, p) && sj_send(r, &sreq[p], p, 3, out[p], n, 0) != MD_OK)
                return 2;
        for (int p = 0; p < np; p++) {
            if (!served(r, p))
                continue;
            if (sj_wait(r, &sreq[p], 20000) != MD_OK || sj_wait(r, &rreq[p], 20000) != MD_OK)
                return 3;
            if (rreq[p].status.size != n ||
                !sj_check(in[p], n, (unsigned)(p * 100 + r->rank + l * 10000)))
                return 4;
        }
        for (int p = 0; p < np; p++) {
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

/* Three nodes in a line, as MPICH's suite runs them forwarded: the bridge
 * of node 1 reaches nodes 0 and 2, which reach only node 1. */
static int line_serves(const sj_job_t *j, int me, int peer)
{
    return abs(j->node[me] - j->node[peer]) == 1;
}

/* Blocks only for the served peers, and the defaults sized for a 4 MiB
 * ATT (sci_size.h: 4 ranks a node, 11 others, step 4). */
static int rank_served_blocks(sj_rank_t *r)
{
    const sci_ctx_t *ctx = r->sd.priv;
    const sci_params_t *p = &ctx->lay.p;
    uint32_t want = 0;

    for (int q = 0; q < r->job->n; q++)
        want += served(r, q) ? 1u : 0u;
    if (ctx->lay.nblocks != want) {
        fprintf(stderr, "rank %d: %u blocks for %u served peers\n", r->rank, ctx->lay.nblocks, want);
        return 20;
    }
    if (p->ring_size != 16384 || ctx->eager_limit != 8192 || p->chunk != 8192 || p->nmsg != 16) {
        fprintf(stderr, "rank %d: ring %u eager %llu chunk %u nmsg %u\n", r->rank, p->ring_size,
                (unsigned long long)ctx->eager_limit, p->chunk, p->nmsg);
        return 21;
    }
    return rank_alltoall(r);
}

Test(subdev, alltoall_twelve_ranks_blocks_for_served_peers_only, .timeout = 150)
{
    sj_job_t j = { .n = 12, .timeout_s = 130, .serves = line_serves,
                   .params = { { "peer_check_ms", "0" } }, .nparams = 1 };

    for (int i = 0; i < j.n; i++)
        j.node[i] = i % 3;                        /* cyclic, as the suite maps them */
    setenv("MULTIDEV_SCI_UP_ATT", "1024", 1);     /* the bridges' ATT too */
    RUN(j, rank_served_blocks);
    unsetenv("MULTIDEV_SCI_UP_ATT");
}
