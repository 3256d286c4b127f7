/* md_thread.c - the progress thread, caller-side completion queue. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "md_log.h"
#include "md_sysmsg.h"
#include "md_thread.h"
#include "md_tun.h"

/* Idle pause of a thread without wait descriptors: doubles from 20 us up
 * to 2 ms, back to the start on any event. */
#define MD_THREAD_PAUSE_MIN_US 20
#define MD_THREAD_PAUSE_MAX_US 2000
/* Asleep on descriptors alone, it wakes at least this often (a stop
 * request is seen). */
#define MD_THREAD_POLL_US 50000
/* The longest a thread sleeps while callers hand it work for its next
 * pass (md_thread_pass_soon), and for how long after the last time:
 * chunks held to leave together (md_fwd_batch.c) wait at most about so
 * long when their application does not call progress. */
#define MD_THREAD_SOON_US 1000
#define MD_THREAD_SOON_WINDOW_NS 10000000ull

int md_thread_setup(md_t *md)
{
    enum { AUTO, ON, OFF };     /* the words of MULTIDEV_PROGRESS_THREAD */
    long long mode;

    if (md_tun_env_num("MULTIDEV_PROGRESS_THREAD", &mode, md_log_say_error) < 0)
        return MD_ERR_CONFIG;
    md->thr.enabled = mode == ON || (mode == AUTO && md->num_nodes > 1);
    return MD_OK;
}

/* What an idle thread can sleep on; asked under the lock, like every
 * subdevice operation.  Returns 1 if every subdevice has a descriptor. */
int md_wait_fds(md_t *md, struct pollfd *fds, int *nfds, unsigned flags)
{
    int all = 1;

    *nfds = 0;
    for (int i = 0; i < md->devs.num; i++) {
        md_subdev_t *sd = md_sd(md, i);
        int fd;

        if (i == md->fwd_index)
            continue;       /* fed by the other subdevices */
        fd = sd->ops->wait_fd ? sd->ops->wait_fd(sd, flags) : -1;
        if (fd >= 0)
            fds[(*nfds)++] = (struct pollfd){ .fd = fd, .events = POLLIN };
        else
            all = 0;
    }
    return all;
}

/* Whether every subdevice offers a wait descriptor at all.  Asks nothing
 * of them, so it arms nothing: a caller that cannot sleep anyway must not
 * tell its in-process firmwares that it stopped lending them turns. */
int md_all_can_wait(const md_t *md)
{
    for (int i = 0; i < md->devs.num; i++)
        if (i != md->fwd_index && md->devs.subdevs[i].ops->wait_fd == NULL)
            return 0;
    return 1;
}

/* How long the thread sleeps at most (under lock, as it goes to sleep):
 * its pause, or MD_THREAD_POLL_US on descriptors alone; no more than
 * MD_THREAD_SOON_US while callers hand it work (md_thread_pass_soon). */
static int md_thread_sleep_us(const md_t *md, int all_have_fds, int pause_us, uint64_t now)
{
    int us = all_have_fds ? MD_THREAD_POLL_US : pause_us;

    if (now - md->thr.soon_ns < MD_THREAD_SOON_WINDOW_NS && us > MD_THREAD_SOON_US)
        us = MD_THREAD_SOON_US;
    return us;
}

/* Sleeps until a descriptor is readable or sleep_us are over (to the
 * microsecond: poll()'s milliseconds made every nap at least 1 ms); the
 * pause of a thread that must poll a subdevice doubles. */
static void md_thread_idle(struct pollfd *fds, int nfds, int all_have_fds, int sleep_us,
                           int *pause_us)
{
    struct timespec nap = { sleep_us / 1000000, (long)(sleep_us % 1000000) * 1000 };

    if (ppoll(fds, (nfds_t)nfds, &nap, NULL) < 0 && errno != EINTR)
        md_log_warn("progress thread: poll: %s", strerror(errno));
    if (!all_have_fds && *pause_us < MD_THREAD_PAUSE_MAX_US)
        *pause_us *= 2;
}

/* Completions or handlers queued for the caller (under lock). */
static int md_thread_caller_work(const md_t *md)
{
    return md->thr.done_head != NULL || md->thr.sys_head != NULL;
}

/* The two eventfds between caller and thread (wake_fd: the thread wakes
 * the caller; kick_fd: the caller wakes the thread): signal and drain. */
static void md_eventfd_signal(int fd, const char *what)
{
    uint64_t one = 1;

    if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        md_log_warn("%s: %s", what, strerror(errno));
}

static void md_eventfd_drain(int fd, const char *what)
{
    uint64_t n;

    if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        md_log_warn("%s: %s", what, strerror(errno));
}

void md_thread_pass_soon(md_t *md)
{
    uint64_t now = md_now_ns();

    md->thr.soon_ns = now;
    if (md->thr.asleep && md->thr.sleep_until_ns > now + MD_THREAD_SOON_US * 1000ull) {
        md->thr.asleep = 0;
        md_eventfd_signal(md->thr.kick_fd, "waking the progress thread");
    }
}

int md_thread_caller_wait(md_t *md, int timeout_ms, uint64_t seen)
{
    struct pollfd pfd = { .fd = md->thr.wake_fd, .events = POLLIN };
    struct pollfd fds[MD_MAX_SUBDEVS];
    int queued, nfds, timed_out, must_poll = 0;

    pthread_mutex_lock(&md->thr.lock);
    queued = md_thread_caller_work(md) || md_work_count(md) != seen;
    /* Our own progress may have disarmed the descriptors the thread
     * sleeps on (a subdevice disarms when it polls): arm them again, or an
     * arrival would wake nobody.  A subdevice without one (SCI) is polled
     * by the thread between naps of at most MD_THREAD_PAUSE_MAX_US; it
     * wakes us when it has queued work for us.  Polling it ourselves
     * instead kept one core busy per idle rank: on a host with more ranks
     * than cores, the ranks that had messages waited for a CPU behind it
     * (a ping-pong between two nodes took 100-250 us instead of 20 us
     * beside an idle rank of a third). */
    if (!queued)    /* for the thread, which polls alone while we sleep */
        must_poll = !md_wait_fds(md, fds, &nfds, MD_WAIT_F_SOLE);
    md->thr.caller_waiting = !queued;
    pthread_mutex_unlock(&md->thr.lock);
    if (queued)
        return 0;           /* the caller's next call runs it */
    /* A subdevice with work that no arrival announces (myri with sends
     * queued behind its credits, after our own pass queued them) offers no
     * descriptor: the thread may be asleep for up to 50 ms on descriptors
     * armed before; it must poll instead.  (Without this kick a 1 MiB
     * ping-pong over myri in block mode ran half its sleeps to the 10 ms
     * bound, most of them with work waiting.) */
    if (must_poll)
        md_eventfd_signal(md->thr.kick_fd, "waking the progress thread");
    timed_out = poll(&pfd, 1, timeout_ms) == 0;
    md_eventfd_drain(md->thr.wake_fd, "idle wait");
    pthread_mutex_lock(&md->thr.lock);
    md->thr.caller_waiting = 0;
    pthread_mutex_unlock(&md->thr.lock);
    return timed_out;
}

/* How the thread sleeps: alone on the subdevices, or beside a caller that
 * polls them in its idle loop (md_idle) and receives what arrives. */
static unsigned md_thread_sleep_flags(md_t *md)
{
    return atomic_load_explicit(&md->thr.caller_polling, memory_order_relaxed)
               ? 0 : MD_WAIT_F_SOLE;
}

static void *md_thread_main(void *arg)
{
    md_t *md = arg;
    int pause_us = MD_THREAD_PAUSE_MIN_US;
    uint64_t idle_since = 1;    /* no traffic yet: no window to yield through */

    pthread_setname_np(pthread_self(), "md progress");
    while (!atomic_load_explicit(&md->thr.stop, memory_order_acquire)) {
        struct pollfd fds[MD_MAX_SUBDEVS + 1];
        int events, nfds = 0, all_fds = 0, yielding = 0;

        if (pthread_mutex_trylock(&md->thr.lock) != 0) {
            sched_yield();  /* the caller is progressing right now */
            continue;
        }
        md->thr.asleep = 0;
        uint64_t work = md->thr.caller_waiting ? md_work_count(md) : 0;
        events = md_progress_locked(md);
        /* Traffic is flowing: the answer is likely close, yield.  Only a
         * thread about to sleep arms the descriptors: arming tells an
         * in-process firmware that nobody lends it turns any more (it
         * takes its wire back), which would be wrong on every yield.  But
         * while the caller polls in its idle loop it takes the answer
         * itself, and a thread that yields beside it only takes turns from
         * it and from the other ranks' callers: it sleeps instead (an shm
         * ping-pong beside a third rank on two cores: 0.46-2.6 us a half
         * round trip with the thread yielding, 0.20-0.28 us with it asleep,
         * 0.23-0.28 us without a thread). */
        if (events == 0)
            yielding = md->yield_ns > 0 && md_yield_window(&idle_since, md->yield_ns) &&
                       !atomic_load_explicit(&md->thr.caller_polling, memory_order_relaxed);
        if (events == 0 && !yielding)
            all_fds = md_wait_fds(md, fds, &nfds, md_thread_sleep_flags(md));
        /* Anything that arrived or completed wakes a sleeping caller, not
         * only what it must run itself: an arrival that matched nothing
         * is what an MPI_Probe loop waits for, and it slept on (up to
         * MULTIDEV_IDLE_SLEEP_MS) while the message sat here. */
        int wake = md->thr.caller_waiting &&
                   (md_thread_caller_work(md) || md_work_count(md) != work);
        if (wake)
            md->thr.caller_waiting = 0;
        int sleep_us = 0;
        if (events == 0 && !yielding) {
            uint64_t now = md_now_ns();
            sleep_us = md_thread_sleep_us(md, all_fds, pause_us, now);
            md->thr.asleep = 1;
            md->thr.sleep_until_ns = now + (uint64_t)sleep_us * 1000u;
        }
        pthread_mutex_unlock(&md->thr.lock);
        if (wake)
            md_eventfd_signal(md->thr.wake_fd, "progress thread: waking the caller");
        if (events < 0) {
            md_log_error("progress thread: %s; it stops",
                         md_status_string(events));
            break;
        }
        if (events > 0) {
            pause_us = MD_THREAD_PAUSE_MIN_US;
            idle_since = 0;
        } else if (yielding) {
            sched_yield();
        } else {
            fds[nfds++] = (struct pollfd){ .fd = md->thr.kick_fd, .events = POLLIN };
            md_thread_idle(fds, nfds, all_fds, sleep_us, &pause_us);
            if (fds[nfds - 1].revents & POLLIN) {
                md_eventfd_drain(md->thr.kick_fd, "progress thread: its wake-up");
                pause_us = MD_THREAD_PAUSE_MIN_US;   /* a caller asked it to poll */
            }
        }
    }
    return NULL;
}

int md_thread_start(md_t *md)
{
    int rc;

    if (!md->thr.enabled)
        return MD_OK;
    md->thr.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    md->thr.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (md->thr.wake_fd < 0 || md->thr.kick_fd < 0) {
        md_log_error("cannot create the progress thread's wake-up eventfds: %s",
                     strerror(errno));
        if (md->thr.wake_fd >= 0)
            close(md->thr.wake_fd);
        if (md->thr.kick_fd >= 0)
            close(md->thr.kick_fd);
        md->thr.enabled = 0;
        return MD_ERR_IO;
    }
    md->thr.caller_waiting = 0;
    pthread_mutex_init(&md->thr.lock, NULL);
    atomic_init(&md->thr.stop, 0);
    atomic_init(&md->thr.caller_polling, 0);
    rc = pthread_create(&md->thr.thread, NULL, md_thread_main, md);
    if (rc != 0) {
        md_log_error("cannot start the progress thread: %s", strerror(rc));
        md->thr.enabled = 0;
        pthread_mutex_destroy(&md->thr.lock);
        close(md->thr.wake_fd);
        close(md->thr.kick_fd);
        return MD_ERR_IO;
    }
    md_log_info("progress thread started");
    return MD_OK;
}

void md_thread_stop(md_t *md)
{
    if (!md->thr.enabled)
        return;
    atomic_store_explicit(&md->thr.stop, 1, memory_order_release);
    pthread_join(md->thr.thread, NULL);
    md->thr.enabled = 0;
    pthread_mutex_destroy(&md->thr.lock);
    close(md->thr.wake_fd);
    close(md->thr.kick_fd);
    md_api_leave_slow(md);      /* run whatever was still queued */
}

static void md_request_finish(md_request_t *req)
{
    md_request_cb_t cb = req->on_complete;

    atomic_store_explicit(&req->complete, 1, memory_order_release);
    if (cb != NULL)
        cb(req);
}

void md_request_done(md_t *md, md_request_t *req)
{
    if (req->md_flags & MD_REQ_F_INTERNAL) {
        md_request_finish(req);     /* the multidevice's own: nobody waits */
        return;
    }
    md->requests_done++;        /* under the lock when the thread runs */
    if (!md->thr.enabled) {
        md_request_finish(req);
        return;
    }
    req->md_next = NULL;        /* under the lock: queue for the caller */
    if (md->thr.done_tail != NULL)
        md->thr.done_tail->md_next = req;
    else
        md->thr.done_head = req;
    md->thr.done_tail = req;
}

void md_defer_sysmsg(md_t *md, const md_envelope_t *env, const void *payload)
{
    md_deferred_sys_t *d = malloc(sizeof(*d) + env->size);

    if (d == NULL) {
        md_log_error("no memory to queue a %llu-byte system message (tag %d) "
                     "from rank %d; dropped", (unsigned long long)env->size,
                     env->tag, env->src_world);
        return;
    }
    d->next = NULL;
    d->src_world = env->src_world;
    d->tag = env->tag;
    d->len = env->size;
    memcpy(d->payload, payload, env->size);
    if (md->thr.sys_tail != NULL)
        md->thr.sys_tail->next = d;
    else
        md->thr.sys_head = d;
    md->thr.sys_tail = d;
}

int md_api_leave_slow(md_t *md)
{
    md_request_t *done = md->thr.done_head;
    md_deferred_sys_t *sys = md->thr.sys_head;
    int ran = 0;

    md->thr.done_head = md->thr.done_tail = NULL;
    md->thr.sys_head = md->thr.sys_tail = NULL;
    if (md->thr.enabled)
        pthread_mutex_unlock(&md->thr.lock);
    while (done != NULL) {
        md_request_t *next = done->md_next;
        md_request_finish(done);
        done = next;
        ran++;
    }
    while (sys != NULL) {
        md_deferred_sys_t *next = sys->next;
        md_sysmsg_run_handler(md, sys->src_world, sys->tag, sys->payload,
                              sys->len);
        free(sys);
        sys = next;
        ran++;
    }
    return ran;
}
