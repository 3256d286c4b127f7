/*
 * md_fwd.h - indirect communication (P1 §3.4): a message from A to C that
 * the connection table sends through an intermediate node B.
 *
 * The six steps of P1, with the gaps of the paper filled (A6-A12 of the
 * digest):
 *
 *   A  the user's send becomes an outgoing flow in A's IndirectQueue; the
 *      payload leaves in chunks (MULTIDEV_FWD_CHUNK), each a system message
 *      FWD_DATA carrying the original envelope, to the relay rank on B,
 *      at most MULTIDEV_FWD_WINDOW chunks ahead of the credits.
 *   B  the handler copies each chunk (so the subdevice's receive path is
 *      not blocked), records the flow in B's IndirectQueue and sends the
 *      chunk on, by B's own connection table (so routes may have several
 *      intermediate nodes).  When that send completes B returns a credit
 *      to its upstream: B never holds more than window x chunk bytes of a
 *      flow.  A message of at most window chunks (every small one) needs
 *      no credits: the origin says so in the header and B sends none.
 *   C  the multidevice's forwarding receiver ("fwd", a subdevice of the
 *      device list without a module) matches the first chunk like any
 *      arrival (posting order, ANY_SOURCE duplicates, sequence numbers for
 *      non-overtaking) and assembles the rest; once all data is in (and,
 *      for MPI_Ssend, matched) it acknowledges upstream: at once for an
 *      MPI_Ssend, otherwise gathered with others (md_fwd_ack.c).
 *   B  passes the acknowledgement up and forgets the flow.
 *   A  forgets the flow.  The user's send completed when its last chunk
 *      left (the payload was copied into the chunks), or, for MPI_Ssend,
 *      completes now.
 *
 * A flow is named by (origin, destination, sequence number): the envelope
 * of the original message.  Credits and acknowledgements travel back over
 * the subdevice the data came in on.
 *
 * Small messages that follow each other to the same neighbour (at A, and
 * at B) leave together, their chunks as records of one FWD_BATCH system
 * message; the first since the last progress pass goes at once, alone
 * (md_fwd_batch.c).  The receiver handles each record as the FWD_DATA
 * message it stands for.
 */
#ifndef MD_FWD_H
#define MD_FWD_H

#include "md_core.h"
#include "md_mq.h"

#define MD_SYSTAG_FWD_DATA   (-1)
#define MD_SYSTAG_FWD_CREDIT (-2)
#define MD_SYSTAG_FWD_ACK    (-3)
/* A relay cannot reach a rank any more (md_fail.c): its md_fwd_ctl_t names
 * that rank in origin and why in status. */
#define MD_SYSTAG_FWD_UNREACH (-4)
/* Sent along a forwarded route to see that it still leads somewhere
 * (md_fwd_watch.c); its destination ignores it. */
#define MD_SYSTAG_FWD_PROBE  (-5)
/* A rail to the receiver's node is lost (md_fwd_stripe.c): the payload is
 * the subdevice's name (MD_NAME_MAX bytes, NUL-terminated). */
#define MD_SYSTAG_FWD_RAIL_LOST (-6)
/* Several whole small chunks for one neighbour in one message
 * (md_fwd_batch.c): records of a 4-byte length and a FWD_DATA payload. */
#define MD_SYSTAG_FWD_BATCH  (-7)

/* A chunk's header, unpacked; chunk bytes follow it on the wire. */
typedef struct md_fwd_hdr {
    md_envelope_t env;      /**< the original: src/dst world, seq, size */
    uint64_t      offset;   /**< of this chunk in the message */
    uint32_t      len;      /**< chunk bytes after the header */
    int32_t       hop_src;  /**< world rank that sent this chunk */
    uint32_t      flags;    /**< MD_FWD_F_* */
} md_fwd_hdr_t;

/* The whole message fits in the origin's window: the relays return no
 * credits for it (the acknowledgement alone ends the flow). */
#define MD_FWD_F_NO_CREDITS 0x1u
/* The origin's send waits for the acknowledgement (MULTIDEV_FWD_SEND_DONE=
 * acked): the destination sends it at once, not gathered. */
#define MD_FWD_F_ACK_NOW    0x2u
/* Nobody keeps state of it and nobody acknowledges it: a route probe
 * (md_fwd_watch.c), fire and forget; it counts in no statistics. */
#define MD_FWD_F_PROBE      0x4u
/* A chunk of a message striped over several rails straight to its
 * destination (md_fwd_stripe.c): acknowledged at once over a rail that
 * lives, and a chunk that comes twice (sent again after a rail was lost)
 * counts once. */
#define MD_FWD_F_STRIPED    0x8u

/* On the wire a chunk that is its whole message (every small message)
 * carries the envelope without its size (the chunk's length is the
 * system message's, less the header), and a part of a message adds the
 * size and its offset.  The hop's sender is the system message's source.
 * Each byte of header is paid on every hop: with the timing models a
 * forwarded 0-byte message over myri cost 2-4 us more per hop with the
 * 64-byte header of before (2026-11-26). */
#define MD_FWD_WIRE_WHOLE 32
#define MD_FWD_WIRE_PART  48

/* The header bytes of a chunk of len bytes at offset of a size-byte message. */
static inline size_t md_fwd_wire_len(uint64_t offset, size_t len, uint64_t size)
{
    return offset == 0 && len == size ? MD_FWD_WIRE_WHOLE : MD_FWD_WIRE_PART;
}
/* Writes hdr's wire form (md_fwd_wire_len bytes) to out; returns its length. */
size_t md_fwd_hdr_pack(const md_fwd_hdr_t *hdr, uint8_t *out);
/* Reads the header of the FWD_DATA message env (payload: env->size bytes);
 * returns the header's length, or 0 (logged) when the message is malformed. */
size_t md_fwd_hdr_unpack(const md_envelope_t *env, const void *payload, md_fwd_hdr_t *hdr);

/* Payload of FWD_CREDIT, and each entry of FWD_ACK (an array). */
typedef struct md_fwd_ctl {
    int32_t  origin;
    int32_t  dst;
    uint64_t seq;
    int32_t  hop_src;       /**< who sends this control message */
    int32_t  credits;       /**< FWD_CREDIT: chunks released */
    int32_t  status;        /**< FWD_UNREACH: why */
    int32_t  pad;
} md_fwd_ctl_t;

/* An acknowledgement on its way upstream (md_fwd_ack.c). */
typedef struct md_fwd_ack_pending {
    int32_t      upstream;
    int          up_subdev;
    md_fwd_ctl_t ctl;
} md_fwd_ack_pending_t;

/* Tunables (MULTIDEV_FWD_CHUNK, MULTIDEV_FWD_WINDOW, MULTIDEV_FWD_ACK_BATCH,
 * MULTIDEV_FWD_ACK_DELAY_US, MULTIDEV_FWD_SEND_DONE, MULTIDEV_FWD_BATCH) */
typedef struct md_fwd_params {
    size_t   chunk;
    int      window;
    int      ack_batch;         /**< acknowledgements gathered per neighbour */
    uint64_t ack_delay_ns;      /**< the longest one waits */
    int      send_waits_ack;    /**< a standard send completes at its acknowledgement
                                     (P1's step 6), not when its chunks have left */
    size_t   batch;             /**< bytes of a FWD_BATCH message at most; 0: none */
} md_fwd_params_t;

/* md_fwd_send.c (origin) */
int  md_fwd_isend(md_t *md, md_request_t *req, const md_route_class_t *c);
void md_fwd_on_credit(md_t *md, const md_fwd_ctl_t *ctl);
/* The origin's part of an acknowledgement (the flow began here). */
void md_fwd_on_ack(md_t *md, const md_fwd_ctl_t *ctl);
/* The first part of the len chunk bytes at offset of a size-byte message to
 * send over subdev: len, or less when len alone would go eagerly but not
 * with the chunk's header (a 4 KiB message over myri, whose eager limit is
 * one 4 KiB packet): both parts then go eagerly, where the whole took a
 * rendezvous handshake (a forwarded 4 KiB message was 40-50 us above its
 * hops, the sizes around it 10-15 us). */
size_t md_fwd_eager_cut(const md_t *md, int subdev, uint64_t offset, size_t len,
                        uint64_t size);
/* Sends an internal message (tag < 0) straight to a neighbour over one
 * subdevice; the request is the caller's and completes through
 * req->on_complete. */
int  md_fwd_send_raw(md_t *md, md_request_t *req, int subdev, int32_t to,
                     int32_t tag, const void *buf, size_t len);
/* Sends the n entries of ctl as one control message (FWD_CREDIT: one;
 * FWD_ACK: several); counted in ctl_inflight until it has left. */
int  md_fwd_send_ctl(md_t *md, int subdev, int32_t to, int32_t tag,
                     const md_fwd_ctl_t *ctl, int n);
/* The same for len bytes of any control payload. */
int  md_fwd_send_ctl_bytes(md_t *md, int subdev, int32_t to, int32_t tag,
                           const void *payload, size_t len);

/* md_fwd_ack.c: acknowledgements, gathered per upstream neighbour.
 * urgent: an MPI_Ssend's origin waits for it; send at once. */
void md_fwd_ack_queue(md_t *md, int up_subdev, int32_t upstream,
                      const md_fwd_ctl_t *ctl, int urgent);
/* Sends the gathered acknowledgements: all (force) or once the oldest has
 * waited the delay.  Called after every progress pass. */
void md_fwd_ack_flush(md_t *md, int force);
/* An FWD_ACK message of len bytes (entries of md_fwd_ctl_t). */
void md_fwd_on_acks(md_t *md, const void *payload, size_t len);
/* At finalize: the gathered acknowledgements go out, and the control
 * messages still in flight are given a bounded chance to leave. */
void md_fwd_ack_finish(md_t *md);

/* md_fwd_fail.c: a chunk for a rank that failed is not relayed: its
 * upstream is told (FWD_UNREACH); 1 if so. */
int  md_fwd_relay_refuse(md_t *md, md_subdev_t *sd, const md_fwd_hdr_t *hdr);

/* md_fwd_relay.c (intermediate) */
void md_fwd_relay_data(md_t *md, md_subdev_t *sd, const md_fwd_hdr_t *hdr,
                       const void *data);
/* Forgets the flow an acknowledgement names and says where it goes on
 * (*up); 0 if the flow is unknown. */
int  md_fwd_relay_ack(md_t *md, const md_fwd_ctl_t *ctl, md_fwd_ack_pending_t *up);
void md_fwd_relay_credit(md_t *md, const md_fwd_ctl_t *ctl);

/* md_fwd_recv.c (destination) */
extern const md_subdev_ops_t md_fwd_recv_ops;
void md_fwd_recv_data(md_t *md, md_subdev_t *in_sd, const md_fwd_hdr_t *hdr,
                      const void *data);
/* Everything of rank's that can no longer complete fails with status: its
 * messages still arriving and the receives only it could match (what it
 * sent whole stays to be received). */
void md_fwd_recv_fail_source(md_subdev_t *sd, int32_t rank, int status);

/* md_fwd_watch.c: while receives wait for ranks behind relays, probe
 * their routes every MULTIDEV_FWD_PROBE_MS (from md_progress). */
int  md_fwd_watch_setup(md_t *md);
int  md_fwd_watch(md_t *md);
/* md_fwd_recv.c: fn for every receive posted on the forwarding receiver. */
void md_fwd_recv_foreach_posted(md_subdev_t *sd, void (*fn)(void *arg, md_request_t *req),
                                void *arg);

/* md_fwd_stripe.c: large messages striped over every rail to a node (the
 * node file's rails line), each chunk a FWD_DATA system message straight
 * to the destination, whose forwarding receiver puts them together. */
/* Should a len-byte message to dst_world be striped? */
int  md_fwd_stripe_wanted(const md_t *md, int32_t dst_world, size_t len);
/* Starts the striped send of req (envelope, buf and len set). */
int  md_fwd_stripe_isend(md_t *md, md_request_t *req);
/* Pumps striped flows whose chunks completed, and sends again the chunks of
 * rails lost since (from md_progress); the events it made. */
int  md_fwd_stripe_progress(md_t *md);
/* A rail to node is lost (its subdevice reported the peer failed, or a
 * chunk's send over it failed): no chunk goes over it any more, the
 * chunks that went over it and are not acknowledged go again over the
 * others (at the next md_progress), and the sizes routed over it take the
 * best rail left. */
void md_fwd_stripe_rail_lost(md_t *md, int32_t node, int subdev);
/* Is subdev one of node's rails while another lives, so that losing it
 * loses a rail and not the node? */
int  md_fwd_stripe_survives(const md_t *md, int32_t node, int subdev);
/* The subdevice an acknowledgement of a striped message goes back to rank
 * over: its first rail that lives, or fallback. */
int  md_fwd_stripe_ack_subdev(const md_t *md, int32_t rank, int fallback);
/* The n acknowledgements in ctl to rank over subdev failed: if subdev is a
 * rail to rank's node that it survives, the rail is lost and they go again
 * over another. */
void md_fwd_stripe_ack_failed(md_t *md, int32_t rank, int subdev, const md_fwd_ctl_t *ctl,
                              int n);
/* A RAIL_LOST message from rank (payload: len bytes). */
void md_fwd_stripe_rail_news(md_t *md, int32_t rank, const void *payload, size_t len);

/* md_fwd_batch.c: small chunks for one neighbour that follow each other
 * leave together (see there).  md_progress_locked calls pass_begin first
 * and flush last: what a pass held leaves at its end. */
void md_fwd_batch_pass_begin(md_t *md);
void md_fwd_batch_flush(md_t *md);
typedef struct md_fwd_batch_counters {
    uint64_t msgs, chunks;      /**< FWD_BATCH messages sent, the chunks they carried */
    uint64_t held;              /**< chunks that waited for a flush point */
} md_fwd_batch_counters_t;
void md_fwd_get_batch_counters(const md_t *md, md_fwd_batch_counters_t *out);

/* md_fwd.c: setup, the system-message handlers, teardown */
int  md_fwd_setup(md_t *md);
void md_fwd_dispatch(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                     const void *payload);
void md_fwd_free(md_t *md);
int  md_fwd_conf_needs_receiver(const md_nodeconf_t *conf);

#endif /* MD_FWD_H */
