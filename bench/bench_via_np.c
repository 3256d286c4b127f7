/* bench_via_np.c - NetPIPE's sweep over subdev-via (test/via's harness),
 * so that sci-vs-udp can set SCI's curve beside VIA's under their timing
 * models (P6 Fig. 3: SCI ahead up to about 16 KB, VIA ahead above). */
#include "config.h"

#include <string.h>

#include "bench_netpipe.h"
#include "sci_bench.h"
#include "via_harness.h"

static const size_t *v_sizes;
static int v_n, v_budget_ms, v_pin;
static double *v_out;

static int vh_ok(vh_rank_t *r, md_request_t *q)
{
    return vh_wait(r, q, 60000) == MD_OK ? 0 : -1;
}

static int via_round_trip(void *arg, uint8_t *buf, size_t n)
{
    vh_rank_t *r = arg;
    md_request_t s, q;
    int peer = 1 - r->rank;

    vh_recv(r, &q, peer, 1, buf, n);
    if (r->rank == 1 && vh_ok(r, &q))
        return -1;
    vh_send(r, &s, peer, 1, buf, n, 0);
    return vh_ok(r, &s) || (r->rank == 0 && vh_ok(r, &q));
}

static void via_barrier(void *r)
{
    vh_barrier(r);
}

static int via_rank(vh_rank_t *r)
{
    static const np_ops_t ops = { via_round_trip, via_barrier };

    if (v_pin)
        bench_pin(r->rank);
    return np_run(r, r->rank, &ops, v_sizes, v_n, v_budget_ms, v_out) ? 1 : 0;
}

int bench_via_netpipe(const bench_opts_t *o, const char *timing, const size_t *sizes, int n,
                      int budget_ms, double *rtt_us)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 }, .timeout_s = 1200, .job = "bench-via-np" };

    v_sizes = sizes;
    v_n = n;
    v_budget_ms = budget_ms;
    v_pin = o->pin;
    if ((v_out = bench_shared(np_shared_len(n))) == NULL)
        return -1;
    if (timing != NULL)
        j.params[j.nparams++] = (md_param_t){ "timing", timing };
    if (vh_run(&j, via_rank) != 0)
        return -1;
    memcpy(rtt_us, v_out, (size_t)n * sizeof(double));
    return 0;
}
