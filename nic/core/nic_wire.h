/*
 * nic_wire.h - the wire between firmwares: UDP datagrams, one frame each,
 * with fault injection applied on transmit (tests only; all rates 0 by
 * default).  Every firmware binds its own address, so several emulated
 * nodes share one host on loopback and the same code runs across hosts.
 */
#ifndef NIC_WIRE_H
#define NIC_WIRE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define NIC_WIRE_MTU 9000u     /* largest frame a personality may send */
#define NIC_WIRE_RX_BATCH 32   /* frames taken per receive call */
#define NIC_WIRE_TX_BATCH 32   /* frames handed over per send call */

/* Fault injection: probabilities in [0, 1], applied per transmitted frame.
 * Environment: MULTIDEV_NIC_FAULT_DROP, _DUP, _REORDER, _CORRUPT, _SEED. */
typedef struct nic_fault {
    double   drop, dup, reorder, corrupt;
    uint64_t seed;
} nic_fault_t;

typedef struct nic_wire_stats {
    uint64_t tx_frames, tx_bytes, rx_frames, rx_bytes;
    uint64_t tx_errors;
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
    uint8_t           *rx_bufs;         /* NIC_WIRE_RX_BATCH x NIC_WIRE_MTU */
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
/* Release a frame held back for reordering if it waited too long. */
int  nic_wire_flush(nic_wire_t *w, uint64_t now_ns);
/* Receive up to max frames without blocking; calls fn for each. */
typedef void (*nic_wire_rx_fn)(void *arg, const struct sockaddr_in *from,
                               uint8_t *frame, size_t len);
int  nic_wire_recv(nic_wire_t *w, int max, nic_wire_rx_fn fn, void *arg);

/* "ip:port" <-> sockaddr_in */
int  nic_addr_parse(const char *text, struct sockaddr_in *sa);
void nic_addr_format(const struct sockaddr_in *sa, char *buf, size_t len);

#endif /* NIC_WIRE_H */
