/*
 * mdc_route_runs.c - a node's routes as runs of alike nodes (mdc_prun_t).
 *
 * Most nodes of a large cluster reach long stretches of consecutive peers
 * the same way (the same first network and next hop at the same sizes),
 * and the files say so with peer ranges.  Kept as runs, a node's routes
 * take a few entries instead of one per peer, and a node whose routes are
 * copied from another's (mdc_route_copy.c) gets them in time proportional
 * to the runs, not to N.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mdc_mem.h"
#include "mdc_route_int.h"

/* Equal as far as the files and the problem counts see (path keys aside). */
static int alike_seg(const mdc_rseg_t *x, const mdc_rseg_t *y)
{
    return x->lo == y->lo && x->hi == y->hi &&
           x->dec.first_net == y->dec.first_net &&
           x->dec.next_hop == y->dec.next_hop &&
           x->dec.relays == y->dec.relays && x->dec.nosys == y->dec.nosys;
}

static int alike(const mdc_rseg_t *x, size_t nx, const mdc_rseg_t *y,
                 size_t ny)
{
    if (nx != ny)
        return 0;
    for (size_t i = 0; i < nx; i++)
        if (!alike_seg(&x[i], &y[i]))
            return 0;
    return 1;
}

void mdc_routes_clear_runs(mdc_routes_t *out)
{
    out->num_runs = 0;
    out->num_rseg = 0;
}

int mdc_routes_push_run(mdc_routes_t *out, uint32_t lo, uint32_t hi,
                        const mdc_rseg_t *seg, size_t num)
{
    mdc_prun_t *last = out->num_runs > 0 ? &out->run[out->num_runs - 1]
                                         : NULL;

    /* the source's own run stands alone: its file line is another one */
    if (last != NULL && last->hi + 1 == lo && lo != out->src &&
        last->lo != out->src &&
        alike(mdc_rseg_at(out->rseg, last->seg), last->num, seg, num)) {
        last->hi = hi;
        return 0;
    }
    if (mdc_reserve((void **)&out->run, &out->cap_runs, out->num_runs + 1,
                    sizeof(*out->run)) != 0 ||
        mdc_reserve((void **)&out->rseg, &out->cap_rseg, out->num_rseg + num,
                    sizeof(*out->rseg)) != 0)
        return -1;
    if (num > 0)
        memcpy(&out->rseg[out->num_rseg], seg, num * sizeof(*seg));
    out->run[out->num_runs++] = (mdc_prun_t){ lo, hi,
                                              (uint32_t)out->num_rseg,
                                              (uint32_t)num };
    out->num_rseg += num;
    return 0;
}

int mdc_routes_make_runs(mdc_routes_t *out, uint32_t num_hosts)
{
    mdc_routes_clear_runs(out);
    for (uint32_t d = 0; d < num_hosts; d++)
        if (mdc_routes_push_run(out, d, d, mdc_rseg_at(out->seg, out->first[d]),
                                out->first[d + 1] - out->first[d]) != 0)
            return -1;
    return 0;
}

const mdc_prun_t *mdc_routes_run_of(const mdc_routes_t *routes, uint32_t d)
{
    _Static_assert(offsetof(mdc_prun_t, lo) == 0, "mdc_run_index reads lo first");
    return &routes->run[mdc_run_index(routes->run, routes->num_runs, sizeof(*routes->run), d)];
}
