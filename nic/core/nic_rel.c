/* nic_rel.c - reliable ordered streams between firmwares (see nic_rel.h):
 * the table of streams, sequence numbers, transmit, acknowledgements sent
 * alone (with their SACK block), the timers, dead-peer detection and the
 * dispatch of received frames.  The receiver's selective repeat is in
 * nic_rel_rx.c, the sender's loss recovery in nic_rel_recover.c.  Moved
 * here from the Myrinet LCP once the VI firmware needed it too. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "nic_log.h"
#include "nic_rel_env.h"
#include "nic_rel_internal.h"

int nic_rel_create(nic_fw_t *fw, const nic_rel_config_t *cfg, const nic_rel_ops_t *ops,
                   void *arg, nic_rel_t **rel_p)
{
    nic_rel_config_t c = *cfg;

    if (nic_rel_settings_read(nic_fw_log(fw), nic_fw_config(fw)->pers, &c) != NIC_OK)
        return NIC_ERR_CONFIG;
    return nic_rel_create_on_wire(nic_fw_wire(fw), &c, ops, arg, rel_p);
}

int nic_rel_create_on_wire(nic_wire_t *wire, const nic_rel_config_t *cfg,
                           const nic_rel_ops_t *ops, void *arg, nic_rel_t **rel_p)
{
    nic_rel_t *rel;

    if (cfg->frame_max < cfg->hdr_off + sizeof(nic_rel_hdr_t) || ops->deliver == NULL ||
        ops->ack_frame == NULL || ops->seal == NULL || cfg->rto_min_ns == 0 ||
        cfg->rto_min_ns > cfg->rto_max_ns)
        return NIC_ERR_INVALID;
    rel = calloc(1, sizeof(*rel));
    if (rel == NULL)
        return NIC_ERR_NO_MEMORY;
    rel->wire = wire;
    rel->cfg = *cfg;
    rel->ops = *ops;
    rel->arg = arg;
    do {
        rel->my_fw = (uint32_t)(nic_now_ns() * 2654435761u) ^ ((uint32_t)rand() << 8);
    } while (rel->my_fw == 0);
    *rel_p = rel;
    return NIC_OK;
}

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
        rel_rx_free(&rel->peer[i]);
    }
    free(rel);
}

uint32_t nic_rel_incarnation(const nic_rel_t *rel) { return rel->my_fw; }
const nic_rel_counters_t *nic_rel_counters(const nic_rel_t *rel) { return &rel->c; }

void nic_rel_status(const nic_rel_t *rel, FILE *f, const char *prefix)
{
    const nic_rel_counters_t *c = &rel->c;

    fprintf(f, "%s: stream recovery sacked %llu fast-resent %llu probes %llu timeouts %llu "
               "kept %llu rtt-samples %llu\n", prefix,
            (unsigned long long)c->sacked, (unsigned long long)c->fast_retransmits,
            (unsigned long long)c->tail_probes, (unsigned long long)c->timeouts,
            (unsigned long long)c->kept, (unsigned long long)c->rtt_samples);
}

static int rel_is(const nic_rel_peer_t *p, const struct sockaddr_in *addr, uint64_t job)
{
    return p->used && p->job == job && p->addr.sin_addr.s_addr == addr->sin_addr.s_addr &&
           p->addr.sin_port == addr->sin_port;
}

/* Forget a slot's stream; what was allocated for it (the window, the
 * frames kept, both empty now) stays for the slot's next stream. */
static void rel_peer_clear(nic_rel_peer_t *p)
{
    nic_rel_frame_t *win = p->win;
    uint8_t *mem = p->win_mem;
    nic_rel_rxq_t *rxq = p->rxq;

    memset(p, 0, sizeof(*p));
    p->win = win;
    p->win_mem = mem;
    p->rxq = rxq;
}

/* A slot for a new stream. */
static void rel_peer_init(nic_rel_t *rel, nic_rel_peer_t *p, const struct sockaddr_in *addr,
                          uint64_t job)
{
    rel_peer_clear(p);
    p->used = 1;
    p->addr = *addr;
    p->job = job;
    p->tx_next = p->tx_una = p->tx_first = p->tx_sack_hi = 1;
    p->rto_ns = rel->cfg.rto_init_ns;
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
    if (!create || nic_wire_job_refs(rel->wire, job) == 0)
        return NULL;
    if (free_slot == NULL && rel->npeer < NIC_REL_MAX_PEERS)
        free_slot = &rel->peer[rel->npeer++];
    if (free_slot == NULL) {
        /* A slot is free again once its job ends here (nic_rel_job_end). */
        if (!rel->full_logged) {
            char a[64];
            nic_addr_format(addr, a, sizeof(a));
            nic_log_error(rel->wire->log,
                          "this firmware has %u streams open, as many as it can: frames to "
                          "and from %s (job %016llx) and any other new one are dropped until "
                          "a job ends", NIC_REL_MAX_PEERS, a, (unsigned long long)job);
            rel->full_logged = 1;
        }
        return NULL;
    }
    rel_peer_init(rel, free_slot, addr, job);
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

/* A frame of the module's own, without data: an ACK, or a BYE.  An ACK
 * while frames are kept after a gap carries their map, inserted in front
 * of the personality's last ack_tail bytes (still zero: seal() fills
 * them), so that each personality's checks see a frame of its own. */
void rel_send_ctl(nic_rel_t *rel, nic_rel_peer_t *p, uint8_t kind, uint8_t flags)
{
    uint8_t buf[256 + sizeof(nic_rel_sack_t)];
    size_t len, tail = rel->cfg.ack_tail;
    nic_rel_sack_t sack;
    nic_rel_hdr_t *h;

    memset(buf, 0, sizeof(buf));
    len = rel->ops.ack_frame(rel->arg, buf, sizeof(buf) - sizeof(sack));
    if (len < rel->cfg.hdr_off + sizeof(nic_rel_hdr_t) + tail || len > sizeof(buf) - sizeof(sack))
        return;
    if (kind == NIC_REL_KIND_ACK && rel_rx_sack(p, &sack)) {
        memmove(buf + len - tail + sizeof(sack), buf + len - tail, tail);
        memcpy(buf + len - tail, &sack, sizeof(sack));
        len += sizeof(sack);
        flags |= NIC_REL_F_SACK;
    }
    h = rel_hdr_of(rel, buf);
    h->src_fw = rel->my_fw;
    h->seq = 0;
    h->ack = p->rx_next;
    h->kind = kind;
    h->flags = flags;
    rel->ops.seal(rel->arg, buf, len, nic_now_ns(), NIC_REL_SEAL_ACK);
    struct iovec iov = { buf, len };
    nic_wire_send(rel->wire, &p->addr, p->job, &iov, 1);
    p->ack_owed = 0;
    rel->c.tx_acks++;
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
    (void)rel;
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
    nic_rel_hdr_t *h = rel_hdr_of(rel, f->buf);

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
    f->sends = 1;
    f->sacked = 0;
    p->probes = 0;                     /* a new tail, which may be probed again */
    p->last_tx_ns = now;
    if (p->tx_una + 1 == p->tx_next)
        rel_heard(p, now);             /* the window was empty */
    p->ack_owed = 0;                   /* the ack rides along */
    rel->c.tx_data++;
    /* The window slot stays put until acknowledged, which is after the
     * firmware's turn has flushed it: it can go in a batch. */
    return nic_wire_send_stable(rel->wire, &p->addr, p->job, f->buf, len);
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
        nic_log_warn(rel->wire->log,
                     "peer firmware %s answered nothing for %llu ms: declared dead, %u "
                     "packet(s) reported failed", addr,
                     (unsigned long long)(rel->cfg.peer_timeout_ns / 1000000ull), lost);
        rel->c.peer_failures++;
    } else {
        nic_log_info(rel->wire->log,
                     "peer firmware %s stopped; %u packet(s) to it reported undelivered",
                     addr, lost);
        rel->c.peers_stopped++;
    }
    p->dead = status;
    p->tx_una = p->tx_sack_hi = p->tx_next;
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
                rel_send_ctl(rel, p, NIC_REL_KIND_ACK, 0);
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
        events += rel_tx_timers(rel, p, now, next);
    }
    return events;
}

void nic_rel_job_end(nic_rel_t *rel, uint64_t job)
{
    for (unsigned i = 0; i < rel->npeer; i++) {
        nic_rel_peer_t *p = &rel->peer[i];

        if (!p->used || p->job != job)
            continue;
        if (!p->dead)
            rel_send_ctl(rel, p, NIC_REL_KIND_BYE, 0);
        /* Nothing of the job is left to tell about what was in flight. */
        rel_rx_reset(p);
        rel_peer_clear(p);
        if (rel->last == p)
            rel->last = NULL;
    }
    rel->full_logged = 0;
}

/* An ACK: its cumulative ack, and the map of what the receiver holds when
 * it carries one (for the ack it names: one for an older ack is stale). */
static void rel_rx_ack(nic_rel_t *rel, nic_rel_peer_t *p, const nic_rel_hdr_t *h,
                       const uint8_t *frame, size_t len, uint64_t now)
{
    size_t tail = rel->cfg.ack_tail;
    nic_rel_sack_t sack, *sp = NULL;

    rel->c.rx_acks++;
    if ((h->flags & NIC_REL_F_SACK) &&
        len >= rel->cfg.hdr_off + sizeof(*h) + sizeof(sack) + tail) {
        memcpy(&sack, frame + len - tail - sizeof(sack), sizeof(sack));
        if (sack.base == h->ack)
            sp = &sack;
    }
    rel_tx_acked(rel, p, h->ack, sp, now);
    /* BUSY: its firmware is alive and its host is slow to drain: keep
     * retransmitting (back-pressure), and do not declare it dead. */
    if (h->flags & NIC_REL_F_BUSY)
        rel_heard(p, now);
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
        rel_rx_ack(rel, p, &h, frame, len, now);
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
        rel_rx_reset(p);
        p->rx_src_fw = h.src_fw;
        p->rx_next = h.seq;
        p->dead = 0;
    }
    rel_tx_acked(rel, p, h.ack, NULL, now);
    rel_rx_data(rel, p, from, &h, frame, len, now);
}
