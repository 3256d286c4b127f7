/* via_fw_conn.c - connection management (VIA client/server model).
 *
 * Client: VIA_CTL_CONNECT sends a request naming a discriminator to the
 * server's NIC and puts the VI in CONNECT_PENDING until an ACCEPT, a
 * REJECT or its timeout.  Server NIC: a request waits (up to the client's
 * timeout) until a process of the same job takes it with VIA_CTL_CONN_TAKE
 * (VipConnectWait) for that discriminator, then VIA_CTL_CONN_ACCEPT binds
 * it to a VI (after checking that the reliability levels and MTUs agree)
 * or VIA_CTL_CONN_REJECT refuses it.  Each VI connects to exactly one VI.
 * All connection traffic goes on the reliable streams. */
#include "config.h"

#include <string.h>

#include "../core/nic_log.h"
#include "via_fw.h"

static int addr_eq(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

static void conn_hdr(via_hdr_t *h, uint8_t op, uint32_t dst_vi, uint32_t src_vi, uint32_t conn,
                     uint64_t job_key)
{
    memset(h, 0, sizeof(*h));
    h->op = op;
    h->dst_vi = dst_vi;
    h->src_vi = src_vi;
    h->conn_id = conn;
    h->job_key = job_key;
}

static void vi_info(const via_fw_t *v, const via_vi_t *vi, via_conn_info_t *info)
{
    memset(info, 0, sizeof(*info));
    info->level = vi->level;
    info->max_transfer = vi->max_transfer;
    info->mtu = v->mtu;
    info->rdma_flags = vi->rdma_flags;
}

static void publish_remote(via_vi_t *vi, const via_conn_info_t *info)
{
    vi->sh->remote_vi = vi->rvi;
    vi->sh->remote_ip = vi->raddr.sin_addr.s_addr;
    vi->sh->remote_port = vi->raddr.sin_port;
    vi->sh->remote_level = info->level;
    vi->sh->remote_mtu = info->mtu;
    vi->sh->remote_max_transfer = info->max_transfer;
    vi->sh->remote_rdma = info->rdma_flags;
    vi->sh->conn_id = vi->conn_id;
}

static void conn_result(via_fw_t *v, via_vi_t *vi, uint32_t state, uint32_t result)
{
    if (atomic_load(&vi->sh->state) == VIA_VI_CONNECT_PENDING && v->connecting > 0)
        v->connecting--;
    atomic_store(&vi->sh->conn_result, result);
    atomic_store(&vi->sh->state, state);
    nic_fw_cq_commit(vi->ep);     /* wake a host waiting on the VI */
}

void via_conn_unreachable(via_fw_t *v, via_vi_t *vi)
{
    if (atomic_load(&vi->sh->state) == VIA_VI_CONNECT_PENDING)
        conn_result(v, vi, VIA_VI_IDLE, VIA_CONN_UNREACHABLE);
}

int via_conn_connect(via_fw_t *v, via_vi_t *vi, const via_ctl_connect_t *c)
{
    via_hdr_t h;
    int rc;

    if (atomic_load(&vi->sh->state) != VIA_VI_IDLE || c->disc_len > VIA_DISC_MAX)
        return NIC_ERR_INVALID;
    memset(&vi->raddr, 0, sizeof(vi->raddr));
    vi->raddr.sin_family = AF_INET;
    vi->raddr.sin_addr.s_addr = c->ip;
    vi->raddr.sin_port = c->port;
    vi->conn_id = v->next_conn_id++;
    if (vi->conn_id == 0)
        vi->conn_id = v->next_conn_id++;
    vi->rvi = 0;
    vi_info(v, vi, &vi->conn_info);
    vi->conn_info.timeout_ms = c->timeout_ms;
    vi->conn_info.disc_len = c->disc_len;
    memcpy(vi->conn_info.disc, c->disc, c->disc_len);
    vi->connect_deadline_ns = nic_now_ns() + (uint64_t)c->timeout_ms * 1000000ull;
    conn_hdr(&h, VIA_OP_CONN_REQ, 0, vi->ep->id, vi->conn_id, vi->ep->job_key);
    rc = via_tx_ctl(v, &vi->raddr, &h, &vi->conn_info, sizeof(vi->conn_info));
    if (rc != NIC_OK && rc != NIC_ERR_IO)
        return rc;
    v->c.conn_requests++;
    v->connecting++;
    atomic_store(&vi->sh->conn_result, VIA_CONN_NONE);
    atomic_store(&vi->sh->state, VIA_VI_CONNECT_PENDING);
    return NIC_OK;
}

static via_pending_t *pend_find(via_fw_t *v, uint32_t handle)
{
    for (unsigned i = 0; i < VIA_PEND_MAX; i++)
        if (v->pend[i].used && v->pend[i].handle == handle)
            return &v->pend[i];
    return NULL;
}

int via_conn_take(via_fw_t *v, nic_fw_ep_t *nic_ep, const void *disc, size_t disc_len,
                  via_ctl_conn_req_t *out)
{
    for (unsigned i = 0; i < VIA_PEND_MAX; i++) {
        via_pending_t *p = &v->pend[i];
        if (!p->used || p->taken || p->job_key != nic_ep->job_key ||
            p->info.disc_len != disc_len || memcmp(p->info.disc, disc, disc_len) != 0)
            continue;
        p->taken = 1;
        p->server_nic = nic_ep->id;
        memset(out, 0, sizeof(*out));
        out->conn = p->handle;
        out->ip = p->from.sin_addr.s_addr;
        out->port = p->from.sin_port;
        out->info = p->info;
        return NIC_OK;
    }
    return NIC_ERR_NOT_FOUND;
}

static void pend_reply(via_fw_t *v, via_pending_t *p, uint8_t op, uint32_t src_vi,
                       uint32_t status, const via_conn_info_t *info)
{
    via_hdr_t h;
    conn_hdr(&h, op, p->client_vi, src_vi, p->conn_id, p->job_key);
    h.status = status;
    via_tx_ctl(v, &p->from, &h, info, info ? sizeof(*info) : 0);
}

int via_conn_accept(via_fw_t *v, via_vi_t *vi, uint32_t handle, uint32_t *reason)
{
    via_pending_t *p = pend_find(v, handle);
    via_conn_info_t mine;
    nic_rel_peer_t *peer;

    *reason = VIA_CONN_OK;
    if (p == NULL || !p->taken || p->server_nic != vi->nic_ep)
        return NIC_ERR_NOT_FOUND;
    if (atomic_load(&vi->sh->state) != VIA_VI_IDLE)
        return NIC_ERR_INVALID;
    if ((peer = nic_rel_peer(v->rel, &p->from, p->job_key, 1)) == NULL || nic_rel_tx_space(v->rel, peer) == 0)
        return NIC_ERR_NO_RESOURCE;
    vi_info(v, vi, &mine);
    if (mine.level != p->info.level)
        *reason = VIA_CONN_BAD_LEVEL;
    else if (mine.mtu != p->info.mtu)
        *reason = VIA_CONN_BAD_MTU;
    if (*reason != VIA_CONN_OK) {
        pend_reply(v, p, VIA_OP_CONN_REJECT, vi->ep->id, *reason, NULL);
        v->c.conn_rejects++;
        memset(p, 0, sizeof(*p));
        return NIC_OK;                   /* answered: the reason says how */
    }
    vi->raddr = p->from;
    vi->rvi = p->client_vi;
    vi->conn_id = p->conn_id;
    publish_remote(vi, &p->info);
    pend_reply(v, p, VIA_OP_CONN_ACCEPT, vi->ep->id, 0, &mine);
    v->c.conn_accepts++;
    memset(p, 0, sizeof(*p));
    atomic_store(&vi->sh->conn_result, VIA_CONN_OK);
    atomic_store(&vi->sh->state, VIA_VI_CONNECTED);
    return NIC_OK;
}

int via_conn_reject(via_fw_t *v, uint32_t owner, uint32_t handle)
{
    via_pending_t *p = pend_find(v, handle);
    if (p == NULL || !p->taken || p->server_nic != owner)
        return NIC_ERR_NOT_FOUND;
    pend_reply(v, p, VIA_OP_CONN_REJECT, 0, VIA_CONN_REJECTED, NULL);
    v->c.conn_rejects++;
    memset(p, 0, sizeof(*p));
    return NIC_OK;
}

int via_conn_disconnect(via_fw_t *v, via_vi_t *vi, int tell)
{
    uint32_t state = atomic_load(&vi->sh->state);

    if (state == VIA_VI_CONNECTED && tell) {
        via_hdr_t h;
        conn_hdr(&h, VIA_OP_DISCONNECT, vi->rvi, vi->ep->id, vi->conn_id, vi->ep->job_key);
        via_tx_ctl(v, &vi->raddr, &h, NULL, 0);
    }
    if (state == VIA_VI_CONNECT_PENDING && v->connecting > 0)
        v->connecting--;
    if (state == VIA_VI_CONNECTED || state == VIA_VI_ERROR)
        via_vi_flush(v, vi);
    vi->rvi = 0;
    vi->conn_id = 0;
    atomic_store(&vi->sh->state, VIA_VI_IDLE);
    nic_fw_cq_commit(vi->ep);
    return NIC_OK;
}

/* A request from a client NIC: keep it until a server takes it. */
static void rx_request(via_fw_t *v, const struct sockaddr_in *from, const via_hdr_t *h,
                       const uint8_t *payload)
{
    via_conn_info_t info;
    via_pending_t *free_slot = NULL;
    uint64_t now = nic_now_ns();

    if (h->len != sizeof(info)) {
        v->c.bad_frames++;
        return;
    }
    memcpy(&info, payload, sizeof(info));
    if (info.disc_len > VIA_DISC_MAX) {
        v->c.bad_frames++;
        return;
    }
    for (unsigned i = 0; i < VIA_PEND_MAX; i++) {
        via_pending_t *p = &v->pend[i];
        if (!p->used) {
            if (free_slot == NULL)
                free_slot = p;
            continue;
        }
        if (addr_eq(&p->from, from) && p->client_vi == h->src_vi && p->conn_id == h->conn_id)
            return;                                 /* already here */
    }
    if (free_slot == NULL) {
        nic_log_warn(nic_fw_log(v->fw),
                     "connection request from VI %#x dropped: %u requests already wait",
                     h->src_vi, VIA_PEND_MAX);
        return;
    }
    free_slot->used = 1;
    free_slot->taken = 0;
    do {
        free_slot->handle = via_random(v);
    } while (free_slot->handle == 0);
    free_slot->from = *from;
    free_slot->client_vi = h->src_vi;
    free_slot->conn_id = h->conn_id;
    free_slot->job_key = h->job_key;
    free_slot->info = info;
    free_slot->expires_ns = now + (uint64_t)(info.timeout_ms ? info.timeout_ms : 1) * 1000000ull;
}

static void rx_answer(via_fw_t *v, const struct sockaddr_in *from, const via_hdr_t *h,
                      const uint8_t *payload)
{
    nic_fw_ep_t *ep = nic_fw_ep_lookup(v->fw, h->dst_vi);
    via_vi_t *vi = via_vi_of(ep);

    if (vi == NULL || atomic_load(&vi->sh->state) != VIA_VI_CONNECT_PENDING ||
        vi->conn_id != h->conn_id || !addr_eq(from, &vi->raddr)) {
        /* Too late (timed out) or unknown: an accepted connection would be
         * left half open, so close the server's side. */
        if (h->op == VIA_OP_CONN_ACCEPT) {
            via_hdr_t d;
            conn_hdr(&d, VIA_OP_DISCONNECT, h->src_vi, h->dst_vi, h->conn_id, h->job_key);
            via_tx_ctl(v, from, &d, NULL, 0);
        }
        return;
    }
    if (h->op == VIA_OP_CONN_REJECT) {
        v->c.conn_rejects++;
        conn_result(v, vi, VIA_VI_IDLE, h->status ? h->status : VIA_CONN_REJECTED);
        return;
    }
    via_conn_info_t info;
    memset(&info, 0, sizeof(info));
    if (h->len == sizeof(info))
        memcpy(&info, payload, sizeof(info));
    vi->rvi = h->src_vi;
    publish_remote(vi, &info);
    conn_result(v, vi, VIA_VI_CONNECTED, VIA_CONN_OK);
}

static void rx_disconnect(via_fw_t *v, const struct sockaddr_in *from, const via_hdr_t *h)
{
    nic_fw_ep_t *ep = nic_fw_ep_lookup(v->fw, h->dst_vi);
    via_vi_t *vi = via_vi_of(ep);

    if (vi == NULL || vi->conn_id != h->conn_id || vi->rvi != h->src_vi ||
        !addr_eq(from, &vi->raddr) || atomic_load(&vi->sh->state) != VIA_VI_CONNECTED)
        return;
    /* The peer went away: our side of the connection is lost. */
    via_vi_break(v, vi, VIA_AERR_CONN_LOST, 0, 0);
}

void via_conn_rx(via_fw_t *v, const struct sockaddr_in *from, const via_hdr_t *h,
                 const uint8_t *payload)
{
    switch (h->op) {
    case VIA_OP_CONN_REQ:
        rx_request(v, from, h, payload);
        break;
    case VIA_OP_CONN_ACCEPT:
    case VIA_OP_CONN_REJECT:
        rx_answer(v, from, h, payload);
        break;
    case VIA_OP_DISCONNECT:
        rx_disconnect(v, from, h);
        break;
    default:
        v->c.bad_frames++;
        break;
    }
}

typedef struct conn_scan {
    via_fw_t *v;
    uint64_t  now, next;
    int       events;
} conn_scan_t;

static void conn_timeout_one(nic_fw_t *fw, nic_fw_ep_t *ep, void *arg)
{
    conn_scan_t *s = arg;
    via_vi_t *vi = via_vi_of(ep);

    if (vi == NULL || atomic_load(&vi->sh->state) != VIA_VI_CONNECT_PENDING)
        return;
    if (s->now >= vi->connect_deadline_ns) {
        s->v->c.conn_timeouts++;
        nic_log_info(nic_fw_log(fw), "VI %#x: connection request timed out", ep->id);
        conn_result(s->v, vi, VIA_VI_IDLE, VIA_CONN_TIMEOUT);
        s->events++;
    } else if (vi->connect_deadline_ns < s->next) {
        s->next = vi->connect_deadline_ns;
    }
}

int via_conn_poll(via_fw_t *v, uint64_t now, uint64_t *next)
{
    conn_scan_t s = { v, now, *next, 0 };

    if (v->connecting > 0) {
        nic_fw_ep_foreach(v->fw, conn_timeout_one, &s);
        *next = s.next;
    }
    for (unsigned i = 0; i < VIA_PEND_MAX; i++) {
        via_pending_t *p = &v->pend[i];
        if (p->used && now >= p->expires_ns) {
            /* Nobody took it in time; the client times out on its own. */
            memset(p, 0, sizeof(*p));
            s.events++;
        } else if (p->used && p->expires_ns < *next) {
            *next = p->expires_ns;
        }
    }
    return s.events;
}

void via_conn_reclaim(via_fw_t *v, uint32_t owner)
{
    for (unsigned i = 0; i < VIA_PEND_MAX; i++)
        if (v->pend[i].used && v->pend[i].taken && v->pend[i].server_nic == owner)
            memset(&v->pend[i], 0, sizeof(v->pend[i]));
}
