/* via_fw_timing.c - the timing model inside the VI firmware.  Component
 * costs (via_timing_t) are charged to three resources that work in
 * parallel, as on the hardware: the sending NIC's processor and host DMA
 * engine, the link, and the receiving NIC's processor and DMA engine.  A
 * frame leaves at once, stamped with the time its last byte would have
 * left; the receiver holds it until its NIC would have placed it.  End-to-end
 * latency and bandwidth are not parameters: they come out of these. */
#include "config.h"

#include "via_fw.h"

#define VIA_T_DESC_BYTES   64u    /* control segment + two data segments */
#define VIA_T_STATUS_BYTES 12u    /* ImmediateData, Length, Status */
#define VIA_T_HDR_BYTES    32u    /* the emulated packet's header on the link */

static uint64_t dma_ns(const via_timing_t *t, uint64_t bytes)
{
    return t->dma_setup_ns + (t->dma_MBps ? bytes * 1000 / t->dma_MBps : 0);
}

static uint64_t wire_ns(const via_timing_t *t, uint64_t bytes)
{
    return t->link_MBps ? bytes * 1000 / t->link_MBps : 0;
}

uint64_t via_timing_tx(via_fw_t *v, uint64_t now, uint32_t payload, int first_of_desc,
                       int last_of_desc)
{
    const via_timing_t *t = &v->timing;
    uint64_t start = now > v->tx_busy_until ? now : v->tx_busy_until;
    uint64_t cost = t->nic_send_ns + (payload ? dma_ns(t, payload) : 0);

    if (first_of_desc && t->desc_dma)
        cost += dma_ns(t, VIA_T_DESC_BYTES);
    v->tx_busy_until = start + cost;
    /* The link takes the packet once it is in NIC memory and the link is
     * free; the stamp is when its last byte leaves. */
    uint64_t lstart = v->tx_busy_until > v->link_busy_until ? v->tx_busy_until : v->link_busy_until;
    v->link_busy_until = lstart + wire_ns(t, payload + VIA_T_HDR_BYTES);
    /* Its last packet handed to the link, the NIC writes the descriptor's
     * Status into host memory, as for a receive: the next packet waits. */
    if (last_of_desc && t->status_dma)
        v->tx_busy_until += dma_ns(t, VIA_T_STATUS_BYTES);
    return v->link_busy_until;
}

uint64_t via_timing_rx(via_fw_t *v, const via_hdr_t *h, uint32_t frame_len)
{
    const via_timing_t *t = &v->timing;
    uint64_t arrive = h->sent_ns + t->switch_ns;
    uint64_t start = arrive > v->rx_busy_until ? arrive : v->rx_busy_until;
    uint64_t cost = t->nic_recv_ns;
    int takes_desc = (h->op == VIA_OP_SEND && h->offset == 0) ||
                     (h->op == VIA_OP_WRITE && (h->flags & VIA_HF_LAST) &&
                      (h->flags & VIA_HF_IMMEDIATE));
    int completes = (h->flags & VIA_HF_LAST) &&
                    (h->op == VIA_OP_SEND || (h->op == VIA_OP_WRITE && (h->flags & VIA_HF_IMMEDIATE)) ||
                     h->op == VIA_OP_READ_RESP);

    (void)frame_len;
    if (takes_desc && t->desc_dma)
        cost += dma_ns(t, VIA_T_DESC_BYTES);
    if (h->len > 0)
        cost += dma_ns(t, h->len);
    if (completes && t->status_dma)
        cost += dma_ns(t, VIA_T_STATUS_BYTES);
    v->rx_busy_until = start + cost;
    return v->rx_busy_until;
}
