/* Windowed streaming bandwidth between two ranks.
 *
 * For each size, rank A starts a window of W nonblocking sends (MPI_Isend)
 * to rank B and waits for them; rank B has posted W nonblocking receives
 * into W distinct buffers, waits for them, and answers with a small
 * acknowledgement, which A receives before starting the next window.  The
 * bandwidth reported is bytes delivered / elapsed time on A, from the first
 * window to the last acknowledgement, after untimed warm-up windows.
 * Output on rank A's stdout, one line per size: "<size> <MB/s>" with
 * MB = 10^6 bytes; lines starting with '#' are comments.
 *
 * --check fills every message with a pattern of (size, message number,
 * sender) and verifies every received byte and the statuses; the exit
 * status is non-zero if anything was wrong. */
#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_TAG 21
#define ACK_TAG 22
#define MAX_REPORTS 5

struct bw_ctx {
    const struct bench_opts *o;
    MPI_Comm comm;
    int me, peer, initiator;
    unsigned char *sbuf;   /* W * max_size with --check, else max_size */
    unsigned char *rbuf;   /* W * max_size: receives never share memory */
    MPI_Request *reqs;
    MPI_Status *stats;
    long errors;
};

static unsigned char *send_slot(const struct bw_ctx *c, size_t size, int j)
{
    /* Concurrent sends may read one buffer; only --check needs one each. */
    return c->o->check ? c->sbuf + (size_t)j * size : c->sbuf;
}

static void report(struct bw_ctx *c, const char *what, size_t size, long seq,
                   long got, long want)
{
    if (c->errors++ < MAX_REPORTS)
        fprintf(stderr, "bandwidth: rank %d: size %zu message %ld: %s is %ld, expected %ld\n",
                c->me, size, seq, what, got, want);
}

static void check_window(struct bw_ctx *c, size_t size, long first_seq)
{
    int w = c->o->window;
    for (int j = 0; j < w; j++) {
        long seq = first_seq + j;
        const MPI_Status *st = &c->stats[j];
        int count = -1;
        MPI_Get_count(st, MPI_BYTE, &count);
        if (st->MPI_SOURCE != c->peer)
            report(c, "status source", size, seq, st->MPI_SOURCE, c->peer);
        if (st->MPI_TAG != DATA_TAG)
            report(c, "status tag", size, seq, st->MPI_TAG, DATA_TAG);
        if (count != (int)size)
            report(c, "received count", size, seq, count, (long)size);
        const unsigned char *buf = c->rbuf + (size_t)j * size;
        size_t bad = bench_verify(buf, size, (uint64_t)seq, c->peer);
        if (bad != (size_t)-1)
            report(c, "data byte", size, seq, (long)bad,
                   (long)bench_expected_byte(size, (uint64_t)seq, c->peer, bad));
    }
}

/* Runs n windows; message numbers start at first_seq (used by --check). */
static void run_windows(struct bw_ctx *c, size_t size, long first_seq, long n)
{
    const struct bench_opts *o = c->o;
    int w = o->window;
    int ack = 0;
    int src = o->any_source ? MPI_ANY_SOURCE : c->peer;
    for (long k = 0; k < n; k++) {
        long seq0 = first_seq + k * w;
        if (c->initiator) {
            for (int j = 0; j < w; j++) {
                unsigned char *buf = send_slot(c, size, j);
                if (o->check)
                    bench_fill(buf, size, (uint64_t)(seq0 + j), c->me);
                MPI_Isend(buf, (int)size, MPI_BYTE, c->peer, DATA_TAG, c->comm, &c->reqs[j]);
            }
            MPI_Waitall(w, c->reqs, c->stats);
            MPI_Recv(&ack, 1, MPI_INT, src, o->any_tag ? MPI_ANY_TAG : ACK_TAG, c->comm,
                     MPI_STATUS_IGNORE);
        } else {
            int tag = o->any_tag ? MPI_ANY_TAG : DATA_TAG;
            if (o->check)
                memset(c->rbuf, 0x5a, (size_t)w * size);
            for (int j = 0; j < w; j++)
                MPI_Irecv(c->rbuf + (size_t)j * size, (int)size, MPI_BYTE, src, tag, c->comm,
                          &c->reqs[j]);
            /* Statuses are always filled (not MPI_STATUSES_IGNORE): the cost is
             * negligible, and GCC 12 misreads MPICH's ignore sentinel as an
             * array of size 0 (-Wstringop-overflow). */
            MPI_Waitall(w, c->reqs, c->stats);
            if (o->check)
                check_window(c, size, seq0);
            MPI_Send(&ack, 1, MPI_INT, c->peer, ACK_TAG, c->comm);
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
        .min_size = 1, .max_size = 4u << 20, .iters = 200, .warmup = 20,
        .window = 64, .rank_a = 0, .rank_b = 1,
    };
    int rc = bench_parse_opts(argc, argv, &o, rank == 0, "bandwidth",
                              "  --window W       nonblocking sends per window (default 64)\n");
    if (rc == 0)
        rc = bench_check_pair(&o, nprocs, rank == 0, "bandwidth");
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }

    struct bw_ctx c = {.o = &o, .comm = MPI_COMM_WORLD, .me = rank};
    int active = (rank == o.rank_a || rank == o.rank_b);
    c.initiator = (rank == o.rank_a);
    c.peer = c.initiator ? o.rank_b : o.rank_a;
    if (active) {
        size_t slots = (size_t)o.window * o.max_size;
        c.sbuf = bench_alloc(c.initiator && o.check ? slots : o.max_size);
        c.rbuf = bench_alloc(c.initiator ? 1 : slots);
        c.reqs = calloc((size_t)o.window, sizeof *c.reqs);
        c.stats = calloc((size_t)o.window, sizeof *c.stats);
        if (!c.reqs || !c.stats) {
            fprintf(stderr, "bandwidth: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }

    size_t sizes[BENCH_MAX_SIZES];
    int nsizes = bench_size_list(&o, sizes);
    if (c.initiator) {
        printf("# multidev bandwidth: ranks %d->%d of %d, window=%d any-source=%d any-tag=%d "
               "check=%d\n",
               o.rank_a, o.rank_b, nprocs, o.window, o.any_source, o.any_tag, o.check);
        bench_print_library();
        printf("# bandwidth in MB/s (10^6 bytes/s), isend window + ack\n");
        printf("# size bandwidth_MBps\n");
        fflush(stdout);
    }

    long iter_floor = o.iters / 10 > 2 ? o.iters / 10 : 2;
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
        run_windows(&c, size, 0, w);
        bench_sync(MPI_COMM_WORLD, active);
        double t0 = MPI_Wtime();
        run_windows(&c, size, w * o.window, n);
        double t1 = MPI_Wtime();
        if (c.initiator) {
            double bytes = (double)size * (double)o.window * (double)n;
            printf("%zu %.2f\n", size, bytes / (t1 - t0) / 1e6);
            fflush(stdout);
        }
    }

    long total_errors = 0;
    MPI_Allreduce(&c.errors, &total_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (c.initiator && o.check)
        printf("# check: %s (%ld error(s))\n", total_errors ? "FAILED" : "all bytes verified",
               total_errors);
    free(c.reqs);
    free(c.stats);
    MPI_Finalize();
    return total_errors ? 1 : 0;
}
