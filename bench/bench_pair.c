/* bench_pair.c - the measured pair (bench_pair.h). */
#include "bench_pair.h"

#include <stdio.h>

#define BENCH_PAIR_MAX_REPORTS 5

void bench_pair_init(struct bench_pair *p, const struct bench_opts *o, MPI_Comm comm, int me,
                     const char *prog, const char *seq_name)
{
    *p = (struct bench_pair){ .o = o, .comm = comm, .me = me, .prog = prog,
                              .seq_name = seq_name };
    p->active = me == o->rank_a || me == o->rank_b;
    p->initiator = me == o->rank_a;
    p->peer = p->initiator ? o->rank_b : o->rank_a;
}

int bench_pair_recv_source(const struct bench_pair *p)
{
    return p->o->any_source ? MPI_ANY_SOURCE : p->peer;
}

int bench_pair_recv_tag(const struct bench_pair *p, int tag)
{
    return p->o->any_tag ? MPI_ANY_TAG : tag;
}

static void bench_pair_error(struct bench_pair *p, const char *what, size_t size, long seq,
                             long got, long want)
{
    if (p->errors++ < BENCH_PAIR_MAX_REPORTS)
        fprintf(stderr, "%s: rank %d: size %zu %s %ld: %s is %ld, expected %ld\n", p->prog,
                p->me, size, p->seq_name, seq, what, got, want);
}

void bench_pair_check(struct bench_pair *p, const MPI_Status *st, int tag,
                      const unsigned char *buf, size_t size, long seq)
{
    int count = -1;

    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE != p->peer)
        bench_pair_error(p, "status source", size, seq, st->MPI_SOURCE, p->peer);
    if (st->MPI_TAG != tag)
        bench_pair_error(p, "status tag", size, seq, st->MPI_TAG, tag);
    if (count != (int)size)
        bench_pair_error(p, "received count", size, seq, count, (long)size);
    size_t bad = bench_verify(buf, size, (uint64_t)seq, p->peer);
    if (bad != (size_t)-1)
        bench_pair_error(p, "data byte", size, seq, (long)bad,
                         (long)bench_expected_byte(size, (uint64_t)seq, p->peer, bad));
}

void bench_pair_sweep(struct bench_pair *p, const size_t *sizes, int nsizes, long iter_floor,
                      void (*run)(void *ctx, size_t size, long done, long n),
                      void (*print)(void *ctx, size_t size, long n, double seconds), void *ctx)
{
    long warm_floor = p->o->warmup < 2 ? p->o->warmup : 2;

    for (int s = 0; s < nsizes; s++) {
        size_t size = sizes[s];
        long n = bench_scale_iters(p->o->iters, size, iter_floor);
        long w = bench_scale_iters(p->o->warmup, size, warm_floor);
        bench_sync(p->comm, p->active);
        if (!p->active) {
            bench_sync(p->comm, p->active);
            continue;
        }
        run(ctx, size, 0, w);
        bench_sync(p->comm, p->active);
        double t0 = MPI_Wtime();
        run(ctx, size, w, n);
        double t1 = MPI_Wtime();
        if (p->initiator) {
            print(ctx, size, n, t1 - t0);
            fflush(stdout);
        }
    }
}

int bench_pair_finish(struct bench_pair *p)
{
    long total = 0;

    MPI_Allreduce(&p->errors, &total, 1, MPI_LONG, MPI_SUM, p->comm);
    if (p->initiator && p->o->check)
        printf("# check: %s (%ld error(s))\n", total ? "FAILED" : "all bytes verified", total);
    return total ? 1 : 0;
}
