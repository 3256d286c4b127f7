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
#include "bench_pair.h"
#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PING_TAG 11
#define PONG_TAG 12

struct pp_ctx {
    struct bench_pair p;
    unsigned char *sbuf, *rbuf;
};

/* The timed loop: no touching of the data. */
static void pingpong_fast(struct pp_ctx *c, size_t size, long n)
{
    const struct bench_pair *p = &c->p;
    int src = bench_pair_recv_source(p);
    long i;
    if (p->initiator) {
        int rtag = bench_pair_recv_tag(p, PONG_TAG);
        for (i = 0; i < n; i++) {
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, p->peer, PING_TAG, p->comm);
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, src, rtag, p->comm, MPI_STATUS_IGNORE);
        }
    } else {
        int rtag = bench_pair_recv_tag(p, PING_TAG);
        for (i = 0; i < n; i++) {
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, src, rtag, p->comm, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, p->peer, PONG_TAG, p->comm);
        }
    }
}

/* The verifying loop: seq numbers the messages of one size so that every
 * message of the run has its own pattern. */
static void pingpong_checked(struct pp_ctx *c, size_t size, long first_seq, long n)
{
    struct bench_pair *p = &c->p;
    int src = bench_pair_recv_source(p);
    MPI_Status st;
    long i;
    for (i = 0; i < n; i++) {
        long seq = first_seq + i;
        if (p->initiator) {
            bench_fill(c->sbuf, size, (uint64_t)seq, p->me);
            memset(c->rbuf, 0xa5, size);
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, p->peer, PING_TAG, p->comm);
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, src, bench_pair_recv_tag(p, PONG_TAG),
                     p->comm, &st);
            bench_pair_check(p, &st, PONG_TAG, c->rbuf, size, seq);
        } else {
            memset(c->rbuf, 0x5a, size);
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, src, bench_pair_recv_tag(p, PING_TAG),
                     p->comm, &st);
#ifdef BENCH_FAULT_INJECTION
            /* Test builds only (test/mpi/run.sh): spoil one byte of one message
             * per size, to show that --check notices. */
            if (size > 0 && seq == first_seq)
                c->rbuf[size - 1] ^= 0x40;
#endif
            bench_pair_check(p, &st, PING_TAG, c->rbuf, size, seq);
            bench_fill(c->sbuf, size, (uint64_t)seq, p->me);
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, p->peer, PONG_TAG, p->comm);
        }
    }
}

/* bench_pair_sweep's step: done iterations of this size ran before. */
static void pingpong_run(void *arg, size_t size, long done, long n)
{
    struct pp_ctx *c = arg;
    if (c->p.o->check)
        pingpong_checked(c, size, done, n);
    else
        pingpong_fast(c, size, n);
}

static void pingpong_print(void *arg, size_t size, long n, double seconds)
{
    (void)arg;
    printf("%zu %.3f\n", size, seconds * 1e6 / (2.0 * (double)n));
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

    struct pp_ctx c = { 0 };
    bench_pair_init(&c.p, &o, MPI_COMM_WORLD, rank, "pingpong", "iteration");
    if (c.p.active) {
        c.sbuf = bench_alloc(o.max_size);
        c.rbuf = bench_alloc(o.max_size);
    }

    size_t sizes[BENCH_MAX_SIZES];
    int nsizes = bench_size_list(&o, sizes);
    if (c.p.initiator) {
        printf("# multidev pingpong: ranks %d<->%d of %d, any-source=%d any-tag=%d check=%d\n",
               o.rank_a, o.rank_b, nprocs, o.any_source, o.any_tag, o.check);
        bench_print_library();
        printf("# latency = half the mean round trip, blocking send/recv\n");
        printf("# size latency_us\n");
        fflush(stdout);
    }
    bench_pair_sweep(&c.p, sizes, nsizes, o.iters / 100 > 10 ? o.iters / 100 : 10,
                     pingpong_run, pingpong_print, &c);
    rc = bench_pair_finish(&c.p);
    MPI_Finalize();
    return rc;
}
