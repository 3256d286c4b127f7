/* test_size.c - the defaults of the SCI segment's sizes (sci_size.h), the
 * slots of served peers (sci_slots.h), the layout with a block per served
 * peer, and the error for given sizes whose segments the ATT cannot map. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sci_impl.h"

#define ATT_DEF ((uint64_t)SCI_UP_ENTRIES_DEF * SCI_UP_PAGE)   /* 256 MiB */

typedef struct sized {
    sci_params_t p;
    uint32_t     eager;
    sci_layout_t worst;     /* a block for every other rank */
} sized_t;

/* The defaults for a job of world ranks, node_max on the fullest node,
 * with the given fields of in (SCI_AUTO: not given). */
static sized_t size_job(uint32_t world, uint32_t node_max, uint64_t att, sci_params_t in,
                        uint32_t eager)
{
    sci_size_job_t j = { world, node_max, att };
    sized_t s = { .p = in, .eager = eager };

    s.p.world_size = world;
    sci_size_auto(&j, &s.p, &s.eager);
    cr_assert_eq(sci_layout_make(&s.p, world - 1, &s.worst), MD_OK);
    return s;
}

static sci_params_t nothing_given(void)
{
    return (sci_params_t){ .inline_max = SCI_AUTO, .ring_size = SCI_AUTO, .nmsg = SCI_AUTO,
                           .nrdv = 64, .chunk = SCI_AUTO, .nchunk = 2, .nstage = 4 };
}

/* What the declared defaults were before sizing, for small jobs. */
Test(size, small_jobs_keep_the_full_defaults)
{
    sized_t s = size_job(4, 2, ATT_DEF, nothing_given(), SCI_AUTO);

    cr_assert_eq(s.p.ring_size, 256u << 10);
    cr_assert_eq(s.eager, 128u << 10);
    cr_assert_eq(s.p.chunk, 128u << 10);
    cr_assert_eq(s.p.nmsg, 64);
    cr_assert_eq(s.p.inline_max, 560);
}

/* Rings shrink as the world and the nodes grow; each job's fullest node,
 * with a block for every other rank, stays within 3/4 of the ATT. */
Test(size, defaults_shrink_until_the_fullest_node_fits)
{
    static const struct { uint32_t world, node_max, ring, chunk, nmsg; } cases[] = {
        { 4, 2, 256u << 10, 128u << 10, 64 },
        { 16, 8, 256u << 10, 128u << 10, 64 },
        { 72, 24, 32u << 10, 16u << 10, 32 },      /* MPICH's darray_pack over 3 nodes */
        { 96, 32, 16u << 10, 8u << 10, 16 },
        { 128, 32, 16u << 10, 8u << 10, 16 },
        { 256, 32, 8u << 10, 4u << 10, 8 },
    };

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        sized_t s = size_job(cases[k].world, cases[k].node_max, ATT_DEF, nothing_given(),
                             SCI_AUTO);

        cr_expect_eq(s.p.ring_size, cases[k].ring, "world %u: ring %u", cases[k].world,
                     s.p.ring_size);
        cr_expect_eq(s.p.chunk, cases[k].chunk, "world %u: chunk %u", cases[k].world, s.p.chunk);
        cr_expect_eq(s.p.nmsg, cases[k].nmsg, "world %u: nmsg %u", cases[k].world, s.p.nmsg);
        cr_expect_eq(s.eager, s.p.ring_size / 2 < (128u << 10) ? s.p.ring_size / 2 : 128u << 10);
        cr_expect_leq(sci_size_node(cases[k].node_max, s.worst.size), ATT_DEF / 4 * 3,
                      "world %u", cases[k].world);
    }
}

/* Over a grid of jobs: the invariants sci_params checks hold, the default
 * transmit window (8192 entries) takes an eager message, rings never grow
 * with the world, and the fullest node fits wherever the smallest step does. */
Test(size, every_job_keeps_the_invariants)
{
    sci_params_t smallest = nothing_given();

    smallest.ring_size = 4096;
    smallest.chunk = 4096;
    smallest.nmsg = 8;
    for (uint32_t node_max = 1; node_max <= 32; node_max++) {
        uint32_t last_ring = UINT32_MAX;
        for (uint32_t world = node_max > 1 ? node_max : 2; world <= 256; world++) {
            sized_t s = size_job(world, node_max, ATT_DEF, nothing_given(), SCI_AUTO);
            sized_t least = size_job(world, node_max, ATT_DEF, smallest, SCI_AUTO);

            cr_assert(s.p.inline_max <= s.eager && s.eager <= s.p.ring_size);
            cr_assert_geq(s.p.chunk, 4096u);
            cr_assert_geq(s.p.nmsg, 8u);
            cr_assert_leq(2 + sci_sqe_slots(SCI_OP_STORE, s.eager), 8192u);
            cr_assert_leq(s.p.ring_size, last_ring, "world %u, %u a node", world, node_max);
            last_ring = s.p.ring_size;
            if (sci_size_node(node_max, least.worst.size) <= ATT_DEF / 4 * 3)
                cr_assert_leq(sci_size_node(node_max, s.worst.size), ATT_DEF / 4 * 3,
                              "world %u, %u a node", world, node_max);
        }
    }
}

/* A larger ATT keeps larger rings. */
Test(size, a_larger_att_keeps_larger_rings)
{
    sized_t def = size_job(72, 24, ATT_DEF, nothing_given(), SCI_AUTO);
    sized_t big = size_job(72, 24, ATT_DEF * 8, nothing_given(), SCI_AUTO);

    cr_assert_gt(big.p.ring_size, def.p.ring_size);
    cr_assert_eq(big.p.ring_size, 256u << 10);
}

/* A given size wins; what is not given fits around it. */
Test(size, given_sizes_win)
{
    sci_params_t in = nothing_given();
    sized_t s;

    in.ring_size = 1u << 20;
    s = size_job(72, 24, ATT_DEF, in, SCI_AUTO);
    cr_assert_eq(s.p.ring_size, 1u << 20);
    cr_assert_eq(s.eager, 128u << 10);

    /* a given eager limit: the automatic ring holds one such message */
    s = size_job(256, 32, ATT_DEF, nothing_given(), 100000);
    cr_assert_eq(s.eager, 100000);
    cr_assert_geq(s.p.ring_size, 100000u);

    /* a given small eager limit: inline_max follows it */
    s = size_job(4, 2, ATT_DEF, nothing_given(), 256);
    cr_assert_eq(s.p.inline_max, 256);
    cr_assert_eq(s.p.ring_size, 256u << 10);
}

/* ------------------------------------------------------------ slots */

Test(slots, served_peers_in_rank_order)
{
    uint8_t serves[20] = { 0 }, map[3];
    int32_t want = 0;

    for (int r = 0; r < 20; r++)
        serves[r] = r % 3 == 1;
    serves[4] = 1;                                /* me: never a block */
    cr_assert_eq(sci_slots_map_len(20), 3);
    cr_assert_eq(sci_slots_map(map, serves, 20, 4, 0), 6);
    for (int32_t r = 0; r < 20; r++) {
        if (r % 3 == 1 && r != 4)
            cr_assert_eq(sci_slot_of(map, r), want++, "rank %d", r);
        else
            cr_assert_eq(sci_slot_of(map, r), -1, "rank %d", r);
    }
}

Test(slots, no_serves_is_every_other_rank_and_all_is_the_rank)
{
    uint8_t map[2];

    cr_assert_eq(sci_slots_map(map, NULL, 10, 3, 0), 9);
    cr_assert_eq(sci_slot_of(map, 2), 2);
    cr_assert_eq(sci_slot_of(map, 3), -1);
    cr_assert_eq(sci_slot_of(map, 9), 8);
    cr_assert_eq(sci_slots_map(map, NULL, 10, 3, 1), 10);
    for (int32_t r = 0; r < 10; r++)
        cr_assert_eq(sci_slot_of(map, r), r);
}

/* Blocks follow one another on pages; a block's tx part lies between its
 * info structs and its ring; the segment grows with the blocks only. */
Test(slots, layout_has_a_block_per_slot)
{
    sized_t s = size_job(72, 24, ATT_DEF, nothing_given(), SCI_AUTO);
    sci_layout_t l24, l0;

    cr_assert_eq(sci_layout_make(&s.p, 24, &l24), MD_OK);
    cr_assert_eq(sci_layout_make(&s.p, 0, &l0), MD_OK);
    cr_assert_eq(l24.block % 4096, 0);
    cr_assert_eq(l24.block_base % 4096, 0);
    cr_assert_geq(l24.tx_part, l24.rx_info + (uint64_t)s.p.nmsg * l24.info_size);
    cr_assert_leq(l24.tx_part + l24.tx_len, l24.rx_ring);
    cr_assert_geq(l24.rx_staging, l24.rx_ring + s.p.ring_size);
    cr_assert_leq(l24.rx_staging + (uint64_t)s.p.nchunk * s.p.chunk, l24.block);
    cr_assert_eq(l24.size - l0.size, 24 * l24.block);
    cr_assert_eq(sci_rx_block(&l24, 1) - sci_rx_block(&l24, 0), l24.block);
    cr_assert_eq(sci_layout_make(&s.p, 73, &l24), MD_ERR_CONFIG);   /* more blocks than ranks */
}

/* ------------------------------------------- the error at init */

static char said[1024];

static void keep_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    va_list ap;

    (void)sd;
    if (level != MD_LOG_ERROR)
        return;
    va_start(ap, fmt);
    vsnprintf(said, sizeof(said), fmt, ap);
    va_end(ap);
}

MD_LOAD_DEVICE_PTR(sci);

/* 72 ranks, 24 a node, a ring of 1m given: the node's segments cannot fit
 * the ATT; init says so before it attaches to any bridge. */
Test(size, given_sizes_that_cannot_fit_fail_naming_them)
{
    static int32_t node_of_rank[72];
    static uint8_t serves[72];
    md_subdev_ops_t ops;
    md_sdi_host_t host = { .log = keep_log };
    md_subdev_t sd = { .ops = &ops, .host = &host };
    md_param_t params[] = { { "ring_size", "1m" } };
    uint8_t card[MD_CARD_MAX];
    size_t card_len = 0;

    for (int r = 0; r < 72; r++) {
        node_of_rank[r] = r % 3;
        serves[r] = r % 3 != 1;             /* node b's SCI reaches a and c */
    }
    md_subdev_init_args_t a = {
        .world_rank = 1, .world_size = 72, .node_of_rank = node_of_rank, .my_node = 1,
        .num_nodes = 3, .node_name = "b", .job_id = "tsize", .job_key = 1,
        .serves = serves, .role = MD_ROLE_GLOBAL, .params = params, .num_params = 1,
    };
    snprintf(sd.name, sizeof(sd.name), "sci");
    cr_assert_eq(sci_LoadDevicePtr(&ops), MD_OK);
    cr_assert_eq(ops.init(&sd, &a, card, &card_len), MD_ERR_CONFIG);
    cr_assert_not_null(strstr(said, "MULTIDEV_SCI_RING_SIZE (ring_size) = 1048576"), "%s", said);
    cr_assert_not_null(strstr(said, "MULTIDEV_SCI_UP_ATT = 65536 pages"), "%s", said);
    cr_assert_not_null(strstr(said, "24 ranks of node b"), "%s", said);
    cr_assert_eq(ops.finalize(&sd), MD_OK);
}
