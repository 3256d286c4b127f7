/*
 * mdc_envelope.h - the best of a few candidate routes over a range of
 * sizes.
 *
 * Each candidate costs a line a + b*size over the range and carries the
 * rest of a label (relays, rank, tie: see mdc_label_t).  The best one at
 * every size is the lower envelope of the lines, ties broken by the rest;
 * walking it from the low end, the winner changes only where a line with
 * a smaller slope overtakes, which is found exactly.
 *
 * Both routers use it: the one combining hubs' trees (mdc_route.c) and the
 * one on the hub graph (mdc_route_hg.c), for a node's candidates, one per
 * hub it is on.
 */
#ifndef MDC_ENVELOPE_H
#define MDC_ENVELOPE_H

#include "mdc_units.h"

typedef struct mdc_env_cand {
    mdc_u128 a, b;                  /**< cost line (fs; fs per byte) */
    uint32_t relays, rank;
    uint64_t tie;
    uint32_t group;                 /**< candidates of one group keep
                                         their order whatever the first
                                         hop's hash: see tie_used */
} mdc_env_cand_t;

/* Called for each piece [lo, hi] of the range with the index of the
 * winning candidate; nonzero stops the walk and is returned. */
typedef int (*mdc_env_piece_fn)(void *ctx, size_t lo, size_t hi,
                                size_t best);

/* What the tie hashes decided: between candidates of different groups
 * (groups), between any two (any). */
typedef struct mdc_env_ties {
    int groups, any;
} mdc_env_ties_t;

/* Walks [lo, hi] over the n >= 1 candidates, noting in *ties where the
 * tie hashes had to decide. */
int mdc_envelope_walk(const mdc_env_cand_t *c, size_t n, size_t lo,
                      size_t hi, mdc_env_ties_t *ties, mdc_env_piece_fn fn,
                      void *ctx);

#endif /* MDC_ENVELOPE_H */
