/* vipl_vi.c - virtual interfaces: create (a core endpoint whose SQ and RQ
 * are the send and receive doorbell FIFOs), post descriptors (write a
 * token, ring the doorbell), reap them in order when the NIC has written
 * their Status (polling), or block on the VI's completion counter. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "vipl_impl.h"

static int is_pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

static int fifo_init(vipl_fifo_t *f, uint32_t cap)
{
    f->d = calloc(cap, sizeof(*f->d));
    f->cap = cap;
    f->head = f->tail = 0;
    return f->d != NULL ? 0 : -1;
}

vipl_result_t vipl_create_vi(vipl_nic_t *nic, const vipl_vi_attr_t *a, vipl_cq_t *send_cq,
                             vipl_cq_t *recv_cq, vipl_vi_t **vi_p)
{
    via_ctl_vi_create_t c;
    vipl_vi_t *vi;
    int rc;

    if (nic == NULL || a == NULL || vi_p == NULL || !is_pow2(a->send_depth) ||
        !is_pow2(a->recv_depth))
        return VIPL_INVALID_PARAMETER;
    if (a->reliability != VIA_UNRELIABLE && a->reliability != VIA_RELIABLE_DELIVERY &&
        a->reliability != VIA_RELIABLE_RECEPTION)
        return VIPL_INVALID_RELIABILITY_LEVEL;
    if (a->enable_rdma_read && (!nic->attr.rdma_read_support || a->reliability == VIA_UNRELIABLE))
        return VIPL_INVALID_RDMAREAD;
    vi = calloc(1, sizeof(*vi));
    if (vi == NULL)
        return VIPL_ERROR_RESOURCE;
    vi->nic = nic;
    vi->attr = *a;
    vi->send_cq = send_cq;
    vi->recv_cq = recv_cq;
    pthread_mutex_init(&vi->lock, NULL);
    if (fifo_init(&vi->sendq, a->send_depth) != 0 || fifo_init(&vi->recvq, a->recv_depth) != 0) {
        rc = NIC_ERR_NO_MEMORY;
        goto err;
    }
    if ((rc = nic_ep_open(nic->host, &nic->job, a->send_depth, a->recv_depth, 1, &vi->ep)) !=
        NIC_OK)
        goto err;
    memset(&c, 0, sizeof(c));
    c.nic_ep = nic->ep->id;
    c.ptag = a->ptag;
    c.level = a->reliability;
    c.max_transfer = a->max_transfer;
    c.rdma_flags = (a->enable_rdma_write ? VIA_MR_RDMA_WRITE : 0) |
                   (a->enable_rdma_read ? VIA_MR_RDMA_READ : 0);
    c.send_cq = send_cq ? send_cq->ep->id : 0;
    c.recv_cq = recv_cq ? recv_cq->ep->id : 0;
    if ((rc = nic_ep_ctl(vi->ep, VIA_CTL_VI_CREATE, &c, sizeof(c), NULL, NULL)) != NIC_OK) {
        vipl_result_t r = rc == NIC_ERR_UNSUPPORTED ? VIPL_INVALID_RDMAREAD
                          : rc == NIC_ERR_INVALID   ? VIPL_INVALID_PARAMETER
                                                    : vipl_from_nic(rc);
        vipl_destroy_vi(vi);
        return r;
    }
    vi->sh = (via_vi_shared_t *)vi->ep->sh->pers;
    pthread_mutex_lock(&nic->lock);
    nic->vis[vi->ep->id & 0xff] = vi;
    pthread_mutex_unlock(&nic->lock);
    *vi_p = vi;
    return VIPL_SUCCESS;
err:
    vipl_destroy_vi(vi);
    return vipl_from_nic(rc);
}

vipl_result_t vipl_destroy_vi(vipl_vi_t *vi)
{
    if (vi == NULL)
        return VIPL_INVALID_PARAMETER;
    if (vi->ep != NULL) {
        pthread_mutex_lock(&vi->nic->lock);
        if (vi->nic->vis[vi->ep->id & 0xff] == vi)
            vi->nic->vis[vi->ep->id & 0xff] = NULL;
        pthread_mutex_unlock(&vi->nic->lock);
        nic_ep_close(vi->ep);     /* disconnects and flushes in the firmware */
    }
    pthread_mutex_destroy(&vi->lock);
    free(vi->sendq.d);
    free(vi->recvq.d);
    free(vi);
    return VIPL_SUCCESS;
}

uint32_t vipl_vi_id(const vipl_vi_t *vi) { return vi->ep->id; }
void vipl_vi_set_context(vipl_vi_t *vi, void *ctx) { vi->ctx = ctx; }
void *vipl_vi_context(const vipl_vi_t *vi) { return vi->ctx; }

vipl_result_t vipl_query_vi(vipl_vi_t *vi, vipl_vi_info_t *info)
{
    if (vi == NULL || info == NULL)
        return VIPL_INVALID_PARAMETER;
    memset(info, 0, sizeof(*info));
    info->state = atomic_load(&vi->sh->state);
    info->async_error = atomic_load(&vi->sh->async_error);
    info->async_count = atomic_load(&vi->sh->async_count);
    pthread_mutex_lock(&vi->lock);
    info->send_queue_empty = vi->sendq.head == vi->sendq.tail;
    info->recv_queue_empty = vi->recvq.head == vi->recvq.tail;
    pthread_mutex_unlock(&vi->lock);
    info->remote.reliability = vi->sh->remote_level;
    info->remote.max_transfer = vi->sh->remote_max_transfer;
    info->remote.enable_rdma_write = (vi->sh->remote_rdma & VIA_MR_RDMA_WRITE) != 0;
    info->remote.enable_rdma_read = (vi->sh->remote_rdma & VIA_MR_RDMA_READ) != 0;
    return VIPL_SUCCESS;
}

/* Is the descriptor in memory registered under handle? */
static int desc_registered(vipl_nic_t *nic, const via_desc_t *d, uint32_t handle)
{
    uint64_t va = (uint64_t)(uintptr_t)d;
    vipl_reg_t *r;
    int ok;

    pthread_mutex_lock(&nic->lock);
    r = vipl_reg_find(nic, handle);
    ok = r != NULL && va >= r->va && va + sizeof(via_ctl_seg_t) <= r->va + r->len;
    pthread_mutex_unlock(&nic->lock);
    return ok;
}

static vipl_result_t post(vipl_vi_t *vi, via_desc_t *d, vipl_mem_handle_t handle, int recv)
{
    vipl_fifo_t *f = recv ? &vi->recvq : &vi->sendq;
    nic_entry_t *slot;
    via_token_t *t;

    if (vi == NULL || d == NULL)
        return VIPL_INVALID_PARAMETER;
    if ((uintptr_t)d % VIA_DESC_ALIGN || !desc_registered(vi->nic, d, handle))
        return VIPL_DESCRIPTOR_ERROR;
    if (!recv && atomic_load(&vi->sh->state) != VIA_VI_CONNECTED)
        return VIPL_INVALID_STATE;
    pthread_mutex_lock(&vi->lock);
    if (f->tail - f->head == f->cap ||
        (slot = recv ? nic_ep_rq_slot(vi->ep) : nic_ep_sq_slot(vi->ep)) == NULL) {
        pthread_mutex_unlock(&vi->lock);
        return VIPL_ERROR_RESOURCE;
    }
    atomic_store_explicit(&d->cs.status, 0, memory_order_relaxed);
    d->cs.length = recv ? 0 : d->cs.length;
    f->d[f->tail++ % f->cap] = d;
    t = (via_token_t *)slot;
    t->desc_va = (uint64_t)(uintptr_t)d;
    t->desc_handle = handle;
    t->pad = 0;
    if (recv)
        nic_ep_rq_post(vi->ep);
    else
        nic_ep_sq_post(vi->ep);
    pthread_mutex_unlock(&vi->lock);
    if (vi->nic->timing)
        vipl_charge(vi->nic->ht.doorbell_ns);
    return VIPL_SUCCESS;
}

vipl_result_t vipl_post_send(vipl_vi_t *vi, via_desc_t *d, vipl_mem_handle_t h)
{
    return post(vi, d, h, 0);
}

vipl_result_t vipl_post_recv(vipl_vi_t *vi, via_desc_t *d, vipl_mem_handle_t h)
{
    return post(vi, d, h, 1);
}

static vipl_result_t done(vipl_vi_t *vi, via_desc_t **out, int recv)
{
    vipl_fifo_t *f = recv ? &vi->recvq : &vi->sendq;
    via_desc_t *d;
    int woken;

    pthread_mutex_lock(&vi->lock);
    if (f->head == f->tail) {
        pthread_mutex_unlock(&vi->lock);
        return VIPL_NOT_DONE;
    }
    d = f->d[f->head % f->cap];
    if (!(atomic_load_explicit(&d->cs.status, memory_order_acquire) & VIA_STATUS_DONE)) {
        pthread_mutex_unlock(&vi->lock);
        return VIPL_NOT_DONE;
    }
    f->head++;
    woken = !recv && vi->send_waiting && vipl_host_woken(vi->nic);
    if (!recv)
        vi->send_waiting = 0;
    pthread_mutex_unlock(&vi->lock);
    if (vi->nic->timing)
        vipl_charge(vi->nic->ht.done_ns + (woken ? vi->nic->ht.wake_ns : 0));
    if (out != NULL)
        *out = d;
    return VIPL_SUCCESS;
}

vipl_result_t vipl_send_done(vipl_vi_t *vi, via_desc_t **d) { return done(vi, d, 0); }
vipl_result_t vipl_recv_done(vipl_vi_t *vi, via_desc_t **d) { return done(vi, d, 1); }

void vipl_send_wait_begin(vipl_vi_t *vi)
{
    pthread_mutex_lock(&vi->lock);
    vi->send_waiting = 1;
    pthread_mutex_unlock(&vi->lock);
    vipl_host_sleeps(vi->nic);
}

static vipl_result_t wait(vipl_vi_t *vi, int timeout_ms, via_desc_t **out, int recv)
{
    uint64_t end = timeout_ms < 0 ? UINT64_MAX : vipl_now_ns() + (uint64_t)timeout_ms * 1000000ull;
    int slept = 0;

    for (;;) {
        uint32_t seen = atomic_load(&vi->ep->sh->cq_prod);
        vipl_result_t r = done(vi, out, recv);
        uint64_t now;
        int rc;

        if (r != VIPL_NOT_DONE) {
            if (r == VIPL_SUCCESS && slept && vi->nic->timing)
                vipl_charge(vi->nic->ht.wake_ns);    /* interrupt and wake-up */
            return r;
        }
        if ((rc = nic_ep_check(vi->ep)) != NIC_OK)
            return vipl_from_nic(rc);
        now = vipl_now_ns();
        if (now >= end)
            return VIPL_TIMEOUT;
        vipl_futex_wait(vi->ep, seen, end == UINT64_MAX ? -1 : (int)((end - now) / 1000000ull) + 1);
        slept = 1;
    }
}

vipl_result_t vipl_send_wait(vipl_vi_t *vi, int t, via_desc_t **d) { return wait(vi, t, d, 0); }
vipl_result_t vipl_recv_wait(vipl_vi_t *vi, int t, via_desc_t **d) { return wait(vi, t, d, 1); }

void vipl_desc_init(via_desc_t *d, uint16_t control)
{
    memset(&d->cs, 0, sizeof(d->cs));
    d->cs.control = control;
}

vipl_result_t vipl_desc_set_immediate(via_desc_t *d, const void *data, size_t len)
{
    uint32_t v = 0;
    if (d == NULL || len > sizeof(d->cs.immediate) || (len > 0 && data == NULL))
        return VIPL_INVALID_PARAMETER;   /* ImmediateData is 4 bytes */
    memcpy(&v, data, len);
    d->cs.immediate = v;
    d->cs.control |= VIA_CONTROL_IMMEDIATE;
    return VIPL_SUCCESS;
}

vipl_result_t vipl_desc_add_data(via_desc_t *d, const void *va, vipl_mem_handle_t h, uint32_t len)
{
    int rdma = (d->cs.control & VIA_CONTROL_OP_MASK) != VIA_CONTROL_OP_SENDRECV;
    uint32_t data_segs = d->cs.seg_count - (rdma && d->cs.seg_count > 0 ? 1 : 0);

    if (data_segs >= VIA_MAX_DATA_SEGS)
        return VIPL_INVALID_PARAMETER;
    if (rdma && d->cs.seg_count == 0)
        d->cs.seg_count = 1;            /* room for the address segment */
    via_data_seg_t *s = &d->seg[d->cs.seg_count].ds;
    s->data = (uint64_t)(uintptr_t)va;
    s->handle = h;
    s->length = len;
    d->cs.seg_count++;
    return VIPL_SUCCESS;
}

void vipl_desc_set_remote(via_desc_t *d, uint64_t va, vipl_mem_handle_t h)
{
    if (d->cs.seg_count == 0)
        d->cs.seg_count = 1;
    d->seg[0].as.data = va;
    d->seg[0].as.handle = h;
    d->seg[0].as.reserved = 0;
}
