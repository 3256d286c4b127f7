/* wire_cut_test.c - frames larger than a datagram carries on the link:
 * how they are cut (the plan, the iovec slices), put together again from
 * pieces in any order, given up when a piece is lost and newer frames need
 * the room, checked piece by piece (a forged or misfit piece makes no
 * frame), and end to end over loopback with a 1500-byte MTU, with the
 * offloads on, off and under injected loss: every frame that arrives is
 * whole, right and 8-byte aligned. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/nic_fw.h"
#include "core/nic_status.h"
#include "core/nic_wire.h"
#include "test_forge.h"
#include "test_job.h"

static nic_wire_t *opened(nic_wire_t *w, unsigned mtu)
{
    cr_assert_eq(nic_wire_open(w, "127.0.0.1", 0, NULL, NULL), NIC_OK);
    cr_assert_eq(nic_wire_job_add(w, test_jobp(1)), NIC_OK);
    cr_assert_eq(nic_wire_set_mtu(w, mtu), NIC_OK);
    return w;
}

Test(cut, loopback_carries_every_frame_whole)
{
    nic_wire_t w;
    size_t piece;

    opened(&w, 0);
    cr_assert_geq(w.mtu, 16384u, "loopback's MTU was found (%u)", w.mtu);
    cr_assert_eq(nic_wire_cut_plan(&w, NIC_WIRE_MTU, &piece), 1);
    cr_assert_eq(piece, NIC_WIRE_MTU);
    nic_wire_close(&w);
}

Test(cut, a_1500_byte_link_cuts_frames_into_about_equal_pieces)
{
    nic_wire_t w;
    size_t piece;

    opened(&w, 1500);
    cr_assert_eq(w.piece_max, (1500 - NIC_WIRE_IP_UDP_HDR - NIC_WIRE_OVERHEAD) & ~7u);
    cr_assert_eq(nic_wire_cut_plan(&w, w.piece_max, &piece), 1, "a frame that fits");
    cr_assert_eq(nic_wire_cut_plan(&w, w.piece_max + 1, &piece), 2);
    cr_assert_eq(piece % 8, 0);
    cr_assert_lt(piece, w.piece_max, "two equal pieces, not one full and one tiny");
    cr_assert_geq(2 * piece, w.piece_max + 1);
    cr_assert_eq(nic_wire_cut_plan(&w, NIC_WIRE_MTU, &piece), 7);
    cr_assert_leq(piece, w.piece_max);
    cr_assert_lt(6 * piece, NIC_WIRE_MTU, "the last piece holds some of the frame");
    cr_assert_leq(7 * piece - NIC_WIRE_MTU, 7 * 8u, "at most 8 bytes of padding a piece");
    nic_wire_close(&w);
}

Test(cut, the_least_mtu_still_fits_the_largest_frame_and_bad_ones_are_refused)
{
    nic_wire_t w;
    size_t piece;

    opened(&w, 576);
    unsigned n = nic_wire_cut_plan(&w, NIC_WIRE_MTU, &piece);
    cr_assert_leq(n, NIC_WIRE_MAX_PIECES);
    cr_assert_lt((n - 1) * piece, NIC_WIRE_MTU, "the last piece holds some of the frame");
    cr_assert_eq(nic_wire_set_mtu(&w, 575), NIC_ERR_CONFIG);
    cr_assert_eq(nic_wire_set_mtu(&w, 65537), NIC_ERR_CONFIG);
    cr_assert_eq(w.mtu, 576u, "a refused value changes nothing");
    nic_wire_close(&w);
}

Test(cut, slices_of_a_frame_cross_its_iovec_boundaries)
{
    uint8_t a[10], b[5], c[20];
    struct iovec iov[3] = { { a, sizeof(a) }, { b, sizeof(b) }, { c, sizeof(c) } };
    struct iovec out[3];

    cr_assert_eq(nic_wire_iov_slice(iov, 3, 8, 10, out, 3), 3);
    cr_assert(out[0].iov_base == a + 8 && out[0].iov_len == 2);
    cr_assert(out[1].iov_base == b && out[1].iov_len == 5);
    cr_assert(out[2].iov_base == c && out[2].iov_len == 3);
    cr_assert_eq(nic_wire_iov_slice(iov, 3, 15, 20, out, 3), 1);
    cr_assert(out[0].iov_base == c && out[0].iov_len == 20);
    cr_assert_eq(nic_wire_iov_slice(iov, 3, 30, 10, out, 3), -1, "past the frame's end");
    cr_assert_eq(nic_wire_iov_slice(iov, 3, 0, 35, out, 2), -1, "more slices than room");
}

/* --- reassembly, driven with envelopes as nic_wire_auth_open returns them --- */

static nic_wire_env_t piece_env(uint64_t first, unsigned piece, unsigned pieces,
                                size_t frame_len)
{
    nic_wire_env_t e = { .magic = NIC_WIRE_MAGIC, .version = NIC_WIRE_VERSION,
                         .mac = NIC_WIRE_MAC_POLY1305, .piece = (uint8_t)piece,
                         .pieces = (uint8_t)pieces, .frame_len = (uint16_t)frame_len,
                         .job = 7, .sender = 99, .counter = first + piece };
    return e;
}

/* A frame of 2500 bytes in 3 pieces of 840 (the last 820 and 20 of
 * padding), as the sender cuts it. */
enum { FRAME = 2500, PIECES = 3, PIECE = 840 };

/* Adds the frame's pieces in the order given; returns the frame when
 * whole.  padded holds the frame and the last piece's padding. */
static uint8_t *add_pieces(nic_wire_t *w, uint64_t first, const unsigned *order, unsigned n,
                           const uint8_t *padded, size_t *len)
{
    uint8_t *whole = NULL;

    cr_assert_eq(nic_wire_piece_len(FRAME, PIECES), PIECE);
    for (unsigned k = 0; k < n; k++) {
        unsigned p = order[k];
        nic_wire_env_t e = piece_env(first, p, PIECES, FRAME);
        cr_assert_null(whole, "whole before its last piece");
        whole = nic_wire_reasm_add(w, &e, padded + p * PIECE, PIECE, len);
    }
    return whole;
}

static void pattern(uint8_t *f, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        f[i] = (uint8_t)(seed * 17 + i * 13);
}

Test(reasm, pieces_in_any_order_make_the_frame_once)
{
    static const unsigned orders[3][3] = { { 0, 1, 2 }, { 2, 0, 1 }, { 1, 2, 0 } };
    nic_wire_t w;
    uint8_t frame[PIECES * PIECE];

    opened(&w, 1500);
    for (unsigned o = 0; o < 3; o++) {
        size_t len = 0;
        pattern(frame, sizeof(frame), o);
        uint8_t *got = add_pieces(&w, 100 + 10 * o, orders[o], 3, frame, &len);
        cr_assert_not_null(got, "order %u", o);
        cr_assert_eq(len, FRAME);
        cr_assert_eq(memcmp(got, frame, len), 0);
        cr_assert_eq((uintptr_t)got & 7, 0);
        cr_assert(nic_wire_reasm_holds(&w, got));
    }
    cr_assert_eq(w.st.rx_joined, 3);
    cr_assert_eq(w.reasm_handed, 3);
    nic_wire_reasm_release(&w);
    cr_assert_eq(w.reasm_handed, 0);
    for (unsigned i = 0; i < NIC_WIRE_REASM_SLOTS; i++)
        cr_assert_eq(w.reasm[i].job, 0, "slot %u still taken", i);
    nic_wire_close(&w);
}

Test(reasm, a_frame_with_a_lost_piece_is_given_up_for_newer_ones)
{
    static const unsigned two[2] = { 0, 2 }, all[3] = { 0, 1, 2 };
    nic_wire_t w;
    uint8_t frame[PIECES * PIECE];
    size_t len;

    opened(&w, 1500);
    pattern(frame, sizeof(frame), 1);
    cr_assert_null(add_pieces(&w, 10, two, 2, frame, &len), "piece 1 is lost");
    for (unsigned f = 0; f < NIC_WIRE_REASM_SLOTS; f++) {
        unsigned one[1] = { 0 };
        cr_assert_null(add_pieces(&w, 1000 + 10 * f, one, 1, frame, &len));
    }
    cr_assert_eq(w.st.rx_given_up, 1, "the oldest partial frame made room");
    /* the given up frame's late piece starts a frame of its own, which
     * never completes; later frames still do */
    static const unsigned late[1] = { 1 };
    cr_assert_null(add_pieces(&w, 10, late, 1, frame, &len));
    uint8_t *got = add_pieces(&w, 5000, all, 3, frame, &len);
    cr_assert_not_null(got);
    cr_assert_eq(memcmp(got, frame, FRAME), 0);
    nic_wire_close(&w);
}

Test(reasm, pieces_that_do_not_fit_their_frame_make_none)
{
    nic_wire_t w;
    uint8_t buf[NIC_WIRE_MTU] = { 0 };
    size_t len;

    opened(&w, 1500);
    nic_wire_env_t e = piece_env(10, 0, PIECES, FRAME);
    cr_assert_null(nic_wire_reasm_add(&w, &e, buf, PIECE - 8, &len), "a short piece");
    e = piece_env(10, PIECES, PIECES, FRAME);
    cr_assert_null(nic_wire_reasm_add(&w, &e, buf, PIECE, &len), "piece beyond pieces");
    e = piece_env(10, 0, PIECES, NIC_WIRE_MTU + 8);
    cr_assert_null(nic_wire_reasm_add(&w, &e, buf, nic_wire_piece_len(NIC_WIRE_MTU + 8, PIECES),
                                      &len), "larger than the largest frame");
    e = piece_env(10, 3, 4, 24);
    cr_assert_null(nic_wire_reasm_add(&w, &e, buf, 8, &len), "a piece with none of the frame");
    cr_assert_eq(w.st.rx_bad_piece, 4);
    /* pieces of one frame that disagree on its length */
    e = piece_env(20, 0, PIECES, FRAME);
    cr_assert_null(nic_wire_reasm_add(&w, &e, buf, PIECE, &len));
    e = piece_env(20, 1, PIECES, FRAME - 8);
    cr_assert_null(nic_wire_reasm_add(&w, &e, buf, nic_wire_piece_len(FRAME - 8, PIECES), &len));
    cr_assert_eq(w.st.rx_bad_piece, 5);
    /* or on how many pieces there are */
    e = piece_env(30, 0, PIECES, FRAME);
    cr_assert_null(nic_wire_reasm_add(&w, &e, buf, PIECE, &len));
    e = piece_env(30, 1, 4, FRAME);
    e.counter = 31;
    cr_assert_null(nic_wire_reasm_add(&w, &e, buf, nic_wire_piece_len(FRAME, 4), &len));
    cr_assert_eq(w.st.rx_bad_piece, 6);
    cr_assert_eq(w.st.rx_joined, 0);
    nic_wire_close(&w);
}

Test(reasm, a_job_that_ends_takes_its_partial_frames)
{
    static const unsigned one[1] = { 1 };
    nic_wire_t w;
    uint8_t frame[PIECES * PIECE] = { 0 };
    size_t len;
    unsigned taken = 0;

    opened(&w, 1500);
    cr_assert_null(add_pieces(&w, 10, one, 1, frame, &len));
    nic_wire_reasm_forget_job(&w, 7);
    for (unsigned i = 0; i < NIC_WIRE_REASM_SLOTS; i++)
        taken += w.reasm[i].job != 0;
    cr_assert_eq(taken, 0);
    nic_wire_close(&w);
}

/* --- end to end: two wires on loopback that believe the link has 1500 bytes --- */

enum { NFRAMES = 48 };

static size_t frame_len(int i)
{
    static const size_t lens[] = { 4096, 4096, 4096, 9000, 1424, 1425, 33, 4133, 8192, 2049 };
    return lens[i % 10];
}

typedef struct got {
    int n, bad, unaligned;
    int seen[NFRAMES];
} got_t;

static void on_frame(void *arg, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                     size_t len)
{
    got_t *g = arg;
    (void)from;
    (void)job;
    int i = frame[0] | frame[1] << 8;
    if (len < 2 || i >= NFRAMES || len != frame_len(i) || g->seen[i]) {
        g->bad++;
        return;
    }
    g->unaligned += ((uintptr_t)frame & 7) != 0;
    for (size_t k = 2; k < len; k++)
        if (frame[k] != (uint8_t)(i * 31 + k * 7)) {
            g->bad++;
            return;
        }
    g->seen[i] = 1;
    g->n++;
}

static void fill(uint8_t *f, int i)
{
    f[0] = (uint8_t)i;
    f[1] = (uint8_t)(i >> 8);
    for (size_t k = 2; k < frame_len(i); k++)
        f[k] = (uint8_t)(i * 31 + k * 7);
}

static got_t exchange(nic_wire_t *a, nic_wire_t *b, int stable, int expect_all)
{
    static uint8_t frames[NFRAMES][NIC_WIRE_MTU];
    got_t g;

    memset(&g, 0, sizeof(g));
    for (int i = 0; i < NFRAMES; i++) {
        struct iovec iov[2];
        fill(frames[i], i);
        /* the unstable path takes the frame in two pieces of its own */
        iov[0] = (struct iovec){ frames[i], 7 };
        iov[1] = (struct iovec){ frames[i] + 7, frame_len(i) - 7 };
        int rc = stable ? nic_wire_send_stable(a, &b->addr, test_job(1).tag, frames[i],
                                               frame_len(i))
                        : nic_wire_send(a, &b->addr, test_job(1).tag, iov, 2);
        cr_assert_eq(rc, NIC_OK);
    }
    cr_assert_geq(nic_wire_flush_tx(a), 0);
    for (int idle = 0; idle < (expect_all ? 2000 : 50) && g.n < NFRAMES; idle++)
        if (nic_wire_recv(b, 64, on_frame, NULL, &g) == 0)
            usleep(1000);
    return g;
}

static void pair(nic_wire_t *a, nic_wire_t *b, int offload, const nic_fault_t *fault)
{
    cr_assert_eq(nic_wire_open(a, "127.0.0.1", 0, fault, NULL), NIC_OK);
    cr_assert_eq(nic_wire_job_add(a, test_jobp(1)), NIC_OK);
    cr_assert_eq(nic_wire_set_mtu(a, 1500), NIC_OK);
    opened(b, 1500);
    nic_wire_set_offload(a, offload);
    nic_wire_set_offload(b, offload);
}

static unsigned long long cut_frames(void)
{
    unsigned long long n = 0;
    for (int i = 0; i < NFRAMES; i++)
        n += frame_len(i) > (1500 - NIC_WIRE_IP_UDP_HDR - NIC_WIRE_OVERHEAD) / 8 * 8;
    return n;
}

Test(cut_wire, frames_larger_than_a_datagram_arrive_whole_with_offload, .timeout = 30)
{
    nic_wire_t a, b;

    pair(&a, &b, 1, NULL);
    for (int stable = 0; stable < 2; stable++) {
        got_t g = exchange(&a, &b, stable, 1);
        cr_assert_eq(g.bad, 0);
        cr_assert_eq(g.n, NFRAMES, "%s: %d frames of %d", stable ? "stable" : "iov", g.n,
                     NFRAMES);
        cr_assert_eq(g.unaligned, 0);
    }
    cr_assert_eq(a.st.tx_cut, 2 * cut_frames());
    cr_assert_eq(b.st.rx_joined, 2 * cut_frames());
    cr_assert(a.gso, "pieces fit the MTU: segmentation offload stays on");
    cr_assert_geq(a.st.tx_trains, 1, "the pieces of a frame leave as a train");
    cr_assert_eq(b.st.rx_given_up + b.st.rx_bad_piece + b.st.rx_bad_mac, 0);
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(cut_wire, frames_larger_than_a_datagram_arrive_whole_without_offload, .timeout = 30)
{
    nic_wire_t a, b;

    pair(&a, &b, 0, NULL);
    got_t g = exchange(&a, &b, 1, 1);
    cr_assert_eq(g.bad, 0);
    cr_assert_eq(g.n, NFRAMES);
    cr_assert_eq(a.st.tx_trains, 0);
    cr_assert_eq(b.st.rx_joined, cut_frames());
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(cut_wire, under_loss_duplication_and_reordering_what_arrives_is_whole_and_right,
     .timeout = 30)
{
    nic_fault_t f = { .drop = 0.1, .dup = 0.1, .reorder = 0.1, .seed = 42 };
    nic_wire_t a, b;

    pair(&a, &b, 1, &f);
    got_t g = exchange(&a, &b, 1, 0);
    cr_assert_eq(g.bad, 0, "a wrong, short or repeated frame came up");
    cr_assert_gt(a.st.fault_drop, 0);
    cr_assert_lt(g.n, NFRAMES, "some frames lost a piece (seed 42)");
    cr_assert_gt(g.n, 0);
    cr_assert_leq(b.st.rx_joined, (unsigned long long)g.n);
    cr_assert_geq(b.st.rx_joined + (NFRAMES - cut_frames()), (unsigned long long)g.n,
                  "every frame that came up in pieces was counted");
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(cut_wire, a_forged_piece_leaves_no_partial_frame, .timeout = 30)
{
    nic_wire_t b;
    uint8_t dgram[200] = { 0 };
    nic_wire_env_t e = piece_env(1, 0, PIECES, FRAME);
    got_t g;

    opened(&b, 1500);
    e.job = test_job(1).tag;
    memcpy(dgram, &e, sizeof(e));
    cr_assert_eq(test_send_raw(&b.addr, dgram, sizeof(dgram)), NIC_OK);
    memset(&g, 0, sizeof(g));
    for (int idle = 0; idle < 200 && b.st.rx_bad_mac == 0; idle++)
        if (nic_wire_recv(&b, 8, on_frame, NULL, &g) == 0)
            usleep(1000);
    cr_assert_eq(b.st.rx_bad_mac, 1);
    for (unsigned i = 0; i < NIC_WIRE_REASM_SLOTS; i++)
        cr_assert_eq(b.reasm[i].job, 0, "a forged piece took slot %u", i);
    nic_wire_close(&b);
}

static void count_frame(void *arg, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                        size_t len)
{
    (void)from, (void)job, (void)frame;
    ((got_t *)arg)->n += len == 4096;
}

Test(cut_wire, pieces_of_frames_of_one_size_leave_in_long_trains, .timeout = 30)
{
    static uint8_t frame[4096];
    nic_wire_t a, b;
    got_t g;
    size_t piece;

    pair(&a, &b, 1, NULL);
    cr_assert_eq(nic_wire_cut_plan(&a, sizeof(frame), &piece), 3);
    for (int i = 0; i < 40; i++)
        cr_assert_eq(nic_wire_send_stable(&a, &b.addr, test_job(1).tag, frame, sizeof(frame)),
                     NIC_OK);
    cr_assert_geq(nic_wire_flush_tx(&a), 0);
    cr_assert_eq(a.st.tx_frames, 120, "3 datagrams a frame");
    cr_assert_lt(a.st.tx_trains * 3, 40u, "a train carries the pieces of several frames (%llu "
                 "trains)", (unsigned long long)a.st.tx_trains);
    memset(&g, 0, sizeof(g));
    for (int idle = 0; idle < 2000 && b.st.rx_joined < 40; idle++)
        if (nic_wire_recv(&b, 64, count_frame, NULL, &g) == 0)
            usleep(1000);
    cr_assert_eq(b.st.rx_joined, 40);
    cr_assert_eq(g.n, 40);
    nic_wire_close(&a);
    nic_wire_close(&b);
}
