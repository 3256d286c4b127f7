/*
 * sci_wire.h - the emulated PCI-SCI bridge (nic/sci): everything the
 * firmware and the host library (sci_host.c) share: send- and completion-
 * queue entries, control calls, and the SCI packets that travel between
 * bridges.  See doc/sci.md for the model.
 *
 * Address spaces of one bridge (P3 §4, P5 §IV):
 *
 *   upstream   "virtual PCI" space of incoming traffic: SCI_UP_PAGE (4 kB)
 *              pages, each translated by the upstream ATT to one page of a
 *              registered host region.  Exporting memory fills entries;
 *              the remote offset of an exported segment is
 *              entry * SCI_UP_PAGE + offset in its first page.
 *   downstream the importer's window space: SCI_DOWN_PAGE (16 kB) pages,
 *              each translated by the downstream ATT to (remote node,
 *              remote upstream offset).  Importing a segment fills entries;
 *              stores and DMA name downstream addresses.
 *
 * A node id is a bridge's wire address (IPv4 address and UDP port).
 */
#ifndef SCI_WIRE_H
#define SCI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define SCI_UP_PAGE        4096u
#define SCI_DOWN_PAGE      16384u
#define SCI_TXN            64u        /* bytes of one SCI write transaction */
#define SCI_UP_ENTRIES_DEF 65536u     /* 256 MB of export (P3: 128 MB) */
#define SCI_DOWN_ENTRIES   65536u     /* 1 GB of imports (P3 §4.1) */
#define SCI_INTR_MAX       256u       /* remote interrupts per bridge */
#define SCI_NODE_MAX       256u       /* bridges one bridge talks to */
#define SCI_TAG_MAX        1024u      /* protection tags per bridge */

/* ------------------------------------------------------------------ */
/* Send queue: one request is a head entry plus raw data entries       */
/* ------------------------------------------------------------------ */

enum sci_op {
    SCI_OP_STORE = 1,     /* PIO store: data -> downstream address */
    SCI_OP_BARRIER,       /* completes once earlier stores are remotely visible */
    SCI_OP_DMA_WRITE,     /* local upstream address -> downstream address */
    SCI_OP_DMA_READ,      /* downstream address -> local upstream address */
    SCI_OP_PIO_READ,      /* like DMA_READ, but untagged (a CPU load) */
    SCI_OP_INTR,          /* remote interrupt: node, number, data */
    SCI_OP_MANUAL,        /* a host-built SCI packet, sent as it is */
    SCI_OP_MAX,
};

#define SCI_SQF_COMPLETE  0x1u  /* STORE/MANUAL/INTR: a CQE on success too */

#define SCI_SQE_INLINE 32u

typedef struct sci_sqe {
    uint8_t  op;          /* enum sci_op */
    uint8_t  flags;       /* SCI_SQF_* */
    uint16_t nslots;      /* entries of this request, the head included */
    uint32_t len;         /* bytes */
    uint64_t addr;        /* STORE, DMA, reads: downstream address;
                             INTR, MANUAL: node (sci_node_pack) */
    uint64_t local;       /* DMA, reads: local upstream address;
                             INTR: number | data << 32;
                             STORE with a timing model: when the host's
                             last PIO write of it is done (CLOCK_MONOTONIC
                             ns), the firmware's ready time */
    uint64_t cookie;      /* returned in the CQE */
    uint8_t  data[SCI_SQE_INLINE];   /* STORE, MANUAL: the first bytes;
                                        the rest fills the next entries */
} sci_sqe_t;

_Static_assert(sizeof(sci_sqe_t) == 64, "sci_sqe_t is one ring entry");

/* Entries a request of len data bytes takes. */
static inline uint32_t sci_sqe_slots(uint32_t op, uint32_t len)
{
    if (op != SCI_OP_STORE && op != SCI_OP_MANUAL)
        return 1;
    return len <= SCI_SQE_INLINE ? 1 : 1 + (len - SCI_SQE_INLINE + 63) / 64;
}

/* ------------------------------------------------------------------ */
/* Completion queue                                                    */
/* ------------------------------------------------------------------ */

enum sci_cq_kind {
    SCI_CQ_DONE = 1,      /* op completed (status says how) */
    SCI_CQ_INTR = 2,      /* a remote interrupt arrived */
    SCI_CQ_NODE_GONE = 3, /* a remote bridge stopped answering (status
                             NIC_ERR_PEER_FAILED) or stopped (NIC_ERR_NOT_FOUND):
                             from names it; the stores to it since its last
                             acknowledgement are lost (the ring's error
                             interrupt of a real adapter) */
};

typedef struct sci_cqe {
    uint8_t  kind;        /* enum sci_cq_kind */
    uint8_t  op;          /* DONE: the request's op */
    int16_t  status;      /* NIC_OK or a negative nic status */
    uint32_t len;         /* DONE: bytes moved; INTR: 0 */
    uint64_t cookie;      /* DONE: the request's cookie */
    uint32_t intr_no;     /* INTR */
    uint32_t intr_data;
    uint64_t from;        /* INTR: sending node */
    uint8_t  pad[32];
} sci_cqe_t;

_Static_assert(sizeof(sci_cqe_t) == 64, "sci_cqe_t is one ring entry");

/* ------------------------------------------------------------------ */
/* Nodes                                                               */
/* ------------------------------------------------------------------ */

typedef struct sci_node {
    uint32_t ip;          /* network order */
    uint16_t port;        /* network order */
} sci_node_t;

static inline uint64_t sci_node_pack(sci_node_t n)
{
    return (uint64_t)n.ip << 16 | n.port;
}

static inline sci_node_t sci_node_unpack(uint64_t v)
{
    sci_node_t n = { (uint32_t)(v >> 16), (uint16_t)v };
    return n;
}

/* ------------------------------------------------------------------ */
/* Control calls (nic_ep_ctl)                                          */
/* ------------------------------------------------------------------ */

enum sci_ctl_op {
    SCI_CTL_TAG_ALLOC = 1, /* -> uint32 tag, owned by the caller's process */
    SCI_CTL_DMA_TAG,       /* uint32 tag: the endpoint's DMA context tag */
    SCI_CTL_EXPORT,        /* sci_ctl_export_t -> sci_ctl_seg_t */
    SCI_CTL_UNEXPORT,      /* uint64 segment offset */
    SCI_CTL_IMPORT,        /* sci_ctl_import_t -> uint64 downstream address */
    SCI_CTL_UNIMPORT,      /* uint64 downstream address */
    SCI_CTL_INTR_CREATE,   /* -> uint32 interrupt number */
    SCI_CTL_INTR_REMOVE,   /* uint32 interrupt number */
    SCI_CTL_STATS,         /* -> sci_stats_t */
    SCI_CTL_TIMING,        /* sci_timing_t */
};

/* Export flags */
#define SCI_EXP_REMOTE  0x1u   /* remote bridges may write (and read) it */
#define SCI_EXP_DMA     0x2u   /* the local DMA engine may read/write it */

/* A run of pages of one region: region bytes [off, off + npages * 4 kB),
 * off a multiple of SCI_UP_PAGE (an ATT entry maps a whole host page). */
typedef struct sci_page_run {
    uint32_t key;
    uint32_t npages;
    uint64_t off;
} sci_page_run_t;

typedef struct sci_ctl_export {
    uint32_t tag;          /* protection tag of the entries */
    uint32_t flags;        /* SCI_EXP_* */
    uint32_t first_off;    /* segment start inside its first page */
    uint32_t nruns;
    uint64_t size;         /* segment bytes */
    sci_page_run_t run[];  /* pages in segment order */
} sci_ctl_export_t;

typedef struct sci_ctl_seg {
    uint64_t offset;       /* remote (upstream) offset of the segment */
    uint64_t size;
} sci_ctl_seg_t;

typedef struct sci_ctl_import {
    uint64_t node;         /* sci_node_pack */
    uint64_t remote_off;   /* the exporter's segment offset (any byte) */
    uint64_t size;
    uint32_t tag;
    uint32_t pad;
} sci_ctl_import_t;

/* Counters: the endpoint's own, then the bridge's. */
typedef struct sci_ep_stats {
    uint64_t stores, store_bytes, txns;      /* PIO */
    uint64_t dma_ops, dma_bytes;
    uint64_t remote_reads, read_bytes;       /* PIO and DMA reads issued */
    uint64_t manual_sent, intr_sent, barriers;
    uint64_t clipped, protection;            /* requests refused or cut */
    uint64_t rx_writes, rx_bytes;            /* into its exported memory */
    uint64_t rx_reads_served, rx_intr;
} sci_ep_stats_t;

typedef struct sci_fw_stats {
    uint64_t tx_frames, tx_packets, rx_frames, rx_packets;
    uint64_t rx_unmapped, rx_clipped, rx_foreign_job, rx_bad;
    uint64_t intr_dropped;
    uint64_t retransmits, duplicates, out_of_order, backpressure, peer_failures;
    uint64_t up_used, down_used;             /* ATT entries in use */
} sci_fw_stats_t;

typedef struct sci_stats {
    sci_ep_stats_t ep;
    sci_fw_stats_t fw;
} sci_stats_t;

/* Timing model (off when enabled == 0): component costs of the emulated
 * hardware (sci_timing.c has the profiles and their sources). */
typedef struct sci_timing {
    uint32_t enabled;
    uint32_t pio_ns_per_txn;   /* host: one 64-byte PIO write transaction */
    uint32_t link_MBps;        /* SCI link, each direction */
    uint32_t txn_wire_bytes;   /* link bytes per transaction: packet + echo */
    uint32_t bridge_ns;        /* per packet in each bridge (out and in) */
    uint32_t dma_setup_ns;     /* per DMA descriptor */
    uint32_t dma_MBps;         /* DMA engine */
    uint32_t msg_sw_ns;        /* host: the MPI library's software per message
                                  (sci_cpu_software; the firmware ignores it) */
    uint32_t copy_MBps;        /* host: the receiver's copy out of its SCI
                                  memory (sci_cpu_copy; 0: free; the
                                  firmware ignores it) */
} sci_timing_t;

/* ------------------------------------------------------------------ */
/* The wire: a frame of SCI packets between two bridges                */
/* ------------------------------------------------------------------ */

#define SCI_MAGIC0 'S'
#define SCI_MAGIC1 'C'
#define SCI_MAGIC2 'I'
#define SCI_VERSION 1u

typedef struct sci_frame_hdr {
    uint8_t       magic[3];
    uint8_t       version;
    uint8_t       rel[16];   /* nic_rel_hdr_t: the core's reliability layer */
    uint32_t      sum;    /* sci_frame_sum of the whole frame, this field zero */
    uint16_t      npkt;
    uint16_t      flags;
    uint32_t      pad;
    uint64_t      sent_ns;   /* timing model: when the last byte is delivered */
} sci_frame_hdr_t;

_Static_assert(sizeof(sci_frame_hdr_t) == 40, "sci_frame_hdr_t layout");

/* Checksum of a frame: four lanes of 64-bit words, each lane rotating
 * and adding, folded at the end.  It catches every single-bit error (the
 * faults the wire injects) and nearly every other one, at a fraction of a
 * cycle per byte (the lanes run side by side). */
static inline uint32_t sci_frame_sum(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    uint64_t h[4] = { len, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull };
    uint64_t w, r;
    size_t i = 0;

    for (; i + 32 <= len; i += 32)
        for (int k = 0; k < 4; k++) {
            __builtin_memcpy(&w, p + i + 8 * k, 8);
            h[k] = ((h[k] << 5) | (h[k] >> 59)) + w;
        }
    for (; i < len; i++)
        h[0] = ((h[0] << 5) | (h[0] >> 59)) + p[i];
    r = h[0] ^ ((h[1] << 16) | (h[1] >> 48)) ^ ((h[2] << 32) | (h[2] >> 32)) ^
        ((h[3] << 48) | (h[3] >> 16));
    return (uint32_t)(r ^ (r >> 32));
}

/* SCI commands of a packet */
enum sci_cmd {
    SCI_CMD_WRITE = 1,       /* data -> addr */
    SCI_CMD_READ_REQ,        /* len bytes at addr; aux = read id */
    SCI_CMD_READ_RESP,       /* data of read aux at byte addr of the read */
    SCI_CMD_INTR,            /* aux = number | data << 32 */
    SCI_CMD_BARRIER,         /* aux = token: answer with BARRIER_ACK */
    SCI_CMD_BARRIER_ACK,     /* aux = token */
};

#define SCI_PKT_F_ERROR 0x1u   /* READ_RESP: the read hit unmapped memory */

typedef struct sci_pkt_hdr {
    uint16_t cmd;         /* enum sci_cmd */
    uint16_t flags;       /* SCI_PKT_F_* */
    uint32_t len;         /* data bytes that follow (padded to 8) */
    uint64_t addr;        /* target upstream offset at the receiver */
    uint64_t aux;
    uint64_t job_key;     /* the sender's job (the receiver's isolation) */
} sci_pkt_hdr_t;

#define SCI_PKT_ALIGN(n)  (((n) + 7u) & ~7u)
/* The largest frame (NIC_WIRE_MTU); a bridge fills its frames up to what
 * one datagram of its wire carries (sci_frame_fit), and a WRITE packet
 * holds whole transactions up to what is left of that. */
#define SCI_FRAME_MAX     9000u

#endif /* SCI_WIRE_H */
