/* via_fw_desc.c - descriptors in the NIC: fetching and checking a posted
 * descriptor (format, every segment against the TPT), writing its
 * completion (ImmediateData, Length, then Status), notifying the host (the
 * VI's event counter, a CQ entry; a full CQ is an overrun), completing send
 * descriptors in queue order, flushing, and breaking a connection. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "../core/nic_log.h"
#include "via_fw.h"

uint32_t via_desc_fetch(via_fw_t *v, via_vi_t *vi, const via_token_t *t, int is_recv,
                        via_work_t *w)
{
    via_desc_t d;
    via_tpt_entry_t *e;
    uint32_t st, nsegs, first = 0;

    memset(w, 0, sizeof(*w));
    w->desc_va = t->desc_va;
    w->desc_handle = t->desc_handle;
    if (t->desc_va % VIA_DESC_ALIGN)
        return VIA_STATUS_FORMAT_ERROR;
    e = via_tpt_check(v, t->desc_handle, t->desc_va, sizeof(via_ctl_seg_t), vi->ptag, 0, &st);
    if (e == NULL)
        return VIA_STATUS_FORMAT_ERROR;
    /* Control segment and the first two segments in one access. */
    uint64_t room = e->len - (t->desc_va - e->va);
    uint32_t want = via_desc_bytes(2);
    if (want > room)
        want = (uint32_t)room;
    if (via_dma_read(v, e, t->desc_va, &d, want) != NIC_OK)
        return VIA_STATUS_FORMAT_ERROR;
    nsegs = d.cs.seg_count;
    w->control = d.cs.control;
    w->immediate = d.cs.immediate;
    if ((d.cs.control & VIA_CONTROL_RESERVED) || nsegs > VIA_MAX_DATA_SEGS + 1)
        return VIA_STATUS_FORMAT_ERROR;
    uint32_t op = d.cs.control & VIA_CONTROL_OP_MASK;
    if (op == 3 || (is_recv && op != VIA_CONTROL_OP_SENDRECV))
        return VIA_STATUS_FORMAT_ERROR;
    if (op != VIA_CONTROL_OP_SENDRECV) {
        if (nsegs < 1)
            return VIA_STATUS_FORMAT_ERROR;
        first = 1;                       /* the address segment */
    } else if (nsegs > VIA_MAX_DATA_SEGS) {
        return VIA_STATUS_FORMAT_ERROR;
    }
    if (via_desc_bytes(nsegs) > want) {
        if (via_tpt_check(v, t->desc_handle, t->desc_va, via_desc_bytes(nsegs), vi->ptag, 0,
                          &st) == NULL ||
            via_dma_read(v, e, t->desc_va, &d, via_desc_bytes(nsegs)) != NIC_OK)
            return VIA_STATUS_FORMAT_ERROR;
    }
    if (first) {
        w->raddr = d.seg[0].as.data;
        w->rhandle = d.seg[0].as.handle;
    }
    w->nsegs = (uint16_t)(nsegs - first);
    for (uint32_t i = 0; i < w->nsegs; i++) {
        const via_data_seg_t *s = &d.seg[first + i].ds;
        w->seg[i].va = s->data;
        w->seg[i].handle = s->handle;
        w->seg[i].len = s->length;
        /* Tag mismatch, foreign or stale handle, range outside: a
         * protection error, and nothing moves. */
        if (s->length > 0 &&
            via_tpt_check(v, s->handle, s->data, s->length, vi->ptag, 0, &st) == NULL)
            return VIA_STATUS_PROTECTION_ERROR;
        w->total += s->length;
    }
    if (op == VIA_CONTROL_OP_RDMAREAD &&
        (!v->rdma_read_support || vi->level == VIA_UNRELIABLE))
        return VIA_STATUS_FORMAT_ERROR;
    if (!is_recv && w->total > vi->max_transfer)
        return VIA_STATUS_LENGTH_ERROR;
    return 0;
}

static void via_notify_cq(via_fw_t *v, via_vi_t *vi, uint32_t cq_id, const via_work_t *w,
                          int is_recv, uint32_t status)
{
    nic_fw_ep_t *cq_ep = nic_fw_ep_lookup(v->fw, cq_id);
    via_ep_t *ce = cq_ep ? via_ep(cq_ep) : NULL;
    nic_entry_t *slot;

    if (ce == NULL || ce->kind != VIA_EP_CQ || ce->u.cq.overflowed)
        return;
    slot = nic_ring_slot(&cq_ep->cq);
    if (slot == NULL) {
        /* Overrun: the CQ is unusable from now on (the completions stay in
         * their descriptors); every VI feeding it learns it. */
        ce->u.cq.overflowed = 1;
        v->c.cq_overruns++;
        nic_log_warn(nic_fw_log(v->fw),
                     "completion queue %#x overflowed (%u entries): it is in the error state",
                     cq_ep->id, cq_ep->sh->cq_entries);
        nic_fw_ep_fail(cq_ep, NIC_ERR_NO_RESOURCE);
        atomic_store(&vi->sh->async_error, VIA_AERR_VI_OVERRUN);
        atomic_fetch_add(&vi->sh->async_count, 1);
        return;
    }
    via_cqe_t *c = (via_cqe_t *)slot;
    memset(c, 0, sizeof(*c));
    c->vi_id = vi->ep->id;
    c->is_recv = (uint32_t)is_recv;
    c->desc_va = w->desc_va;
    c->status = status;
    nic_fw_cq_commit(cq_ep);
}

void via_desc_complete(via_fw_t *v, via_vi_t *vi, const via_work_t *w, int is_recv,
                       uint32_t status, uint32_t length, int with_imm)
{
    uint32_t st;
    via_tpt_entry_t *e = via_tpt_check(v, w->desc_handle, w->desc_va, sizeof(via_ctl_seg_t),
                                       vi->ptag, 0, &st);

    via_dma_flush(v);                    /* the data before its completion */
    status |= VIA_STATUS_DONE;
    if (e != NULL) {
        uint64_t at = w->desc_va + offsetof(via_ctl_seg_t, immediate);
        int gone;
        uint8_t *map = via_tpt_map(v, e, &gone);
        if (gone) {
            /* the host freed the memory holding the descriptor */
        } else if (map != NULL) {
            via_ctl_seg_t *cs = (via_ctl_seg_t *)(map + (w->desc_va - e->va));
            if (with_imm)
                cs->immediate = w->immediate;
            cs->length = length;
            atomic_store_explicit(&cs->status, status, memory_order_release);
        } else {
            /* ImmediateData, Length and Status are adjacent: one access that
             * stores them in address order, Status last. */
            uint32_t tail[3] = { 0, length, status };
            if (with_imm) {
                tail[0] = w->immediate;
                via_dma_write(v, e, at, tail, sizeof(tail));
            } else {
                via_dma_write(v, e, at + 4, tail + 1, 2 * sizeof(uint32_t));
            }
        }
    } else {
        nic_log_info(nic_fw_log(v->fw),
                     "VI %#x: descriptor %#llx was deregistered before it completed",
                     vi->ep->id, (unsigned long long)w->desc_va);
    }
    uint32_t cq = is_recv ? vi->recv_cq : vi->send_cq;
    if (cq != 0)
        via_notify_cq(v, vi, cq, w, is_recv, status);
    nic_fw_cq_commit(vi->ep);   /* the VI's event counter: wakes a blocked wait */
}

static uint32_t work_opcode(const via_work_t *w)
{
    switch (w->control & VIA_CONTROL_OP_MASK) {
    case VIA_CONTROL_OP_RDMAWRITE: return VIA_STATUS_OP_RDMA_WRITE;
    case VIA_CONTROL_OP_RDMAREAD:  return VIA_STATUS_OP_RDMA_READ;
    default:                       return VIA_STATUS_OP_SEND;
    }
}

int via_sq_retire(via_fw_t *v, via_vi_t *vi, uint64_t now)
{
    int n = 0;
    while (vi->sq_head != vi->sq_cur) {
        via_work_t *w = &vi->sq[vi->sq_head % vi->sq_cap];
        if (!w->finished)
            break;
        if (w->due_ns > now) {
            if (w->due_ns < v->tx_due_ns)
                v->tx_due_ns = w->due_ns;   /* the firmware must be awake then */
            break;
        }
        via_desc_complete(v, vi, w, 0, w->status | work_opcode(w), (uint32_t)w->done_bytes, 0);
        vi->sq_head++;
        n++;
    }
    return n;
}

void via_vi_flush(via_fw_t *v, via_vi_t *vi)
{
    nic_entry_t *slot;

    /* Send queue: what finished keeps its status, the rest is flushed. */
    for (; vi->sq_head != vi->sq_tail; vi->sq_head++) {
        via_work_t *w = &vi->sq[vi->sq_head % vi->sq_cap];
        uint32_t st = w->finished ? w->status : VIA_STATUS_DESC_FLUSHED_ERROR;
        via_desc_complete(v, vi, w, 0, st | work_opcode(w), 0, 0);
    }
    vi->sq_cur = vi->sq_tail = vi->sq_head;
    vi->reads_outstanding = 0;
    vi->rd_head = vi->rd_tail = 0;
    if (vi->rx_active) {
        via_desc_complete(v, vi, &vi->rx, 1,
                          VIA_STATUS_DESC_FLUSHED_ERROR | VIA_STATUS_OP_RECEIVE, 0, 0);
        vi->rx_active = 0;
    }
    for (; vi->rq_head != vi->rq_tail; vi->rq_head++) {
        via_work_t w;
        memset(&w, 0, sizeof(w));
        w.desc_va = vi->rq[vi->rq_head % vi->rq_cap].desc_va;
        w.desc_handle = vi->rq[vi->rq_head % vi->rq_cap].desc_handle;
        via_desc_complete(v, vi, &w, 1, VIA_STATUS_DESC_FLUSHED_ERROR | VIA_STATUS_OP_RECEIVE,
                          0, 0);
    }
    /* Tokens still in the doorbell FIFOs. */
    while ((slot = nic_ring_peek(&vi->ep->sq)) != NULL) {
        via_token_t t = *(via_token_t *)slot;
        via_work_t w;
        nic_ring_release(&vi->ep->sq);
        memset(&w, 0, sizeof(w));
        w.desc_va = t.desc_va;
        w.desc_handle = t.desc_handle;
        via_desc_complete(v, vi, &w, 0, VIA_STATUS_DESC_FLUSHED_ERROR, 0, 0);
    }
    while (vi->rq_cap && (slot = nic_ring_peek(&vi->ep->rq)) != NULL) {
        via_token_t t = *(via_token_t *)slot;
        via_work_t w;
        nic_ring_release(&vi->ep->rq);
        memset(&w, 0, sizeof(w));
        w.desc_va = t.desc_va;
        w.desc_handle = t.desc_handle;
        via_desc_complete(v, vi, &w, 1, VIA_STATUS_DESC_FLUSHED_ERROR | VIA_STATUS_OP_RECEIVE,
                          0, 0);
    }
}

static int send_break(via_fw_t *v, via_vi_t *vi, uint32_t status)
{
    via_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.op = VIA_OP_BREAK;
    h.dst_vi = vi->rvi;
    h.src_vi = vi->ep->id;
    h.conn_id = vi->conn_id;
    h.level = (uint8_t)vi->level;
    h.job_key = vi->ep->job_key;
    h.status = status;
    return via_tx_ctl(v, &vi->raddr, &h, NULL, 0);
}

int via_vi_send_owed(via_fw_t *v, via_vi_t *vi)
{
    if (vi->break_owed) {
        if (send_break(v, vi, vi->break_owed & ~(1u << 31)) == NIC_ERR_NO_RESOURCE)
            return 1;
        vi->break_owed = 0;
        vi->owed_n = 0;                  /* placement reports are moot now */
        return 0;
    }
    uint32_t i = 0;
    for (; i < vi->owed_n; i++) {
        via_hdr_t h;
        memset(&h, 0, sizeof(h));
        h.op = VIA_OP_PLACED;
        h.level = (uint8_t)vi->level;
        h.dst_vi = vi->rvi;
        h.src_vi = vi->ep->id;
        h.conn_id = vi->conn_id;
        h.job_key = vi->ep->job_key;
        h.msg_id = vi->owed_placed[i];
        if (via_tx_ctl(v, &vi->raddr, &h, NULL, 0) == NIC_ERR_NO_RESOURCE)
            break;
    }
    memmove(vi->owed_placed, vi->owed_placed + i, (vi->owed_n - i) * sizeof(uint32_t));
    vi->owed_n -= i;
    return vi->owed_n > 0;
}

void via_vi_break(via_fw_t *v, via_vi_t *vi, uint32_t aerr, uint32_t status, int tell)
{
    uint32_t state = atomic_load(&vi->sh->state);

    if (state != VIA_VI_CONNECTED && state != VIA_VI_CONNECT_PENDING)
        return;
    if (tell && state == VIA_VI_CONNECTED && send_break(v, vi, status) == NIC_ERR_NO_RESOURCE)
        vi->break_owed = status | 1u << 31;      /* the stream is full: later */
    if (state == VIA_VI_CONNECT_PENDING && v->connecting > 0)
        v->connecting--;
    v->c.breaks++;
    nic_log_info(nic_fw_log(v->fw), "VI %#x: connection broken (%s, status %#x)", vi->ep->id,
                 tell ? "reported to the peer" : "by the peer or the wire", status);
    atomic_store(&vi->sh->state, VIA_VI_ERROR);
    atomic_store(&vi->sh->async_error, aerr);
    atomic_fetch_add(&vi->sh->async_count, 1);
    via_vi_flush(v, vi);
    nic_fw_cq_commit(vi->ep);
}
