/*
 * nic_host.h - the host side of the emulated NIC: what a subdevice links.
 *
 * Slow path (control socket, may block): attach to the node's firmware
 * (starting nicd if none runs), open and close endpoints, register memory,
 * configure the personality.  Fast path (inline, no system call): post to
 * the send/receive queues, poll the completion queue.  The only system call
 * a post can make is the kick of a firmware that announced it is sleeping.
 *
 * Thread safety: a nic_host_t serialises its control calls; rings of one
 * endpoint must be used by one thread at a time (the caller's lock).
 */
#ifndef NIC_HOST_H
#define NIC_HOST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nic_abi.h"
#include "nic_clock.h"
#include "nic_job.h"
#include "nic_log.h"
#include "nic_ring.h"
#include "nic_status.h"

typedef struct nic_host nic_host_t;

typedef struct nic_attach_opts {
    const char *node;        /* emulated node name (required) */
    const char *nic;         /* NIC name, e.g. "myri0" (required) */
    const char *pers;        /* personality the firmware must run */
    const char *rundir;      /* NULL: MULTIDEV_NIC_RUNDIR or default */
    const char *nicd_path;   /* NULL: MULTIDEV_NICD, else the installed nicd */
    const char *bind_ip;     /* address the started firmware binds (NULL: default) */
    int         bind_ip_must_match; /* a firmware that runs already, bound
                                else than bind_ip, is an error naming both;
                                0: it is used, and its address is the one
                                the host publishes (wire_ip) */
    int         start;       /* 1: start nicd when none runs */
    int         inproc;      /* 1: run the firmware as a thread of this process
                                (the node's only process); a firmware that
                                already runs for the node is used instead */
    int         own_fw;      /* with inproc: the firmware is this process's
                                alone (its job's only rank on the node): it
                                takes no node lock and nobody else attaches,
                                so processes of other jobs on the node, which
                                it will not outlive, use their own */
    int         timeout_ms;  /* how long to wait for a starting firmware */
    nic_log_sink_t log;      /* where the lines about this NIC go, its
                                in-process firmware's too (nic_log.h);
                                zero: stderr */
} nic_attach_opts_t;

typedef struct nic_ep {
    nic_host_t      *host;
    uint32_t         id;
    uint64_t         job_key;
    nic_ep_shared_t *sh;
    size_t           seg_size;
    nic_ring_t       sq, rq, cq;     /* host's side of each ring */
    int              wake_fd;        /* nic_ep_wake_arm(), -1 until then */
    int              sleep_fd;       /* in-process firmware: epoll of wake_fd
                                        and, while on_wire, the wire socket */
    int              on_wire;
    int              armed;
    uint32_t         mem_gen_seen;   /* sh->mem_gen at the last nic_ep_wake_disarm() */
} nic_ep_t;

typedef struct nic_mr {
    void    *addr;
    uint64_t size;
    uint32_t key;
    int      fd;
} nic_mr_t;

/* Shared with the inline fast path below. */
struct nic_host {
    int                fd;           /* control socket */
    int                event_fd;     /* firmware's kick */
    nic_status_page_t *status;
    uint32_t           pers_id;
    uint32_t           wire_ip;      /* firmware's UDP address, network order */
    uint16_t           wire_port;
    uint64_t           watch_ns;     /* last liveness check */
    uint64_t           watch_interval_ns;
    _Atomic int        dead;
    char               what[160];    /* "node n1 nic myri0" */
    void              *lock;         /* pthread mutex */
    void              *inproc;       /* our own firmware thread, or NULL */
    nic_log_sink_t     log;          /* nic_attach_opts_t.log */
};

int  nic_host_attach(const nic_attach_opts_t *opts, nic_host_t **host_p);
void nic_host_detach(nic_host_t *host);
/* This process's start-up failed: a firmware started on demand (nicd) that
 * it leaves with no other process attached exits then, instead of idling
 * for MULTIDEV_NIC_IDLE_MS.  Call before nic_host_detach. */
void nic_host_start_failed(nic_host_t *host);
/* With the firmware in this process: give it one turn of the data path
 * now (where the host would otherwise idle) and return the events it
 * handled; -1 when the firmware runs elsewhere (then idle as usual). */
int  nic_host_lend(nic_host_t *host);
/* Text from the firmware's status (NIC_CTL_STATUS). */
int  nic_host_status(nic_host_t *host, char *buf, size_t len);
/* Ask the firmware to exit. */
int  nic_host_shutdown(nic_host_t *host);

/* An endpoint of a job (nic_job.h): its secret goes to the firmware, which
 * keeps the job's wire key while the job has endpoints there; ep->job_key
 * is the job's tag. */
int  nic_ep_open(nic_host_t *host, const nic_job_t *job, uint32_t sq_entries,
                 uint32_t rq_entries, uint32_t cq_entries, nic_ep_t **ep_p);
int  nic_ep_close(nic_ep_t *ep);
/* Personality configuration call (NIC_CTL_PERS). */
int  nic_ep_ctl(nic_ep_t *ep, uint32_t op, const void *in, size_t in_len, void *out,
                size_t *out_len);
/* Raw control request naming any endpoint id and key (tests of the
 * protection checks use it). */
int  nic_host_ctl_raw(nic_host_t *host, uint32_t op, uint32_t ep_id, uint64_t job_key,
                      uint32_t pers_op, const void *in, size_t in_len);

/* Allocate size bytes shared with the firmware and register them. */
int  nic_mr_alloc(nic_ep_t *ep, uint64_t size, uint32_t access, nic_mr_t *mr);
int  nic_mr_free(nic_ep_t *ep, nic_mr_t *mr);

/* Liveness, rate limited (MULTIDEV_NIC_WATCHDOG_MS, default 100): NIC_OK,
 * NIC_ERR_PEER_FAILED once the firmware died (logged once, naming the
 * node and NIC), or the endpoint's error if the firmware failed it. */
int  nic_ep_check(nic_ep_t *ep);
/* Block until the CQ is not empty or timeout_ms passes (futex). */
int  nic_ep_wait(nic_ep_t *ep, int timeout_ms);
/* A descriptor to sleep on in poll(): nic_ep_wake_arm() returns an eventfd
 * (created on first use) that becomes readable once the CQ is not empty,
 * or the firmware wrote the endpoint's memory outside the CQ (SCI stores,
 * nic_fw_ep_mem_written), or -1.  Call nic_ep_wake_disarm() when awake
 * again, before looking at the CQ and that memory: it drains the fd and
 * notes mem_gen, so that a write that lands after the look and before the
 * next arming makes that arming readable at once.
 * sole: no other thread of this process lends the firmware turns until the
 * caller wakes.  With the firmware in this process the descriptor is then
 * readable also when a frame waits on the wire, which the firmware thread
 * leaves to the host meanwhile (nic_fw_host_on_wire): the woken host must
 * lend a turn (nic_host_lend) before it looks, as every progress call does.
 * Without sole, another thread lends: nothing is taken from it. */
int  nic_ep_wake_arm(nic_ep_t *ep, int sole);
void nic_ep_wake_disarm(nic_ep_t *ep);
/* Bumped by the firmware each time it writes the endpoint's memory outside
 * the CQ (nic_fw_ep_mem_written). */
static inline uint32_t nic_ep_mem_gen(const nic_ep_t *ep)
{
    return atomic_load(&ep->sh->mem_gen);
}

void nic_host_kick_slow(nic_host_t *host);

/* --- fast path --- */

static inline nic_entry_t *nic_ep_sq_slot(nic_ep_t *ep) { return nic_ring_slot(&ep->sq); }
static inline nic_entry_t *nic_ep_rq_slot(nic_ep_t *ep) { return nic_ring_slot(&ep->rq); }

static inline void nic_host_kick(nic_host_t *host)
{
    if (atomic_load(&host->status->fw_sleeping))
        nic_host_kick_slow(host);
}

/* Ring the send doorbell for the slot filled after nic_ep_sq_slot(). */
static inline void nic_ep_sq_post(nic_ep_t *ep)
{
    nic_ring_commit(&ep->sq);
    nic_host_kick(ep->host);
}

static inline void nic_ep_rq_post(nic_ep_t *ep)
{
    nic_ring_commit(&ep->rq);
    nic_host_kick(ep->host);
}

static inline nic_entry_t *nic_ep_cq_peek(nic_ep_t *ep) { return nic_ring_peek(&ep->cq); }
static inline uint32_t nic_ep_cq_index(nic_ep_t *ep) { return nic_ring_index(&ep->cq); }
static inline void nic_ep_cq_release(nic_ep_t *ep) { nic_ring_release(&ep->cq); }

#endif /* NIC_HOST_H */
