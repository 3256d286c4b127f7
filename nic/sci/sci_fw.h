/*
 * sci_fw.h - state of the emulated PCI-SCI bridge (firmware side).
 *
 * One bridge per node: an upstream ATT (exports), a downstream ATT
 * (imports), protection tags, remote interrupts, the bridges it talks to
 * (each with one ordered stream of frames), pending reads and barriers, and
 * the timing model.  All of it is touched only by the firmware thread.
 */
#ifndef SCI_FW_H
#define SCI_FW_H

#include <netinet/in.h>
#include <stdint.h>

#include "../core/nic_fw.h"
#include "../core/nic_rel.h"
#include "sci_wire.h"

/* An upstream page: incoming traffic at entry * 4 kB + [lo, hi) lands in
 * bytes off + [lo, hi) of region key of endpoint ep. */
typedef struct sci_up {
    nic_fw_ep_t *ep;         /* NULL: free */
    uint64_t     off;        /* page offset in the region */
    uint32_t     key;
    uint32_t     tag;
    uint16_t     lo, hi;     /* segment bytes inside this page */
    uint16_t     flags;      /* SCI_EXP_* */
    uint16_t     pad;
    uint32_t     head;       /* first entry of its segment */
    uint32_t     npages;     /* head entry: pages of the segment */
} sci_up_t;

/* A downstream page: window bytes entry * 16 kB + [0, valid) go to node,
 * remote offset remote + byte. */
typedef struct sci_down {
    nic_fw_ep_t *ep;         /* owner (its host maps the window); NULL: free */
    uint64_t     remote;
    uint32_t     tag;
    uint32_t     valid;
    uint16_t     node;
    uint16_t     pad;
    uint32_t     head;
    uint32_t     npages;     /* head entry: pages of the import */
} sci_down_t;

/* A bridge this one talks to for one job: one reliable, ordered stream
 * each way (the core's nic_rel), and the frame being filled for it. */
typedef struct sci_peer {
    struct sockaddr_in addr;
    uint64_t        job;        /* the job whose packets it carries */
    int             used;
    nic_rel_peer_t *rp;         /* its stream */
    uint8_t        *buf;        /* the frame being filled: a slot of the
                                   stream's window; NULL: none */
    uint32_t        len;
    uint16_t        npkt;
    uint32_t        ntxn;       /* transactions in it (timing) */
    uint64_t        ready_ns;   /* timing: when its content was ready */
    int             queued;     /* on the flush list */
} sci_peer_t;

/* Per endpoint. */
typedef struct sci_ep {
    uint32_t       dma_tag;      /* DMA context tag; 0: none */
    uint32_t       cq_reserved;  /* CQEs owed to requests in flight */
    uint64_t       head_done;    /* bytes of the head DMA already moved */
    uint64_t       head_ready;   /* timing: the head DMA may go on at */
    uint8_t        dirty[SCI_NODE_MAX / 8];   /* stored to since the barrier */
    sci_ep_stats_t st;
} sci_ep_t;

typedef struct sci_read {
    nic_fw_ep_t *ep;             /* NULL: free */
    uint32_t     gen;
    uint8_t      op;
    int          status;
    uint64_t     local, len, got, cookie;
    nic_stall_timer_t waited;    /* for the answer (sci_bridge_t.timeout_ns) */
    uint8_t      from[SCI_NODE_MAX / 8];     /* the bridges it asked */
} sci_read_t;

typedef struct sci_barrier {
    nic_fw_ep_t *ep;             /* NULL: free */
    uint32_t     token;
    uint64_t     cookie;
    nic_stall_timer_t waited;    /* for the bridges' answers */
    uint8_t      waits[SCI_NODE_MAX / 8];    /* the bridges yet to answer */
} sci_barrier_t;

typedef struct sci_intr {
    nic_fw_ep_t *ep;             /* NULL: free */
} sci_intr_t;

typedef struct sci_tagent {
    uint32_t     owner_ep;       /* endpoint that allocated it; 0: free */
    uint32_t     conn;           /* its process */
} sci_tagent_t;

/* A completion the timing model holds back until the hardware is done. */
typedef struct sci_late_cqe {
    nic_fw_ep_t *ep;
    uint64_t     due_ns;
    sci_cqe_t    cqe;
} sci_late_cqe_t;

typedef struct sci_delayed {
    uint64_t           due_ns;
    struct sockaddr_in from;
    uint64_t           job;
    uint32_t           len;
    uint8_t            buf[SCI_FRAME_MAX];
} sci_delayed_t;

#define SCI_READS_MAX     256u
#define SCI_BARRIERS_MAX  256u
#define SCI_LATE_MAX      1024u
#define SCI_DELAY_SLOTS   1024u

typedef struct sci_bridge {
    nic_rel_t      *rel;             /* reliable streams to the other bridges */
    sci_up_t       *up;              /* [up_entries] */
    uint32_t        up_entries, up_used, up_hint;
    sci_down_t     *down;            /* [SCI_DOWN_ENTRIES] */
    uint32_t        down_used, down_hint;
    sci_peer_t      peer[SCI_NODE_MAX];
    uint16_t        flush[SCI_NODE_MAX];   /* peers with a frame being filled */
    uint32_t        nflush;
    sci_tagent_t    tags[SCI_TAG_MAX];     /* index = tag; 0 unused */
    sci_intr_t      intr[SCI_INTR_MAX];
    sci_read_t      reads[SCI_READS_MAX];
    uint32_t        read_gen, nreads;           /* nreads: in flight */
    sci_barrier_t   barriers[SCI_BARRIERS_MAX];
    uint32_t        nbarriers;                  /* in flight */
    uint32_t        barrier_token;
    uint64_t        timeout_ns;            /* reads and barriers */
    /* what one frame carries: up to SCI_FRAME_MAX, less where the wire's
     * datagrams are smaller (sci_frame_fit) */
    uint32_t        frame_fill, pkt_data_max;
    sci_fw_stats_t  st;
    /* timing model */
    sci_timing_t    timing;
    uint64_t        link_free_ns, dma_free_ns;
    sci_late_cqe_t *late;                  /* [SCI_LATE_MAX] FIFO */
    uint32_t        late_head, late_tail;
    sci_delayed_t  *delay;                 /* [SCI_DELAY_SLOTS] FIFO */
    uint32_t        delay_head, delay_tail;
    const nic_log_sink_t *log;             /* its firmware's (nic_fw_log) */
} sci_bridge_t;

static inline sci_bridge_t *sci_of(nic_fw_t *fw) { return nic_fw_pers_state(fw); }

/* Frames no larger than one datagram of the wire (the link's MTU less the
 * headers): an SCI frame is this emulation's container of packets, not a
 * unit of the hardware, and a frame the wire cut into pieces would be lost
 * whenever any piece is (a 9000-byte frame on a 1500-byte link crosses in
 * 7 datagrams: 30% of frames lost at 5% of datagrams).  At least 1 kB. */
static inline void sci_frame_fit(sci_bridge_t *b, size_t wire_piece_max)
{
    size_t fill = wire_piece_max < SCI_FRAME_MAX ? wire_piece_max : SCI_FRAME_MAX;

    if (fill < 1024)
        fill = 1024;
    b->frame_fill = (uint32_t)fill;
    b->pkt_data_max =
        (uint32_t)((fill - sizeof(sci_frame_hdr_t) - sizeof(sci_pkt_hdr_t)) / SCI_TXN * SCI_TXN);
}

/* Sets of peer bridges, a bit per index of sci_bridge_t.peer. */
static inline void sci_peers_add(uint8_t *set, int peer)
{
    set[peer / 8] |= (uint8_t)(1u << (peer % 8));
}
static inline void sci_peers_del(uint8_t *set, int peer)
{
    set[peer / 8] &= (uint8_t)~(1u << (peer % 8));
}
static inline int sci_peers_has(const uint8_t *set, int peer)
{
    return (set[peer / 8] >> (peer % 8)) & 1;
}
static inline unsigned sci_peers_count(const uint8_t *set)
{
    unsigned n = 0;
    for (unsigned i = 0; i < SCI_NODE_MAX / 8; i++)
        n += (unsigned)__builtin_popcount(set[i]);
    return n;
}
static inline sci_ep_t *sci_ep(nic_fw_ep_t *ep) { return ep->pers; }

/* sci_att.c: translation tables */
int   sci_up_alloc(sci_bridge_t *b, uint32_t n, uint32_t *first);
void  sci_up_free_seg(sci_bridge_t *b, uint32_t head);
void  sci_up_free_ep(sci_bridge_t *b, nic_fw_ep_t *ep);
/* For upstream bytes [addr, addr + n) inside one page: the part that lies
 * in the page's segment bytes and in its region with access: *skip bytes
 * before it, *got bytes of it; NULL if none (unmapped or refused).
 * *e (may be NULL): the entry. */
uint8_t *sci_up_page(sci_bridge_t *b, uint64_t addr, uint32_t n, uint32_t access,
                     uint32_t *skip, uint32_t *got, sci_up_t **e);
int   sci_down_alloc(sci_bridge_t *b, uint32_t n, uint32_t *first);
void  sci_down_free_imp(sci_bridge_t *b, uint32_t head);
void  sci_down_free_ep(sci_bridge_t *b, nic_fw_ep_t *ep);
/* The downstream page of addr if ep owns it: *avail = window bytes from
 * addr to the end of the page's mapped part. */
sci_down_t *sci_down_lookup(sci_bridge_t *b, nic_fw_ep_t *ep, uint64_t addr, uint32_t *avail);
/* Every page of [addr, addr + len): owned by ep, mapped, and (tag != 0)
 * tagged tag.  NIC_OK, NIC_ERR_INVALID (outside the window) or
 * NIC_ERR_PROTECTION. */
int   sci_down_check(sci_bridge_t *b, nic_fw_ep_t *ep, uint64_t addr, uint64_t len, uint32_t tag);
/* Every page of upstream [addr, addr + len) mapped with flags and, if
 * tag != 0, tagged tag; if owner != NULL, owned by it. */
int   sci_up_check(sci_bridge_t *b, uint64_t addr, uint64_t len, uint32_t flags, uint32_t tag,
                   nic_fw_ep_t *owner);

/* sci_peer.c: bridges, frames, the reliable stream */
int   sci_peer_get(sci_bridge_t *b, const struct sockaddr_in *addr, uint64_t job, int create);
/* Can peer's stream take packets of data bytes (npkt packets) now? */
int   sci_peer_room(sci_bridge_t *b, int peer, uint64_t data, uint32_t npkt);
/* Append a packet to peer's frame (sending a full one first); returns
 * where its data goes, NULL if the stream has no room (check first). */
uint8_t *sci_peer_packet(nic_fw_t *fw, sci_bridge_t *b, int peer, const sci_pkt_hdr_t *h,
                         uint32_t ntxn, uint64_t ready_ns);
void  sci_peer_flush_all(nic_fw_t *fw, sci_bridge_t *b);
int   sci_rel_open(nic_fw_t *fw, sci_bridge_t *b);

/* sci_tx.c */
int   sci_ep_service(nic_fw_t *fw, nic_fw_ep_t *ep);
/* A CQE for request h (reserving it first), posted now or, timing, at due. */
void  sci_cq_done(sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h, int status,
                  uint64_t len, uint64_t due_ns);
/* ep has stored to peer since its last barrier. */
void  sci_mark_dirty(sci_ep_t *se, int peer);
/* sci_waits.c: reads and barriers waiting on other bridges */
int   sci_waits_timeout(sci_bridge_t *b, uint64_t now, uint64_t *next);
/* Completes read r with status and the bytes it got (at most its length). */
void  sci_waits_read_end(sci_bridge_t *b, sci_read_t *r, int status);
void  sci_waits_barrier_ack(sci_bridge_t *b, int peer, uint32_t token);
/* Fails what waits on peer (status NIC_ERR_NOT_FOUND: it stopped; or
 * NIC_ERR_PEER_FAILED: it died). */
void  sci_waits_peer_gone(sci_bridge_t *b, int peer, int status);
/* The job's last endpoint here closed: its peers and streams go. */
void  sci_peer_job_end(nic_fw_t *fw, sci_bridge_t *b, uint64_t job);
/* sci_dma.c: 1 done, 0 moved on, -1 blocked (see sci_tx.c) */
int   sci_dma_write(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h);
int   sci_read(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h);
/* Post a CQE now (if the CQ has room); 0 if it is full. */
int   sci_cq_post(nic_fw_ep_t *ep, const sci_cqe_t *c);
/* Post a CQE for a request that reserved one (timing: when due). */
void  sci_cq_complete(sci_bridge_t *b, nic_fw_ep_t *ep, const sci_cqe_t *c, uint64_t due_ns);

/* sci_rx.c */
void  sci_rx_frame(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                   size_t len);
/* nic_rel's deliver: the next in-order frame of a stream. */
int   sci_rx_deliver(void *arg, nic_rel_peer_t *rp, const struct sockaddr_in *from,
                     uint8_t *frame, size_t len);
int   sci_rx_delayed(nic_fw_t *fw, sci_bridge_t *b, uint64_t now, uint64_t *next);

/* sci_ctl.c */
int   sci_ep_ctl(nic_fw_t *fw, nic_fw_ep_t *ep, uint32_t op, const void *in, size_t in_len,
                 void *out, size_t *out_len);

/* Transactions of a store of len bytes at addr (64-byte boundaries). */
static inline uint32_t sci_txns(uint64_t addr, uint64_t len)
{
    if (len == 0)
        return 0;
    return (uint32_t)(((addr + len - 1) / SCI_TXN) - (addr / SCI_TXN) + 1);
}

#endif /* SCI_FW_H */
