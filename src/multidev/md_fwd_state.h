/* md_fwd_state.h - the IndirectQueues of one rank (private to md_fwd*.c). */
#ifndef MD_FWD_STATE_H
#define MD_FWD_STATE_H

#include "md_fwd.h"

struct md_fwd_stripe;

/* Origin side: one user send that travels through an intermediate node,
 * or (stripe set) straight to its destination over several rails. */
typedef struct md_fwd_out {
    md_request_t      *user;
    md_envelope_t      env;
    int32_t            next_hop;     /**< relay rank of the first hop */
    int                subdev;       /**< first hop's subdevice */
    size_t             sent;         /**< bytes handed to chunks */
    int                started;      /**< first chunk sent (0-byte flows) */
    int                credits;
    int                chunks_inflight;
    int                acked;
    int                user_done;    /**< the user's request completed */
    int                error;        /**< the first failure, MD_OK if none */
    struct md_fwd_stripe *stripe;    /**< NULL: through a relay (md_fwd_stripe.c) */
    struct md_fwd_out *next;
} md_fwd_out_t;

/* Relay side: a flow passing through this rank. */
typedef struct md_fwd_relay {
    int32_t              origin, dst;
    uint64_t             seq;
    int32_t              upstream;
    int                  up_subdev;
    int                  last_hop;   /**< the next hop is the destination */
    int                  no_credits; /**< MD_FWD_F_NO_CREDITS */
    struct md_fwd_relay *next;
} md_fwd_relay_t;

/* An internal send: a chunk (origin or relay) or a control message. */
typedef struct md_fwd_send {
    md_request_t  req;
    md_t         *md;
    md_fwd_out_t *out;               /**< origin chunk: its flow */
    int           relay_chunk;       /**< relay chunk: credit upstream once it left */
    md_fwd_ctl_t  ctl;               /**< control payload / relay credit */
    int           rail;              /**< striped chunk: index in the node's rails */
    size_t        chunk_index;       /**< striped chunk: its place in the message */
    size_t        len;
    uint8_t       buf[];             /**< header + chunk bytes */
} md_fwd_send_t;

#define MD_FWD_ACKQ_MAX 64

/* Chunks held for one neighbour over one subdevice (md_fwd_batch.c), and
 * at most how many neighbours have them at a time (a rank's relays: the
 * rest send at once). */
#define MD_FWD_BATCH_MEMBERS 128
#define MD_FWD_BATCH_SLOTS   8

typedef struct md_fwd_batch {
    int            used;             /**< since the last flush point */
    int            subdev;
    int32_t        to;
    int            hot;              /**< a chunk left for it since then */
    int            n;                /**< chunks held */
    size_t         bytes;            /**< their records' bytes */
    md_fwd_send_t *member[MD_FWD_BATCH_MEMBERS];
} md_fwd_batch_t;

typedef struct md_fwd_state {
    md_fwd_params_t params;
    md_fwd_out_t   *out;
    md_fwd_relay_t *relays;
    md_fwd_counters_t counters;
    md_fwd_ack_pending_t ackq[MD_FWD_ACKQ_MAX];
    int             nackq;
    uint64_t        ackq_since_ns;   /**< when the oldest was queued */
    int             ctl_inflight;    /**< control messages not yet sent */
    uint64_t        probe_ns;        /**< MULTIDEV_FWD_PROBE_MS; 0: no probes */
    uint64_t        probe_next_ns;   /**< when the next round of probes is due */
    int             stripe_work;     /**< striped flows to pump, rails lost (md_fwd_stripe.c) */
    int             rail_news;       /**< a rail was lost: its node's ranks are to be told */
    md_fwd_batch_t  batch[MD_FWD_BATCH_SLOTS];
    int             batch_slots_used;   /**< slots used since the last flush */
    int             in_pass;         /**< inside md_progress_locked: it flushes at its end */
    int             batch_arriving;  /**< handling the records of an arriving batch */
    md_fwd_batch_counters_t batch_counters;
} md_fwd_state_t;

/* A chunk carrying hdr and its hdr->len bytes of data (copied), completing
 * through on_complete; s->len is what goes on the wire.  Give it back with
 * md_fwd_chunk_free. */
md_fwd_send_t *md_fwd_chunk_new(md_t *md, const md_fwd_hdr_t *hdr, const void *data,
                                void (*on_complete)(md_request_t *));
void md_fwd_chunk_free(md_fwd_send_t *s);
/* The flow o (this rank its origin) fails with status (md_fwd_send.c); it
 * may be freed. */
void md_fwd_out_fail(md_t *md, md_fwd_out_t *o, int status);
/* Completes the user's send and forgets the flow once its time has come
 * (error: the first failure, if any); o may be gone after it. */
void md_fwd_out_maybe_finish(md_t *md, md_fwd_out_t *o, int error);
/* Puts a new flow for req (its envelope set) in the IndirectQueue. */
md_fwd_out_t *md_fwd_out_new(md_t *md, md_request_t *req, int32_t next_hop, int subdev);
/* md_fwd_stripe.c: the flow o was acknowledged (nothing to send again);
 * a striped flow's state is freed with it. */
void md_fwd_stripe_acked(md_fwd_out_t *o);
void md_fwd_stripe_free(struct md_fwd_stripe *s);
/* Sends the chunk s (header hdr) to the neighbour to over subdev: at once,
 * or held to leave with the ones that follow it (md_fwd_batch.c). */
int  md_fwd_chunk_send(md_t *md, md_fwd_send_t *s, int subdev, int32_t to,
                       const md_fwd_hdr_t *hdr);
/* md_fwd.c: a FWD_DATA message (or a record of a batch) from sd. */
void md_fwd_data_arrived(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                         const void *payload);
/* md_fwd_batch.c: a FWD_BATCH message; its records are handled in order. */
void md_fwd_batch_arrived(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                          const void *payload);
/* At md_fwd_free: the chunks still held are freed, unsent. */
void md_fwd_batch_discard(md_t *md);
md_fwd_relay_t *md_fwd_relay_find(md_fwd_state_t *st, int32_t origin,
                                  int32_t dst, uint64_t seq);

#endif /* MD_FWD_STATE_H */
