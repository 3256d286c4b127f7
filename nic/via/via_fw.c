/* via_fw.c - the VI firmware as a personality of the NIC core: set-up,
 * the objects of the VI architecture (NIC handles, VIs, completion queues)
 * on top of core endpoints, configuration calls, status.  Data path:
 * via_fw_tx.c, via_fw_rx.c; descriptors: via_fw_desc.c; memory:
 * via_fw_tpt.c, via_fw_dma.c; connections: via_fw_conn.c. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/nic_log.h"
#include "../core/nic_env.h"
#include "via_fw.h"

uint32_t via_random(via_fw_t *v)
{
    v->rng ^= v->rng >> 12;
    v->rng ^= v->rng << 25;
    v->rng ^= v->rng >> 27;
    return (uint32_t)((v->rng * 2685821657736338717ull) >> 32);
}

/* --- the reliable streams with the VI frame layout --- */

static size_t via_ack_frame(void *arg, uint8_t *buf, size_t cap)
{
    via_hdr_t *h = (via_hdr_t *)buf;
    if (cap < sizeof(*h))
        return 0;
    memset(h, 0, sizeof(*h));
    h->type[0] = VIA_TYPE0;
    h->type[1] = VIA_TYPE1;
    h->type[2] = VIA_TYPE2;
    h->type[3] = VIA_TYPE3;
    return sizeof(*h);
}

static void via_seal(void *arg, uint8_t *frame, size_t len, uint64_t now, int what)
{
    via_hdr_t *h = (via_hdr_t *)frame;
    /* An ack may carry the stream's SACK block after the header: its
     * payload, as far as the receive checks are concerned. */
    if (what == NIC_REL_SEAL_ACK)
        h->len = (uint16_t)(len - sizeof(*h));
    h->csum = 0;
    h->csum = via_csum(frame, len);
}

/* Why a connection to a peer firmware that is gone is lost: it stopped
 * (said BYE: its process finalized or exited), or it died. */
static uint32_t via_gone_aerr(int status)
{
    return status == NIC_ERR_NOT_FOUND ? VIA_AERR_PEER_STOPPED : VIA_AERR_CONN_LOST;
}

/* A connection request the gone peer will never answer; the connected VIs
 * break in via_peer_gone, which follows. */
static void via_lost(void *arg, const uint8_t *frame, size_t len, int status)
{
    via_fw_t *v = arg;
    const via_hdr_t *h = (const via_hdr_t *)frame;
    via_vi_t *vi = via_vi_of(nic_fw_ep_lookup(v->fw, h->src_vi));

    if (vi != NULL && h->conn_id == vi->conn_id && h->op == VIA_OP_CONN_REQ)
        via_conn_unreachable(v, vi);
}

typedef struct via_gone {
    const nic_rel_peer_t *peer;
    uint32_t              aerr;
} via_gone_t;

/* A connected VI whose peer firmware is gone breaks. */
static void via_break_if_to(nic_fw_t *fw, nic_fw_ep_t *ep, void *arg)
{
    const via_gone_t *g = arg;
    via_vi_t *vi = via_vi_of(ep);

    if (vi != NULL && atomic_load(&vi->sh->state) == VIA_VI_CONNECTED &&
        vi->raddr.sin_addr.s_addr == g->peer->addr.sin_addr.s_addr &&
        vi->raddr.sin_port == g->peer->addr.sin_port)
        via_vi_break(nic_fw_pers_state(fw), vi, g->aerr, VIA_STATUS_TRANSPORT_ERROR, 0);
}

/* Every connection to the gone peer, with frames in flight or not. */
static void via_peer_gone(void *arg, const nic_rel_peer_t *p, int status)
{
    via_fw_t *v = arg;
    via_gone_t g = { .peer = p, .aerr = via_gone_aerr(status) };

    nic_fw_ep_foreach(v->fw, via_break_if_to, &g);
}

static int via_fw_init(nic_fw_t *fw, void **state)
{
    nic_rel_config_t cfg = {
        .hdr_off = 4,
        .frame_max = VIA_FRAME_MAX,
    };
    nic_rel_ops_t ops = {
        .ack_frame = via_ack_frame,
        .seal = via_seal,
        .deliver = via_rx_deliver,
        .lost = via_lost,
        .peer_gone = via_peer_gone,
    };
    long long rdma_read, mtu;
    via_fw_t *v;
    int rc;

    /* MULTIDEV_VIA_MTU's declared range is 256..VIA_PAYLOAD_MAX */
    if (nic_env_num(nic_fw_log(fw), "MULTIDEV_VIA_RDMA_READ", &rdma_read) != NIC_OK ||
        nic_env_num(nic_fw_log(fw), "MULTIDEV_VIA_MTU", &mtu) != NIC_OK)
        return NIC_ERR_CONFIG;
    if ((v = calloc(1, sizeof(*v))) == NULL)
        return NIC_ERR_NO_MEMORY;
    v->fw = fw;
    v->tx_due_ns = UINT64_MAX;
    v->tpt = calloc(VIA_TPT_MAX, sizeof(*v->tpt));
    if (v->tpt == NULL) {
        free(v);
        return NIC_ERR_NO_MEMORY;
    }
    v->rng = nic_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)v;
    v->next_conn_id = via_random(v) | 1;
    v->rdma_read_support = (int)rdma_read;
    v->mtu = (uint32_t)mtu;
    /* A reliable message's frames fit one datagram of the wire: a frame
     * the wire cut into pieces is lost whenever any piece is (an 8 kB
     * frame on a 1500-byte link crosses in 6: a quarter of the frames lost
     * at 5% of the datagrams).  Unreliable messages stay one frame each, as
     * VIA says, up to the MTU. */
    size_t fit = nic_fw_wire(fw)->piece_max - sizeof(via_hdr_t);
    v->wire_payload = fit < v->mtu ? (uint32_t)(fit & ~(size_t)7) : v->mtu;
    if (v->wire_payload < 256)
        v->wire_payload = 256;
    if ((rc = nic_rel_create(fw, &cfg, &ops, v, &v->rel)) != NIC_OK) {
        free(v->tpt);
        free(v);
        return rc;
    }
    *state = v;
    return NIC_OK;
}

static void via_fw_fini(nic_fw_t *fw, void *state)
{
    via_fw_t *v = state;
    via_dma_flush(v);
    nic_rel_destroy(v->rel);
    free(v->delay);
    free(v->tpt);
    free(v);
}

static int via_ep_open(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    via_ep_t *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return NIC_ERR_NO_MEMORY;
    e->pid = nic_fw_ep_pid(fw, ep);
    ep->pers = e;
    return NIC_OK;
}

static void via_unbind_cq(nic_fw_t *fw, nic_fw_ep_t *ep, void *arg)
{
    via_vi_t *vi = via_vi_of(ep);
    uint32_t cq = *(uint32_t *)arg;
    if (vi == NULL)
        return;
    if (vi->send_cq == cq)
        vi->send_cq = 0;
    if (vi->recv_cq == cq)
        vi->recv_cq = 0;
}

static void via_ep_close(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    via_fw_t *v = via_state(fw);
    via_ep_t *e = ep->pers;

    if (e == NULL)
        return;
    switch (e->kind) {
    case VIA_EP_NIC:
        via_conn_reclaim(v, ep->id);
        via_tpt_reclaim(v, ep->id);
        for (unsigned i = 0; i < VIA_PTAG_MAX; i++)
            if (v->ptag[i].owner == ep->id)
                memset(&v->ptag[i], 0, sizeof(v->ptag[i]));
        break;
    case VIA_EP_VI:
        via_conn_disconnect(v, &e->u.vi, 1);
        free(e->u.vi.rq);
        free(e->u.vi.sq);
        free(e->u.vi.rd);
        free(e->u.vi.owed_placed);
        break;
    case VIA_EP_CQ: {
        uint32_t id = ep->id;
        nic_fw_ep_foreach(fw, via_unbind_cq, &id);
        break;
    }
    default:
        break;
    }
    free(e);
    ep->pers = NULL;
}

/* The job's last endpoint here closed: requests of it that no server took
 * go (their clients time out, or were the job's own), then its streams. */
static void via_job_end(nic_fw_t *fw, uint64_t job)
{
    via_fw_t *v = via_state(fw);

    for (unsigned i = 0; i < VIA_PEND_MAX; i++)
        if (v->pend[i].used && v->pend[i].job_key == job)
            memset(&v->pend[i], 0, sizeof(v->pend[i]));
    nic_rel_job_end(v->rel, job);
}

static uint32_t pow2_floor(uint32_t n)
{
    uint32_t p = 1;
    while (p * 2 <= n && p < (1u << 30))
        p *= 2;
    return p;
}

static int via_vi_create(via_fw_t *v, nic_fw_ep_t *ep, const via_ctl_vi_create_t *c)
{
    via_ep_t *e = ep->pers;
    via_vi_t *vi = &e->u.vi;
    nic_fw_ep_t *nic = nic_fw_ep_lookup(v->fw, c->nic_ep);

    if (nic == NULL || via_ep(nic)->kind != VIA_EP_NIC || nic->conn != ep->conn)
        return NIC_ERR_PROTECTION;
    if (c->ptag == 0 || via_ptag_owner(v, c->ptag) != c->nic_ep) {
        nic_log_info(nic_fw_log(v->fw), "VI create refused: protection tag %#x is not this "
                     "process's", c->ptag);
        return NIC_ERR_PROTECTION;
    }
    if (c->level != VIA_UNRELIABLE && c->level != VIA_RELIABLE_DELIVERY &&
        c->level != VIA_RELIABLE_RECEPTION)
        return NIC_ERR_INVALID;
    if ((c->rdma_flags & VIA_MR_RDMA_READ) &&
        (!v->rdma_read_support || c->level == VIA_UNRELIABLE))
        return NIC_ERR_UNSUPPORTED;
    if (c->max_transfer == 0 || c->max_transfer > VIA_MAX_TRANSFER ||
        (c->level == VIA_UNRELIABLE && c->max_transfer > v->mtu))
        return NIC_ERR_INVALID;
    for (int i = 0; i < 2; i++) {
        uint32_t id = i ? c->recv_cq : c->send_cq;
        nic_fw_ep_t *cq = id ? nic_fw_ep_lookup(v->fw, id) : NULL;
        if (id && (cq == NULL || via_ep(cq)->kind != VIA_EP_CQ || cq->conn != ep->conn))
            return NIC_ERR_PROTECTION;
    }
    memset(vi, 0, sizeof(*vi));
    vi->ep = ep;
    vi->sh = (via_vi_shared_t *)ep->sh->pers;
    vi->nic_ep = c->nic_ep;
    vi->ptag = c->ptag;
    vi->level = c->level;
    vi->max_transfer = c->max_transfer;
    vi->rdma_flags = c->rdma_flags;
    vi->send_cq = c->send_cq;
    vi->recv_cq = c->recv_cq;
    vi->pid = e->pid;
    vi->rq_cap = ep->sh->rq_entries;
    vi->sq_cap = pow2_floor(ep->sh->sq_entries);
    vi->rd_cap = vi->sq_cap;
    vi->rq = calloc(vi->rq_cap ? vi->rq_cap : 1, sizeof(*vi->rq));
    vi->sq = calloc(vi->sq_cap, sizeof(*vi->sq));
    vi->rd = calloc(vi->rd_cap, sizeof(*vi->rd));
    if (vi->rq == NULL || vi->sq == NULL || vi->rd == NULL) {
        free(vi->rq);
        free(vi->sq);
        free(vi->rd);
        return NIC_ERR_NO_MEMORY;
    }
    atomic_store(&vi->sh->state, VIA_VI_IDLE);
    e->kind = VIA_EP_VI;
    return NIC_OK;
}

static void via_nic_attr(via_fw_t *v, via_nic_attr_t *a)
{
    memset(a, 0, sizeof(*a));
    a->max_register_regions = VIA_TPT_MAX - 1;
    a->max_vi = NIC_FW_MAX_EP;
    a->max_descriptors_per_queue = 65536;
    a->max_segments_per_desc = VIA_MAX_DATA_SEGS;
    a->max_cq_entries = 65536;
    a->max_transfer = VIA_MAX_TRANSFER;
    a->native_mtu = v->timing.enabled && v->timing.mtu ? v->timing.mtu : v->mtu;
    a->max_ptags = VIA_PTAG_MAX;
    a->reliability_support = VIA_UNRELIABLE | VIA_RELIABLE_DELIVERY | VIA_RELIABLE_RECEPTION;
    a->rdma_read_support = (uint32_t)v->rdma_read_support;
    a->max_discriminator_len = VIA_DISC_MAX;
    a->ip = nic_fw_wire(v->fw)->addr.sin_addr.s_addr;
    a->port = nic_fw_wire(v->fw)->addr.sin_port;
    a->fw_pid = (int32_t)getpid();
}

/* Which kind an endpoint must be for a call. */
static int via_need(nic_fw_ep_t *ep, int kind)
{
    return via_ep(ep)->kind == kind ? NIC_OK : NIC_ERR_INVALID;
}

static int via_ep_ctl(nic_fw_t *fw, nic_fw_ep_t *ep, uint32_t op, const void *in, size_t in_len,
                      void *out, size_t *out_len)
{
    via_fw_t *v = via_state(fw);
    via_ep_t *e = ep->pers;
    size_t cap = *out_len;
    int rc;

    *out_len = 0;
    switch (op) {
    case VIA_CTL_NIC_OPEN:
        if (e->kind != VIA_EP_NONE && e->kind != VIA_EP_NIC)
            return NIC_ERR_INVALID;
        e->kind = VIA_EP_NIC;
        if (cap < sizeof(via_nic_attr_t))
            return NIC_ERR_INVALID;
        via_nic_attr(v, out);
        *out_len = sizeof(via_nic_attr_t);
        return NIC_OK;
    case VIA_CTL_PTAG_CREATE:
        if ((rc = via_need(ep, VIA_EP_NIC)) != NIC_OK || cap < sizeof(uint32_t))
            return NIC_ERR_INVALID;
        if ((rc = via_ptag_create(v, ep->id, out)) == NIC_OK)
            *out_len = sizeof(uint32_t);
        return rc;
    case VIA_CTL_PTAG_DESTROY:
        if (via_need(ep, VIA_EP_NIC) != NIC_OK || in_len != sizeof(uint32_t))
            return NIC_ERR_INVALID;
        return via_ptag_destroy(v, ep->id, *(const uint32_t *)in);
    case VIA_CTL_MEM_REG:
        if (via_need(ep, VIA_EP_NIC) != NIC_OK || in_len != sizeof(via_ctl_mem_reg_t) ||
            cap < sizeof(uint32_t))
            return NIC_ERR_INVALID;
        if ((rc = via_tpt_register(v, ep, in, out)) == NIC_OK)
            *out_len = sizeof(uint32_t);
        return rc;
    case VIA_CTL_MEM_DEREG:
        if (via_need(ep, VIA_EP_NIC) != NIC_OK || in_len != sizeof(uint32_t))
            return NIC_ERR_INVALID;
        return via_tpt_deregister(v, ep->id, *(const uint32_t *)in);
    case VIA_CTL_CQ_CREATE:
        if (e->kind != VIA_EP_NONE)
            return NIC_ERR_INVALID;
        e->kind = VIA_EP_CQ;
        e->u.cq.ep = ep;
        return NIC_OK;
    case VIA_CTL_VI_CREATE:
        if (e->kind != VIA_EP_NONE || in_len != sizeof(via_ctl_vi_create_t))
            return NIC_ERR_INVALID;
        return via_vi_create(v, ep, in);
    case VIA_CTL_CONNECT:
        if (via_need(ep, VIA_EP_VI) != NIC_OK || in_len != sizeof(via_ctl_connect_t))
            return NIC_ERR_INVALID;
        return via_conn_connect(v, &e->u.vi, in);
    case VIA_CTL_CONN_TAKE:
        if (via_need(ep, VIA_EP_NIC) != NIC_OK || in_len > VIA_DISC_MAX ||
            cap < sizeof(via_ctl_conn_req_t))
            return NIC_ERR_INVALID;
        if ((rc = via_conn_take(v, ep, in, in_len, out)) == NIC_OK)
            *out_len = sizeof(via_ctl_conn_req_t);
        return rc;
    case VIA_CTL_CONN_ACCEPT: {
        uint32_t reason;
        if (via_need(ep, VIA_EP_VI) != NIC_OK || in_len != sizeof(uint32_t) ||
            cap < sizeof(uint32_t))
            return NIC_ERR_INVALID;
        rc = via_conn_accept(v, &e->u.vi, *(const uint32_t *)in, &reason);
        memcpy(out, &reason, sizeof(reason));
        *out_len = sizeof(reason);
        return rc;
    }
    case VIA_CTL_CONN_REJECT:
        if (via_need(ep, VIA_EP_NIC) != NIC_OK || in_len != sizeof(uint32_t))
            return NIC_ERR_INVALID;
        return via_conn_reject(v, ep->id, *(const uint32_t *)in);
    case VIA_CTL_DISCONNECT:
        if (via_need(ep, VIA_EP_VI) != NIC_OK)
            return NIC_ERR_INVALID;
        return via_conn_disconnect(v, &e->u.vi, 1);
    case VIA_CTL_TIMING:
        if (via_need(ep, VIA_EP_NIC) != NIC_OK || in_len != sizeof(via_timing_t))
            return NIC_ERR_INVALID;
        memcpy(&v->timing, in, sizeof(v->timing));
        if (v->timing.enabled && (v->timing.mtu == 0 || v->timing.mtu > VIA_PAYLOAD_MAX))
            v->timing.mtu = v->mtu;
        return NIC_OK;
    default:
        return NIC_ERR_UNSUPPORTED;
    }
}

static int via_ep_service(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    via_vi_t *vi = via_vi_of(ep);
    return vi != NULL ? via_vi_service(via_state(fw), vi) : 0;
}

static int via_poll(nic_fw_t *fw, uint64_t now, uint64_t *next)
{
    via_fw_t *v = via_state(fw);
    int events = 0;

    via_dma_flush(v);       /* before the wire receives into its buffers again */
    if (v->delay_head != v->delay_tail)
        events += via_rx_delayed(v, now, next);
    /* Send work the timing model holds (the VIs were serviced just before) */
    if (v->tx_due_ns < *next)
        *next = v->tx_due_ns;
    v->tx_due_ns = UINT64_MAX;
    events += nic_rel_poll(v->rel, now, next);
    events += via_conn_poll(v, now, next);
    return events;
}

static void via_status(nic_fw_t *fw, FILE *f)
{
    via_fw_t *v = via_state(fw);
    const via_counters_t *c = &v->c;
    const nic_rel_counters_t *r = nic_rel_counters(v->rel);
    unsigned regs = 0, ptags = 0;

    for (unsigned i = 0; i < VIA_TPT_MAX; i++)
        regs += v->tpt[i].handle != 0;
    for (unsigned i = 0; i < VIA_PTAG_MAX; i++)
        ptags += v->ptag[i].value != 0;
    fprintf(f, "via: incarnation %#x, streams %u (peer firmware and job), %u registrations, %u ptags, mtu %u "
               "(reliable frames of %u), rdma read %s, timing model %s\n",
            nic_rel_incarnation(v->rel), nic_rel_peer_count(v->rel), regs, ptags, v->mtu,
            v->wire_payload,
            v->rdma_read_support ? "on" : "off", v->timing.enabled ? "on" : "off");
    fprintf(f, "via: tx frames %llu bytes %llu; rx frames %llu bytes %llu; sends %llu recvs "
               "%llu rdma writes %llu rdma reads %llu\n",
            (unsigned long long)c->tx_frames, (unsigned long long)c->tx_bytes,
            (unsigned long long)c->rx_frames, (unsigned long long)c->rx_bytes,
            (unsigned long long)c->sends, (unsigned long long)c->recvs,
            (unsigned long long)c->rdma_writes, (unsigned long long)c->rdma_reads);
    fprintf(f, "via: stream acks %llu/%llu retransmits %llu duplicates %llu out-of-order %llu "
               "backpressure %llu peer failures %llu stopped %llu\n",
            (unsigned long long)r->tx_acks, (unsigned long long)r->rx_acks,
            (unsigned long long)r->retransmits, (unsigned long long)r->duplicates,
            (unsigned long long)r->out_of_order, (unsigned long long)r->backpressure,
            (unsigned long long)r->peer_failures, (unsigned long long)r->peers_stopped);
    nic_rel_status(v->rel, f, "via");
    fprintf(f, "via: errors bad %llu checksum %llu protection %llu recvq-empty %llu length %llu "
               "unreliable-dropped %llu breaks %llu cq-overruns %llu dma %llu\n",
            (unsigned long long)c->bad_frames, (unsigned long long)c->csum_errors,
            (unsigned long long)c->protection, (unsigned long long)c->recvq_empty,
            (unsigned long long)c->length_errors, (unsigned long long)c->dropped_unreliable,
            (unsigned long long)c->breaks, (unsigned long long)c->cq_overruns,
            (unsigned long long)c->dma_errors);
    fprintf(f, "via: connections requested %llu accepted %llu rejected %llu timed-out %llu\n",
            (unsigned long long)c->conn_requests, (unsigned long long)c->conn_accepts,
            (unsigned long long)c->conn_rejects, (unsigned long long)c->conn_timeouts);
}

const nic_pers_ops_t nic_via_ops = {
    .name = "via",
    .id = NIC_PERS_VIA,
    .fw_init = via_fw_init,
    .fw_fini = via_fw_fini,
    .ep_open = via_ep_open,
    .ep_close = via_ep_close,
    .job_end = via_job_end,
    .ep_ctl = via_ep_ctl,
    .ep_service = via_ep_service,
    .rx_frame = via_rx_frame,
    .rx_batch_end = via_rx_batch_end,
    .poll = via_poll,
    .status = via_status,
};
