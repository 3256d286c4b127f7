/* sci_host.c - the host library of the emulated PCI-SCI bridge. */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../core/nic_ctl_proto.h"
#include "sci_host.h"

int sci_open(nic_host_t *nic, const nic_job_t *job, uint32_t sq_entries, uint32_t cq_entries,
             sci_dev_t **dev_p)
{
    sci_dev_t *dev;
    int rc;

    if (nic->pers_id != NIC_PERS_SCI)
        return NIC_ERR_CONFIG;
    if ((dev = calloc(1, sizeof(*dev))) == NULL)
        return NIC_ERR_NO_MEMORY;
    dev->nic = nic;
    if ((rc = nic_ep_open(nic, job, sq_entries, 0, cq_entries, &dev->ep)) != NIC_OK) {
        free(dev);
        return rc;
    }
    *dev_p = dev;
    return NIC_OK;
}

void sci_close(sci_dev_t *dev)
{
    if (dev == NULL)
        return;
    nic_ep_close(dev->ep);
    free(dev);
}

sci_node_t sci_local_node(const sci_dev_t *dev)
{
    sci_node_t n = { dev->nic->wire_ip, dev->nic->wire_port };
    return n;
}

static int ctl_out(sci_dev_t *dev, uint32_t op, const void *in, size_t in_len, void *out,
                   size_t want)
{
    uint8_t buf[NIC_CTL_DATA_MAX];
    size_t got = sizeof(buf);
    int rc = nic_ep_ctl(dev->ep, op, in, in_len, buf, &got);

    if (rc != NIC_OK)
        return rc;
    if (got != want)
        return NIC_ERR_ABI;
    if (want)
        memcpy(out, buf, want);
    return NIC_OK;
}

int sci_tag_alloc(sci_dev_t *dev, uint32_t *tag)
{
    return ctl_out(dev, SCI_CTL_TAG_ALLOC, NULL, 0, tag, sizeof(*tag));
}

int sci_set_dma_tag(sci_dev_t *dev, uint32_t tag)
{
    return ctl_out(dev, SCI_CTL_DMA_TAG, &tag, sizeof(tag), NULL, 0);
}

int sci_export_pages(sci_dev_t *dev, const sci_page_run_t *runs, uint32_t nruns,
                     uint32_t first_off, uint64_t size, uint32_t tag, uint32_t flags,
                     sci_seg_t *seg)
{
    size_t len = sizeof(sci_ctl_export_t) + (size_t)nruns * sizeof(*runs);
    sci_ctl_export_t *x;
    sci_ctl_seg_t out;
    int rc;

    if (len > NIC_CTL_DATA_MAX)
        return NIC_ERR_INVALID;
    if ((x = calloc(1, len)) == NULL)
        return NIC_ERR_NO_MEMORY;
    x->tag = tag;
    x->flags = flags;
    x->first_off = first_off;
    x->nruns = nruns;
    x->size = size;
    memcpy(x->run, runs, (size_t)nruns * sizeof(*runs));
    rc = ctl_out(dev, SCI_CTL_EXPORT, x, len, &out, sizeof(out));
    free(x);
    if (rc == NIC_OK) {
        seg->offset = out.offset;
        seg->size = out.size;
    }
    return rc;
}

int sci_export_range(sci_dev_t *dev, const nic_mr_t *mr, uint64_t off, uint64_t len,
                     uint32_t tag, uint32_t flags, sci_seg_t *seg)
{
    uint64_t first = off / SCI_UP_PAGE * SCI_UP_PAGE;
    uint32_t first_off = (uint32_t)(off - first);
    sci_page_run_t run = { .key = mr->key, .off = first };

    if (len == 0 || off + len > mr->size)
        return NIC_ERR_INVALID;
    run.npages = (uint32_t)((first_off + len + SCI_UP_PAGE - 1) / SCI_UP_PAGE);
    return sci_export_pages(dev, &run, 1, first_off, len, tag, flags, seg);
}

int sci_unexport(sci_dev_t *dev, const sci_seg_t *seg)
{
    return ctl_out(dev, SCI_CTL_UNEXPORT, &seg->offset, sizeof(seg->offset), NULL, 0);
}

int sci_import(sci_dev_t *dev, sci_node_t node, uint64_t remote_off, uint64_t size,
               uint32_t tag, sci_win_t *win)
{
    sci_ctl_import_t m = { .node = sci_node_pack(node), .remote_off = remote_off,
                           .size = size, .tag = tag };
    int rc = ctl_out(dev, SCI_CTL_IMPORT, &m, sizeof(m), &win->addr, sizeof(win->addr));
    if (rc == NIC_OK)
        win->size = size;
    return rc;
}

int sci_unimport(sci_dev_t *dev, const sci_win_t *win)
{
    return ctl_out(dev, SCI_CTL_UNIMPORT, &win->addr, sizeof(win->addr), NULL, 0);
}

int sci_intr_create(sci_dev_t *dev, uint32_t *no)
{
    return ctl_out(dev, SCI_CTL_INTR_CREATE, NULL, 0, no, sizeof(*no));
}

int sci_intr_remove(sci_dev_t *dev, uint32_t no)
{
    return ctl_out(dev, SCI_CTL_INTR_REMOVE, &no, sizeof(no), NULL, 0);
}

int sci_stats(sci_dev_t *dev, sci_stats_t *st)
{
    return ctl_out(dev, SCI_CTL_STATS, NULL, 0, st, sizeof(*st));
}

int sci_set_timing(sci_dev_t *dev, const sci_timing_t *t)
{
    int rc = ctl_out(dev, SCI_CTL_TIMING, t, sizeof(*t), NULL, 0);
    if (rc == NIC_OK)
        dev->timing = *t;
    return rc;
}

/* --- fast path --- */

/* Timing model: when the CPU that began writing a store of len bytes to
 * addr at t0 has written its last 64-byte transaction (P2 §II.A). */
static uint64_t pio_done_ns(const sci_timing_t *t, uint64_t t0, uint64_t addr, uint64_t len)
{
    uint64_t txns = len ? (addr + len - 1) / SCI_TXN - addr / SCI_TXN + 1 : 1;
    return t0 + txns * t->pio_ns_per_txn;
}

/* When the CPU is done with the writes (and software) the model has given
 * it so far: now, or later. */
static uint64_t cpu_free_at(const sci_dev_t *dev)
{
    uint64_t now = nic_now_ns();
    return dev->pio_until > now ? dev->pio_until : now;
}

/* The CPU is busy with its PIO writes until `until`: an in-process
 * firmware gets this CPU's turns meanwhile, so the bridge's work (and the
 * emulation's hand-off to the wire) happens inside the modelled writes
 * instead of after them. */
static void pio_wait(sci_dev_t *dev, uint64_t until)
{
    while (nic_now_ns() < until) {
        if (nic_host_lend(dev->nic) < 0) {
            while (nic_now_ns() < until)
                ;   /* the firmware runs elsewhere (nicd): just the stall */
            return;
        }
    }
}

void sci_pio_settle(sci_dev_t *dev)
{
    if (dev->timing.enabled)
        pio_wait(dev, dev->pio_until);
}

/* The CPU is busy for ns more after what it owes already. */
static void cpu_busy(sci_dev_t *dev, uint64_t ns)
{
    if (dev->timing.enabled && ns != 0)
        dev->pio_until = cpu_free_at(dev) + ns;
}

void sci_cpu_software(sci_dev_t *dev)
{
    cpu_busy(dev, dev->timing.msg_sw_ns);
}

void sci_cpu_copy(sci_dev_t *dev, uint64_t n)
{
    if (dev->timing.copy_MBps != 0)
        cpu_busy(dev, n * 1000 / dev->timing.copy_MBps);   /* 1 MB/s = 1 B/us */
}

int sci_pio_beats_dma(const sci_dev_t *dev)
{
    const sci_timing_t *t = &dev->timing;
    /* PIO: 64 B per pio_ns_per_txn ns = 64000 / pio_ns_per_txn MB/s */
    return t->enabled && t->pio_ns_per_txn != 0 &&
           (uint64_t)SCI_TXN * 1000 > (uint64_t)t->dma_MBps * t->pio_ns_per_txn;
}

uint32_t sci_window_space(sci_dev_t *dev)
{
    return nic_ring_space(&dev->ep->sq);
}

/* Room for n entries from the producer index on (re-reading the
 * consumer's index only when the cached one says no). */
static int sq_room(nic_ring_t *r, uint32_t n)
{
    if (r->local - r->other + n > r->mask + 1) {
        r->other = atomic_load_explicit(r->cons, memory_order_acquire);
        if (r->local - r->other + n > r->mask + 1)
            return 0;
    }
    return 1;
}

/* Data byte `from` of the request whose head is at index idx lives in the
 * head's inline bytes, then in the following entries (firmware: sq_data). */
static void sq_put(nic_ring_t *r, sci_sqe_t *head, uint32_t idx, uint32_t from,
                   const uint8_t *src, uint32_t n)
{
    if (from < SCI_SQE_INLINE) {
        uint32_t k = SCI_SQE_INLINE - from < n ? SCI_SQE_INLINE - from : n;
        memcpy(head->data + from, src, k);
        src += k;
        from += k;
        n -= k;
    }
    while (n > 0) {
        uint32_t rel = from - SCI_SQE_INLINE;
        uint32_t slot = (idx + 1 + rel / 64) & r->mask, off = rel % 64;
        uint32_t run = (r->mask + 1 - slot) * 64 - off;
        uint32_t k = run < n ? run : n;
        memcpy((uint8_t *)&r->slots[slot] + off, src, k);
        src += k;
        from += k;
        n -= k;
    }
}

static void sq_commit(sci_dev_t *dev, uint32_t n)
{
    nic_ring_t *r = &dev->ep->sq;
    r->local += n;
    atomic_store_explicit(r->prod, r->local, memory_order_seq_cst);
    nic_host_kick(dev->nic);
}

static int sq_request(sci_dev_t *dev, uint32_t op, uint64_t addr, uint64_t local,
                      const struct iovec *iov, int iovcnt, uint32_t len, uint32_t flags,
                      uint64_t cookie)
{
    nic_ring_t *r = &dev->ep->sq;
    uint32_t nslots = sci_sqe_slots(op, len), idx = r->local, at = 0;
    int timed = dev->timing.enabled && op == SCI_OP_STORE;
    uint64_t done = 0;
    sci_sqe_t *h;

    if (nslots > r->mask + 1)
        return NIC_ERR_INVALID;
    if (!sq_room(r, nslots))
        return NIC_ERR_NO_RESOURCE;
    if (timed) {
        /* the CPU begins this store's writes when the previous ones end */
        done = pio_done_ns(&dev->timing, cpu_free_at(dev), addr, len);
        dev->pio_until = done;
    } else {
        sci_pio_settle(dev);   /* the CPU posts it after its writes */
    }
    h = (sci_sqe_t *)&r->slots[idx & r->mask];
    h->op = (uint8_t)op;
    h->flags = (uint8_t)flags;
    h->nslots = (uint16_t)nslots;
    h->len = len;
    h->addr = addr;
    h->local = timed ? done : local;   /* a timed store: the firmware's ready time (sci_wire.h) */
    h->cookie = cookie;
    for (int i = 0; i < iovcnt; i++) {
        sq_put(r, h, idx, at, iov[i].iov_base, (uint32_t)iov[i].iov_len);
        at += (uint32_t)iov[i].iov_len;
    }
    /* A firmware elsewhere (nicd) cannot use this CPU's stall: the store
     * goes when written, as before the stamps, so that its frame seldom
     * reaches the other bridge before it is due (a firmware that must wake
     * for a due time on a busy core wakes late). */
    if (timed && dev->nic->inproc == NULL)
        pio_wait(dev, done);
    sq_commit(dev, nslots);
    if (timed)
        pio_wait(dev, done - SCI_PIO_OWED_NS);   /* owe at most that much */
    return NIC_OK;
}

int sci_storev(sci_dev_t *dev, uint64_t addr, const struct iovec *iov, int iovcnt,
               uint32_t flags, uint64_t cookie)
{
    uint64_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > UINT32_MAX)
        return NIC_ERR_INVALID;
    return sq_request(dev, SCI_OP_STORE, addr, 0, iov, iovcnt, (uint32_t)len, flags, cookie);
}

int sci_store(sci_dev_t *dev, uint64_t addr, const void *src, uint32_t len, uint32_t flags,
              uint64_t cookie)
{
    struct iovec iov = { (void *)src, len };
    return sq_request(dev, SCI_OP_STORE, addr, 0, &iov, 1, len, flags, cookie);
}

int sci_post(sci_dev_t *dev, uint32_t op, uint64_t addr, uint64_t local, uint64_t len,
             uint32_t flags, uint64_t cookie)
{
    if (op == SCI_OP_STORE || op == SCI_OP_MANUAL || op == 0 || op >= SCI_OP_MAX ||
        len > UINT32_MAX)
        return NIC_ERR_INVALID;
    return sq_request(dev, op, addr, local, NULL, 0, (uint32_t)len, flags, cookie);
}

int sci_manual(sci_dev_t *dev, sci_node_t node, const void *pkt, uint32_t len, uint32_t flags,
               uint64_t cookie)
{
    struct iovec iov = { (void *)pkt, len };
    return sq_request(dev, SCI_OP_MANUAL, sci_node_pack(node), 0, &iov, 1, len, flags, cookie);
}

int sci_poll(sci_dev_t *dev, sci_cqe_t *c)
{
    nic_entry_t *e = nic_ep_cq_peek(dev->ep);
    int rc;

    if (e == NULL) {
        rc = nic_ep_check(dev->ep);
        return rc == NIC_OK ? 0 : rc;
    }
    memcpy(c, e, sizeof(*c));
    nic_ep_cq_release(dev->ep);
    return 1;
}
