/*
 * shm_impl.h - private state of the shm subdevice, shared by its files.
 *
 *   shm_init.c      init / connect / ready / finalize, the ops table
 *   shm_segment.c   naming, creating, mapping and unlinking segments
 *   shm_cma.c       the single-copy path (process_vm_readv) and its probe
 *   shm_help.c      a large message copied by both sides at once
 *   shm_send.c      isend, the per-peer outboxes, control records
 *   shm_recv.c      irecv, probes, cancel, delivery of matched messages
 *                   (matching: the kit's md_mq)
 *   shm_progress.c  polling the inbound rings, peer liveness
 *   shm_wake.c      wait_fd: waking a sleeping progress thread
 *
 * Calls into one instance are serialised by the multidevice (md_sdi.h,
 * "Threading").  Completions are collected on ctx->done and handed
 * to host->complete() at the end of each SDI call, once every internal
 * list is consistent again, so the host may call back into the subdevice
 * from its completion callback.
 */
#ifndef SHM_IMPL_H
#define SHM_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "md_envelope_wire.h"
#include "md_kit.h"
#include "md_liveness.h"
#include "md_log.h"
#include "md_mq.h"
#include "md_param.h"
#include "md_reqlist.h"
#include "md_sdi.h"
#include "shm_pool.h"
#include "shm_proto.h"
#include "shm_ring.h"

/* ---------------------------------------------------------------- tunables */

/* Defaults picked with test/shm/shm_bench (doc/shm.md, "Choosing the
 * defaults"), declared with the parameters in the table of tunables
 * (src/tunables/md_tun_table.c, which doc/environment.md is written from),
 * except the two computed here when not given:
 * ring_size: 256 KiB per sender up to 16 local ranks, then halved as the
 * node fills so that a segment stays near SHM_SEGMENT_BUDGET, never below
 * 64 KiB.  eager_limit: 32 KiB, less if the ring cannot take it. */
#define SHM_AUTO                  SIZE_MAX
#define SHM_DEFAULT_EAGER_LIMIT   (32u * 1024)
#define SHM_RING_SIZE_MAX_AUTO    (256u * 1024)
#define SHM_RING_SIZE_MIN_AUTO    (64u * 1024)
#define SHM_SEGMENT_BUDGET        (4u << 20)

typedef struct shm_tunables {
    size_t eager_limit;     /**< largest message sent eagerly (payload) */
    size_t ring_size;       /**< data bytes of each sender->receiver ring */
    size_t frag_size;       /**< DATA fragment of the pipelined path */
    size_t cma;             /**< 1: single copy with process_vm_readv */
    size_t peer_check_ms;   /**< liveness check period during waits */
    size_t numa_bind;       /**< 1: bind the own segment to the local NUMA node */
    size_t poll_budget;     /**< records taken per sender per progress call */
    size_t help_min;        /**< smallest message its sender helps copy; 0: never */
} shm_tunables_t;

/* ---------------------------------------------------------------- requests */

enum shm_req_state {
    SHM_RS_NONE = 0,
    SHM_RS_SEND_QUEUED,     /**< waits for ring space in peer->sendq */
    SHM_RS_SEND_WAIT,       /**< RTS or SYNC sent; waits in peer->waiting */
    SHM_RS_SEND_STREAM,     /**< pipelined: in peer->streams */
    SHM_RS_RECV,            /**< a receive: posted (ctx->mq) or matching */
    SHM_RS_RECV_DATA,       /**< pipelined: waits for DATA in peer->rndv_recvs */
    SHM_RS_RECV_HELP,       /**< copied with the sender's help: waits in
                                 peer->helped for the chunks it took */
    SHM_RS_MPROBE,          /**< a message bound by improbe */
    SHM_RS_DONE,            /**< on ctx->done or handed to the host */
};

#define SHM_REQ_MAGIC 0x73686d72u   /* "shmr" */

struct shm_unexp;

/* Overlay of md_request_t.sd_priv; the kit's part first (the links of
 * every list a request is on, md_mq's state). */
typedef struct shm_req_priv {
    md_mq_req_t       mq;
    uint32_t          magic;
    uint16_t          state;     /**< enum shm_req_state */
    uint8_t           sysmsg;    /**< internal receive of a large sysmsg */
    uint8_t           reserved;
    int32_t           peer;      /**< local peer index */
    int32_t           help_error; /**< RECV_HELP: a failed copy's status */
    uint64_t          done;      /**< bytes streamed / received so far */
    uint64_t          total;     /**< bytes to stream / to receive */
    uint64_t          remote;    /**< the peer's request (streams); the
                                      sender's buffer (RECV_HELP) */
    uint64_t          sreq;      /**< RECV_HELP: the sender's request */
    uint64_t          help;      /**< RECV_HELP: its ticket (shm_help.c) */
    struct shm_unexp *unexp;     /**< MPROBE: the bound message */
} shm_req_priv_t;

_Static_assert(sizeof(shm_req_priv_t) <= sizeof(((md_request_t *)0)->sd_priv),
               "shm_req_priv_t does not fit sd_priv");

static inline shm_req_priv_t *shm_rp(md_request_t *req)
{
    return (shm_req_priv_t *)(void *)req->sd_priv;
}

/* ---------------------------------------------------------------- messages */

/* A message that arrived before its receive was posted (or that improbe
 * took).  Eager payloads are copied out of the ring into a pool buffer so
 * that the ring never stalls behind unmatched messages. */
typedef struct shm_unexp {
    md_mq_msg_t       mq;       /**< envelope, unexpected-queue links */
    void             *data;     /**< eager payload (bufpool) or NULL */
    uint64_t          sreq;     /**< sender's request (SYNC, RTS) */
    uint64_t          addr;     /**< RTS: sender's buffer */
    int32_t           peer;     /**< local index of the sender */
    uint8_t           rts;      /**< 1: rendezvous, data still at the sender */
} shm_unexp_t;

/* A control record waiting for ring space. */
typedef struct shm_ctrl_item {
    struct shm_ctrl_item *next;
    uint16_t type;
    uint64_t sreq;
    uint64_t rreq;
    uint64_t len;
    uint64_t offset;
} shm_ctrl_item_t;

/* ---------------------------------------------------------------- peers */

typedef struct shm_peer {
    int32_t  world;
    int32_t  pid;
    int      pidfd;          /**< -1: fall back to kill(pid, 0) */
    uint8_t  is_self;
    uint8_t  cma_ok;         /**< process_vm_readv from this peer works */
    uint8_t  cma_write_ok;   /**< process_vm_writev into it works (shm_help.c) */
    uint8_t  dead;           /**< died without finalizing */
    uint8_t  exited;         /**< gone after finalizing; not checked again */
    void    *seg;            /**< the peer's segment (mine for self) */
    size_t   seg_len;
    shm_seg_hdr_t *seg_hdr;
    size_t   eager_limit;    /**< mine, cut to what the peer's ring takes */
    size_t   frag_size;      /**< likewise */
    shm_ring_producer_t out; /**< my ring in the peer's segment */
    shm_ring_consumer_t in;  /**< the peer's ring in my segment */
    struct sockaddr_un wake_addr;  /**< the peer's wake socket */
    socklen_t        wake_len;

    md_reqlist_t     sendq;      /**< sends waiting for ring space, in order */
    md_reqlist_t     streams;    /**< pipelined sends with data left */
    md_reqlist_t     waiting;    /**< sends waiting for ACK / FIN / CTS */
    md_reqlist_t     rndv_recvs; /**< receives waiting for DATA */
    md_reqlist_t     helped;     /**< receives waiting for the sender's chunks */
    shm_ctrl_item_t *ctrl_head;  /**< control records waiting for space */
    shm_ctrl_item_t *ctrl_tail;
} shm_peer_t;

/* ---------------------------------------------------------------- instance */

typedef struct shm_ctx {
    md_subdev_t         *sd;
    const md_sdi_host_t *host;
    int32_t              world_rank;
    int32_t              world_size;
    int32_t              my_node;
    shm_tunables_t       tun;

    int32_t              nlocal;          /**< local peers, self included */
    int32_t              self;            /**< my index in peers */
    shm_peer_t          *peers;
    int32_t             *local_of_world;  /**< [world_size]: index or -1 */

    char                 seg_name[SHM_SEG_NAME_MAX];
    void                *seg;
    size_t               seg_len;
    shm_seg_hdr_t       *seg_hdr;
    int                  seg_linked;      /**< name still in /dev/shm */
    char                *job_id;          /**< the init args', for the names */
    char                *node_name;       /**< of the local peers' segments */
    int                  ready;           /**< start-up is over (ready ran) */

    md_mq_t              mq;              /**< posted and unexpected */
    shm_pool_t           unexp_pool;
    shm_pool_t           ctrl_pool;
    shm_bufpool_t        bufs;

    md_reqlist_t         done;            /**< completions to hand over */
    int                  busy;            /**< inside progress */
    uint64_t             outstanding;     /**< accepted, not completed,
                                               not posted (ctx->mq counts those) */
    uint64_t             out_pending;     /**< queued sends, controls, streams */
    unsigned             idle_polls;
    uint64_t             last_check_ms;
    int                  failures;        /**< peers found dead, unreported */
    int                  oom_logged;
    int                  wake_rx;         /**< my wake socket, or -1 */
    int                  wake_tx;         /**< socket to kick peers with */
    int                  wake_armed;      /**< wait_fd set "sleeping" */
    uint64_t             cma_probe;       /**< peers read this with CMA */

    shm_help_slot_t     *help_slots;      /**< mine, in my segment */
    uint32_t             help_free;       /**< bit i: slot i is free */
    uint32_t             help_gen[SHM_HELP_SLOTS];
    uint64_t             help_waiting;    /**< receives in some peer->helped */
    uint64_t             help_chunks_given;  /**< copied into receivers */
    uint64_t             help_chunks_taken;  /**< copied in as a receiver */
} shm_ctx_t;

static inline shm_ctx_t *shm_ctx(md_subdev_t *sd)
{
    return (shm_ctx_t *)sd->priv;
}

static inline shm_peer_t *shm_peer_of_world(shm_ctx_t *ctx, int32_t world)
{
    int32_t idx;

    if (world < 0 || world >= ctx->world_size)
        return NULL;
    idx = ctx->local_of_world[world];
    return idx < 0 ? NULL : &ctx->peers[idx];
}

#define SHM_LOG(_ctx, _level, ...) \
    do { \
        if ((_ctx)->host != NULL && (_ctx)->host->log != NULL) \
            (_ctx)->host->log((_ctx)->sd, (_level), __VA_ARGS__); \
    } while (0)
#define SHM_ERROR(_ctx, ...) SHM_LOG(_ctx, MD_LOG_ERROR, __VA_ARGS__)
#define SHM_WARN(_ctx, ...)  SHM_LOG(_ctx, MD_LOG_WARN, __VA_ARGS__)
#define SHM_INFO(_ctx, ...)  SHM_LOG(_ctx, MD_LOG_INFO, __VA_ARGS__)
#define SHM_DEBUG(_ctx, ...) SHM_LOG(_ctx, MD_LOG_DEBUG, __VA_ARGS__)

/* ---------------------------------------------------------------- internal API */

/* The module's one exported symbol (shm_init.c). */
MD_LOAD_DEVICE_PTR(shm);

/* shm_send.c */
int shm_isend(md_subdev_t *sd, md_request_t *req);
int shm_inject(md_subdev_t *sd, const md_envelope_t *env, const void *buf);
int shm_send_ctrl(shm_ctx_t *ctx, shm_peer_t *peer, uint16_t type,
                  uint64_t sreq, uint64_t rreq, uint64_t len, uint64_t offset);
int shm_flush_peer(shm_ctx_t *ctx, shm_peer_t *peer);
void shm_send_on_ctrl(shm_ctx_t *ctx, shm_peer_t *peer,
                      const shm_ctrl_rec_t *rec);
void shm_send_fail_peer(shm_ctx_t *ctx, shm_peer_t *peer);

/* shm_recv.c */
int shm_irecv(md_subdev_t *sd, md_request_t *req);
int shm_recv_cancel(md_subdev_t *sd, md_request_t *req);
int shm_iprobe(md_subdev_t *sd, const md_match_t *match, int *flag,
               md_recv_status_t *status);
int shm_improbe(md_subdev_t *sd, const md_match_t *match, int *flag,
                md_request_t *msg);
int shm_imrecv(md_subdev_t *sd, md_request_t *msg, md_request_t *req);
/* Both return MD_OK, or MD_ERR_NO_MEMORY when the message must stay in
 * the ring for now. */
int shm_recv_incoming(shm_ctx_t *ctx, shm_peer_t *peer,
                      const shm_msg_hdr_t *hdr, const md_envelope_t *env);
int shm_recv_sysmsg(shm_ctx_t *ctx, shm_peer_t *peer,
                    const shm_msg_hdr_t *hdr, const md_envelope_t *env);
void shm_recv_on_data(shm_ctx_t *ctx, shm_peer_t *peer,
                      const shm_ctrl_rec_t *rec);
void shm_recv_fail_peer(shm_ctx_t *ctx, shm_peer_t *peer);
void shm_unexp_free(shm_ctx_t *ctx, shm_unexp_t *e);

/* shm_progress.c */
int shm_progress(md_subdev_t *sd);
/* Takes arrived records (no-op when called from inside progress). */
int shm_poll_inbound(shm_ctx_t *ctx);
void shm_complete(shm_ctx_t *ctx, md_request_t *req);
void shm_complete_flush_slow(shm_ctx_t *ctx);
/* Hands the completions collected during a call to the host. */
static inline void shm_complete_flush(shm_ctx_t *ctx)
{
    if (ctx->done.head != NULL)
        shm_complete_flush_slow(ctx);
}
int shm_peer_check(shm_ctx_t *ctx);
/* 1 if the peer's process has ended: one poll() on its pidfd, or
 * kill(pid, 0) without one.  Not for the fast path. */
int shm_peer_gone(const shm_peer_t *peer);
/* The same for a pid without a pidfd of ours (start-up). */
int shm_pid_gone(pid_t pid);

/* shm_wake.c */
int shm_wake_open(shm_ctx_t *ctx);
void shm_wake_close(shm_ctx_t *ctx);
void shm_wake_peer(shm_peer_t *peer, const char *seg_name);
int shm_wait_fd(md_subdev_t *sd, unsigned flags);
void shm_wake_disarm(shm_ctx_t *ctx);
void shm_wake_send(shm_ctx_t *ctx, shm_peer_t *peer);

/* After a record went into the peer's ring: wake its progress thread if
 * it sleeps.  One load of a line the peer rarely writes; the fence pairs
 * with the one in shm_wait_fd (no lost wake-up; no measurable cost). */
static inline void shm_wake_kick(shm_ctx_t *ctx, shm_peer_t *peer)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&peer->seg_hdr->sleeping, memory_order_relaxed))
        shm_wake_send(ctx, peer);
}

/* shm_cma.c */
int shm_cma_read(pid_t pid, void *local, uint64_t remote, size_t len);
int shm_cma_write(pid_t pid, const void *local, uint64_t remote, size_t len);
int shm_cma_probe(pid_t pid, uint64_t addr, uint64_t expect);
/* Writes the peer's probe word with the value it holds already. */
int shm_cma_probe_write(pid_t pid, uint64_t addr, uint64_t value);

/* shm_help.c */
void shm_help_init(shm_ctx_t *ctx);
/* A matched rendezvous of n bytes that the sender may help copy: 1 when
 * this took the receive over (done, or waiting in peer->helped), 0 when
 * the message is not for it (too small, no free slot). */
int  shm_help_recv(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req, uint64_t sreq,
                   uint64_t addr, uint64_t n);
/* The sender's side: a HELP record for one of its waiting sends. */
void shm_help_send(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req,
                   const shm_ctrl_rec_t *rec);
/* Completes the helped receives whose chunks are all in. */
int  shm_help_progress(shm_ctx_t *ctx);
void shm_help_fail_peer(shm_ctx_t *ctx, shm_peer_t *peer);

/* shm_segment.c */
int shm_segment_name(char *out, size_t outlen, const char *job_id,
                     const char *node_name, int32_t rank);
int shm_segment_create(shm_ctx_t *ctx, const char *job_id,
                       const char *node_name);
int shm_segment_map_peer(shm_ctx_t *ctx, shm_peer_t *peer,
                         const shm_card_t *card);
void shm_segment_unlink(shm_ctx_t *ctx);
void shm_segment_unlink_local(shm_ctx_t *ctx);
void shm_segment_destroy(shm_ctx_t *ctx);

#endif /* SHM_IMPL_H */
