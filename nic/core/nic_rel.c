/* nic_rel.c - reliable ordered streams between firmwares (see nic_rel.h):
 * sequence numbers, cumulative and delayed acknowledgements, go-back-N
 * retransmission with exponential back-off, dead-peer detection.
 * Moved here from the Myrinet LCP once the VI firmware needed it too. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "nic_log.h"
#include "nic_rel.h"

#define REL_RETX_BURST 32             /* frames resent per timer expiry */
#define REL_ACK_EVERY  32             /* acknowledge at least every 32 frames */
#define REL_DUPACK_NS  (100 * 1000)   /* at most one duplicate ack per 100 us */

struct nic_rel {
    nic_fw_t          *fw;
    nic_rel_config_t   cfg;
    nic_rel_ops_t      ops;
    void              *arg;
    uint32_t           my_fw;             /* incarnation */
    nic_rel_peer_t     peer[NIC_REL_MAX_PEERS];
    unsigned           npeer;             /* slots in use are below this */
    nic_rel_peer_t    *last;              /* the peer found last (a cache) */
    int                full_logged;       /* the table-full error was logged */
    nic_rel_counters_t c;
};

static nic_rel_hdr_t *hdr_of(const nic_rel_t *rel, uint8_t *frame)
{
    return (nic_rel_hdr_t *)(frame + rel->cfg.hdr_off);
}

static int seq_before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

int nic_rel_create(nic_fw_t *fw, const nic_rel_config_t *cfg, const nic_rel_ops_t *ops,
                   void *arg, nic_rel_t **rel_p)
{
    nic_rel_t *rel;

    if (cfg->frame_max < cfg->hdr_off + sizeof(nic_rel_hdr_t) || ops->deliver == NULL ||
        ops->ack_frame == NULL || ops->seal == NULL)
        return NIC_ERR_INVALID;
    rel = calloc(1, sizeof(*rel));
    if (rel == NULL)
        return NIC_ERR_NO_MEMORY;
    rel->fw = fw;
    rel->cfg = *cfg;
    rel->ops = *ops;
    rel->arg = arg;
    do {
        rel->my_fw = (uint32_t)(nic_now_ns() * 2654435761u) ^ ((uint32_t)rand() << 8);
    } while (rel->my_fw == 0);
    *rel_p = rel;
    return NIC_OK;
}

static void rel_send_ctl(nic_rel_t *rel, nic_rel_peer_t *p, uint8_t kind, uint8_t flags);

void nic_rel_destroy(nic_rel_t *rel)
{
    if (rel == NULL)
        return;
    for (unsigned i = 0; i < rel->npeer; i++)
        if (rel->peer[i].used && !rel->peer[i].dead)
            rel_send_ctl(rel, &rel->peer[i], NIC_REL_KIND_BYE, 0);
    for (unsigned i = 0; i < NIC_REL_MAX_PEERS; i++) {
        free(rel->peer[i].win);
        free(rel->peer[i].win_mem);
    }
    free(rel);
}

uint32_t nic_rel_incarnation(const nic_rel_t *rel) { return rel->my_fw; }
const nic_rel_counters_t *nic_rel_counters(const nic_rel_t *rel) { return &rel->c; }

static int rel_is(const nic_rel_peer_t *p, const struct sockaddr_in *addr, uint64_t job)
{
    return p->used && p->job == job && p->addr.sin_addr.s_addr == addr->sin_addr.s_addr &&
           p->addr.sin_port == addr->sin_port;
}

nic_rel_peer_t *nic_rel_peer(nic_rel_t *rel, const struct sockaddr_in *addr, uint64_t job,
                             int create)
{
    nic_rel_peer_t *free_slot = NULL, *p = rel->last;

    /* Every frame looks its stream up: try the last one first, and scan
     * only the slots ever used. */
    if (p != NULL && rel_is(p, addr, job))
        return p;
    for (unsigned i = 0; i < rel->npeer; i++) {
        p = &rel->peer[i];
        if (!p->used) {
            if (free_slot == NULL)
                free_slot = p;
            continue;
        }
        if (rel_is(p, addr, job))
            return rel->last = p;
    }
    /* No stream for a job without endpoints here: its frames could
     * neither leave nor be answered. */
    if (!create || nic_wire_job_refs(nic_fw_wire(rel->fw), job) == 0)
        return NULL;
    if (free_slot == NULL && rel->npeer < NIC_REL_MAX_PEERS)
        free_slot = &rel->peer[rel->npeer++];
    if (free_slot == NULL) {
        /* A slot is free again once its job ends here (nic_rel_job_end). */
        if (!rel->full_logged) {
            char a[64];
            nic_addr_format(addr, a, sizeof(a));
            nic_log_error("this firmware has %u streams open, as many as it can: frames to "
                          "and from %s (job %016llx) and any other new one are dropped until "
                          "a job ends", NIC_REL_MAX_PEERS, a, (unsigned long long)job);
            rel->full_logged = 1;
        }
        return NULL;
    }
    nic_rel_frame_t *win = free_slot->win;
    uint8_t *mem = free_slot->win_mem;
    memset(free_slot, 0, sizeof(*free_slot));
    free_slot->win = win;
    free_slot->win_mem = mem;
    free_slot->used = 1;
    free_slot->addr = *addr;
    free_slot->job = job;
    free_slot->tx_next = free_slot->tx_una = free_slot->tx_first = 1;
    free_slot->rto_ns = rel->cfg.rto_init_ns;
    return rel->last = free_slot;
}

void nic_rel_peer_revive(nic_rel_peer_t *p)
{
    p->dead = 0;            /* tx_first is at tx_next already: a SYN comes next */
}

int nic_rel_peer_index(const nic_rel_t *rel, const nic_rel_peer_t *p)
{
    return (int)(p - rel->peer);
}

nic_rel_peer_t *nic_rel_peer_at(nic_rel_t *rel, int index)
{
    if (index < 0 || index >= NIC_REL_MAX_PEERS || !rel->peer[index].used)
        return NULL;
    return &rel->peer[index];
}

unsigned nic_rel_peer_count(const nic_rel_t *rel)
{
    unsigned n = 0;
    for (unsigned i = 0; i < NIC_REL_MAX_PEERS; i++)
        n += rel->peer[i].used;
    return n;
}

/* A frame of the module's own, without data: an ACK, or a BYE. */
static void rel_send_ctl(nic_rel_t *rel, nic_rel_peer_t *p, uint8_t kind, uint8_t flags)
{
    uint8_t buf[256];
    size_t len;
    nic_rel_hdr_t *h;

    memset(buf, 0, sizeof(buf));
    len = rel->ops.ack_frame(rel->arg, buf, sizeof(buf));
    if (len < rel->cfg.hdr_off + sizeof(nic_rel_hdr_t) || len > sizeof(buf))
        return;
    h = hdr_of(rel, buf);
    h->src_fw = rel->my_fw;
    h->seq = 0;
    h->ack = p->rx_next;
    h->kind = kind;
    h->flags = flags;
    rel->ops.seal(rel->arg, buf, len, nic_now_ns(), NIC_REL_SEAL_ACK);
    struct iovec iov = { buf, len };
    nic_wire_send(nic_fw_wire(rel->fw), &p->addr, p->job, &iov, 1);
    p->ack_owed = 0;
    rel->c.tx_acks++;
}

static void rel_send_ack(nic_rel_t *rel, nic_rel_peer_t *p, uint8_t flags)
{
    rel_send_ctl(rel, p, NIC_REL_KIND_ACK, flags);
}

/* The peer answered (or the window was empty until now): its silence
 * starts again. */
static void rel_heard(nic_rel_peer_t *p, uint64_t now)
{
    nic_stall_timer_start(&p->silence, now);
}

/* Time from then to now; 0 when then is later (a caller's now may be
 * older than a stamp taken during the same firmware turn: unsigned
 * subtraction would make that look like an age of centuries). */
static uint64_t rel_since(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

/* An acknowledgement for every frame before ack. */
static void rel_acked(nic_rel_t *rel, nic_rel_peer_t *p, uint32_t ack, int pure_ack)
{
    /* Only an ack inside (una, next] moves the window. */
    if ((int32_t)(ack - p->tx_una) <= 0 || (int32_t)(ack - p->tx_next) > 0) {
        if (pure_ack && ack == p->tx_una && p->tx_una != p->tx_next)
            p->dupacks++;
        return;
    }
    p->tx_una = ack;
    p->dupacks = 0;
    rel_heard(p, nic_now_ns());
    p->rto_ns = rel->cfg.rto_init_ns;
}

static int rel_window_alloc(nic_rel_t *rel, nic_rel_peer_t *p)
{
    if (p->win != NULL)
        return NIC_OK;
    /* Frames start 8-byte aligned: personalities read their headers in
     * place. */
    size_t stride = (rel->cfg.frame_max + 7) & ~(size_t)7;
    p->win = calloc(NIC_REL_WINDOW, sizeof(*p->win));
    p->win_mem = malloc(NIC_REL_WINDOW * stride);
    if (p->win == NULL || p->win_mem == NULL) {
        free(p->win);
        free(p->win_mem);
        p->win = NULL;
        p->win_mem = NULL;
        return NIC_ERR_NO_MEMORY;
    }
    for (unsigned i = 0; i < NIC_REL_WINDOW; i++)
        p->win[i].buf = p->win_mem + (size_t)i * stride;
    return NIC_OK;
}

unsigned nic_rel_tx_space(const nic_rel_t *rel, const nic_rel_peer_t *p)
{
    return NIC_REL_WINDOW - (p->tx_next - p->tx_una);
}

int nic_rel_tx_idle(const nic_rel_peer_t *p)
{
    return p->tx_una == p->tx_next;
}

uint8_t *nic_rel_tx_buf(nic_rel_t *rel, nic_rel_peer_t *p)
{
    if (p->tx_next - p->tx_una >= NIC_REL_WINDOW)
        return NULL;
    if (rel_window_alloc(rel, p) != NIC_OK)
        return NULL;
    return p->win[p->tx_next % NIC_REL_WINDOW].buf;
}

uint8_t *nic_rel_tx_buf_ahead(nic_rel_t *rel, nic_rel_peer_t *p, unsigned k)
{
    if (p->tx_next + k - p->tx_una >= NIC_REL_WINDOW)
        return NULL;
    if (rel_window_alloc(rel, p) != NIC_OK)
        return NULL;
    return p->win[(p->tx_next + k) % NIC_REL_WINDOW].buf;
}

int nic_rel_tx_commit(nic_rel_t *rel, nic_rel_peer_t *p, size_t len)
{
    uint64_t now = nic_now_ns();
    uint32_t seq = p->tx_next;
    nic_rel_frame_t *f = &p->win[seq % NIC_REL_WINDOW];
    nic_rel_hdr_t *h = hdr_of(rel, f->buf);

    if (len > rel->cfg.frame_max || len < rel->cfg.hdr_off + sizeof(*h))
        return NIC_ERR_INVALID;
    p->tx_next++;
    h->src_fw = rel->my_fw;
    h->seq = seq;
    h->ack = p->rx_next;
    h->kind = NIC_REL_KIND_DATA;
    h->flags = seq == p->tx_first ? NIC_REL_F_SYN : 0;
    rel->ops.seal(rel->arg, f->buf, len, now, NIC_REL_SEAL_FIRST);
    f->seq = seq;
    f->len = (uint32_t)len;
    f->sent_ns = now;
    if (p->tx_una + 1 == p->tx_next)
        rel_heard(p, now);             /* the window was empty */
    p->ack_owed = 0;                   /* the ack rides along */
    rel->c.tx_data++;
    /* The window slot stays put until acknowledged, which is after the
     * firmware's turn has flushed it: it can go in a batch. */
    return nic_wire_send_stable(nic_fw_wire(rel->fw), &p->addr, p->job, f->buf, len);
}

int nic_rel_send(nic_rel_t *rel, nic_rel_peer_t *p, const void *frame, size_t len)
{
    uint8_t *buf;

    if (len > rel->cfg.frame_max)
        return NIC_ERR_INVALID;
    if ((buf = nic_rel_tx_buf(rel, p)) == NULL)
        return p->win == NULL ? NIC_ERR_NO_MEMORY : NIC_ERR_NO_RESOURCE;
    memcpy(buf, frame, len);
    return nic_rel_tx_commit(rel, p, len);
}

static void rel_retransmit(nic_rel_t *rel, nic_rel_peer_t *p, uint64_t now)
{
    unsigned n = 0;
    for (uint32_t s = p->tx_una; s != p->tx_next && n < REL_RETX_BURST; s++, n++) {
        nic_rel_frame_t *f = &p->win[s % NIC_REL_WINDOW];
        /* Refresh the piggy-backed ack (and so the checksum). */
        hdr_of(rel, f->buf)->ack = p->rx_next;
        rel->ops.seal(rel->arg, f->buf, f->len, now, NIC_REL_SEAL_RETRANSMIT);
        f->sent_ns = now;
        struct iovec iov = { f->buf, f->len };
        nic_wire_send(nic_fw_wire(rel->fw), &p->addr, p->job, &iov, 1);
        rel->c.retransmits++;
    }
    p->ack_owed = 0;
}

/* The peer is gone (status NIC_ERR_PEER_FAILED: silent for the peer
 * timeout; NIC_ERR_NOT_FOUND: it said BYE): report every outstanding frame
 * and forget the stream. */
static void rel_peer_gone(nic_rel_t *rel, nic_rel_peer_t *p, int status)
{
    char addr[64];
    unsigned lost = 0;

    nic_addr_format(&p->addr, addr, sizeof(addr));
    for (uint32_t s = p->tx_una; s != p->tx_next; s++) {
        nic_rel_frame_t *f = &p->win[s % NIC_REL_WINDOW];
        if (rel->ops.lost != NULL)
            rel->ops.lost(rel->arg, f->buf, f->len, status);
        lost++;
    }
    if (status == NIC_ERR_PEER_FAILED) {
        nic_log_warn("peer firmware %s answered nothing for %llu ms: declared dead, %u "
                     "packet(s) reported failed", addr,
                     (unsigned long long)(rel->cfg.peer_timeout_ns / 1000000ull), lost);
        rel->c.peer_failures++;
    } else {
        nic_log_info("peer firmware %s stopped; %u packet(s) to it reported undelivered",
                     addr, lost);
        rel->c.peers_stopped++;
    }
    p->dead = status;
    p->tx_una = p->tx_next;
    p->tx_first = p->tx_next;     /* a later stream starts with a new SYN */
    if (rel->ops.peer_gone != NULL)
        rel->ops.peer_gone(rel->arg, p, status);
}

int nic_rel_poll(nic_rel_t *rel, uint64_t now, uint64_t *next)
{
    int events = 0;

    for (unsigned i = 0; i < rel->npeer; i++) {
        nic_rel_peer_t *p = &rel->peer[i];
        if (!p->used)
            continue;
        if (p->ack_owed > 0) {
            if (now >= p->ack_due_ns) {
                rel_send_ack(rel, p, 0);
                events++;
            } else if (p->ack_due_ns < *next) {
                *next = p->ack_due_ns;
            }
        }
        if (p->tx_una == p->tx_next)
            continue;
        if (nic_stall_timer_expired(&p->silence, now, rel->cfg.peer_timeout_ns, next)) {
            rel_peer_gone(rel, p, NIC_ERR_PEER_FAILED);
            events++;
            continue;
        }
        nic_rel_frame_t *oldest = &p->win[p->tx_una % NIC_REL_WINDOW];
        if (p->dupacks >= 3 || rel_since(now, oldest->sent_ns) >= p->rto_ns) {
            if (p->dupacks < 3)
                p->rto_ns = p->rto_ns * 2 < rel->cfg.rto_max_ns ? p->rto_ns * 2
                                                                  : rel->cfg.rto_max_ns;
            p->dupacks = 0;
            rel_retransmit(rel, p, now);
            events++;
        }
        uint64_t due = oldest->sent_ns + p->rto_ns;
        if (due < *next)
            *next = due;
    }
    return events;
}

void nic_rel_job_end(nic_rel_t *rel, uint64_t job)
{
    for (unsigned i = 0; i < rel->npeer; i++) {
        nic_rel_peer_t *p = &rel->peer[i];
        nic_rel_frame_t *win;
        uint8_t *mem;

        if (!p->used || p->job != job)
            continue;
        if (!p->dead)
            rel_send_ctl(rel, p, NIC_REL_KIND_BYE, 0);
        /* Nothing of the job is left to tell about what was in flight. */
        win = p->win;
        mem = p->win_mem;
        memset(p, 0, sizeof(*p));
        p->win = win;               /* kept for the slot's next stream */
        p->win_mem = mem;
        if (rel->last == p)
            rel->last = NULL;
    }
    rel->full_logged = 0;
}

void nic_rel_rx(nic_rel_t *rel, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                size_t len)
{
    nic_rel_hdr_t h;
    nic_rel_peer_t *p;
    uint64_t now;

    if (len < rel->cfg.hdr_off + sizeof(h))
        return;
    memcpy(&h, frame + rel->cfg.hdr_off, sizeof(h));
    /* A BYE from a firmware we never talked to needs no stream. */
    p = nic_rel_peer(rel, from, job, h.kind != NIC_REL_KIND_BYE);
    if (p == NULL)
        return;
    now = nic_now_ns();
    if (h.kind == NIC_REL_KIND_ACK) {
        rel->c.rx_acks++;
        if (h.flags & NIC_REL_F_BUSY) {
            /* Its firmware is alive and its host is slow to drain: keep
             * retransmitting (backpressure), and do not declare it dead. */
            rel_acked(rel, p, h.ack, 0);
            rel_heard(p, now);
            return;
        }
        rel_acked(rel, p, h.ack, 1);
        return;
    }
    if (h.kind == NIC_REL_KIND_BYE) {
        /* From the incarnation we know, or from one that never sent us
         * data: a stale BYE must not end a newer stream. */
        if (!p->dead && (p->rx_src_fw == 0 || p->rx_src_fw == h.src_fw))
            rel_peer_gone(rel, p, NIC_ERR_NOT_FOUND);
        return;
    }
    if (h.kind != NIC_REL_KIND_DATA)
        return;                            /* the personality's to sort out */
    if (p->rx_src_fw != h.src_fw) {
        /* A sender we have not heard from (or that restarted): only its
         * first frame may open the stream. */
        if (!(h.flags & NIC_REL_F_SYN)) {
            rel->c.out_of_order++;
            return;
        }
        p->rx_src_fw = h.src_fw;
        p->rx_next = h.seq;
        p->dead = 0;
    }
    rel_acked(rel, p, h.ack, 0);
    if (seq_before(h.seq, p->rx_next)) {
        rel->c.duplicates++;
        rel_send_ack(rel, p, 0);           /* our ack may have been lost */
        return;
    }
    if (h.seq != p->rx_next) {
        rel->c.out_of_order++;
        if (rel_since(now, p->dupack_ns) > REL_DUPACK_NS) {
            p->dupack_ns = now;
            rel_send_ack(rel, p, 0);       /* tells the sender where the gap is */
        }
        return;
    }
    if (rel->ops.deliver(rel->arg, p, from, frame, len) != NIC_OK) {
        /* Not taken, so not acknowledged: it comes again.  The sender
         * learns that we are alive, so a host that drains slowly is never
         * mistaken for a dead node. */
        rel->c.backpressure++;
        if (rel_since(now, p->dupack_ns) > REL_DUPACK_NS) {
            p->dupack_ns = now;
            rel_send_ack(rel, p, NIC_REL_F_BUSY);
        }
        return;
    }
    p->rx_next++;
    if (p->ack_owed++ == 0)
        p->ack_due_ns = now + rel->cfg.ack_delay_ns;
    if (p->ack_owed >= REL_ACK_EVERY)
        rel_send_ack(rel, p, 0);
}
