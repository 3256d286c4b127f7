/* rel_test.c - the reliable streams (nic_rel) driven directly: two
 * modules over two real wires on loopback, with a small personality of
 * the test's own (a type word, the stream header, a frame number, a
 * one-byte checksum at the end, as Myrinet's CRC).  Delivery stays in
 * order and exactly once under drops, duplicates and reordering; a lost
 * frame is resent alone, not the window after it; the timeout follows the
 * measured round trips; a receiver that cannot take frames holds the
 * sender back without losing any.  No assertion is about speed. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "core/nic_clock.h"
#include "core/nic_rel.h"
#include "core/nic_status.h"
#include "core/nic_wire.h"
#include "test_job.h"

#define T_TYPE_DATA 0x54534554u      /* "TEST" */
#define T_TYPE_ACK  0x4b434154u      /* "TACK" */
#define T_HDR_OFF   4
#define T_DATA_LEN  (T_HDR_OFF + sizeof(nic_rel_hdr_t) + 4 + 1)
#define T_MAX_GOT   4096

typedef struct side {
    nic_wire_t  w;
    nic_rel_t  *rel;
    /* receive */
    uint32_t    got[T_MAX_GOT];      /* frame numbers, in delivery order */
    unsigned    ngot;
    int         refuse;              /* deliver() answers NO_RESOURCE */
    unsigned    refused;
    uint32_t    drop_seq;            /* drop this DATA sequence number once (0: none) */
    int         dropped;
    unsigned    bad;                 /* frames with a wrong checksum */
    unsigned    sack_acks;           /* ACKs seen flagged SACK */
    unsigned    lost;                /* lost() calls */
} side_t;

static uint8_t t_sum(const uint8_t *b, size_t n)
{
    uint8_t x = 0x5a;
    for (size_t i = 0; i < n; i++)
        x = (uint8_t)((x << 1 | x >> 7) ^ b[i]);
    return x;
}

static size_t t_ack_frame(void *arg, uint8_t *buf, size_t cap)
{
    uint32_t type = T_TYPE_ACK;
    (void)arg;
    if (cap < T_HDR_OFF + sizeof(nic_rel_hdr_t) + 1)
        return 0;
    memcpy(buf, &type, 4);
    return T_HDR_OFF + sizeof(nic_rel_hdr_t) + 1;
}

static void t_seal(void *arg, uint8_t *frame, size_t len, uint64_t now, int what)
{
    (void)arg, (void)now, (void)what;
    frame[len - 1] = t_sum(frame, len - 1);
}

static int t_deliver(void *arg, nic_rel_peer_t *p, const struct sockaddr_in *from,
                     uint8_t *frame, size_t len)
{
    side_t *s = arg;
    uint32_t id;
    (void)p, (void)from;

    cr_assert_eq(len, T_DATA_LEN, "a frame delivered whole");
    if (s->refuse) {
        s->refused++;
        return NIC_ERR_NO_RESOURCE;
    }
    memcpy(&id, frame + T_HDR_OFF + sizeof(nic_rel_hdr_t), 4);
    cr_assert_lt(s->ngot, T_MAX_GOT);
    s->got[s->ngot++] = id;
    return NIC_OK;
}

static void t_lost(void *arg, const uint8_t *frame, size_t len, int status)
{
    side_t *s = arg;
    (void)frame, (void)len, (void)status;
    s->lost++;
}

static void on_frame(void *arg, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                     size_t len)
{
    side_t *s = arg;
    nic_rel_hdr_t h;

    if (len < T_HDR_OFF + sizeof(h) + 1 || t_sum(frame, len - 1) != frame[len - 1]) {
        s->bad++;
        return;
    }
    memcpy(&h, frame + T_HDR_OFF, sizeof(h));
    if (h.kind == NIC_REL_KIND_DATA && s->drop_seq != 0 && h.seq == s->drop_seq &&
        !s->dropped) {
        s->dropped = 1;
        return;
    }
    if (h.kind == NIC_REL_KIND_ACK && (h.flags & NIC_REL_F_SACK))
        s->sack_acks++;
    nic_rel_rx(s->rel, from, job, frame, len);
}

static const nic_rel_ops_t t_ops = {
    .ack_frame = t_ack_frame, .seal = t_seal, .deliver = t_deliver, .lost = t_lost,
};

static void side_open(side_t *s, const nic_fault_t *fault, uint64_t rto_init_us,
                      uint64_t rto_min_us)
{
    nic_rel_config_t cfg = {
        .hdr_off = T_HDR_OFF,
        .frame_max = 64,
        .ack_tail = 1,
        .rto_init_ns = rto_init_us * 1000,
        .rto_min_ns = rto_min_us * 1000,
        .rto_max_ns = 100 * 1000 * 1000,
        .peer_timeout_ns = 10ull * 1000 * 1000 * 1000,
        .ack_delay_ns = 50 * 1000,
    };

    memset(s, 0, sizeof(*s));
    cr_assert_eq(nic_wire_open(&s->w, "127.0.0.1", 0, fault, NULL), NIC_OK);
    cr_assert_eq(nic_wire_job_add(&s->w, test_jobp(1)), NIC_OK);
    cr_assert_eq(nic_rel_create_on_wire(&s->w, &cfg, &t_ops, s, &s->rel), NIC_OK);
}

static void side_close(side_t *s)
{
    nic_rel_destroy(s->rel);
    nic_wire_close(&s->w);
}

/* Two sides whose timeouts do not come within 100 ms: what recovers a
 * loss there is not the timer. */
static void open_pair_without_timeouts(side_t *a, side_t *b)
{
    side_open(a, NULL, 100000, 100000);
    side_open(b, NULL, 100000, 100000);
}

static void close_pair(side_t *a, side_t *b)
{
    side_close(a);
    side_close(b);
}

static void pump(side_t *s)
{
    uint64_t next = UINT64_MAX;

    nic_wire_recv(&s->w, 64, on_frame, NULL, s);
    nic_rel_poll(s->rel, nic_now_ns(), &next);
    nic_wire_flush_tx(&s->w);
    nic_wire_flush(&s->w, nic_now_ns());
}

static nic_rel_peer_t *stream_to(side_t *from, side_t *to)
{
    nic_rel_peer_t *p = nic_rel_peer(from->rel, &to->w.addr, test_job(1).tag, 1);
    cr_assert_not_null(p);
    return p;
}

/* Frames first .. first + n - 1 from a to b, as fast as the window lets
 * them go; both sides run meanwhile. */
static void send_frames(side_t *a, side_t *b, uint32_t first, unsigned n)
{
    nic_rel_peer_t *p = stream_to(a, b);
    uint64_t give_up = nic_now_ns() + 20ull * 1000 * 1000 * 1000;

    for (uint32_t id = first; id < first + n;) {
        uint8_t *buf = nic_rel_tx_buf(a->rel, p);
        if (buf == NULL) {
            cr_assert_lt(nic_now_ns(), give_up, "the window never opened");
            pump(a);
            pump(b);
            continue;
        }
        uint32_t type = T_TYPE_DATA;
        memcpy(buf, &type, 4);
        memcpy(buf + T_HDR_OFF + sizeof(nic_rel_hdr_t), &id, 4);
        cr_assert_eq(nic_rel_tx_commit(a->rel, p, T_DATA_LEN), NIC_OK);
        id++;
    }
    nic_wire_flush_tx(&a->w);
}

/* Run both sides until b has n frames and a's stream is idle (or for ms
 * milliseconds at most). */
static void run_until(side_t *a, side_t *b, unsigned n, unsigned ms)
{
    nic_rel_peer_t *p = stream_to(a, b);
    uint64_t end = nic_now_ns() + (uint64_t)ms * 1000 * 1000;

    while (nic_now_ns() < end && (b->ngot < n || !nic_rel_tx_idle(p))) {
        pump(a);
        pump(b);
    }
}

static void run_for(side_t *a, side_t *b, unsigned ms)
{
    uint64_t end = nic_now_ns() + (uint64_t)ms * 1000 * 1000;
    while (nic_now_ns() < end) {
        pump(a);
        pump(b);
    }
}

static void assert_in_order(const side_t *b, uint32_t first, unsigned n)
{
    cr_assert_eq(b->ngot, n, "%u frames delivered, %u sent", b->ngot, n);
    for (unsigned i = 0; i < n; i++)
        cr_assert_eq(b->got[i], first + i, "frame %u is %u: out of order or twice", i,
                     b->got[i]);
}

Test(rel, frames_arrive_in_order_once_without_loss)
{
    side_t a, b;

    side_open(&a, NULL, 10000, 1000);
    side_open(&b, NULL, 10000, 1000);
    send_frames(&a, &b, 1, 500);
    run_until(&a, &b, 500, 5000);
    assert_in_order(&b, 1, 500);
    cr_assert_eq(nic_rel_counters(a.rel)->retransmits, 0, "nothing was lost");
    cr_assert_eq(a.bad + b.bad, 0);
    close_pair(&a, &b);
}

Test(rel, drops_duplicates_and_reordering_leave_delivery_exact)
{
    nic_fault_t f = { .drop = 0.1, .dup = 0.05, .reorder = 0.05, .seed = 12345 };
    nic_fault_t g = { .drop = 0.1, .dup = 0.05, .reorder = 0.05, .seed = 67890 };
    side_t a, b;

    side_open(&a, &f, 10000, 1000);
    side_open(&b, &g, 10000, 1000);
    send_frames(&a, &b, 1, 3000);
    run_until(&a, &b, 3000, 20000);
    assert_in_order(&b, 1, 3000);
    const nic_rel_counters_t *ca = nic_rel_counters(a.rel), *cb = nic_rel_counters(b.rel);
    cr_assert_gt(a.w.st.fault_drop, 0, "the faults were real");
    cr_assert_gt(cb->kept, 0, "frames after a gap were kept");
    cr_assert_gt(ca->sacked, 0, "the sender heard what was kept");
    cr_assert_gt(b.sack_acks + a.sack_acks, 0);
    /* Selective repeat: roughly one resend per frame dropped, not a
     * window's worth (go-back-N resent several times what was lost). */
    cr_assert_lt(ca->retransmits, 3 * (a.w.st.fault_drop + b.w.st.fault_drop) + 64,
                 "%llu resent for %llu + %llu dropped",
                 (unsigned long long)ca->retransmits, (unsigned long long)a.w.st.fault_drop,
                 (unsigned long long)b.w.st.fault_drop);
    cr_assert_eq(a.lost, 0, "nobody was declared dead");
    close_pair(&a, &b);
}

Test(rel, one_frame_lost_in_a_hundred_is_resent_alone)
{
    side_t a, b;

    open_pair_without_timeouts(&a, &b);
    b.drop_seq = 50;
    send_frames(&a, &b, 1, 100);
    run_until(&a, &b, 100, 5000);
    assert_in_order(&b, 1, 100);
    cr_assert(b.dropped, "frame 50 was dropped");
    const nic_rel_counters_t *ca = nic_rel_counters(a.rel), *cb = nic_rel_counters(b.rel);
    cr_assert_geq(cb->kept, 40, "the frames after the gap were kept (%llu)",
                  (unsigned long long)cb->kept);
    cr_assert_gt(a.sack_acks, 0, "an ack said which were kept");
    cr_assert_gt(ca->sacked, 0, "and the sender took note");
    cr_assert_geq(ca->retransmits, 1);
    cr_assert_leq(ca->retransmits, 2, "%llu frames resent for one lost",
                  (unsigned long long)ca->retransmits);
    cr_assert_eq(ca->timeouts, 0, "found lost without waiting for the timeout");
    close_pair(&a, &b);
}

Test(rel, a_lost_last_frame_is_probed_before_the_timeout)
{
    side_t a, b;

    open_pair_without_timeouts(&a, &b);
    send_frames(&a, &b, 1, 20);      /* round trips measured */
    run_until(&a, &b, 20, 5000);
    const nic_rel_counters_t *ca = nic_rel_counters(a.rel);
    uint64_t probes = ca->tail_probes;   /* a late ack may have drawn one already */
    b.drop_seq = 21;                 /* the next message's only frame */
    send_frames(&a, &b, 21, 1);
    run_until(&a, &b, 21, 5000);
    assert_in_order(&b, 1, 21);
    cr_assert_gt(ca->tail_probes, probes, "the lost frame came again as a probe");
    cr_assert_eq(ca->timeouts, 0, "before the 100 ms timeout");
    close_pair(&a, &b);
}

/* A frame resent while its first copy still waits in the wire's send batch
 * (committed in this turn, not flushed): the resend changes its bytes (a
 * fresh piggy-backed ack), so the batch must leave first, or the first
 * copy goes out with a MAC made over other bytes and is dropped. */
Test(rel, a_frame_resent_before_its_batch_left_keeps_its_mac)
{
    side_t a, b;
    uint64_t next = UINT64_MAX;

    side_open(&a, NULL, 1000, 1000);         /* a 1 ms timeout */
    side_open(&b, NULL, 100000, 100000);
    nic_rel_peer_t *p = stream_to(&a, &b);
    uint8_t *buf = nic_rel_tx_buf(a.rel, p);
    uint32_t type = T_TYPE_DATA, id = 1;
    cr_assert_not_null(buf);
    memcpy(buf, &type, 4);
    memcpy(buf + T_HDR_OFF + sizeof(nic_rel_hdr_t), &id, 4);
    cr_assert_eq(nic_rel_tx_commit(a.rel, p, T_DATA_LEN), NIC_OK);
    cr_assert_gt(a.w.tx_n, 0, "the frame waits in a's batch");
    send_frames(&b, &a, 100, 1);             /* a's next ack differs from the queued one's */
    for (uint64_t end = nic_now_ns() + 1000000000ull; a.ngot == 0 && nic_now_ns() < end;)
        nic_wire_recv(&a.w, 64, on_frame, NULL, &a);
    cr_assert_eq(a.ngot, 1);
    for (uint64_t until = nic_now_ns() + 3000000ull; nic_now_ns() < until;)
        ;                                    /* past the timeout, nothing flushed */
    nic_rel_poll(a.rel, nic_now_ns(), &next);
    cr_assert_gt(nic_rel_counters(a.rel)->retransmits, 0, "the frame was resent");
    nic_wire_flush_tx(&a.w);
    run_until(&a, &b, 1, 2000);
    assert_in_order(&b, 1, 1);
    cr_assert_eq(b.w.st.rx_bad_mac, 0, "a copy left with a MAC over other bytes");
    cr_assert_eq(a.bad + b.bad, 0);
    close_pair(&a, &b);
}

Test(rel, the_timeout_follows_measured_round_trips)
{
    side_t a, b;

    side_open(&a, NULL, 50000, 1000);    /* 50 ms before any round trip was measured */
    side_open(&b, NULL, 50000, 1000);
    nic_rel_peer_t *p = stream_to(&a, &b);
    cr_assert_eq(p->rto_ns, 50000000ull);
    for (uint32_t i = 0; i < 20; i++) {      /* one frame at a time: a sample each */
        send_frames(&a, &b, 1 + i, 1);
        run_until(&a, &b, i + 1, 2000);
    }
    assert_in_order(&b, 1, 20);
    cr_assert_gt(nic_rel_counters(a.rel)->rtt_samples, 0);
    cr_assert_gt(p->srtt_ns, 0);
    cr_assert_lt(p->rto_ns, 50000000ull, "rto %llu ns after %llu samples",
                 (unsigned long long)p->rto_ns,
                 (unsigned long long)nic_rel_counters(a.rel)->rtt_samples);
    cr_assert_geq(p->rto_ns, 1000000ull, "never below the floor");
    close_pair(&a, &b);
}

Test(rel, a_receiver_that_cannot_take_frames_holds_the_sender_back)
{
    side_t a, b;

    side_open(&a, NULL, 2000, 1000);
    side_open(&b, NULL, 2000, 1000);
    b.refuse = 1;
    b.drop_seq = 3;                  /* and frames 4.. are kept after a gap */
    send_frames(&a, &b, 1, 10);
    run_for(&a, &b, 200);
    cr_assert_eq(b.ngot, 0, "nothing taken while the host is full");
    cr_assert_gt(b.refused, 0);
    cr_assert_gt(nic_rel_counters(b.rel)->backpressure, 0);
    cr_assert_gt(nic_rel_counters(b.rel)->kept, 0);
    cr_assert_eq(a.lost, 0, "a slow host is not a dead peer");
    cr_assert_not(nic_rel_tx_idle(stream_to(&a, &b)), "nothing acknowledged");
    b.refuse = 0;
    run_until(&a, &b, 10, 5000);
    assert_in_order(&b, 1, 10);
    cr_assert(nic_rel_tx_idle(stream_to(&a, &b)), "all acknowledged once taken");
    close_pair(&a, &b);
}
