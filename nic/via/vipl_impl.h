/* vipl_impl.h - the VI user agent's own state (host side only). */
#ifndef VIPL_IMPL_H
#define VIPL_IMPL_H

#include <pthread.h>
#include <stdint.h>

#include "../core/nic_host.h"
#include "via_lmm.h"
#include "vipl.h"

/* One registration (what deregistration must undo). */
typedef struct vipl_reg {
    uint32_t handle;          /* 0: free */
    uint64_t va, len;
} vipl_reg_t;

/* Memory shared with the NIC (vipl_alloc_mem). */
typedef struct vipl_shared {
    nic_mr_t          mr;     /* mr.addr NULL: free */
    vipl_mem_handle_t handle;
} vipl_shared_t;

#define VIPL_MAX_SHARED 48    /* the core allows 64 regions per endpoint */

struct vipl_nic {
    nic_host_t        *host;
    nic_ep_t          *ep;            /* the NIC handle endpoint */
    via_nic_attr_t     attr;
    nic_job_t          job;           /* its endpoints' job */
    uint64_t           job_key;       /* = job.tag */
    pthread_mutex_t    lock;          /* registrations, LMM, VI table */
    nic_log_sink_t     log;           /* vipl_nic_opts_t.log */
    via_lmm_t          lmm;
    vipl_reg_t        *regs;          /* [VIA_TPT_MAX], by handle slot */
    vipl_shared_t      shared[VIPL_MAX_SHARED];
    vipl_vi_t        **vis;           /* by endpoint slot (id & 0xff) */
    via_host_timing_t  ht;            /* host costs (timing model) */
    int                timing;
    /* The host waits (vipl_cq_wait_begin, vipl_send_wait_begin): the first
     * completion it waited for wakes it, once, whichever object it came on. */
    atomic_int         asleep;
    atomic_uint_least64_t wakeups;
};

/* A posted descriptor in host order. */
typedef struct vipl_fifo {
    via_desc_t **d;
    uint32_t     cap, head, tail;
} vipl_fifo_t;

struct vipl_vi {
    vipl_nic_t      *nic;
    nic_ep_t        *ep;
    via_vi_shared_t *sh;
    vipl_vi_attr_t   attr;
    vipl_cq_t       *send_cq, *recv_cq;
    pthread_mutex_t  lock;
    vipl_fifo_t      sendq, recvq;
    int              send_waiting;  /* vipl_send_wait_begin: the host waits for a send */
    void            *ctx;
};

struct vipl_cq {
    vipl_nic_t      *nic;
    nic_ep_t        *ep;
    pthread_mutex_t  lock;
    int              waiting;     /* the host waits: the next completion wakes it */
    uint64_t         wakeups;
};

/* nic_status -> vipl_result */
vipl_result_t vipl_from_nic(int status);
/* Busy-wait ns nanoseconds: a host cost of the timing model. */
void          vipl_charge(uint64_t ns);
uint64_t      vipl_now_ns(void);
/* Registration record of handle (nic->lock held), NULL if none. */
vipl_reg_t   *vipl_reg_find(vipl_nic_t *nic, uint32_t handle);
/* The VI of an endpoint id, NULL if not ours. */
vipl_vi_t    *vipl_vi_lookup(vipl_nic_t *nic, uint32_t ep_id);
/* The host begins to wait; a completion it waited for ends the wait: 1 if
 * that woke it (the first since it began, counted in nic->wakeups), 0 if it
 * was awake; a wait that ends with nothing (a timeout) leaves it awake. */
void          vipl_host_sleeps(vipl_nic_t *nic);
int           vipl_host_woken(vipl_nic_t *nic);
void          vipl_host_awake(vipl_nic_t *nic);
/* Sleep on a futex word until it differs from seen or timeout_ms passes
 * (at most 5 ms at a time, so concurrent waiters are never stranded). */
void          vipl_futex_wait(nic_ep_t *ep, uint32_t seen, int timeout_ms);

#endif /* VIPL_IMPL_H */
