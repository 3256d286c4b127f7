/* mdc_envelope.c - lower envelope of a few cost lines (mdc_envelope.h). */
#include "mdc_envelope.h"

#define NEVER ((mdc_u128)1 << 64)     /* beyond every size */

/* x before y when their costs are equal. */
static int sec_less(const mdc_env_cand_t *x, const mdc_env_cand_t *y,
                    mdc_env_ties_t *ties)
{
    if (x->relays != y->relays)
        return x->relays < y->relays;
    if (x->rank != y->rank)
        return x->rank < y->rank;
    ties->any = 1;
    if (x->group != y->group)
        ties->groups = 1;
    return x->tie < y->tie;
}

/* Does candidate x beat y at size s? */
static int beats(const mdc_env_cand_t *x, const mdc_env_cand_t *y, size_t s,
                 mdc_env_ties_t *ties)
{
    mdc_u128 cx = x->a + x->b * s, cy = y->a + y->b * s;

    return cx != cy ? cx < cy : sec_less(x, y, ties);
}

/* First size >= from at which x beats the current best y, or NEVER. */
static mdc_u128 overtakes(const mdc_env_cand_t *x, const mdc_env_cand_t *y,
                          size_t from, mdc_env_ties_t *ties)
{
    if (x->b >= y->b)
        return NEVER;
    if (x->a < y->a)
        return from;
    mdc_u128 m = y->b - x->b, da = x->a - y->a, s = da / m;
    if (da % m != 0 || !sec_less(x, y, ties))
        s++;
    return s < from ? from : s;
}

int mdc_envelope_walk(const mdc_env_cand_t *c, size_t n, size_t lo,
                      size_t hi, mdc_env_ties_t *ties, mdc_env_piece_fn fn,
                      void *ctx)
{
    for (size_t s = lo;;) {
        size_t best = 0;
        mdc_u128 next = NEVER;
        for (size_t i = 1; i < n; i++)
            if (beats(&c[i], &c[best], s, ties))
                best = i;
        for (size_t i = 0; i < n; i++)
            if (i != best && s < SIZE_MAX) {
                mdc_u128 o = overtakes(&c[i], &c[best], s + 1, ties);
                if (o < next)
                    next = o;
            }
        size_t end = next - 1 >= hi ? hi : (size_t)(next - 1);
        int rc = fn(ctx, s, end, best);
        if (rc != 0)
            return rc;
        if (end >= hi)
            return 0;
        s = end + 1;
    }
}
