/* rcache_test.c - subdev-via's registration cache: hits on reuse,
 * entries in use never evicted, one-shot memory evicted before memory
 * that was reused (persistent-request class), least recently used first,
 * eviction when the NIC refuses a registration. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "via_rcache.h"

typedef struct fake_nic {
    int      regs, deregs, refuse_above;   /* refuse when this many are live */
    int      live;
    uint64_t last_dereg;
} fake_nic_t;

static int fake_reg(void *ctx, uint64_t va, uint64_t len, uint32_t flags, uint32_t *h)
{
    fake_nic_t *f = ctx;
    if (f->refuse_above && f->live >= f->refuse_above)
        return -1;
    f->regs++;
    f->live++;
    *h = (uint32_t)(va >> 12);
    return 0;
}

static void fake_dereg(void *ctx, uint64_t va, uint32_t h)
{
    fake_nic_t *f = ctx;
    f->deregs++;
    f->live--;
    f->last_dereg = va;
}

static fake_nic_t nic;
static via_rcache_t c;
#define PG 4096ull
#define BUF(i) ((const void *)(uintptr_t)(0x100000ull * (i)))

static void setup(void)
{
    memset(&nic, 0, sizeof(nic));
    via_rc_backend_t be = { fake_reg, fake_dereg, &nic };
    via_rc_init(&c, &be, 10 * PG);
}

static void teardown(void)
{
    via_rc_fini(&c);
}

TestSuite(rcache, .init = setup, .fini = teardown, .timeout = 10);

Test(rcache, reuse_hits_and_covers_subranges)
{
    via_rc_entry_t *a = via_rc_acquire(&c, BUF(1), 3 * PG, 0, VIA_RC_ONESHOT);
    cr_assert_not_null(a);
    via_rc_release(&c, a);
    via_rc_entry_t *b = via_rc_acquire(&c, (const uint8_t *)BUF(1) + 100, PG, 0, VIA_RC_ONESHOT);
    cr_assert_eq(a, b, "a sub-range of a registration hits");
    cr_assert_eq(nic.regs, 1);
    cr_assert_eq(c.st.hits, 1);
    cr_assert_eq(b->klass, VIA_RC_PERSISTENT, "used twice: promoted");
    via_rc_release(&c, b);
    /* needing RDMA write where the entry has none: a new registration */
    via_rc_entry_t *w = via_rc_acquire(&c, BUF(1), PG, 1, VIA_RC_ONESHOT);
    cr_assert_neq(w, a);
    cr_assert_eq(nic.regs, 2);
}

Test(rcache, one_shot_evicted_before_persistent_and_never_in_use)
{
    /* limit 10 pages: persistent P (3), busy B (3), one-shot O (3) */
    via_rc_entry_t *p = via_rc_acquire(&c, BUF(1), 3 * PG, 0, VIA_RC_PERSISTENT);
    via_rc_release(&c, p);
    via_rc_entry_t *b = via_rc_acquire(&c, BUF(2), 3 * PG, 0, VIA_RC_ONESHOT);
    via_rc_entry_t *o = via_rc_acquire(&c, BUF(3), 3 * PG, 0, VIA_RC_ONESHOT);
    via_rc_release(&c, o);
    /* 4 more pages: over the limit, one entry must go: the one-shot one,
     * although the persistent one is older */
    via_rc_entry_t *n = via_rc_acquire(&c, BUF(4), 2 * PG, 0, VIA_RC_ONESHOT);
    cr_assert_not_null(n);
    cr_assert_eq(c.st.evicted_oneshot, 1);
    cr_assert_eq(c.st.evicted_persistent, 0);
    cr_assert_eq(nic.last_dereg, (uint64_t)(uintptr_t)BUF(3));
    /* still over: next the persistent one, never the busy one */
    via_rc_entry_t *n2 = via_rc_acquire(&c, BUF(5), 4 * PG, 0, VIA_RC_ONESHOT);
    cr_assert_not_null(n2);
    cr_assert_eq(c.st.evicted_persistent, 1);
    cr_assert_eq(nic.last_dereg, (uint64_t)(uintptr_t)BUF(1));
    cr_assert_eq(b->refs, 1, "the busy entry is untouched");
    via_rc_release(&c, b);
    via_rc_release(&c, n);
    via_rc_release(&c, n2);
}

Test(rcache, nic_refusal_evicts_least_recently_used_unused)
{
    via_rcache_t big;
    via_rc_backend_t be = { fake_reg, fake_dereg, &nic };
    via_rc_init(&big, &be, 0);                  /* no byte limit */
    nic.refuse_above = 3;
    via_rc_entry_t *e[3];
    for (int i = 0; i < 3; i++) {
        e[i] = via_rc_acquire(&big, BUF(10 + i), PG, 0, VIA_RC_ONESHOT);
        cr_assert_not_null(e[i]);
    }
    via_rc_release(&big, e[1]);
    via_rc_release(&big, e[0]);
    /* touch e[0] again (and release): e[1] is now the least recently used,
     * but e[0] was promoted, so e[1] (one-shot) goes first either way */
    via_rc_release(&big, via_rc_acquire(&big, BUF(10), PG, 0, VIA_RC_ONESHOT));
    via_rc_entry_t *x = via_rc_acquire(&big, BUF(20), PG, 0, VIA_RC_ONESHOT);
    cr_assert_not_null(x);
    cr_assert_eq(nic.last_dereg, (uint64_t)(uintptr_t)BUF(11));
    /* everything left is in use: refused, nothing evicted */
    via_rc_entry_t *y = via_rc_acquire(&big, BUF(10), PG, 0, VIA_RC_ONESHOT);
    via_rc_entry_t *z = via_rc_acquire(&big, BUF(30), PG, 0, VIA_RC_ONESHOT);
    cr_assert_null(z);
    cr_assert_eq(big.st.refused, 1);
    cr_assert_eq(e[2]->refs, 1);
    via_rc_release(&big, y);
    via_rc_fini(&big);
}
