/* myri_lcp.h - state of the LANai control program (firmware side). */
#ifndef MYRI_LCP_H
#define MYRI_LCP_H

#include <netinet/in.h>
#include <stdint.h>

#include "../core/nic_fw.h"
#include "../core/nic_rel.h"
#include "myri_fabric.h"
#include "myri_wire.h"

/* Per endpoint. */
typedef struct lcp_ep {
    myri_ctl_setup_t   setup;
    int                setup_done;
    myri_peer_entry_t *peers;         /* [setup.num_vnn] */
    int16_t           *peer_fw;       /* resolved nic_rel peer index, -1 unknown */
    uint64_t           job;           /* the endpoint's job: its streams' */
} lcp_ep_t;

/* The LCP's own counters; the stream's (acks, retransmissions, duplicates,
 * back-pressure, peer failures) are nic_rel's. */
typedef struct lcp_counters {
    uint64_t rx_data, crc_errors, bad_frames;
    uint64_t protection, route_errors, send_errors;
} lcp_counters_t;

typedef struct lcp {
    nic_rel_t     *rel;               /* reliable streams to peer firmwares */
    myri_fabric_t  fab;
    int            have_self;
    uint16_t       self_sw;
    uint8_t        self_port;
    myri_timing_t  timing;
    lcp_counters_t c;
    /* Timing model: when the send and receive threads are free again, and
     * when the frame being received would be valid in the in-queue. */
    uint64_t       tx_busy_until, rx_busy_until, rx_valid_ns;
} lcp_t;

/* Timing model: a host may stamp an entry at most this far ahead of the
 * LCP's clock (a 4 kB copy and the entry's PIO take some 25 us); a stamp
 * further ahead is taken as this, so that a wrong one cannot hold back the
 * frames of others. */
#define LCP_STAMP_AHEAD_MAX_NS 1000000ull

/* myri_lcp_tx.c / myri_lcp_rx.c / myri_lcp_rel.c */
int  lcp_ep_service(nic_fw_t *fw, nic_fw_ep_t *ep);
/* The peer firmware (and hop count) vnn's route reaches, cached per endpoint. */
int  lcp_resolve(nic_fw_t *fw, lcp_t *l, lcp_ep_t *e, int32_t vnn, nic_rel_peer_t **pp,
                 int *hops);
void lcp_rx_frame(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                  size_t len);
/* Timing model: the stamp of out-queue entry idx (in_queue 0) or in-queue
 * entry idx (in_queue 1) in the copy block; NULL if the endpoint has none. */
uint64_t *lcp_stamp(nic_fw_ep_t *ep, int in_queue, uint32_t idx);
/* Stamp the in-queue entry about to be committed (0: valid at once). */
void lcp_stamp_in(nic_fw_ep_t *ep, uint64_t valid_ns);
int  lcp_poll(nic_fw_t *fw, uint64_t now, uint64_t *next);
/* The reliable streams (nic_rel) with the LCP's frame layout. */
int  lcp_rel_create(nic_fw_t *fw, lcp_t *l);
/* nic_rel's deliver(): an in-order data packet for one of our endpoints. */
int  lcp_deliver(void *arg, nic_rel_peer_t *p, const struct sockaddr_in *from, uint8_t *frame,
                 size_t len);
/* Post an error completion for a failed send; 0 if the CQ is full. */
int  lcp_post_error(nic_fw_ep_t *ep, const myri_desc_t *d, int status);
/* Transmit one data frame built from hdr and payload to peer p. */
int  lcp_tx_frame(nic_fw_t *fw, lcp_t *l, nic_rel_peer_t *p, myri_hdr_t *hdr,
                  const void *payload, uint32_t len);
/* Timing model: link and switch time of a packet with this payload over
 * hops switches. */
uint64_t lcp_wire_ns(const lcp_t *l, size_t payload, int hops);

#endif /* MYRI_LCP_H */
