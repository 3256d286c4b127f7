/*
 * nic_wire.h - the wire between firmwares: UDP datagrams, one frame each,
 * with fault injection applied on transmit (tests only; all rates 0 by
 * default).  Every firmware binds its own address, so several emulated
 * nodes share one host on loopback and the same code runs across hosts.
 *
 * Segmentation offload: a run of equal-sized frames to one peer leaves in
 * one system call as a UDP GSO super-datagram (UDP_SEGMENT), which the
 * kernel cuts into one datagram per frame, and a receiver with UDP_GRO
 * takes such a train in one buffer and splits it again.  The datagrams on
 * the wire are the same as without it; the kernel walks its stack once per
 * train instead of once per frame.  A kernel or route that refuses it
 * (gso size above the path MTU, no UDP_SEGMENT) turns it off for good, and
 * MULTIDEV_NIC_OFFLOAD=0 never uses it.
 *
 * Path MTU: a frame larger than what one datagram carries on the link
 * (the bound interface's MTU, or MULTIDEV_NIC_MTU, less the IPv4 and UDP
 * headers and our envelope) leaves in pieces, each a datagram of its own
 * with its own envelope and MAC, never as IP fragments: the kernel would
 * cut it without segmentation offload, and one lost fragment would lose the
 * frame without a trace.  A frame's pieces carry consecutive counters and
 * are all of one length, nic_wire_piece_len(frame_len, pieces), the last
 * padded (at most 8 bytes a piece): so the pieces of a run of frames of one
 * size are all alike and leave as long GSO trains.  The receiver puts them
 * together (nic_wire_reasm.c) after each passed its MAC, and hands up whole
 * frames only.  A frame with a piece lost is given up
 * when newer ones need its place: the personality's reliability resends
 * it.  Frames that fit one datagram (all of them on loopback) are not
 * touched.
 *
 * Authentication: no datagram from outside a job reaches a personality.
 * Every frame leaves inside an envelope
 *
 *     nic_wire_env_t (32 bytes) | the personality's frame (or a piece
 *                                 of it) | MAC (16 bytes)
 *
 * The envelope names the job by its public tag, which selects the key
 * among the jobs whose endpoints this firmware has open
 * (nic_wire_job_add); the sender (a random number per wire) and its
 * counter (one more per datagram) make every nonce unique, and the
 * receiver keeps, per sender, a window of the counters it took, so a
 * replayed datagram is dropped.  The MAC is one of two (the envelope says
 * which; libsodium computes both):
 *
 *   NIC_WIRE_MAC_AESGCM  GMAC (AES-256-GCM with no plaintext) of the frame
 *     under the sender's own key, derived from the job's wire key and the
 *     sender id, with the counter and the piece fields as nonce: the tag,
 *     the sender, the counter and the piece are bound by key and nonce.  With AES-NI: about 45 ns a
 *     small frame, 5 GB/s.  The default where the CPU has AES-NI.
 *   NIC_WIRE_MAC_POLY1305  Poly1305 over envelope and frame, with a
 *     one-time key from XChaCha20 under the job's wire key and the nonce
 *     sender|counter: any CPU, about 330 ns a frame and 2.4 GB/s.
 *
 * MULTIDEV_NIC_MAC (auto, aesgcm, poly1305) chooses what a firmware sends
 * with; it takes either.  A firmware without AES-NI cannot check AES-GCM
 * frames: it says so, naming the sender, and the job's hosts then must
 * use poly1305.  A datagram that is too short, of another
 * format, of a job we do not know, with a wrong MAC, replayed, or from
 * another address than its sender's earlier ones is dropped and counted
 * before anything else looks at it: it creates no state.
 */
#ifndef NIC_WIRE_H
#define NIC_WIRE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "nic_job.h"
#include "nic_log.h"

#define NIC_WIRE_MTU 9000u     /* largest frame a personality may send */
#define NIC_WIRE_RX_BATCH 32   /* datagrams (or GRO trains) per receive call */
#define NIC_WIRE_RX_BUF 65536u /* one receive buffer: a datagram or a train */
#define NIC_WIRE_TX_BATCH 64   /* datagrams handed over per send call */
#define NIC_WIRE_GSO_MAX_SEGS 64u      /* frames in one GSO super-datagram */
#define NIC_WIRE_GSO_MAX_BYTES 65000u  /* it is one IP datagram until cut */

#define NIC_WIRE_MAGIC   0x444du       /* "MD" read as a little-endian word */
#define NIC_WIRE_VERSION 2u            /* 2: frames in pieces to the path MTU */
#define NIC_WIRE_MAX_PIECES 64u        /* pieces of one frame (a bit each) */
#define NIC_WIRE_REASM_SLOTS 32u       /* frames being put together at once */
#define NIC_WIRE_IP_UDP_HDR 28u        /* IPv4 + UDP headers in the link's MTU */
#define NIC_WIRE_TX_PARTS 4            /* envelope, frame bytes, padding, MAC */
enum { NIC_WIRE_MAC_POLY1305 = 1, NIC_WIRE_MAC_AESGCM = 2 };
#define NIC_WIRE_GCM_STATE 512u        /* >= libsodium's crypto_aead_aes256gcm_state */
#define NIC_WIRE_MAC_LEN 16u
#define NIC_WIRE_MAX_JOBS 64u          /* jobs with endpoints on one firmware */
#define NIC_WIRE_MAX_SENDERS 1024u     /* senders whose replay windows are kept */
#define NIC_WIRE_REPLAY_WORDS 16u      /* window: 1024 counters below the highest */

/* In front of every frame on the wire (host byte order: the emulation runs
 * on little-endian hosts, as nic_abi.h says). */
typedef struct nic_wire_env {
    uint16_t magic;       /* NIC_WIRE_MAGIC */
    uint8_t  version;     /* NIC_WIRE_VERSION */
    uint8_t  mac;         /* NIC_WIRE_MAC_* */
    uint8_t  piece;       /* which piece of the frame this is: 0 .. pieces - 1 */
    uint8_t  pieces;      /* the frame's pieces: 1 (a whole frame) .. NIC_WIRE_MAX_PIECES */
    uint16_t frame_len;   /* in pieces: the whole frame's length (0 when whole) */
    uint64_t job;         /* the job's tag: which key */
    uint64_t sender;      /* the sending wire (random, never 0) */
    uint64_t counter;     /* per sender, one more per datagram */
} nic_wire_env_t;

_Static_assert(sizeof(nic_wire_env_t) == 32, "nic_wire_env_t layout");

/* Bytes the envelope adds to every frame. */
#define NIC_WIRE_OVERHEAD (sizeof(nic_wire_env_t) + NIC_WIRE_MAC_LEN)
/* The largest datagram: the largest frame in its envelope. */
#define NIC_WIRE_DGRAM_MAX (NIC_WIRE_MTU + NIC_WIRE_OVERHEAD)

/* Fault injection: probabilities in [0, 1], applied per transmitted frame.
 * Environment: MULTIDEV_NIC_FAULT_DROP, _DUP, _REORDER, _CORRUPT, _SEED. */
typedef struct nic_fault {
    double   drop, dup, reorder, corrupt;
    uint64_t seed;
} nic_fault_t;

typedef struct nic_wire_stats {
    uint64_t tx_frames, tx_bytes, rx_frames, rx_bytes;
    uint64_t tx_errors;
    uint64_t tx_trains, rx_trains;   /* GSO sends / GRO receives of >1 frame */
    uint64_t fault_drop, fault_dup, fault_reorder, fault_corrupt;
    /* dropped on arrival, before any personality saw them */
    uint64_t rx_garbage;      /* too short, or not our envelope */
    uint64_t rx_no_key;       /* a job with no endpoint here */
    uint64_t rx_bad_mac;      /* forged or damaged */
    uint64_t rx_replayed;     /* a counter taken already, or older than the window */
    uint64_t rx_moved;        /* a known sender at another address */
    uint64_t tx_no_key;       /* a frame of a job we hold no key for: not sent */
    uint64_t senders_evicted; /* replay windows given up for newer senders */
    uint64_t rx_no_aesgcm;    /* AES-GCM frames this CPU cannot check */
    /* frames in pieces */
    uint64_t tx_cut;          /* frames sent in pieces */
    uint64_t rx_joined;       /* frames put together */
    uint64_t rx_bad_piece;    /* authentic pieces that do not fit their frame */
    uint64_t rx_given_up;     /* frames with a piece missing, given up for newer ones */
} nic_wire_stats_t;

/* The key of one job, while endpoints of it are open here. */
typedef struct nic_wire_key {
    _Alignas(16) uint8_t tx_gcm[NIC_WIRE_GCM_STATE];  /* AES-GCM under our sender key */
    uint64_t tag;             /* 0: free slot */
    unsigned refs;
    uint8_t  key[NIC_JOB_KEY_LEN];
} nic_wire_key_t;

/* What the receiver keeps of one sender (of one job): where it sends from
 * and which counters it has taken. */
typedef struct nic_wire_sender {
    _Alignas(16) uint8_t gcm[NIC_WIRE_GCM_STATE];   /* AES-GCM under its sender key,
                                                       once it sent with it */
    int                has_gcm;
    uint64_t           job, sender;   /* job 0: free slot */
    struct sockaddr_in addr;
    uint64_t           top;           /* the highest counter taken */
    uint64_t           seen[NIC_WIRE_REPLAY_WORDS];   /* bit k: top - k taken */
    uint64_t           used;          /* rx_clock when last heard (eviction) */
} nic_wire_sender_t;

/* A frame being put together from its pieces (nic_wire_reasm.c). */
typedef struct nic_wire_partial {
    uint64_t           job, sender;   /* job 0: free slot */
    uint64_t           first;         /* the counter of piece 0 */
    uint64_t           have;          /* bit i: piece i is in */
    unsigned           pieces;
    size_t             len;           /* the frame's length */
    int                handed_up;     /* whole, up to the personality: kept until the
                                         receive call ends */
    uint64_t           used;          /* rx_clock when a piece came (eviction) */
    uint8_t           *buf;           /* NIC_WIRE_MTU bytes, in reasm_mem */
} nic_wire_partial_t;

typedef struct nic_wire {
    int                fd;
    struct sockaddr_in addr;        /* bound address */
    nic_fault_t        fault;
    uint64_t           rng;
    /* reorder: a held-back frame, sent after the next one */
    int                held;
    struct sockaddr_in held_to;
    size_t             held_len;
    uint64_t           held_since;
    uint8_t           *held_buf;
    uint8_t           *rx_bufs;         /* NIC_WIRE_RX_BATCH x NIC_WIRE_RX_BUF */
    uint8_t           *rx_align;        /* as large: 8-byte aligned copies of the
                                           frames a GRO train holds at odd offsets */
    int                gso, gro;        /* segmentation offloads in use */
    unsigned           mtu;             /* the link's, as found or configured */
    size_t             piece_max;       /* the most frame bytes one datagram carries */
    nic_wire_partial_t reasm[NIC_WIRE_REASM_SLOTS];
    uint8_t           *reasm_mem;       /* NIC_WIRE_REASM_SLOTS x NIC_WIRE_MTU */
    unsigned           reasm_handed;    /* slots handed up in this receive call */
    /* datagrams queued by nic_wire_send_stable, sent by nic_wire_flush_tx:
     * tx_iov[i] is the frame (or its piece) with its padding,
     * tx_parts[4i..4i+3] the envelope, the frame's bytes, padding and MAC */
    struct sockaddr_in tx_to[NIC_WIRE_TX_BATCH];
    struct iovec       tx_iov[NIC_WIRE_TX_BATCH];
    nic_wire_env_t     tx_env[NIC_WIRE_TX_BATCH];
    uint8_t            tx_mac[NIC_WIRE_TX_BATCH][NIC_WIRE_MAC_LEN];
    struct iovec       tx_parts[NIC_WIRE_TX_PARTS * NIC_WIRE_TX_BATCH];
    unsigned           tx_n;
    /* authentication (nic_wire_auth.c) */
    int                mac;             /* NIC_WIRE_MAC_* this wire sends with */
    int                have_aesgcm;     /* the CPU can compute AES-GCM */
    uint64_t           sender_id;
    uint64_t           tx_counter;
    nic_wire_key_t     keys[NIC_WIRE_MAX_JOBS];
    nic_wire_key_t    *last_key;
    nic_wire_sender_t *senders;         /* NIC_WIRE_MAX_SENDERS */
    nic_wire_sender_t *last_sender;
    uint64_t           rx_clock;
    nic_wire_stats_t   st;
    const nic_log_sink_t *log;          /* its firmware's (nic_fw_log), or NULL */
} nic_wire_t;

/* Binds ip:port.  sink: where the lines about this wire (and the reliable
 * streams on it) go, kept for its life; NULL: stderr. */
int  nic_wire_open(nic_wire_t *w, const char *ip, uint16_t port,
                   const nic_fault_t *fault, const nic_log_sink_t *sink);
void nic_wire_close(nic_wire_t *w);

/* The jobs this wire carries: a job's key is kept while it has a reference
 * (one per endpoint of the job on this firmware).  add: NIC_OK, or
 * NIC_ERR_NO_RESOURCE when NIC_WIRE_MAX_JOBS jobs are known already.
 * drop: one reference less; at none, the key and every replay window of the
 * job are forgotten. */
int      nic_wire_job_add(nic_wire_t *w, const nic_job_t *job);
void     nic_wire_job_drop(nic_wire_t *w, uint64_t tag);
unsigned nic_wire_job_refs(const nic_wire_t *w, uint64_t tag);
unsigned nic_wire_job_count(const nic_wire_t *w);       /* jobs with a key here */
unsigned nic_wire_sender_count(const nic_wire_t *w);    /* replay windows kept */

/* Send one frame of a job made of iov pieces (fault injection applies).
 * A job without a key here is refused (NIC_ERR_PROTECTION, not sent). */
int  nic_wire_send(nic_wire_t *w, const struct sockaddr_in *to, uint64_t job,
                   const struct iovec *iov, int iovcnt);
/* Queue a frame whose buffer stays valid and unchanged until the next
 * nic_wire_flush_tx(); several go out in one system call.  Frames queued
 * this way keep their order among themselves. */
int  nic_wire_send_stable(nic_wire_t *w, const struct sockaddr_in *to, uint64_t job,
                          const void *buf, size_t len);
/* Send what nic_wire_send_stable queued (the firmware loop calls it at the
 * end of every turn). */
int  nic_wire_flush_tx(nic_wire_t *w);
/* The link's MTU: 0 finds it (the interface of the bound address; 65536
 * on loopback, 1500 where no interface has it), else the value given
 * (576 .. 65536; NIC_ERR_CONFIG otherwise).  Frames larger than a datagram
 * then carries leave in pieces. */
int  nic_wire_set_mtu(nic_wire_t *w, unsigned mtu);
/* Use GSO/GRO where the kernel offers them (on: the default) or never. */
void nic_wire_set_offload(nic_wire_t *w, int on);
/* The number of queued frames from index i on that can leave as one GSO
 * super-datagram: same destination and length, and at most one shorter
 * frame at the end, within NIC_WIRE_GSO_MAX_SEGS and _BYTES (counted with
 * each frame's envelope). */
unsigned nic_wire_gso_run(const struct sockaddr_in *to, const struct iovec *iov, unsigned n,
                          unsigned i);
/* Release a frame held back for reordering if it waited too long. */
int  nic_wire_flush(nic_wire_t *w, uint64_t now_ns);
/* Receive up to max datagrams without blocking; calls fn for each
 * authentic frame (job: the tag its MAC was checked with), then done (if
 * not NULL) once per receive system call: the frames of that call stay in
 * the wire's buffers until done returns, no longer.  Every frame starts
 * 8-byte aligned (frames of a GRO train that do not are copied). */
typedef void (*nic_wire_rx_fn)(void *arg, const struct sockaddr_in *from, uint64_t job,
                               uint8_t *frame, size_t len);
typedef void (*nic_wire_rx_done_fn)(void *arg);
int  nic_wire_recv(nic_wire_t *w, int max, nic_wire_rx_fn fn, nic_wire_rx_done_fn done,
                   void *arg);
/* Whether p points into the wire's receive buffers (frames put together
 * from pieces included). */
int  nic_wire_rx_holds(const nic_wire_t *w, const void *p);

/* --- nic_wire_auth.c, for the wire's own files and its tests --- */
/* Allocate the receiver's tables and draw the sender id. */
int  nic_wire_auth_init(nic_wire_t *w);
/* What this wire sends with: 0 (the default) AES-GCM where the CPU has
 * AES-NI, else Poly1305; or NIC_WIRE_MAC_*.  NIC_ERR_CONFIG (said) for
 * AES-GCM on a CPU without it. */
int  nic_wire_set_mac(nic_wire_t *w, int mac);
void nic_wire_auth_fini(nic_wire_t *w);
/* Which piece of its frame a datagram carries (NULL: the whole frame). */
typedef struct nic_wire_cut {
    unsigned piece, pieces;
    size_t   frame_len;
} nic_wire_cut_t;
/* Fill env for the next datagram of job and the MAC over env and the
 * datagram's bytes of the frame, given as iov.  NIC_ERR_PROTECTION
 * (counted) when the job has no key. */
int  nic_wire_auth_seal(nic_wire_t *w, uint64_t job, const nic_wire_cut_t *cut,
                        nic_wire_env_t *env, const struct iovec *iov, int iovcnt,
                        uint8_t mac[NIC_WIRE_MAC_LEN]);
/* Check one received datagram: the frame (or piece) inside it, its length
 * and *env, or NULL when it must be dropped (counted). */
uint8_t *nic_wire_auth_open(nic_wire_t *w, const struct sockaddr_in *from, uint8_t *dgram,
                            size_t len, nic_wire_env_t *env, size_t *frame_len);

/* --- nic_wire_mtu.c --- */
/* How a frame of len bytes leaves: the number of pieces, each *piece_len
 * bytes (the last padded), or 1 and len: whole. */
unsigned nic_wire_cut_plan(const nic_wire_t *w, size_t len, size_t *piece_len);
/* The length of every piece of a frame of frame_len bytes in pieces. */
static inline size_t nic_wire_piece_len(size_t frame_len, unsigned pieces)
{
    return ((frame_len + pieces - 1) / pieces + 7) & ~(size_t)7;
}
/* At most this much padding ends a frame's last piece: pieces x 8. */
#define NIC_WIRE_PAD_MAX (8u * NIC_WIRE_MAX_PIECES)
/* The bytes off .. off+len of a frame given as iov, as at most max iovecs
 * in out: their number, or -1 (too many, or the frame is shorter). */
int      nic_wire_iov_slice(const struct iovec *iov, int iovcnt, size_t off, size_t len,
                            struct iovec *out, int max);

/* --- nic_wire_reasm.c: frames put together from their pieces --- */
int      nic_wire_reasm_init(nic_wire_t *w);
void     nic_wire_reasm_fini(nic_wire_t *w);
/* An authentic piece (env as opened): the whole frame (*len set) when this
 * was its last missing piece, else NULL.  The frame stays in place until
 * nic_wire_reasm_release. */
uint8_t *nic_wire_reasm_add(nic_wire_t *w, const nic_wire_env_t *env, const uint8_t *piece,
                            size_t piece_len, size_t *len);
/* The frames handed up during a receive call are done with. */
void     nic_wire_reasm_release(nic_wire_t *w);
/* The job's key is gone: so are its partial frames. */
void     nic_wire_reasm_forget_job(nic_wire_t *w, uint64_t job);
/* Whether p points into a frame put together here. */
int      nic_wire_reasm_holds(const nic_wire_t *w, const void *p);

/* "ip:port" <-> sockaddr_in */
int  nic_addr_parse(const char *text, struct sockaddr_in *sa);
void nic_addr_format(const struct sockaddr_in *sa, char *buf, size_t len);

#endif /* NIC_WIRE_H */
