/*
 * twonode_test.c - the multidevice over two real kinds of subdevice: two
 * emulated nodes with two ranks each, shm inside a node and myri (the
 * emulated Myrinet NIC, each node's nicd) between them, so every rank has
 * two subdevices and ANY_SOURCE receives are duplicated across them
 * (seed-000 §4.2, §4.3).  The tests that split one pair's traffic over two
 * networks by size use the tnet test network twice (tneta, tnetb).
 */
#include <criterion/criterion.h>
#include <poll.h>
#include <sched.h>
#include <string.h>

#include "forkjob.h"

#define CTX 6
#define NET "myri"

static const char *const nodes[] = { "a", "a", "b", "b" };
static const char *const confs[][2] = {
    { "a", "multidev-node-config 1\nnode a\ndevice shm\ndevice " NET "\n"
           "route a 0 inf shm -\nroute b 0 inf " NET " -\n" },
    { "b", "multidev-node-config 1\nnode b\ndevice shm\ndevice " NET "\n"
           "route b 0 inf shm -\nroute a 0 inf " NET " -\n" },
    { NULL, NULL },
};

/* Each test's nodes get their nicd in a rundir of the test's own. */
static void nic_rundir_make(void)
{
    cr_assert_eq(forkjob_nic_rundir_make(), 0, "make check sets MULTIDEV_NICD");
}

TestSuite(twonode, .init = nic_rundir_make, .fini = forkjob_nic_rundir_remove);

/* T-P2P-1: the subdevice follows the connection table; counters show it. */
static int dispatch_by_table(md_t *md, int rank, int size, forkjob_shared_t *sh,
                             void *arg)
{
    int shm = forkjob_subdev_index(md, "shm"), net = forkjob_subdev_index(md, NET);
    int same = rank ^ 1, other = (rank + 2) % 4, rc = 0;
    char out[32] = "x", in[2][32];
    md_request_t s[2] = { { 0 } }, r[2] = { { 0 } };

    (void)arg;
    if (md_route(md, same, 8, NULL) != shm || md_route(md, other, 8, NULL) != net)
        rc = 20;
    md_irecv(md, &r[0], in[0], sizeof(in[0]), same, same, 1, CTX, NULL);
    md_irecv(md, &r[1], in[1], sizeof(in[1]), other, other, 1, CTX, NULL);
    md_isend(md, &s[0], out, sizeof(out), same, rank, 1, CTX, 0);
    md_isend(md, &s[1], out, sizeof(out), other, rank, 1, CTX, 0);
    for (int i = 0; i < 2 && rc == 0; i++)
        if (forkjob_wait(md, &s[i]) || forkjob_wait(md, &r[i]))
            rc = 21;
    if (rc == 0 && (r[0].status.subdev != shm || r[1].status.subdev != net))
        rc = 22;
    if (rc == 0 && (md_subdev(md, shm)->counters.msgs_sent != 1 ||
                    md_subdev(md, net)->counters.msgs_sent != 1))
        rc = 23;
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(twonode, each_peer_goes_over_its_subdevice, .timeout = 60)
{
    cr_assert_eq(forkjob_run(4, nodes, confs, dispatch_by_table, NULL, 50), 0);
}

/* Progresses until the AnyQueue is empty (losing duplicates are cancelled
 * from progress); its length then, 0 if it drained. */
static int anyq_drained(md_t *md)
{
    md_anyq_counters_t c;

    for (int i = 0; i < 100000; i++) {
        md_get_anyq_counters(md, &c);
        if (c.in_queue == 0)
            return 0;
        md_progress(md);
    }
    md_get_anyq_counters(md, &c);
    return c.in_queue;
}

/* T-ANY-3/4: rank 0 receives with ANY_SOURCE while ranks 1 (shm), 2 and 3
 * (myri) send at once; every message is received exactly once with the
 * right source, whichever subdevice wins each duplicate. */
enum { ROUNDS = 50 };

static int any_source_storm(md_t *md, int rank, int size, forkjob_shared_t *sh,
                            void *arg)
{
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        int seen[4][ROUNDS] = { { 0 } };
        for (int i = 0; i < 3 * ROUNDS && rc == 0; i++) {
            md_request_t r = { 0 };
            int v[2] = { -1, -1 };
            if (md_irecv(md, &r, v, sizeof(v), -1, MD_ANY_SOURCE, 2, CTX,
                         NULL) != MD_OK || forkjob_wait(md, &r) != 0)
                rc = 20;
            else if (r.status.src_world < 1 || r.status.src_world > 3 ||
                     v[0] != r.status.src_world || v[1] < 0 || v[1] >= ROUNDS ||
                     seen[v[0]][v[1]]++)
                rc = 21;    /* wrong source, or a duplicate */
        }
        for (int s = 1; s < 4 && rc == 0; s++)
            for (int k = 0; k < ROUNDS; k++)
                if (seen[s][k] != 1)
                    rc = 22;    /* lost */
        if (md_indirect_in_flight(md) != 0)
            rc = 23;
        if (rc == 0 && anyq_drained(md) != 0)
            rc = 24;    /* a losing duplicate was never cancelled */
    } else {
        md_request_t s[ROUNDS];
        int v[ROUNDS][2];
        memset(s, 0, sizeof(s));
        for (int k = 0; k < ROUNDS; k++) {
            v[k][0] = rank;
            v[k][1] = k;
            rc |= md_isend(md, &s[k], v[k], sizeof(v[k]), 0, rank, 2, CTX, 0);
        }
        for (int k = 0; k < ROUNDS && rc == 0; k++)
            rc = forkjob_wait(md, &s[k]) ? 30 : 0;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(twonode, any_source_across_two_subdevices_loses_and_duplicates_nothing,
     .timeout = 60)
{
    cr_assert_eq(forkjob_run(4, nodes, confs, any_source_storm, NULL, 50), 0);
}

/* T-ANY-2: a message already here is taken by the subdevice that holds it
 * (the Iprobe fast path): the receive is bound to that subdevice and no
 * duplicate is posted anywhere. */
static int immediate_path(md_t *md, int rank, int size, forkjob_shared_t *sh,
                          void *arg)
{
    md_request_t r = { 0 };
    int v = 0, rc = 0;

    (void)arg;
    if (rank == 0) {
        md_anyq_counters_t before, after;
        md_recv_status_t st;
        int flag = 0;
        for (long i = 0; i < 20000000 && !flag; i++)
            md_iprobe(md, 2, 2, 9, CTX, NULL, &flag, &st);
        md_get_anyq_counters(md, &before);
        if (!flag || md_irecv(md, &r, &v, sizeof(v), -1, MD_ANY_SOURCE, 9, CTX,
                              NULL) != MD_OK)
            rc = 20;
        md_get_anyq_counters(md, &after);
        if (rc == 0 && r.subdev != forkjob_subdev_index(md, NET))
            rc = 21;    /* not bound to the subdevice that holds the message */
        else if (rc == 0 && (after.receives != before.receives ||
                             after.duplicates != before.duplicates || after.in_queue != 0))
            rc = 22;    /* duplicated although the message was here */
        else if (rc == 0 && (forkjob_wait(md, &r) != 0 || v != 77 ||
                             r.status.src_world != 2 || r.status.tag != 9 ||
                             r.status.size != sizeof(v)))
            rc = 23;
    } else if (rank == 2 && forkjob_send_int(md, 0, 2, 9, CTX, 77) != 0) {
        rc = 30;
    }
    return forkjob_end(md, sh, size, rc);
}

Test(twonode, a_message_already_here_is_received_without_duplicates, .timeout = 60)
{
    cr_assert_eq(forkjob_run(4, nodes, confs, immediate_path, NULL, 50), 0);
}

/* T-ANY-4, forced: one ANY_SOURCE receive is duplicated on shm and myri,
 * then rank 1 (shm) and rank 2 (myri) each send it a message while rank 0
 * makes no progress, so both subdevices find a match for the same receive
 * when it next progresses.  One wins; the other message must wait for the
 * next receive, once, with its own status.  A shm send is in the receiver's
 * queue when it completes; a myri send is done when its NIC has the data,
 * so rank 0 waits, without progressing, until its own NIC has written the
 * arrival to its completion queue (the descriptor the progress thread
 * sleeps on becomes readable). */
enum { RACE_GO, RACE_SENT };

static int wait_without_progress_for_an_arrival(md_t *md, const char *name)
{
    md_subdev_t *sd = (md_subdev_t *)md_subdev(md, forkjob_subdev_index(md, name));
    struct pollfd p = { .fd = sd->ops->wait_fd(sd, 0), .events = POLLIN };

    return p.fd >= 0 && poll(&p, 1, 20000) == 1 ? 0 : -1;
}

static int both_arrive_at_once(md_t *md, int rank, int size, forkjob_shared_t *sh,
                               void *arg)
{
    md_request_t r[2] = { { 0 } };
    int v[2] = { -1, -1 }, rc = 0;

    (void)arg;
    if (rank == 0) {
        md_anyq_counters_t c;
        if (md_irecv(md, &r[0], &v[0], sizeof(v[0]), -1, MD_ANY_SOURCE, 10, CTX,
                     NULL) != MD_OK || r[0].subdev != -1)
            rc = 20;    /* two subdevices: duplicated */
        md_get_anyq_counters(md, &c);
        if (rc == 0 && (c.duplicates != 2 || c.in_queue != 1))
            rc = 21;
        atomic_store(&sh->counters[RACE_GO], 1);
        while (atomic_load(&sh->counters[RACE_SENT]) < 2)
            sched_yield();                      /* no progress meanwhile */
        if (rc == 0 && wait_without_progress_for_an_arrival(md, NET) != 0)
            rc = 28;    /* myri's message never reached this host */
        if (rc == 0 && forkjob_wait(md, &r[0]) != 0)
            rc = 22;
        if (rc == 0 && (md_irecv(md, &r[1], &v[1], sizeof(v[1]), -1, MD_ANY_SOURCE, 10,
                                 CTX, NULL) != MD_OK || r[1].subdev < 0))
            rc = 23;    /* the loser's message was not kept for the next receive */
        if (rc == 0 && forkjob_wait(md, &r[1]) != 0)
            rc = 24;
        for (int k = 0; k < 2 && rc == 0; k++)
            if (r[k].status.src_world != v[k] || r[k].status.tag != 10 ||
                r[k].status.size != sizeof(int))
                rc = 25;    /* a status that is not its message's */
        if (rc == 0 && !((v[0] == 1 && v[1] == 2) || (v[0] == 2 && v[1] == 1)))
            rc = 26;    /* lost or duplicated */
        if (rc == 0) {
            md_recv_status_t st;
            int flag = 1;
            for (int i = 0; i < 1000; i++)
                md_progress(md);
            md_iprobe(md, -1, MD_ANY_SOURCE, 10, CTX, NULL, &flag, &st);
            if (flag || anyq_drained(md) != 0)
                rc = 27;    /* a third message, or a duplicate left behind */
        }
    } else if (rank == 1 || rank == 2) {
        while (atomic_load(&sh->counters[RACE_GO]) == 0)
            md_progress(md);
        if (forkjob_send_int(md, 0, rank, 10, CTX, rank) != 0)
            rc = 30;
        atomic_fetch_add(&sh->counters[RACE_SENT], 1);
    }
    return forkjob_end(md, sh, size, rc);
}

Test(twonode, two_arrivals_at_once_for_one_any_source_receive, .timeout = 60)
{
    static const char *const env[][2] = { { "MULTIDEV_PROGRESS_THREAD", "off" },
                                          { NULL, NULL } };

    for (int i = 0; i < 5; i++) {
        int rc = forkjob_run_env(env, 4, nodes, confs, both_arrive_at_once, NULL, 50);
        cr_assert_eq(rc, 0, "run %d: status %d", i, rc);
    }
}

/* T-ANY-5: wildcard and specific receives interleaved match in posting
 * order: receive i gets message i whatever subdevice carries it. */
static int posting_order(md_t *md, int rank, int size, forkjob_shared_t *sh,
                         void *arg)
{
    enum { N = 8 };
    md_request_t r[N], s[N];
    int v[N], rc = 0;

    (void)arg;
    memset(r, 0, sizeof(r));
    memset(s, 0, sizeof(s));
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            md_irecv(md, &r[i], &v[i], sizeof(v[i]), i % 2 ? -1 : 2,
                     i % 2 ? MD_ANY_SOURCE : 2, 3, CTX, NULL);
        atomic_store(&sh->counters[0], 1);
        for (int i = 0; i < N && rc == 0; i++)
            if (forkjob_wait(md, &r[i]) != 0 || v[i] != i ||
                r[i].status.src_world != 2)
                rc = 20 + i;
    } else if (rank == 2) {
        while (atomic_load(&sh->counters[0]) == 0)
            md_progress(md);
        for (int i = 0; i < N; i++) {
            v[i] = i;
            md_isend(md, &s[i], &v[i], sizeof(v[i]), 0, 2, 3, CTX, 0);
        }
        for (int i = 0; i < N && rc == 0; i++)
            rc = forkjob_wait(md, &s[i]) ? 30 : 0;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(twonode, wildcard_and_specific_receives_match_in_posting_order,
     .timeout = 60)
{
    cr_assert_eq(forkjob_run(4, nodes, confs, posting_order, NULL, 50), 0);
}

/* T-ANY-7 and T-ANY-8: cancel of a duplicated ANY_SOURCE receive; and a
 * communicator whose members one subdevice serves gets no duplicates. */
static int cancel_and_single(md_t *md, int rank, int size, forkjob_shared_t *sh,
                             void *arg)
{
    md_request_t r = { 0 }, r2 = { 0 }, s = { 0 };
    int v = 0, rc = 0;

    (void)arg;
    if (rank == 0) {
        md_comm_t *local;
        int32_t members[] = { 0, 1 };

        if (md_irecv(md, &r, &v, sizeof(v), -1, MD_ANY_SOURCE, 4, CTX, NULL) != MD_OK ||
            r.subdev != -1)
            rc = 20;    /* two subdevices: duplicated, owned by the multidevice */
        else if (md_cancel_recv(md, &r) != MD_OK || !md_request_is_complete(&r) ||
                 !r.status.cancelled)
            rc = 21;
        md_comm_create(md, 2, members, &local);
        if (rc == 0 && (md_irecv(md, &r2, &v, sizeof(v), -1, MD_ANY_SOURCE, 5,
                                 CTX, local) != MD_OK || r2.subdev < 0))
            rc = 22;    /* one subdevice serves the communicator: no copies */
        atomic_store(&sh->counters[0], 1);
        if (rc == 0 && (forkjob_wait(md, &r2) != 0 || v != 42))
            rc = 23;
        md_comm_free(md, local);
    } else if (rank == 1) {
        v = 42;
        while (atomic_load(&sh->counters[0]) == 0)
            md_progress(md);
        if (md_isend(md, &s, &v, sizeof(v), 0, 1, 5, CTX, 0) != MD_OK ||
            forkjob_wait(md, &s) != 0)
            rc = 30;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(twonode, cancel_any_source_and_no_duplicates_with_one_subdevice,
     .timeout = 60)
{
    cr_assert_eq(forkjob_run(4, nodes, confs, cancel_and_single, NULL, 50), 0);
}

/* Non-overtaking for MPI_ANY_SOURCE when a pair's messages are split by
 * size over two networks: X's large message waits on tnetb behind Y's,
 * X's later small one is first on tneta.  A wildcard receive must take X's
 * large one before X's small one (the per-subdevice first matches alone
 * would pick the small one). */
static const char *const split_nodes[] = { "r", "x", "y" };
#define SPLIT_CONF(me, p1, p2) \
    "multidev-node-config 1\nnode " me "\ndevice tneta\ndevice tnetb\n" \
    "route " me " 0 inf tneta -\n" \
    "route " p1 " 0 1023 tneta -\nroute " p1 " 1024 inf tnetb -\n" \
    "route " p2 " 0 1023 tneta -\nroute " p2 " 1024 inf tnetb -\n"
static const char *const split_confs[][2] = {
    { "r", SPLIT_CONF("r", "x", "y") },
    { "x", SPLIT_CONF("x", "r", "y") },
    { "y", SPLIT_CONF("y", "r", "x") },
    { NULL, NULL },
};

enum { Y_SENT = 1, ALL_SENT = 2 };

static int earliest_of_sender(md_t *md, int rank, int size, forkjob_shared_t *sh,
                              void *arg)
{
    static char big[4096], small[16], in[4096];
    md_request_t s1 = { 0 }, s2 = { 0 };
    int rc = 0;

    (void)arg;
    if (rank == 2) {                    /* y: one large message */
        memset(big, 'y', sizeof(big));
        rc = md_isend(md, &s1, big, sizeof(big), 0, 2, 7, CTX, 0) != MD_OK ||
             forkjob_wait(md, &s1) != 0;
        atomic_store(&sh->counters[Y_SENT], 1);
    } else if (rank == 1) {             /* x: large, then small */
        while (atomic_load(&sh->counters[Y_SENT]) == 0 ||
               atomic_load(&sh->counters[3]) == 0)
            md_progress(md);
        memset(big, 'X', sizeof(big));
        memset(small, 'x', sizeof(small));
        rc = md_isend(md, &s1, big, sizeof(big), 0, 1, 7, CTX, 0) != MD_OK ||
             md_isend(md, &s2, small, sizeof(small), 0, 1, 7, CTX, 0) != MD_OK ||
             forkjob_wait(md, &s1) != 0 || forkjob_wait(md, &s2) != 0;
        atomic_store(&sh->counters[ALL_SENT], 1);
    } else {                            /* r */
        md_recv_status_t st;
        int flag = 0;
        /* y's message must be here before x sends */
        while (!flag)
            md_iprobe(md, 2, 2, 7, CTX, NULL, &flag, &st);
        atomic_store(&sh->counters[3], 1);
        /* x's sends completed: both messages are in r's sockets; progress
         * takes them in (tnet delivers at once) */
        while (atomic_load(&sh->counters[ALL_SENT]) == 0)
            md_progress(md);
        for (int i = 0; i < 50; i++)
            md_progress(md);
        char seen_x_big = 0;
        for (int k = 0; k < 3 && rc == 0; k++) {
            md_request_t r = { 0 };
            if (md_irecv(md, &r, in, sizeof(in), -1, MD_ANY_SOURCE, 7, CTX,
                         NULL) != MD_OK || forkjob_wait(md, &r) != 0)
                rc = 20;
            else if (r.status.src_world == 1 && r.status.size == sizeof(small) &&
                     !seen_x_big)
                rc = 21;    /* x's small message overtook its large one */
            else if (r.status.src_world == 1 && r.status.size == sizeof(big))
                seen_x_big = 1;
        }
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(twonode, any_source_takes_a_senders_earliest_message_across_networks,
     .timeout = 60)
{
    cr_assert_eq(forkjob_run(3, split_nodes, split_confs, earliest_of_sender,
                             NULL, 50), 0);
}

/* The same storm as any_source_storm, but each cross-node pair splits its
 * messages by size over two networks (tneta up to 1 KiB, tnetb above), as
 * OSCAR-like set-ups do: every sender's messages must still come in its
 * sending order, once each, and complete. */
static const char *const split2_confs[][2] = {
    { "a", "multidev-node-config 1\nnode a\ndevice shm\ndevice tneta reorder=1\n"
           "device tnetb\nroute a 0 inf shm -\n"
           "route b 0 1023 tneta -\nroute b 1024 inf tnetb -\n" },
    { "b", "multidev-node-config 1\nnode b\ndevice shm\ndevice tneta reorder=1\n"
           "device tnetb\nroute b 0 inf shm -\n"
           "route a 0 1023 tneta -\nroute a 1024 inf tnetb -\n" },
    { NULL, NULL },
};

static size_t storm_len(int sender, int k)
{
    static const size_t choice[] = { 0, 4, 64, 1024, 9000, 70000 };
    return choice[(unsigned)(sender * 7 + k * 3) % 6];
}

static int split_storm(md_t *md, int rank, int size, forkjob_shared_t *sh,
                       void *arg)
{
    static uint8_t buf[8][70000];
    int rc = 0;

    (void)arg;
    if (rank == 0) {
        int next[4] = { 0 }, posted = 0, done = 0, total = 3 * ROUNDS;
        md_request_t r[8];
        memset(r, 0, sizeof(r));
        for (; posted < 8; posted++)
            md_irecv(md, &r[posted], buf[posted], sizeof(buf[0]), -1,
                     MD_ANY_SOURCE, 8, CTX, NULL);
        while (done < total && rc == 0) {
            int k = done % 8;
            if (forkjob_wait(md, &r[k]) != 0) {
                rc = 20;
                break;
            }
            int src = r[k].status.src_world;
            if (src < 1 || src > 3 || r[k].status.size != storm_len(src, next[src]) ||
                (r[k].status.size > 0 && buf[k][0] != (uint8_t)next[src]))
                rc = 21;    /* lost, duplicated or overtaken */
            next[src]++;
            done++;
            if (posted < total) {
                md_irecv(md, &r[k], buf[k], sizeof(buf[0]), -1, MD_ANY_SOURCE,
                         8, CTX, NULL);
                posted++;
            }
        }
    } else {
        static uint8_t out[ROUNDS][70000];
        md_request_t s[ROUNDS];
        memset(s, 0, sizeof(s));
        for (int k = 0; k < ROUNDS; k++) {
            size_t len = storm_len(rank, k);
            memset(out[k], k, len);
            rc |= md_isend(md, &s[k], out[k], len, 0, rank, 8, CTX, 0);
        }
        for (int k = 0; k < ROUNDS && rc == 0; k++)
            rc = forkjob_wait(md, &s[k]) ? 30 : 0;
    }
    forkjob_finish(sh);
    forkjob_serve(md, sh, size);
    return rc;
}

Test(twonode, any_source_storm_with_pairs_split_over_two_networks,
     .timeout = 90)
{
    cr_assert_eq(forkjob_run(4, nodes, split2_confs, split_storm, NULL, 80), 0);
}
