/*
 * envelope_wire_test.c - MD_ENVELOPE_FROM_WIRE: every envelope field comes
 * from the like-named member of a wire header, whatever its layout, the
 * flags from env_flags and the size from the caller.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "md_envelope_wire.h"

/* Two protocols' headers: the same members in different orders. */
struct hdr_a {
    int32_t  src_rank, src_world, dst_world, tag;
    uint32_t context_id, env_flags;
    uint64_t seq;
};

struct hdr_b {
    uint64_t seq;
    int32_t  tag, dst_world;
    uint32_t env_flags, context_id;
    int32_t  src_world, src_rank;
};

Test(envelope_wire, fills_every_field_whatever_the_layout)
{
    const struct hdr_a a = { .src_rank = 1, .src_world = 2, .dst_world = 3, .tag = -4,
                             .context_id = 5, .env_flags = MD_ENV_F_SYNC, .seq = 7 };
    const struct hdr_b b = { .src_rank = 1, .src_world = 2, .dst_world = 3, .tag = -4,
                             .context_id = 5, .env_flags = MD_ENV_F_SYNC, .seq = 7 };
    md_envelope_t ea, eb;

    MD_ENVELOPE_FROM_WIRE(&ea, &a, 1u << 20);
    MD_ENVELOPE_FROM_WIRE(&eb, &b, 1u << 20);
    cr_assert_eq(ea.src_rank, 1);
    cr_assert_eq(ea.src_world, 2);
    cr_assert_eq(ea.dst_world, 3);
    cr_assert_eq(ea.tag, -4);
    cr_assert_eq(ea.context_id, 5u);
    cr_assert_eq(ea.flags, MD_ENV_F_SYNC);
    cr_assert_eq(ea.seq, 7u);
    cr_assert_eq(ea.size, 1u << 20);
    cr_assert_eq(memcmp(&ea, &eb, sizeof(ea)), 0);
}
