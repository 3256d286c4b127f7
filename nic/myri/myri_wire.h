/*
 * myri_wire.h - the Myrinet emulation: packets, routes, descriptors, and
 * the LCP's configuration calls.  Shared by the LANai control program
 * (myri_lcp.c, firmware side) and the GAM host library (myri_gam.c).
 *
 * A packet leaves the sending NIC as
 *
 *   [route bytes, 0..8] [type, 4] [header] [payload, 0..4096] [CRC-8]
 *
 * Each route byte is 0x80 | (port offset & 0x3f): the MSB marks a route
 * byte, the low six bits are a two's-complement offset from the port the
 * packet entered the switch on.  Each crossbar strips the leading byte and
 * forwards on port in + offset; the packet reaches the NIC with no route
 * byte left, starting with the type word, whose first byte has its MSB
 * clear (ANSI/VITA 26).  The CRC-8 (polynomial x^8+x^2+x+1, 0x07, initial 0)
 * covers type, header and payload; the switches recompute it as they strip
 * bytes, so the receiver checks it over what arrives.
 */
#ifndef MYRI_WIRE_H
#define MYRI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define MYRI_MAX_HOPS      8
#define MYRI_PAGE          4096u     /* bulk piece and copy-block page */
#define MYRI_SWITCH_PORTS  16        /* largest Myrinet crossbar */
#define MYRI_NUM_HANDLERS  32

/* The type word: GAM/LCP traffic.  A VI personality uses another. */
#define MYRI_TYPE0 0x01u
#define MYRI_TYPE1 'L'
#define MYRI_TYPE2 'C'
#define MYRI_TYPE3 'P'

/* Descriptor op (low bits as in Sun-LAM's op_dest). */
#define MYRI_OP_SHORT   0x01u
#define MYRI_OP_MEDIUM  0x0au    /* carries payload in a copy-block page */
#define MYRI_OP_MASK    0x0fu
#define MYRI_OP_REPLY   0x10u    /* reply (returns credits) vs request */
#define MYRI_OP_ERROR   0x40u    /* CQ only: a send failed; aux = -status */

/* One SQ or CQ entry (64 bytes). */
typedef struct myri_desc {
    uint32_t op;
    int32_t  peer;        /* SQ: destination vnn; CQ: source vnn */
    uint16_t handler;
    uint16_t aux;         /* SQ/CQ: credits returned; CQ error: -status */
    uint32_t len;         /* payload bytes (<= MYRI_PAGE) */
    uint32_t key;         /* SQ: region holding the payload; CQ: 0 */
    uint32_t offset;      /* SQ: payload offset in the region; CQ: offset
                             of the payload in the copy block */
    uint64_t arg[5];
} myri_desc_t;

_Static_assert(sizeof(myri_desc_t) == 64, "myri_desc_t is one ring entry");

/* Frame kinds */
enum { MYRI_KIND_DATA = 1, MYRI_KIND_ACK = 2 };
#define MYRI_F_SYN 0x1u           /* first frame of a sender incarnation */

/* What follows the route bytes on the wire. */
typedef struct myri_hdr {
    uint8_t  type[4];
    uint32_t src_fw;      /* sender firmware incarnation (never 0) */
    uint32_t seq;         /* per (sender, receiver) firmware pair; 0 for ACK */
    uint32_t ack;         /* all frames with seq < ack have been received */
    uint8_t  kind;
    uint8_t  flags;       /* MYRI_F_* */
    uint8_t  hops;        /* switches crossed (diagnostics, timing model) */
    uint8_t  pad;
    uint32_t dst_ep;
    uint32_t src_ep;
    int32_t  dst_vnn;     /* destination node number (error reports) */
    uint64_t job_key;     /* protection key of the sending endpoint */
    uint64_t sent_ns;     /* timing model: when the last byte left */
    myri_desc_t d;        /* peer = source vnn on the wire */
} myri_hdr_t;

#define MYRI_FRAME_MAX (sizeof(myri_hdr_t) + MYRI_PAGE + 1)

/* LCP configuration calls (nic_ep_ctl op numbers). */
enum {
    MYRI_CTL_SETUP  = 1,   /* myri_ctl_setup_t */
    MYRI_CTL_PEERS  = 2,   /* myri_ctl_peers_t + entries */
    MYRI_CTL_FABRIC = 3,   /* myri_fabric_item_t[] */
    MYRI_CTL_TIMING = 4,   /* myri_timing_t: the timing model (firmware-wide) */
};

typedef struct myri_ctl_setup {
    int32_t  my_vnn;         /* this endpoint's node number in the job */
    uint32_t num_vnn;        /* size of the peer table */
    uint32_t copy_key;       /* region of the copy block */
    uint32_t recv_offset;    /* receive partition: page i at recv_offset + i*4096 */
    uint32_t stamp_offset;   /* timing model: the stamps (myri_stamps_t) in the
                                copy block; 0: none */
    uint32_t pad;
} myri_ctl_setup_t;

/* Timing model: when the emulated hardware would see each queue entry.  An
 * array of uint64_t (CLOCK_MONOTONIC ns) in the copy block, one per out-queue
 * entry (written by the host before it rings the doorbell: when the last
 * PIO write of the entry would have landed in NIC SRAM), then one per
 * in-queue entry (written by the LCP before it commits the entry: when the
 * receive thread would have marked it valid).  0: at once.  The emulation
 * may move an entry early; its stamp says when the model lets it count, so
 * the emulation's own hand-off delays hide inside modelled time. */
#define MYRI_STAMPS_BYTES(sq_n, cq_n) (((uint64_t)(sq_n) + (cq_n)) * sizeof(uint64_t))

typedef struct myri_peer_entry {
    uint32_t ep_id;          /* remote endpoint */
    uint8_t  route_len;      /* 0..8 */
    uint8_t  valid;
    uint8_t  pad[2];
    uint8_t  route[MYRI_MAX_HOPS];
} myri_peer_entry_t;

typedef struct myri_ctl_peers {
    uint32_t first_vnn;
    uint32_t count;
    myri_peer_entry_t e[];
} myri_ctl_peers_t;

/* Fabric description: which NIC sits on which switch port (with its wire
 * address), and which switch ports are cabled together. */
enum { MYRI_FAB_ATTACH = 1, MYRI_FAB_LINK = 2 };
typedef struct myri_fabric_item {
    uint8_t  kind;
    uint8_t  port_a;
    uint16_t sw_a;
    uint16_t sw_b;           /* LINK */
    uint8_t  port_b;         /* LINK */
    uint8_t  pad;
    uint32_t ip;             /* ATTACH: network order */
    uint16_t udp_port;       /* ATTACH: network order */
    uint16_t pad2;
} myri_fabric_item_t;

/* Timing model of the emulated hardware (all 0: off).  Component costs
 * only; see doc/nic.md "Timing model" for their sources. */
typedef struct myri_timing {
    uint32_t enabled;
    uint32_t link_MBps;          /* link rate, 1e6 bytes/s */
    uint32_t lanai_ns_per_pkt_send;  /* LCP send-thread work per packet */
    uint32_t lanai_ns_per_pkt_recv;  /* LCP receive-thread work per packet */
    uint32_t switch_ns;          /* cut-through delay per crossbar */
    uint32_t dma_MBps;           /* host-DMA engine rate */
    uint32_t dma_ns_per_burst;   /* set-up per 8-word burst */
    uint32_t pad;
} myri_timing_t;

uint8_t myri_crc8(uint8_t crc, const void *data, size_t len);
/* The same with the tables only (the reference for the carry-less path). */
uint8_t myri_crc8_tables(uint8_t crc, const void *data, size_t len);

/* Route byte for a port offset (-32..31). */
static inline uint8_t myri_route_byte(int offset)
{
    return (uint8_t)(0x80u | ((unsigned)offset & 0x3fu));
}

/* The signed offset a route byte carries. */
static inline int myri_route_offset(uint8_t b)
{
    int v = b & 0x3f;
    return v >= 32 ? v - 64 : v;
}

#endif /* MYRI_WIRE_H */
