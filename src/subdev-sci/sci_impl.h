/*
 * sci_impl.h - the SCI subdevice: MPI point-to-point on the emulated
 * PCI-SCI bridge (nic/sci), with the ScaMPI/CHEMPI protocols (P4 §5,
 * P6 §III.B):
 *
 *   INLINE     size <= inline_max (560): the data rides in the message
 *              info struct itself
 *   EAGER      size <= eager_limit (128 KB): the data goes into the
 *              receiver's ring for this sender first, then the info struct
 *   TRANSPORT  larger: the info struct announces it; once matched, the
 *              receiver hands out chunk credits and the sender's DMA engine
 *              (or its PIO stores, transport=pio, or auto when the timing
 *              model's PIO beats its DMA) writes chunk after chunk into the
 *              receiver's staging area
 *
 * Every message: data (if any), info struct, then its used flag, three
 * stores in that order, so the flag is never seen before what it announces.
 * The receiver polls the used flag of the next message of each sender,
 * takes the message (matching it, or copying it into the unexpected queue)
 * and answers with the ready flag, which frees the slot and its ring bytes
 * at the sender.  A synchronous or transport message also carries a
 * rendezvous handle; the receiver writes done[handle] once it has matched
 * (synchronous) or received (transport) it.  No protocol ever reads remote
 * memory.
 *
 * Completions are collected and handed to the host at the end of each call,
 * since the host may call back into the subdevice.
 */
#ifndef SCI_IMPL_H
#define SCI_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "md_complete.h"
#include "md_envelope_wire.h"
#include "md_held.h"
#include "md_liveness.h"
#include "md_log.h"
#include "md_mq.h"
#include "md_reqlist.h"
#include "md_nic_addr.h"
#include "md_peerfail.h"
#include "md_serves.h"
#include "md_kit.h"
#include "md_param.h"
#include "md_sdbase.h"
#include "md_sdi.h"
#include "core/nic_host.h"
#include "sci/sci_host.h"
#include "sci_layout.h"
#include "sci_size.h"
#include "sci_slots.h"

/* An arrived message nobody has matched yet, or one held back by
 * arrival_ok(); eager and inline data copied into data[]. */
typedef struct sci_msg {
    md_mq_msg_t     mq;        /* envelope; unexpected-queue links */
    md_held_link_t  held;      /* while held back (md_held) */
    int32_t         src;       /* sender's world rank */
    uint32_t        proto, rdv;
    uint64_t        id;
    uint64_t        len;       /* bytes in data */
    uint8_t         data[];
} sci_msg_t;

/* Request state, in req->sd_priv after the kit's part (a posted receive's
 * state is md_mq's). */
enum sci_rstate {
    SCI_RS_FREE = 0,
    SCI_RS_RECV_TP,     /* receive matched a transport message */
    SCI_RS_QUEUED,      /* send waiting for its turn */
    SCI_RS_WAIT_DONE,   /* synchronous eager sent: waiting for done */
    SCI_RS_WAIT_CTS,    /* transport announced: waiting for credits */
    SCI_RS_SENDING,     /* transport chunks going out */
    SCI_RS_DONE,
};

#define SCI_RF_SYSMSG 0x1u   /* our own receive of a transport system message */

typedef struct sci_rpriv {
    md_mq_req_t   mq;            /* the kit's: posted (md_mq), send queue
                                    or done list */
    uint32_t      state, proto;
    uint64_t      id;            /* message id */
    uint32_t      rdv;           /* handle + 1 */
    uint32_t      flags;         /* SCI_RF_* */
    sci_msg_t    *bound;         /* improbe: the message bound to it */
} sci_rpriv_t;

_Static_assert(sizeof(sci_rpriv_t) <= sizeof(((md_request_t *)0)->sd_priv), "sd_priv too small");

static inline sci_rpriv_t *sci_rp(md_request_t *r) { return (sci_rpriv_t *)r->sd_priv; }


/* A receive being filled by a transport (receiver side). */
typedef struct sci_tp_recv {
    md_request_t *req;
    uint64_t      id, want, chunks, consumed;
    uint32_t      rdv;
    struct sci_tp_recv *next;
} sci_tp_recv_t;

/* Everything about one peer. */
typedef struct sci_peer {
    int          connected, failed;
    uint64_t     node;           /* its bridge (sci_node_pack) */
    int          drained;        /* failed, and nothing it sent is left to take */
    sci_win_t    rx_win;         /* my rx block in its segment (I send) */
    sci_win_t    tx_win;         /* my tx block in its segment (I receive) */
    /* sending to it */
    md_reqlist_t sendq;          /* FIFO, only the head is issued */
    uint64_t     next_id, oldest_id;
    uint64_t     ring_head, ring_tail;
    uint64_t    *ring_end;       /* [nmsg] ring_head after slot's message */
    md_request_t **rdv_req;      /* [nrdv] sends waiting for done[h] */
    uint32_t     rdv_used;
    uint32_t     rdv_next;       /* where to look for a free handle */
    md_request_t *tp_active;     /* the transport being sent */
    uint64_t     tp_base, tp_want, tp_chunks, tp_sent;   /* tp_sent free-running */
    /* receiving from it */
    uint64_t     rx_next;        /* next message id expected */
    md_held_t    held;           /* its arrivals held back by arrival_ok */
    sci_tp_recv_t *tp_head, *tp_tail;    /* matched transports, in order */
    uint64_t     tp_rx_base;     /* chunks consumed before the active one */
    uint64_t     tp_granted;
    int          tp_started;
    /* liveness */
    uint64_t     activity;       /* progress made with it (counter) */
    uint64_t     activity_seen;  /* at the last check */
    int          suspect;        /* checks it was waited on without a sign */
    int          probe_out;      /* a probe read is in flight */
} sci_peer_t;

/* A control store (ready, done, tp_ctl, tp_grant) waiting for room in the
 * transmit window: never dropped, kept in order. */
typedef struct sci_ctl_store {
    struct sci_ctl_store *next;
    uint64_t addr;
    uint32_t len;
    uint8_t  data[24];
} sci_ctl_store_t;

typedef struct sci_ctx {
    md_sdbase_t          base;       /* sd, host, me, serves, mq, done (md_sdbase.h) */
    nic_host_t          *nic;
    sci_dev_t           *dev;
    nic_mr_t             mr;         /* the exported memory */
    int                  mr_ok;
    sci_seg_t            seg;
    uint32_t             tag;
    sci_layout_t         lay;
    uint8_t             *map;        /* the peers with a block here (sci_slots.h) */
    int32_t             *slot;       /* [world_size] each peer's block here, -1: none */
    sci_size_job_t       job;        /* what the default sizes were sized for */
    uint32_t             node_ranks; /* ranks on this node */
    size_t               given[8];   /* the sizes given (sci_params.c), 0: not given */
    int32_t             *served;     /* the peers, as a list */
    int32_t              nserved;
    sci_peer_t          *peers;      /* [world_size] */
    sci_ctl_store_t     *ctl_head, *ctl_tail;
    uint32_t             stage_busy; /* bit per stage chunk owned by a DMA */
    uint64_t             eager_limit;
    int                  tp_pio;     /* transport chunks by PIO stores, not DMA */
    int                  dead;       /* status once the firmware died */
    uint64_t             last_check_ms;   /* the last liveness check (md_liveness_due) */
    size_t               check_ms;        /* MULTIDEV_SCI_PEER_CHECK_MS */
    size_t               tp_mode;         /* MULTIDEV_SCI_TRANSPORT: auto, pio, dma */
    char                 nic_name[32], timing[16];
    md_nic_addr_t        addr;           /* what the bridge binds (md_nic_addr.h) */
    int                  fw_thread;      /* MD_FW_*: where the firmware runs */
    int                  ready;          /* the job's start-up is over */
    size_t               sq_entries, cq_entries;
    sci_card_t           card;
} sci_ctx_t;

#define SCI_LOG(ctx, lvl, ...) MD_SDBASE_LOG(&(ctx)->base, (lvl), __VA_ARGS__)

/* Local bytes of the exported segment. */
static inline uint8_t *sci_mem(sci_ctx_t *ctx, uint64_t off)
{
    return (uint8_t *)ctx->mr.addr + off;
}

/* The block of peer in this rank's segment: what it writes as a sender
 * (rx part) and as the receiver of this rank's messages (tx part). */
static inline uint8_t *sci_peer_rx(sci_ctx_t *ctx, int32_t peer)
{
    return sci_mem(ctx, sci_rx_block(&ctx->lay, ctx->slot[peer]));
}

static inline uint8_t *sci_peer_tx(sci_ctx_t *ctx, int32_t peer)
{
    return sci_mem(ctx, sci_tx_block(&ctx->lay, ctx->slot[peer]));
}

/* sci_params.c: the sizes (pp) from the parameters and the job; then the
 * segment's layout, a block per served peer, checked against the ATT. */
int  sci_sizes(sci_ctx_t *ctx, const md_subdev_init_args_t *args, sci_params_t *pp);
int  sci_segment(sci_ctx_t *ctx, const md_subdev_init_args_t *args, const sci_params_t *pp);
/* sci_init.c */
int  sci_init(md_subdev_t *sd, const md_subdev_init_args_t *args, void *card, size_t *card_len);
int  sci_connect(md_subdev_t *sd, const md_card_table_t *cards);
int  sci_finalize(md_subdev_t *sd);
/* sci_send.c */
int  sci_isend(md_subdev_t *sd, md_request_t *req);
int  sci_send_progress(sci_ctx_t *ctx, int32_t peer);
/* sci_transport.c */
int  sci_tp_send_progress(sci_ctx_t *ctx, int32_t peer);
int  sci_tp_recv_progress(sci_ctx_t *ctx, int32_t peer);
void sci_tp_recv_start(sci_ctx_t *ctx, int32_t peer, md_request_t *req, uint64_t id,
                       uint32_t rdv, uint64_t want);
void sci_tp_stage_done(sci_ctx_t *ctx, uint64_t cookie, int status);
/* done[rdv] = id in the sender's memory: its rendezvous is over. */
void sci_write_done(sci_ctx_t *ctx, int32_t peer, uint32_t rdv, uint64_t id);
/* sci_arrive.c */
int  sci_arrivals(sci_ctx_t *ctx, int32_t peer);
int  sci_held_retry(sci_ctx_t *ctx, int32_t peer);
void sci_deliver(sci_ctx_t *ctx, md_request_t *req, int32_t src, const md_envelope_t *env,
                 uint32_t proto, uint32_t rdv, uint64_t id, const void *data);
/* sci_recv.c */
int  sci_irecv(md_subdev_t *sd, md_request_t *req);
int  sci_recv_cancel(md_subdev_t *sd, md_request_t *req);
int  sci_iprobe(md_subdev_t *sd, const md_match_t *m, int *flag, md_recv_status_t *st);
int  sci_improbe(md_subdev_t *sd, const md_match_t *m, int *flag, md_request_t *msg);
int  sci_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req);
/* sci_progress.c */
int  sci_progress(md_subdev_t *sd);
int  sci_wait_fd(md_subdev_t *sd, unsigned flags);
int  sci_progress_inner(sci_ctx_t *ctx);
void sci_complete(sci_ctx_t *ctx, md_request_t *req);
void sci_flush_done(sci_ctx_t *ctx);
/* req completes with status and no data. */
void sci_fail_req(sci_ctx_t *ctx, md_request_t *req, int status);
void sci_fail_peer(sci_ctx_t *ctx, int32_t peer, int status);
/* The peer's process or bridge is gone: what it sent is in our memory and
 * is still received, in order (progress drains it); receives posted for it
 * fail once that has drained. */
void sci_peer_gone(sci_ctx_t *ctx, int32_t peer);
/* The bridge told that a remote bridge is gone (SCI_CQ_NODE_GONE): the
 * ranks behind it are (sci_liveness.c). */
void sci_node_gone(sci_ctx_t *ctx, const sci_cqe_t *c);
void sci_fail_all(sci_ctx_t *ctx, int status);
/* sci_ctlq.c: control stores, in order, never lost */
int  sci_ctl_write(sci_ctx_t *ctx, uint64_t addr, const void *data, uint32_t len);
int  sci_ctl_flush(sci_ctx_t *ctx);
void sci_ctl_drop_all(sci_ctx_t *ctx);
/* sci_liveness.c */
int  sci_liveness_check(sci_ctx_t *ctx);
/* 1 if c answered a liveness probe (handled), 0 if not a probe's. */
int  sci_liveness_answer(sci_ctx_t *ctx, const sci_cqe_t *c);
/* sci_util.c */
void          sci_env_from_info(const sci_msg_info_t *in, md_envelope_t *env);

#endif /* SCI_IMPL_H */
