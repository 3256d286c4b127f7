/* wire_auth_test.c - the wire's envelope (nic_wire_auth.c): only frames of a
 * job this wire holds the key of, with the right MAC, not seen before and
 * from their sender's address, reach the personality; everything else is
 * dropped, counted, and leaves no state behind (no replay window is kept
 * for a datagram that failed its MAC).  The datagrams are built and sent by
 * hand here, from plain sockets, as a stranger on the network would. */
#include "config.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/nic_status.h"
#include "core/nic_wire.h"
#include "test_forge.h"
#include "test_job.h"

typedef struct got {
    int      n;
    uint64_t job;
    size_t   len;
    uint8_t  first;
} got_t;

static void on_frame(void *arg, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                     size_t len)
{
    got_t *g = arg;
    (void)from;
    g->n++;
    g->job = job;
    g->len = len;
    g->first = len ? frame[0] : 0;
}

/* What b takes within a short while (the datagrams were sent already). */
static got_t drain(nic_wire_t *b)
{
    got_t g = { 0 };
    struct pollfd pfd = { .fd = b->fd, .events = POLLIN };

    while (poll(&pfd, 1, 100) > 0)
        nic_wire_recv(b, 64, on_frame, NULL, &g);
    return g;
}

static void open_wire(nic_wire_t *w, uint64_t job_no)
{
    cr_assert_eq(nic_wire_open(w, "127.0.0.1", 0, NULL, NULL), NIC_OK);
    if (job_no != 0)
        cr_assert_eq(nic_wire_job_add(w, test_jobp(job_no)), NIC_OK);
}

static int udp_socket(struct sockaddr_in *addr)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    socklen_t len = sizeof(*addr);

    cr_assert_geq(s, 0);
    memset(addr, 0, sizeof(*addr));
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(s, (struct sockaddr *)addr, sizeof(*addr)), 0);
    cr_assert_eq(getsockname(s, (struct sockaddr *)addr, &len), 0);
    return s;
}

/* A sealed datagram of job 1 with counter c, as wire w would send it. */
static size_t sealed(nic_wire_t *w, uint64_t c, uint8_t *buf, uint8_t fill)
{
    uint8_t frame[64];
    struct iovec iov = { frame, sizeof(frame) };
    nic_wire_env_t env;
    uint8_t mac[NIC_WIRE_MAC_LEN];

    memset(frame, fill, sizeof(frame));
    w->tx_counter = c - 1;
    cr_assert_eq(nic_wire_auth_seal(w, test_job(1).tag, NULL, &env, &iov, 1, mac), NIC_OK);
    memcpy(buf, &env, sizeof(env));
    memcpy(buf + sizeof(env), frame, sizeof(frame));
    memcpy(buf + sizeof(env) + sizeof(frame), mac, sizeof(mac));
    return sizeof(env) + sizeof(frame) + sizeof(mac);
}

Test(wire_auth, a_frame_of_the_job_arrives_with_its_tag)
{
    nic_wire_t a, b;
    uint8_t frame[100];
    struct iovec iov = { frame, sizeof(frame) };

    open_wire(&a, 1);
    open_wire(&b, 1);
    memset(frame, 0x42, sizeof(frame));
    cr_assert_eq(nic_wire_send(&a, &b.addr, test_job(1).tag, &iov, 1), NIC_OK);
    got_t g = drain(&b);
    cr_assert_eq(g.n, 1);
    cr_assert_eq(g.job, test_job(1).tag);
    cr_assert_eq(g.len, sizeof(frame), "the envelope is the wire's, not the personality's");
    cr_assert_eq(g.first, 0x42);
    cr_assert_eq(nic_wire_sender_count(&b), 1);
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(wire_auth, a_frame_of_a_job_without_a_key_is_not_sent)
{
    nic_wire_t a;
    uint8_t frame[8] = { 0 };
    struct iovec iov = { frame, sizeof(frame) };

    open_wire(&a, 1);
    cr_assert_eq(nic_wire_send(&a, &a.addr, test_job(2).tag, &iov, 1), NIC_ERR_PROTECTION);
    cr_assert_eq(nic_wire_send_stable(&a, &a.addr, test_job(2).tag, frame, sizeof(frame)),
                 NIC_ERR_PROTECTION);
    cr_assert_eq(a.st.tx_no_key, 2);
    cr_assert_eq(a.st.tx_frames, 0);
    nic_wire_close(&a);
}

/* What b does with forged and changed datagrams when a sends with mac. */
static void forged_are_dropped(int mac)
{
    nic_wire_t a, b;
    uint8_t buf[256], frame[64];
    size_t len;

    open_wire(&a, 1);
    open_wire(&b, 1);
    cr_assert_eq(nic_wire_set_mac(&a, mac), NIC_OK);
    memset(frame, 0x42, sizeof(frame));
    /* the right tag, a made-up MAC */
    cr_assert_eq(test_send_forged(test_job(1).tag, &b.addr, frame, sizeof(frame), 0), NIC_OK);
    /* an authentic datagram, changed on the way: one bit of the frame, of
     * the envelope's counter, of the MAC */
    len = sealed(&a, 1, buf, 0x42);
    buf[40] ^= 1;
    cr_assert_eq(test_send_raw(&b.addr, buf, len), NIC_OK);
    len = sealed(&a, 2, buf, 0x42);
    buf[offsetof(nic_wire_env_t, counter)] ^= 1;
    cr_assert_eq(test_send_raw(&b.addr, buf, len), NIC_OK);
    len = sealed(&a, 3, buf, 0x42);
    buf[len - 1] ^= 0x80;
    cr_assert_eq(test_send_raw(&b.addr, buf, len), NIC_OK);
    /* garbage: too short, no envelope, another version of the envelope */
    cr_assert_eq(test_send_raw(&b.addr, "x", 1), NIC_OK);
    cr_assert_eq(test_send_raw(&b.addr, frame, sizeof(frame)), NIC_OK);
    len = sealed(&a, 4, buf, 0x42);
    buf[offsetof(nic_wire_env_t, version)] = NIC_WIRE_VERSION + 1;
    cr_assert_eq(test_send_raw(&b.addr, buf, len), NIC_OK);
    /* a member of another job (b has no key for it) */
    cr_assert_eq(test_send_as_member(test_jobp(2), &b.addr, frame, sizeof(frame)), NIC_OK);

    got_t g = drain(&b);
    cr_assert_eq(g.n, 0, "a datagram without the job's MAC got through");
    cr_assert_eq(b.st.rx_bad_mac, 4);
    cr_assert_eq(b.st.rx_garbage, 3);
    cr_assert_eq(b.st.rx_no_key, 1);
    cr_assert_eq(b.st.rx_frames, 0);
    cr_assert_eq(nic_wire_sender_count(&b), 0, "state was made for a datagram that failed");
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(wire_auth, forged_garbage_and_foreign_datagrams_are_dropped_and_leave_no_state)
{
    forged_are_dropped(NIC_WIRE_MAC_POLY1305);
}

Test(wire_auth, forged_datagrams_are_dropped_under_aes_gcm_too)
{
    nic_wire_t probe;
    int have_aesgcm;

    open_wire(&probe, 0);
    have_aesgcm = probe.have_aesgcm;
    /* without AES-NI, the wire refuses AES-GCM rather than sending slowly */
    cr_assert(have_aesgcm || nic_wire_set_mac(&probe, NIC_WIRE_MAC_AESGCM) == NIC_ERR_CONFIG);
    nic_wire_close(&probe);
    if (have_aesgcm)
        forged_are_dropped(NIC_WIRE_MAC_AESGCM);
}

/* Wires choose their MAC on their own: each takes both, and a sender that
 * changes its MAC keeps its replay window (the counter is the sender's). */
Test(wire_auth, a_poly1305_wire_and_an_aes_gcm_wire_talk)
{
    nic_wire_t a, b;
    uint8_t frame[300];
    struct iovec iov = { frame, sizeof(frame) };

    open_wire(&a, 1);
    open_wire(&b, 1);
    cr_assert_eq(nic_wire_set_mac(&a, NIC_WIRE_MAC_POLY1305), NIC_OK);
    if (!b.have_aesgcm) {       /* nothing to mix: AES-GCM is refused (test above) */
        nic_wire_close(&a);
        nic_wire_close(&b);
        return;
    }
    cr_assert_eq(nic_wire_set_mac(&b, NIC_WIRE_MAC_AESGCM), NIC_OK);
    memset(frame, 5, sizeof(frame));
    for (int round = 0; round < 3; round++) {
        cr_assert_eq(nic_wire_send(&a, &b.addr, test_job(1).tag, &iov, 1), NIC_OK);
        cr_assert_eq(nic_wire_send(&b, &a.addr, test_job(1).tag, &iov, 1), NIC_OK);
        cr_assert_eq(drain(&b).n, 1);
        cr_assert_eq(drain(&a).n, 1);
        nic_wire_set_mac(&a, round % 2 ? NIC_WIRE_MAC_POLY1305 : NIC_WIRE_MAC_AESGCM);
    }
    cr_assert_eq(a.st.rx_bad_mac + b.st.rx_bad_mac + a.st.rx_replayed + b.st.rx_replayed, 0);
    cr_assert_eq(nic_wire_sender_count(&b), 1);
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(wire_auth, a_replayed_datagram_is_taken_once_and_not_from_another_address)
{
    nic_wire_t a, b;
    struct sockaddr_in relay_addr, other_addr;
    int relay = udp_socket(&relay_addr), other = udp_socket(&other_addr);
    uint8_t frame[64], dgram[NIC_WIRE_DGRAM_MAX];
    struct iovec iov = { frame, sizeof(frame) };
    ssize_t n;

    open_wire(&a, 1);
    open_wire(&b, 1);
    memset(frame, 7, sizeof(frame));
    /* a's datagram, caught on its way (it went to the relay instead) */
    cr_assert_eq(nic_wire_send(&a, &relay_addr, test_job(1).tag, &iov, 1), NIC_OK);
    n = recv(relay, dgram, sizeof(dgram), 0);
    cr_assert_eq(n, (ssize_t)(sizeof(frame) + NIC_WIRE_OVERHEAD));
    cr_assert_eq(sendto(relay, dgram, (size_t)n, 0, (struct sockaddr *)&b.addr, sizeof(b.addr)), n);
    cr_assert_eq(drain(&b).n, 1, "the first copy is authentic");
    cr_assert_eq(sendto(relay, dgram, (size_t)n, 0, (struct sockaddr *)&b.addr, sizeof(b.addr)), n);
    cr_assert_eq(sendto(other, dgram, (size_t)n, 0, (struct sockaddr *)&b.addr, sizeof(b.addr)), n);
    cr_assert_eq(drain(&b).n, 0, "a replay got through");
    cr_assert_eq(b.st.rx_replayed, 1);
    cr_assert_eq(b.st.rx_moved, 1);
    close(relay);
    close(other);
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(wire_auth, the_replay_window_takes_late_datagrams_once_and_refuses_older_ones)
{
    nic_wire_t a, b;
    struct sockaddr_in from;
    int s = udp_socket(&from);
    uint8_t buf[256];
    /* after 944 + W (W counters in the window), it holds 945..944 + W: 1000
     * was taken already, 945 was not, 944 is older than the window */
    const uint64_t W = NIC_WIRE_REPLAY_WORDS * 64, top = 944 + W;
    const uint64_t order[] = { 1000, 998, 999, 1000, 998, top, 1000, 945, 944, 1 };
    const int taken[] = { 1, 1, 1, 0, 0, 1, 0, 1, 0, 0 };

    open_wire(&a, 1);
    open_wire(&b, 1);
    for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        size_t len = sealed(&a, order[i], buf, (uint8_t)i);
        cr_assert_eq(sendto(s, buf, len, 0, (struct sockaddr *)&b.addr, sizeof(b.addr)),
                     (ssize_t)len);
        got_t g = drain(&b);
        cr_assert_eq(g.n, taken[i], "counter %llu (step %u)", (unsigned long long)order[i], i);
    }
    cr_assert_eq(b.st.rx_replayed, 5);
    close(s);
    nic_wire_close(&a);
    nic_wire_close(&b);
}

/* Issue 17: 300 ACK frames from 300 ports filled a firmware's peer table
 * for good.  A thousand ports now leave nothing behind, and the job's own
 * datagram still gets through. */
Test(wire_auth, a_flood_from_a_thousand_ports_leaves_nothing_behind, .timeout = 60)
{
    nic_wire_t a, b;
    uint8_t frame[64];
    struct iovec iov = { frame, sizeof(frame) };

    open_wire(&a, 1);
    open_wire(&b, 1);
    memset(frame, 1, sizeof(frame));
    for (int i = 0; i < 1000; i++) {
        if (i % 2 == 0)
            cr_assert_eq(test_send_forged(test_job(1).tag, &b.addr, frame, sizeof(frame),
                                          (uint8_t)i), NIC_OK);
        else
            cr_assert_eq(test_send_raw(&b.addr, frame, sizeof(frame)), NIC_OK);
        if (i % 100 == 99)
            drain(&b);        /* keep the socket buffer from overflowing */
    }
    drain(&b);
    cr_assert_eq(b.st.rx_bad_mac + b.st.rx_garbage, 1000);
    cr_assert_eq(nic_wire_sender_count(&b), 0);
    cr_assert_eq(nic_wire_send(&a, &b.addr, test_job(1).tag, &iov, 1), NIC_OK);
    cr_assert_eq(drain(&b).n, 1);
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(wire_auth, a_job_whose_last_reference_goes_is_forgotten)
{
    nic_wire_t a, b;
    uint8_t frame[16] = { 0 };
    struct iovec iov = { frame, sizeof(frame) };

    open_wire(&a, 1);
    open_wire(&b, 1);
    cr_assert_eq(nic_wire_job_add(&b, test_jobp(1)), NIC_OK);     /* a second endpoint */
    cr_assert_eq(nic_wire_job_refs(&b, test_job(1).tag), 2);
    cr_assert_eq(nic_wire_send(&a, &b.addr, test_job(1).tag, &iov, 1), NIC_OK);
    cr_assert_eq(drain(&b).n, 1);
    nic_wire_job_drop(&b, test_job(1).tag);
    cr_assert_eq(nic_wire_send(&a, &b.addr, test_job(1).tag, &iov, 1), NIC_OK);
    cr_assert_eq(drain(&b).n, 1, "one endpoint of the job is left");
    nic_wire_job_drop(&b, test_job(1).tag);
    cr_assert_eq(nic_wire_job_count(&b), 0);
    cr_assert_eq(nic_wire_sender_count(&b), 0, "the job's replay windows went with it");
    cr_assert_eq(nic_wire_send(&a, &b.addr, test_job(1).tag, &iov, 1), NIC_OK);
    cr_assert_eq(drain(&b).n, 0);
    cr_assert_eq(b.st.rx_no_key, 1);
    nic_wire_close(&a);
    nic_wire_close(&b);
}
