/*
 * multidev.h - public interface of libmultidev, the multidevice.
 *
 * The MPICH ch4 netmod "multi" (mpich/netmod/multi) is the main user; tests
 * and benchmarks use it directly.  It speaks in world ranks, communicator
 * ranks and contiguous byte buffers: datatypes, communicators and MPI
 * requests stay in the caller.
 *
 * A request lives in memory the caller owns (the netmod embeds it in the MPI
 * request).  The caller sets req->on_complete (or NULL) and req->user before
 * starting it; the starting call fills everything else.  The multidevice
 * fills its status and sets complete; if on_complete is set it is called
 * once, from inside md_progress() or from the call that started the
 * request.
 *
 * Environment (each documented in doc/environment.md):
 *   MULTIDEV_CONFIG       node configuration file, or a directory holding
 *                         <node>.conf files (written by mdconfig)
 *   MULTIDEV_NODE         this process's node name (default: host name);
 *                         emulated nodes on one host use distinct names
 *   MULTIDEV_MODULE_PATH  colon-separated directories searched for
 *                         subdevice modules before the install directory
 *   MULTIDEV_STATS        1: print per-subdevice counters at finalize
 *   MULTIDEV_LOG_LEVEL    error|warn|info|debug|trace (default warn)
 */
#ifndef MULTIDEV_H
#define MULTIDEV_H

#include <stddef.h>
#include <stdint.h>

#include "md_request.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MD_API_VERSION 3

typedef struct md md_t;             /**< one multidevice instance */
typedef struct md_comm md_comm_t;   /**< a communicator's member set */
typedef struct md_subdev md_subdev_t; /**< a loaded subdevice (md_sdi.h) */

/* Collective services of the launcher, used only during md_init(). */
typedef struct md_bootstrap {
    /* Every rank contributes len bytes; out receives world_size * len
     * bytes in rank order. */
    int (*allgather)(void *ctx, const void *in, void *out, size_t len);
    int (*barrier)(void *ctx);
    void *ctx;
} md_bootstrap_t;

typedef struct md_init_params {
    int32_t        world_rank;
    int32_t        world_size;
    const char    *job_id;           /**< unique per job (PMI kvs name) */
    /* Node index of each world rank as the launcher sees it, or NULL.
     * Used when no node configuration file is given and MULTIDEV_NODE is
     * unset; otherwise node membership comes from node names. */
    const int32_t *launcher_node_of_rank;
    md_bootstrap_t bootstrap;
    const char    *config_path;      /**< NULL: MULTIDEV_CONFIG */
    const char    *node_name;        /**< NULL: MULTIDEV_NODE, else host */
    const char    *module_path;      /**< NULL: MULTIDEV_MODULE_PATH */
} md_init_params_t;

/* Collective over all world ranks.  On error *md_p is NULL and a message
 * naming the cause has been logged. */
int md_init(const md_init_params_t *params, md_t **md_p);
int md_finalize(md_t *md);

/* Communicators: optional.  Receives on a registered communicator post
 * ANY_SOURCE duplicates only on the subdevices that serve its members. */
int md_comm_create(md_t *md, int32_t size, const int32_t *world_ranks,
                   md_comm_t **comm_p);
void md_comm_free(md_t *md, md_comm_t *comm);

/* Point to point.  src_rank is the caller's rank in the communicator,
 * dst_world the destination's world rank.  flags: MD_ENV_F_SYNC. */
int md_isend(md_t *md, md_request_t *req, const void *buf, size_t len,
             int32_t dst_world, int32_t src_rank, int32_t tag,
             uint32_t context_id, uint32_t flags);

/* A small send done inside the call, with no request: MD_OK when the
 * message went out and buf may be reused; MD_ERR_NO_RESOURCE when it
 * cannot go that way now (a subdevice without inject, a forwarded or
 * striped route, too large, MD_ENV_F_SYNC, earlier sends still queued),
 * and nothing happened: then md_isend.  Other errors are the send's. */
int md_inject(md_t *md, const void *buf, size_t len, int32_t dst_world,
              int32_t src_rank, int32_t tag, uint32_t context_id, uint32_t flags);

/* src_world: the sender's world rank, or -1 with src_rank ==
 * MD_ANY_SOURCE.  comm may be NULL (then every subdevice is a candidate
 * for ANY_SOURCE). */
int md_irecv(md_t *md, md_request_t *req, void *buf, size_t len,
             int32_t src_world, int32_t src_rank, int32_t tag,
             uint32_t context_id, const md_comm_t *comm);

int md_iprobe(md_t *md, int32_t src_world, int32_t src_rank, int32_t tag,
              uint32_t context_id, const md_comm_t *comm, int *flag,
              md_recv_status_t *status);
/* On *flag = 1 the message is bound to msg (status filled) and must be
 * received with md_imrecv. */
int md_improbe(md_t *md, md_request_t *msg, int32_t src_world,
               int32_t src_rank, int32_t tag, uint32_t context_id,
               const md_comm_t *comm, int *flag);
int md_imrecv(md_t *md, md_request_t *msg, md_request_t *req, void *buf,
              size_t len);

/* MD_OK: cancelled (req completes with status.cancelled = 1);
 * MD_ERR_NOT_FOUND: too late, it completes normally. */
int md_cancel_recv(md_t *md, md_request_t *req);
int md_cancel_send(md_t *md, md_request_t *req);

/* System messages (P1 §3.4): one-sided, negative tags.  Tags -1..-63 are
 * reserved for the multidevice itself (forwarding, acknowledgements); a
 * caller registers a handler for a tag below -63, which runs inside
 * md_progress() on the receiving rank with the payload valid only during the
 * call.  md_sysmsg_isend completes req once buf may be reused. */
#define MD_SYSTAG_USER_FIRST (-64)
typedef void (*md_sysmsg_handler_t)(void *ctx, int32_t src_world,
                                    int32_t tag, const void *payload,
                                    size_t len);
int md_sysmsg_register(md_t *md, int32_t tag, md_sysmsg_handler_t handler,
                       void *ctx);
/* MD_SYSMSG_F_ANY_THREAD: the handler runs wherever the message arrives,
 * the progress thread included, with the multidevice locked; it must not
 * call into the multidevice.  Without it (md_sysmsg_register) the handler
 * runs from the caller's next call into the multidevice. */
#define MD_SYSMSG_F_ANY_THREAD 0x1u
int md_sysmsg_register_flags(md_t *md, int32_t tag,
                             md_sysmsg_handler_t handler, void *ctx,
                             unsigned flags);
int md_sysmsg_isend(md_t *md, md_request_t *req, int32_t dst_world,
                    int32_t tag, const void *buf, size_t len);

/* Drive every subdevice once; returns events seen (>= 0) or an error. */
int md_progress(md_t *md);

/* Call when md_progress found nothing while waiting: spins a little, then
 * yields the core or, on an oversubscribed host, blocks briefly until a
 * subdevice has work (MULTIDEV_IDLE, MULTIDEV_SPIN_POLLS). */
void md_idle(md_t *md);

static inline int md_request_is_complete(const md_request_t *req)
{
    return atomic_load_explicit(&req->complete, memory_order_acquire);
}

/* Introspection (invariant 5: every choice can be printed). */
int32_t     md_world_rank(const md_t *md);
int32_t     md_world_size(const md_t *md);
int32_t     md_node_of_rank(const md_t *md, int32_t world_rank);
int         md_num_subdevs(const md_t *md);
const md_subdev_t *md_subdev(const md_t *md, int index);
/* The subdevice index and next hop used for a message of len bytes to
 * dst_world; -1 on no route. */
int         md_route(const md_t *md, int32_t dst_world, size_t len,
                     int32_t *next_hop_world);
/* Forwarded messages this rank still tracks (its IndirectQueue: sends it
 * originated awaiting acknowledgement, flows it relays). */
int         md_indirect_in_flight(const md_t *md);
/* Why world_rank cannot be reached any more ("rank 3 (node h2) is
 * unreachable over sci: ..."), or NULL while it can: a request that failed
 * with MD_ERR_PEER_FAILED (or MD_ERR_NOT_FOUND) for that peer can say
 * which rank, node, network and reason.  The text lives until md_finalize. */
const char *md_rank_failure(md_t *md, int32_t world_rank);

/* The AnyQueue (receives posted as duplicates on several subdevices, P1
 * §3.3.4) seen from this rank. */
typedef struct md_anyq_counters {
    uint64_t receives;      /**< receives posted as duplicates, since md_init */
    uint64_t duplicates;    /**< duplicates posted on subdevices, since md_init */
    int      in_queue;      /**< receives in the AnyQueue now: pending, or with
                                 losing duplicates still being cancelled */
} md_anyq_counters_t;
void        md_get_anyq_counters(const md_t *md, md_anyq_counters_t *out);

/* Indirect communication seen from this rank, since md_init. */
typedef struct md_fwd_counters {
    uint64_t originated_msgs, originated_bytes;   /**< sends that took a forwarded route */
    uint64_t relayed_msgs, relayed_chunks, relayed_bytes;  /**< as an intermediate node */
    uint64_t credits_returned;                    /**< relay: credits sent upstream */
    uint64_t relay_held_bytes, relay_peak_bytes;  /**< relay: chunk bytes held now, and at most */
    uint64_t ack_msgs_sent, acks_sent;            /**< FWD_ACK messages, and the flows they acknowledged */
    uint64_t delivered_msgs, delivered_bytes;     /**< forwarded arrivals received here */
} md_fwd_counters_t;
void        md_get_fwd_counters(const md_t *md, md_fwd_counters_t *out);
/* Writes the counters of every subdevice to f (a FILE *). */
void        md_print_stats(const md_t *md, void *f);

#ifdef __cplusplus
}
#endif

#endif /* MULTIDEV_H */
