/*
 * fwd_test.c - indirect communication (P1 §3.4) across emulated nodes:
 * one process per node, the tnet test subdevice between them, routes from
 * node configurations that send through intermediate nodes.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "forkjob.h"
#include "md_fwd.h"          /* MD_FWD_WIRE_WHOLE: where chunks are cut */

#define CTX 3

/* n0 -- n1 -- n2: n0 and n2 talk only through n1 */
static const char *const chain3_nodes[] = { "n0", "n1", "n2" };
static const char *const chain3[][2] = {
    { "n0", "multidev-node-config 1\nnode n0\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet n1\n" },
    { "n1", "multidev-node-config 1\nnode n1\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\n" },
    { "n2", "multidev-node-config 1\nnode n2\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet n1\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\n" },
    { NULL, NULL },
};

static void fill(uint8_t *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(seed * 31u + i * 7u);
}

static int check(const uint8_t *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != (uint8_t)(seed * 31u + i * 7u))
            return -1;
    return 0;
}

static const size_t sizes[] = { 0, 1, 1000, 300000, 1 << 20, 3 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static size_t sizes_total(void)
{
    size_t t = 0;
    for (size_t i = 0; i < NSIZES; i++)
        t += sizes[i];
    return t;
}

/* The forwarding counters of rank 0 (origin), the relays 1..size-2 and the
 * destination size-1 of a chain say that msgs messages of bytes in all
 * went the forwarded way. */
static int fwd_counted(md_t *md, int rank, uint64_t msgs, uint64_t bytes)
{
    md_fwd_counters_t c;
    int last = md_world_size(md) - 1;

    md_get_fwd_counters(md, &c);
    if (rank == 0)
        return c.originated_msgs == msgs && c.originated_bytes == bytes &&
               c.relayed_msgs == 0;
    if (rank == last)
        return c.delivered_msgs == msgs && c.delivered_bytes == bytes &&
               c.originated_msgs == 0;
    return c.relayed_msgs == msgs && c.relayed_bytes == bytes &&
           c.relayed_chunks >= msgs && c.originated_msgs == 0;
}

/* Credits a relay returns for sizes[]: only a message of more chunks than
 * the window needs them, one per chunk (defaults: 64 KiB chunks, a window
 * of 8; so only the 1 MiB message, 16 chunks). */
#define SIZES_CREDITS 16

/* T-IND-1/2/3: A->B->C, blocking-style and nonblocking, data intact, C
 * sees source A and the tag, with a specific source and with ANY_SOURCE. */
static int through_one_relay(md_t *md, int rank, int size,
                             forkjob_shared_t *sh, void *arg)
{
    static uint8_t buf[1 << 20];
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        for (size_t i = 0; i < NSIZES && rc == 0; i++) {
            md_request_t s = { 0 };
            fill(buf, sizes[i], (unsigned)i);
            if (md_isend(md, &s, buf, sizes[i], 2, 0, (int)i, CTX, 0) != MD_OK ||
                forkjob_wait(md, &s) != 0 || s.status.error != MD_OK)
                rc = 20 + (int)i;
            /* a standard send completes when its chunks have left; its
             * flow stays queued until the acknowledgement (checked below) */
        }
    } else if (rank == 2) {
        for (size_t i = 0; i < NSIZES && rc == 0; i++) {
            md_request_t r = { 0 };
            int specific = i % 2 == 0;
            memset(buf, 0xee, sizeof(buf));
            if (md_irecv(md, &r, buf, sizeof(buf), specific ? 0 : -1,
                         specific ? 0 : MD_ANY_SOURCE, (int)i, CTX, NULL) != MD_OK ||
                forkjob_wait(md, &r) != 0)
                rc = 50 + (int)i;
            else if (r.status.src_world != 0 || r.status.src_rank != 0 ||
                     r.status.tag != (int)i || r.status.size != sizes[i] ||
                     check(buf, sizes[i], (unsigned)i) != 0)
                rc = 70 + (int)i;
            else if (md_subdev(md, r.status.subdev) == NULL ||
                     strcmp(md_subdev(md, r.status.subdev)->name, "fwd") != 0)
                rc = 90;
        }
    }
    rc = forkjob_end_drained(md, sh, size, rc);
    if (rank == 1 && md_subdev(md, 0)->counters.sysmsgs_recvd == 0)
        rc = 98;    /* the relay saw the chunks */
    if (rank == 1 && rc == 0) {
        md_fwd_counters_t c;
        md_get_fwd_counters(md, &c);
        if (c.credits_returned != SIZES_CREDITS)
            rc = 95;    /* small messages need no credits, large ones do */
    }
    if (rc == 0 && !fwd_counted(md, rank, NSIZES, sizes_total()))
        rc = 96;
    return rc;
}

Test(forwarding, a_message_reaches_c_through_b, .timeout = 60)
{
    cr_assert_eq(forkjob_run(3, chain3_nodes, chain3, through_one_relay, NULL, 50), 0);
}

/* T-IND-5: a large message passes the relay in chunks, and the relay never
 * holds more than its window of them (2 x 16 KiB here, for 1 MiB); its own
 * receives go on meanwhile: A's small message to B, sent after the large
 * one has begun, arrives while most of it is still to be relayed.  C takes
 * nothing in until then (no progress, no progress thread), so the relay is
 * held up by a full link: without that a loaded machine could let it relay
 * half of the message before B's test code looked (it did, once). */
enum { BIG = 1 << 20, BOUND_CHUNK = 16 * 1024, BOUND_WINDOW = 2 };

static int relay_bounded(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    static uint8_t big[BIG];
    md_request_t q[2] = { { 0 } };
    int v = 0, rc = 0;

    (void)arg;
    if (rank == 0) {
        fill(big, BIG, 9);
        v = 55;
        if (md_isend(md, &q[0], big, BIG, 2, 0, 1, CTX, 0) != MD_OK ||
            md_isend(md, &q[1], &v, sizeof(v), 1, 0, 2, CTX, 0) != MD_OK ||
            forkjob_wait(md, &q[0]) != 0 || forkjob_wait(md, &q[1]) != 0)
            rc = 20;
    } else if (rank == 1) {
        md_fwd_counters_t c;
        if (md_irecv(md, &q[0], &v, sizeof(v), 0, 0, 2, CTX, NULL) != MD_OK ||
            forkjob_wait(md, &q[0]) != 0 || v != 55)
            rc = 30;
        md_get_fwd_counters(md, &c);
        if (rc == 0 && c.relayed_bytes >= BIG / 2)
            rc = 31;    /* its own receive waited for the relaying */
        atomic_store(&sh->counters[0], 1);
    } else {
        while (atomic_load(&sh->counters[0]) == 0)
            sched_yield();                  /* B's receive first */
        memset(big, 0, sizeof(big));
        if (md_irecv(md, &q[0], big, BIG, 0, 0, 1, CTX, NULL) != MD_OK ||
            forkjob_wait(md, &q[0]) != 0 || q[0].status.size != BIG || check(big, BIG, 9))
            rc = 40;
    }
    rc = forkjob_end_drained(md, sh, size, rc);
    if (rank == 1 && rc == 0) {
        md_fwd_counters_t c;
        md_get_fwd_counters(md, &c);
        if (c.relayed_bytes != BIG || c.relayed_chunks != BIG / BOUND_CHUNK)
            rc = 32;
        else if (c.relay_peak_bytes == 0 ||
                 c.relay_peak_bytes > BOUND_WINDOW * (BOUND_CHUNK + MD_FWD_WIRE_PART) ||
                 c.relay_held_bytes != 0)
            rc = 33;    /* held more than its window, or kept some */
    }
    return rc;
}

Test(forwarding, a_relay_holds_at_most_its_window_and_still_receives, .timeout = 60)
{
    static const char *const env[][2] = { { "MULTIDEV_FWD_CHUNK", "16k" },
                                          { "MULTIDEV_FWD_WINDOW", "2" },
                                          { "MULTIDEV_PROGRESS_THREAD", "off" }, { NULL, NULL } };
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, relay_bounded, NULL, 50);

    cr_assert_eq(rc, 0, "rank status %d (31: the relay's own receive waited; 33: held "
                 "more than its window)", rc);
}

/* T-IND-6: many messages in flight through one relay keep their order.
 * Sizes alternate around 1 KiB so that, with the split routes below, every
 * other message takes the direct link and could overtake. */
enum { MANY = 60 };

static size_t many_len(int i)
{
    return i % 2 ? (size_t)(i * 7) : 1024 + (size_t)(i * 997) % 60000;
}

static int many_in_order(md_t *md, int rank, int size, forkjob_shared_t *sh,
                         void *arg)
{
    static uint8_t bufs[MANY][70000];
    md_request_t reqs[MANY];
    int rc = 0;

    (void)arg;
    memset(reqs, 0, sizeof(reqs));
    if (rank == 0 || rank == 2) {
        for (int i = 0; i < MANY; i++) {
            size_t len = many_len(i);
            if (rank == 0) {
                fill(bufs[i], len, (unsigned)i);
                rc |= md_isend(md, &reqs[i], bufs[i], len, 2, 0, 5, CTX, 0);
            } else {
                rc |= md_irecv(md, &reqs[i], bufs[i], sizeof(bufs[i]), 0, 0, 5,
                               CTX, NULL);
            }
        }
        for (int i = 0; i < MANY && rc == 0; i++) {
            size_t len = many_len(i);
            if (forkjob_wait(md, &reqs[i]) != 0)
                rc = 30;
            else if (rank == 2 && (reqs[i].status.size != len ||
                                   check(bufs[i], len, (unsigned)i) != 0))
                rc = 31;    /* an earlier receive got a later message */
        }
    }
    forkjob_finish(sh);
    if (forkjob_serve(md, sh, size) != 0 && rc == 0)
        rc = 99;
    return rc;
}

Test(forwarding, many_messages_through_one_relay_stay_in_order, .timeout = 60)
{
    cr_assert_eq(forkjob_run(3, chain3_nodes, chain3, many_in_order, NULL, 50), 0);
}

/* Non-overtaking across a direct and a forwarded route of one pair: small
 * messages go straight from n0 to n2, large ones through n1. */
static const char *const split[][2] = {
    { "n0", "multidev-node-config 1\nnode n0\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 1023 tnet -\nroute n2 1024 inf tnet n1\n" },
    { "n1", "multidev-node-config 1\nnode n1\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\n" },
    { "n2", "multidev-node-config 1\nnode n2\ndevice tnet reorder=1\n"
            "route n0 0 1023 tnet -\nroute n0 1024 inf tnet n1\n"
            "route n1 0 inf tnet -\nroute n2 0 inf tnet -\n" },
    { NULL, NULL },
};

Test(forwarding, direct_and_forwarded_messages_of_a_pair_do_not_overtake,
     .timeout = 60)
{
    cr_assert_eq(forkjob_run(3, chain3_nodes, split, many_in_order, NULL, 50), 0);
}

/* Routes with two intermediate nodes: n0 -> n1 -> n2 -> n3. */
static const char *const chain4_nodes[] = { "n0", "n1", "n2", "n3" };
static const char *const chain4[][2] = {
    { "n0", "multidev-node-config 1\nnode n0\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet n1\nroute n3 0 inf tnet n1\n" },
    { "n1", "multidev-node-config 1\nnode n1\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\nroute n3 0 inf tnet n2\n" },
    { "n2", "multidev-node-config 1\nnode n2\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet n1\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\nroute n3 0 inf tnet -\n" },
    { "n3", "multidev-node-config 1\nnode n3\ndevice tnet reorder=1\n"
            "route n0 0 inf tnet n2\nroute n1 0 inf tnet n2\n"
            "route n2 0 inf tnet -\nroute n3 0 inf tnet -\n" },
    { NULL, NULL },
};

static int two_relays(md_t *md, int rank, int size, forkjob_shared_t *sh,
                      void *arg)
{
    static uint8_t buf[600000];
    md_request_t req = { 0 };
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        fill(buf, sizeof(buf), 9);
        if (md_isend(md, &req, buf, sizeof(buf), 3, 0, 1, CTX, 0) != MD_OK ||
            forkjob_wait(md, &req) != 0)
            rc = 20;
    } else if (rank == 3) {
        if (md_irecv(md, &req, buf, sizeof(buf), -1, MD_ANY_SOURCE, MD_ANY_TAG,
                     CTX, NULL) != MD_OK || forkjob_wait(md, &req) != 0)
            rc = 21;
        else if (req.status.src_world != 0 || req.status.size != sizeof(buf) ||
                 check(buf, sizeof(buf), 9) != 0)
            rc = 22;
    }
    forkjob_finish(sh);
    if (forkjob_serve(md, sh, size) != 0 && rc == 0)
        rc = 99;
    if ((rank == 1 || rank == 2) && md_subdev(md, 0)->counters.sysmsgs_recvd == 0)
        rc = 23;
    if (rc == 0 && !fwd_counted(md, rank, 1, sizeof(buf)))
        rc = 24;
    return rc;
}

Test(forwarding, a_route_may_pass_two_intermediate_nodes, .timeout = 60)
{
    cr_assert_eq(forkjob_run(4, chain4_nodes, chain4, two_relays, NULL, 50), 0);
}

/* A system message (negative tag) is forwarded too: one-sided traffic such
 * as MPI RMA reaches nodes without a direct link. */
static int sys_seen;

static void on_sys(void *ctx, int32_t src, int32_t tag, const void *p, size_t len)
{
    (void)ctx; (void)tag;
    if (src == 0 && len == 100000 && check(p, len, 4) == 0)
        sys_seen++;
}

static int forwarded_sysmsg(md_t *md, int rank, int size, forkjob_shared_t *sh,
                            void *arg)
{
    static uint8_t buf[100000];
    md_request_t req = { 0 };
    int rc = 0;

    (void)arg;
    md_sysmsg_register(md, -70, on_sys, NULL);
    forkjob_finish(sh);             /* everybody registered */
    forkjob_serve(md, sh, size);
    if (rank == 0) {
        fill(buf, sizeof(buf), 4);
        if (md_sysmsg_isend(md, &req, 2, -70, buf, sizeof(buf)) != MD_OK ||
            forkjob_wait(md, &req) != 0)
            rc = 20;
    }
    if (rank == 2) {
        for (long i = 0; i < 10000000 && sys_seen == 0; i++)
            md_progress(md);
        if (sys_seen != 1)
            rc = 21;
    }
    atomic_fetch_add(&sh->counters[0], 1);
    while (atomic_load(&sh->counters[0]) < size)
        md_progress(md);
    return rc;
}

Test(forwarding, system_messages_are_forwarded, .timeout = 60)
{
    cr_assert_eq(forkjob_run(3, chain3_nodes, chain3, forwarded_sysmsg, NULL, 50), 0);
}

/* A standard send through a relay completes once its chunks have left,
 * while the destination does not even run the multidevice (so no
 * acknowledgement can come back: the send used to wait for it); an
 * MPI_Ssend completes only once the destination matched it, which its
 * acknowledgement, sent at once, reports.  Both are checked by causality,
 * not by time: the destination acts only after the origin said where it
 * stands. */
enum { STD_DONE = 0, SYNC_POSTED = 1, SYNC_DONE = 2 };

static int standard_and_synchronous(md_t *md, int rank, int size,
                                    forkjob_shared_t *sh, void *arg)
{
    static uint8_t buf[4096];
    md_request_t s = { 0 }, r = { 0 };
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        fill(buf, sizeof(buf), 1);
        if (md_isend(md, &s, buf, sizeof(buf), 2, 0, 1, CTX, 0) != MD_OK ||
            forkjob_wait(md, &s) != 0 || s.status.error != MD_OK)
            rc = 10;
        atomic_store(&sh->counters[STD_DONE], 1);   /* no receive posted yet */
        memset(&s, 0, sizeof(s));
        if (rc == 0 && (md_isend(md, &s, buf, sizeof(buf), 2, 0, 2, CTX, MD_ENV_F_SYNC) != MD_OK ||
                        forkjob_wait(md, &s) != 0 || s.status.error != MD_OK))
            rc = 11;
        if (rc == 0 && atomic_load(&sh->counters[SYNC_POSTED]) == 0)
            rc = 12;    /* the Ssend completed before its receive was posted */
        atomic_store(&sh->counters[SYNC_DONE], 1);
    } else if (rank == 2) {
        double end = forkjob_now_s() + 20;
        struct timespec nap = { 0, 1000000 };
        while (atomic_load(&sh->counters[STD_DONE]) == 0 && forkjob_now_s() < end)
            nanosleep(&nap, NULL);      /* computes, no MPI calls */
        if (atomic_load(&sh->counters[STD_DONE]) == 0)
            rc = 20;    /* the standard send waited for the destination */
        /* let the Ssend arrive and sit unmatched for a while */
        end = forkjob_now_s() + 0.2;
        while (forkjob_now_s() < end)
            md_progress(md);
        if (atomic_load(&sh->counters[SYNC_DONE]) != 0)
            rc = 21;
        atomic_store(&sh->counters[SYNC_POSTED], 1);
        if (md_irecv(md, &r, buf, sizeof(buf), 0, 0, 2, CTX, NULL) != MD_OK ||
            forkjob_wait(md, &r) != 0 || check(buf, sizeof(buf), 1) != 0)
            rc = 22;
        memset(&r, 0, sizeof(r));
        if (md_irecv(md, &r, buf, sizeof(buf), 0, 0, 1, CTX, NULL) != MD_OK ||
            forkjob_wait(md, &r) != 0 || check(buf, sizeof(buf), 1) != 0)
            rc = 23;
    }
    rc = forkjob_end_drained(md, sh, size, rc);
    return rc;
}

Test(forwarding, a_standard_send_completes_when_it_left_an_ssend_when_matched, .timeout = 60)
{
    /* no progress thread: nothing runs at the destination while it naps */
    static const char *const env[][2] = { { "MULTIDEV_PROGRESS_THREAD", "off" }, { NULL } };
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, standard_and_synchronous, NULL, 50);
    cr_assert_eq(rc, 0, "rank status %d (20: the standard send waited for the destination; "
                 "12, 21: the Ssend completed before it was matched)", rc);
}

/* T-IND-1/2 as P1 has them (MULTIDEV_FWD_SEND_DONE=acked): a standard send
 * completes only when the destination's acknowledgement is back, so not
 * while the destination computes, and then nothing of it is left in the
 * origin's IndirectQueue (step 6).  Its chunks ask for the acknowledgement
 * at once: gathering would hold it for a second here. */
enum { ACK_CHECKED = 5 };

static int standard_waits_for_ack(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    static uint8_t buf[1000];
    md_request_t s = { 0 }, r = { 0 };
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        double end = forkjob_now_s() + 0.3, checked;
        fill(buf, sizeof(buf), 4);
        if (md_isend(md, &s, buf, sizeof(buf), 2, 0, 6, CTX, 0) != MD_OK)
            rc = 10;
        while (rc == 0 && forkjob_now_s() < end)
            md_progress(md);
        if (rc == 0 && (md_request_is_complete(&s) || md_indirect_in_flight(md) == 0))
            rc = 11;    /* done before the destination took the message in */
        checked = forkjob_now_s();
        atomic_store(&sh->counters[ACK_CHECKED], 1);
        if (rc == 0 && (forkjob_wait(md, &s) != 0 || s.status.error != MD_OK))
            rc = 12;
        if (rc == 0 && md_indirect_in_flight(md) != 0)
            rc = 13;    /* done before its acknowledgement was back */
        if (rc == 0 && forkjob_now_s() - checked > 0.8)
            rc = 14;    /* the acknowledgement was gathered, not sent at once */
    } else if (rank == 2) {
        double end = forkjob_now_s() + 20;
        struct timespec nap = { 0, 1000000 };
        while (atomic_load(&sh->counters[ACK_CHECKED]) == 0 && forkjob_now_s() < end)
            nanosleep(&nap, NULL);      /* computes, no MPI calls */
        if (md_irecv(md, &r, buf, sizeof(buf), 0, 0, 6, CTX, NULL) != MD_OK ||
            forkjob_wait(md, &r) != 0 || check(buf, sizeof(buf), 4) != 0)
            rc = 20;
    }
    return forkjob_end_drained(md, sh, size, rc);
}

Test(forwarding, with_send_done_acked_a_standard_send_waits_for_its_acknowledgement,
     .timeout = 60)
{
    static const char *const env[][2] = {
        { "MULTIDEV_FWD_SEND_DONE", "acked" }, { "MULTIDEV_PROGRESS_THREAD", "off" },
        { "MULTIDEV_FWD_ACK_DELAY_US", "1000000" }, { NULL }
    };
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, standard_waits_for_ack, NULL, 50);
    cr_assert_eq(rc, 0, "rank status %d (11: done before the destination had it; 13: before "
                 "its acknowledgement; 14: the acknowledgement was not sent at once)", rc);
}

static int nothing(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    (void)md, (void)rank, (void)size, (void)sh, (void)arg;
    return 0;
}

Test(forwarding, send_done_must_be_left_or_acked, .timeout = 30)
{
    static const char *const env[][2] = { { "MULTIDEV_FWD_SEND_DONE", "soon" }, { NULL } };
    cr_assert_eq(forkjob_run_env(env, 3, chain3_nodes, chain3, nothing, NULL, 20), 10,
                 "md_init refuses it");
}

/* The destination gathers acknowledgements: 64 small messages, a batch of
 * 16 (*arg) and a delay longer than the test, make 4 FWD_ACK messages (a
 * few more if the machine stalls the test past the delay), which the relay
 * passes on one for one; every flow is acknowledged. */
enum { GATHERED = 64 };

static int acks_gathered(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    static uint8_t buf[256];
    const int batch = *(const int *)arg, msgs = GATHERED / batch;
    md_fwd_counters_t c;
    int rc = 0;

    for (int i = 0; i < GATHERED && rc == 0; i++) {
        md_request_t q = { 0 };
        if (rank == 0 && (md_isend(md, &q, buf, sizeof(buf), 2, 0, 3, CTX, 0) != MD_OK ||
                          forkjob_wait(md, &q) != 0))
            rc = 10;
        if (rank == 2 && (md_irecv(md, &q, buf, sizeof(buf), 0, 0, 3, CTX, NULL) != MD_OK ||
                          forkjob_wait(md, &q) != 0))
            rc = 20;
    }
    rc = forkjob_end_drained(md, sh, size, rc);
    md_get_fwd_counters(md, &c);
    if (rc == 0 && (rank == 1 || rank == 2) && c.acks_sent != GATHERED)
        rc = 30 + rank;     /* every flow acknowledged, once, on each hop */
    if (rc == 0 && (rank == 1 || rank == 2) &&
        (c.ack_msgs_sent < (uint64_t)msgs || c.ack_msgs_sent > (uint64_t)(msgs + msgs / 2 + 1)))
        rc = 40 + rank;     /* gathered in batches of that many */
    if (rc == 0 && rank == 0 && c.ack_msgs_sent != 0)
        rc = 50;
    return rc;
}

Test(forwarding, acknowledgements_are_gathered, .timeout = 60)
{
    static const char *const env[][2] = {
        { "MULTIDEV_FWD_ACK_BATCH", "16" }, { "MULTIDEV_FWD_ACK_DELAY_US", "1000000" }, { NULL }
    };
    static const int batch = 16;
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, acks_gathered, (void *)&batch, 50);
    cr_assert_eq(rc, 0, "rank status %d (3x: acknowledgements counted on rank x; 4x: "
                 "not gathered)", rc);
}

/* By default a destination gathers 64: a stream of small messages, which
 * batches now carry in a few system messages each way, made four times as
 * many acknowledgement messages as data messages with 16. */
Test(forwarding, by_default_64_acknowledgements_go_in_one_message, .timeout = 60)
{
    static const char *const env[][2] = { { "MULTIDEV_FWD_ACK_DELAY_US", "1000000" }, { NULL } };
    static const int batch = 64;
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, acks_gathered, (void *)&batch, 50);
    cr_assert_eq(rc, 0, "rank status %d (3x: acknowledgements counted on rank x; 4x: "
                 "not gathered by 64)", rc);
}

/* Chunks cut at the eager limit: n0 and n1 tell the multidevice their tnet
 * sends eagerly up to 4096 bytes, n2 without limit.  A message that a hop
 * would send eagerly alone, but not with the chunk's header, goes in two
 * parts: cut by the origin n0 on its first hop, by the relay n1 on the
 * way from n2 to n0.  Sizes around the limit, both ways, data checked; the
 * relay sends exactly the chunks the rule makes. */
static const char *const cut3[][2] = {
    { "n0", "multidev-node-config 1\nnode n0\ndevice tnet eager_limit=4096\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet n1\n" },
    { "n1", "multidev-node-config 1\nnode n1\ndevice tnet eager_limit=4096\n"
            "route n0 0 inf tnet -\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\n" },
    { "n2", "multidev-node-config 1\nnode n2\ndevice tnet\n"
            "route n0 0 inf tnet n1\nroute n1 0 inf tnet -\n"
            "route n2 0 inf tnet -\n" },
    { NULL, NULL },
};

static const size_t cut_sizes[] = { 4096 - MD_FWD_WIRE_WHOLE, 4097 - MD_FWD_WIRE_WHOLE,
                                    4096, 4097 };
enum { NCUT = sizeof(cut_sizes) / sizeof(cut_sizes[0]) };

static int chunks_cut_at_the_eager_limit(md_t *md, int rank, int size, forkjob_shared_t *sh,
                                         void *arg)
{
    static uint8_t buf[8192];
    int rc = 0;

    (void)arg;
    for (int dir = 0; dir < 2 && rc == 0; dir++) {
        int from = dir == 0 ? 0 : 2, to = 2 - from;
        for (int i = 0; i < NCUT && rc == 0; i++) {
            md_request_t q = { 0 };
            if (rank == from) {
                fill(buf, cut_sizes[i], (unsigned)i);
                if (md_isend(md, &q, buf, cut_sizes[i], to, 0, i, CTX, 0) != MD_OK ||
                    forkjob_wait(md, &q) != 0)
                    rc = 10 + i;
            } else if (rank == to) {
                memset(buf, 0, sizeof(buf));
                if (md_irecv(md, &q, buf, sizeof(buf), from, 0, i, CTX, NULL) != MD_OK ||
                    forkjob_wait(md, &q) != 0 || q.status.size != cut_sizes[i] ||
                    check(buf, cut_sizes[i], (unsigned)i) != 0)
                    rc = 20 + i;
            }
        }
    }
    rc = forkjob_end_drained(md, sh, size, rc);
    if (rc == 0 && rank == 1) {
        md_fwd_counters_t c;
        md_get_fwd_counters(md, &c);
        /* in: n0 cut its 2 middle sizes (6 chunks), n2 cut none (4);
         * out: 6 towards n2, 6 towards n0 (the relay cut the same 2).  The
         * relay's other system messages than acks (a flow's probe, when a
         * loaded machine makes a wait long: md_fwd_watch.c) may add to the
         * ones it sent, never take from them. */
        uint64_t data_out = md_subdev(md, 0)->counters.sysmsgs_sent - c.ack_msgs_sent;
        if (c.relayed_chunks != 10)
            rc = 30;
        else if (data_out < 12)
            rc = 31;
    }
    return rc;
}

Test(forwarding, chunks_are_cut_at_the_eager_limit_of_each_hop, .timeout = 60)
{
    int rc = forkjob_run(3, chain3_nodes, cut3, chunks_cut_at_the_eager_limit, NULL, 50);
    cr_assert_eq(rc, 0, "rank status %d (2x: data; 30: chunks relayed; 31: chunks sent)", rc);
}

/* Small messages posted back to back leave together (md_fwd_batch.c): the
 * origin holds those that follow the first until its next progress pass
 * and sends them as one batch, the relay passes an arriving batch on as
 * one.  Among them larger messages that may not join (3000 bytes: more
 * than half of a batch; 100 000: two chunks) flush what is held
 * before them.  All arrive intact and in posting order (half received with
 * ANY_SOURCE; tnet reorder=1 swaps system messages pairwise, batches too),
 * and with batching off (arg NULL) nothing is held. */
enum { BURST = 64, BURST_BIG = 100000 };

static size_t burst_size(int i)
{
    return i == 40 ? BURST_BIG : i % 16 == 9 ? 3000 : 4 + (size_t)i % 3;
}

static int burst_of_small_messages(md_t *md, int rank, int size, forkjob_shared_t *sh,
                                   void *arg)
{
    static uint8_t buf[BURST][BURST_BIG];
    md_request_t q[BURST];
    uint64_t bytes = 0;
    int rc = 0;

    memset(q, 0, sizeof(q));
    for (int i = 0; i < BURST; i++)
        bytes += burst_size(i);
    for (int i = 0; i < BURST && rc == 0 && rank != 1; i++) {
        int any = i % 2;
        if (rank == 0)
            fill(buf[i], burst_size(i), (unsigned)i);
        if (rank == 0 ? md_isend(md, &q[i], buf[i], burst_size(i), 2, 0, 8, CTX, 0) != MD_OK
                      : md_irecv(md, &q[i], buf[i], BURST_BIG, any ? -1 : 0,
                                 any ? MD_ANY_SOURCE : 0, 8, CTX, NULL) != MD_OK)
            rc = 10 + rank;
    }
    for (int i = 0; i < BURST && rc == 0 && rank != 1; i++)
        if (forkjob_wait(md, &q[i]) != 0 || q[i].status.error != MD_OK ||
            (rank == 2 && (q[i].status.src_world != 0 || q[i].status.size != burst_size(i) ||
                           check(buf[i], burst_size(i), (unsigned)i) != 0)))
            rc = 20 + rank;
    rc = forkjob_end_drained(md, sh, size, rc);
    if (rc == 0 && !fwd_counted(md, rank, BURST, bytes))
        rc = 30;
    if (rc == 0 && rank < 2) {
        md_fwd_batch_counters_t b;
        md_fwd_get_batch_counters(md, &b);
        if (arg != NULL && (b.msgs == 0 || b.chunks < 2 * b.msgs))
            rc = 40 + rank;     /* sent alone, one system message each */
        if (arg == NULL && (b.msgs != 0 || b.held != 0))
            rc = 42 + rank;
    }
    return rc;
}

Test(forwarding, small_messages_sent_back_to_back_leave_together, .timeout = 60)
{
    static const char *const env[][2] = { { "MULTIDEV_PROGRESS_THREAD", "on" }, { NULL } };
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, burst_of_small_messages, "on", 50);
    cr_assert_eq(rc, 0, "rank status %d (2x: data or order; 40, 41: no batch at the origin, "
                 "the relay)", rc);
}

Test(forwarding, with_batch_0_every_message_goes_alone, .timeout = 60)
{
    static const char *const env[][2] = {
        { "MULTIDEV_PROGRESS_THREAD", "on" }, { "MULTIDEV_FWD_BATCH", "0" }, { NULL }
    };
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, burst_of_small_messages, NULL, 50);
    cr_assert_eq(rc, 0, "rank status %d (2x: data or order; 42, 43: held or batched)", rc);
}

/* A lone message is never held: in a ping-pong n0 <-> n2 each message is
 * the only one on its way, and no rank holds a chunk for company. */
enum { PINGS = 20 };

static int lone_messages(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0;

    (void)arg;
    for (int i = 0; i < PINGS && rc == 0 && rank != 1; i++) {
        int v = -1, mine = rank == 0 ? 0 : 2, peer = 2 - mine;
        md_request_t r = { 0 };
        if (rank == 0 && forkjob_send_int(md, peer, mine, 9, CTX, i) != 0)
            rc = 10;
        if (rc == 0 && (md_irecv(md, &r, &v, sizeof(v), peer, peer, 9, CTX, NULL) != MD_OK ||
                        forkjob_wait(md, &r) != 0 || v != i))
            rc = 20;
        if (rc == 0 && rank == 2 && forkjob_send_int(md, peer, mine, 9, CTX, i) != 0)
            rc = 30;
    }
    rc = forkjob_end_drained(md, sh, size, rc);
    if (rc == 0) {
        md_fwd_batch_counters_t b;
        md_fwd_get_batch_counters(md, &b);
        if (b.held != 0)
            rc = 40;
    }
    return rc;
}

Test(forwarding, a_lone_small_message_is_not_held, .timeout = 60)
{
    static const char *const env[][2] = { { "MULTIDEV_PROGRESS_THREAD", "on" }, { NULL } };
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, lone_messages, NULL, 50);
    cr_assert_eq(rc, 0, "rank status %d (1x-3x: the ping-pong; 40: a chunk was held)", rc);
}

/* Messages held at the origin leave without another call of its
 * application: the progress thread, asleep, is woken to pass.  n0 posts a
 * burst and then computes until n2 has it all. */
enum { HELD_BURST = 16, HELD_GOT = 6 };

static int held_without_calls(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    md_request_t q[HELD_BURST];
    int v[HELD_BURST], rc = 0;

    (void)arg;
    memset(q, 0, sizeof(q));
    if (rank == 0) {
        double end = forkjob_now_s() + 20;
        struct timespec nap = { 0, 200000 };
        for (int i = 0; i < HELD_BURST && rc == 0; i++) {
            v[i] = i;
            if (md_isend(md, &q[i], &v[i], sizeof(v[i]), 2, 0, 10, CTX, 0) != MD_OK)
                rc = 10;
        }
        while (rc == 0 && atomic_load(&sh->counters[HELD_GOT]) == 0)
            if (forkjob_now_s() > end)
                rc = 11;        /* held until the application calls again */
            else
                nanosleep(&nap, NULL);
        for (int i = 0; i < HELD_BURST && rc == 0; i++)
            if (forkjob_wait(md, &q[i]) != 0)
                rc = 12;
        md_fwd_batch_counters_t b;
        md_fwd_get_batch_counters(md, &b);
        if (rc == 0 && b.held == 0)
            rc = 13;            /* nothing was held: the test showed nothing */
    } else if (rank == 2) {
        for (int i = 0; i < HELD_BURST && rc == 0; i++)
            if (md_irecv(md, &q[i], &v[i], sizeof(v[i]), 0, 0, 10, CTX, NULL) != MD_OK ||
                forkjob_wait(md, &q[i]) != 0 || v[i] != i)
                rc = 20;
        atomic_store(&sh->counters[HELD_GOT], 1);
    }
    return forkjob_end_drained(md, sh, size, rc);
}

Test(forwarding, held_messages_leave_while_the_origin_computes, .timeout = 60)
{
    static const char *const env[][2] = { { "MULTIDEV_PROGRESS_THREAD", "on" }, { NULL } };
    int rc = forkjob_run_env(env, 3, chain3_nodes, chain3, held_without_calls, NULL, 50);
    cr_assert_eq(rc, 0, "rank status %d (11: held until the next call; 13: nothing held)", rc);
}

/* A batch is input like any other: n0 hands its neighbour n1 a FWD_BATCH
 * of its own making, one good record (a 5-byte message for n2) and then a
 * record whose length runs past the batch.  n1 passes the good one on,
 * drops the rest with an error, and goes on; n2 receives just the one. */
static int malformed_batch(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    static const uint8_t text[5] = "batch";
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        md_fwd_hdr_t hdr = { .env = { .src_world = 0, .dst_world = 2, .tag = 12,
                                      .context_id = CTX, .size = sizeof(text) },
                             .len = sizeof(text), .flags = MD_FWD_F_NO_CREDITS };
        uint8_t batch[2 * (4 + MD_FWD_WIRE_PART) + sizeof(text)];
        uint32_t len = MD_FWD_WIRE_WHOLE + sizeof(text), bad = 1000;
        md_request_t q = { 0 };
        memcpy(batch, &len, 4);
        md_fwd_hdr_pack(&hdr, batch + 4);
        memcpy(batch + 4 + MD_FWD_WIRE_WHOLE, text, sizeof(text));
        memcpy(batch + 4 + len, &bad, 4);
        memset(batch + 8 + len, 0, sizeof(batch) - 8 - len);
        if (md_sysmsg_isend(md, &q, 1, MD_SYSTAG_FWD_BATCH, batch, sizeof(batch)) != MD_OK ||
            forkjob_wait(md, &q) != 0)
            rc = 10;
    } else if (rank == 2) {
        uint8_t buf[16] = { 0 };
        md_request_t q = { 0 };
        if (md_irecv(md, &q, buf, sizeof(buf), 0, 0, 12, CTX, NULL) != MD_OK ||
            forkjob_wait(md, &q) != 0 || q.status.size != sizeof(text) ||
            memcmp(buf, text, sizeof(text)) != 0)
            rc = 20;
    }
    rc = forkjob_end_drained(md, sh, size, rc);
    if (rc == 0 && !fwd_counted(md, rank, rank == 0 ? 0 : 1, rank == 0 ? 0 : sizeof(text)))
        rc = 30 + rank;
    return rc;
}

Test(forwarding, a_batch_whose_record_overruns_it_keeps_what_came_before, .timeout = 60)
{
    int rc = forkjob_run(3, chain3_nodes, chain3, malformed_batch, NULL, 50);
    cr_assert_eq(rc, 0, "rank status %d (20: the good record not delivered; 3x: counted "
                 "on rank x)", rc);
}
