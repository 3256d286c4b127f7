/* via_fw_tx.c - the send side of a VI: take doorbell tokens, fetch and
 * check descriptors, cut messages into frames (gathering the data segments
 * straight into the frame), answer the peer's RDMA reads, and complete send
 * descriptors in order: unreliable and reliable delivery once the last
 * frame is out, reliable reception when the peer says the data is placed,
 * RDMA read when the data is here.  A frame that does not fit the reliable
 * window stays for the next turn: back-pressure. */
#include "config.h"

#include <string.h>

#include "../core/nic_log.h"
#include "via_fw.h"

int via_tx(via_fw_t *v, const struct sockaddr_in *to, int reliable, via_hdr_t *hdr,
           const via_work_t *w, uint32_t ptag, uint64_t off, const void *payload, uint32_t len)
{
    nic_rel_peer_t *p = NULL;
    uint8_t *buf;
    int rc;

    if (reliable) {
        if ((p = nic_rel_peer(v->rel, to, hdr->job_key, 1)) == NULL)
            return NIC_ERR_NO_RESOURCE;
        if ((buf = nic_rel_tx_buf(v->rel, p)) == NULL)
            return NIC_ERR_NO_RESOURCE;
    } else {
        buf = v->raw;
    }
    hdr->type[0] = VIA_TYPE0;
    hdr->type[1] = VIA_TYPE1;
    hdr->type[2] = VIA_TYPE2;
    hdr->type[3] = VIA_TYPE3;
    hdr->len = (uint16_t)len;
    hdr->csum = 0;
    if (v->timing.enabled && hdr->sent_ns == 0)
        hdr->sent_ns = via_timing_tx(v, nic_now_ns(), len, 0, 0);   /* control frames */
    memcpy(buf, hdr, sizeof(*hdr));
    if (w != NULL)
        rc = via_dma_gather(v, w, ptag, off, buf + sizeof(*hdr), len);
    else
        rc = NIC_OK, (len ? memcpy(buf + sizeof(*hdr), payload, len) : NULL);
    if (rc != NIC_OK)
        return rc;
    v->c.tx_frames++;
    v->c.tx_bytes += len;
    if (reliable)
        return nic_rel_tx_commit(v->rel, p, sizeof(*hdr) + len);
    via_hdr_t *h = (via_hdr_t *)buf;
    h->src_fw = nic_rel_incarnation(v->rel);
    h->kind = VIA_KIND_RAW;
    h->csum = via_csum(buf, sizeof(*hdr) + len);
    struct iovec iov = { buf, sizeof(*hdr) + len };
    return nic_wire_send(nic_fw_wire(v->fw), to, hdr->job_key, &iov, 1);
}

int via_tx_ctl(via_fw_t *v, const struct sockaddr_in *to, via_hdr_t *hdr, const void *payload,
               uint32_t len)
{
    return via_tx(v, to, 1, hdr, NULL, 0, 0, payload, len);
}

static void vi_hdr(const via_vi_t *vi, via_hdr_t *h, uint8_t op)
{
    memset(h, 0, sizeof(*h));
    h->op = op;
    h->level = (uint8_t)vi->level;
    h->dst_vi = vi->rvi;
    h->src_vi = vi->ep->id;
    h->conn_id = vi->conn_id;
    h->job_key = vi->ep->job_key;
}

/* The payload of one frame of vi's messages. */
static uint32_t frame_payload(const via_fw_t *v, const via_vi_t *vi)
{
    if (v->timing.enabled && v->timing.mtu)
        return v->timing.mtu;
    return vi->level == VIA_UNRELIABLE ? v->mtu : v->wire_payload;
}

/* Timing model: may the NIC stamp another packet now? */
static int tx_horizon_ok(via_fw_t *v, uint64_t now)
{
    if (!v->timing.enabled || v->tx_busy_until <= now + VIA_TX_HORIZON_NS)
        return 1;
    if (v->tx_busy_until - VIA_TX_HORIZON_NS < v->tx_due_ns)
        v->tx_due_ns = v->tx_busy_until - VIA_TX_HORIZON_NS;   /* go on then */
    return 0;
}

#define VIA_TX_BATCH 16   /* frames filled by one cross-memory read */

/* The header of the frame at byte off of a SEND or RDMA write. */
static void data_hdr(via_fw_t *v, const via_vi_t *vi, const via_work_t *w, uint64_t off,
                     uint32_t len, int write, uint64_t now, via_hdr_t *h)
{
    vi_hdr(vi, h, write ? VIA_OP_WRITE : VIA_OP_SEND);
    h->msg_id = w->msg_id;
    h->offset = off;
    h->total = w->total;
    h->raddr = w->raddr;
    h->rhandle = w->rhandle;
    h->immediate = w->immediate;
    if (w->control & VIA_CONTROL_IMMEDIATE)
        h->flags |= VIA_HF_IMMEDIATE;
    if (off + len == w->total)
        h->flags |= VIA_HF_LAST;
    if (v->timing.enabled)
        h->sent_ns = via_timing_tx(v, now, len, off == 0, off + len == w->total);
}

/* Several frames of a reliable message from one registered segment the
 * NIC reaches by cross-memory attach, with one read for all of them:
 * 1 some sent, 0 nothing possible now (the caller sends frame by frame). */
static int tx_data_batch(via_fw_t *v, via_vi_t *vi, via_work_t *w, uint64_t now, int write)
{
    uint32_t mtu = frame_payload(v, vi), st;
    uint64_t off = w->done_bytes, left = w->total - off;
    struct iovec local[VIA_TX_BATCH];
    uint8_t *buf[VIA_TX_BATCH];
    nic_rel_peer_t *p;
    via_tpt_entry_t *e;
    unsigned n = 0;

    if (vi->level == VIA_UNRELIABLE || w->nsegs != 1 || left <= mtu ||
        (p = nic_rel_peer(v->rel, &vi->raddr, vi->ep->job_key, 1)) == NULL)
        return 0;
    e = via_tpt_check(v, w->seg[0].handle, w->seg[0].va + off, left, vi->ptag, 0, &st);
    if (e == NULL || e->core_key != 0)
        return 0;                          /* refused or shared: the usual path */
    for (uint64_t o = off; n < VIA_TX_BATCH && o < w->total; n++, o += mtu) {
        if ((buf[n] = nic_rel_tx_buf_ahead(v->rel, p, n)) == NULL)
            break;
        local[n].iov_base = buf[n] + sizeof(via_hdr_t);
        local[n].iov_len = w->total - o < mtu ? (size_t)(w->total - o) : mtu;
    }
    if (n < 2 || via_dma_read_scatter(v, e, w->seg[0].va + off, local, n) != NIC_OK)
        return 0;
    for (unsigned i = 0; i < n; i++) {
        via_hdr_t h;
        uint32_t len = (uint32_t)local[i].iov_len;
        data_hdr(v, vi, w, off, len, write, now, &h);
        h.type[0] = VIA_TYPE0;
        h.type[1] = VIA_TYPE1;
        h.type[2] = VIA_TYPE2;
        h.type[3] = VIA_TYPE3;
        h.len = (uint16_t)len;
        memcpy(buf[i], &h, sizeof(h));
        nic_rel_tx_commit(v->rel, p, sizeof(h) + len);
        v->c.tx_frames++;
        v->c.tx_bytes += len;
        off += len;
        if (v->timing.enabled)
            w->due_ns = h.sent_ns + v->timing.dma_setup_ns;
    }
    w->done_bytes = off;
    return 1;
}

/* Send (the rest of) a SEND or RDMA write: 1 all out, 0 not yet, <0 error. */
static int tx_data(via_fw_t *v, via_vi_t *vi, via_work_t *w, uint64_t now)
{
    int reliable = vi->level != VIA_UNRELIABLE;
    int write = (w->control & VIA_CONTROL_OP_MASK) == VIA_CONTROL_OP_RDMAWRITE;
    uint32_t mtu = frame_payload(v, vi);

    do {
        uint64_t off = w->done_bytes;
        uint32_t len = w->total - off < mtu ? (uint32_t)(w->total - off) : mtu;
        via_hdr_t h;
        int rc;

        if (!tx_horizon_ok(v, now))
            return 0;
        if (!v->timing.enabled && tx_data_batch(v, vi, w, now, write))
            continue;
        data_hdr(v, vi, w, off, len, write, now, &h);
        rc = via_tx(v, &vi->raddr, reliable, &h, w, vi->ptag, off, NULL, len);
        if (rc == NIC_ERR_NO_RESOURCE)
            return 0;
        if (rc != NIC_OK && rc != NIC_ERR_IO)
            return rc;
        w->done_bytes += len;
        if (v->timing.enabled)
            w->due_ns = h.sent_ns + v->timing.dma_setup_ns;
    } while (w->done_bytes < w->total);
    return 1;
}

static int tx_read_req(via_fw_t *v, via_vi_t *vi, via_work_t *w, uint64_t now)
{
    via_hdr_t h;
    int rc;

    if (!tx_horizon_ok(v, now))
        return 0;
    vi_hdr(vi, &h, VIA_OP_READ_REQ);
    h.msg_id = w->msg_id;
    h.total = w->total;
    h.raddr = w->raddr;
    h.rhandle = w->rhandle;
    h.flags = VIA_HF_LAST;
    if (v->timing.enabled)
        h.sent_ns = via_timing_tx(v, now, 0, 1, 0);   /* the read completes with its answer */
    rc = via_tx_ctl(v, &vi->raddr, &h, NULL, 0);
    if (rc == NIC_ERR_NO_RESOURCE)
        return 0;
    vi->reads_outstanding++;
    return rc == NIC_OK || rc == NIC_ERR_IO ? 1 : rc;
}

/* Transmit one descriptor: 1 done (or failed at once), 0 come back later. */
static int tx_work(via_fw_t *v, via_vi_t *vi, via_work_t *w, uint64_t now)
{
    int rc;
    uint32_t op = w->control & VIA_CONTROL_OP_MASK;

    if (w->finished)
        return 1;                        /* refused when fetched */
    if (op == VIA_CONTROL_OP_RDMAREAD) {
        if (w->total == 0) {
            w->finished = 1;
            return 1;
        }
        rc = tx_read_req(v, vi, w, now);
    } else {
        rc = tx_data(v, vi, w, now);
    }
    if (rc == 0)
        return 0;
    w->transmitted = 1;
    if (rc < 0) {
        w->status = VIA_STATUS_TRANSPORT_ERROR;
        w->finished = 1;
        return 1;
    }
    if (op == VIA_CONTROL_OP_RDMAREAD)
        return 1;                        /* finished by the responses */
    if (op == VIA_CONTROL_OP_SENDRECV)
        v->c.sends++;
    else
        v->c.rdma_writes++;
    /* Reliable reception completes when the peer reports placement. */
    if (vi->level != VIA_RELIABLE_RECEPTION)
        w->finished = 1;
    return 1;
}

/* Answer the peer's RDMA reads, oldest first. */
static int tx_read_responses(via_fw_t *v, via_vi_t *vi, uint64_t now)
{
    uint32_t mtu = frame_payload(v, vi);
    int n = 0;

    while (vi->rd_head != vi->rd_tail) {
        via_rdresp_t *r = &vi->rd[vi->rd_head % vi->rd_cap];
        while (r->done < r->total) {
            uint32_t len = r->total - r->done < mtu ? (uint32_t)(r->total - r->done) : mtu;
            uint32_t st;
            via_tpt_entry_t *e;
            nic_rel_peer_t *p;
            uint8_t *buf;
            via_hdr_t h;

            if (!tx_horizon_ok(v, now))
                return n;
            e = via_tpt_check(v, r->rhandle, r->raddr + r->done, len, vi->ptag,
                              VIA_MR_RDMA_READ, &st);
            if (e == NULL) {
                /* deregistered while being read */
                via_vi_break(v, vi, VIA_AERR_RDMAR_PROT, VIA_STATUS_RDMA_PROT_ERROR, 1);
                return n;
            }
            if ((p = nic_rel_peer(v->rel, &vi->raddr, vi->ep->job_key, 1)) == NULL ||
                (buf = nic_rel_tx_buf(v->rel, p)) == NULL)
                return n;
            vi_hdr(vi, &h, VIA_OP_READ_RESP);
            h.type[0] = VIA_TYPE0;
            h.type[1] = VIA_TYPE1;
            h.type[2] = VIA_TYPE2;
            h.type[3] = VIA_TYPE3;
            h.msg_id = r->msg_id;
            h.offset = r->done;
            h.total = r->total;
            h.len = (uint16_t)len;
            if (r->done + len == r->total)
                h.flags = VIA_HF_LAST;
            if (v->timing.enabled)
                h.sent_ns = via_timing_tx(v, now, len, r->done == 0, 0);
            memcpy(buf, &h, sizeof(h));
            if (via_dma_read(v, e, r->raddr + r->done, buf + sizeof(h), len) != NIC_OK) {
                via_vi_break(v, vi, VIA_AERR_RDMA_TRANSPORT, VIA_STATUS_TRANSPORT_ERROR, 1);
                return n;
            }
            v->c.tx_frames++;
            v->c.tx_bytes += len;
            nic_rel_tx_commit(v->rel, p, sizeof(h) + len);
            r->done += len;
            n++;
        }
        vi->rd_head++;
    }
    return n;
}

int via_rq_pull(via_vi_t *vi)
{
    nic_entry_t *slot;
    int n = 0;

    while (vi->rq_cap && vi->rq_tail - vi->rq_head < vi->rq_cap &&
           (slot = nic_ring_peek(&vi->ep->rq)) != NULL) {
        vi->rq[vi->rq_tail++ % vi->rq_cap] = *(via_token_t *)slot;
        nic_ring_release(&vi->ep->rq);
        n++;
    }
    return n;
}

/* Doorbell tokens of both queues into the NIC's own queues. */
static int take_tokens(via_fw_t *v, via_vi_t *vi, uint32_t state)
{
    nic_entry_t *slot;
    int n = via_rq_pull(vi);

    while (vi->sq_tail - vi->sq_head < vi->sq_cap && (slot = nic_ring_peek(&vi->ep->sq)) != NULL) {
        via_token_t t = *(via_token_t *)slot;   /* the host may change the slot */
        via_work_t *w = &vi->sq[vi->sq_tail % vi->sq_cap];
        uint32_t st;

        nic_ring_release(&vi->ep->sq);
        n++;
        if (state != VIA_VI_CONNECTED) {
            /* A send on a VI that is not connected is refused. */
            memset(w, 0, sizeof(*w));
            w->desc_va = t.desc_va;
            w->desc_handle = t.desc_handle;
            via_desc_complete(v, vi, w, 0, VIA_STATUS_DESC_FLUSHED_ERROR, 0, 0);
            continue;
        }
        st = via_desc_fetch(v, vi, &t, 0, w);
        w->msg_id = vi->next_msg_id++;
        if (st != 0) {
            nic_log_info(nic_fw_log(v->fw),
                         "VI %#x: send descriptor %#llx refused (status %#x)", vi->ep->id,
                         (unsigned long long)t.desc_va, st);
            if (st & VIA_STATUS_LENGTH_ERROR)
                v->c.length_errors++;
            w->status = st;
            w->finished = 1;
            w->transmitted = 1;
        }
        vi->sq_tail++;
    }
    return n;
}

int via_vi_service(via_fw_t *v, via_vi_t *vi)
{
    uint32_t state = atomic_load(&vi->sh->state);
    uint64_t now = nic_now_ns();
    int n;

    if (state == VIA_VI_ERROR) {
        /* Everything posted to a broken VI is flushed. */
        int pending = nic_ring_peek(&vi->ep->sq) != NULL ||
                      (vi->rq_cap && nic_ring_peek(&vi->ep->rq) != NULL);
        if (pending)
            via_vi_flush(v, vi);
        if (vi->break_owed)
            via_vi_send_owed(v, vi);
        return pending;
    }
    n = take_tokens(v, vi, state);
    if (state != VIA_VI_CONNECTED)
        return n;
    if (vi->owed_n > 0)
        via_vi_send_owed(v, vi);
    n += tx_read_responses(v, vi, now);
    while (vi->sq_cur != vi->sq_tail) {
        via_work_t *w = &vi->sq[vi->sq_cur % vi->sq_cap];
        if ((w->control & VIA_CONTROL_QFENCE) && vi->reads_outstanding > 0)
            break;                       /* after every earlier RDMA read */
        if (!tx_work(v, vi, w, now))
            break;
        vi->sq_cur++;
        n++;
        if (atomic_load(&vi->sh->state) != VIA_VI_CONNECTED)
            return n;
    }
    return n + via_sq_retire(v, vi, now);
}
