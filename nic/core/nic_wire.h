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
 */
#ifndef NIC_WIRE_H
#define NIC_WIRE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define NIC_WIRE_MTU 9000u     /* largest frame a personality may send */
#define NIC_WIRE_RX_BATCH 32   /* datagrams (or GRO trains) per receive call */
#define NIC_WIRE_RX_BUF 65536u /* one receive buffer: a datagram or a train */
#define NIC_WIRE_TX_BATCH 64   /* frames handed over per send call */
#define NIC_WIRE_GSO_MAX_SEGS 64u      /* frames in one GSO super-datagram */
#define NIC_WIRE_GSO_MAX_BYTES 65000u  /* it is one IP datagram until cut */

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
} nic_wire_stats_t;

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
    /* frames queued by nic_wire_send_stable, sent by nic_wire_flush_tx */
    struct sockaddr_in tx_to[NIC_WIRE_TX_BATCH];
    struct iovec       tx_iov[NIC_WIRE_TX_BATCH];
    unsigned           tx_n;
    nic_wire_stats_t   st;
} nic_wire_t;

int  nic_wire_open(nic_wire_t *w, const char *ip, uint16_t port,
                   const nic_fault_t *fault);
void nic_wire_close(nic_wire_t *w);
/* Send one frame made of iov pieces (fault injection applies). */
int  nic_wire_send(nic_wire_t *w, const struct sockaddr_in *to,
                   const struct iovec *iov, int iovcnt);
/* Queue a frame whose buffer stays valid and unchanged until the next
 * nic_wire_flush_tx(); several go out in one system call.  Frames queued
 * this way keep their order among themselves. */
int  nic_wire_send_stable(nic_wire_t *w, const struct sockaddr_in *to, const void *buf,
                          size_t len);
/* Send what nic_wire_send_stable queued (the firmware loop calls it at the
 * end of every turn). */
int  nic_wire_flush_tx(nic_wire_t *w);
/* Use GSO/GRO where the kernel offers them (on: the default) or never. */
void nic_wire_set_offload(nic_wire_t *w, int on);
/* The number of queued frames from index i on that can leave as one GSO
 * super-datagram: same destination and length, and at most one shorter
 * frame at the end, within NIC_WIRE_GSO_MAX_SEGS and _BYTES. */
unsigned nic_wire_gso_run(const struct sockaddr_in *to, const struct iovec *iov, unsigned n,
                          unsigned i);
/* Release a frame held back for reordering if it waited too long. */
int  nic_wire_flush(nic_wire_t *w, uint64_t now_ns);
/* Receive up to max datagrams without blocking; calls fn for each frame,
 * then done (if not NULL) once per receive system call: the frames of
 * that call stay in the wire's buffers until done returns, no longer.
 * Every frame starts 8-byte aligned (frames of a GRO train that do not
 * are copied). */
typedef void (*nic_wire_rx_fn)(void *arg, const struct sockaddr_in *from,
                               uint8_t *frame, size_t len);
typedef void (*nic_wire_rx_done_fn)(void *arg);
int  nic_wire_recv(nic_wire_t *w, int max, nic_wire_rx_fn fn, nic_wire_rx_done_fn done,
                   void *arg);
/* Whether p points into the wire's receive buffers. */
int  nic_wire_rx_holds(const nic_wire_t *w, const void *p);

/* "ip:port" <-> sockaddr_in */
int  nic_addr_parse(const char *text, struct sockaddr_in *sa);
void nic_addr_format(const struct sockaddr_in *sa, char *buf, size_t len);

#endif /* NIC_WIRE_H */
