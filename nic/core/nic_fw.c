/* nic_fw.c - the firmware main loop: wire, doorbells, timers, control. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nic_env.h"
#include "nic_fw_internal.h"
#include "nic_log.h"
#include "nic_rundir.h"

#define NIC_FW_RX_PER_LOOP 64
#define NIC_FW_SLEEP_GRAIN_NS 1000000ull   /* epoll_wait sleeps in whole ms */

uint64_t nic_fw_random(nic_fw_t *fw)
{
    fw->rng ^= fw->rng >> 12;
    fw->rng ^= fw->rng << 25;
    fw->rng ^= fw->rng >> 27;
    return fw->rng * 2685821657736338717ull;
}

int nic_fw_config_defaults(nic_fw_config_t *cfg, const nic_log_sink_t *sink)
{
    long long port, idle_ms, spin_us, offload, seed, mac, mtu;
    const char *addr = NULL;

    memset(cfg, 0, sizeof(*cfg));
    if (sink != NULL)
        cfg->log = *sink;
    sink = &cfg->log;
    cfg->nic = "myri0";
    cfg->pers = "myri";
    /* Subdevices always pass the address they chose (md_nic_addr); this
     * default serves a firmware started by hand.  Empty counts as unset, as
     * there; a malformed value fails at bind, naming it (nic_wire_open). */
    if (nic_env_text(sink, "MULTIDEV_NIC_ADDR", &addr) != NIC_OK ||
        nic_env_num(sink, "MULTIDEV_NIC_PORT", &port) != NIC_OK ||
        nic_env_num(sink, "MULTIDEV_NIC_IDLE_MS", &idle_ms) != NIC_OK ||
        nic_env_num(sink, "MULTIDEV_NIC_SPIN_US", &spin_us) != NIC_OK ||
        nic_env_num(sink, "MULTIDEV_NIC_OFFLOAD", &offload) != NIC_OK ||
        nic_env_num(sink, "MULTIDEV_NIC_MAC", &mac) != NIC_OK ||
        nic_env_num(sink, "MULTIDEV_NIC_MTU", &mtu) != NIC_OK ||
        nic_env_prob(sink, "MULTIDEV_NIC_FAULT_DROP", &cfg->fault.drop) != NIC_OK ||
        nic_env_prob(sink, "MULTIDEV_NIC_FAULT_DUP", &cfg->fault.dup) != NIC_OK ||
        nic_env_prob(sink, "MULTIDEV_NIC_FAULT_REORDER", &cfg->fault.reorder) != NIC_OK ||
        nic_env_prob(sink, "MULTIDEV_NIC_FAULT_CORRUPT", &cfg->fault.corrupt) != NIC_OK ||
        nic_env_num(sink, "MULTIDEV_NIC_FAULT_SEED", &seed) != NIC_OK)
        return NIC_ERR_CONFIG;
    cfg->bind_ip = addr != NULL ? addr : "127.0.0.1";
    cfg->bind_port = (uint16_t)port;
    cfg->idle_exit_ms = (int)idle_ms;
    cfg->spin_us = (int)spin_us;
    cfg->offload = (int)offload;
    /* the words' order: auto, poly1305, aesgcm = 0, NIC_WIRE_MAC_POLY1305, _AESGCM */
    cfg->mac = (int)mac;
    cfg->mtu = (unsigned)mtu;
    cfg->fault.seed = (uint64_t)seed;
    return NIC_OK;
}

static int fw_epoll_add(nic_fw_t *fw, int fd, uint32_t kind, uint32_t index)
{
    struct epoll_event ev = { .events = EPOLLIN,
                              .data.u64 = ((uint64_t)kind << 32) | index };
    return epoll_ctl(fw->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

static int fw_listen(nic_fw_t *fw)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    if (strlen(fw->sock_path) >= sizeof(sa.sun_path)) {
        nic_log_error(&fw->cfg.log, "socket path %s is too long", fw->sock_path);
        return NIC_ERR_CONFIG;
    }
    strcpy(sa.sun_path, fw->sock_path);
    fw->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fw->listen_fd < 0)
        return NIC_ERR_IO;
    unlink(fw->sock_path);   /* a stale socket of a dead firmware (we hold the lock) */
    if (bind(fw->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(fw->listen_fd, 64) != 0) {
        nic_log_error(&fw->cfg.log, "control socket %s: %m", fw->sock_path);
        return NIC_ERR_IO;
    }
    return NIC_OK;
}

int nic_fw_create(const nic_fw_config_t *cfg, nic_fw_t **fw_p)
{
    nic_fw_t *fw = calloc(1, sizeof(*fw));
    int rc;

    if (fw == NULL)
        return NIC_ERR_NO_MEMORY;
    fw->cfg = *cfg;
    fw->listen_fd = fw->event_fd = fw->epoll_fd = fw->status_fd = -1;
    fw->wire.fd = -1;
    pthread_mutex_init(&fw->turn_lock, NULL);
    for (unsigned c = 0; c < NIC_FW_MAX_CONN; c++)
        fw->conns[c].fd = fw->conns[c].pidfd = -1;
    atomic_init(&fw->next_ns, UINT64_MAX);
    fw->rng = nic_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)fw;
    snprintf(fw->node, sizeof(fw->node), "%s", cfg->node ? cfg->node : "");
    snprintf(fw->nic, sizeof(fw->nic), "%s", cfg->nic ? cfg->nic : "");
    fw->cfg.node = fw->node;
    fw->cfg.nic = fw->nic;

    fw->pers = nic_pers_find(cfg->pers);
    if (fw->pers == NULL) {
        nic_log_error(&fw->cfg.log, "unknown NIC personality '%s'", cfg->pers ? cfg->pers : "");
        rc = NIC_ERR_CONFIG;
        goto err;
    }
    if ((rc = nic_rundir_node(&fw->cfg.log, cfg->rundir, fw->node, fw->dir,
                              sizeof(fw->dir))) != NIC_OK ||
        (rc = nic_rundir_file(fw->dir, fw->nic, ".sock", fw->sock_path,
                              sizeof(fw->sock_path))) != NIC_OK)
        goto err;

    fw->status_fd = memfd_create("nic-status", MFD_CLOEXEC);
    if (fw->status_fd < 0 || ftruncate(fw->status_fd, 4096) != 0) {
        rc = NIC_ERR_IO;
        goto err;
    }
    fw->status = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fw->status_fd, 0);
    if (fw->status == MAP_FAILED) {
        fw->status = NULL;
        rc = NIC_ERR_NO_MEMORY;
        goto err;
    }
    fw->status->magic = NIC_STATUS_MAGIC;
    fw->status->abi_version = NIC_ABI_VERSION;
    fw->status->fw_pid = (uint32_t)getpid();
    fw->status->pers_id = fw->pers->id;
    atomic_store(&fw->status->fw_alive, 1);

    fw->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    fw->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (fw->event_fd < 0 || fw->epoll_fd < 0) {
        rc = NIC_ERR_IO;
        goto err;
    }
    if ((rc = nic_wire_open(&fw->wire, cfg->bind_ip, cfg->bind_port, &cfg->fault,
                            &fw->cfg.log)) != NIC_OK)
        goto err;
    nic_wire_set_offload(&fw->wire, cfg->offload);
    if ((rc = nic_wire_set_mac(&fw->wire, cfg->mac)) != NIC_OK ||
        (rc = nic_wire_set_mtu(&fw->wire, cfg->mtu)) != NIC_OK)
        goto err;
    if ((rc = fw->pers->fw_init(fw, &fw->pers_state)) != NIC_OK)
        goto err;
    if ((rc = fw_listen(fw)) != NIC_OK)
        goto err;
    fw_epoll_add(fw, fw->listen_fd, NIC_EV_LISTEN, 0);
    fw_epoll_add(fw, fw->event_fd, NIC_EV_EVENT, 0);
    fw_epoll_add(fw, fw->wire.fd, NIC_EV_WIRE, 0);
    fw->wire_watched = 1;
    fw->idle_since_ns = nic_now_ns();
    *fw_p = fw;
    return NIC_OK;
err:
    nic_fw_destroy(fw);
    return rc;
}

void nic_fw_stop(nic_fw_t *fw)
{
    uint64_t one = 1;
    atomic_store(&fw->stop, 1);
    if (write(fw->event_fd, &one, sizeof(one)) < 0) {
        /* the loop also checks stop at its next timeout */
    }
}

void nic_fw_destroy(nic_fw_t *fw)
{
    if (fw == NULL)
        return;
    for (unsigned c = 0; c < NIC_FW_MAX_CONN; c++)
        if (fw->conns[c].fd >= 0)
            nic_fw_conn_drop(fw, c, "left at shutdown");
    if (fw->pers_state != NULL && fw->pers->fw_fini != NULL)
        fw->pers->fw_fini(fw, fw->pers_state);
    if (fw->listen_fd >= 0) {
        unlink(fw->sock_path);
        close(fw->listen_fd);
    }
    if (fw->status != NULL) {
        atomic_store(&fw->status->fw_alive, 0);
        munmap(fw->status, 4096);
    }
    if (fw->status_fd >= 0)
        close(fw->status_fd);
    if (fw->event_fd >= 0)
        close(fw->event_fd);
    if (fw->epoll_fd >= 0)
        close(fw->epoll_fd);
    nic_wire_close(&fw->wire);
    pthread_mutex_destroy(&fw->turn_lock);
    free(fw);
}

void *nic_fw_pers_state(nic_fw_t *fw) { return fw->pers_state; }
nic_wire_t *nic_fw_wire(nic_fw_t *fw) { return &fw->wire; }
const nic_fw_config_t *nic_fw_config(nic_fw_t *fw) { return &fw->cfg; }
const nic_log_sink_t *nic_fw_log(const nic_fw_t *fw) { return &fw->cfg.log; }

static void fw_rx_one(void *arg, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                      size_t len)
{
    nic_fw_t *fw = arg;
    fw->pers->rx_frame(fw, from, job, frame, len);
}

static void fw_rx_batch_end(void *arg)
{
    nic_fw_t *fw = arg;
    if (fw->pers->rx_batch_end != NULL)
        fw->pers->rx_batch_end(fw);
}

/* One pass over the doorbells of every endpoint. */
static int fw_service_eps(nic_fw_t *fw)
{
    int events = 0;
    for (unsigned i = 0; i < fw->eps_end; i++) {
        nic_fw_ep_t *ep = fw->eps[i];
        if (ep == NULL)
            continue;
        if (nic_ring_corrupt(&ep->sq)) {
            nic_log_warn(&fw->cfg.log, "endpoint %#x: send doorbell beyond the ring; endpoint "
                         "failed", ep->id);
            nic_fw_ep_fail(ep, NIC_ERR_PROTECTION);
            continue;
        }
        events += fw->pers->ep_service(fw, ep);
    }
    return events;
}

/* Work pending that a sleeping firmware must not miss. */
static int fw_doorbells_pending(nic_fw_t *fw)
{
    for (unsigned i = 0; i < fw->eps_end; i++) {
        nic_fw_ep_t *ep = fw->eps[i];
        if (ep == NULL)
            continue;
        if (atomic_load(&ep->sh->sq_prod) != ep->sq.local ||
            (ep->sh->rq_entries && atomic_load(&ep->sh->rq_prod) != ep->rq.local))
            return 1;
    }
    return 0;
}

/* Control socket, pidfds, eventfd; timeout_ms 0 polls.  Waits unlocked,
 * handles what came under turn_lock. */
static int fw_wait_events(nic_fw_t *fw, int timeout_ms)
{
    struct epoll_event evs[16];
    int n = epoll_wait(fw->epoll_fd, evs, 16, timeout_ms);
    int handled = 0;

    if (n <= 0)
        return 0;
    pthread_mutex_lock(&fw->turn_lock);
    for (int i = 0; i < n; i++) {
        uint32_t kind = (uint32_t)(evs[i].data.u64 >> 32);
        uint32_t idx = (uint32_t)evs[i].data.u64;
        switch (kind) {
        case NIC_EV_LISTEN:
            handled += nic_fw_ctl_accept(fw);
            break;
        case NIC_EV_EVENT: {
            uint64_t v;
            if (read(fw->event_fd, &v, sizeof(v)) < 0) {
                /* already drained */
            }
            break;
        }
        case NIC_EV_WIRE:
            break;   /* the loop receives */
        case NIC_EV_CONN:
            nic_fw_ctl_handle(fw, idx);
            handled++;
            break;
        case NIC_EV_PIDFD:
            nic_fw_conn_drop(fw, idx, "exited");
            handled++;
            break;
        }
    }
    pthread_mutex_unlock(&fw->turn_lock);
    return handled;
}

/* One turn of the data path; the caller holds turn_lock. */
static int fw_turn(nic_fw_t *fw, uint64_t *now, uint64_t *next)
{
    int events = nic_wire_recv(&fw->wire, NIC_FW_RX_PER_LOOP, fw_rx_one, fw_rx_batch_end, fw);

    events += fw_service_eps(fw);
    *now = nic_now_ns();
    events += fw->pers->poll(fw, *now, next);
    events += nic_wire_flush(&fw->wire, *now);
    nic_wire_flush_tx(&fw->wire);
    return events;
}

int nic_fw_lend(nic_fw_t *fw)
{
    uint64_t now, next = UINT64_MAX;
    int events;

    if (pthread_mutex_trylock(&fw->turn_lock) != 0)
        return 0;                  /* the firmware is at work itself */
    events = fw_turn(fw, &now, &next);
    atomic_store_explicit(&fw->next_ns, next, memory_order_relaxed);
    pthread_mutex_unlock(&fw->turn_lock);
    atomic_store_explicit(&fw->lent_ns, now, memory_order_relaxed);
    return events;
}

static void fw_kick(nic_fw_t *fw)
{
    uint64_t one = 1;

    if (write(fw->event_fd, &one, sizeof(one)) < 0) {
        /* counter saturated: the firmware wakes anyway */
    }
}

void nic_fw_unlend(nic_fw_t *fw)
{
    if (atomic_exchange(&fw->lent_ns, 0) != 0)
        fw_kick(fw);
}

/* A host lent a turn within this window: it drives the data path. */
#define NIC_FW_LEND_WINDOW_NS (1000 * 1000ull)
/* Meanwhile the firmware thread naps this long, the bound on how late work
 * that no host drives (a send posted before the application computes) is
 * picked up. */
#define NIC_FW_LEND_NAP_MS 1

void nic_fw_host_on_wire(nic_fw_t *fw)
{
    uint64_t next = atomic_load_explicit(&fw->next_ns, memory_order_relaxed);

    atomic_store(&fw->lent_ns, NIC_FW_HOST_ON_WIRE);
    /* Wake the firmware thread if it sleeps watching the wire (nobody lent
     * for a while): it would take the next frame, and the host's wake
     * would be for nothing.  Wake it too if a deadline of the data path (a
     * frame the timing model holds, an ack owed) falls within its nap,
     * since the host will not look before an arrival. */
    if (atomic_load(&fw->status->fw_sleeping) ||
        (next != UINT64_MAX && next < nic_now_ns() + NIC_FW_LEND_WINDOW_NS))
        fw_kick(fw);
}

/* Whether hosts drive the data path now; the wire socket leaves the epoll
 * set while they do, so arrivals do not wake the firmware thread for
 * nothing, and comes back when they stop. */
static int fw_hosts_lending(nic_fw_t *fw, uint64_t now)
{
    uint64_t lent = atomic_load_explicit(&fw->lent_ns, memory_order_relaxed);
    int lending = lent == NIC_FW_HOST_ON_WIRE ||
                  (lent != 0 && now - lent < NIC_FW_LEND_WINDOW_NS);

    if (lending == fw->wire_watched) {
        struct epoll_event ev = { .events = lending ? 0 : EPOLLIN,
                                  .data.u64 = (uint64_t)NIC_EV_WIRE << 32 };
        if (epoll_ctl(fw->epoll_fd, EPOLL_CTL_MOD, fw->wire.fd, &ev) == 0)
            fw->wire_watched = !lending;
    }
    return lending;
}

int nic_fw_run(nic_fw_t *fw)
{
    uint64_t last_busy = nic_now_ns(), loops = 0;
    const uint64_t spin_ns = (uint64_t)(fw->cfg.spin_us > 0 ? fw->cfg.spin_us : 0) * 1000;

    while (!atomic_load(&fw->stop)) {
        uint64_t now, next = UINT64_MAX;
        int events;

        pthread_mutex_lock(&fw->turn_lock);
        events = fw_turn(fw, &now, &next);
        atomic_store_explicit(&fw->next_ns, next, memory_order_relaxed);
        pthread_mutex_unlock(&fw->turn_lock);
        if ((++loops & 255) == 0) {
            events += fw_wait_events(fw, 0);
            atomic_store_explicit(&fw->status->loops, loops, memory_order_relaxed);
        }
        if (events > 0) {
            last_busy = now;
            continue;
        }
        uint64_t until_next = next > now ? next - now : 0;
        if (fw_hosts_lending(fw, now)) {
            /* A host of this process runs the turns, timers included, while
             * it polls, or sleeps on the wire and will when a frame comes:
             * nap, answering control requests, without announcing sleep
             * (hosts do not kick), and look again.  A deadline of our own
             * within the nap while the host sleeps is ours to meet.  Never
             * spin otherwise: the host shares this CPU. */
            if (atomic_load_explicit(&fw->lent_ns, memory_order_relaxed) ==
                    NIC_FW_HOST_ON_WIRE &&
                until_next <= (uint64_t)NIC_FW_LEND_NAP_MS * NIC_FW_SLEEP_GRAIN_NS)
                sched_yield();
            else
                fw_wait_events(fw, NIC_FW_LEND_NAP_MS);
            continue;
        }
        /* Idle but recently busy, or a deadline of our own (a frame or a
         * completion a timing model holds, an ack owed) closer than a sleep
         * in whole milliseconds could meet: stay responsive, and let a
         * process sharing this core run. */
        if (now - last_busy < spin_ns || until_next <= spin_ns + NIC_FW_SLEEP_GRAIN_NS) {
            sched_yield();
            continue;
        }
        if (fw->nconns == 0 && fw->exit_when_idle) {
            nic_log_info(&fw->cfg.log, "the start-up of its last process failed: exiting");
            break;
        }
        if (fw->nconns == 0 && fw->cfg.idle_exit_ms >= 0 &&
            now - fw->idle_since_ns >= (uint64_t)fw->cfg.idle_exit_ms * 1000000ull) {
            nic_log_info(&fw->cfg.log, "no process attached for %d ms: exiting",
                         fw->cfg.idle_exit_ms);
            break;
        }
        /* Block.  Announce it, then look once more, so that a host that
         * rang a doorbell before seeing the flag is not missed. */
        atomic_store(&fw->status->fw_sleeping, 1);
        pthread_mutex_lock(&fw->turn_lock);     /* a lending host may be at the rings */
        int pending = fw_doorbells_pending(fw), held = fw->wire.held;
        pthread_mutex_unlock(&fw->turn_lock);
        if (pending) {
            atomic_store(&fw->status->fw_sleeping, 0);
            continue;
        }
        /* wake a spin before the deadline, at least once a second */
        uint64_t sleep_ms = (until_next - spin_ns) / NIC_FW_SLEEP_GRAIN_NS;
        int timeout_ms = sleep_ms > 1000 ? 1000 : (int)sleep_ms;
        if (fw->nconns == 0 && fw->cfg.idle_exit_ms >= 0 && timeout_ms > fw->cfg.idle_exit_ms)
            timeout_ms = fw->cfg.idle_exit_ms;
        if (held)
            timeout_ms = 1;
        fw_wait_events(fw, timeout_ms);
        atomic_store(&fw->status->fw_sleeping, 0);
        last_busy = nic_now_ns();
    }
    return NIC_OK;
}
