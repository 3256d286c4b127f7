/* sci_dma.c - the bridge's DMA engine and remote reads.
 *
 *   DMA_WRITE  local upstream memory -> downstream address.  Both ends must
 *              carry the endpoint's DMA context tag (P5: checked here, on
 *              the initiator, and only for DMA); a mismatch is a protection
 *              error that moves no data.  Long transfers go on over several
 *              loop turns, keeping their place in the send queue, so they
 *              stay in order with the endpoint's stores.
 *   DMA_READ   tagged like DMA_WRITE; PIO_READ, a CPU load, untagged.  Both
 *              are READ_REQ packets answered by the target bridge into the
 *              endpoint's own exported memory, and counted (remote_reads),
 *              so a test can prove a protocol never reads remotely. */
#include "config.h"

#include <string.h>

#include "sci_fw.h"

#define SCI_DMA_BURST   (256u * 1024u)   /* DMA bytes per loop turn */
#define SCI_DMA_AHEAD   200000ull        /* timing: run at most this far ahead */

/* Tags and translations of a DMA or read: NIC_OK or why it is refused. */
static int check_transfer(sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h)
{
    sci_ep_t *se = sci_ep(ep);
    int rc;

    if (h->op == SCI_OP_PIO_READ) {
        /* A load: untagged; the data goes to the endpoint's own memory. */
        if ((rc = sci_up_check(b, h->local, h->len, 0, 0, ep)) != NIC_OK)
            return rc;
        return sci_down_check(b, ep, h->addr, h->len, 0);
    }
    if (se->dma_tag == 0)
        return NIC_ERR_PROTECTION;
    if ((rc = sci_up_check(b, h->local, h->len, SCI_EXP_DMA, se->dma_tag, NULL)) != NIC_OK)
        return rc;
    return sci_down_check(b, ep, h->addr, h->len, se->dma_tag);
}

/* Timing model: the DMA engine reads n more bytes; returns when they are
 * in the bridge. */
static uint64_t dma_clock(sci_bridge_t *b, uint64_t now, uint32_t n, int first)
{
    const sci_timing_t *t = &b->timing;
    uint64_t start = b->dma_free_ns > now ? b->dma_free_ns : now;
    if (first)
        start += t->dma_setup_ns;
    b->dma_free_ns = start + (t->dma_MBps ? (uint64_t)n * 1000 / t->dma_MBps : 0);
    return b->dma_free_ns;
}

/* Gather n bytes of local upstream memory at addr into dst. */
static int dma_gather(sci_bridge_t *b, uint64_t addr, uint8_t *dst, uint32_t n)
{
    while (n > 0) {
        uint32_t in = (uint32_t)(addr % SCI_UP_PAGE), k = SCI_UP_PAGE - in, skip, got;
        if (k > n)
            k = n;
        const uint8_t *src = sci_up_page(b, addr, k, NIC_MR_LOCAL_READ, &skip, &got, NULL);
        if (src == NULL || skip != 0 || got != k)
            return NIC_ERR_INVALID;   /* unmapped meanwhile */
        memcpy(dst, src, k);
        dst += k;
        addr += k;
        n -= k;
    }
    return NIC_OK;
}

int sci_dma_write(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h)
{
    sci_ep_t *se = sci_ep(ep);
    uint64_t now = nic_now_ns(), ready = now;
    uint32_t burst = 0;
    int rc;

    if (se->head_done == 0) {
        if ((rc = check_transfer(b, ep, h)) != NIC_OK) {
            se->st.protection++;
            sci_cq_done(b, ep, h, rc, 0, 0);
            return 1;
        }
        se->st.dma_ops++;
    }
    while (se->head_done < h->len && burst < SCI_DMA_BURST) {
        uint64_t at = h->addr + se->head_done;
        uint32_t avail, n;
        sci_down_t *d;

        if (b->timing.enabled && b->dma_free_ns > now + SCI_DMA_AHEAD)
            return burst ? 0 : -1;   /* the emulated engine is busy: go on later */
        d = sci_down_lookup(b, ep, at, &avail);
        if (d == NULL) {
            rc = NIC_ERR_INVALID;   /* unimported meanwhile */
            goto fail;
        }
        n = h->len - se->head_done < avail ? (uint32_t)(h->len - se->head_done) : avail;
        if (n > b->pkt_data_max)
            n = b->pkt_data_max;
        if (!sci_peer_room(b, d->node, n, 1))
            return burst ? 0 : -1;   /* the stream's window is full */
        if (b->timing.enabled)
            ready = dma_clock(b, now, n, se->head_done == 0);
        sci_pkt_hdr_t p = { .cmd = SCI_CMD_WRITE, .len = n,
                            .addr = d->remote + at % SCI_DOWN_PAGE, .job_key = ep->job_key };
        uint8_t *dst = sci_peer_packet(fw, b, d->node, &p, sci_txns(at, n), ready);
        if (dst == NULL) {
            rc = NIC_ERR_NO_MEMORY;
            goto fail;
        }
        if ((rc = dma_gather(b, h->local + se->head_done, dst, n)) != NIC_OK) {
            memset(dst, 0, n);   /* the packet leaves, but carries no stale bytes */
            goto fail;
        }
        sci_mark_dirty(se, d->node);
        se->head_done += n;
        se->st.dma_bytes += n;
        burst += n;
    }
    if (se->head_done < h->len)
        return 0;
    sci_cq_done(b, ep, h, NIC_OK, h->len, b->timing.enabled ? b->dma_free_ns : 0);
    se->head_done = 0;
    return 1;
fail:
    sci_cq_done(b, ep, h, rc, se->head_done, 0);
    se->head_done = 0;
    return 1;
}

int sci_read(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h)
{
    sci_ep_t *se = sci_ep(ep);
    sci_read_t *r = NULL;
    uint32_t slot = 0;
    int rc;

    if ((rc = check_transfer(b, ep, h)) != NIC_OK) {
        se->st.protection++;
        sci_cq_done(b, ep, h, rc, 0, 0);
        return 1;
    }
    if (h->len == 0) {
        sci_cq_done(b, ep, h, NIC_OK, 0, 0);
        return 1;
    }
    uint32_t first_avail;
    sci_down_t *first = sci_down_lookup(b, ep, h->addr, &first_avail);
    uint32_t pieces = (uint32_t)(h->len / SCI_DOWN_PAGE) + 2;
    if (!sci_peer_room(b, first->node, 8ull * pieces, pieces))
        return -1;   /* the stream's window is full */
    for (slot = 0; slot < SCI_READS_MAX && r == NULL; slot++)
        if (b->reads[slot].ep == NULL)
            r = &b->reads[slot];
    if (r == NULL)
        return -1;   /* every read slot busy: later */
    slot--;
    r->ep = ep;
    b->nreads++;
    r->gen = (++b->read_gen) & 0xffffff;
    r->op = h->op;
    r->status = NIC_OK;
    r->local = h->local;
    r->len = h->len;
    r->got = 0;
    r->cookie = h->cookie;
    memset(r->from, 0, sizeof(r->from));
    nic_stall_timer_start(&r->waited, nic_now_ns());
    se->cq_reserved++;
    se->st.remote_reads++;
    se->st.read_bytes += h->len;
    if (h->op == SCI_OP_DMA_READ)
        se->st.dma_ops++;
    for (uint64_t off = 0; off < h->len;) {
        uint32_t avail, n;
        sci_down_t *d = sci_down_lookup(b, ep, h->addr + off, &avail);
        uint64_t want;
        n = h->len - off < avail ? (uint32_t)(h->len - off) : avail;
        want = n;
        /* The request carries the byte count it wants as its 8 data bytes. */
        sci_pkt_hdr_t p = { .cmd = SCI_CMD_READ_REQ, .len = sizeof(want),
                            .addr = d->remote + (h->addr + off) % SCI_DOWN_PAGE,
                            .aux = (slot | (uint64_t)r->gen << 8) | off << 32,
                            .job_key = ep->job_key };
        uint8_t *dst = sci_peer_packet(fw, b, d->node, &p, 1, nic_now_ns());
        if (dst != NULL) {
            memcpy(dst, &want, sizeof(want));
            sci_peers_add(r->from, d->node);
        }
        off += n;
    }
    return 1;
}

