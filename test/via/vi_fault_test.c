/* vi_fault_test.c - the wire loses, duplicates, reorders and corrupts
 * frames (fault injection): reliable delivery still delivers every message
 * exactly once, in order, intact (the core's nic_rel under the VI
 * firmware); an unreliable VI delivers at most once and never a corrupted
 * message. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "vi_pair.h"

static vi_pair_t p;

TestSuite(vi_fault, .timeout = 60);

#define MSGS  300
#define DEPTH 16

static void stream(uint32_t level, int *got, int *corrupt, int *dups)
{
    vipl_vi_attr_t at = vi_attr(&p.node[0], level, 0, 0);
    vipl_vi_attr_t bt = vi_attr(&p.node[1], level, 0, 0);
    vipl_vi_t *a, *b;
    vi_buf_t da, db;
    uint8_t seen[MSGS];
    int sent = 0, posted = 0, expect = 0;

    memset(seen, 0, sizeof(seen));
    *got = *corrupt = *dups = 0;
    cr_assert_eq(vi_connect(&p, 0, 1, &at, &bt, NULL, NULL, &a, &b), VIPL_SUCCESS);
    cr_assert_eq(vi_buf_make(&p.node[0], DEPTH * (512 + 8192), 1, 0, 0, &da), VIPL_SUCCESS);
    cr_assert_eq(vi_buf_make(&p.node[1], DEPTH * (512 + 8192), 1, 0, 0, &db), VIPL_SUCCESS);
    uint8_t *abuf = da.mem + DEPTH * 512, *bbuf = db.mem + DEPTH * 512;
    for (posted = 0; posted < DEPTH; posted++) {
        via_desc_t *r = vi_desc(&db, posted);
        vipl_desc_init(r, 0);
        vipl_desc_add_data(r, bbuf + posted * 8192, db.h, 8192);
        cr_assert_eq(vipl_post_recv(b, r, db.h), VIPL_SUCCESS);
    }
    uint64_t end = vi_now_us() + 30000000, last = vi_now_us();
    int outstanding = 0, slot = 0, written_off = 0;
    while ((sent < MSGS || outstanding > 0 ||
            (level != VIA_UNRELIABLE && *got < MSGS)) && vi_now_us() < end) {
        via_desc_t *d;
        /* credits: never more messages on the way than receives posted */
        /* Unreliable: what has not arrived 20 ms after the last arrival is
         * lost, and no longer holds a receive descriptor's place. */
        if (level == VIA_UNRELIABLE && vi_now_us() - last > 20000) {
            written_off = sent - *got - *corrupt;
            last = vi_now_us();
        }
        if (sent < MSGS && outstanding < DEPTH / 2 &&
            sent - (*got + *corrupt + written_off) < DEPTH / 2) {
            via_desc_t *s = vi_desc(&da, slot);
            uint8_t *m = abuf + slot * 8192;
            uint32_t len = level == VIA_UNRELIABLE ? 1000 : 4000 + (sent % 5) * 1000;
            for (uint32_t i = 0; i < len; i++)
                m[i] = (uint8_t)(sent * 31 + i);
            memcpy(m, &sent, sizeof(sent));
            vipl_desc_init(s, 0);
            vipl_desc_add_data(s, m, da.h, len);
            vipl_result_t r = vipl_post_send(a, s, da.h);
            vipl_vi_info_t ia, ib;
            vipl_query_vi(a, &ia);
            vipl_query_vi(b, &ib);
            cr_assert_eq(r, VIPL_SUCCESS, "post %d: %s; states %u/%u async %u/%u", sent,
                         vipl_result_str(r), ia.state, ib.state, ia.async_error, ib.async_error);
            slot = (slot + 1) % DEPTH;
            sent++;
            outstanding++;
        }
        while (vipl_send_done(a, &d) == VIPL_SUCCESS)
            outstanding--;
        while (vipl_recv_done(b, &d) == VIPL_SUCCESS) {
            uint8_t *m = (uint8_t *)(uintptr_t)d->seg[0].ds.data;
            int n;
            memcpy(&n, m, sizeof(n));
            last = vi_now_us();
            if (atomic_load(&d->cs.status) & VIA_STATUS_ERROR_MASK) {
                (*corrupt)++;
            } else if (n < 0 || n >= MSGS) {
                (*corrupt)++;
            } else {
                int ok = 1;
                for (uint32_t i = sizeof(n); i < d->cs.length; i++)
                    ok &= m[i] == (uint8_t)(n * 31 + i);
                *corrupt += !ok;
                *dups += seen[n];
                seen[n] = 1;
                (*got)++;
                if (level != VIA_UNRELIABLE) {
                    cr_assert_eq(n, expect, "in order");
                    expect++;
                }
            }
            vipl_desc_init(d, 0);
            vipl_desc_add_data(d, m, db.h, 8192);
            cr_assert_eq(vipl_post_recv(b, d, db.h), VIPL_SUCCESS);
        }
    }
    /* let stragglers arrive */
    uint64_t drain = vi_now_us() + 300000;
    while (vi_now_us() < drain) {
        via_desc_t *d;
        if (vipl_recv_done(b, &d) == VIPL_SUCCESS)
            (*got)++;
    }
}

Test(vi_fault, reliable_delivery_survives_every_fault)
{
    vi_pair_opts_t o = { .fault = { .drop = 0.05, .dup = 0.05, .reorder = 0.05, .corrupt = 0.05,
                                    .seed = 42 } };
    int got, corrupt, dups;

    setenv("MULTIDEV_VIA_RTO_US", "2000", 1);
    setenv("MULTIDEV_VIA_MTU", "2048", 1);        /* several frames per message */
    cr_assert_eq(vi_pair_start(&p, &o), 0);
    stream(VIA_RELIABLE_DELIVERY, &got, &corrupt, &dups);
    cr_assert_eq(got, MSGS, "every message, exactly once");
    cr_assert_eq(corrupt, 0);
    cr_assert_eq(dups, 0);
    cr_assert_gt(vi_counter(&p, 0, "retransmits") + vi_counter(&p, 1, "retransmits"), 0);
    /* corrupted datagrams fail the wire's MAC before the VI checksum */
    cr_assert_gt(vi_counter(&p, 0, "badmac") + vi_counter(&p, 1, "badmac"), 0);
    vi_pair_stop(&p);
}

Test(vi_fault, unreliable_is_at_most_once_and_never_corrupt)
{
    vi_pair_opts_t o = { .fault = { .drop = 0.2, .corrupt = 0.1, .seed = 7 } };
    int got, corrupt, dups;

    cr_assert_eq(vi_pair_start(&p, &o), 0);
    stream(VIA_UNRELIABLE, &got, &corrupt, &dups);
    cr_assert_lt(got, MSGS, "some were lost");
    cr_assert_gt(got, MSGS / 3);
    cr_assert_eq(corrupt, 0, "a corrupted frame is dropped, never delivered");
    cr_assert_eq(dups, 0);
    vi_pair_stop(&p);
}
