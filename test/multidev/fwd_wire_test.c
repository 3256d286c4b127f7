/*
 * fwd_wire_test.c - a forwarded chunk's header on the wire (md_fwd_wire.c):
 * its two sizes, a round trip of each, and malformed chunks refused.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "md_fwd.h"

static const md_envelope_t env7 = { .src_rank = 3, .src_world = 5, .dst_world = 9,
                                    .tag = -70, .context_id = 0x1234,
                                    .flags = MD_ENV_F_SYNC, .seq = 1ull << 40,
                                    .size = 7 };

/* The system message that carries hlen header bytes and len chunk bytes. */
static md_envelope_t carrier(int32_t hop, size_t hlen, size_t len)
{
    return (md_envelope_t){ .src_world = hop, .dst_world = 9, .tag = MD_SYSTAG_FWD_DATA,
                            .size = hlen + len };
}

Test(fwd_wire, a_whole_message_takes_the_short_header_and_comes_back_the_same)
{
    md_fwd_hdr_t in = { .env = env7, .offset = 0, .len = 7, .hop_src = 4,
                        .flags = MD_FWD_F_NO_CREDITS }, out;
    uint8_t wire[MD_FWD_WIRE_PART + 8];
    size_t n = md_fwd_hdr_pack(&in, wire);
    md_envelope_t c = carrier(4, n, 7);

    cr_assert_eq(n, MD_FWD_WIRE_WHOLE);
    cr_assert_eq(md_fwd_hdr_unpack(&c, wire, &out), MD_FWD_WIRE_WHOLE);
    cr_assert(memcmp(&out.env, &in.env, sizeof(in.env)) == 0, "envelope changed");
    cr_assert_eq(out.offset, 0);
    cr_assert_eq(out.len, 7);
    cr_assert_eq(out.hop_src, 4, "the hop's sender is the carrier's source");
    cr_assert_eq(out.flags, MD_FWD_F_NO_CREDITS);
}

Test(fwd_wire, a_part_carries_size_and_offset)
{
    md_fwd_hdr_t in = { .env = env7, .offset = 4000, .len = 100, .hop_src = 2 }, out;
    uint8_t wire[MD_FWD_WIRE_PART];
    size_t n;

    in.env.size = 1u << 20;
    n = md_fwd_hdr_pack(&in, wire);
    md_envelope_t c = carrier(2, n, 100);
    cr_assert_eq(n, MD_FWD_WIRE_PART);
    cr_assert_eq(md_fwd_hdr_unpack(&c, wire, &out), MD_FWD_WIRE_PART);
    cr_assert_eq(out.env.size, 1u << 20);
    cr_assert_eq(out.offset, 4000);
    cr_assert_eq(out.len, 100);
    cr_assert_eq(out.env.flags, MD_ENV_F_SYNC);
    cr_assert_eq(out.flags, 0);
    /* the first part of a message, cut, is a part too */
    cr_assert_eq(md_fwd_wire_len(0, 100, 200), MD_FWD_WIRE_PART);
}

Test(fwd_wire, chunks_shorter_than_their_header_or_past_their_message_are_refused)
{
    md_fwd_hdr_t in = { .env = env7, .offset = 900, .len = 100 }, out;
    uint8_t wire[MD_FWD_WIRE_PART];
    md_envelope_t c;

    in.env.size = 1000;
    md_fwd_hdr_pack(&in, wire);
    c = carrier(1, MD_FWD_WIRE_WHOLE - 1, 0);
    cr_assert_eq(md_fwd_hdr_unpack(&c, wire, &out), 0, "shorter than the short header");
    c = carrier(1, MD_FWD_WIRE_WHOLE, 8);     /* says part, but 40 bytes only */
    cr_assert_eq(md_fwd_hdr_unpack(&c, wire, &out), 0, "shorter than a part's header");
    c = carrier(1, MD_FWD_WIRE_PART, 101);
    cr_assert_eq(md_fwd_hdr_unpack(&c, wire, &out), 0, "one byte past the message");
    c = carrier(1, MD_FWD_WIRE_PART, 100);
    cr_assert_eq(md_fwd_hdr_unpack(&c, wire, &out), MD_FWD_WIRE_PART, "exactly to its end");
}
