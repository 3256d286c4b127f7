/* bench_udp.c - the baseline: two processes and plain UDP sockets on
 * loopback.  Ping-pong with blocking recv (or busy polling), and streaming
 * with a window (the receiver acknowledges every 16 datagrams, so the
 * baseline does not lose what it measures), plain or with the UDP
 * segmentation offloads (GSO trains, GRO receives) the firmwares use. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "myri_bench.h"


typedef struct udp_shared {
    _Atomic int ready;
    uint16_t    port[2];
    double      result;
} udp_shared_t;

static int udp_socket(uint16_t *port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(sa);
    int size = 8 << 20;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    getsockname(fd, (struct sockaddr *)&sa, &len);
    *port = ntohs(sa.sin_port);
    return fd;
}

static struct sockaddr_in lo(uint16_t port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    return sa;
}

static ssize_t recv_one(int fd, void *buf, size_t len, int busy)
{
    ssize_t n;
    do {
        n = recv(fd, buf, len, busy ? MSG_DONTWAIT : 0);
    } while (n < 0 && (errno == EAGAIN || errno == EINTR));
    return n;
}

static int run2(udp_shared_t *sh, int (*fn)(int rank, udp_shared_t *sh, const bench_opts_t *o,
                                            size_t arg), const bench_opts_t *o, size_t arg)
{
    pid_t pid[2];
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        pid[i] = fork();
        if (pid[i] == 0) {
            if (o->pin)
                bench_pin(i);
            _exit(fn(i, sh, o, arg));
        }
    }
    for (int i = 0; i < 2; i++) {
        int st;
        waitpid(pid[i], &st, 0);
        ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    return ok ? 0 : -1;
}

static void rendezvous(udp_shared_t *sh, int rank, int fd)
{
    (void)fd;
    atomic_fetch_add(&sh->ready, 1);
    while (atomic_load(&sh->ready) < 2)
        ;
    (void)rank;
}

static int pp_rank(int rank, udp_shared_t *sh, const bench_opts_t *o, size_t busy)
{
    char buf[65536];
    int fd = udp_socket(&sh->port[rank]);
    rendezvous(sh, rank, fd);
    struct sockaddr_in peer = lo(sh->port[1 - rank]);
    int warm = o->iters / 10 + 10;
    double t0 = 0;
    for (int i = -warm; i < o->iters; i++) {
        if (i == 0)
            t0 = bench_now_us();
        if (rank == 0) {
            sendto(fd, buf, o->lat_size, 0, (struct sockaddr *)&peer, sizeof(peer));
            recv_one(fd, buf, sizeof(buf), (int)busy);
        } else {
            recv_one(fd, buf, sizeof(buf), (int)busy);
            sendto(fd, buf, o->lat_size, 0, (struct sockaddr *)&peer, sizeof(peer));
        }
    }
    if (rank == 0)
        sh->result = (bench_now_us() - t0) / o->iters;
    close(fd);
    return 0;
}

int bench_udp_pingpong(const bench_opts_t *o, int busy_poll, bench_result_t *r)
{
    udp_shared_t *sh = bench_shared(sizeof(*sh));
    if (sh == NULL || run2(sh, pp_rank, o, (size_t)busy_poll) != 0)
        return -1;
    r->rtt_us = sh->result;
    return 0;
}

/* Sends n datagrams of dgram bytes: one system call each, or with the
 * segmentation offload one train of n in a single call. */
static void send_dgrams(int fd, const struct sockaddr_in *peer, const char *buf, size_t dgram,
                        size_t n, int offload)
{
    union { char b[CMSG_SPACE(sizeof(uint16_t))]; struct cmsghdr align; } ctl;
    struct iovec iov = { (void *)buf, dgram * n };
    struct msghdr h = { .msg_name = (void *)peer, .msg_namelen = sizeof(*peer),
                        .msg_iov = &iov, .msg_iovlen = 1 };

    if (!offload || n == 1) {
        for (size_t i = 0; i < n; i++)
            sendto(fd, buf, dgram, 0, (const struct sockaddr *)peer, sizeof(*peer));
        return;
    }
    uint16_t seg = (uint16_t)dgram;
    h.msg_control = ctl.b;
    h.msg_controllen = sizeof(ctl.b);
    struct cmsghdr *c = CMSG_FIRSTHDR(&h);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof(seg));
    memcpy(CMSG_DATA(c), &seg, sizeof(seg));
    sendmsg(fd, &h, 0);
}

/* recv with a time limit: -1 when nothing came within ms. */
static ssize_t recv_within(int fd, void *buf, size_t len, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    ssize_t n;

    for (;;) {
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        n = recv(fd, buf, len, MSG_DONTWAIT);
        if (n >= 0 || (errno != EAGAIN && errno != EINTR))
            return n;
    }
}

enum { ST_WAIT_MS = 100, ST_QUIET_MS = 2000 };

/* Streaming: the receiver acknowledges every ack_every datagrams with the
 * count it has, the sender keeps at most window datagrams unacknowledged.
 * With offload the sender sends trains (UDP GSO) and the receiver takes
 * them whole (UDP GRO).  Plain UDP may lose a datagram even on loopback
 * (a receive buffer overflow): a sender that waits ST_WAIT_MS for an ack
 * takes the window as gone, counts a stall, and goes on, so the run ends;
 * a figure with stalls is reported as such. */
static int st_rank(int rank, udp_shared_t *sh, const bench_opts_t *o, size_t arg)
{
    static char buf[65536];
    const size_t dgram = arg & 0xffff;
    const int offload = (arg >> 16) & 1;
    int fd = udp_socket(&sh->port[rank]);
    size_t count = o->bw_total / dgram;
    const size_t window = 64, ack_every = 16, train_max = 65000 / dgram;
    int one = 1;

    if (offload)
        setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one));
    rendezvous(sh, rank, fd);
    struct sockaddr_in peer = lo(sh->port[1 - rank]);   /* published before the rendezvous */
    if (rank == 1) {
        size_t got = 0, reported = 0;
        for (;;) {
            ssize_t n = recv_within(fd, buf, sizeof(buf), got ? ST_QUIET_MS : 60000);
            if (n < 0 || n == 1)
                break;      /* the sender's end mark, or it has gone quiet */
            got += ((size_t)n + dgram - 1) / dgram;
            if (got - reported >= ack_every || got >= count) {
                reported = got;
                sendto(fd, &got, sizeof(got), 0, (struct sockaddr *)&peer, sizeof(peer));
            }
        }
        return 0;
    }
    double t0 = bench_now_us();
    size_t acked = 0, stalls = 0;
    for (size_t sent = 0; sent < count || acked < count;) {
        if (sent < count && sent - acked < window) {
            size_t n = count - sent, room = window - (sent - acked);
            n = n < room ? n : room;
            n = !offload ? 1 : n > train_max ? train_max : n;
            send_dgrams(fd, &peer, buf, dgram, n, offload);
            sent += n;
            continue;
        }
        if (recv_within(fd, buf, sizeof(buf), ST_WAIT_MS) == sizeof(size_t)) {
            memcpy(&acked, buf, sizeof(acked));
        } else {
            stalls++;
            acked = sent;
        }
    }
    sh->result = (double)(count * dgram) / (bench_now_us() - t0);
    for (int i = 0; i < 3; i++)
        sendto(fd, "e", 1, 0, (struct sockaddr *)&peer, sizeof(peer));
    if (stalls)
        fprintf(stderr, "bench: raw UDP streaming of %zu B datagrams%s stalled %zu time(s) on "
                "lost datagrams: its figure is low\n", dgram, offload ? " (GSO/GRO)" : "",
                stalls);
    return 0;
}

int bench_udp_stream(const bench_opts_t *o, size_t dgram, bench_result_t *r)
{
    return bench_udp_stream_offload(o, dgram, 0, r);
}

int bench_udp_stream_offload(const bench_opts_t *o, size_t dgram, int offload, bench_result_t *r)
{
    udp_shared_t *sh = bench_shared(sizeof(*sh));
    if (sh == NULL || dgram > 65000 || run2(sh, st_rank, o, dgram | (size_t)!!offload << 16) != 0)
        return -1;
    r->bw_MBs = sh->result;
    return 0;
}
