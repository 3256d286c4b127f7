/*
 * via_impl.h - the VIA subdevice: MPI point-to-point over the emulated VI
 * NIC (nic/via) through its user agent (vipl.h).
 *
 * One reliable VI per peer, all bound to one completion queue.  Each VI
 * has `credits` receive descriptors posted, each with an eager slot of
 * (64-byte header + eager_limit) bytes in memory shared with the NIC.
 *
 * Messages (the 64-byte via_msg_t header at the start of a slot):
 *   EAGER       header + payload (at most eager_limit, the switch point)
 *   EAGER_SYNC  the same; the receiver answers SYNC_ACK once matched
 *   RTS         rendezvous request: envelope and sender cookie
 *   CTS         the receiver registered its buffer: address, handle,
 *               length, and its cookie
 *   SYNC_ACK    sender cookie
 * and, for the data of a rendezvous, RDMA writes from the (registered)
 * send buffer into the receiver's, the last carrying the receiver's cookie
 * as immediate data: it consumes a receive descriptor and completes the
 * receive (MPI/Pro's long protocol, P6; CHEMPI's zero-copy, P4 §5.5).
 *
 * Flow control (CHEMPI's descriptor credits, P4 §5.4): every message that
 * consumes a receive descriptor needs a credit.  The receiver tells the
 * sender how many descriptors it has posted for it in total, piggy-backed
 * in every header and, when half the credits came back with no traffic to
 * carry them, by an RDMA write into the sender's credit word: that needs
 * no receive descriptor, so credit updates can never deadlock.  A send
 * that finds no posted receive would break the connection (VIA), so
 * nothing is sent without a credit.
 *
 * Every outgoing message goes through its peer's FIFO op queue, drained
 * while credits and send descriptors allow, so nothing overtakes an
 * earlier message to the same peer.  Arrivals that host->arrival_ok()
 * holds back wait in their sender's held queue.  Completions are collected
 * and handed to the host at the end of each call.
 */
#ifndef VIA_IMPL_H
#define VIA_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "md_card.h"
#include "md_complete.h"
#include "md_cookie.h"
#include "md_held.h"
#include "md_liveness.h"
#include "md_log.h"
#include "md_mq.h"
#include "md_reqlist.h"
#include "md_nic_addr.h"
#include "md_opq.h"
#include "md_peerset.h"
#include "md_kit.h"
#include "md_param.h"
#include "md_peerfail.h"
#include "md_serves.h"
#include "md_sdbase.h"
#include "md_sdi.h"
#include "via/vipl.h"
#include "via_rcache.h"

#define VIA_CARD_MAGIC 0x56494144u   /* "VIAD" */
#define VIA_DESC_STRIDE 128u          /* control + up to 5 segments */
#define VIA_HDR_BYTES   64u

enum via_msg_type {
    VSD_EAGER = 1, VSD_EAGER_SYNC, VSD_RTS, VSD_CTS, VSD_SYNC_ACK,
};

typedef struct via_msg {
    uint32_t type;
    uint32_t len;            /* payload bytes after the header */
    uint64_t posted;         /* receive descriptors the sender has posted for
                                the receiver of this message, in total */
    union {
        struct { md_envelope_t env; uint64_t cookie; } m;     /* EAGER*, RTS */
        struct { uint64_t scookie, addr, len; uint32_t handle, rcookie; } cts;
        struct { uint64_t scookie; } ack;
    } u;
} via_msg_t;

_Static_assert(sizeof(via_msg_t) <= VIA_HDR_BYTES, "message header fits 64 bytes");

/* What a rank publishes. */
typedef struct via_card {
    uint32_t magic;
    uint32_t ip;             /* its NIC's wire address, network order */
    uint16_t port;
    uint16_t pad;
    uint32_t credit_handle;  /* its credit words (RDMA write enabled) */
    uint64_t credit_va;      /* word of rank r at credit_va + 64 r */
} via_card_t;

/* Request state, in req->sd_priv (a posted receive's is md_mq's). */
enum via_rstate {
    VSD_RS_FREE = 0,
    VSD_RS_WAIT_DATA,        /* receive: CTS sent, the RDMA write is coming */
    VSD_RS_QUEUED,           /* send: in the op queue */
    VSD_RS_WAIT_CTS,         /* send: RTS sent */
    VSD_RS_WAIT_ACK,         /* send: synchronous eager sent */
    VSD_RS_WRITING,          /* send: RDMA writes going out */
    VSD_RS_DONE,
};

typedef struct via_rpriv {
    md_mq_req_t      mq;             /* the kit's: posted (md_mq) or done list */
    uint32_t         state, cookie;
    uint64_t         remote_cookie;  /* send: receiver's cookie (CTS) */
    uint64_t         raddr, rlen;    /* send: the receiver's buffer */
    uint64_t         written;        /* send: bytes whose write is posted */
    uint32_t         rhandle, flags;
    int32_t          src;            /* receive: the sender (rendezvous) */
    uint32_t         pad;
    void            *unexp;          /* improbe: the bound message */
    via_rc_entry_t  *rc;             /* registration of buf */
} via_rpriv_t;

_Static_assert(sizeof(via_rpriv_t) <= sizeof(((md_request_t *)0)->sd_priv), "sd_priv too small");

#define VSD_RF_SYSMSG 0x1u           /* our own receive of a large system message */

static inline via_rpriv_t *vsd_rp(md_request_t *r) { return (via_rpriv_t *)r->sd_priv; }

/* An arrival nobody matched yet, or one held back. */
typedef struct vsd_msg {
    md_mq_msg_t      mq;             /* envelope and unexpected-queue links */
    md_held_link_t   held;           /* while held back (md_held) */
    int32_t          src;
    uint32_t         type;           /* EAGER, EAGER_SYNC, RTS */
    uint64_t         cookie;
    md_request_t    *local;          /* a send to ourselves (no NIC) */
    uint32_t         len;
    uint8_t          data[];
} vsd_msg_t;

/* The kind of an outgoing operation (md_op_t, waiting for a credit or a
 * send descriptor) that is not a message type: the rendezvous data (RDMA
 * writes). */
#define VSD_OP_WRITE 100u

/* A send descriptor and its slot. */
enum { VSD_CTX_FREE = 0, VSD_CTX_MSG, VSD_CTX_WRITE, VSD_CTX_WRITE_LAST, VSD_CTX_CREDIT };

typedef struct vsd_sctx {
    uint32_t      kind;
    uint32_t      next_free;
    md_request_t *req;
} vsd_sctx_t;

typedef struct vsd_peer {
    vipl_vi_t     *vi;
    int            client;           /* we asked for the connection */
    int            connected;
    int            failed;           /* status once the peer is lost */
    /* descriptors and slots in the pool */
    uint8_t       *sdesc, *rdesc, *sslot, *rslot;
    vsd_sctx_t    *sctx;
    uint32_t       sfree;            /* free list head, UINT32_MAX: empty */
    uint32_t       sbusy;            /* send descriptors posted, not yet reaped */
    uint32_t       sawaited;         /* of them, ones a request waits for */
    /* credits */
    uint64_t       consumed;         /* messages sent that take a descriptor */
    uint64_t       remote_posted;    /* piggy-backed maximum */
    uint64_t       posted;           /* descriptors we posted for the peer */
    uint64_t       advertised;       /* posted as the peer last heard it */
    int            credit_inflight;
    uint64_t       remote_credit_va;
    uint32_t       remote_credit_h;
    /* queues */
    md_opq_t       ops;              /* kind: VSD_* or VSD_OP_WRITE; args: a CTS's, an ACK's */
} vsd_peer_t;

typedef struct vsd_ctx {
    md_sdbase_t          base;       /* sd, host, me, serves, mq, done, cookies, ... */
    vipl_nic_t          *nic;
    vipl_cq_t           *cq;
    vipl_ptag_t          ptag;
    nic_job_t            job;        /* the init args' job_key and secret */
    vsd_peer_t          *peers;      /* [world_size] */
    /* Send descriptors to reap: the send queues are bound to no completion
     * queue (only what a waiting host needs interrupts it), so progress
     * polls their descriptors' status. */
    md_peerset_t         sending;
    via_rcache_t         rc;
    int                  dead;
    /* the pool shared with the NIC */
    uint8_t             *pool;
    size_t               pool_len;
    vipl_mem_handle_t    pool_h;
    uint8_t             *credit;     /* [world_size] words of 64 bytes */
    size_t               credit_len;
    vipl_mem_handle_t    credit_h;
    uint8_t             *credit_src; /* [world_size] words: RDMA write sources */
    /* parameters */
    size_t               eager_limit, credits, sdepth, slot, reg_cache, connect_ms;
    uint32_t             level;
    int                  block;      /* completion=block: MPI/Pro's waiting mode */
    char                 nic_name[32], timing[16];
    md_nic_addr_t        addr;           /* what the NIC binds (md_nic_addr.h) */
    int                  fw_thread;      /* MD_FW_*: where the firmware runs */
    int                  ready;          /* the job's start-up is over */
    via_card_t           card;
} vsd_ctx_t;

#define VSD_LOG(ctx, lvl, ...) MD_SDBASE_LOG(&(ctx)->base, (lvl), __VA_ARGS__)

/* via_init.c */
int  vsd_init(md_subdev_t *sd, const md_subdev_init_args_t *args, void *card, size_t *card_len);
int  vsd_finalize(md_subdev_t *sd);
/* via_conn.c */
int  vsd_connect(md_subdev_t *sd, const md_card_table_t *cards);
/* via_pool.c */
int  vsd_pool_create(vsd_ctx_t *ctx);
via_desc_t *vsd_sdesc(vsd_peer_t *p, uint32_t i);
via_desc_t *vsd_rdesc(vsd_peer_t *p, uint32_t i);
uint8_t    *vsd_sslot(vsd_ctx_t *ctx, vsd_peer_t *p, uint32_t i);
uint8_t    *vsd_rslot(vsd_ctx_t *ctx, vsd_peer_t *p, uint32_t i);
uint32_t    vsd_sctx_get(vsd_peer_t *p);
void        vsd_sctx_put(vsd_peer_t *p, uint32_t i);
/* Send descriptor i of peer q is posted: what its completion finishes
 * (kind, req); progress reaps it. */
void        vsd_sctx_posted(vsd_ctx_t *ctx, int32_t q, uint32_t i, uint32_t kind,
                            md_request_t *req);
int         vsd_post_recv(vsd_ctx_t *ctx, int32_t q, uint32_t i);
/* The credit word the peer writes into. */
uint64_t    vsd_credit_word(vsd_ctx_t *ctx, int32_t q);
/* via_send.c */
int  vsd_isend(md_subdev_t *sd, md_request_t *req);
int  vsd_ops_drain(vsd_ctx_t *ctx);
void vsd_op_push(vsd_ctx_t *ctx, int32_t peer, md_op_t *op);
int  vsd_op_ctl(vsd_ctx_t *ctx, int32_t peer, uint32_t type, uint64_t a0, uint64_t a1, uint64_t a2,
                uint64_t a3, uint64_t a4);
void vsd_on_cts(vsd_ctx_t *ctx, const via_msg_t *m);
void vsd_on_sync_ack(vsd_ctx_t *ctx, const via_msg_t *m);
void vsd_send_completed(vsd_ctx_t *ctx, int32_t q, uint32_t i, uint32_t status);
void vsd_credit_maybe(vsd_ctx_t *ctx, int32_t q);
/* Writes this rank's credit word to peer q now (also a liveness probe). */
void vsd_credit_send(vsd_ctx_t *ctx, int32_t q);
/* via_recv.c */
int  vsd_irecv(md_subdev_t *sd, md_request_t *req);
int  vsd_recv_cancel(md_subdev_t *sd, md_request_t *req);
int  vsd_iprobe(md_subdev_t *sd, const md_match_t *m, int *flag, md_recv_status_t *st);
int  vsd_improbe(md_subdev_t *sd, const md_match_t *m, int *flag, md_request_t *msg);
int  vsd_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req);
void vsd_on_arrival(vsd_ctx_t *ctx, int32_t src, uint32_t type, const md_envelope_t *env,
                    uint64_t cookie, const void *data, uint32_t len, md_request_t *local);
void vsd_on_fin(vsd_ctx_t *ctx, uint32_t rcookie);
int  vsd_held_retry(vsd_ctx_t *ctx);
/* via_progress.c */
int  vsd_progress(md_subdev_t *sd);
int  vsd_wait_fd(md_subdev_t *sd, unsigned flags);
/* Completions the rank was woken for (completion=block; 0 with poll). */
uint64_t vsd_wakeups(md_subdev_t *sd);
void vsd_complete(vsd_ctx_t *ctx, md_request_t *req);
void vsd_flush_done(vsd_ctx_t *ctx);
void vsd_fail_peer(vsd_ctx_t *ctx, int32_t peer, int status);
void vsd_fail_posted(vsd_ctx_t *ctx, int32_t peer, int status);
void vsd_fail_all(vsd_ctx_t *ctx, int status);
/* via_util.c */
int vsd_status_of_vipl(vipl_result_t r);

#endif /* VIA_IMPL_H */
