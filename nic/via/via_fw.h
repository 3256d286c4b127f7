/* via_fw.h - state of the VI firmware (firmware side only). */
#ifndef VIA_FW_H
#define VIA_FW_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "../core/nic_fw.h"
#include "../core/nic_rel.h"
#include "via_desc.h"
#include "via_wire.h"

#define VIA_PTAG_MAX     256u
#define VIA_PEND_MAX     256u                   /* connection requests held */
#define VIA_MAX_TRANSFER (64u << 20)            /* MaxTransferSize */
#define VIA_DELAY_SLOTS  256u                   /* timing model: frames held */
#define VIA_TX_HORIZON_NS (2u * 1000u * 1000u)  /* timing model: how far ahead
                                                   the NIC may stamp packets */

enum via_ep_kind { VIA_EP_NONE = 0, VIA_EP_NIC, VIA_EP_VI, VIA_EP_CQ };

/* One entry of the translation and protection table. */
typedef struct via_tpt_entry {
    uint32_t handle;         /* 0: free; index | random bits << VIA_TPT_BITS */
    uint32_t ptag;
    uint32_t owner;          /* NIC handle endpoint id */
    uint32_t flags;          /* VIA_MR_* */
    uint64_t va, len;
    uint32_t core_key;       /* 0: DMA by cross-memory attach into process
                                pid; else the owner's core region holding
                                [va, va + len) at core_off, which the NIC has
                                mapped (looked up at every access: the host
                                may free the region under the entry) */
    uint64_t core_off;
    pid_t    pid;
} via_tpt_entry_t;

typedef struct via_ptag_entry {
    uint32_t value;          /* 0: free */
    uint32_t owner;          /* NIC handle endpoint id */
} via_ptag_entry_t;

/* A data segment of a descriptor, checked against the TPT. */
typedef struct via_seg_ref {
    uint32_t handle;
    uint32_t len;
    uint64_t va;
} via_seg_ref_t;

/* One descriptor in the NIC's hands. */
typedef struct via_work {
    uint64_t      desc_va;
    uint32_t      desc_handle;
    uint16_t      control;
    uint16_t      nsegs;           /* data segments */
    uint32_t      immediate;
    uint32_t      msg_id;
    uint64_t      total;           /* bytes the descriptor moves */
    uint64_t      raddr;           /* RDMA */
    uint32_t      rhandle;
    uint32_t      status;          /* completion status once finished */
    uint64_t      done_bytes;      /* sent, placed or read so far */
    uint64_t      due_ns;          /* timing model: completion visible then */
    int           finished;        /* status final; completes in queue order */
    int           transmitted;     /* every fragment (or the request) is out */
    via_seg_ref_t seg[VIA_MAX_DATA_SEGS];
} via_work_t;

/* An RDMA read this NIC answers (target side). */
typedef struct via_rdresp {
    uint32_t msg_id, rhandle;
    uint64_t raddr, total, done;
} via_rdresp_t;

typedef struct via_vi {
    nic_fw_ep_t     *ep;
    via_vi_shared_t *sh;
    uint32_t         nic_ep, ptag, level, max_transfer, rdma_flags;
    uint32_t         send_cq, recv_cq;
    pid_t            pid;
    /* connection */
    struct sockaddr_in raddr;
    uint32_t         rvi, conn_id;
    uint64_t         connect_deadline_ns;
    via_conn_info_t  conn_info;      /* what we asked for (client) */
    /* receive queue: posted descriptors, oldest first */
    via_token_t     *rq;
    uint32_t         rq_cap, rq_head, rq_tail;
    via_work_t       rx;             /* the message being placed */
    int              rx_active;
    /* send queue: descriptors taken from the doorbell FIFO, in order;
     * [head, cur) transmitted, waiting to complete; [cur, tail) to send */
    via_work_t      *sq;
    uint32_t         sq_cap, sq_head, sq_cur, sq_tail;
    uint32_t         next_msg_id;
    uint32_t         reads_outstanding;
    /* RDMA reads of the peer to answer, oldest first */
    via_rdresp_t    *rd;
    uint32_t         rd_cap, rd_head, rd_tail;
    /* replies owed while the stream back was full: placement reports
     * (reliable reception) in order, and the cause of a break */
    uint32_t        *owed_placed;
    uint32_t         owed_n, owed_cap;
    uint32_t         break_owed;            /* 0: none; else status | 1u << 31 */
} via_vi_t;

typedef struct via_cq {
    nic_fw_ep_t *ep;
    int          overflowed;
} via_cq_t;

typedef struct via_ep {
    int      kind;                   /* enum via_ep_kind */
    pid_t    pid;                    /* owning process (cross-memory attach) */
    union {
        via_vi_t vi;
        via_cq_t cq;
    } u;
} via_ep_t;

/* A connection request waiting for a VipConnectWait (server side). */
typedef struct via_pending {
    int                used, taken;
    uint32_t           handle;
    struct sockaddr_in from;
    uint32_t           client_vi, conn_id;
    uint64_t           job_key;
    uint32_t           server_nic;   /* NIC handle that took it */
    via_conn_info_t    info;
    uint64_t           expires_ns;
} via_pending_t;

/* Timing model: a received frame held until the emulated NIC would have
 * placed it. */
typedef struct via_delayed {
    uint64_t           due_ns;
    struct sockaddr_in from;
    uint32_t           len;
    _Alignas(uint64_t) uint8_t buf[VIA_FRAME_MAX];   /* a via_hdr_t first */
} via_delayed_t;

typedef struct via_counters {
    uint64_t tx_frames, rx_frames, tx_bytes, rx_bytes;
    uint64_t sends, recvs, rdma_writes, rdma_reads;
    uint64_t bad_frames, csum_errors, protection, recvq_empty, length_errors;
    uint64_t dropped_unreliable, breaks, cq_overruns, dma_errors;
    uint64_t conn_requests, conn_accepts, conn_rejects, conn_timeouts;
} via_counters_t;

/* RDMA write data held back to go into one process with one cross-memory
 * write: frames of one receive batch of the wire, whose buffers stay
 * valid until the wire receives again. */
#define VIA_WC_MAX 32
typedef struct via_wcomb {
    pid_t        pid;
    unsigned     n;
    uint64_t     va, len;                 /* remote range [va, va + len) */
    struct iovec local[VIA_WC_MAX];
} via_wcomb_t;

typedef struct via_fw {
    nic_fw_t         *fw;
    nic_rel_t        *rel;
    via_tpt_entry_t  *tpt;            /* [VIA_TPT_MAX] */
    via_ptag_entry_t  ptag[VIA_PTAG_MAX];
    via_pending_t     pend[VIA_PEND_MAX];
    uint32_t          next_conn_id;
    uint32_t          connecting;     /* VIs in CONNECT_PENDING */
    uint64_t          rng;
    int               rdma_read_support;
    uint32_t          mtu;            /* payload per frame: the NIC's MTU */
    uint32_t          wire_payload;   /* of a reliable message's frames: at most
                                         mtu, and what one datagram of the
                                         wire carries (via_fw_init) */
    via_timing_t      timing;
    uint64_t          tx_busy_until, link_busy_until, rx_busy_until;
    uint64_t          tx_due_ns;      /* timing model: the soonest a VI's send work
                                         is due (completion, or frames held back
                                         by the horizon); UINT64_MAX: none */
    via_delayed_t    *delay;          /* [VIA_DELAY_SLOTS] */
    uint32_t          delay_head, delay_tail;
    via_counters_t    c;
    uint8_t           raw[VIA_FRAME_MAX];   /* unreliable frames */
    via_wcomb_t       wc;
    int               cma_warned;
} via_fw_t;

static inline via_fw_t *via_state(nic_fw_t *fw) { return nic_fw_pers_state(fw); }
static inline via_ep_t *via_ep(nic_fw_ep_t *ep) { return ep->pers; }
static inline via_vi_t *via_vi_of(nic_fw_ep_t *ep)
{
    via_ep_t *e = ep ? ep->pers : NULL;
    return e != NULL && e->kind == VIA_EP_VI ? &e->u.vi : NULL;
}

uint32_t via_random(via_fw_t *v);

/* via_fw_tpt.c: protection tags and the translation and protection table */
int  via_ptag_create(via_fw_t *v, uint32_t owner, uint32_t *ptag);
int  via_ptag_destroy(via_fw_t *v, uint32_t owner, uint32_t ptag);
/* The NIC handle that owns ptag, 0 if none. */
uint32_t via_ptag_owner(const via_fw_t *v, uint32_t ptag);
int  via_tpt_register(via_fw_t *v, nic_fw_ep_t *nic_ep, const via_ctl_mem_reg_t *r,
                      uint32_t *handle);
int  via_tpt_deregister(via_fw_t *v, uint32_t owner, uint32_t handle);
/* Drop everything a NIC handle owned (its process went away). */
void via_tpt_reclaim(via_fw_t *v, uint32_t owner);
/* The entry of handle if [va, va+len) lies in it, its tag is ptag and it
 * enables every flag in need; else NULL and *status the VIA_STATUS_* error
 * (PROTECTION_ERROR, or RDMA_PROT_ERROR when only the RDMA flag fails). */
via_tpt_entry_t *via_tpt_check(via_fw_t *v, uint32_t handle, uint64_t va, uint64_t len,
                               uint32_t ptag, uint32_t need, uint32_t *status);

/* The NIC's own mapping of a shared entry's va (NULL: not shared, or its
 * region is gone); *gone is set when it is gone. */
uint8_t *via_tpt_map(via_fw_t *v, const via_tpt_entry_t *e, int *gone);

/* via_fw_dma.c: the NIC's access to host memory */
int  via_dma_read(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va, void *dst, size_t len);
int  via_dma_write(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va, const void *src,
                   size_t len);
/* An RDMA write's payload, still in the wire's receive buffer, for host
 * memory: written together with the following frames' when it can be
 * (via_dma_flush), at once otherwise.  Shared memory is written at once. */
int  via_dma_write_frame(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va, const uint8_t *src,
                         size_t len);
/* Write what is held back: before any completion or reply, and before the
 * wire receives into its buffers again. */
void via_dma_flush(via_fw_t *v);
/* One access filling n buffers from [va, va + their total): frames cut
 * from one registered range with a single cross-memory read. */
int  via_dma_read_scatter(via_fw_t *v, const via_tpt_entry_t *e, uint64_t va,
                          const struct iovec *local, unsigned n);
/* Gather len bytes starting at byte off of a descriptor's data segments. */
int  via_dma_gather(via_fw_t *v, const via_work_t *w, uint32_t ptag, uint64_t off, void *dst,
                    size_t len);
int  via_dma_scatter(via_fw_t *v, const via_work_t *w, uint32_t ptag, uint64_t off,
                     const void *src, size_t len);

/* via_fw_desc.c: descriptors and completions */
/* Fetch and check a posted descriptor; 0 or the VIA_STATUS_* error that
 * completes it at once (w->desc_* are set either way). */
uint32_t via_desc_fetch(via_fw_t *v, via_vi_t *vi, const via_token_t *t, int is_recv,
                        via_work_t *w);
/* Write a descriptor's final Length, ImmediateData and Status, then tell the
 * host (VI event counter, CQ entry). */
void via_desc_complete(via_fw_t *v, via_vi_t *vi, const via_work_t *w, int is_recv,
                       uint32_t status, uint32_t length, int with_imm);
/* Complete send descriptors that are finished, in queue order. */
int  via_sq_retire(via_fw_t *v, via_vi_t *vi, uint64_t now);
/* Flush every descriptor of both queues with DESC_FLUSHED_ERROR. */
void via_vi_flush(via_fw_t *v, via_vi_t *vi);
/* Send the replies owed to the peer while the stream was full; 0 when
 * nothing is owed any more. */
int  via_vi_send_owed(via_fw_t *v, via_vi_t *vi);
/* The VI's connection broke: state ERROR, async error, flush; tell the peer
 * (if tell) with a BREAK of cause status, later if the stream is full. */
void via_vi_break(via_fw_t *v, via_vi_t *vi, uint32_t aerr, uint32_t status, int tell);

/* via_fw_tx.c: the send side */
int  via_vi_service(via_fw_t *v, via_vi_t *vi);
/* Receive doorbell tokens into the NIC's receive queue; returns how many. */
int  via_rq_pull(via_vi_t *vi);
/* Send a frame to a VI's peer: reliable stream or raw. hdr->op etc. set by
 * the caller; returns NIC_ERR_NO_RESOURCE when the window is full. */
int  via_tx(via_fw_t *v, const struct sockaddr_in *to, int reliable, via_hdr_t *hdr,
            const via_work_t *w, uint32_t ptag, uint64_t off, const void *payload,
            uint32_t len);
/* Control frame with no payload data from host memory. */
int  via_tx_ctl(via_fw_t *v, const struct sockaddr_in *to, via_hdr_t *hdr, const void *payload,
                uint32_t len);

/* via_fw_rx.c: the receive side */
void via_rx_frame(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                  size_t len);
void via_rx_batch_end(nic_fw_t *fw);
int  via_rx_deliver(void *arg, nic_rel_peer_t *p, const struct sockaddr_in *from,
                    uint8_t *frame, size_t len);
int  via_rx_delayed(via_fw_t *v, uint64_t now, uint64_t *next);

/* via_fw_conn.c: connection management */
int  via_conn_connect(via_fw_t *v, via_vi_t *vi, const via_ctl_connect_t *c);
int  via_conn_take(via_fw_t *v, nic_fw_ep_t *nic_ep, const void *disc, size_t disc_len,
                   via_ctl_conn_req_t *out);
/* *reason: VIA_CONN_OK, or why the request was refused (levels, MTU). */
int  via_conn_accept(via_fw_t *v, via_vi_t *vi, uint32_t handle, uint32_t *reason);
/* The server's firmware is dead: a pending request fails. */
void via_conn_unreachable(via_fw_t *v, via_vi_t *vi);
int  via_conn_reject(via_fw_t *v, uint32_t owner, uint32_t handle);
int  via_conn_disconnect(via_fw_t *v, via_vi_t *vi, int tell);
void via_conn_rx(via_fw_t *v, const struct sockaddr_in *from, const via_hdr_t *h,
                 const uint8_t *payload);
int  via_conn_poll(via_fw_t *v, uint64_t now, uint64_t *next);
/* A NIC handle went away: forget its pending requests. */
void via_conn_reclaim(via_fw_t *v, uint32_t owner);

/* via_fw_timing.c */
uint64_t via_timing_tx(via_fw_t *v, uint64_t now, uint32_t payload, int first_of_desc,
                       int last_of_desc);
uint64_t via_timing_rx(via_fw_t *v, const via_hdr_t *h, uint32_t frame_len);

#endif /* VIA_FW_H */
