/* nic_test.c - the firmware core: rings and doorbells, sleeping and
 * waking, back-pressure, reclaiming a dead process, nicd started on demand
 * (exactly one per node) and exiting when idle, nicctl, a dead firmware,
 * the in-process firmware and the hosts that lend it turns or sleep on its
 * wire. */
#include "config.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/nic_ctl_proto.h"
#include "core/nic_fw_thread.h"
#include "core/nic_host.h"
#include "test_job.h"

static char rundir[64];

static pid_t rundir_owner;

static void remove_rundir(void)
{
    char cmd[128];
    if (getpid() != rundir_owner)
        return;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rundir);
    if (system(cmd) != 0) {
        /* a leftover directory under /tmp is harmless */
    }
}

static void fresh_rundir(void)
{
    snprintf(rundir, sizeof(rundir), "/tmp/nic-test-XXXXXX");
    cr_assert_not_null(mkdtemp(rundir));
    setenv("MULTIDEV_NIC_RUNDIR", rundir, 1);
    rundir_owner = getpid();
    atexit(remove_rundir);
}

static uint64_t now_ms(void)
{
    return nic_now_ns() / 1000000;
}

/* ------------------------------------------------------------------ */

Test(ring, wrap_full_empty_and_corrupt_producer, .timeout = 10)
{
    static nic_entry_t slots[8];
    _Atomic uint32_t prod = 0, cons = 0;
    nic_ring_t p, c;

    nic_ring_init(&p, slots, 8, &prod, &cons, 1);
    nic_ring_init(&c, slots, 8, &prod, &cons, 0);
    cr_assert_null(nic_ring_peek(&c), "an empty ring yields nothing");
    uint32_t next_in = 0, next_out = 0;
    for (int lap = 0; lap < 5; lap++) {
        nic_entry_t *e;
        while ((e = nic_ring_slot(&p)) != NULL) {
            memcpy(e->bytes, &next_in, 4);
            nic_ring_commit(&p);
            next_in++;
        }
        cr_assert_eq(next_in - next_out, 8, "full after exactly 8 entries");
        cr_assert_eq(nic_ring_space(&p), 0);
        for (int k = 0; k < 5; k++) {   /* drain part, so the laps misalign */
            e = nic_ring_peek(&c);
            cr_assert_not_null(e);
            uint32_t v;
            memcpy(&v, e->bytes, 4);
            cr_assert_eq(v, next_out, "entries come out in order");
            nic_ring_release(&c);
            next_out++;
        }
    }
    while (nic_ring_peek(&c) != NULL)
        nic_ring_release(&c);
    cr_assert(!nic_ring_corrupt(&c));
    atomic_store(&prod, atomic_load(&prod) + 100);   /* a hostile producer */
    cr_assert_not_null(nic_ring_peek(&c));
    cr_assert(nic_ring_corrupt(&c));
}

/* ------------------------------------------------------------------ */

static nic_fw_thread_t *start_echo(const char *node, int spin_us)
{
    nic_fw_config_t cfg;
    nic_fw_thread_t *thr;
    nic_fw_config_defaults(&cfg, NULL);
    cfg.node = node;
    cfg.nic = "nic0";
    cfg.pers = "echo";
    cfg.rundir = rundir;
    cfg.spin_us = spin_us;
    cfg.idle_exit_ms = -1;
    cr_assert_eq(nic_fw_thread_start(&cfg, &thr), NIC_OK);
    return thr;
}

static nic_host_t *attach(const char *node)
{
    nic_attach_opts_t o = { .node = node, .nic = "nic0", .rundir = rundir };
    nic_host_t *h;
    cr_assert_eq(nic_host_attach(&o, &h), NIC_OK);
    return h;
}

Test(doorbell, a_sleeping_firmware_is_woken_by_the_doorbell, .timeout = 30)
{
    fresh_rundir();
    nic_fw_thread_t *thr = start_echo("d1", 50);
    nic_host_t *h = attach("d1");
    nic_ep_t *ep;
    cr_assert_eq(nic_ep_open(h, test_jobp(7), 16, 0, 16, &ep), NIC_OK);

    for (int round = 0; round < 20; round++) {
        /* Wait until the firmware has given up spinning and blocks. */
        uint64_t end = now_ms() + 5000;
        while (!atomic_load(&h->status->fw_sleeping) && now_ms() < end)
            usleep(100);
        cr_assert(atomic_load(&h->status->fw_sleeping), "an idle firmware must block");
        /* loops is published every 256 turns: one wake-up in the 20 ms
         * (a deadline of its own, then its spin time) may move it once;
         * spinning moves it by thousands */
        uint64_t loops = atomic_load(&h->status->loops);
        usleep(20000);
        uint64_t moved = atomic_load(&h->status->loops) - loops;
        cr_assert_leq(moved, 256, "a sleeping firmware must not spin (%llu turns in 20 ms)",
                      (unsigned long long)moved);

        nic_entry_t *e = nic_ep_sq_slot(ep);
        cr_assert_not_null(e);
        memset(e->bytes, 0, sizeof(e->bytes));
        memcpy(e->bytes, &round, sizeof(round));
        uint64_t t0 = nic_now_ns();
        nic_ep_sq_post(ep);              /* doorbell, then the kick */
        cr_assert_eq(nic_ep_wait(ep, 2000), NIC_OK, "no completion after the doorbell");
        cr_assert_lt(nic_now_ns() - t0, 500000000ull);
        nic_entry_t *c = nic_ep_cq_peek(ep);
        cr_assert_not_null(c);
        int v;
        memcpy(&v, c->bytes, sizeof(v));
        cr_assert_eq(v, round);
        nic_ep_cq_release(ep);
    }
    cr_assert_eq(nic_ep_close(ep), NIC_OK);
    nic_host_detach(h);
    nic_fw_thread_stop(thr);
}

Test(doorbell, a_full_completion_queue_pushes_back, .timeout = 30)
{
    fresh_rundir();
    nic_fw_thread_t *thr = start_echo("d2", 200);
    nic_host_t *h = attach("d2");
    nic_ep_t *ep;
    cr_assert_eq(nic_ep_open(h, test_jobp(7), 16, 0, 4, &ep), NIC_OK);   /* CQ of 4 */
    uint32_t posted = 0, got = 0;
    for (; posted < 16; posted++) {
        nic_entry_t *e = nic_ep_sq_slot(ep);
        cr_assert_not_null(e);
        memcpy(e->bytes, &posted, 4);
        nic_ep_sq_post(ep);
    }
    usleep(100000);
    cr_assert_eq(atomic_load(&ep->sh->sq_cons), 4, "the firmware must stop at a full CQ");
    uint64_t end = now_ms() + 5000;
    while (got < 16 && now_ms() < end) {
        nic_entry_t *c = nic_ep_cq_peek(ep);
        if (c == NULL)
            continue;
        uint32_t v;
        memcpy(&v, c->bytes, 4);
        cr_assert_eq(v, got, "nothing lost or reordered by back-pressure");
        nic_ep_cq_release(ep);
        got++;
    }
    cr_assert_eq(got, 16);
    nic_ep_close(ep);
    nic_host_detach(h);
    nic_fw_thread_stop(thr);
}

/* ------------------------------------------------------------------ */

static int endpoints_of(nic_host_t *h)
{
    char text[4096];
    const char *at;
    if (nic_host_status(h, text, sizeof(text)) != NIC_OK || (at = strstr(text, "endpoints ")) == NULL)
        return -1;
    return atoi(at + 10);
}

Test(reclaim, a_killed_process_loses_its_endpoints_and_regions, .timeout = 30)
{
    fresh_rundir();
    nic_fw_thread_t *thr = start_echo("r1", 200);
    nic_host_t *h = attach("r1");
    int pipefd[2];
    cr_assert_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        nic_host_t *ch = attach("r1");
        nic_ep_t *ep;
        nic_mr_t mr;
        for (int i = 0; i < 3; i++)
            if (nic_ep_open(ch, test_jobp(99), 8, 8, 8, &ep) != NIC_OK)
                _exit(1);
        if (nic_mr_alloc(ep, 1 << 20, NIC_MR_LOCAL_READ, &mr) != NIC_OK)
            _exit(2);
        if (write(pipefd[1], "x", 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    char c;
    cr_assert_eq(read(pipefd[0], &c, 1), 1);
    cr_assert_eq(endpoints_of(h), 3);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    uint64_t end = now_ms() + 3000;
    while (endpoints_of(h) != 0 && now_ms() < end)
        usleep(10000);
    cr_assert_eq(endpoints_of(h), 0, "the firmware kept a dead process's endpoints");
    nic_host_detach(h);
    nic_fw_thread_stop(thr);
}

/* ------------------------------------------------------------------ */

Test(nicd, started_on_demand_once_per_node_and_exits_when_idle, .timeout = 60)
{
    fresh_rundir();
    setenv("MULTIDEV_NIC_IDLE_MS", "300", 1);
    cr_assert_not_null(getenv("MULTIDEV_NICD"), "make check sets MULTIDEV_NICD");
    int pipefd[2];
    cr_assert_eq(pipe(pipefd), 0);
    enum { N = 4 };
    for (int i = 0; i < N; i++) {
        if (fork() == 0) {
            nic_attach_opts_t o = { .node = "od", .nic = "myri0", .pers = "myri", .start = 1 };
            nic_host_t *h;
            if (nic_host_attach(&o, &h) != NIC_OK)
                _exit(1);
            int pid = (int)h->status->fw_pid;
            if (write(pipefd[1], &pid, sizeof(pid)) != sizeof(pid))
                _exit(2);
            usleep(200000);      /* all attached at once */
            nic_host_detach(h);
            _exit(0);
        }
    }
    int pids[N];
    for (int i = 0; i < N; i++)
        cr_assert_eq(read(pipefd[0], &pids[i], sizeof(int)), (ssize_t)sizeof(int));
    for (int i = 0; i < N; i++) {
        int st;
        wait(&st);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    for (int i = 1; i < N; i++)
        cr_assert_eq(pids[i], pids[0], "two firmwares for one node");
    cr_assert_eq(kill(pids[0], 0), 0);
    uint64_t end = now_ms() + 5000;
    while (kill(pids[0], 0) == 0 && now_ms() < end)
        usleep(20000);
    cr_assert_neq(kill(pids[0], 0), 0, "an idle nicd must exit");
    unsetenv("MULTIDEV_NIC_IDLE_MS");
}

Test(nicd, nicctl_start_status_stop, .timeout = 60)
{
    char cmd[1024], out[4096];
    FILE *f;
    size_t n;
    fresh_rundir();
    setenv("MULTIDEV_NIC_IDLE_MS", "-1", 1);
    const char *nicctl = getenv("NICCTL");
    cr_assert_not_null(nicctl);
    snprintf(cmd, sizeof(cmd), "%s start --node c1 && %s status --node c1", nicctl, nicctl);
    f = popen(cmd, "r");
    n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    cr_assert_eq(pclose(f), 0);
    cr_assert(strstr(out, "node c1 nic myri0 personality myri") != NULL, "status: %s", out);
    snprintf(cmd, sizeof(cmd), "%s stop --node c1 >/dev/null; sleep 0.3; %s status --node c1",
             nicctl, nicctl);
    f = popen(cmd, "r");
    n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    cr_assert_neq(pclose(f), 0);
    cr_assert(strstr(out, "not running") != NULL, "after stop: %s", out);
    unsetenv("MULTIDEV_NIC_IDLE_MS");
}

Test(nicd, a_killed_firmware_is_reported_to_its_processes, .timeout = 60)
{
    fresh_rundir();
    setenv("MULTIDEV_NIC_WATCHDOG_MS", "20", 1);
    nic_attach_opts_t o = { .node = "k1", .nic = "myri0", .pers = "myri", .start = 1 };
    nic_host_t *h;
    nic_ep_t *ep;
    cr_assert_eq(nic_host_attach(&o, &h), NIC_OK);
    cr_assert_eq(nic_ep_open(h, test_jobp(5), 16, 0, 16, &ep), NIC_OK);
    cr_assert_eq(nic_ep_check(ep), NIC_OK);
    kill((pid_t)h->status->fw_pid, SIGKILL);
    uint64_t t0 = now_ms();
    int rc = NIC_OK;
    while (rc == NIC_OK && now_ms() - t0 < 5000)
        rc = nic_ep_check(ep);
    cr_assert_eq(rc, NIC_ERR_PEER_FAILED);
    cr_assert_lt(now_ms() - t0, 1000, "the death was noticed late");
    nic_ep_close(ep);
    nic_host_detach(h);
    unsetenv("MULTIDEV_NIC_WATCHDOG_MS");
}

/* ------------------------------------------------------------------ */
/* In-process firmware: the node's only process runs it as a thread and
 * lends it turns instead of handing the CPU to another process. */

static void post_echo(nic_ep_t *ep, int v)
{
    nic_entry_t *e = nic_ep_sq_slot(ep);
    cr_assert_not_null(e);
    memset(e->bytes, 0, sizeof(e->bytes));
    memcpy(e->bytes, &v, sizeof(v));
    nic_ep_sq_post(ep);
}

static int reap_echo(nic_ep_t *ep)
{
    nic_entry_t *c = nic_ep_cq_peek(ep);
    int v;
    cr_assert_not_null(c);
    memcpy(&v, c->bytes, sizeof(v));
    nic_ep_cq_release(ep);
    return v;
}

/* Sets the scheduling policy of this process's in-process firmware
 * threads (named "nicfw <nic>").  Returns how many. */
static int firmware_threads_policy(int policy)
{
    struct sched_param sp = { 0 };
    struct dirent *e;
    DIR *d = opendir("/proc/self/task");
    int n = 0;

    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL) {
        char path[300], comm[32] = "";
        pid_t tid = (pid_t)atoi(e->d_name);
        FILE *f;
        if (tid <= 0)
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        if (fgets(comm, sizeof(comm), f) != NULL && strncmp(comm, "nicfw ", 6) == 0) {
            cr_assert_eq(sched_setscheduler(tid, policy, &sp), 0, "thread %d: %m", (int)tid);
            n++;
        }
        fclose(f);
    }
    closedir(d);
    return n;
}

Test(inproc, the_only_process_runs_the_firmware_as_a_thread_and_lends_it_turns, .timeout = 30)
{
    nic_attach_opts_t o = { .node = "ip1", .nic = "nic0", .pers = "echo", .rundir = rundir,
                            .inproc = 1 };
    nic_host_t *h;
    nic_ep_t *ep;
    int lent = 0;

    fresh_rundir();
    /* A firmware thread that spins after work, alone on the other core of
     * a loaded machine, took every echo before a lend could (0 of 200, in
     * a make -j2 check under ASan): this one sleeps when idle instead. */
    setenv("MULTIDEV_NIC_SPIN_US", "0", 1);
    cr_assert_eq(nic_host_attach(&o, &h), NIC_OK);
    unsetenv("MULTIDEV_NIC_SPIN_US");
    cr_assert_not_null(h->inproc);
    cr_assert_eq((pid_t)h->status->fw_pid, getpid(), "the firmware runs in this process");
    cr_assert_eq(nic_ep_open(h, test_jobp(7), 16, 0, 16, &ep), NIC_OK);
    /* The firmware thread, woken by a post while it slept, preempted this
     * host on a shared core and took the echo before the host could lend
     * a turn: on a loaded machine every time (0 of 200 in two CI runs).
     * Lending is what is tested here, so until the hand-back below that
     * thread is a batch thread, which a wake-up never lets preempt another
     * (SCHED_BATCH; SCHED_IDLE would do too, but an unprivileged process
     * could not set it back). */
    cr_assert_eq(firmware_threads_policy(SCHED_BATCH), 1, "one firmware thread");
    /* Not all of them: a host descheduled for longer than the firmware
     * thread's nap (a loaded machine, make -j check) hands the data path
     * back for a while; 80 of 200 were seen so, and 2 of 200 once beside
     * another test suite.  So up to three rounds of 200: one must show the
     * lent turns doing most of the work. */
    int rounds[3] = { 0 }, round = 0;
    for (; round < 3 && lent <= 20; round++) {
        lent = 0;
        for (int i = 0; i < 200; i++) {
            post_echo(ep, i);
            /* lending until the echo is there: the firmware thread naps
             * while hosts lend, so most of these are our own turns.
             * Bounded by time, not by a count of tries: while the firmware
             * thread holds the data path a lend returns at once, and on a
             * loaded machine that thread may be off the CPU for
             * milliseconds (100000 tries ran out so). */
            uint64_t give_up = nic_now_ns() + 5000000000ull;
            /* Lend first, then look, as every progress call of a subdevice
             * does.  Looking first let one lost race feed the next: when
             * the woken firmware thread preempted this one and took the
             * echo, the host found it done, never lent, the thread slept
             * again, and the next post had to wake it (0 of 200 in a CI
             * run, the other core busy with another test). */
            do
                lent += nic_host_lend(h) > 0;
            while (nic_ep_cq_peek(ep) == NULL && nic_now_ns() < give_up);
            cr_assert_eq(reap_echo(ep), i);
        }
        rounds[round] = lent;
    }
    cr_assert_gt(lent, 20, "lent turns did the work (%d, %d, %d of 200 in %d rounds)", rounds[0],
                 rounds[1], rounds[2], round);
    firmware_threads_policy(SCHED_OTHER);
    /* A host going to sleep hands the data path back to the thread. */
    post_echo(ep, 1000);
    cr_assert_eq(nic_ep_wait(ep, 2000), NIC_OK, "the firmware thread took over");
    cr_assert_eq(reap_echo(ep), 1000);
    cr_assert_eq(nic_ep_close(ep), NIC_OK);
    nic_host_detach(h);
}

/* firmware=thread with several ranks on the node: they share the first
 * one's firmware (one NIC per node on a Myrinet switch port). */
Test(inproc, a_second_process_of_the_node_attaches_to_the_running_firmware, .timeout = 30)
{
    nic_attach_opts_t o = { .node = "ip2", .nic = "nic0", .pers = "echo", .rundir = rundir,
                            .inproc = 1 };
    nic_host_t *h;
    int st;

    fresh_rundir();
    cr_assert_eq(nic_host_attach(&o, &h), NIC_OK);
    cr_assert_not_null(h->inproc);
    pid_t pid = fork();
    if (pid == 0) {
        nic_host_t *h2;
        nic_ep_t *ep;
        if (nic_host_attach(&o, &h2) != NIC_OK || h2->inproc != NULL ||
            (pid_t)h2->status->fw_pid == getpid() || nic_host_lend(h2) != -1 ||
            nic_ep_open(h2, test_jobp(7), 16, 0, 16, &ep) != NIC_OK)
            _exit(1);
        post_echo(ep, 5);
        if (nic_ep_wait(ep, 2000) != NIC_OK || reap_echo(ep) != 5)
            _exit(2);
        nic_ep_close(ep);
        nic_host_detach(h2);
        _exit(0);
    }
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child step %d failed",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    nic_host_detach(h);
}

/* A firmware that runs already keeps the address it was bound to: a host
 * that merely defaulted publishes that one; one that asked for another
 * address fails to attach instead of publishing an address it was not
 * given. */
Test(inproc, a_running_firmware_bound_elsewhere_is_used_or_refused, .timeout = 30)
{
    nic_attach_opts_t o = { .node = "ip5", .nic = "nic0", .pers = "echo", .rundir = rundir,
                            .inproc = 1, .bind_ip = "127.0.0.1" };
    nic_host_t *h, *h2 = NULL;
    struct in_addr lo = { .s_addr = htonl(INADDR_LOOPBACK) };

    fresh_rundir();
    cr_assert_eq(nic_host_attach(&o, &h), NIC_OK);
    cr_assert_not_null(h->inproc);
    cr_assert_eq(h->wire_ip, lo.s_addr);

    nic_attach_opts_t other = { .node = "ip5", .nic = "nic0", .pers = "echo", .rundir = rundir,
                                .bind_ip = "127.0.0.2", .bind_ip_must_match = 1 };
    cr_expect_eq(nic_host_attach(&other, &h2), NIC_ERR_CONFIG);
    other.bind_ip_must_match = 0;
    cr_assert_eq(nic_host_attach(&other, &h2), NIC_OK);
    cr_expect_eq(h2->wire_ip, lo.s_addr, "the running firmware's address is published");
    cr_expect_eq(h2->wire_port, h->wire_port);
    other.bind_ip = "127.0.0.1";
    other.bind_ip_must_match = 1;
    nic_host_t *h3;
    cr_assert_eq(nic_host_attach(&other, &h3), NIC_OK, "the same address is no mismatch");
    nic_host_detach(h3);
    nic_host_detach(h2);
    nic_host_detach(h);
}

/* Two processes that are each their job's only rank on a node (two jobs
 * sharing emulated node names) each run their own firmware: neither takes
 * the node's name, neither attaches to the other's, and the second goes on
 * working after the first has stopped (before, it had attached to the
 * first's firmware and lost its NIC when that process exited). */
Test(inproc, processes_with_firmwares_of_their_own_neither_share_nor_outlast_them, .timeout = 30)
{
    nic_attach_opts_t o = { .node = "ip4", .nic = "nic0", .pers = "echo", .rundir = rundir,
                            .inproc = 1, .own_fw = 1 };
    nic_attach_opts_t node_fw = { .node = "ip4", .nic = "nic0", .rundir = rundir };
    nic_host_t *h, *other;
    int up[2], down[2], st;
    char c = 0, lock[256];

    fresh_rundir();
    cr_assert_eq(nic_host_attach(&o, &h), NIC_OK);
    cr_assert_not_null(h->inproc);
    cr_assert_eq(nic_host_attach(&node_fw, &other), NIC_ERR_NOT_FOUND,
                 "a firmware of its own took the node's name");
    snprintf(lock, sizeof(lock), "%s/ip4/nic0.p%ld.lock", rundir, (long)getpid());
    cr_assert_eq(access(lock, F_OK), 0, "no lock file %s", lock);
    uint16_t first_port = h->wire_port;
    cr_assert_eq(pipe(up), 0);
    cr_assert_eq(pipe(down), 0);
    pid_t pid = fork();
    if (pid == 0) {
        nic_host_t *h2;
        nic_ep_t *ep;
        if (nic_host_attach(&o, &h2) != NIC_OK || h2->inproc == NULL ||
            (pid_t)h2->status->fw_pid != getpid() || h2->wire_port == first_port)
            _exit(1);
        if (write(up[1], "a", 1) != 1 || read(down[0], &c, 1) != 1)
            _exit(2);
        /* the first process's firmware has stopped by now */
        if (nic_ep_open(h2, test_jobp(7), 16, 0, 16, &ep) != NIC_OK)
            _exit(3);
        post_echo(ep, 9);
        if (nic_ep_wait(ep, 2000) != NIC_OK || reap_echo(ep) != 9)
            _exit(4);
        nic_ep_close(ep);
        nic_host_detach(h2);
        _exit(0);
    }
    cr_assert_eq(read(up[0], &c, 1), 1, "the second process did not attach");
    nic_host_detach(h);
    cr_assert_neq(access(lock, F_OK), 0, "the lock file %s outlived its firmware", lock);
    cr_assert_eq(write(down[1], "b", 1), 1);
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child step %d failed",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Creates <rundir>/ip4/<name> (empty); returns its descriptor. */
static int node_file(const char *name)
{
    char path[512];
    int fd;

    snprintf(path, sizeof(path), "%s/ip4", rundir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/ip4/%s", rundir, name);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    cr_assert_geq(fd, 0, "cannot create %s", path);
    return fd;
}

static int node_file_exists(const char *name)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/ip4/%s", rundir, name);
    return access(path, F_OK) == 0;
}

/* A process killed while its own firmware ran leaves "<nic>.p<pid>.lock"
 * and ".sock" behind.  The next own firmware of the node removes them, but
 * neither those whose lock is still held (by an inherited descriptor, here
 * ours), those of a live process (this one's), nor the node firmware's
 * lock file.  (Pids around 4000000: no process here has one.) */
Test(inproc, an_own_firmware_removes_the_files_a_killed_one_left, .timeout = 30)
{
    nic_attach_opts_t o = { .node = "ip4", .nic = "nic0", .pers = "echo", .rundir = rundir,
                            .inproc = 1, .own_fw = 1 };
    const char *stale[] = { "nic0.p4000000.lock", "nic0.p4000000.sock", "sci0.p4000002.lock" };
    char mine[64];
    snprintf(mine, sizeof(mine), "via0.p%ld.lock", (long)getpid());
    const char *kept[] = { "nic0.p4000001.lock", "nic0.p4000001.sock", "nic0.lock",
                           "nic0.px.lock", "p1.lock", mine };
    nic_host_t *h;

    fresh_rundir();
    for (unsigned i = 0; i < sizeof(stale) / sizeof(stale[0]); i++)
        close(node_file(stale[i]));
    for (unsigned i = 1; i < sizeof(kept) / sizeof(kept[0]); i++)
        close(node_file(kept[i]));
    int live = node_file(kept[0]);
    cr_assert_eq(flock(live, LOCK_EX | LOCK_NB), 0);     /* a firmware that runs */
    cr_assert_eq(nic_host_attach(&o, &h), NIC_OK);
    cr_assert_not_null(h->inproc);
    for (unsigned i = 0; i < sizeof(stale) / sizeof(stale[0]); i++)
        cr_assert(!node_file_exists(stale[i]), "%s was left", stale[i]);
    for (unsigned i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        cr_assert(node_file_exists(kept[i]), "%s was removed", kept[i]);
    nic_host_detach(h);
    close(live);
}

/* One datagram to the firmware's wire from outside any NIC (the echo
 * personality drops it). */
static void poke_wire(const nic_host_t *h)
{
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = h->wire_ip,
                              .sin_port = h->wire_port };   /* both in network order */
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    char frame[16] = "not a frame";

    cr_assert_geq(s, 0);
    cr_assert_eq(sendto(s, frame, sizeof(frame), 0, (struct sockaddr *)&to, sizeof(to)),
                 (ssize_t)sizeof(frame));
    close(s);
}

/* Whether a datagram sent now makes fd readable within 100 ms; up to
 * five datagrams, since the firmware thread, which still takes a turn
 * every millisecond, may receive one between the send and the poll. */
static int wire_wakes(const nic_host_t *h, int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };

    for (int i = 0; i < 5; i++) {
        poke_wire(h);
        if (poll(&p, 1, 100) == 1)
            return 1;
    }
    return 0;
}

Test(inproc, a_sole_sleeper_is_woken_by_the_wire_and_one_beside_a_poller_is_not, .timeout = 30)
{
    nic_attach_opts_t o = { .node = "ip3", .nic = "nic0", .pers = "echo", .rundir = rundir,
                            .inproc = 1 };
    nic_host_t *h;
    nic_ep_t *ep;
    struct pollfd p = { .events = POLLIN };

    fresh_rundir();
    cr_assert_eq(nic_host_attach(&o, &h), NIC_OK);
    cr_assert_not_null(h->inproc);
    cr_assert_eq(nic_ep_open(h, test_jobp(7), 16, 0, 16, &ep), NIC_OK);

    /* Sole: the frame itself wakes the host, which lends the turn that
     * takes it off the wire. */
    p.fd = nic_ep_wake_arm(ep, 1);
    cr_assert_geq(p.fd, 0);
    cr_assert_eq(poll(&p, 1, 0), 0, "nothing arrived yet");
    cr_assert(wire_wakes(h, p.fd), "a frame on the wire woke the sole sleeper");
    nic_ep_wake_disarm(ep);
    uint64_t give_up = nic_now_ns() + 2000000000ull;
    while (poll(&p, 1, 0) == 1 && nic_now_ns() < give_up)
        nic_host_lend(h);
    cr_assert_eq(poll(&p, 1, 0), 0, "a lent turn received the frame");

    /* Beside a poller: frames are the poller's, only work wakes. */
    p.fd = nic_ep_wake_arm(ep, 0);
    cr_assert_geq(p.fd, 0);
    poke_wire(h);
    cr_assert_eq(poll(&p, 1, 200), 0, "a bare frame woke a sleeper beside a poller");
    post_echo(ep, 77);
    cr_assert_eq(poll(&p, 1, 2000), 1, "a completion wakes it");
    nic_ep_wake_disarm(ep);
    cr_assert_eq(reap_echo(ep), 77);
    cr_assert_eq(nic_ep_close(ep), NIC_OK);
    nic_host_detach(h);
}
