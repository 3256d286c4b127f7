/* myri_lcp_rx.c - the LCP receive thread: check a packet (type, CRC,
 * sequence), then place it in the destination endpoint's in-queue (CQ) and
 * its payload in the copy-block page of that in-queue entry.  A packet that
 * cannot be placed (in-queue full) is not acknowledged, so the sender sends
 * it again later: back-pressure, never loss.  A packet for an endpoint that
 * does not exist or has another job key is refused and the sender's
 * endpoint gets an error report. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "myri_lcp.h"

/* Report a refused packet to its sender (a sequenced frame of its own). */
static int lcp_refuse(nic_fw_t *fw, lcp_t *l, nic_rel_peer_t *p, const myri_hdr_t *in,
                      int status)
{
    myri_hdr_t nak;

    if (in->d.op & (MYRI_OP_ERROR | MYRI_OP_REPLY))
        return NIC_OK;                     /* never report a report; a credit
                                              reply to a closed endpoint is moot */
    memset(&nak, 0, sizeof(nak));
    nak.dst_ep = in->src_ep;
    nak.src_ep = in->dst_ep;
    nak.job_key = in->job_key;
    nak.dst_vnn = in->dst_vnn;
    nak.d = in->d;
    nak.d.op = MYRI_OP_ERROR | (in->d.op & (MYRI_OP_MASK | MYRI_OP_REPLY));
    nak.d.peer = in->dst_vnn;
    nak.d.aux = (uint16_t)(-status);
    nak.d.len = 0;
    return lcp_tx_frame(fw, l, p, &nak, NULL, 0);
}

int lcp_deliver(void *arg, nic_rel_peer_t *p, const struct sockaddr_in *from, uint8_t *frame,
                size_t len)
{
    nic_fw_t *fw = arg;
    lcp_t *l = nic_fw_pers_state(fw);
    myri_hdr_t hdr;
    const myri_hdr_t *h = &hdr;
    const uint8_t *payload = frame + sizeof(hdr);
    uint32_t plen = (uint32_t)(len - sizeof(hdr) - 1);
    nic_fw_ep_t *ep;
    nic_entry_t *slot;
    myri_desc_t *c;
    uint32_t off = 0;

    memcpy(&hdr, frame, sizeof(hdr));
    ep = nic_fw_ep_lookup(fw, h->dst_ep);
    lcp_ep_t *e = ep ? ep->pers : NULL;
    if (ep == NULL || ep->job_key != h->job_key || !e->setup_done) {
        l->c.protection++;
        nic_log_info(nic_fw_log(fw), "refused a packet for endpoint %#x: %s", h->dst_ep,
                     ep == NULL ? "no such endpoint" : "protection key mismatch");
        return lcp_refuse(fw, l, p, h, ep == NULL ? NIC_ERR_NOT_FOUND : NIC_ERR_PROTECTION);
    }
    if (plen != h->d.len || plen > MYRI_PAGE) {
        l->c.bad_frames++;
        return NIC_OK;                     /* malformed: consume and forget */
    }
    slot = nic_ring_slot(&ep->cq);
    if (slot == NULL)
        return NIC_ERR_NO_RESOURCE;
    if (plen > 0) {
        uint8_t *page;
        off = e->setup.recv_offset + nic_ring_index(&ep->cq) * MYRI_PAGE;
        page = nic_fw_mr_lookup(ep, e->setup.copy_key, off, plen, NIC_MR_LOCAL_WRITE);
        if (page == NULL) {
            /* the host deregistered its copy block */
            l->c.protection++;
            return lcp_refuse(fw, l, p, h, NIC_ERR_PROTECTION);
        }
        memcpy(page, payload, plen);
    }
    c = (myri_desc_t *)slot;
    *c = h->d;
    c->key = 0;
    c->offset = off;
    lcp_stamp_in(ep, l->rx_valid_ns);
    nic_fw_cq_commit(ep);
    l->c.rx_data++;
    return NIC_OK;
}

static void lcp_rx_now(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                       size_t len)
{
    lcp_t *l = nic_fw_pers_state(fw);
    uint8_t kind;

    if (len < sizeof(myri_hdr_t) + 1 || (frame[0] & 0x80) || frame[0] != MYRI_TYPE0 ||
        frame[1] != MYRI_TYPE1 || frame[2] != MYRI_TYPE2 || frame[3] != MYRI_TYPE3) {
        l->c.bad_frames++;                 /* a route byte or a foreign type reached us */
        return;
    }
    if (myri_crc8(0, frame, len - 1) != frame[len - 1]) {
        l->c.crc_errors++;                 /* dropped; the sender retransmits */
        return;
    }
    kind = ((const myri_hdr_t *)frame)->kind;
    if (!nic_rel_kind_ours(kind)) {
        l->c.bad_frames++;
        return;
    }
    if (kind == MYRI_KIND_DATA && ((const myri_hdr_t *)frame)->job_key != job) {
        l->c.protection++;                 /* authentic for one job, naming another */
        return;
    }
    /* Sequence, acks, duplicates; in-order packets reach lcp_deliver. */
    nic_rel_rx(l->rel, from, job, frame, len);
}

/* Timing model: when the emulated NIC would have this frame valid in the
 * host's in-queue: after the link and switches, then the receive thread's
 * work and the host DMA of the payload, one frame at a time. */
static uint64_t lcp_due(lcp_t *l, const uint8_t *frame, size_t len)
{
    const myri_timing_t *t = &l->timing;
    myri_hdr_t h;
    uint64_t arrive, start, plen;

    memcpy(&h, frame, sizeof(h));
    plen = len - sizeof(h) - 1;
    arrive = h.sent_ns + lcp_wire_ns(l, plen, h.hops);
    start = arrive > l->rx_busy_until ? arrive : l->rx_busy_until;
    l->rx_busy_until = start + t->lanai_ns_per_pkt_recv +
                       (t->dma_MBps ? plen * 1000 / t->dma_MBps : 0);
    return l->rx_busy_until;
}

/* The frame is handled at once; under the timing model the in-queue entry
 * it becomes carries the time it would be valid, and the host library does
 * not see it before then (myri_gam.c).  So the firmware need not run at
 * that very moment: whatever this emulation takes to get the frame here
 * hides inside the modelled time, as long as it takes less. */
void lcp_rx_frame(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                  size_t len)
{
    lcp_t *l = nic_fw_pers_state(fw);

    l->rx_valid_ns = 0;
    if (l->timing.enabled && len >= sizeof(myri_hdr_t) + 1 &&
        ((myri_hdr_t *)frame)->kind == MYRI_KIND_DATA)
        l->rx_valid_ns = lcp_due(l, frame, len);
    lcp_rx_now(fw, from, job, frame, len);
    l->rx_valid_ns = 0;
}
