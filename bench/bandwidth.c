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
#include "bench_pair.h"
#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_TAG 21
#define ACK_TAG 22

struct bw_ctx {
    struct bench_pair p;
    unsigned char *sbuf;   /* W * max_size with --check, else max_size */
    unsigned char *rbuf;   /* W * max_size: receives never share memory */
    MPI_Request *reqs;
    MPI_Status *stats;
};

static unsigned char *send_slot(const struct bw_ctx *c, size_t size, int j)
{
    /* Concurrent sends may read one buffer; only --check needs one each. */
    return c->p.o->check ? c->sbuf + (size_t)j * size : c->sbuf;
}

static void check_window(struct bw_ctx *c, size_t size, long first_seq)
{
    for (int j = 0; j < c->p.o->window; j++)
        bench_pair_check(&c->p, &c->stats[j], DATA_TAG, c->rbuf + (size_t)j * size, size,
                         first_seq + j);
}

/* Runs n windows; message numbers start at first_seq (used by --check). */
static void run_windows(struct bw_ctx *c, size_t size, long first_seq, long n)
{
    const struct bench_pair *p = &c->p;
    const struct bench_opts *o = p->o;
    int w = o->window;
    int ack = 0;
    int src = bench_pair_recv_source(p);
    for (long k = 0; k < n; k++) {
        long seq0 = first_seq + k * w;
        if (p->initiator) {
            for (int j = 0; j < w; j++) {
                unsigned char *buf = send_slot(c, size, j);
                if (o->check)
                    bench_fill(buf, size, (uint64_t)(seq0 + j), p->me);
                MPI_Isend(buf, (int)size, MPI_BYTE, p->peer, DATA_TAG, p->comm, &c->reqs[j]);
            }
            MPI_Waitall(w, c->reqs, c->stats);
            MPI_Recv(&ack, 1, MPI_INT, src, bench_pair_recv_tag(p, ACK_TAG), p->comm,
                     MPI_STATUS_IGNORE);
        } else {
            int tag = bench_pair_recv_tag(p, DATA_TAG);
            if (o->check)
                memset(c->rbuf, 0x5a, (size_t)w * size);
            for (int j = 0; j < w; j++)
                MPI_Irecv(c->rbuf + (size_t)j * size, (int)size, MPI_BYTE, src, tag, p->comm,
                          &c->reqs[j]);
            /* Statuses are always filled (not MPI_STATUSES_IGNORE): the cost is
             * negligible, and GCC 12 misreads MPICH's ignore sentinel as an
             * array of size 0 (-Wstringop-overflow). */
            MPI_Waitall(w, c->reqs, c->stats);
            if (o->check)
                check_window(c, size, seq0);
            MPI_Send(&ack, 1, MPI_INT, p->peer, ACK_TAG, p->comm);
        }
    }
}

/* bench_pair_sweep's step: done windows of this size ran before. */
static void bandwidth_run(void *arg, size_t size, long done, long n)
{
    struct bw_ctx *c = arg;
    run_windows(c, size, done * c->p.o->window, n);
}

static void bandwidth_print(void *arg, size_t size, long n, double seconds)
{
    struct bw_ctx *c = arg;
    double bytes = (double)size * (double)c->p.o->window * (double)n;
    printf("%zu %.2f\n", size, bytes / seconds / 1e6);
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

    struct bw_ctx c = { 0 };
    bench_pair_init(&c.p, &o, MPI_COMM_WORLD, rank, "bandwidth", "message");
    if (c.p.active) {
        size_t slots = (size_t)o.window * o.max_size;
        c.sbuf = bench_alloc(c.p.initiator && o.check ? slots : o.max_size);
        c.rbuf = bench_alloc(c.p.initiator ? 1 : slots);
        c.reqs = calloc((size_t)o.window, sizeof *c.reqs);
        c.stats = calloc((size_t)o.window, sizeof *c.stats);
        if (!c.reqs || !c.stats) {
            fprintf(stderr, "bandwidth: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }

    size_t sizes[BENCH_MAX_SIZES];
    int nsizes = bench_size_list(&o, sizes);
    if (c.p.initiator) {
        printf("# multidev bandwidth: ranks %d->%d of %d, window=%d any-source=%d any-tag=%d "
               "check=%d\n",
               o.rank_a, o.rank_b, nprocs, o.window, o.any_source, o.any_tag, o.check);
        bench_print_library();
        printf("# bandwidth in MB/s (10^6 bytes/s), isend window + ack\n");
        printf("# size bandwidth_MBps\n");
        fflush(stdout);
    }

    bench_pair_sweep(&c.p, sizes, nsizes, o.iters / 10 > 2 ? o.iters / 10 : 2, bandwidth_run,
                     bandwidth_print, &c);
    rc = bench_pair_finish(&c.p);
    free(c.reqs);
    free(c.stats);
    MPI_Finalize();
    return rc;
}
