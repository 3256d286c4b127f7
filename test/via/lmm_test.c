/* lmm_test.c - locked memory management (P8, seed-000 §2.12, §4.8):
 * T-LMM-1 nested locks, T-LMM-2 the five intersection cases and P8 Fig. 2
 * (one area across several LMAs), T-LMM-3 invariants after random
 * sequences, T-LMM-4 holes; pinning happens once per newly locked area and
 * is released only by the last unlock; real mlock shows in VmLck. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "via/via_lmm.h"

#define P 4096ull

typedef struct pinlog {
    int      pins, unpins;
    uint64_t pinned_bytes;
} pinlog_t;

static int fake_pin(void *arg, uint64_t start, uint64_t end, int pin)
{
    pinlog_t *l = arg;
    if (pin) {
        l->pins++;
        l->pinned_bytes += end - start;
    } else {
        l->unpins++;
        l->pinned_bytes -= end - start;
    }
    return 0;
}

static via_lmm_t m;
static pinlog_t pl;

static void setup(void)
{
    memset(&pl, 0, sizeof(pl));
    via_lmm_init(&m, fake_pin, &pl, NULL);
}

static void teardown(void)
{
    via_lmm_fini(&m);
}

TestSuite(lmm, .init = setup, .fini = teardown, .timeout = 10);

/* LMA i is [s, e) pages with count c */
static void expect_lma(size_t i, uint64_t s, uint64_t e, uint32_t c)
{
    cr_assert_lt(i, m.n, "only %zu LMAs", m.n);
    cr_assert_eq(m.lma[i].start, s * P, "LMA %zu start %#llx", i, (unsigned long long)m.lma[i].start);
    cr_assert_eq(m.lma[i].end, e * P, "LMA %zu end %#llx", i, (unsigned long long)m.lma[i].end);
    cr_assert_eq(m.lma[i].count, c, "LMA %zu count %u", i, m.lma[i].count);
}

Test(lmm, t_lmm_1_same_range_twice_stays_locked_until_last_unlock)
{
    cr_assert_eq(via_lmm_lock(&m, 10 * P, 20 * P), 0);
    cr_assert_eq(via_lmm_lock(&m, 10 * P, 20 * P), 0);
    cr_assert_eq(pl.pins, 1, "pinned once, counted twice");
    expect_lma(0, 10, 20, 2);
    cr_assert_eq(via_lmm_unlock(&m, 10 * P, 20 * P), 0);
    cr_assert_eq(via_lmm_count(&m, 15 * P), 1);
    cr_assert_eq(pl.unpins, 0, "still registered once: stays pinned");
    cr_assert_eq(via_lmm_check(&m, 10 * P, 20 * P), 0);
    cr_assert_eq(via_lmm_unlock(&m, 10 * P, 20 * P), 0);
    cr_assert_eq(pl.unpins, 1);
    cr_assert_eq(m.n, 0);
    cr_assert_eq(pl.pinned_bytes, 0);
    cr_assert_eq(via_lmm_unlock(&m, 10 * P, 20 * P), -1, "no third unlock");
}

Test(lmm, case_front)
{
    via_lmm_lock(&m, 10 * P, 20 * P);
    via_lmm_lock(&m, 5 * P, 15 * P);          /* starts before, ends inside */
    cr_assert_eq(m.cases[VIA_LMM_FRONT], 1);
    expect_lma(0, 5, 10, 1);
    expect_lma(1, 10, 15, 2);
    expect_lma(2, 15, 20, 1);
    cr_assert_eq(pl.pinned_bytes, 15 * P);
}

Test(lmm, case_rear)
{
    via_lmm_lock(&m, 10 * P, 20 * P);
    via_lmm_lock(&m, 15 * P, 25 * P);         /* starts inside, ends after */
    cr_assert_eq(m.cases[VIA_LMM_REAR], 1);
    cr_assert_eq(m.cases[VIA_LMM_DISJOINT], 2, "the first area and the tail after the LMA");
    expect_lma(0, 10, 15, 1);
    expect_lma(1, 15, 20, 2);
    expect_lma(2, 20, 25, 1);
}

Test(lmm, case_middle)
{
    via_lmm_lock(&m, 10 * P, 20 * P);
    via_lmm_lock(&m, 12 * P, 14 * P);         /* strictly inside */
    cr_assert_eq(m.cases[VIA_LMM_MIDDLE], 1);
    expect_lma(0, 10, 12, 1);
    expect_lma(1, 12, 14, 2);
    expect_lma(2, 14, 20, 1);
    cr_assert_eq(pl.pins, 1, "splitting pins nothing new");
}

Test(lmm, case_total)
{
    via_lmm_lock(&m, 10 * P, 20 * P);
    via_lmm_lock(&m, 5 * P, 25 * P);          /* covers it */
    cr_assert_eq(m.cases[VIA_LMM_TOTAL], 1);
    expect_lma(0, 5, 10, 1);
    expect_lma(1, 10, 20, 2);
    expect_lma(2, 20, 25, 1);
    cr_assert_eq(pl.pinned_bytes, 20 * P);
}

Test(lmm, case_disjoint_and_adjacent)
{
    via_lmm_lock(&m, 10 * P, 20 * P);
    via_lmm_lock(&m, 30 * P, 40 * P);
    via_lmm_lock(&m, 20 * P, 30 * P);         /* touches both, overlaps neither */
    cr_assert_eq(m.cases[VIA_LMM_DISJOINT], 3);
    expect_lma(0, 10, 20, 1);
    expect_lma(1, 20, 30, 1);
    expect_lma(2, 30, 40, 1);
    cr_assert_eq(via_lmm_unlock(&m, 20 * P, 30 * P), 0);
    cr_assert_eq(via_lmm_check(&m, 10 * P, 40 * P), -1, "a hole now");
}

Test(lmm, edge_cases_equal_bounds)
{
    via_lmm_lock(&m, 10 * P, 20 * P);
    via_lmm_lock(&m, 10 * P, 15 * P);         /* start == lma->start: no empty LMA */
    via_lmm_lock(&m, 15 * P, 20 * P);         /* end == lma->end */
    cr_assert_eq(m.n, 2);
    expect_lma(0, 10, 15, 2);
    expect_lma(1, 15, 20, 2);
    cr_assert_eq(via_lmm_valid(&m), 0);
    for (size_t i = 0; i < m.n; i++)
        cr_assert_lt(m.lma[i].start, m.lma[i].end, "no empty interval");
}

Test(lmm, p8_fig2_one_area_across_several_lmas)
{
    /* LMA1..LMA4 with gaps; the new area starts inside LMA1 and ends inside
     * LMA4: LMA1 and LMA4 are split, LMA2 and LMA3 counted up, the gaps
     * become new LMAs. */
    via_lmm_lock(&m, 0 * P, 10 * P);
    via_lmm_lock(&m, 20 * P, 30 * P);
    via_lmm_lock(&m, 40 * P, 50 * P);
    via_lmm_lock(&m, 60 * P, 70 * P);
    int pins = pl.pins;
    via_lmm_lock(&m, 5 * P, 65 * P);
    cr_assert_eq(m.cases[VIA_LMM_REAR], 1);
    cr_assert_eq(m.cases[VIA_LMM_TOTAL], 2);
    cr_assert_eq(m.cases[VIA_LMM_FRONT], 1);
    cr_assert_eq(pl.pins - pins, 3, "three gaps pinned");
    expect_lma(0, 0, 5, 1);
    expect_lma(1, 5, 10, 2);
    expect_lma(2, 10, 20, 1);
    expect_lma(3, 20, 30, 2);
    expect_lma(4, 30, 40, 1);
    expect_lma(5, 40, 50, 2);
    expect_lma(6, 50, 60, 1);
    expect_lma(7, 60, 65, 2);
    expect_lma(8, 65, 70, 1);
    cr_assert_eq(via_lmm_check(&m, 0, 70 * P), 0);
    /* Undo the big area: back to the four LMAs' pages (split, count 1). */
    cr_assert_eq(via_lmm_unlock(&m, 5 * P, 65 * P), 0);
    cr_assert_eq(via_lmm_check(&m, 10 * P, 20 * P), -1);
    cr_assert_eq(via_lmm_count(&m, 5 * P), 1);
    cr_assert_eq(via_lmm_count(&m, 62 * P), 1);
    cr_assert_eq(pl.pinned_bytes, 40 * P);
}

Test(lmm, t_lmm_3_random_sequences_leave_nothing)
{
    uint64_t r[200][2];
    unsigned seed = 12345;

    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 200; i++) {
            uint64_t s = rand_r(&seed) % 500, len = 1 + rand_r(&seed) % 60;
            r[i][0] = s * P + (uint64_t)(rand_r(&seed) % P);   /* unaligned too */
            r[i][1] = r[i][0] + len * P - (uint64_t)(rand_r(&seed) % P);
            cr_assert_eq(via_lmm_lock(&m, r[i][0], r[i][1]), 0);
            cr_assert_eq(via_lmm_valid(&m), 0, "sorted, disjoint, counts > 0");
            cr_assert_eq(via_lmm_check(&m, r[i][0], r[i][1]), 0);
        }
        /* unlock in a shuffled order */
        for (int i = 199; i > 0; i--) {
            int j = rand_r(&seed) % (i + 1);
            uint64_t t0 = r[i][0], t1 = r[i][1];
            r[i][0] = r[j][0];
            r[i][1] = r[j][1];
            r[j][0] = t0;
            r[j][1] = t1;
        }
        for (int i = 0; i < 200; i++) {
            cr_assert_eq(via_lmm_unlock(&m, r[i][0], r[i][1]), 0, "round %d unlock %d", round, i);
            cr_assert_eq(via_lmm_valid(&m), 0);
        }
        cr_assert_eq(m.n, 0, "no LMA remains");
        cr_assert_eq(pl.pinned_bytes, 0, "every pinned byte released (pieces may differ)");
    }
}

Test(lmm, t_lmm_4_hole_is_an_error)
{
    via_lmm_lock(&m, 10 * P, 20 * P);
    via_lmm_lock(&m, 21 * P, 30 * P);
    cr_assert_eq(via_lmm_check(&m, 10 * P, 20 * P), 0);
    cr_assert_eq(via_lmm_check(&m, 10 * P, 30 * P), -1);
    cr_assert_eq(via_lmm_check(&m, 0, 5 * P), -1);
    cr_assert_eq(via_lmm_unlock(&m, 12 * P, 18 * P), -1, "never locked as such");
    cr_assert_eq(via_lmm_count(&m, 15 * P), 1, "a refused unlock changes nothing");
}

static long vm_locked_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb;
}

Test(lmm_real, mlock_held_until_the_last_unlock, .timeout = 10)
{
#ifdef __SANITIZE_ADDRESS__
    cr_skip_test("AddressSanitizer makes mlock a no-op");
#endif
    via_lmm_t r;
    /* a mapping of our own: VmLck counts exactly its locked pages */
    void *mem = mmap(NULL, 64 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(mem, MAP_FAILED);
    memset(mem, 1, 64 * P);
    via_lmm_init(&r, NULL, NULL, NULL);
    long before = vm_locked_kb();
    uint64_t a = (uint64_t)(uintptr_t)mem;
    cr_assert_eq(via_lmm_lock(&r, a, a + 32 * P), 0);
    if (!via_lmm_pinning_real(&r)) {
        via_lmm_fini(&r);
        munmap(mem, 64 * P);
        cr_skip_test("mlock is refused here (RLIMIT_MEMLOCK): pinning is emulated");
    }
    cr_assert_eq(via_lmm_lock(&r, a + 16 * P, a + 48 * P), 0);
    long d1 = vm_locked_kb() - before;
    cr_assert_eq(via_lmm_unlock(&r, a, a + 32 * P), 0);
    long d2 = vm_locked_kb() - before;
    cr_assert_eq(via_lmm_unlock(&r, a + 16 * P, a + 48 * P), 0);
    long d3 = vm_locked_kb() - before;
    via_lmm_fini(&r);
    munmap(mem, 64 * P);
    cr_assert_eq(d1, 48 * 4, "48 pages locked (VmLck grew by %ld kB)", d1);
    cr_assert_eq(d2, 32 * 4, "the overlap stays locked (%ld kB)", d2);
    cr_assert_eq(d3, 0, "all released (%ld kB)", d3);
}
