/* sci_peer.c - the bridges this one talks to, and the frames between them.
 *
 * SCI promises that remote stores from one bridge to another arrive, once
 * and in the order they were issued.  Each pair of bridges therefore talks
 * over one reliable stream of the NIC core (nic_rel: sequence numbers,
 * acknowledgements, retransmission, back-pressure).  Packets to one bridge
 * are appended, in issue order, to the frame being filled for it, which is
 * a slot of the stream's window; the frame goes when the next packet does
 * not fit or at the end of the loop turn (sci_peer_flush_all from poll),
 * so the packets of one turn share a datagram.  A sender whose stream
 * window is full waits (the callers ask sci_peer_room first). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "sci_fw.h"

_Static_assert(sizeof(nic_rel_hdr_t) == sizeof(((sci_frame_hdr_t *)0)->rel),
               "the frame holds nic_rel's header");

int sci_peer_get(sci_bridge_t *b, const struct sockaddr_in *addr, uint64_t job, int create)
{
    int free_slot = -1;

    for (unsigned i = 0; i < SCI_NODE_MAX; i++) {
        sci_peer_t *p = &b->peer[i];
        if (!p->used) {
            if (free_slot < 0)
                free_slot = (int)i;
            continue;
        }
        if (p->job == job && p->addr.sin_addr.s_addr == addr->sin_addr.s_addr &&
            p->addr.sin_port == addr->sin_port)
            return (int)i;
    }
    if (!create || free_slot < 0)
        return -1;
    sci_peer_t *p = &b->peer[free_slot];
    memset(p, 0, sizeof(*p));
    p->addr = *addr;
    p->addr.sin_family = AF_INET;
    p->job = job;
    if ((p->rp = nic_rel_peer(b->rel, &p->addr, job, 1)) == NULL)
        return -1;
    p->used = 1;
    return free_slot;
}

/* Frames a packet load of data bytes in npkt packets needs at most.  A
 * frame is closed by a packet that does not fit in it any more, so every
 * closed frame holds more than its room less the largest packet; and no
 * packet opens more than one frame.  With packets as large as frames (a
 * link of small datagrams) the second bound is the one that holds. */
static uint32_t frames_for(const sci_bridge_t *b, uint64_t data, uint32_t npkt)
{
    const uint64_t pkt_extra = sizeof(sci_pkt_hdr_t) + 8;   /* header, padding */
    uint64_t room = b->frame_fill - sizeof(sci_frame_hdr_t);
    uint64_t biggest = (data < b->pkt_data_max ? data : b->pkt_data_max) + pkt_extra;
    uint64_t total = data + (uint64_t)npkt * pkt_extra, closed = npkt;

    if (room > biggest && (total + room - biggest - 1) / (room - biggest) < closed)
        closed = (total + room - biggest - 1) / (room - biggest);
    return (uint32_t)closed + 1;
}

int sci_peer_room(sci_bridge_t *b, int peer, uint64_t data, uint32_t npkt)
{
    sci_peer_t *p = &b->peer[peer];
    /* the frame being filled holds a slot already */
    return nic_rel_tx_space(b->rel, p->rp) >= frames_for(b, data, npkt) + (p->buf != NULL);
}

/* Timing model: when the frame's last byte reaches the receiving host.
 * Its transactions went onto the link as they became ready (the host's
 * PIO writes or the DMA engine); the link clocks them out one after the
 * other, and each bridge adds its per-packet work. */
static uint64_t frame_due(sci_bridge_t *b, const sci_peer_t *p)
{
    const sci_timing_t *t = &b->timing;
    uint64_t ntxn = p->ntxn ? p->ntxn : 1;
    uint64_t one = t->link_MBps ? (uint64_t)t->txn_wire_bytes * 1000 / t->link_MBps : 0;
    uint64_t all = one * ntxn;
    uint64_t by_link = b->link_free_ns + all, by_ready = p->ready_ns + one;

    b->link_free_ns = by_link > by_ready ? by_link : by_ready;
    return b->link_free_ns + 2ull * t->bridge_ns;
}

static void peer_flush(nic_fw_t *fw, sci_bridge_t *b, sci_peer_t *p)
{
    sci_frame_hdr_t *h = (sci_frame_hdr_t *)p->buf;

    if (p->buf == NULL)
        return;
    memset(h, 0, sizeof(*h));
    h->magic[0] = SCI_MAGIC0;
    h->magic[1] = SCI_MAGIC1;
    h->magic[2] = SCI_MAGIC2;
    h->version = SCI_VERSION;
    h->npkt = p->npkt;
    if (b->timing.enabled)
        h->sent_ns = frame_due(b, p);
    nic_rel_tx_commit(b->rel, p->rp, p->len);   /* seals: the checksum */
    b->st.tx_frames++;
    b->st.tx_packets += p->npkt;
    p->buf = NULL;
    p->len = 0;
    p->npkt = 0;
    p->ntxn = 0;
    p->ready_ns = 0;
}

uint8_t *sci_peer_packet(nic_fw_t *fw, sci_bridge_t *b, int peer, const sci_pkt_hdr_t *h,
                         uint32_t ntxn, uint64_t ready_ns)
{
    sci_peer_t *p = &b->peer[peer];
    uint32_t need = (uint32_t)sizeof(*h) + SCI_PKT_ALIGN(h->len);
    uint8_t *at;

    if (need + sizeof(sci_frame_hdr_t) > b->frame_fill)
        return NULL;
    if (p->buf != NULL && p->len + need > b->frame_fill)
        peer_flush(fw, b, p);
    if (p->buf == NULL) {
        if ((p->buf = nic_rel_tx_buf(b->rel, p->rp)) == NULL)
            return NULL;   /* the stream's window is full */
        p->len = sizeof(sci_frame_hdr_t);
    }
    at = p->buf + p->len;
    memcpy(at, h, sizeof(*h));
    if (SCI_PKT_ALIGN(h->len) != h->len)
        memset(at + sizeof(*h) + h->len, 0, SCI_PKT_ALIGN(h->len) - h->len);
    p->len += need;
    p->npkt++;
    p->ntxn += ntxn;
    if (ready_ns > p->ready_ns)
        p->ready_ns = ready_ns;
    if (!p->queued) {
        p->queued = 1;
        b->flush[b->nflush++] = (uint16_t)peer;
    }
    return at + sizeof(*h);
}

void sci_peer_flush_all(nic_fw_t *fw, sci_bridge_t *b)
{
    for (uint32_t i = 0; i < b->nflush; i++) {
        sci_peer_t *p = &b->peer[b->flush[i]];
        peer_flush(fw, b, p);
        p->queued = 0;
    }
    b->nflush = 0;
}

void sci_peer_job_end(nic_fw_t *fw, sci_bridge_t *b, uint64_t job)
{
    /* Frames being filled go first (the flush list names peers by index). */
    sci_peer_flush_all(fw, b);
    for (unsigned i = 0; i < SCI_NODE_MAX; i++)
        if (b->peer[i].used && b->peer[i].job == job)
            memset(&b->peer[i], 0, sizeof(b->peer[i]));
    nic_rel_job_end(b->rel, job);
}

/* --- what nic_rel asks of the personality --- */

static size_t rel_ack_frame(void *arg, uint8_t *buf, size_t cap)
{
    sci_frame_hdr_t *h = (sci_frame_hdr_t *)buf;

    if (cap < sizeof(*h))
        return 0;
    memset(h, 0, sizeof(*h));
    h->magic[0] = SCI_MAGIC0;
    h->magic[1] = SCI_MAGIC1;
    h->magic[2] = SCI_MAGIC2;
    h->version = SCI_VERSION;
    return sizeof(*h);
}

/* The rel header is final (a retransmission refreshes its ack): sum the
 * frame again.  The timing stamp stays that of the first transmission. */
static void rel_seal(void *arg, uint8_t *frame, size_t len, uint64_t now_ns, int what)
{
    sci_frame_hdr_t *h = (sci_frame_hdr_t *)frame;
    h->sum = 0;
    h->sum = sci_frame_sum(frame, len);
}

typedef struct node_gone {
    sci_cqe_t c;
    uint64_t  job;
    unsigned  told, missed;
} node_gone_t;

/* Every endpoint of the job learns it: remote stores are posted writes, so
 * without this a host that only stores to the bridge, or waits for stores
 * from it, would never hear that it is gone. */
static void node_gone_tell(nic_fw_t *fw, nic_fw_ep_t *ep, void *arg)
{
    node_gone_t *g = arg;

    if (ep->job_key != g->job)
        return;
    if (nic_ring_space(&ep->cq) <= sci_ep(ep)->cq_reserved || !sci_cq_post(ep, &g->c))
        g->missed++;
    else
        g->told++;
}

/* Reads and barriers waiting on a bridge that stopped or died fail now,
 * and the job's endpoints are told. */
static void rel_peer_gone(void *arg, const nic_rel_peer_t *rp, int status)
{
    nic_fw_t *fw = arg;
    sci_bridge_t *b = sci_of(fw);
    node_gone_t g = { .c = { .kind = SCI_CQ_NODE_GONE, .status = (int16_t)status,
                             .from = sci_node_pack((sci_node_t){ rp->addr.sin_addr.s_addr,
                                                                 rp->addr.sin_port }) },
                      .job = rp->job };

    for (unsigned i = 0; i < SCI_NODE_MAX; i++)
        if (b->peer[i].used && b->peer[i].rp == rp) {
            sci_waits_peer_gone(b, (int)i, status);
            break;
        }
    nic_fw_ep_foreach(fw, node_gone_tell, &g);
    if (g.missed > 0)
        nic_log_warn(nic_fw_log(fw),
                     "%u endpoint(s) could not be told that a bridge is gone: their completion "
                     "queues are full (their liveness checks will find it)", g.missed);
}

int sci_rel_open(nic_fw_t *fw, sci_bridge_t *b)
{
    nic_rel_config_t cfg = {
        .hdr_off = offsetof(sci_frame_hdr_t, rel),
        .frame_max = SCI_FRAME_MAX,
    };
    nic_rel_ops_t ops = { .ack_frame = rel_ack_frame, .seal = rel_seal,
                          .deliver = sci_rx_deliver, .peer_gone = rel_peer_gone };

    return nic_rel_create(fw, &cfg, &ops, fw, &b->rel);
}
