/*
 * md_idle.c - what a rank does while it waits and nothing arrives.
 *
 * Oversubscription is normal here: tests and CI run more ranks (and NIC
 * firmwares) than the machine has cores.  A rank whose progress finds
 * nothing spins for MULTIDEV_SPIN_POLLS idle calls (a reply is often a
 * microsecond away), then gives its core away: it yields, and when the
 * host runs more ranks than it has processing units and every subdevice
 * has a wait descriptor, it blocks on them once it has yielded for
 * MULTIDEV_YIELD_US.  (Blocking at once made every ping-pong reply pay two
 * wake-ups: 20-40 us instead of 0.3 us over shm.)  MULTIDEV_IDLE forces
 * spin, yield or block.
 *
 * On such a host the spinning also ends after MULTIDEV_SPIN_US (1 us): a
 * poll that lends an in-process NIC firmware its turn takes 1-2 us, so 64
 * of them held a core for 100 us without a yield, and the rank that had
 * the next step to do (a relay forwarding, with both cores held by the
 * two ends of its route) waited that long for a CPU: a forwarded 8 B
 * ping-pong over three emulated nodes on two cores took 90-120 us a
 * message, 31-40 us with one spin poll (2026-11-26).  A time rather than
 * a count of polls, since polls differ: 1 us covers an shm reply (0.2-0.5
 * us over shm with 1 or 5 us), and with the timing models, whose polls
 * cost modelled time too, the SCI hop took 12.0-13.4 us with 1 us of
 * spinning against 15.4-16.4 with 5, the forwarded route 55-61 against
 * 55-78 us (3 interleaved runs each; without the models the two were
 * alike).
 */
#include "config.h"

#include <hwloc.h>
#include <poll.h>
#include <sched.h>
#include <string.h>

#include "md_log.h"
#include "md_thread.h"
#include "md_tun.h"

/* Longer than a progress pass between two idle polls of one wait loop: a
 * caller that spent this long outside md_idle did other work (computed
 * between two MPI_Test calls), so it polls rather than waits. */
#define MD_IDLE_GAP_NS        (100 * 1000ull)

/* MULTIDEV_IDLE's words are "auto", then the modes (md_thread.h) in order. */
static const char *const md_idle_mode_names[] = { "spin", "yield", "block" };

/* Processing units this process may run on. */
static int md_idle_count_pus(void)
{
    hwloc_topology_t topo;
    int n = -1;

    if (hwloc_topology_init(&topo) != 0)
        return -1;
    if (hwloc_topology_load(topo) == 0)
        n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    hwloc_topology_destroy(topo);
    return n;
}

int md_idle_setup(md_t *md)
{
    int pus = md_idle_count_pus();
    long long spin_polls, yield_us, spin_max_us, word, sleep_ms;

    if (md_tun_env_num("MULTIDEV_SPIN_POLLS", &spin_polls, md_log_say_error) < 0 ||
        md_tun_env_num("MULTIDEV_IDLE_SLEEP_MS", &sleep_ms, md_log_say_error) < 0 ||
        md_tun_env_num("MULTIDEV_YIELD_US", &yield_us, md_log_say_error) < 0 ||
        md_tun_env_num("MULTIDEV_SPIN_US", &spin_max_us, md_log_say_error) < 0 ||
        md_tun_env_num("MULTIDEV_IDLE", &word, md_log_say_error) < 0)
        return MD_ERR_CONFIG;
    md->spin_polls = (int)spin_polls;
    md->idle_sleep_ms = (int)sleep_ms;
    md->spin_ns = (uint64_t)spin_max_us * 1000u;
    md->yield_ns = (uint64_t)yield_us * 1000u;
    md->host_oversubscribed = pus > 0 && md->host_ranks > pus;
    if (word == 0)      /* auto */
        md->idle_mode = md->host_oversubscribed ? MD_IDLE_BLOCK : MD_IDLE_YIELD;
    else
        md->idle_mode = (int)word - 1;
    if (md->idle_mode == MD_IDLE_BLOCK)
        md_log_info("idle waits: spin for %d empty polls or %lld us, yield for %lld us, "
                    "then block (%d ranks on this host, %d processing units)",
                    md->spin_polls, spin_max_us, yield_us, md->host_ranks, pus);
    else
        md_log_info("idle waits: %s after %d empty polls (%d ranks on this host, %d "
                    "processing units)", md_idle_mode_names[md->idle_mode], md->spin_polls,
                    md->host_ranks, pus);
    return MD_OK;
}

/* What a waiting caller may be waiting for: its requests completed, the
 * messages delivered to it (a forwarded one included, whole), arrivals that
 * matched nothing (what a probe waits for) and system messages of its own
 * tags.  Not what the multidevice does for itself: chunks a relay passes on,
 * forwarding's acknowledgements and credits, its internal sends.  Those
 * woke a relay's caller for nothing and, arriving while it slept, counted
 * as lost wake-ups (md_idle_timed_out). */
uint64_t md_work_count(const md_t *md)
{
    uint64_t n = md->requests_done + md->user_sysmsgs;

    for (int i = 0; i < md->devs.num; i++) {
        const md_subdev_counters_t *c = &md->devs.subdevs[i].counters;
        n += c->msgs_recvd + c->unexpected;
    }
    return n;
}

/* A sleep ran to its bound: was work there all along?  Looked at at once,
 * before the caller does anything else, so that only what arrived counts:
 * what the progress thread took in meanwhile (the work count moved since
 * the sleep began), or the caller's work that a progress pass finds now.
 * Either is a lost wake-up; what the pass does for others (a relay passing
 * chunks on) is not.  The pass's events go to the caller's next
 * md_progress. */
static void md_idle_timed_out(md_t *md, uint64_t mark)
{
    int late, events, ran;

    md->idle_timeouts++;
    events = md_progress(md);
    /* the count only grows: past mark, whether it moved during the sleep
     * or in the pass */
    md_api_enter(md);
    late = md_work_count(md) != mark;
    ran = md_api_leave(md);
    if (events >= 0)
        events += ran;
    if (events != 0)
        md->idle_carry = events;
    if (late || ran > 0)
        md->idle_late++;
}

/* Sleeps until a subdevice has work (or MULTIDEV_IDLE_SLEEP_MS pass). */
static void md_idle_block(md_t *md)
{
    struct pollfd fds[MD_MAX_SUBDEVS];
    uint64_t mark;
    int nfds, all, timed_out;

    if (md->thr.enabled) {
        /* the progress thread watches the subdevices and wakes us; what
         * it took in since our last look is no reason to sleep */
        mark = md->thr.work_seen;
        timed_out = md_thread_caller_wait(md, md->idle_sleep_ms, mark);
    } else if (!md_all_can_wait(md)) {
        sched_yield();      /* a subdevice must be polled: arm nothing */
        return;
    } else {
        md_api_enter(md);
        all = md_wait_fds(md, fds, &nfds, MD_WAIT_F_SOLE);
        md_api_leave(md);
        if (!all || nfds == 0) {
            sched_yield();
            return;
        }
        mark = md_work_count(md);
        timed_out = poll(fds, (nfds_t)nfds, md->idle_sleep_ms) == 0;
    }
    md->idle_sleeps++;
    if (timed_out)
        md_idle_timed_out(md, mark);
}

void md_idle(md_t *md)
{
    uint64_t now;
    int new_stretch;

    if (md->idle_mode == MD_IDLE_SPIN)
        return;
    if (++md->idle_polls <= md->spin_polls) {
        if (md->idle_mode != MD_IDLE_BLOCK)
            return;
        /* an oversubscribed host: spin for at most the spin time */
        now = md_now_ns();
        if (md->idle_polls == 1)
            md->spin_since_ns = now;
        if (now - md->spin_since_ns < md->spin_ns)
            return;
        md->idle_polls = md->spin_polls + 1;
    }
    if (md->idle_mode == MD_IDLE_YIELD && !md->thr.enabled) {
        sched_yield();      /* no thread to tell that the caller polls */
        return;
    }
    /* A stretch of idle polls begins past the spin polls, or again after
     * the caller did other work since its last idle poll: one that calls
     * MPI_Test between computations must yield, not sleep (MPICH does not
     * tell a test from a wait).  Within a stretch the caller polls
     * continuously, and the progress thread sleeps beside it instead of
     * polling the same wires: in yield mode too (two pollers per rank on
     * a core each cost an 8 B ping-pong between two namespace hosts 1.5-2
     * us of its 10, bench/wire-hosts.sh).  Only blocking mode sleeps. */
    now = md_now_ns();
    new_stretch = md->idle_polls == md->spin_polls + 1 ||
                  now - md->idle_left_ns > MD_IDLE_GAP_NS;
    if (new_stretch) {
        md->idle_polls = md->spin_polls + 1;
        md->yield_since_ns = now;
    }
    if (md->idle_mode == MD_IDLE_YIELD || now - md->yield_since_ns < md->yield_ns) {
        md_set_caller_polling(md, !new_stretch);
        sched_yield();
    } else {
        md_set_caller_polling(md, 0);
        md_idle_block(md);
    }
    md->idle_left_ns = md_now_ns();
}
