/* bench_via_np.c - NetPIPE's sweep over subdev-via (test/via's harness),
 * so that sci-vs-udp can set SCI's curve beside VIA's under their timing
 * models (P6 Fig. 3: SCI ahead up to about 16 KB, VIA ahead above). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bench_netpipe.h"
#include "sci_bench.h"
#include "via_harness.h"
#include "via_impl.h"

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

static uint64_t via_wakeups(void *r)
{
    return vsd_wakeups(&((vh_rank_t *)r)->sd);
}

static int via_rank(vh_rank_t *r)
{
    static const np_ops_t ops = { .round_trip = via_round_trip, .barrier = via_barrier,
                                  .events = via_wakeups };

    if (v_pin)
        bench_pin(r->rank);
    return np_run(r, r->rank, &ops, v_sizes, v_n, v_budget_ms, v_out) ? 1 : 0;
}

int bench_via_netpipe(const bench_opts_t *o, const via_np_opts_t *vo, const size_t *sizes, int n,
                      int budget_ms, double *rtt_us, double *wakeups)
{
    vh_job_t j = { .n = 2, .node_of = { 0, 1 }, .timeout_s = 1200, .job = "bench-via-np" };
    char eager[32];

    v_sizes = sizes;
    v_n = n;
    v_budget_ms = budget_ms;
    v_pin = o->pin;
    if ((v_out = bench_shared(np_shared_len(n))) == NULL)
        return -1;
    if (vo->timing != NULL)
        j.params[j.nparams++] = (md_param_t){ "timing", vo->timing };
    if (vo->completion != NULL)
        j.params[j.nparams++] = (md_param_t){ "completion", vo->completion };
    if (vo->eager_limit != 0) {
        snprintf(eager, sizeof(eager), "%zu", vo->eager_limit);
        j.params[j.nparams++] = (md_param_t){ "eager_limit", eager };
    }
    if (vh_run(&j, via_rank) != 0)
        return -1;
    memcpy(rtt_us, v_out, (size_t)n * sizeof(double));
    /* both ranks' wake-ups per round trip */
    for (int i = 0; wakeups != NULL && i < n; i++)
        wakeups[i] = v_out[n + i] + v_out[2 * n + i];
    return 0;
}
