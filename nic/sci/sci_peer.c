/* sci_peer.c - the bridges this one talks to, and the frames between them.
 *
 * Packets to one bridge are appended, in the order they were issued, to
 * that bridge's frame being filled; the frame leaves when the next packet
 * does not fit or at the end of the loop turn (sci_peer_flush_all from
 * poll), so stores of one turn share a datagram.  Each frame carries a
 * sequence number per (sender, receiver) pair: the receiver applies frames
 * only in that order and drops duplicates, so remote stores become visible
 * in the order they were issued.  A gap (a lost frame) is counted and
 * logged; recovering from it is the job of a reliability layer below this
 * one (doc/sci.md, "Wire"). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "sci_fw.h"

int sci_peer_get(sci_bridge_t *b, const struct sockaddr_in *addr, int create)
{
    int free_slot = -1;

    for (unsigned i = 0; i < SCI_NODE_MAX; i++) {
        sci_peer_t *p = &b->peer[i];
        if (!p->used) {
            if (free_slot < 0)
                free_slot = (int)i;
            continue;
        }
        if (p->addr.sin_addr.s_addr == addr->sin_addr.s_addr && p->addr.sin_port == addr->sin_port)
            return (int)i;
    }
    if (!create || free_slot < 0)
        return -1;
    sci_peer_t *p = &b->peer[free_slot];
    uint8_t *buf = p->buf;
    memset(p, 0, sizeof(*p));
    p->buf = buf;
    p->used = 1;
    p->addr = *addr;
    p->addr.sin_family = AF_INET;
    p->tx_seq = 1;
    return free_slot;
}

/* Timing model: when the frame's last byte reaches the receiving host.
 * Its transactions went onto the link as they became ready (the host's
 * PIO writes or the DMA engine); the link clocks them out one after the
 * other, and each bridge adds its per-packet work. */
static uint64_t frame_due(sci_bridge_t *b, const sci_peer_t *p)
{
    const sci_timing_t *t = &b->timing;
    uint64_t ntxn = p->ntxn ? p->ntxn : 1;
    uint64_t one = t->link_MBps ? (uint64_t)t->txn_wire_bytes * 1000 / t->link_MBps : 0;
    uint64_t all = one * ntxn;
    uint64_t by_link = b->link_free_ns + all, by_ready = p->ready_ns + one;

    b->link_free_ns = by_link > by_ready ? by_link : by_ready;
    return b->link_free_ns + 2ull * t->bridge_ns;
}

static void peer_flush(nic_fw_t *fw, sci_bridge_t *b, sci_peer_t *p)
{
    sci_frame_hdr_t *h = (sci_frame_hdr_t *)p->buf;

    if (p->len == 0)
        return;
    memset(h, 0, sizeof(*h));
    h->magic[0] = SCI_MAGIC0;
    h->magic[1] = SCI_MAGIC1;
    h->magic[2] = SCI_MAGIC2;
    h->version = SCI_VERSION;
    h->rel.src_fw = b->my_fw;
    h->rel.seq = p->tx_seq++;
    h->rel.kind = SCI_REL_DATA;
    h->rel.flags = h->rel.seq == 1 ? SCI_REL_F_SYN : 0;
    h->npkt = p->npkt;
    if (b->timing.enabled)
        h->sent_ns = frame_due(b, p);
    h->sum = sci_frame_sum(p->buf, p->len);
    struct iovec iov = { p->buf, p->len };
    nic_wire_send(nic_fw_wire(fw), &p->addr, &iov, 1);
    b->st.tx_frames++;
    b->st.tx_packets += p->npkt;
    p->len = 0;
    p->npkt = 0;
    p->ntxn = 0;
    p->ready_ns = 0;
}

uint8_t *sci_peer_packet(nic_fw_t *fw, sci_bridge_t *b, int peer, const sci_pkt_hdr_t *h,
                         uint32_t ntxn, uint64_t ready_ns)
{
    sci_peer_t *p = &b->peer[peer];
    uint32_t need = (uint32_t)sizeof(*h) + SCI_PKT_ALIGN(h->len);
    uint8_t *at;

    if (need + sizeof(sci_frame_hdr_t) > SCI_FRAME_MAX)
        return NULL;
    if (p->buf == NULL && (p->buf = malloc(SCI_FRAME_MAX)) == NULL)
        return NULL;
    if (p->len != 0 && p->len + need > SCI_FRAME_MAX)
        peer_flush(fw, b, p);
    if (p->len == 0)
        p->len = sizeof(sci_frame_hdr_t);
    at = p->buf + p->len;
    memcpy(at, h, sizeof(*h));
    if (SCI_PKT_ALIGN(h->len) != h->len)
        memset(at + sizeof(*h) + h->len, 0, SCI_PKT_ALIGN(h->len) - h->len);
    p->len += need;
    p->npkt++;
    p->ntxn += ntxn;
    if (ready_ns > p->ready_ns)
        p->ready_ns = ready_ns;
    if (!p->queued) {
        p->queued = 1;
        b->flush[b->nflush++] = (uint16_t)peer;
    }
    return at + sizeof(*h);
}

void sci_peer_flush_all(nic_fw_t *fw, sci_bridge_t *b)
{
    for (uint32_t i = 0; i < b->nflush; i++) {
        sci_peer_t *p = &b->peer[b->flush[i]];
        peer_flush(fw, b, p);
        p->queued = 0;
    }
    b->nflush = 0;
}

int sci_peer_accept(sci_bridge_t *b, int peer, const sci_frame_hdr_t *h)
{
    sci_peer_t *p = &b->peer[peer];
    int32_t ahead;

    if (h->rel.src_fw != p->rx_src_fw) {
        /* A bridge we have not heard from, or one that restarted. */
        if (p->rx_src_fw != 0 || !(h->rel.flags & SCI_REL_F_SYN))
            nic_log_info("bridge incarnation %#x starts its stream at frame %u", h->rel.src_fw,
                         h->rel.seq);
        p->rx_src_fw = h->rel.src_fw;
        p->rx_next = h->rel.seq;
    }
    ahead = (int32_t)(h->rel.seq - p->rx_next);
    if (ahead < 0) {
        b->st.rx_duplicates++;
        return 0;
    }
    if (ahead > 0) {
        char addr[64];
        uint64_t now = nic_now_ns();
        b->st.rx_seq_gaps += (uint64_t)ahead;
        if (now - b->gap_logged_ns > 1000000000ull) {
            nic_addr_format(&p->addr, addr, sizeof(addr));
            nic_log_error("%d frame(s) from bridge %s lost: the stores they held are gone "
                          "(no reliability layer under the SCI stream)", (int)ahead, addr);
            b->gap_logged_ns = now;
        }
    }
    p->rx_next = h->rel.seq + 1;
    return 1;
}
