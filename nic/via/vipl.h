/*
 * vipl.h - the VI user agent: a VIPL-like C API (VIA 1.0's "VI Provider
 * Library") over the emulated VI NIC of nic/via.  doc/via.md describes it.
 *
 *   VipOpenNic          vipl_open_nic / vipl_close_nic / vipl_query_nic
 *   VipCreatePtag       vipl_create_ptag / vipl_destroy_ptag
 *   VipRegisterMem      vipl_register_mem / vipl_deregister_mem
 *                       (+ vipl_alloc_mem: memory the NIC reaches directly)
 *   VipCreateCQ         vipl_create_cq / vipl_destroy_cq
 *   VipCQDone/CQWait    vipl_cq_done / vipl_cq_wait (+ vipl_cq_wait_begin)
 *   VipCreateVi         vipl_create_vi / vipl_destroy_vi / vipl_query_vi
 *   VipPostSend/Recv    vipl_post_send / vipl_post_recv
 *   VipSendDone/Wait    vipl_send_done / vipl_send_wait
 *   VipRecvDone/Wait    vipl_recv_done / vipl_recv_wait
 *   VipConnectWait      vipl_connect_wait, then vipl_connect_accept or
 *                       vipl_connect_reject
 *   VipConnectRequest   vipl_connect_request (blocking), or
 *                       vipl_connect_start + vipl_connect_poll
 *   VipDisconnect       vipl_disconnect
 *
 * Thread safety (VipQueryNic's ThreadSafe): yes.  Calls on one VI are
 * serialised by the VI's lock, calls on one CQ by the CQ's, registration by
 * the NIC handle's.
 */
#ifndef VIPL_H
#define VIPL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/nic_job.h"
#include "../core/nic_log.h"
#include "via_desc.h"
#include "via_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes, in the order of VIP_RETURN. */
typedef enum vipl_result {
    VIPL_SUCCESS = 0,
    VIPL_NOT_DONE,
    VIPL_INVALID_PARAMETER,
    VIPL_ERROR_RESOURCE,
    VIPL_TIMEOUT,
    VIPL_REJECT,
    VIPL_INVALID_RELIABILITY_LEVEL,
    VIPL_INVALID_MTU,
    VIPL_INVALID_QOS,
    VIPL_INVALID_PTAG,
    VIPL_INVALID_RDMAREAD,
    VIPL_DESCRIPTOR_ERROR,
    VIPL_INVALID_STATE,
    VIPL_ERROR_NAMESERVICE,
    VIPL_NO_MATCH,
    VIPL_NOT_REACHABLE,
    VIPL_ERROR_NOT_SUPPORTED,
    VIPL_ERROR,
} vipl_result_t;

const char *vipl_result_str(vipl_result_t r);

typedef struct vipl_nic vipl_nic_t;
typedef struct vipl_vi  vipl_vi_t;
typedef struct vipl_cq  vipl_cq_t;
typedef uint32_t        vipl_mem_handle_t;
typedef uint32_t        vipl_ptag_t;

#define VIPL_INFINITE (-1)     /* timeout: wait for ever */

/* Which NIC to open (VipOpenNic's device name). */
typedef struct vipl_nic_opts {
    const char *node;          /* emulated node name (required) */
    const char *nic;           /* NIC name on the node, e.g. "via0" */
    const char *rundir;        /* NULL: MULTIDEV_NIC_RUNDIR or default */
    const char *bind_ip;       /* address a started firmware binds */
    int         bind_ip_must_match; /* nic_attach_opts_t's */
    const nic_job_t *job;      /* the job of this NIC's endpoints (NULL: a job of
                                  this process alone, with a random secret) */
    int         start;         /* 1: start nicd if no firmware runs */
    int         inproc;        /* 1: the firmware as a thread of this process */
    int         own_fw;        /* with inproc: this process's alone (nic_attach_opts_t) */
    nic_log_sink_t log;        /* where the lines about this NIC go (nic_attach_opts_t) */
} vipl_nic_opts_t;

vipl_result_t vipl_open_nic(const vipl_nic_opts_t *o, vipl_nic_t **nic);
vipl_result_t vipl_close_nic(vipl_nic_t *nic);
vipl_result_t vipl_query_nic(vipl_nic_t *nic, via_nic_attr_t *attr);
/* Timing model for this NIC (firmware-wide) and this process's host
 * costs: a profile of via_timing_profile ("lanai7", "clan"), or "off". */
vipl_result_t vipl_set_timing(vipl_nic_t *nic, const char *profile);

/* VIP_NET_ADDRESS: host address (the NIC's IPv4 address and UDP port)
 * followed by a discriminator. */
typedef struct vipl_net_addr {
    uint16_t host_len;         /* VIA_ADDR_LEN */
    uint16_t disc_len;
    uint8_t  host[VIA_ADDR_LEN];
    uint8_t  disc[VIA_DISC_MAX];
} vipl_net_addr_t;

/* This NIC's address, with an empty discriminator. */
vipl_result_t vipl_nic_address(vipl_nic_t *nic, vipl_net_addr_t *addr);
/* Set the discriminator of addr (at most VIA_DISC_MAX bytes). */
vipl_result_t vipl_addr_set_disc(vipl_net_addr_t *addr, const void *disc, size_t len);

vipl_result_t vipl_create_ptag(vipl_nic_t *nic, vipl_ptag_t *ptag);
vipl_result_t vipl_destroy_ptag(vipl_nic_t *nic, vipl_ptag_t ptag);

/* VIP_MEM_ATTRIBUTES */
typedef struct vipl_mem_attr {
    vipl_ptag_t ptag;
    int         enable_rdma_write;
    int         enable_rdma_read;
} vipl_mem_attr_t;

/* Register [va, va+len): pinned (LMM) and entered into the NIC's TPT.  The
 * same range may be registered any number of times. */
vipl_result_t vipl_register_mem(vipl_nic_t *nic, void *va, size_t len, const vipl_mem_attr_t *a,
                                vipl_mem_handle_t *handle);
vipl_result_t vipl_deregister_mem(vipl_nic_t *nic, void *va, vipl_mem_handle_t handle);
/* Allocate len bytes shared with the NIC (reached without a system call)
 * and register them; vipl_free_mem deregisters and frees. */
vipl_result_t vipl_alloc_mem(vipl_nic_t *nic, size_t len, const vipl_mem_attr_t *a, void **va,
                             vipl_mem_handle_t *handle);
vipl_result_t vipl_free_mem(vipl_nic_t *nic, void *va);

vipl_result_t vipl_create_cq(vipl_nic_t *nic, uint32_t entries, vipl_cq_t **cq);
vipl_result_t vipl_destroy_cq(vipl_cq_t *cq);
/* The VI and queue (is_recv) of the next completion; then reap it with
 * vipl_send_done / vipl_recv_done.  VIPL_ERROR_RESOURCE: the CQ overflowed. */
vipl_result_t vipl_cq_done(vipl_cq_t *cq, vipl_vi_t **vi, int *is_recv);
/* Blocks (a kernel trap and a sleep) until a completion or the timeout; a
 * completion it slept for costs the host timing model's interrupt and
 * wake-up (wake_ns). */
vipl_result_t vipl_cq_wait(vipl_cq_t *cq, int timeout_ms, vipl_vi_t **vi, int *is_recv);
/* vipl_cq_wait for a caller that must not sleep in one CQ (a progress
 * engine that serves other networks too): it found the CQ empty and waits
 * now, as if it slept in VipCQWait.  The next completion vipl_cq_done
 * finds is one the host was woken for: it costs the interrupt and wake-up
 * (charged only with a timing model) and counts as a wake-up. */
void          vipl_cq_wait_begin(vipl_cq_t *cq);
/* Completions found after a wait (vipl_cq_wait slept, or vipl_cq_wait_begin):
 * the interrupts and wake-ups the host paid for. */
uint64_t      vipl_cq_wakeups(vipl_cq_t *cq);
/* Every wake-up the host paid for on this NIC: after vipl_cq_wait_begin
 * and vipl_send_wait_begin, whichever completion came first. */
uint64_t      vipl_nic_wakeups(vipl_nic_t *nic);

/* A descriptor that becomes readable once the CQ holds an entry (for
 * poll(): a progress thread sleeping while idle), -1 if none; call
 * vipl_cq_wake_done() when awake again.  sole: as nic_ep_wake_arm()'s (the
 * caller is its process's only poller; with an in-process firmware the
 * descriptor then also wakes for frames on the wire, and the woken thread
 * lends a turn, vipl_nic_lend, before it looks). */
int           vipl_cq_wake_fd(vipl_cq_t *cq, int sole);
void          vipl_cq_wake_done(vipl_cq_t *cq);

/* VIP_VI_ATTRIBUTES (+ queue depths, powers of two) */
typedef struct vipl_vi_attr {
    uint32_t    reliability;       /* VIA_UNRELIABLE, _RELIABLE_DELIVERY, ... */
    uint32_t    max_transfer;      /* MaxTransferSize */
    vipl_ptag_t ptag;
    int         enable_rdma_write;
    int         enable_rdma_read;
    uint32_t    send_depth, recv_depth;
} vipl_vi_attr_t;

vipl_result_t vipl_create_vi(vipl_nic_t *nic, const vipl_vi_attr_t *a, vipl_cq_t *send_cq,
                             vipl_cq_t *recv_cq, vipl_vi_t **vi);
vipl_result_t vipl_destroy_vi(vipl_vi_t *vi);

typedef struct vipl_vi_info {
    uint32_t state;                /* enum via_vi_state */
    uint32_t async_error;          /* last enum via_async_error */
    uint32_t async_count;
    int      send_queue_empty, recv_queue_empty;
    vipl_vi_attr_t remote;         /* the connected VI's attributes */
} vipl_vi_info_t;

vipl_result_t vipl_query_vi(vipl_vi_t *vi, vipl_vi_info_t *info);
/* The VI's endpoint id (what a CQ entry names). */
uint32_t      vipl_vi_id(const vipl_vi_t *vi);
/* Cookie for the caller (e.g. its peer number). */
void          vipl_vi_set_context(vipl_vi_t *vi, void *ctx);
void         *vipl_vi_context(const vipl_vi_t *vi);

/* Post a descriptor (64-byte aligned, in memory registered under handle).
 * A send needs a connected VI (else VIPL_INVALID_STATE); a receive may be
 * posted before the connection exists. */
vipl_result_t vipl_post_send(vipl_vi_t *vi, via_desc_t *desc, vipl_mem_handle_t handle);
vipl_result_t vipl_post_recv(vipl_vi_t *vi, via_desc_t *desc, vipl_mem_handle_t handle);
/* The oldest posted descriptor of the queue if it is done (VIPL_NOT_DONE
 * otherwise); its Status says how it went. */
vipl_result_t vipl_send_done(vipl_vi_t *vi, via_desc_t **desc);
vipl_result_t vipl_recv_done(vipl_vi_t *vi, via_desc_t **desc);
/* Block (futex on the VI's completion counter) until it is done. */
vipl_result_t vipl_send_wait(vipl_vi_t *vi, int timeout_ms, via_desc_t **desc);
/* vipl_send_wait for a caller that must not sleep in one VI (as
 * vipl_cq_wait_begin, and together with it: the host sleeps until the first
 * of them completes).  The next send completion vipl_send_done reaps on
 * this VI costs the interrupt and wake-up if the host still slept then. */
void          vipl_send_wait_begin(vipl_vi_t *vi);
vipl_result_t vipl_recv_wait(vipl_vi_t *vi, int timeout_ms, via_desc_t **desc);

/* Descriptor helpers.  Immediate data is at most 4 bytes: 5 are refused
 * with VIPL_INVALID_PARAMETER. */
void          vipl_desc_init(via_desc_t *d, uint16_t control);
vipl_result_t vipl_desc_set_immediate(via_desc_t *d, const void *data, size_t len);
/* Append a data segment (after the address segment of an RDMA). */
vipl_result_t vipl_desc_add_data(via_desc_t *d, const void *va, vipl_mem_handle_t h, uint32_t len);
void          vipl_desc_set_remote(via_desc_t *d, uint64_t va, vipl_mem_handle_t h);

/* Server side: a connection request for local->disc (VipConnectWait). */
typedef struct vipl_conn {
    vipl_nic_t     *nic;
    uint32_t        handle;
    vipl_net_addr_t remote;
    vipl_vi_attr_t  remote_attr;
} vipl_conn_t;

vipl_result_t vipl_connect_wait(vipl_nic_t *nic, const vipl_net_addr_t *local, int timeout_ms,
                                vipl_conn_t *conn);
/* VIPL_INVALID_RELIABILITY_LEVEL / VIPL_INVALID_MTU: the attributes differ
 * (the client is rejected). */
vipl_result_t vipl_connect_accept(vipl_conn_t *conn, vipl_vi_t *vi);
vipl_result_t vipl_connect_reject(vipl_conn_t *conn);
/* Client side. */
vipl_result_t vipl_connect_request(vipl_vi_t *vi, const vipl_net_addr_t *remote, int timeout_ms,
                                   vipl_vi_attr_t *remote_attr);
vipl_result_t vipl_connect_start(vipl_vi_t *vi, const vipl_net_addr_t *remote, int timeout_ms);
/* VIPL_NOT_DONE while pending; then SUCCESS, REJECT, TIMEOUT, ... */
vipl_result_t vipl_connect_poll(vipl_vi_t *vi);
vipl_result_t vipl_disconnect(vipl_vi_t *vi);

/* The NIC handle's underlying endpoint state is fine (NIC_OK) or the
 * nic_status of why not (firmware dead). */
int vipl_nic_check(vipl_nic_t *nic);
/* Not VIPL: the process's start-up failed, and a firmware started on
 * demand for it need not idle after it (nic_host_start_failed). */
void vipl_nic_start_failed(vipl_nic_t *nic);
/* An extension of ours: with the firmware in this process (inproc), give
 * it a turn now instead of idling (nic_host_lend); -1 otherwise. */
int vipl_nic_lend(vipl_nic_t *nic);

#ifdef __cplusplus
}
#endif

#endif /* VIPL_H */
