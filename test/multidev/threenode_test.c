/*
 * threenode_test.c - indirect communication over the real subdevices: three
 * emulated nodes a, b, c with two ranks each, shm inside a node and myri
 * (each node's nicd) between them; a's and c's configurations route a-c
 * through b (seed-000 §4.4, T-IND-1/3/5/6/7 with two subdevices per rank).
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "forkjob.h"
#include "md_fwd.h"          /* MD_FWD_WIRE_PART: a part's header */

#define CTX 8

static const char *const nodes[] = { "a", "a", "b", "b", "c", "c" };
static const char *const confs[][2] = {
    { "a", "multidev-node-config 1\nnode a\ndevice shm\ndevice myri\n"
           "route a 0 inf shm -\nroute b 0 inf myri -\nroute c 0 inf myri b\n" },
    { "b", "multidev-node-config 1\nnode b\ndevice shm\ndevice myri\n"
           "route b 0 inf shm -\nroute a 0 inf myri -\nroute c 0 inf myri -\n" },
    { "c", "multidev-node-config 1\nnode c\ndevice shm\ndevice myri\n"
           "route c 0 inf shm -\nroute b 0 inf myri -\nroute a 0 inf myri b\n" },
    { NULL, NULL },
};

static void nic_rundir_make(void)
{
    cr_assert_eq(forkjob_nic_rundir_make(), 0, "make check sets MULTIDEV_NICD");
}

TestSuite(threenode, .init = nic_rundir_make, .fini = forkjob_nic_rundir_remove);

/* Ranks 0 and 1 (node a) send K messages each to rank 4 (node c), through
 * b; rank 5, c's other rank, sends K over shm.  Rank 4 takes all 3K with
 * receives that are mostly ANY_SOURCE and ANY_TAG (duplicated on shm, myri
 * and the forwarded path, while the forwarded chunks arrive as system
 * messages on myri, which they must not match: T-SYS-1) and every fourth
 * specific to rank 0. */
enum { K = 15, SENDERS = 3, RELAYED = 0, RELAYS_COUNTED = 1, RECEIVED = 2 };

static const size_t sizes[] = { 0, 1, 1000, 70000, 300000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSIZE 300000

static uint8_t byte_of(int src, int k, size_t i)
{
    return (uint8_t)(src * 59 + k * 31 + i * 7);
}

static size_t size_of(int k)
{
    return sizes[k % NSIZES];
}

static size_t bytes_of_k(void)
{
    size_t t = 0;
    for (int k = 0; k < K; k++)
        t += size_of(k);
    return t;
}

static int send_k(md_t *md, int rank, int to)
{
    static uint8_t buf[K][MAXSIZE];
    md_request_t s[K];

    memset(s, 0, sizeof(s));
    for (int k = 0; k < K; k++) {
        for (size_t i = 0; i < size_of(k); i++)
            buf[k][i] = byte_of(rank, k, i);
        if (md_isend(md, &s[k], buf[k], size_of(k), to, rank, 5, CTX, 0) != MD_OK)
            return 20;
    }
    for (int k = 0; k < K; k++)
        if (forkjob_wait(md, &s[k]) != 0 || s[k].status.error != MD_OK)
            return 21;
    return 0;
}

/* 0 if the message in buf, of status st, is the next one its sender owes. */
static int check_next(const md_recv_status_t *st, const uint8_t *buf, int next[6])
{
    int src = st->src_world;

    if (src != 0 && src != 1 && src != 5)
        return 40;              /* nobody else sends */
    if (st->src_rank != src || st->tag != 5 || next[src] >= K)
        return 41;              /* a wrong status, or one message too many */
    int k = next[src]++;
    if (st->size != size_of(k))
        return 42;              /* overtaken: its sender's messages out of order */
    for (size_t i = 0; i < st->size; i++)
        if (buf[i] != byte_of(src, k, i))
            return 43;
    return 0;
}

static int receive_all(md_t *md)
{
    static uint8_t buf[MAXSIZE];
    int next[6] = { 0 }, rc = 0;

    for (int n = 0; n < SENDERS * K && rc == 0; n++) {
        md_request_t r = { 0 };
        int specific = n % 4 == 3 && next[0] < K;
        memset(buf, 0xee, sizeof(buf));
        if (md_irecv(md, &r, buf, sizeof(buf), specific ? 0 : -1, specific ? 0 : MD_ANY_SOURCE,
                     specific ? 5 : MD_ANY_TAG, CTX, NULL) != MD_OK || forkjob_wait(md, &r) != 0)
            rc = 30;
        else if (specific && r.status.src_world != 0)
            rc = 31;
        else
            rc = check_next(&r.status, buf, next);
    }
    if (rc == 0 && (next[0] != K || next[1] != K || next[5] != K))
        rc = 32;                /* lost */
    return rc;
}

/* What the forwarding counters of each rank must say afterwards: a's ranks
 * originated K each, c's rank 4 had 2K delivered, b's ranks relayed 2K
 * between them, and nothing else took the forwarded way. */
static int counted(md_t *md, int rank, forkjob_shared_t *sh)
{
    md_fwd_counters_t c;
    uint64_t kbytes = bytes_of_k();

    md_get_fwd_counters(md, &c);
    switch (rank) {
    case 0:
    case 1:
        return c.originated_msgs == K && c.originated_bytes == kbytes && c.relayed_msgs == 0 ? 0
                                                                                              : 50;
    case 4:
        return c.delivered_msgs == 2 * K && c.delivered_bytes == 2 * kbytes ? 0 : 51;
    case 2:
    case 3:
        atomic_fetch_add(&sh->counters[RELAYED], (int)c.relayed_msgs);
        atomic_fetch_add(&sh->counters[RELAYS_COUNTED], 1);
        if (c.originated_msgs != 0 || c.delivered_msgs != 0)
            return 52;
        for (double end = forkjob_now_s() + 10;
             rank == 2 && atomic_load(&sh->counters[RELAYS_COUNTED]) < 2 && forkjob_now_s() < end;)
            sched_yield();
        return rank == 3 || atomic_load(&sh->counters[RELAYED]) == 2 * K ? 0 : 54;
    default:
        return c.originated_msgs == 0 && c.delivered_msgs == 0 && c.relayed_msgs == 0 ? 0 : 53;
    }
}

/* b's ranks compute, without an MPI call, until c has everything: only
 * their progress threads forward (T-IND-7); 60 if c waited 30 s in vain. */
static int compute_until_received(forkjob_shared_t *sh)
{
    volatile double x = 1;

    for (double end = forkjob_now_s() + 30; atomic_load(&sh->counters[RECEIVED]) == 0;) {
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
        if (forkjob_now_s() > end)
            return 60;
    }
    return 0;
}

/* arg: a non-zero int if b's ranks compute meanwhile. */
static int forwarded_meets_shm(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0, relays_compute = *(const int *)arg;

    if (rank == 0 || rank == 1 || rank == 5)
        rc = send_k(md, rank, 4);
    else if (rank == 4)
        rc = receive_all(md);
    if (rank == 4)
        atomic_store(&sh->counters[RECEIVED], 1);
    if ((rank == 2 || rank == 3) && relays_compute)
        rc = compute_until_received(sh);
    rc = forkjob_end_drained(md, sh, size, rc);
    if (rc == 0)
        rc = counted(md, rank, sh);
    return rc;
}

Test(threenode, forwarded_and_shm_messages_meet_at_any_source_receives, .timeout = 90)
{
    int relays_compute = 0;
    int rc = forkjob_run(6, nodes, confs, forwarded_meets_shm, &relays_compute, 80);
    cr_assert_eq(rc, 0, "status %d", rc);
}

Test(threenode, the_relays_forward_while_their_ranks_compute, .timeout = 90)
{
    int relays_compute = 1;
    int rc = forkjob_run(6, nodes, confs, forwarded_meets_shm, &relays_compute, 80);
    cr_assert_eq(rc, 0, "status %d (60: nothing forwarded while b's ranks computed)", rc);
}

/* T-IND-5: 1 MiB from a to c passes b's relay rank in 16 KiB chunks with a
 * window of 2, while c takes nothing in until the relay's own receive of a
 * small message from a, sent after the large one, is done: that receive
 * does not wait for the relaying, the relay never holds more than its
 * window, holds nothing at the end, and c gets every byte.  The relay is
 * the next hop a's route names; progress threads are off, so c does not
 * drain while it waits. */
enum { BIG = 1 << 20, CHUNK = 16 * 1024, WINDOW = 2, RELAY = 3, RELAY_DONE = 4 };

static uint8_t big_byte(size_t i)
{
    return (uint8_t)(i * 13 + 5);
}

static int bounded_origin(md_t *md, forkjob_shared_t *sh)
{
    static uint8_t big[BIG];
    md_request_t q[2] = { { 0 } };
    int32_t relay = -1;
    int v = 77;

    if (md_route(md, 4, BIG, &relay) < 0 || (relay != 2 && relay != 3))
        return 70;              /* a's route to c goes through b */
    atomic_store(&sh->counters[RELAY], relay + 1);
    for (size_t i = 0; i < BIG; i++)
        big[i] = big_byte(i);
    if (md_isend(md, &q[0], big, BIG, 4, 0, 1, CTX, 0) != MD_OK ||
        md_isend(md, &q[1], &v, sizeof(v), relay, 0, 2, CTX, 0) != MD_OK ||
        forkjob_wait(md, &q[0]) != 0 || forkjob_wait(md, &q[1]) != 0)
        return 71;
    return 0;
}

static int bounded_relay(md_t *md, forkjob_shared_t *sh)
{
    md_request_t q = { 0 };
    md_fwd_counters_t c;
    int v = 0;

    if (md_irecv(md, &q, &v, sizeof(v), 0, 0, 2, CTX, NULL) != MD_OK ||
        forkjob_wait(md, &q) != 0 || v != 77)
        return 72;
    md_get_fwd_counters(md, &c);
    atomic_store(&sh->counters[RELAY_DONE], 1);
    return c.relayed_bytes < BIG / 2 ? 0 : 73;  /* its receive waited for the relaying */
}

static int bounded_destination(md_t *md, forkjob_shared_t *sh)
{
    static uint8_t big[BIG];
    md_request_t q = { 0 };

    for (double end = forkjob_now_s() + 30;
         atomic_load(&sh->counters[RELAY_DONE]) == 0 && forkjob_now_s() < end;)
        sched_yield();
    if (md_irecv(md, &q, big, BIG, 0, 0, 1, CTX, NULL) != MD_OK || forkjob_wait(md, &q) != 0 ||
        q.status.size != BIG)
        return 74;
    for (size_t i = 0; i < BIG; i++)
        if (big[i] != big_byte(i))
            return 75;
    return 0;
}

static int relay_bounded(md_t *md, int rank, int size, forkjob_shared_t *sh, void *arg)
{
    int rc = 0;
    md_fwd_counters_t c;

    (void)arg;
    if (rank == 0)
        rc = bounded_origin(md, sh);
    else if (rank == 4)
        rc = bounded_destination(md, sh);
    else if (rank == 2 || rank == 3) {
        while (atomic_load(&sh->counters[RELAY]) == 0)
            md_progress(md);
        if (atomic_load(&sh->counters[RELAY]) == rank + 1)
            rc = bounded_relay(md, sh);
    }
    rc = forkjob_end_drained(md, sh, size, rc);
    md_get_fwd_counters(md, &c);
    if (rc == 0 && atomic_load(&sh->counters[RELAY]) == rank + 1 &&
        (c.relayed_bytes != BIG || c.relayed_chunks != BIG / CHUNK || c.relay_peak_bytes == 0 ||
         c.relay_peak_bytes > WINDOW * (CHUNK + MD_FWD_WIRE_PART) || c.relay_held_bytes != 0)) {
        fprintf(stderr, "threenode_test: relay rank %d: relayed %llu bytes in %llu chunks "
                "(want %d in %d), held at most %llu (window %d), still holds %llu\n", rank,
                (unsigned long long)c.relayed_bytes, (unsigned long long)c.relayed_chunks, BIG,
                BIG / CHUNK, (unsigned long long)c.relay_peak_bytes,
                WINDOW * (CHUNK + (int)MD_FWD_WIRE_PART), (unsigned long long)c.relay_held_bytes);
        rc = 76;                /* held more than its window, or kept some */
    }
    return rc;
}

Test(threenode, a_relay_holds_at_most_its_window_and_still_receives, .timeout = 90)
{
    static const char *const env[][2] = { { "MULTIDEV_FWD_CHUNK", "16k" },
                                          { "MULTIDEV_FWD_WINDOW", "2" },
                                          { "MULTIDEV_PROGRESS_THREAD", "off" },
                                          { NULL, NULL } };
    int rc = forkjob_run_env(env, 6, nodes, confs, relay_bounded, NULL, 80);
    cr_assert_eq(rc, 0, "status %d (73: the relay's receive waited; 76: it held more than its "
                 "window)", rc);
}
