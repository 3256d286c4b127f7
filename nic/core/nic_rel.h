/*
 * nic_rel.h - reliable, ordered, exactly-once delivery between firmwares
 * over the lossy wire: what Myrinet's LCP and a VI NIC's "reliable
 * delivery" promise.  A personality that wants it sends its frames through
 * this module and hands it every frame it received with a good checksum.
 *
 * Per pair of firmwares and job (peers are told apart by their wire
 * address, jobs by their tag) one sequence-numbered stream, whose frames
 * the wire authenticates with that job's key.  Loss is recovered as TCP
 * with SACK and RACK recovers it (RFC 2018, 6298, 8985), without
 * congestion control (the window is fixed):
 *
 *  - Selective repeat.  The receiver delivers frames in order and exactly
 *    once; a frame that arrives after a gap (within the window) is copied
 *    aside (the wire's buffer is reused after the receive call) and
 *    delivered once the gap fills.  Cost: the copies live in a buffer
 *    allocated the first time a stream sees a gap and kept for the slot's
 *    later streams until nic_rel_destroy, NIC_REL_WINDOW x frame_max bytes
 *    (about 530 KiB for Myrinet, 1.1 MiB for VIA and SCI) for each stream
 *    that ever lost a frame.
 *  - Acknowledgements are cumulative (ack: every frame before it), piggy-
 *    backed on data frames or sent alone after ack_delay (at once every 32
 *    frames, on a duplicate, on a gap, rate-limited, and when a gap fills).
 *    An ack sent alone while frames are kept after a gap says which
 *    (flag NIC_REL_F_SACK): a nic_rel_sack_t map of the 128 frames after
 *    ack, which this module inserts into the personality's ack frame in
 *    front of its last ack_tail bytes (Myrinet's CRC) before seal().
 *  - The sender never resends what the receiver holds.  A frame not
 *    acknowledged when one sent after it was is lost once it has been out
 *    longer than that later frame's round trip plus a reordering allowance
 *    (a quarter of the smallest round trip): it goes again at once, and new
 *    frames keep flowing within the window.  A resent frame can be found
 *    lost again only through a frame sent after it: once per round trip.
 *  - A tail that nothing later can reveal (the last frames of a message)
 *    is probed: with nothing acknowledged for two smoothed round trips
 *    (plus ack_delay when one frame is out), the newest frame not known
 *    held goes again, and the answer to it shows what is missing.  While
 *    nothing moves, the probe repeats at twice the interval each time, up
 *    to NIC_REL_MAX_PROBES: a frame lost again after its resend (likely
 *    when a frame crosses the link in several datagrams) costs a few round
 *    trips, not the timeout.
 *  - The retransmission timeout comes from measured round trips (RFC 6298:
 *    srtt + 4 rttvar from frames sent once, between rto_min and rto_max;
 *    rto_init before the first sample).  When it expires for the oldest
 *    frame, the frames not known held go again (at most 32) and the
 *    timeout doubles until an acknowledgement moves the window.
 *
 * A frame the personality cannot take now (deliver() returns
 * NIC_ERR_NO_RESOURCE) is not acknowledged and comes again: back-pressure,
 * never loss; the receiver answers it with an ack flagged BUSY, which tells
 * the sender that its firmware is alive.  A kept frame that cannot be
 * delivered when its turn comes stays kept and is tried again when its
 * next copy arrives.  A peer that answers nothing for peer_timeout is dead: every frame still
 * unacknowledged is handed to lost() with NIC_ERR_PEER_FAILED, and a later
 * stream to it starts afresh.  That silence is counted only while this
 * firmware runs (nic_stall_timer_t): a stall of our own is no evidence
 * against the peer.  A firmware
 * that stops says so: nic_rel_destroy sends every peer it talked to a BYE
 * (best effort, a datagram like any other), and a peer that gets it ends the
 * stream at once, as if the timeout had passed, with NIC_ERR_NOT_FOUND
 * instead of NIC_ERR_PEER_FAILED: the node's process finalized or exited,
 * or its idle nicd did.  Only a firmware that is killed or cut off leaves
 * its peers to the timeout.
 *
 * A job whose last endpoint here closes ends its streams
 * (nic_rel_job_end): each peer gets a BYE, and the slots are free for
 * other jobs' streams.
 *
 * Each firmware has an incarnation number (random, never 0) that its frames
 * carry; a receiver that sees a new incarnation accepts only a frame flagged
 * SYN (the first of a stream), so a restarted firmware cannot be confused
 * with its predecessor.
 *
 * The frame layout is the personality's, except for one nic_rel_hdr_t at a
 * fixed offset (hdr_off) in every frame, which this module reads and
 * writes field by field.  Everything runs on the firmware thread.
 */
#ifndef NIC_REL_H
#define NIC_REL_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nic_clock.h"
#include "nic_fw.h"

#define NIC_REL_MAX_PEERS 256     /* peer firmwares */
#define NIC_REL_MAX_PROBES 6u   /* tail probes, spaced 1, 2, 4.. probe intervals */
#define NIC_REL_WINDOW    128     /* unacknowledged frames per peer */

/* Kinds of this module's frames; personalities hand frames of every one of
 * them to nic_rel_rx (nic_rel_kind_ours) and may use other values (VIA's
 * unreliable frames are 3). */
enum { NIC_REL_KIND_DATA = 1, NIC_REL_KIND_ACK = 2, NIC_REL_KIND_BYE = 4 };
static inline int nic_rel_kind_ours(unsigned kind)
{
    return kind == NIC_REL_KIND_DATA || kind == NIC_REL_KIND_ACK || kind == NIC_REL_KIND_BYE;
}
#define NIC_REL_F_SYN 0x1u        /* first frame of a sender incarnation */
#define NIC_REL_F_BUSY 0x2u       /* ACK: alive, but the next frame was not taken */
#define NIC_REL_F_SACK 0x4u       /* ACK: a nic_rel_sack_t is inserted (see ack_tail) */

/* The module's part of a frame (16 bytes, 4-byte aligned in the frame). */
typedef struct nic_rel_hdr {
    uint32_t src_fw;      /* sender firmware incarnation (never 0) */
    uint32_t seq;         /* DATA: sequence number; ACK: 0 */
    uint32_t ack;         /* all frames with seq < ack have been received */
    uint8_t  kind;        /* NIC_REL_KIND_*; other values are the personality's */
    uint8_t  flags;       /* NIC_REL_F_* */
    uint8_t  pers[2];     /* the personality's; never touched here */
} nic_rel_hdr_t;

_Static_assert(sizeof(nic_rel_hdr_t) == 16, "nic_rel_hdr_t layout");

/* Which frames after an ACK's ack the receiver holds: bit i (of bits[i /
 * 64], i % 64) is frame base + 1 + i.  In an ACK flagged NIC_REL_F_SACK,
 * at len - ack_tail - sizeof(nic_rel_sack_t), unaligned. */
typedef struct nic_rel_sack {
    uint32_t base;        /* the ACK's ack (a block for another is ignored) */
    uint32_t reserved;    /* 0 */
    uint64_t bits[NIC_REL_WINDOW / 64];
} nic_rel_sack_t;

_Static_assert(sizeof(nic_rel_sack_t) == 24, "nic_rel_sack_t layout");

typedef struct nic_rel_frame {
    uint32_t seq;
    uint32_t len;
    uint64_t sent_ns;         /* the last transmission */
    uint8_t  sends;           /* transmissions (saturates): RTT samples only from 1 */
    uint8_t  sacked;          /* the receiver holds it (never resent) */
    uint8_t *buf;             /* frame_max bytes */
} nic_rel_frame_t;

/* The receiver's frames kept after a gap (nic_rel_rx.c). */
typedef struct nic_rel_rxq nic_rel_rxq_t;

/* The stream to and from one peer firmware for one job.  Personalities may
 * read addr, job and dead; everything else is the module's. */
typedef struct nic_rel_peer {
    struct sockaddr_in addr;
    uint64_t         job;             /* the job's tag */
    int              used;
    int              dead;            /* 0, or why its stream ended: NIC_ERR_PEER_FAILED
                                         (silent) or NIC_ERR_NOT_FOUND (said BYE) */
    /* transmit */
    uint32_t         tx_next, tx_una, tx_first;
    uint32_t         tx_sack_hi;      /* after the highest frame held (tx_una if none) */
    nic_rel_frame_t *win;             /* [window], slot = seq % window */
    uint8_t         *win_mem;
    uint64_t         rto_ns;          /* now, with back-off */
    uint64_t         srtt_ns, rttvar_ns, min_rtt_ns;   /* 0: no sample yet */
    uint64_t         rack_sent_ns;    /* newest transmission known delivered */
    uint64_t         rack_rtt_ns;     /* and its round trip */
    uint64_t         acked_ns;        /* when the window last moved */
    uint64_t         last_tx_ns;      /* the last data frame that left, new or resent */
    unsigned         probes;          /* tail probes since either */
    nic_stall_timer_t silence;        /* since the peer last answered */
    /* receive */
    uint32_t         rx_src_fw, rx_next, ack_owed;
    uint64_t         ack_due_ns, dupack_ns;
    nic_rel_rxq_t   *rxq;             /* NULL until the stream's first gap */
} nic_rel_peer_t;

typedef struct nic_rel_counters {
    uint64_t tx_data, tx_acks, rx_acks, retransmits;
    uint64_t duplicates, out_of_order, backpressure, peer_failures, peers_stopped;
    /* loss recovery: frames the receiver said it held (SACK); resent as lost
     * (a frame after them arrived) or as tail probes; timeouts; frames kept
     * after a gap here; RTT samples */
    uint64_t sacked, fast_retransmits, tail_probes, timeouts, kept, rtt_samples;
} nic_rel_counters_t;

/* When seal() is called. */
enum { NIC_REL_SEAL_FIRST = 0, NIC_REL_SEAL_RETRANSMIT = 1, NIC_REL_SEAL_ACK = 2 };

typedef struct nic_rel_ops {
    /* Write a pure acknowledgement frame into buf (cap bytes) except the
     * rel header, which must be zero; return its length. */
    size_t (*ack_frame)(void *arg, uint8_t *buf, size_t cap);
    /* The rel header is final: refresh what covers it (checksum, timing
     * stamp) just before the frame goes out. */
    void   (*seal)(void *arg, uint8_t *frame, size_t len, uint64_t now_ns, int what);
    /* The next in-order data frame.  NIC_OK: taken (acknowledged);
     * NIC_ERR_NO_RESOURCE: not now (not acknowledged, it comes again). */
    int    (*deliver)(void *arg, nic_rel_peer_t *p, const struct sockaddr_in *from,
                      uint8_t *frame, size_t len);
    /* A frame the dead peer will never acknowledge. */
    void   (*lost)(void *arg, const uint8_t *frame, size_t len, int status);
    /* Optional: the peer is gone (after lost() for every outstanding
     * frame); fail what waits on it with no frame outstanding. */
    void   (*peer_gone)(void *arg, const nic_rel_peer_t *p, int status);
} nic_rel_ops_t;

typedef struct nic_rel_config {
    size_t   hdr_off;             /* offset of nic_rel_hdr_t in every frame */
    size_t   frame_max;           /* largest frame */
    size_t   ack_tail;            /* bytes at the end of an ack frame that seal() fills
                                     (a checksum): a SACK block goes in front of them */
    uint64_t rto_init_ns;         /* before the first round trip was measured */
    uint64_t rto_min_ns, rto_max_ns, peer_timeout_ns, ack_delay_ns;
} nic_rel_config_t;

typedef struct nic_rel nic_rel_t;

/* The streams of a firmware, on its wire.  cfg gives the frame layout
 * (hdr_off, frame_max, ack_tail); the timeouts are the settings of the
 * firmware's personality, MULTIDEV_<PERS>_* (nic_rel_settings_read): the
 * one place any personality's are read.  NIC_ERR_CONFIG after an error
 * line when one is malformed. */
int  nic_rel_create(nic_fw_t *fw, const nic_rel_config_t *cfg, const nic_rel_ops_t *ops,
                    void *arg, nic_rel_t **rel_p);
/* On a bare wire, with every field of cfg the caller's: for tests that
 * drive the module without a firmware. */
int  nic_rel_create_on_wire(nic_wire_t *wire, const nic_rel_config_t *cfg,
                            const nic_rel_ops_t *ops, void *arg, nic_rel_t **rel_p);
void nic_rel_destroy(nic_rel_t *rel);
uint32_t nic_rel_incarnation(const nic_rel_t *rel);

/* The stream of a job to a peer firmware; create: make one if none (NULL
 * when all NIC_REL_MAX_PEERS are in use). */
nic_rel_peer_t *nic_rel_peer(nic_rel_t *rel, const struct sockaddr_in *addr, uint64_t job,
                             int create);
int             nic_rel_peer_index(const nic_rel_t *rel, const nic_rel_peer_t *p);
/* A job's set-up names a firmware at p's address (its business card),
 * which is newer than a BYE or a timeout that ended p's stream: the next
 * frame starts a new stream (SYN) instead of being refused.  An ephemeral
 * UDP port of a stopped firmware may be bound again by the next one. */
void            nic_rel_peer_revive(nic_rel_peer_t *p);
nic_rel_peer_t *nic_rel_peer_at(nic_rel_t *rel, int index);
unsigned        nic_rel_peer_count(const nic_rel_t *rel);

/* Transmit, in two steps: the buffer of the next frame (NULL: window full,
 * back-pressure; or out of memory), then send it with its length.  The
 * module fills the rel header (kind DATA), keeps the frame for
 * retransmission and returns the wire's status. */
uint8_t *nic_rel_tx_buf(nic_rel_t *rel, nic_rel_peer_t *p);
int      nic_rel_tx_commit(nic_rel_t *rel, nic_rel_peer_t *p, size_t len);
/* The buffer of the k-th frame after the next one (k < nic_rel_tx_space):
 * several frames may be filled at once (one gather for all of them) and
 * then committed in order. */
uint8_t *nic_rel_tx_buf_ahead(nic_rel_t *rel, nic_rel_peer_t *p, unsigned k);
/* Both steps for a frame already built elsewhere. */
int      nic_rel_send(nic_rel_t *rel, nic_rel_peer_t *p, const void *frame, size_t len);
/* Frames that can still go out to p before the window is full. */
unsigned nic_rel_tx_space(const nic_rel_t *rel, const nic_rel_peer_t *p);
/* Every frame sent to p has been acknowledged. */
int      nic_rel_tx_idle(const nic_rel_peer_t *p);

/* A received frame of job (as the wire authenticated it) whose type and
 * checksum the personality accepted. */
void nic_rel_rx(nic_rel_t *rel, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                size_t len);
/* The job has no endpoint here any more: a BYE on each of its streams
 * (while the wire still has its key), and their slots become free. */
void nic_rel_job_end(nic_rel_t *rel, uint64_t job);
/* Timers: delayed acks, retransmission, dead peers.  Lowers *next_ns. */
int  nic_rel_poll(nic_rel_t *rel, uint64_t now_ns, uint64_t *next_ns);

const nic_rel_counters_t *nic_rel_counters(const nic_rel_t *rel);
/* One line "<prefix>: stream recovery sacked N fast-resent N probes N
 * timeouts N kept N rtt-samples N" for a personality's status. */
void nic_rel_status(const nic_rel_t *rel, FILE *f, const char *prefix);

#endif /* NIC_REL_H */
