/*
 * stripe_test.c - large messages striped over several rails to a node
 * (md_fwd_stripe.c, issue 22 §2), over three test networks between two
 * emulated nodes: tneta and tnetb carry the routes (small messages over
 * tneta, the rest over tnetb), tnet is a rail only.  From 64 KiB on a
 * message to the other node is cut into chunks over all three, in shares
 * 2:1:1 by the rails line's weights, and put together by the receiver's
 * forwarding receiver: every byte checked, MPI order kept against the
 * small messages that take one route, ANY_SOURCE and probes see the whole
 * message, a short buffer truncates, and a rail cut under the stream gives
 * its share (and its chunks not yet acknowledged) to the others.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "forkjob.h"

#define CTX 9
#define FROM 65536

/* TNETA, TNETB, TNET: parameters of those devices (a cut, a hold, or nothing) */
#define CONF3(SELF, PEER, TNETA, TNETB, TNET)                               \
    "multidev-node-config 1\nnode " SELF "\ndevice shm\ndevice tneta" TNETA \
    "\ndevice tnetb" TNETB "\ndevice tnet" TNET "\n"                        \
    "route " SELF " 0 inf shm -\n"                                           \
    "route " PEER " 0 4095 tneta -\nroute " PEER " 4096 inf tnetb -\n"       \
    "arrive " PEER " tneta tnetb\n"                                          \
    "rails " PEER " 65536 tneta=100 tnetb=50 tnet=50\n"
#define CONF(SELF, PEER, TNETB, TNET) CONF3(SELF, PEER, "", TNETB, TNET)

static const char *const nodes[] = { "a", "b" };
static const char *const confs[][2] = {
    { "a", CONF("a", "b", "", "") }, { "b", CONF("b", "a", "", "") }, { NULL, NULL },
};
/* a's tnet link is cut after 5 of its chunks */
static const char *const cut_confs[][2] = {
    { "a", CONF("a", "b", "", " cut_after=5") }, { "b", CONF("b", "a", "", "") }, { NULL, NULL },
};
/* a's tnetb link (also the route of 4 KiB and up) is cut after 5 chunks */
static const char *const cut_route_confs[][2] = {
    { "a", CONF("a", "b", " cut_after=5", "") }, { "b", CONF("b", "a", "", "") }, { NULL, NULL },
};

/* every rail of a holds each system message 200 ms before it leaves */
#define HOLD " hold_ms=200"
static const char *const hold_confs[][2] = {
    { "a", CONF3("a", "b", HOLD, HOLD, HOLD) }, { "b", CONF("b", "a", "", "") }, { NULL, NULL },
};

static uint8_t pattern(size_t i, int seed)
{
    return (uint8_t)(i * 131u + (i >> 9) + (unsigned)seed * 7u);
}

static uint8_t *filled(size_t len, int seed)
{
    uint8_t *b = malloc(len ? len : 1);

    for (size_t i = 0; b != NULL && i < len; i++)
        b[i] = pattern(i, seed);
    return b;
}

/* 0 if the first n bytes of b are the pattern of seed */
static int check(const uint8_t *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(i, seed))
            return 1;
    return 0;
}

static int send_wait(md_t *md, const void *buf, size_t len, int to, int me, int tag,
                     uint32_t flags)
{
    md_request_t s = { 0 };

    if (md_isend(md, &s, buf, len, to, me, tag, CTX, flags) != MD_OK)
        return 1;
    return forkjob_wait(md, &s) || s.status.error != MD_OK;
}

/* Receives len bytes from from (MD_ANY_SOURCE: any) into a buffer of cap
 * bytes; 0 if the status and every byte are right. */
static int recv_check(md_t *md, size_t len, size_t cap, int from, int tag, int seed)
{
    uint8_t *b = malloc(cap ? cap : 1);
    md_request_t r = { 0 };
    int src = from == MD_ANY_SOURCE ? -1 : from, rc = 0;

    if (b == NULL || md_irecv(md, &r, b, cap, src, from, tag, CTX, NULL) != MD_OK ||
        forkjob_wait(md, &r))
        rc = 1;
    else if (r.status.msg_size != len || r.status.size != (len < cap ? len : cap))
        rc = 2;
    else if (r.status.error != (len > cap ? MD_ERR_TRUNCATE : MD_OK))
        rc = 3;
    else if (check(b, r.status.size, seed))
        rc = 4;
    free(b);
    return rc;
}

/* One message of len bytes (pattern seed) from rank from to the other
 * rank, received into cap bytes and checked there: 0 if all went right
 * (each rank returns its own side's verdict). */
static int pass(md_t *md, int rank, int from, size_t len, size_t cap, int tag, int seed)
{
    int rc;

    if (rank == from) {
        uint8_t *b = filled(len, seed);
        rc = b == NULL || send_wait(md, b, len, from ^ 1, from, tag, 0);
        free(b);
        return rc;
    }
    return recv_check(md, len, cap, from, tag, seed);
}

static const size_t sizes[] = { FROM - 1, FROM, FROM + 1, 200000, (1u << 20) + 3, 4u << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Every size both ways, checked; the sender's rails carried the stripes
 * in the weights' shares.  The window is made so large that no rail is
 * ever full (tnet's sockets push back long before four chunks in flight,
 * and a full rail gives its turn to one with room, which is right for
 * rails that do not keep up but would blur the weights here). */
static int every_size(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0;
    int ra = forkjob_subdev_index(md, "tneta"), rb = forkjob_subdev_index(md, "tnetb"),
        rt = forkjob_subdev_index(md, "tnet");

    (void)arg;
    for (int dir = 0; dir < 2 && rc == 0; dir++) {
        for (size_t k = 0; k < NSIZES && rc == 0; k++)
            rc = pass(md, rank, dir, sizes[k], sizes[k], 1, (int)k) ? 10 + (int)k : 0;
    }
    if (rc == 0) {
        double a = (double)md_subdev(md, ra)->counters.bytes_sent,
               b = (double)md_subdev(md, rb)->counters.bytes_sent,
               t = (double)md_subdev(md, rt)->counters.bytes_sent;
        /* tneta 2 shares, tnetb and tnet one each (tnetb also carries the
         * unstriped 64 KiB - 1 and the acknowledgements go over tneta) */
        if (t <= 0 || a < 1.6 * t || a > 2.4 * t || b < 0.9 * t || b > 1.3 * t)
            rc = 30;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(stripe, every_size_both_ways_in_the_weights_shares, .timeout = 120)
{
    static const char *const env[][2] = { { "MULTIDEV_FWD_WINDOW", "1024" }, { NULL, NULL } };

    cr_assert_eq(forkjob_run_env(env, 2, nodes, confs, every_size, NULL, 100), 0);
}

/* Order: striped and single-route messages of one sender, same tag, are
 * received in the order sent, whether the receives wait first or come late;
 * a probe and an ANY_SOURCE receive see the whole striped message. */
static int order_probe_any(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    static const size_t seq[] = { 1u << 20, 8, 300000, 0, 4096 };
    enum { N = sizeof(seq) / sizeof(seq[0]) };
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        for (int round = 0; round < 2 && rc == 0; round++) {
            md_request_t s[N];
            uint8_t *b[N];
            memset(s, 0, sizeof(s));
            for (int i = 0; i < N; i++) {
                b[i] = filled(seq[i], i);
                rc |= b[i] == NULL ||
                      md_isend(md, &s[i], b[i], seq[i], 1, 0, 2, CTX, 0) != MD_OK;
            }
            for (int i = 0; i < N; i++)
                rc |= forkjob_wait(md, &s[i]);
            for (int i = 0; i < N; i++)
                free(b[i]);
            atomic_fetch_add(&sh->counters[0], 1);
            while (atomic_load(&sh->counters[1]) <= round)
                md_progress(md);
        }
        if (rc == 0) {
            uint8_t *b = filled(FROM * 3, 7);
            rc = b == NULL || send_wait(md, b, FROM * 3, 1, 0, 3, MD_ENV_F_SYNC) ? 40 : 0;
            free(b);
        }
    } else {
        for (int round = 0; round < 2 && rc == 0; round++) {
            if (round == 1)                 /* late: all of them unexpected */
                while (atomic_load(&sh->counters[0]) < 1)
                    md_progress(md);
            for (int i = 0; i < N && rc == 0; i++) {
                int e = recv_check(md, seq[i], seq[i], 0, 2, i);
                rc = e ? 10 * (round + 1) + e : 0;
            }
            atomic_fetch_add(&sh->counters[1], 1);
        }
        if (rc == 0) {
            md_recv_status_t st = { 0 };
            int flag = 0;
            while (!flag && md_iprobe(md, 0, 0, 3, CTX, NULL, &flag, &st) == MD_OK)
                md_progress(md);
            if (st.msg_size != FROM * 3)
                rc = 41;
            else if (recv_check(md, FROM * 3, FROM * 3, MD_ANY_SOURCE, 3, 7))
                rc = 42;
        }
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(stripe, order_kept_and_probe_and_any_source_see_the_whole, .timeout = 120)
{
    cr_assert_eq(forkjob_run(2, nodes, confs, order_probe_any, NULL, 100), 0);
}

/* A receive buffer shorter than the striped message: truncated, the bytes
 * that fit right, and the next message unharmed. */
static int truncated(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0;

    (void)arg;
    rc = pass(md, rank, 0, 1u << 20, 100000, 4, 3) ||
         pass(md, rank, 0, 1u << 20, 1u << 20, 4, 3);
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(stripe, a_short_buffer_truncates, .timeout = 60)
{
    cr_assert_eq(forkjob_run(2, nodes, confs, truncated, NULL, 50), 0);
}

/* Three checked 4 MiB messages from rank 0 to rank 1 (tag 5, patterns seed
 * to seed + 2), the stream a cut falls into: 0, or 10 + the first that
 * went wrong. */
static int stream(md_t *md, int rank, int seed)
{
    for (int i = 0; i < 3; i++)
        if (pass(md, rank, 0, 4u << 20, 4u << 20, 5, seed + i))
            return 10 + i;
    return 0;
}

/* a's tnet link is cut after 5 of its chunks, in the middle of the first
 * 4 MiB message: that message, and those after it, arrive whole over
 * tneta and tnetb; the rank on b is not failed. */
static int cut_rail(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0, rt = forkjob_subdev_index(md, "tnet");

    (void)arg;
    rc = stream(md, rank, 10);
    if (rc == 0 && rank == 0 && md_subdev(md, rt)->counters.sysmsgs_sent < 5)
        rc = 30;            /* the cut came before the stream */
    if (rc == 0 && pass(md, rank, 0, 1, 1, 6, 0))
        rc = 31;            /* the peer is still reached */
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(stripe, a_rail_cut_mid_stream_gives_its_share_to_the_others, .timeout = 120)
{
    cr_assert_eq(forkjob_run(2, nodes, cut_confs, cut_rail, NULL, 100), 0);
}

/* a's tnetb is cut in the middle of the stream, and tnetb also carries the
 * route of 4 KiB and up: the stream finishes on tneta and tnet; a 10000-byte
 * message from a then takes tneta (the rail of the largest weight left);
 * a receive rank 0 had posted before the cut (duplicated onto tneta, tnetb
 * and the forwarding receiver) loses its tnetb duplicate only, and takes
 * the message rank 1 sends afterwards. */
static int cut_route_rail(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0;
    uint8_t early[100];
    md_request_t r = { 0 };

    (void)arg;
    if (rank == 0 && md_irecv(md, &r, early, sizeof(early), 1, 1, 8, CTX, NULL) != MD_OK)
        rc = 1;
    if (rc == 0)
        rc = stream(md, rank, 20);
    if (rc == 0 && rank == 0 && md_route(md, 1, 10000, NULL) != forkjob_subdev_index(md, "tneta"))
        rc = 30;            /* not rerouted */
    if (rc == 0 && pass(md, rank, 0, 10000, 10000, 9, 3))
        rc = 31;
    if (rc == 0 && rank == 1) {
        uint8_t *b = filled(sizeof(early), 4);
        rc = b == NULL || send_wait(md, b, sizeof(early), 0, 1, 8, 0) ? 32 : 0;
        free(b);
    } else if (rc == 0) {
        rc = forkjob_wait(md, &r) || r.status.error != MD_OK ||
             r.status.size != sizeof(early) || check(early, sizeof(early), 4) ? 33 : 0;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(stripe, a_rail_that_carries_a_route_cut_mid_stream, .timeout = 120)
{
    cr_assert_eq(forkjob_run(2, nodes, cut_route_confs, cut_route_rail, NULL, 100), 0);
}

/* A message sent while every rail stalls under another's chunks (each has
 * chunks out and no completion for over 50 ms): it waits for the rails,
 * and goes once they move.  (It used to stop for good: only a flow's own
 * completions woke it, and it had none.) */
static int begun_while_stalled(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    enum { LEN = 1u << 20 };
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        uint8_t *b1 = filled(LEN, 1), *b2 = filled(LEN, 2);
        md_request_t s1 = { 0 }, s2 = { 0 };
        double until = forkjob_now_s() + 0.12;

        rc = b1 == NULL || b2 == NULL || md_isend(md, &s1, b1, LEN, 1, 0, 4, CTX, 0) != MD_OK;
        while (rc == 0 && forkjob_now_s() < until)  /* every rail stalls: 120 > 50 ms */
            md_progress(md);
        if (rc == 0 && md_isend(md, &s2, b2, LEN, 1, 0, 4, CTX, 0) != MD_OK)
            rc = 2;
        if (rc == 0)
            rc = forkjob_wait(md, &s1) || forkjob_wait(md, &s2) ||
                 s1.status.error != MD_OK || s2.status.error != MD_OK ? 3 : 0;
        free(b1);
        free(b2);
    } else {
        rc = recv_check(md, LEN, LEN, 0, 4, 1) ? 10 : recv_check(md, LEN, LEN, 0, 4, 2) ? 11 : 0;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(stripe, a_message_begun_while_every_rail_stalls_goes_when_they_move, .timeout = 60)
{
    cr_assert_eq(forkjob_run(2, nodes, hold_confs, begun_while_stalled, NULL, 30), 0);
}

/* MULTIDEV_RAILS=off: the node file's rails are ignored, nothing is striped. */
static int rails_off(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0, rt = forkjob_subdev_index(md, "tnet");
    md_fwd_counters_t fc;

    (void)arg;
    rc = pass(md, rank, 0, 1u << 20, 1u << 20, 7, 5);
    md_get_fwd_counters(md, &fc);
    if (rc == 0 && (fc.originated_msgs != 0 || md_subdev(md, rt)->counters.sysmsgs_sent != 0))
        rc = 40;
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(stripe, rails_off_sends_over_the_one_route, .timeout = 60)
{
    static const char *const env[][2] = { { "MULTIDEV_RAILS", "off" }, { NULL, NULL } };

    cr_assert_eq(forkjob_run_env(env, 2, nodes, confs, rails_off, NULL, 50), 0);
}
