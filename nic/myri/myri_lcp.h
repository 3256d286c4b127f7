/* myri_lcp.h - state of the LANai control program (firmware side). */
#ifndef MYRI_LCP_H
#define MYRI_LCP_H

#include <netinet/in.h>
#include <stdint.h>

#include "../core/nic_fw.h"
#include "myri_fabric.h"
#include "myri_wire.h"

#define LCP_MAX_PEERS 256     /* peer firmwares */
#define LCP_WINDOW    128     /* unacknowledged frames per peer firmware */

typedef struct lcp_frame {
    uint32_t seq;
    uint32_t len;
    uint64_t sent_ns;
    uint8_t  buf[MYRI_FRAME_MAX];
} lcp_frame_t;

/* Reliable, ordered stream to and from one peer firmware. */
typedef struct lcp_peer {
    struct sockaddr_in addr;
    int          used, dead;
    /* transmit */
    uint32_t     tx_next, tx_una, tx_first;
    lcp_frame_t *win;                 /* [LCP_WINDOW], slot = seq % LCP_WINDOW */
    uint64_t     rto_ns, progress_ns;
    int          dupacks;
    /* receive */
    uint32_t     rx_src_fw, rx_next, ack_owed;
    uint64_t     ack_due_ns, dupack_ns;
} lcp_peer_t;

/* Per endpoint. */
typedef struct lcp_ep {
    myri_ctl_setup_t   setup;
    int                setup_done;
    myri_peer_entry_t *peers;         /* [setup.num_vnn] */
    int16_t           *peer_fw;       /* resolved lcp_peer index, -1 unknown, -2 bad route */
} lcp_ep_t;

typedef struct lcp_counters {
    uint64_t tx_data, tx_acks, rx_data, rx_acks, retransmits;
    uint64_t crc_errors, bad_frames, duplicates, out_of_order, backpressure;
    uint64_t protection, route_errors, peer_failures, send_errors;
} lcp_counters_t;

/* Timing model: a received frame waits here until the emulated hardware
 * would have delivered it. */
#define LCP_DELAY_SLOTS 512
typedef struct lcp_delayed {
    uint64_t           due_ns;
    struct sockaddr_in from;
    uint32_t           len;
    uint8_t            buf[MYRI_FRAME_MAX];
} lcp_delayed_t;

typedef struct lcp {
    uint32_t       my_fw;             /* incarnation id */
    myri_fabric_t  fab;
    int            have_self;
    uint16_t       self_sw;
    uint8_t        self_port;
    lcp_peer_t     peer[LCP_MAX_PEERS];
    myri_timing_t  timing;
    lcp_counters_t c;
    uint64_t       rto_init_ns, rto_max_ns, peer_timeout_ns, ack_delay_ns;
    uint64_t       tx_busy_until, rx_busy_until;   /* timing model */
    lcp_delayed_t *delay;                          /* [LCP_DELAY_SLOTS] */
    uint32_t       delay_head, delay_tail;
} lcp_t;

/* myri_lcp_tx.c / myri_lcp_rx.c / myri_lcp_rel.c */
int  lcp_ep_service(nic_fw_t *fw, nic_fw_ep_t *ep);
void lcp_rx_frame(nic_fw_t *fw, const struct sockaddr_in *from, uint8_t *frame, size_t len);
/* Timing model: deliver delayed frames that are due. */
int  lcp_rx_delayed(nic_fw_t *fw, lcp_t *l, uint64_t now, uint64_t *next);
int  lcp_poll(nic_fw_t *fw, uint64_t now, uint64_t *next);
lcp_peer_t *lcp_peer_get(lcp_t *l, const struct sockaddr_in *addr, int create);
void lcp_send_ack(nic_fw_t *fw, lcp_t *l, lcp_peer_t *p);
void lcp_peer_acked(lcp_t *l, lcp_peer_t *p, uint32_t ack, int pure_ack);
/* Post an error completion for a failed send; 0 if the CQ is full. */
int  lcp_post_error(nic_fw_ep_t *ep, const myri_desc_t *d, int status);
/* Transmit one data frame built from hdr and payload to peer p. */
int  lcp_tx_frame(nic_fw_t *fw, lcp_t *l, lcp_peer_t *p, myri_hdr_t *hdr, const void *payload,
                  uint32_t len);
/* Timing model: wire time of a frame of len bytes over hops switches. */
uint64_t lcp_wire_ns(const lcp_t *l, size_t len, int hops);

#endif /* MYRI_LCP_H */
