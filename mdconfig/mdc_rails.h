/*
 * mdc_rails.h - the rails of every pair of nodes: the networks a large
 * message is striped over (doc/mdconfig.md, "Rails"), written as the
 * node files' rails lines.
 *
 * A network is a rail between s and d when it carries system messages
 * (the stripes travel as such) and joins them directly, without another
 * node: both on one of its segments, or on segments joined by its trunks,
 * or on a link of it between the two.  With at least two rails, the cost
 * model (mdc_rails_model) says from which size striping pays and each
 * rail's weight.
 */
#ifndef MDC_RAILS_H
#define MDC_RAILS_H

#include "mdc_graph.h"

/* Striping sizes tried: the powers of two from 64 KiB to 1 GiB. */
#define MDC_RAILS_FROM_MIN ((size_t)1 << 16)
#define MDC_RAILS_FROM_MAX ((size_t)1 << 30)

/* One rails line: from which size, which networks, their weights; the
 * rails by descending weight, ties in the description's network order. */
typedef struct mdc_rail_set {
    size_t   from;
    size_t   num;
    int      net[MD_NODECONF_RAILS_MAX];
    uint32_t weight[MD_NODECONF_RAILS_MAX];
} mdc_rail_set_t;

/* The cost model: is striping over networks nets[0..n) (2 or more, in the
 * description's order) at least 20% faster than the fastest of them alone
 * for some size from MDC_RAILS_FROM_MIN to MDC_RAILS_FROM_MAX (powers of
 * two)?  1 with *out filled for the smallest such size, else 0. */
int mdc_rails_model(const mdc_graph_t *g, const int *nets, size_t n,
                    mdc_rail_set_t *out);

/* Who is directly connected to whom over which rail networks, computed
 * once per graph; read-only afterwards (shared by the writer threads). */
typedef struct mdc_rails mdc_rails_t;

/* NULL on out of memory. */
mdc_rails_t *mdc_rails_new(const mdc_graph_t *g);
void mdc_rails_free(mdc_rails_t *r);

/* Peers lo..hi (by index) with the same rails line: sets[set - 1], or
 * none (set 0). */
typedef struct mdc_rail_run {
    uint32_t lo, hi;
    uint32_t set;
} mdc_rail_run_t;

/* One source node's rails to every peer, as runs.  Nodes on the same
 * segments of the rail networks (and on no link) have the same rails but
 * to themselves, so the runs of the last source are kept (base, with the
 * source counted as a peer) and the next such source only cuts itself
 * out of them. */
typedef struct mdc_src_rails {
    mdc_rail_run_t *run;            /**< by lo; they cover every node */
    size_t          num_runs, cap_runs;
    mdc_rail_set_t *sets;           /**< distinct lines */
    size_t          num_sets;
    mdc_rail_run_t *base;
    size_t          num_base, cap_base;
    uint32_t        base_src;
    int             base_valid;
} mdc_src_rails_t;

/* 0, or -1 on out of memory.  out is zeroed by the caller before the first
 * call, may be passed again for another source (that is when the runs of
 * the previous one are reused), and is freed with mdc_src_rails_fini. */
int mdc_rails_of_source(const mdc_rails_t *r, uint32_t src,
                        mdc_src_rails_t *out);
void mdc_src_rails_fini(mdc_src_rails_t *out);

/* The run holding peer, and peer's rails line (NULL: none). */
const mdc_rail_run_t *mdc_src_rails_run_of(const mdc_src_rails_t *sr,
                                           uint32_t peer);
const mdc_rail_set_t *mdc_src_rails_set_of(const mdc_src_rails_t *sr,
                                           uint32_t peer);

#endif /* MDC_RAILS_H */
