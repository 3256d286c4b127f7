/* wire_test.c - the wire's batched paths: which queued frames make one GSO
 * train, trains and single datagrams arriving as the frames they were
 * (boundaries, order, contents) with the offloads on and off, and a route
 * that refuses segmentation turning it off without losing a frame.  The
 * 4133-byte frames of the train put every other one at an odd offset of
 * the receive buffer: each must still reach the personality 8-byte
 * aligned. */
#include "config.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/nic_fw.h"
#include "core/nic_status.h"
#include "core/nic_wire.h"
#include "test_job.h"

static struct sockaddr_in addr_port(uint16_t port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    return a;
}

Test(gso_run, equal_frames_to_one_peer_make_one_train)
{
    struct sockaddr_in to[80];
    struct iovec iov[80];
    for (int i = 0; i < 80; i++) {
        to[i] = addr_port(1000);
        iov[i] = (struct iovec){ NULL, 900 };
    }
    /* at most NIC_WIRE_GSO_MAX_SEGS frames */
    cr_assert_eq(nic_wire_gso_run(to, iov, 80, 0), NIC_WIRE_GSO_MAX_SEGS);
    cr_assert_eq(nic_wire_gso_run(to, iov, 80, 70), 10);
    /* at most NIC_WIRE_GSO_MAX_BYTES bytes, each frame in its envelope */
    for (int i = 0; i < 80; i++)
        iov[i].iov_len = 4133;
    cr_assert_eq(nic_wire_gso_run(to, iov, 80, 0),
                 NIC_WIRE_GSO_MAX_BYTES / (4133 + NIC_WIRE_OVERHEAD));
    cr_assert_eq(nic_wire_gso_run(to, iov, 1, 0), 1);
}

Test(gso_run, another_peer_or_a_longer_frame_ends_a_train_a_shorter_one_closes_it)
{
    struct sockaddr_in to[8];
    struct iovec iov[8];
    for (int i = 0; i < 8; i++) {
        to[i] = addr_port(1000);
        iov[i] = (struct iovec){ NULL, 500 };
    }
    to[3] = addr_port(1001);
    cr_assert_eq(nic_wire_gso_run(to, iov, 8, 0), 3, "another port");
    to[3] = addr_port(1000);
    to[3].sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
    cr_assert_eq(nic_wire_gso_run(to, iov, 8, 0), 3, "another address");
    to[3] = addr_port(1000);
    iov[2].iov_len = 501;
    cr_assert_eq(nic_wire_gso_run(to, iov, 8, 0), 2, "a longer frame");
    iov[2].iov_len = 499;
    cr_assert_eq(nic_wire_gso_run(to, iov, 8, 0), 3, "a shorter frame is the last");
    cr_assert_eq(nic_wire_gso_run(to, iov, 8, 3), 5);
}

/* Frames as a personality queues them: a train of equal frames closed by
 * a short one, then frames of other sizes, each with its index and a
 * pattern so that a boundary in the wrong place shows. */
enum { NFRAMES = 40 };

static size_t frame_len(int i)
{
    return i < 30 ? 4133 : i == 30 ? 77 : (size_t)(200 + 13 * i);
}

static void fill(uint8_t *f, int i)
{
    for (size_t k = 0; k < frame_len(i); k++)
        f[k] = (uint8_t)(i * 31 + k * 7);
}

typedef struct rx_log {
    int     n, bad, batches;
    uint8_t seen[NFRAMES];
} rx_log_t;

/* The job every frame here belongs to. */
static uint64_t wire_job(void)
{
    return test_job(1).tag;
}

static void on_frame(void *arg, const struct sockaddr_in *from, uint64_t job, uint8_t *frame,
                     size_t len)
{
    rx_log_t *l = arg;
    int i = l->n++;
    (void)from;
    if (i >= NFRAMES || len != frame_len(i) || ((uintptr_t)frame & 7) != 0 || job != wire_job()) {
        l->bad++;
        return;
    }
    for (size_t k = 0; k < len; k++)
        if (frame[k] != (uint8_t)(i * 31 + k * 7)) {
            l->bad++;
            return;
        }
}

static void on_batch(void *arg)
{
    ((rx_log_t *)arg)->batches++;
}

/* Sends the frames from a to b and receives them; returns what arrived
 * (no Criterion asserts: a forked child runs it too). */
static rx_log_t send_frames(nic_wire_t *a, nic_wire_t *b)
{
    static uint8_t frames[NFRAMES][NIC_WIRE_MTU];
    rx_log_t l;

    memset(&l, 0, sizeof(l));
    for (int i = 0; i < NFRAMES; i++) {
        fill(frames[i], i);
        l.bad += nic_wire_send_stable(a, &b->addr, wire_job(), frames[i], frame_len(i)) != NIC_OK;
    }
    l.bad += nic_wire_flush_tx(a) < 0;
    for (int tries = 0; l.n < NFRAMES && tries < 2000; tries++)
        if (nic_wire_recv(b, 64, on_frame, on_batch, &l) == 0)
            usleep(1000);
    return l;
}

static void open_pair(nic_wire_t *a, nic_wire_t *b, int offload)
{
    cr_assert_eq(nic_wire_open(a, "127.0.0.1", 0, NULL, NULL), NIC_OK);
    cr_assert_eq(nic_wire_open(b, "127.0.0.1", 0, NULL, NULL), NIC_OK);
    cr_assert_eq(nic_wire_job_add(a, test_jobp(1)), NIC_OK);
    cr_assert_eq(nic_wire_job_add(b, test_jobp(1)), NIC_OK);
    nic_wire_set_offload(a, offload);
    nic_wire_set_offload(b, offload);
}

Test(wire, frames_arrive_whole_and_in_order_with_offload, .timeout = 30)
{
    nic_wire_t a, b;
    open_pair(&a, &b, 1);
    cr_assert(a.gso && b.gro, "this kernel has UDP_SEGMENT and UDP_GRO (Linux >= 5.0)");
    rx_log_t l = send_frames(&a, &b);
    cr_assert_eq(l.n, NFRAMES);
    cr_assert_eq(l.bad, 0);
    cr_assert_geq(l.batches, 1);
    cr_assert_eq(a.st.tx_frames, NFRAMES);
    cr_assert_eq(b.st.rx_frames, NFRAMES);
    cr_assert_geq(a.st.tx_trains, 2, "the 4133 B frames leave as trains (%llu)",
                  (unsigned long long)a.st.tx_trains);
    cr_assert_geq(b.st.rx_trains, 1, "and arrive as trains");
    nic_wire_close(&a);
    nic_wire_close(&b);
}

Test(wire, frames_arrive_whole_and_in_order_without_offload, .timeout = 30)
{
    nic_wire_t a, b;
    open_pair(&a, &b, 0);
    cr_assert(!a.gso && !b.gro);
    rx_log_t l = send_frames(&a, &b);
    cr_assert_eq(l.n, NFRAMES);
    cr_assert_eq(l.bad, 0);
    cr_assert_eq(a.st.tx_trains, 0);
    cr_assert_eq(b.st.rx_trains, 0);
    nic_wire_close(&a);
    nic_wire_close(&b);
}

/* In a network namespace of its own whose loopback has a 1500-byte MTU:
 * the wire finds that MTU; told a larger one (a configuration error), it
 * sends 4133-byte segments, above the path MTU, and the kernel refuses the
 * train: the wire must fall back to one datagram per frame (IP fragments
 * them) and lose nothing. */
static int lo_up_with_mtu(int mtu)
{
    struct ifreq ifr;
    int fd = socket(AF_INET, SOCK_DGRAM, 0), rc = -1;

    memset(&ifr, 0, sizeof(ifr));
    strcpy(ifr.ifr_name, "lo");
    ifr.ifr_mtu = mtu;
    if (fd >= 0 && ioctl(fd, SIOCSIFMTU, &ifr) == 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags |= IFF_UP;
        rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

static int fallback_child(void)
{
    nic_wire_t a, b;
    if (unshare(CLONE_NEWNET) != 0 || lo_up_with_mtu(1500) != 0)
        return 10;
    if (nic_wire_open(&a, "127.0.0.1", 0, NULL, NULL) != NIC_OK ||
        nic_wire_open(&b, "127.0.0.1", 0, NULL, NULL) != NIC_OK ||
        nic_wire_job_add(&a, test_jobp(1)) != NIC_OK || nic_wire_job_add(&b, test_jobp(1)) != NIC_OK)
        return 11;
    if (a.mtu != 1500 || b.mtu != 1500)
        return 15;            /* the MTU of the bound interface was found */
    /* told the link is larger than it is, the wire sends its frames whole
     * and the kernel refuses the trains */
    if (nic_wire_set_mtu(&a, 65536) != NIC_OK || !a.gso)
        return 12;
    rx_log_t l = send_frames(&a, &b);
    if (l.n != NFRAMES || l.bad != 0)
        return 13;
    if (a.gso || a.st.tx_trains != 0 || a.st.tx_frames != NFRAMES)
        return 14;
    return 0;
}

Test(wire, a_route_that_refuses_segmentation_turns_it_off_and_loses_nothing, .timeout = 30)
{
    pid_t pid = fork();
    int st;

    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(fallback_child());
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st), "the child died");
    cr_assert_neq(WEXITSTATUS(st), 10, "no network namespace of our own (needs root)");
    cr_assert_eq(WEXITSTATUS(st), 0, "step %d failed", WEXITSTATUS(st));
}
