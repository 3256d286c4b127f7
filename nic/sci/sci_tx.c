/* sci_tx.c - the bridge's send side: the host's send queue (its mapped
 * transmit window) drained in order, one request at a time.
 *
 *   STORE    PIO: the data is cut into 64-byte SCI transactions at the
 *            window address's 64-byte boundaries, translated page by page
 *            through the downstream ATT (owner only: the host MMU protects
 *            PIO, there is no tag check) and sent as WRITE packets.  Bytes
 *            beyond the window are clipped and reported.
 *   DMA_*, PIO_READ  the DMA engine and remote reads: sci_dma.c.
 *   BARRIER  completes once every bridge stored to since the last barrier
 *            has answered, i.e. once those stores are visible there.
 *   INTR     a remote interrupt; MANUAL a host-built packet sent as is.
 *
 * Handlers return 1 (done: consume it), 0 (moved on, not done: it stays
 * at the head) or -1 (blocked: nothing happened).
 *
 * A request is taken only while the CQ has room for the completion it may
 * need beyond those already owed, and while the streams to the bridges it
 * goes to have room for its packets (back-pressure, never a lost CQE or
 * packet). */
#include "config.h"

#include <stdatomic.h>
#include <string.h>

#include "../core/nic_log.h"
#include "sci_fw.h"

int sci_cq_post(nic_fw_ep_t *ep, const sci_cqe_t *c)
{
    nic_entry_t *slot = nic_ring_slot(&ep->cq);
    if (slot == NULL)
        return 0;
    memcpy(slot, c, sizeof(*c));
    nic_fw_cq_commit(ep);
    return 1;
}

void sci_cq_complete(sci_bridge_t *b, nic_fw_ep_t *ep, const sci_cqe_t *c, uint64_t due_ns)
{
    sci_ep_t *se = sci_ep(ep);

    if (se->cq_reserved > 0)
        se->cq_reserved--;
    if (b->timing.enabled && due_ns > nic_now_ns() && b->late != NULL &&
        b->late_tail - b->late_head < SCI_LATE_MAX) {
        sci_late_cqe_t *l = &b->late[b->late_tail++ % SCI_LATE_MAX];
        l->ep = ep;
        l->due_ns = due_ns;
        l->cqe = *c;
        se->cq_reserved++;   /* still owed */
        return;
    }
    sci_cq_post(ep, c);
}

void sci_cq_done(sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h, int status,
                 uint64_t len, uint64_t due_ns)
{
    sci_cqe_t c = { .kind = SCI_CQ_DONE, .op = h->op, .status = (int16_t)status,
                    .len = (uint32_t)len, .cookie = h->cookie };
    sci_ep(ep)->cq_reserved++;
    sci_cq_complete(b, ep, &c, due_ns);
}

/* Bytes [from, from + n) of the data of the request whose head (copied to
 * h) sits at ring index idx: the first ones inline, the rest in the
 * following entries, contiguous up to the ring's end. */
static void sq_data(nic_fw_ep_t *ep, const sci_sqe_t *h, uint32_t idx, uint32_t from,
                    uint8_t *dst, uint32_t n)
{
    if (from < SCI_SQE_INLINE) {
        uint32_t k = SCI_SQE_INLINE - from < n ? SCI_SQE_INLINE - from : n;
        memcpy(dst, h->data + from, k);
        dst += k;
        from += k;
        n -= k;
    }
    while (n > 0) {
        uint32_t rel = from - SCI_SQE_INLINE;
        uint32_t slot = (idx + 1 + rel / 64) & ep->sq.mask, off = rel % 64;
        uint32_t run = (ep->sq.mask + 1 - slot) * 64 - off;
        uint32_t k = run < n ? run : n;
        memcpy(dst, (const uint8_t *)&ep->sq.slots[slot] + off, k);
        dst += k;
        from += k;
        n -= k;
    }
}

void sci_mark_dirty(sci_ep_t *se, int peer)
{
    sci_peers_add(se->dirty, peer);
}

/* Can the streams to the bridges behind [addr, addr + len) take it?  (One
 * import is one bridge; a store may run across two adjacent imports.) */
static int store_room(sci_bridge_t *b, nic_fw_ep_t *ep, uint64_t addr, uint32_t len)
{
    uint32_t avail, npkt = len / b->pkt_data_max + len / SCI_DOWN_PAGE + 2;
    sci_down_t *first = sci_down_lookup(b, ep, addr, &avail), *last;

    if (first != NULL && !sci_peer_room(b, first->node, len, npkt))
        return 0;
    last = len ? sci_down_lookup(b, ep, addr + len - 1, &avail) : NULL;
    return last == NULL || first == NULL || last->node == first->node ||
           sci_peer_room(b, last->node, len, npkt);
}

/* A store stamp further ahead than the store's own writes and this is
 * taken as that far ahead, so a wrong one cannot hold back what follows. */
#define SCI_STAMP_AHEAD_NS 1000000ull

/* Timing model: when the host wrote the store's last transaction, as it
 * stamped it (sci_host.c), not when this firmware got round to it: the
 * emulation's hand-off from host to bridge hides inside the modelled PIO
 * writes instead of adding to them.  Without a stamp, now. */
static uint64_t store_written(const sci_bridge_t *b, const sci_sqe_t *h)
{
    uint64_t now = nic_now_ns(), limit;

    if (!b->timing.enabled || h->local == 0)
        return now;
    limit = now + sci_txns(h->addr, h->len) * b->timing.pio_ns_per_txn + SCI_STAMP_AHEAD_NS;
    return h->local > limit ? limit : h->local;
}

static int do_store(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h,
                    uint32_t idx)
{
    sci_ep_t *se = sci_ep(ep);
    uint64_t done = store_written(b, h);
    uint32_t off = 0, left = h->len;

    if (!store_room(b, ep, h->addr, h->len))
        return -1;   /* the stream's window is full: later */
    while (left > 0) {
        uint64_t at = h->addr + off;
        uint32_t avail, n;
        sci_down_t *d = sci_down_lookup(b, ep, at, &avail);
        if (d == NULL)
            break;
        n = left < avail ? left : avail;
        if (n > b->pkt_data_max)
            n = b->pkt_data_max;
        sci_pkt_hdr_t p = { .cmd = SCI_CMD_WRITE, .len = n,
                            .addr = d->remote + at % SCI_DOWN_PAGE, .job_key = ep->job_key };
        /* Timing model: the host wrote the store's transactions one after
         * the other and each went out as soon as written, so this packet's
         * were ready before the store's last. */
        uint64_t later = sci_txns(h->addr, h->len) - sci_txns(h->addr, off + n);
        uint64_t ready = done - later * b->timing.pio_ns_per_txn;
        uint8_t *dst = sci_peer_packet(fw, b, d->node, &p, sci_txns(at, n), ready);
        if (dst == NULL)
            break;
        sq_data(ep, h, idx, off, dst, n);
        sci_mark_dirty(se, d->node);
        off += n;
        left -= n;
    }
    se->st.stores++;
    se->st.store_bytes += off;
    se->st.txns += sci_txns(h->addr, h->len);
    if (left > 0) {
        se->st.clipped++;
        sci_cq_done(b, ep, h, NIC_ERR_INVALID, off, 0);
    } else if (h->flags & SCI_SQF_COMPLETE) {
        sci_cq_done(b, ep, h, NIC_OK, off, 0);
    }
    return 1;
}

static int do_barrier(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h)
{
    sci_ep_t *se = sci_ep(ep);
    sci_barrier_t *bar = NULL;
    uint32_t count = 0;

    for (unsigned i = 0; i < SCI_BARRIERS_MAX && bar == NULL; i++)
        if (b->barriers[i].ep == NULL)
            bar = &b->barriers[i];
    if (bar == NULL)
        return -1;   /* every barrier slot busy: later */
    for (unsigned peer = 0; peer < SCI_NODE_MAX; peer++)
        if (sci_peers_has(se->dirty, (int)peer) && !sci_peer_room(b, (int)peer, 0, 1))
            return -1;
    se->st.barriers++;
    bar->token = ++b->barrier_token;
    memset(bar->waits, 0, sizeof(bar->waits));
    for (unsigned peer = 0; peer < SCI_NODE_MAX; peer++) {
        if (!sci_peers_has(se->dirty, (int)peer))
            continue;
        sci_pkt_hdr_t p = { .cmd = SCI_CMD_BARRIER, .aux = bar->token, .job_key = ep->job_key };
        if (sci_peer_packet(fw, b, (int)peer, &p, 1, nic_now_ns()) != NULL) {
            sci_peers_add(bar->waits, (int)peer);
            count++;
        }
    }
    memset(se->dirty, 0, sizeof(se->dirty));
    if (count == 0) {
        sci_cq_done(b, ep, h, NIC_OK, 0, 0);
        return 1;
    }
    bar->ep = ep;
    b->nbarriers++;
    bar->cookie = h->cookie;
    nic_stall_timer_start(&bar->waited, nic_now_ns());
    se->cq_reserved++;
    return 1;
}

static int do_intr(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h)
{
    sci_node_t node = sci_node_unpack(h->addr);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = node.ip,
                              .sin_port = node.port };
    int peer = sci_peer_get(b, &to, ep->job_key, 1);
    sci_pkt_hdr_t p = { .cmd = SCI_CMD_INTR, .aux = h->local, .job_key = ep->job_key };

    if (peer >= 0 && !sci_peer_room(b, peer, 0, 1))
        return -1;
    if (peer < 0 || sci_peer_packet(fw, b, peer, &p, 1, nic_now_ns()) == NULL) {
        sci_cq_done(b, ep, h, NIC_ERR_NO_RESOURCE, 0, 0);
        return 1;
    }
    sci_ep(ep)->st.intr_sent++;
    sci_mark_dirty(sci_ep(ep), peer);
    if (h->flags & SCI_SQF_COMPLETE)
        sci_cq_done(b, ep, h, NIC_OK, 0, 0);
    return 1;
}

/* A packet the host built: checked for shape only, then sent as it is,
 * under the endpoint's job key.  The receiver cannot tell it from one the
 * bridge made (P7: manual packets, handled as automatic ones). */
static int do_manual(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const sci_sqe_t *h,
                     uint32_t idx)
{
    sci_node_t node = sci_node_unpack(h->addr);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = node.ip,
                              .sin_port = node.port };
    sci_pkt_hdr_t p;
    uint8_t *dst;
    int peer;

    if (h->len < sizeof(p))
        goto bad;
    sq_data(ep, h, idx, 0, (uint8_t *)&p, sizeof(p));
    if ((p.cmd != SCI_CMD_WRITE && p.cmd != SCI_CMD_INTR) || p.len > b->pkt_data_max ||
        sizeof(p) + p.len > h->len || (p.cmd == SCI_CMD_INTR && p.len != 0))
        goto bad;
    p.flags = 0;
    p.job_key = ep->job_key;
    if ((peer = sci_peer_get(b, &to, ep->job_key, 1)) >= 0 && !sci_peer_room(b, peer, p.len, 1))
        return -1;
    if (peer < 0 ||
        (dst = sci_peer_packet(fw, b, peer, &p, sci_txns(p.addr, p.len), nic_now_ns())) == NULL) {
        sci_cq_done(b, ep, h, NIC_ERR_NO_RESOURCE, 0, 0);
        return 1;
    }
    sq_data(ep, h, idx, sizeof(p), dst, p.len);
    sci_ep(ep)->st.manual_sent++;
    sci_mark_dirty(sci_ep(ep), peer);
    if (h->flags & SCI_SQF_COMPLETE)
        sci_cq_done(b, ep, h, NIC_OK, p.len, 0);
    return 1;
bad:
    sci_cq_done(b, ep, h, NIC_ERR_INVALID, 0, 0);
    return 1;
}

/* Committed entries the firmware has not consumed yet. */
static uint32_t sq_ready(nic_fw_ep_t *ep)
{
    ep->sq.other = atomic_load_explicit(ep->sq.prod, memory_order_acquire);
    return ep->sq.other - ep->sq.local;
}

static void sq_consume(nic_fw_ep_t *ep, uint32_t n)
{
    ep->sq.local += n;
    atomic_store_explicit(ep->sq.cons, ep->sq.local, memory_order_release);
}

int sci_ep_service(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    sci_bridge_t *b = sci_of(fw);
    sci_ep_t *se = sci_ep(ep);
    int events = 0;

    if (se == NULL || atomic_load(&ep->sh->state) != NIC_EP_OPEN)
        return 0;
    for (;;) {
        uint32_t ready = sq_ready(ep), idx = ep->sq.local;
        sci_sqe_t h;
        int done;

        if (ready == 0 || ready > ep->sq.mask + 1)
            break;
        memcpy(&h, &ep->sq.slots[idx & ep->sq.mask], sizeof(h));   /* the host may change it */
        if (h.nslots == 0 || h.nslots > ep->sq.mask + 1 || h.op == 0 || h.op >= SCI_OP_MAX ||
            h.nslots != sci_sqe_slots(h.op, h.len)) {
            nic_log_warn(nic_fw_log(fw),
                         "endpoint %#x: malformed send request (op %u, %u entries, %u "
                         "bytes): endpoint failed", ep->id, h.op, h.nslots, h.len);
            nic_fw_ep_fail(ep, NIC_ERR_INVALID);
            return events;
        }
        if (h.nslots > ready)
            break;   /* not all of it committed yet */
        if (nic_ring_space(&ep->cq) <= se->cq_reserved)
            break;   /* no room for its completion: wait for the host */
        switch (h.op) {
        case SCI_OP_STORE:     done = do_store(fw, b, ep, &h, idx); break;
        case SCI_OP_BARRIER:   done = do_barrier(fw, b, ep, &h); break;
        case SCI_OP_DMA_WRITE: done = sci_dma_write(fw, b, ep, &h); break;
        case SCI_OP_DMA_READ:
        case SCI_OP_PIO_READ:  done = sci_read(fw, b, ep, &h); break;
        case SCI_OP_INTR:      done = do_intr(fw, b, ep, &h); break;
        default:               done = do_manual(fw, b, ep, &h, idx); break;
        }
        if (done < 0)
            break;
        events++;
        if (done == 0)
            break;
        sq_consume(ep, h.nslots);
    }
    return events;
}
