/*
 * mdc_rails_model.c - when striping over several networks pays, and each
 * rail's weight (mdc_rails.h, doc/mdconfig.md "Rails").
 *
 * Rail i costs a_i + b_i * s for s bytes (its line for the size class of
 * s; trunk latencies are ignored).  Alone the fastest rail takes
 * single(s) = min_i (a_i + b_i s); striped, every rail gets a share in
 * proportion to its bandwidth 1/b_i, so all finish together after
 * striped(s) = max_i a_i + s / sum_i (1/b_i).  Striping starts at the
 * smallest power of two s with striped(s) <= 0.8 single(s): below that
 * the gain does not pay for the pieces' extra messages.
 */
#include <float.h>
#include <string.h>

#include "mdc_rails.h"

/* A bandwidth of 0 fs per byte is infinite. */
static double stripe_time(const mdc_line_t *l, size_t n, size_t s)
{
    double max_a = 0, inv_b = 0;
    int inf = 0;

    for (size_t i = 0; i < n; i++) {
        if ((double)l[i].a > max_a)
            max_a = (double)l[i].a;
        if (l[i].b == 0)
            inf = 1;
        else
            inv_b += 1.0 / (double)l[i].b;
    }
    return inf ? max_a : max_a + (double)s / inv_b;
}

static double single_time(const mdc_line_t *l, size_t n, size_t s)
{
    double best = DBL_MAX;

    for (size_t i = 0; i < n; i++) {
        double t = (double)l[i].a + (double)l[i].b * (double)s;
        if (t < best)
            best = t;
    }
    return best;
}

/* The lines of nets at size s. */
static void lines_at(const mdc_graph_t *g, const int *nets, size_t n,
                     size_t s, mdc_line_t *l)
{
    size_t k = mdc_graph_class_of(g, s), nn = g->desc->num_networks;

    for (size_t i = 0; i < n; i++)
        l[i] = g->net_line[k * nn + (size_t)nets[i]];
}

/* MB/s (10^6 bytes per second) from fs per byte, rounded, in range. */
static uint32_t weight_of(uint64_t byte_fs)
{
    if (byte_fs == 0)
        return MD_NODECONF_RAIL_WEIGHT_MAX;
    double mbs = 1e9 / (double)byte_fs + 0.5;     /* rounded below */
    return mbs < 1 ? 1 : mbs > MD_NODECONF_RAIL_WEIGHT_MAX
                   ? MD_NODECONF_RAIL_WEIGHT_MAX : (uint32_t)mbs;
}

int mdc_rails_model(const mdc_graph_t *g, const int *nets, size_t n,
                    mdc_rail_set_t *out)
{
    mdc_line_t l[MD_NODECONF_RAILS_MAX];
    size_t s;

    if (n < 2 || n > MD_NODECONF_RAILS_MAX)
        return 0;
    for (s = MDC_RAILS_FROM_MIN; s <= MDC_RAILS_FROM_MAX; s *= 2) {
        lines_at(g, nets, n, s, l);
        if (stripe_time(l, n, s) <= 0.8 * single_time(l, n, s))
            break;
    }
    if (s > MDC_RAILS_FROM_MAX)
        return 0;
    memset(out, 0, sizeof(*out));       /* the unused entries too */
    out->from = s;
    out->num = n;
    /* by descending weight; insertion keeps the given order on ties */
    for (size_t i = 0; i < n; i++) {
        uint32_t w = weight_of(l[i].b);
        size_t at = i;
        while (at > 0 && out->weight[at - 1] < w) {
            out->weight[at] = out->weight[at - 1];
            out->net[at] = out->net[at - 1];
            at--;
        }
        out->weight[at] = w;
        out->net[at] = nets[i];
    }
    return 1;
}
