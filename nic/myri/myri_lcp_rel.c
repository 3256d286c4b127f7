/* myri_lcp_rel.c - the LCP on the core's reliable streams (nic_rel): the
 * Myrinet packet layout for acknowledgements, the CRC-8 and timing stamp
 * refreshed whenever a packet (re)leaves, and error reports for packets a
 * dead peer will never acknowledge: every send still outstanding to it
 * completes with NIC_ERR_PEER_FAILED. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "myri_lcp.h"

/* The stream header sits right after the type word, in the fields
 * myri_hdr_t names src_fw .. flags. */
_Static_assert(offsetof(myri_hdr_t, src_fw) == 4, "nic_rel header offset");
_Static_assert(offsetof(myri_hdr_t, seq) == 4 + offsetof(nic_rel_hdr_t, seq), "seq");
_Static_assert(offsetof(myri_hdr_t, ack) == 4 + offsetof(nic_rel_hdr_t, ack), "ack");
_Static_assert(offsetof(myri_hdr_t, kind) == 4 + offsetof(nic_rel_hdr_t, kind), "kind");
_Static_assert(offsetof(myri_hdr_t, flags) == 4 + offsetof(nic_rel_hdr_t, flags), "flags");
_Static_assert((int)MYRI_KIND_DATA == (int)NIC_REL_KIND_DATA &&
               (int)MYRI_KIND_ACK == (int)NIC_REL_KIND_ACK && MYRI_F_SYN == NIC_REL_F_SYN,
               "frame kinds");

static size_t lcp_ack_frame(void *arg, uint8_t *buf, size_t cap)
{
    myri_hdr_t *h = (myri_hdr_t *)buf;

    if (cap < sizeof(myri_hdr_t) + 1)
        return 0;
    memset(h, 0, sizeof(*h));
    h->type[0] = MYRI_TYPE0;
    h->type[1] = MYRI_TYPE1;
    h->type[2] = MYRI_TYPE2;
    h->type[3] = MYRI_TYPE3;
    return sizeof(myri_hdr_t) + 1;
}

static void lcp_seal(void *arg, uint8_t *frame, size_t len, uint64_t now, int what)
{
    lcp_t *l = nic_fw_pers_state(arg);
    myri_hdr_t *h = (myri_hdr_t *)frame;

    if (l->timing.enabled && what == NIC_REL_SEAL_FIRST) {
        /* The send thread's work and the host DMA of the payload into SRAM,
         * from when the entry was ready in the out-queue (sent_ns holds that
         * on the way in; 0: now) and the NIC is free; then the link clocks
         * the packet out.  The frame travels at once, stamped; the receiver
         * stamps the in-queue entry with when the emulated hardware would
         * have delivered it. */
        const myri_timing_t *t = &l->timing;
        uint64_t plen = len - sizeof(myri_hdr_t) - 1;
        uint64_t ready = h->sent_ns != 0 ? h->sent_ns : now;
        uint64_t start = ready > l->tx_busy_until ? ready : l->tx_busy_until;
        uint64_t dma = t->dma_MBps ? plen * 1000 / t->dma_MBps : 0;
        uint64_t sent = start + t->lanai_ns_per_pkt_send + dma;
        l->tx_busy_until = sent + lcp_wire_ns(l, plen, h->hops);
        h->sent_ns = sent;
    } else if (l->timing.enabled && what == NIC_REL_SEAL_RETRANSMIT) {
        h->sent_ns = now > l->tx_busy_until ? now : l->tx_busy_until;
    }
    frame[len - 1] = myri_crc8(0, frame, len - 1);
}

static void lcp_lost(void *arg, const uint8_t *frame, size_t len, int status)
{
    const myri_hdr_t *h = (const myri_hdr_t *)frame;
    nic_fw_ep_t *ep = nic_fw_ep_lookup(arg, h->src_ep);

    if (ep != NULL && !(h->d.op & MYRI_OP_ERROR)) {
        myri_desc_t d = h->d;
        d.peer = h->dst_vnn;
        lcp_post_error(ep, &d, status);
    }
}

int lcp_rel_create(nic_fw_t *fw, lcp_t *l)
{
    nic_rel_config_t cfg = {
        .hdr_off = offsetof(myri_hdr_t, src_fw),
        .frame_max = MYRI_FRAME_MAX,
        .ack_tail = 1,          /* the CRC byte: a SACK block goes before it */
    };
    nic_rel_ops_t ops = {
        .ack_frame = lcp_ack_frame,
        .seal = lcp_seal,
        .deliver = lcp_deliver,
        .lost = lcp_lost,
    };
    return nic_rel_create(fw, &cfg, &ops, fw, &l->rel);
}

int lcp_poll(nic_fw_t *fw, uint64_t now, uint64_t *next)
{
    lcp_t *l = nic_fw_pers_state(fw);
    return nic_rel_poll(l->rel, now, next);
}
