/*
 * md_thread.h - the progress thread and the locking it needs.
 *
 * P1 §3.4 (footnote 4): system messages, and so forwarding, only work if
 * every subdevice makes progress even while the application computes
 * without calling MPI.  A progress thread per multidevice drives all
 * subdevices; it sleeps on the subdevices' wait descriptors (or with a
 * growing pause) when idle, so oversubscribed nodes are not burnt.
 *
 * With the thread running, one mutex serialises every call into the
 * subdevices.  Completions of the caller's requests and the caller's
 * system-message handlers are never run inside that lock or inside the
 * thread: they are queued and run by the caller's own next call into the
 * multidevice (md_progress, which MPI's wait loops call), so the MPI
 * library above sees them only on its own thread.
 *
 * MULTIDEV_PROGRESS_THREAD: auto (default: on when the job spans more than
 * one node), on, off.
 */
#ifndef MD_THREAD_H
#define MD_THREAD_H

#include "md_core.h"

#include <poll.h>
#include <time.h>

int  md_thread_setup(md_t *md);       /* decides, does not start */
/* Arms and collects the subdevices' wait descriptors (caller holds the
 * lock when the thread runs); 1 if every subdevice has one. */
int  md_wait_fds(md_t *md, struct pollfd *fds, int *nfds, unsigned flags);
/* 1 if every subdevice has a wait_fd op (nothing is asked or armed). */
int  md_all_can_wait(const md_t *md);
/* md_idle.c: what a waiting caller does (md->idle_mode); only block mode
 * sleeps. */
enum md_idle_mode { MD_IDLE_SPIN, MD_IDLE_YIELD, MD_IDLE_BLOCK };
int  md_idle_setup(md_t *md);
/* What a waiting caller may be waiting for, as one count that only grows:
 * arrivals on every subdevice (messages received, unexpected, system
 * messages) and requests completed.  A sleep must end as soon as it moves. */
uint64_t md_work_count(const md_t *md);
/* After a progress pass of the caller (under the lock): what it has seen,
 * for md_thread_caller_wait; and what a check after a sleep (md_idle)
 * found, so that the caller hears of it. */
static inline int md_idle_after_progress(md_t *md, int events)
{
    if (md->thr.enabled && md->idle_mode == MD_IDLE_BLOCK)
        md->thr.work_seen = md_work_count(md);
    if (__builtin_expect(md->idle_carry != 0, 0)) {
        int carry = md->idle_carry;
        md->idle_carry = 0;
        if (events >= 0)
            events = carry < 0 ? carry : events + carry;
    }
    return events;
}
int  md_thread_start(md_t *md);
/* The caller leaves work for the progress thread's next pass (under the
 * lock): a thread asleep for longer than about a millisecond more is woken,
 * and for the next 10 ms it sleeps no longer than that. */
void md_thread_pass_soon(md_t *md);
void md_thread_stop(md_t *md);
/* A caller with nothing to do sleeps until the progress thread sees
 * anything arrive or complete, or queues a completion or a handler for it
 * (or timeout_ms pass); returns at once when one is queued already, or
 * when md_work_count moved past seen (what the caller's last progress pass
 * saw: md->thr.work_seen).  Returns 1 if the sleep ran to timeout_ms. */
int  md_thread_caller_wait(md_t *md, int timeout_ms, uint64_t seen);

static inline uint64_t md_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Idle waits (md_idle, the progress thread) keep yielding for a window
 * after the traffic stopped before they sleep.  *since_ns marks the start
 * of the current idle stretch (0: it starts now); 1 while inside the
 * window. */
static inline int md_yield_window(uint64_t *since_ns, uint64_t window_ns)
{
    uint64_t now = md_now_ns();
    if (*since_ns == 0)
        *since_ns = now;
    return now - *since_ns < window_ns;
}

/* Whether the caller polls in its idle loop now (md_core.h); written by
 * the caller only, and only when it changes. */
static inline void md_set_caller_polling(md_t *md, int polling)
{
    if (md->thr.enabled &&
        atomic_load_explicit(&md->thr.caller_polling, memory_order_relaxed) != polling)
        atomic_store_explicit(&md->thr.caller_polling, polling, memory_order_relaxed);
}

/* Entry and exit of every public call. */
static inline void md_api_enter(md_t *md)
{
    if (md->thr.enabled)
        pthread_mutex_lock(&md->thr.lock);
}

/* Unlocks and runs the completions and handlers queued meanwhile; returns
 * how many it ran. */
int  md_api_leave_slow(md_t *md);

static inline int md_api_leave(md_t *md)
{
    if (md->thr.enabled || md->thr.sys_head != NULL)
        return md_api_leave_slow(md);
    return 0;
}

/* Runs call (an int expression) as a public entry point. */
#define MD_LOCKED(_md, _call) \
    ({ \
        int rc_; \
        md_api_enter(_md); \
        rc_ = (_call); \
        md_api_leave(_md); \
        rc_; \
    })

/* Completes a request now, or queues the caller's completion (see above). */
void md_request_done(md_t *md, md_request_t *req);
/* Queues a caller's system message for its handler. */
void md_defer_sysmsg(md_t *md, const md_envelope_t *env, const void *payload);

#endif /* MD_THREAD_H */
