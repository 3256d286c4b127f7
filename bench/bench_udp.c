/* bench_udp.c - the baseline: two processes and plain UDP sockets on
 * loopback.  Ping-pong with blocking recv (or busy polling), and streaming
 * with a window (the receiver acknowledges every window/2 datagrams, so
 * the baseline does not lose what it measures). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
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

static int st_rank(int rank, udp_shared_t *sh, const bench_opts_t *o, size_t dgram)
{
    static char buf[65536];
    int fd = udp_socket(&sh->port[rank]);
    rendezvous(sh, rank, fd);
    struct sockaddr_in peer = lo(sh->port[1 - rank]);
    size_t count = o->bw_total / dgram;
    const size_t window = 64, ack_every = 16;

    if (rank == 1) {
        for (size_t got = 0; got < count;) {
            if (recv_one(fd, buf, sizeof(buf), 0) > 0 && ++got % ack_every == 0)
                sendto(fd, "a", 1, 0, (struct sockaddr *)&peer, sizeof(peer));
        }
        sendto(fd, "d", 1, 0, (struct sockaddr *)&peer, sizeof(peer));
        return 0;
    }
    double t0 = bench_now_us();
    size_t acked = 0;
    for (size_t sent = 0; sent < count;) {
        if (sent - acked < window) {
            sendto(fd, buf, dgram, 0, (struct sockaddr *)&peer, sizeof(peer));
            sent++;
            continue;
        }
        if (recv_one(fd, buf, sizeof(buf), 0) > 0 && buf[0] == 'a')
            acked += ack_every;
    }
    while (recv_one(fd, buf, sizeof(buf), 0) > 0 && buf[0] != 'd')
        ;
    sh->result = (double)(count * dgram) / (bench_now_us() - t0);
    return 0;
}

int bench_udp_stream(const bench_opts_t *o, size_t dgram, bench_result_t *r)
{
    udp_shared_t *sh = bench_shared(sizeof(*sh));
    if (sh == NULL || run2(sh, st_rank, o, dgram) != 0)
        return -1;
    r->bw_MBs = sh->result;
    return 0;
}
