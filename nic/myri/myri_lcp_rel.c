/* myri_lcp_rel.c - reliability between firmwares: per peer firmware a
 * sequence-numbered stream with cumulative acknowledgements, delayed and
 * piggy-backed acks, go-back-N retransmission on timeout (exponential
 * back-off) or on three duplicate acks, and declaring the peer dead when
 * nothing is acknowledged for MULTIDEV_MYRI_PEER_TIMEOUT_MS: every send
 * still outstanding to it completes with NIC_ERR_PEER_FAILED. */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "myri_lcp.h"

#define LCP_RETX_BURST 32

lcp_peer_t *lcp_peer_get(lcp_t *l, const struct sockaddr_in *addr, int create)
{
    lcp_peer_t *free_slot = NULL;

    for (unsigned i = 0; i < LCP_MAX_PEERS; i++) {
        lcp_peer_t *p = &l->peer[i];
        if (!p->used) {
            if (free_slot == NULL)
                free_slot = p;
            continue;
        }
        if (p->addr.sin_addr.s_addr == addr->sin_addr.s_addr && p->addr.sin_port == addr->sin_port)
            return p;
    }
    if (!create || free_slot == NULL)
        return NULL;
    lcp_frame_t *win = free_slot->win;
    memset(free_slot, 0, sizeof(*free_slot));
    free_slot->win = win;
    free_slot->used = 1;
    free_slot->addr = *addr;
    free_slot->tx_next = free_slot->tx_una = free_slot->tx_first = 1;
    free_slot->rto_ns = l->rto_init_ns;
    return free_slot;
}

void lcp_send_ack(nic_fw_t *fw, lcp_t *l, lcp_peer_t *p)
{
    uint8_t buf[sizeof(myri_hdr_t) + 1];
    myri_hdr_t h;

    memset(&h, 0, sizeof(h));
    h.type[0] = MYRI_TYPE0;
    h.type[1] = MYRI_TYPE1;
    h.type[2] = MYRI_TYPE2;
    h.type[3] = MYRI_TYPE3;
    h.src_fw = l->my_fw;
    h.ack = p->rx_next;
    h.kind = MYRI_KIND_ACK;
    memcpy(buf, &h, sizeof(h));
    buf[sizeof(h)] = myri_crc8(0, buf, sizeof(h));
    struct iovec iov = { buf, sizeof(buf) };
    nic_wire_send(nic_fw_wire(fw), &p->addr, &iov, 1);
    p->ack_owed = 0;
    l->c.tx_acks++;
}

void lcp_peer_acked(lcp_t *l, lcp_peer_t *p, uint32_t ack, int pure_ack)
{
    /* Only an ack inside (una, next] moves the window. */
    if ((int32_t)(ack - p->tx_una) <= 0 || (int32_t)(ack - p->tx_next) > 0) {
        if (pure_ack && ack == p->tx_una && p->tx_una != p->tx_next)
            p->dupacks++;
        return;
    }
    p->tx_una = ack;
    p->dupacks = 0;
    p->progress_ns = nic_now_ns();
    p->rto_ns = l->rto_init_ns;
}

static void lcp_retransmit(nic_fw_t *fw, lcp_t *l, lcp_peer_t *p, uint64_t now)
{
    unsigned n = 0;
    for (uint32_t s = p->tx_una; s != p->tx_next && n < LCP_RETX_BURST; s++, n++) {
        lcp_frame_t *f = &p->win[s % LCP_WINDOW];
        myri_hdr_t *h = (myri_hdr_t *)f->buf;
        /* Refresh the piggy-backed ack (and so the CRC). */
        h->ack = p->rx_next;
        if (l->timing.enabled)
            h->sent_ns = now > l->tx_busy_until ? now : l->tx_busy_until;
        f->buf[f->len - 1] = myri_crc8(0, f->buf, f->len - 1);
        f->sent_ns = now;
        struct iovec iov = { f->buf, f->len };
        nic_wire_send(nic_fw_wire(fw), &p->addr, &iov, 1);
        l->c.retransmits++;
    }
    p->ack_owed = 0;
}

/* Nothing acknowledged for the peer timeout: report every outstanding send
 * to its endpoint and forget the stream. */
static void lcp_peer_fail(nic_fw_t *fw, lcp_t *l, lcp_peer_t *p)
{
    char addr[64];
    unsigned lost = 0;

    nic_addr_format(&p->addr, addr, sizeof(addr));
    for (uint32_t s = p->tx_una; s != p->tx_next; s++) {
        myri_hdr_t *h = (myri_hdr_t *)p->win[s % LCP_WINDOW].buf;
        nic_fw_ep_t *ep = nic_fw_ep_lookup(fw, h->src_ep);
        if (ep != NULL && !(h->d.op & MYRI_OP_ERROR)) {
            myri_desc_t d = h->d;
            d.peer = h->dst_vnn;
            lcp_post_error(ep, &d, NIC_ERR_PEER_FAILED);
        }
        lost++;
    }
    nic_log_warn("peer firmware %s answered nothing for %llu ms: declared dead, %u "
                 "packet(s) reported failed", addr,
                 (unsigned long long)(l->peer_timeout_ns / 1000000ull), lost);
    l->c.peer_failures++;
    p->dead = 1;
    p->tx_una = p->tx_next;
    p->tx_first = p->tx_next;     /* a later stream starts with a new SYN */
}

int lcp_poll(nic_fw_t *fw, uint64_t now, uint64_t *next)
{
    lcp_t *l = nic_fw_pers_state(fw);
    int events = 0;

    if (l->delay_head != l->delay_tail)
        events += lcp_rx_delayed(fw, l, now, next);
    for (unsigned i = 0; i < LCP_MAX_PEERS; i++) {
        lcp_peer_t *p = &l->peer[i];
        if (!p->used)
            continue;
        if (p->ack_owed > 0) {
            if (now >= p->ack_due_ns) {
                lcp_send_ack(fw, l, p);
                events++;
            } else if (p->ack_due_ns < *next) {
                *next = p->ack_due_ns;
            }
        }
        if (p->tx_una == p->tx_next)
            continue;
        if (now - p->progress_ns >= l->peer_timeout_ns) {
            lcp_peer_fail(fw, l, p);
            events++;
            continue;
        }
        lcp_frame_t *oldest = &p->win[p->tx_una % LCP_WINDOW];
        if (p->dupacks >= 3 || now - oldest->sent_ns >= p->rto_ns) {
            if (p->dupacks < 3)
                p->rto_ns = p->rto_ns * 2 < l->rto_max_ns ? p->rto_ns * 2 : l->rto_max_ns;
            p->dupacks = 0;
            lcp_retransmit(fw, l, p, now);
            events++;
        }
        uint64_t due = oldest->sent_ns + p->rto_ns;
        if (due < *next)
            *next = due;
    }
    return events;
}
