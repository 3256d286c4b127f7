/* sci_rx.c - the bridge's receive side: frames from other bridges, applied
 * in the order each sender issued them.
 *
 *   WRITE      translated page by page through the upstream ATT; bytes
 *              outside the exported segment are clipped, pages nobody
 *              exported are dropped (counted).  No tag is checked here
 *              (P5: the remote side checks nothing and cannot tell DMA from
 *              PIO); the only check is the emulation's job isolation: the
 *              packet's job key must be that of the exporting endpoint.
 *              Each packet is complete, and ordered after the one before,
 *              before the next one is looked at (a release fence; small
 *              aligned stores are single atomic stores, so a flag written
 *              after data is never seen before that data).
 *   READ_REQ   answered with READ_RESP packets (counted: remote reads).
 *   READ_RESP  lands in the reader's memory; the read completes when whole.
 *   INTR       a CQE to the endpoint that created the interrupt.
 *   BARRIER    answered with BARRIER_ACK: everything before it is applied.
 *
 * A host asleep on its wake descriptor is woken after each frame that wrote
 * its memory (nic_fw_ep_mem_written): the emulation's stand-in for a host
 * that spins on its memory, so that an idle rank need not occupy a CPU.
 *
 * Timing model: a frame is held until the time its sender stamped on it. */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "sci_fw.h"

#define SCI_READ_WANT_MAX (1u << 20)

/* Copy a piece of a WRITE: a single aligned word becomes one atomic store,
 * so a host polling it with an atomic load sees all or nothing. */
static void store_bytes(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    if (n == 8 && ((uintptr_t)dst & 7) == 0) {
        uint64_t v;
        memcpy(&v, src, 8);
        atomic_store_explicit((_Atomic uint64_t *)dst, v, memory_order_release);
    } else if (n == 4 && ((uintptr_t)dst & 3) == 0) {
        uint32_t v;
        memcpy(&v, src, 4);
        atomic_store_explicit((_Atomic uint32_t *)dst, v, memory_order_release);
    } else {
        memcpy(dst, src, n);
        atomic_thread_fence(memory_order_release);
    }
}

/* The endpoint whose memory the frame wrote so far; a sleeping host is
 * woken once per frame and endpoint, after the frame's stores. */
static void rx_written(nic_fw_ep_t **written, nic_fw_ep_t *ep)
{
    if (*written == ep)
        return;
    if (*written != NULL)
        nic_fw_ep_mem_written(*written);
    *written = ep;
}

static void rx_write(sci_bridge_t *b, const sci_pkt_hdr_t *p, const uint8_t *data,
                     nic_fw_ep_t **written)
{
    uint64_t addr = p->addr;
    uint32_t left = p->len;
    nic_fw_ep_t *counted = NULL;

    while (left > 0) {
        uint32_t in = (uint32_t)(addr % SCI_UP_PAGE), k = SCI_UP_PAGE - in, skip, got;
        sci_up_t *e = NULL;
        uint8_t *dst;

        if (k > left)
            k = left;
        dst = sci_up_page(b, addr, k, NIC_MR_REMOTE_WRITE, &skip, &got, &e);
        if (dst == NULL || !(e->flags & SCI_EXP_REMOTE)) {
            b->st.rx_unmapped++;
        } else if (e->ep->job_key != p->job_key) {
            b->st.rx_foreign_job++;
        } else {
            if (got < k)
                b->st.rx_clipped++;
            store_bytes(dst, data + skip, got);
            rx_written(written, e->ep);
            sci_ep(e->ep)->st.rx_bytes += got;
            if (counted != e->ep) {
                sci_ep(e->ep)->st.rx_writes++;
                counted = e->ep;
            }
        }
        addr += k;
        data += k;
        left -= k;
    }
}

static void rx_read_req(nic_fw_t *fw, sci_bridge_t *b, int peer, const sci_pkt_hdr_t *p,
                        const uint8_t *data)
{
    uint64_t want, done = 0;

    if (p->len != sizeof(want)) {
        b->st.rx_bad++;
        return;
    }
    memcpy(&want, data, sizeof(want));
    if (want > SCI_READ_WANT_MAX)
        want = SCI_READ_WANT_MAX;
    while (done < want) {
        uint32_t n = want - done < b->pkt_data_max ? (uint32_t)(want - done) : b->pkt_data_max;
        sci_pkt_hdr_t r = { .cmd = SCI_CMD_READ_RESP, .len = n,
                            .addr = (p->aux >> 32) + done, .aux = p->aux & 0xffffffffu,
                            .job_key = p->job_key };
        uint8_t *dst = sci_peer_packet(fw, b, peer, &r, sci_txns(p->addr + done, n), nic_now_ns());
        sci_pkt_hdr_t *rh;
        uint64_t addr = p->addr + done;

        if (dst == NULL)
            return;
        rh = (sci_pkt_hdr_t *)(dst - sizeof(*rh));
        for (uint32_t off = 0; off < n;) {
            uint32_t in = (uint32_t)((addr + off) % SCI_UP_PAGE), k = SCI_UP_PAGE - in, skip, got;
            sci_up_t *e = NULL;
            const uint8_t *src;
            if (k > n - off)
                k = n - off;
            src = sci_up_page(b, addr + off, k, NIC_MR_REMOTE_READ, &skip, &got, &e);
            if (src == NULL || !(e->flags & SCI_EXP_REMOTE) || e->ep->job_key != p->job_key ||
                skip != 0 || got != k) {
                /* A master abort reads as all ones. */
                memset(dst + off, 0xff, k);
                rh->flags |= SCI_PKT_F_ERROR;
                b->st.rx_unmapped++;
            } else {
                memcpy(dst + off, src, k);
                if (off == 0 && done == 0)
                    sci_ep(e->ep)->st.rx_reads_served++;
            }
            off += k;
        }
        done += n;
    }
}

static void rx_read_resp(sci_bridge_t *b, const sci_pkt_hdr_t *p, const uint8_t *data)
{
    uint32_t slot = (uint32_t)(p->aux & 0xff), gen = (uint32_t)(p->aux >> 8) & 0xffffff;
    sci_read_t *r = &b->reads[slot];
    uint64_t at;
    uint32_t left = p->len;

    if (r->ep == NULL || r->gen != gen || p->addr > r->len || p->len > r->len - p->addr) {
        b->st.rx_bad++;   /* stale (timed out) or not ours */
        return;
    }
    if (p->flags & SCI_PKT_F_ERROR)
        r->status = NIC_ERR_INVALID;
    at = r->local + p->addr;
    while (left > 0) {
        uint32_t in = (uint32_t)(at % SCI_UP_PAGE), k = SCI_UP_PAGE - in, skip, got;
        uint8_t *dst;
        if (k > left)
            k = left;
        dst = sci_up_page(b, at, k, NIC_MR_LOCAL_WRITE, &skip, &got, NULL);
        if (dst == NULL || skip != 0 || got != k)
            r->status = NIC_ERR_INVALID;   /* unexported meanwhile */
        else
            store_bytes(dst, data, k);
        at += k;
        data += k;
        left -= k;
    }
    r->got += p->len;
    if (r->got >= r->len)
        sci_waits_read_end(b, r, r->status);
}

static void rx_intr(sci_bridge_t *b, int peer, const sci_pkt_hdr_t *p)
{
    uint32_t no = (uint32_t)p->aux;
    nic_fw_ep_t *ep = no < SCI_INTR_MAX ? b->intr[no].ep : NULL;
    sci_peer_t *src = &b->peer[peer];

    if (ep == NULL) {
        b->st.rx_unmapped++;
        return;
    }
    if (ep->job_key != p->job_key) {
        b->st.rx_foreign_job++;
        return;
    }
    sci_cqe_t c = { .kind = SCI_CQ_INTR, .intr_no = no, .intr_data = (uint32_t)(p->aux >> 32),
                    .from = sci_node_pack((sci_node_t){ src->addr.sin_addr.s_addr,
                                                        src->addr.sin_port }) };
    if (nic_ring_space(&ep->cq) <= sci_ep(ep)->cq_reserved || !sci_cq_post(ep, &c)) {
        if (b->st.intr_dropped++ == 0)
            nic_log_warn(b->log, "endpoint %#x: completion queue full, remote interrupt %u dropped "
                         "(counted as intr_dropped)", ep->id, no);
        return;
    }
    sci_ep(ep)->st.rx_intr++;
}

/* Walk the packets of a frame: fn for each (NULL: only check the shape).
 * Returns the number of packets, or -1 if the frame is malformed. */
static int for_each_packet(const uint8_t *frame, size_t len,
                           void (*fn)(void *arg, const sci_pkt_hdr_t *p, const uint8_t *data),
                           void *arg)
{
    sci_frame_hdr_t fh;
    size_t off = sizeof(fh);

    memcpy(&fh, frame, sizeof(fh));
    for (unsigned i = 0; i < fh.npkt; i++) {
        sci_pkt_hdr_t p;
        if (off + sizeof(p) > len)
            return -1;
        memcpy(&p, frame + off, sizeof(p));
        if (p.len > SCI_FRAME_MAX || off + sizeof(p) + SCI_PKT_ALIGN(p.len) > len)
            return -1;
        if (fn != NULL)
            fn(arg, &p, frame + off + sizeof(p));
        off += sizeof(p) + SCI_PKT_ALIGN(p.len);
    }
    return fh.npkt;
}

/* What the answers to a frame's requests need in the reverse stream. */
typedef struct answer_need {
    uint64_t bytes;
    uint32_t npkt;
    uint32_t pkt_data_max;   /* of this bridge's frames */
} answer_need_t;

static void count_answers(void *arg, const sci_pkt_hdr_t *p, const uint8_t *data)
{
    answer_need_t *need = arg;
    uint64_t want;

    if (p->cmd == SCI_CMD_READ_REQ && p->len == sizeof(want)) {
        memcpy(&want, data, sizeof(want));
        want = want < SCI_READ_WANT_MAX ? want : SCI_READ_WANT_MAX;
        need->bytes += want;
        need->npkt += (uint32_t)(want / need->pkt_data_max) + 1;
    } else if (p->cmd == SCI_CMD_BARRIER) {
        need->npkt++;
    }
}

typedef struct rx_ctx {
    nic_fw_t     *fw;
    sci_bridge_t *b;
    int           peer;
    uint64_t      job;       /* the stream's: every packet must name it */
    nic_fw_ep_t  *written;   /* rx_written() */
} rx_ctx_t;

static void apply_packet(void *arg, const sci_pkt_hdr_t *p, const uint8_t *data)
{
    rx_ctx_t *x = arg;
    sci_bridge_t *b = x->b;

    b->st.rx_packets++;
    if (p->job_key != x->job) {
        b->st.rx_foreign_job++;          /* authentic for one job, naming another */
        return;
    }
    switch (p->cmd) {
    case SCI_CMD_WRITE:       rx_write(b, p, data, &x->written); break;
    case SCI_CMD_READ_REQ:    rx_read_req(x->fw, b, x->peer, p, data); break;
    case SCI_CMD_READ_RESP:   rx_read_resp(b, p, data); break;
    case SCI_CMD_INTR:        rx_intr(b, x->peer, p); break;
    case SCI_CMD_BARRIER: {
        sci_pkt_hdr_t a = { .cmd = SCI_CMD_BARRIER_ACK, .aux = p->aux, .job_key = p->job_key };
        sci_peer_packet(x->fw, b, x->peer, &a, 1, nic_now_ns());
        break;
    }
    case SCI_CMD_BARRIER_ACK: sci_waits_barrier_ack(b, x->peer, (uint32_t)p->aux); break;
    default:                  b->st.rx_bad++; break;
    }
}

int sci_rx_deliver(void *arg, nic_rel_peer_t *rp, const struct sockaddr_in *from,
                   uint8_t *frame, size_t len)
{
    nic_fw_t *fw = arg;
    sci_bridge_t *b = sci_of(fw);
    answer_need_t need = { 0, 0, b->pkt_data_max };
    rx_ctx_t x = { fw, b, sci_peer_get(b, from, rp->job, 1), rp->job, NULL };

    if (x.peer < 0 || for_each_packet(frame, len, count_answers, &need) < 0) {
        b->st.rx_bad++;
        return NIC_OK;   /* taken (and dropped): it would never get better */
    }
    /* Answers go back in order with everything else: if the stream back
     * cannot take them now, leave the frame; it comes again. */
    if (need.npkt > 0 && !sci_peer_room(b, x.peer, need.bytes, need.npkt))
        return NIC_ERR_NO_RESOURCE;
    b->st.rx_frames++;
    for_each_packet(frame, len, apply_packet, &x);
    rx_written(&x.written, NULL);
    return NIC_OK;
}

void sci_rx_frame(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                  size_t len)
{
    sci_bridge_t *b = sci_of(fw);
    const sci_frame_hdr_t *fh = (const sci_frame_hdr_t *)frame;
    nic_rel_hdr_t rh;

    if (len < sizeof(*fh) || fh->magic[0] != SCI_MAGIC0 || fh->magic[1] != SCI_MAGIC1 ||
        fh->magic[2] != SCI_MAGIC2 || fh->version != SCI_VERSION) {
        b->st.rx_bad++;
        return;
    }
    uint32_t sum = fh->sum;
    ((sci_frame_hdr_t *)frame)->sum = 0;
    if (sci_frame_sum(frame, len) != sum) {
        b->st.rx_bad++;   /* damaged on the wire: it comes again */
        return;
    }
    ((sci_frame_hdr_t *)frame)->sum = sum;
    memcpy(&rh, fh->rel, sizeof(rh));
    if (rh.kind != NIC_REL_KIND_DATA || !b->timing.enabled || fh->sent_ns == 0 ||
        (b->delay_head == b->delay_tail && fh->sent_ns <= nic_now_ns())) {
        nic_rel_rx(b->rel, from, job, frame, len);
        return;
    }
    /* Timing model: held until its stamp, then handed to the stream. */
    if (b->delay == NULL && (b->delay = malloc(sizeof(*b->delay) * SCI_DELAY_SLOTS)) == NULL) {
        nic_rel_rx(b->rel, from, job, frame, len);
        return;
    }
    if (b->delay_tail - b->delay_head == SCI_DELAY_SLOTS)
        sci_rx_delayed(fw, b, UINT64_MAX, NULL);   /* full: let them go early */
    sci_delayed_t *d = &b->delay[b->delay_tail++ % SCI_DELAY_SLOTS];
    d->due_ns = fh->sent_ns;
    d->from = *from;
    d->job = job;
    d->len = (uint32_t)len;
    memcpy(d->buf, frame, len);
}

int sci_rx_delayed(nic_fw_t *fw, sci_bridge_t *b, uint64_t now, uint64_t *next)
{
    int n = 0;

    while (b->delay_head != b->delay_tail) {
        sci_delayed_t *d = &b->delay[b->delay_head % SCI_DELAY_SLOTS];
        if (d->due_ns > now) {
            if (next != NULL && d->due_ns < *next)
                *next = d->due_ns;
            break;
        }
        b->delay_head++;
        nic_rel_rx(b->rel, &d->from, d->job, d->buf, d->len);
        n++;
    }
    return n;
}
