/* via_fw_rx.c - the receive side: check a frame (type, checksum), pass
 * reliable frames through the stream layer, then place it: a SEND takes the
 * descriptor at the head of the target VI's receive queue and is scattered
 * into its data segments; an RDMA write goes where the initiator said, if
 * the target region's tag is the target VI's and it enables RDMA write; an
 * RDMA read is answered if the region enables it.  On a reliable VI an
 * error here (no receive descriptor, protection, length) breaks the
 * connection and the peer is told; on an unreliable VI the frame is
 * dropped.  Protection is checked before a byte moves. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "via_fw.h"

static int addr_eq(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

/* Room in the stream back to the sender for a reply (PLACED, BREAK). */
static int can_reply(via_fw_t *v, const struct sockaddr_in *to, uint64_t job)
{
    nic_rel_peer_t *p = nic_rel_peer(v->rel, to, job, 1);
    return p != NULL && nic_rel_tx_space(v->rel, p) > 0;
}

static void send_placed(via_fw_t *v, via_vi_t *vi, uint32_t msg_id, uint32_t status)
{
    via_hdr_t h;
    via_dma_flush(v);                    /* placed means placed */
    if (vi->owed_n > 0 || !can_reply(v, &vi->raddr, vi->ep->job_key)) {
        /* The stream back is full (it carries our own data): report later,
         * in order, rather than refuse the data and stall both streams. */
        if (vi->owed_n == vi->owed_cap) {
            uint32_t cap = vi->owed_cap ? vi->owed_cap * 2 : 16;
            uint32_t *o = realloc(vi->owed_placed, cap * sizeof(*o));
            if (o == NULL)
                return;
            vi->owed_placed = o;
            vi->owed_cap = cap;
        }
        vi->owed_placed[vi->owed_n++] = msg_id;
        return;
    }
    memset(&h, 0, sizeof(h));
    h.op = VIA_OP_PLACED;
    h.level = (uint8_t)vi->level;
    h.dst_vi = vi->rvi;
    h.src_vi = vi->ep->id;
    h.conn_id = vi->conn_id;
    h.job_key = vi->ep->job_key;
    h.msg_id = msg_id;
    h.status = status;
    via_tx_ctl(v, &vi->raddr, &h, NULL, 0);
}

/* An error at the target: break a reliable connection (telling the peer
 * the cause), drop on an unreliable one. */
static void rx_fail(via_fw_t *v, via_vi_t *vi, uint32_t aerr, uint32_t status)
{
    if (vi->level == VIA_UNRELIABLE) {
        v->c.dropped_unreliable++;
        return;
    }
    via_vi_break(v, vi, aerr, status, 1);
}

/* Take the receive descriptor at the head of the queue into w: 0, or the
 * asynchronous error (RECVQ_EMPTY, POST_DESC) with *status for the peer. */
static int rx_take_desc(via_fw_t *v, via_vi_t *vi, via_work_t *w, uint32_t *status)
{
    via_token_t t;

    if (vi->rq_head == vi->rq_tail)
        via_rq_pull(vi);         /* rung after the firmware last looked */
    if (vi->rq_head == vi->rq_tail) {
        v->c.recvq_empty++;
        nic_log_info(nic_fw_log(v->fw),
                     "VI %#x: a message found the receive queue empty", vi->ep->id);
        *status = VIA_STATUS_REMOTE_DESC_ERROR;
        return VIA_AERR_RECVQ_EMPTY;
    }
    t = vi->rq[vi->rq_head++ % vi->rq_cap];
    *status = via_desc_fetch(v, vi, &t, 1, w);
    if (*status != 0) {
        via_desc_complete(v, vi, w, 1, *status | VIA_STATUS_OP_RECEIVE, 0, 0);
        *status = VIA_STATUS_REMOTE_DESC_ERROR;
        return VIA_AERR_POST_DESC;
    }
    return 0;
}

static void rx_send(via_fw_t *v, via_vi_t *vi, const via_hdr_t *h, const uint8_t *payload)
{
    via_work_t *w = &vi->rx;
    uint32_t st;

    if (!vi->rx_active) {
        if (h->offset != 0) {
            v->c.bad_frames++;                 /* an unreliable message's lost head */
            return;
        }
        int aerr = rx_take_desc(v, vi, w, &st);
        if (aerr != 0) {
            rx_fail(v, vi, (uint32_t)aerr, st);
            return;
        }
        if (h->total > w->total) {
            v->c.length_errors++;
            via_desc_complete(v, vi, w, 1, VIA_STATUS_LENGTH_ERROR | VIA_STATUS_OP_RECEIVE, 0, 0);
            rx_fail(v, vi, VIA_AERR_POST_DESC, VIA_STATUS_REMOTE_DESC_ERROR);
            return;
        }
        vi->rx_active = 1;
        w->msg_id = h->msg_id;
        w->done_bytes = 0;
    }
    if (h->msg_id != w->msg_id || h->offset != w->done_bytes) {
        /* Unreliable: a fragment went missing; the message is lost. */
        v->c.bad_frames++;
        vi->rx_active = 0;
        via_desc_complete(v, vi, w, 1, VIA_STATUS_PARTIAL_ERROR | VIA_STATUS_OP_RECEIVE, 0, 0);
        return;
    }
    if (h->len > 0 && via_dma_scatter(v, w, vi->ptag, h->offset, payload, h->len) != NIC_OK) {
        vi->rx_active = 0;
        via_desc_complete(v, vi, w, 1, VIA_STATUS_PROTECTION_ERROR | VIA_STATUS_OP_RECEIVE, 0, 0);
        rx_fail(v, vi, VIA_AERR_POST_DESC, VIA_STATUS_REMOTE_DESC_ERROR);
        return;
    }
    w->done_bytes += h->len;
    if (!(h->flags & VIA_HF_LAST))
        return;
    vi->rx_active = 0;
    w->immediate = h->immediate;
    int imm = (h->flags & VIA_HF_IMMEDIATE) != 0;
    via_desc_complete(v, vi, w, 1,
                      VIA_STATUS_OP_RECEIVE | (imm ? VIA_STATUS_IMMEDIATE : 0),
                      (uint32_t)w->done_bytes, imm);
    v->c.recvs++;
    if (vi->level == VIA_RELIABLE_RECEPTION)
        send_placed(v, vi, h->msg_id, 0);
}

static void rx_write(via_fw_t *v, via_vi_t *vi, const via_hdr_t *h, const uint8_t *payload)
{
    uint32_t st;
    via_tpt_entry_t *e;

    /* The whole target range, on every fragment: a refused write moves
     * nothing at all. */
    e = via_tpt_check(v, h->rhandle, h->raddr, h->total, vi->ptag, VIA_MR_RDMA_WRITE, &st);
    if (e != NULL && !(vi->rdma_flags & VIA_MR_RDMA_WRITE)) {
        e = NULL;
        st = VIA_STATUS_RDMA_PROT_ERROR;
        v->c.protection++;
    }
    if (e == NULL) {
        nic_log_info(nic_fw_log(v->fw),
                     "VI %#x: RDMA write to handle %#x refused (status %#x)", vi->ep->id,
                     h->rhandle, st);
        rx_fail(v, vi, VIA_AERR_RDMAW_PROT, VIA_STATUS_RDMA_PROT_ERROR);
        return;
    }
    if (h->len > 0 && via_dma_write_frame(v, e, h->raddr + h->offset, payload, h->len) != NIC_OK) {
        rx_fail(v, vi, VIA_AERR_RDMAW_DATA, VIA_STATUS_TRANSPORT_ERROR);
        return;
    }
    if (!(h->flags & VIA_HF_LAST))
        return;
    v->c.rdma_writes++;
    if (h->flags & VIA_HF_IMMEDIATE) {
        /* With immediate data the write consumes a receive descriptor. */
        via_work_t w;
        int aerr = rx_take_desc(v, vi, &w, &st);
        if (aerr != 0) {
            rx_fail(v, vi, (uint32_t)aerr, st);
            return;
        }
        w.immediate = h->immediate;
        via_desc_complete(v, vi, &w, 1, VIA_STATUS_OP_REMOTE_RDMA_WRITE | VIA_STATUS_IMMEDIATE,
                          (uint32_t)h->total, 1);
    }
    if (vi->level == VIA_RELIABLE_RECEPTION)
        send_placed(v, vi, h->msg_id, 0);
}

static int rx_read_req(via_fw_t *v, via_vi_t *vi, const via_hdr_t *h)
{
    uint32_t st;
    via_tpt_entry_t *e;

    if (vi->rd_tail - vi->rd_head >= vi->rd_cap)
        return NIC_ERR_NO_RESOURCE;
    e = via_tpt_check(v, h->rhandle, h->raddr, h->total, vi->ptag, VIA_MR_RDMA_READ, &st);
    if (e == NULL || !(vi->rdma_flags & VIA_MR_RDMA_READ)) {
        if (e != NULL)
            v->c.protection++;
        nic_log_info(nic_fw_log(v->fw),
                     "VI %#x: RDMA read of handle %#x refused", vi->ep->id, h->rhandle);
        via_vi_break(v, vi, VIA_AERR_RDMAR_PROT, VIA_STATUS_RDMA_PROT_ERROR, 1);
        return NIC_OK;
    }
    via_rdresp_t *r = &vi->rd[vi->rd_tail++ % vi->rd_cap];
    r->msg_id = h->msg_id;
    r->rhandle = h->rhandle;
    r->raddr = h->raddr;
    r->total = h->total;
    r->done = 0;
    return NIC_OK;
}

/* The transmitted, unfinished send descriptor with msg_id. */
static via_work_t *sq_find(via_vi_t *vi, uint32_t msg_id)
{
    for (uint32_t i = vi->sq_head; i != vi->sq_cur; i++) {
        via_work_t *w = &vi->sq[i % vi->sq_cap];
        if (!w->finished && w->msg_id == msg_id)
            return w;
    }
    return NULL;
}

static void rx_read_resp(via_fw_t *v, via_vi_t *vi, const via_hdr_t *h, const uint8_t *payload)
{
    via_work_t *w = sq_find(vi, h->msg_id);

    if (w == NULL || (w->control & VIA_CONTROL_OP_MASK) != VIA_CONTROL_OP_RDMAREAD ||
        h->offset != w->done_bytes) {
        v->c.bad_frames++;
        return;
    }
    if (h->len > 0 && via_dma_scatter(v, w, vi->ptag, h->offset, payload, h->len) != NIC_OK) {
        w->status = VIA_STATUS_PROTECTION_ERROR;
        w->finished = 1;
        vi->reads_outstanding--;
        return;
    }
    w->done_bytes += h->len;
    if (h->flags & VIA_HF_LAST) {
        w->finished = 1;
        w->due_ns = 0;
        vi->reads_outstanding--;
        v->c.rdma_reads++;
    }
}

static void rx_break(via_fw_t *v, via_vi_t *vi, const via_hdr_t *h)
{
    /* The descriptor that waited for the peer gets the cause; the rest is
     * flushed by the break. */
    for (uint32_t i = vi->sq_head; i != vi->sq_cur; i++) {
        via_work_t *w = &vi->sq[i % vi->sq_cap];
        if (w->finished)
            continue;
        w->status = h->status ? h->status : VIA_STATUS_TRANSPORT_ERROR;
        w->finished = 1;
        break;
    }
    via_vi_break(v, vi, VIA_AERR_CONN_LOST, 0, 0);
}

/* Tell the sender of a frame for a VI that is gone or not connected. */
static void rx_stale(via_fw_t *v, const struct sockaddr_in *from, const via_hdr_t *in)
{
    via_hdr_t h;

    v->c.bad_frames++;
    if (in->kind == VIA_KIND_RAW ||
        (in->op != VIA_OP_SEND && in->op != VIA_OP_WRITE && in->op != VIA_OP_READ_REQ))
        return;
    memset(&h, 0, sizeof(h));
    h.op = VIA_OP_BREAK;
    h.level = in->level;
    h.dst_vi = in->src_vi;
    h.src_vi = in->dst_vi;
    h.conn_id = in->conn_id;
    h.job_key = in->job_key;
    h.status = VIA_STATUS_TRANSPORT_ERROR;
    via_tx_ctl(v, from, &h, NULL, 0);
}

/* Place one frame; NIC_ERR_NO_RESOURCE: not now, it must come again. */
static int via_rx_place(via_fw_t *v, const struct sockaddr_in *from, uint8_t *frame, size_t len)
{
    const via_hdr_t *h = (const via_hdr_t *)frame;
    const uint8_t *payload = frame + sizeof(*h);
    int reliable = h->kind != VIA_KIND_RAW;
    nic_fw_ep_t *ep;
    via_vi_t *vi;

    v->c.rx_bytes += h->len;
    if (h->op >= VIA_OP_CONN_REQ) {
        if (reliable)
            via_conn_rx(v, from, h, payload);
        return NIC_OK;
    }
    ep = nic_fw_ep_lookup(v->fw, h->dst_vi);
    vi = via_vi_of(ep);
    if (vi == NULL || ep->job_key != h->job_key ||
        atomic_load(&vi->sh->state) != VIA_VI_CONNECTED || h->conn_id != vi->conn_id ||
        h->src_vi != vi->rvi || !addr_eq(from, &vi->raddr) || reliable != (vi->level != VIA_UNRELIABLE)) {
        if (vi == NULL || atomic_load(&vi->sh->state) != VIA_VI_ERROR)
            rx_stale(v, from, h);
        return NIC_OK;
    }
    switch (h->op) {
    case VIA_OP_SEND:
        rx_send(v, vi, h, payload);
        break;
    case VIA_OP_WRITE:
        rx_write(v, vi, h, payload);
        break;
    case VIA_OP_READ_REQ:
        return rx_read_req(v, vi, h);
    case VIA_OP_READ_RESP:
        rx_read_resp(v, vi, h, payload);
        break;
    case VIA_OP_PLACED: {
        via_work_t *w = sq_find(vi, h->msg_id);
        if (w != NULL) {
            w->status = h->status;
            w->finished = 1;
        }
        break;
    }
    case VIA_OP_BREAK:
        rx_break(v, vi, h);
        break;
    default:
        v->c.bad_frames++;
        break;
    }
    return NIC_OK;
}

int via_rx_deliver(void *arg, nic_rel_peer_t *p, const struct sockaddr_in *from, uint8_t *frame,
                   size_t len)
{
    via_fw_t *v = arg;
    via_delayed_t *d;

    (void)p;
    if (!v->timing.enabled)
        return via_rx_place(v, from, frame, len);
    /* Timing model: hold the frame until the emulated NIC has placed it. */
    if (v->delay == NULL && (v->delay = malloc(sizeof(*v->delay) * VIA_DELAY_SLOTS)) == NULL)
        return via_rx_place(v, from, frame, len);
    if (v->delay_tail - v->delay_head == VIA_DELAY_SLOTS)
        return NIC_ERR_NO_RESOURCE;
    d = &v->delay[v->delay_tail++ % VIA_DELAY_SLOTS];
    d->due_ns = via_timing_rx(v, (const via_hdr_t *)frame, (uint32_t)len);
    d->from = *from;
    d->len = (uint32_t)len;
    memcpy(d->buf, frame, len);
    return NIC_OK;
}

int via_rx_delayed(via_fw_t *v, uint64_t now, uint64_t *next)
{
    int n = 0;
    while (v->delay_head != v->delay_tail) {
        via_delayed_t *d = &v->delay[v->delay_head % VIA_DELAY_SLOTS];
        if (d->due_ns > now) {
            if (d->due_ns < *next)
                *next = d->due_ns;
            break;
        }
        if (via_rx_place(v, &d->from, d->buf, d->len) == NIC_ERR_NO_RESOURCE) {
            if (now + 20000 < *next)
                *next = now + 20000;     /* the window back is full: soon again */
            break;
        }
        v->delay_head++;
        n++;
    }
    return n;
}

static void rx_frame(via_fw_t *v, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                     size_t len);

void via_rx_frame(nic_fw_t *fw, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                  size_t len)
{
    rx_frame(via_state(fw), from, job, frame, len);
}

/* The wire receives into its buffers again: the RDMA-write data held back
 * in them goes now. */
void via_rx_batch_end(nic_fw_t *fw)
{
    via_dma_flush(via_state(fw));
}

static void rx_frame(via_fw_t *v, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                     size_t len)
{
    via_hdr_t *h = (via_hdr_t *)frame;
    uint64_t sum;

    if (len < sizeof(*h) || frame[0] != VIA_TYPE0 || frame[1] != VIA_TYPE1 ||
        frame[2] != VIA_TYPE2 || frame[3] != VIA_TYPE3) {
        v->c.bad_frames++;
        return;
    }
    sum = h->csum;
    h->csum = 0;
    if (via_csum(frame, len) != sum) {
        v->c.csum_errors++;                 /* dropped; reliable frames come again */
        return;
    }
    h->csum = sum;
    if (h->len != len - sizeof(*h)) {
        v->c.bad_frames++;
        return;
    }
    if ((h->kind == VIA_KIND_RAW || h->kind == NIC_REL_KIND_DATA) && h->job_key != job) {
        v->c.protection++;                  /* authentic for one job, naming another */
        return;
    }
    v->c.rx_frames++;
    if (h->kind == VIA_KIND_RAW) {
        if (via_rx_deliver(v, NULL, from, frame, len) != NIC_OK)
            v->c.dropped_unreliable++;
        return;
    }
    if (!nic_rel_kind_ours(h->kind)) {
        v->c.bad_frames++;
        return;
    }
    nic_rel_rx(v->rel, from, job, frame, len);
}
