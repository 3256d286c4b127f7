/* Ping-pong latency between two ranks.
 *
 * For each size, rank A sends a message to rank B, which sends one of the
 * same size back; the latency reported is half the mean round-trip time over
 * the timed iterations, after untimed warm-up iterations.  Blocking
 * MPI_Send/MPI_Recv on both sides.  Output on rank A's stdout, one line per
 * size: "<size> <latency_us>"; lines starting with '#' are comments.
 *
 * --check replaces the timed loop by one that fills every message with a
 * pattern of (size, iteration, sender) and verifies every received byte,
 * the status source, tag and count; the exit status is non-zero if anything
 * was wrong.  Its timings include the filling and checking. */
#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PING_TAG 11
#define PONG_TAG 12
#define MAX_REPORTS 5

struct pp_ctx {
    const struct bench_opts *o;
    MPI_Comm comm;
    int me, peer;      /* this rank and the other side of the pair */
    int initiator;     /* 1 on rank A */
    unsigned char *sbuf, *rbuf;
    long errors;
};

static int recv_source(const struct pp_ctx *c)
{
    return c->o->any_source ? MPI_ANY_SOURCE : c->peer;
}

static int recv_tag(const struct pp_ctx *c, int tag)
{
    return c->o->any_tag ? MPI_ANY_TAG : tag;
}

/* The timed loop: no touching of the data. */
static void pingpong_fast(struct pp_ctx *c, size_t size, long n)
{
    int src = recv_source(c);
    long i;
    if (c->initiator) {
        int rtag = recv_tag(c, PONG_TAG);
        for (i = 0; i < n; i++) {
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, c->peer, PING_TAG, c->comm);
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, src, rtag, c->comm, MPI_STATUS_IGNORE);
        }
    } else {
        int rtag = recv_tag(c, PING_TAG);
        for (i = 0; i < n; i++) {
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, src, rtag, c->comm, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, c->peer, PONG_TAG, c->comm);
        }
    }
}

static void report(struct pp_ctx *c, const char *what, size_t size, long seq,
                   long got, long want)
{
    if (c->errors++ < MAX_REPORTS)
        fprintf(stderr, "pingpong: rank %d: size %zu iteration %ld: %s is %ld, expected %ld\n",
                c->me, size, seq, what, got, want);
}

static void check_received(struct pp_ctx *c, size_t size, long seq, int tag,
                           const MPI_Status *st)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE != c->peer)
        report(c, "status source", size, seq, st->MPI_SOURCE, c->peer);
    if (st->MPI_TAG != tag)
        report(c, "status tag", size, seq, st->MPI_TAG, tag);
    if (count != (int)size)
        report(c, "received count", size, seq, count, (long)size);
    size_t bad = bench_verify(c->rbuf, size, (uint64_t)seq, c->peer);
    if (bad != (size_t)-1)
        report(c, "data byte", size, seq, (long)bad,
               (long)bench_expected_byte(size, (uint64_t)seq, c->peer, bad));
}

/* The verifying loop: seq numbers the messages of one size so that every
 * message of the run has its own pattern. */
static void pingpong_checked(struct pp_ctx *c, size_t size, long first_seq, long n)
{
    int src = recv_source(c);
    MPI_Status st;
    long i;
    for (i = 0; i < n; i++) {
        long seq = first_seq + i;
        if (c->initiator) {
            bench_fill(c->sbuf, size, (uint64_t)seq, c->me);
            memset(c->rbuf, 0xa5, size);
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, c->peer, PING_TAG, c->comm);
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, src, recv_tag(c, PONG_TAG), c->comm, &st);
            check_received(c, size, seq, PONG_TAG, &st);
        } else {
            memset(c->rbuf, 0x5a, size);
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, src, recv_tag(c, PING_TAG), c->comm, &st);
#ifdef BENCH_FAULT_INJECTION
            /* Test builds only (test/mpi/run.sh): spoil one byte of one message
             * per size, to show that --check notices. */
            if (size > 0 && seq == first_seq)
                c->rbuf[size - 1] ^= 0x40;
#endif
            check_received(c, size, seq, PING_TAG, &st);
            bench_fill(c->sbuf, size, (uint64_t)seq, c->me);
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, c->peer, PONG_TAG, c->comm);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    struct bench_opts o = {
        .min_size = 0, .max_size = 4u << 20, .iters = 10000, .warmup = 1000,
        .window = 0, .rank_a = 0, .rank_b = 1,
    };
    int rc = bench_parse_opts(argc, argv, &o, rank == 0, "pingpong", NULL);
    if (rc == 0)
        rc = bench_check_pair(&o, nprocs, rank == 0, "pingpong");
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }

    struct pp_ctx c = {.o = &o, .comm = MPI_COMM_WORLD, .me = rank};
    int active = (rank == o.rank_a || rank == o.rank_b);
    c.initiator = (rank == o.rank_a);
    c.peer = c.initiator ? o.rank_b : o.rank_a;
    if (active) {
        c.sbuf = bench_alloc(o.max_size);
        c.rbuf = bench_alloc(o.max_size);
    }

    size_t sizes[BENCH_MAX_SIZES];
    int nsizes = bench_size_list(&o, sizes);
    if (c.initiator) {
        printf("# multidev pingpong: ranks %d<->%d of %d, any-source=%d any-tag=%d check=%d\n",
               o.rank_a, o.rank_b, nprocs, o.any_source, o.any_tag, o.check);
        bench_print_library();
        printf("# latency = half the mean round trip, blocking send/recv\n");
        printf("# size latency_us\n");
        fflush(stdout);
    }

    long iter_floor = o.iters / 100 > 10 ? o.iters / 100 : 10;
    long warm_floor = o.warmup < 2 ? o.warmup : 2;
    for (int s = 0; s < nsizes; s++) {
        size_t size = sizes[s];
        long n = bench_scale_iters(o.iters, size, iter_floor);
        long w = bench_scale_iters(o.warmup, size, warm_floor);
        bench_sync(MPI_COMM_WORLD, active);
        if (!active) {
            bench_sync(MPI_COMM_WORLD, active);
            continue;
        }
        if (o.check)
            pingpong_checked(&c, size, 0, w);
        else
            pingpong_fast(&c, size, w);
        bench_sync(MPI_COMM_WORLD, active);
        double t0 = MPI_Wtime();
        if (o.check)
            pingpong_checked(&c, size, w, n);
        else
            pingpong_fast(&c, size, n);
        double t1 = MPI_Wtime();
        if (c.initiator) {
            printf("%zu %.3f\n", size, (t1 - t0) * 1e6 / (2.0 * (double)n));
            fflush(stdout);
        }
    }

    long total_errors = 0;
    MPI_Allreduce(&c.errors, &total_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (c.initiator && o.check)
        printf("# check: %s (%ld error(s))\n", total_errors ? "FAILED" : "all bytes verified",
               total_errors);
    MPI_Finalize();
    return total_errors ? 1 : 0;
}
