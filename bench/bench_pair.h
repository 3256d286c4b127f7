/* The measured pair of the point-to-point benchmarks (pingpong, bandwidth)
 * as one rank sees it: who is the peer, the --check verification of a
 * received message, the sweep over the sizes (warm-up, then the timed
 * part, the ranks outside the pair waiting without spinning) and the
 * verdict at the end.  MPI-implementation neutral, like bench_util. */
#ifndef BENCH_PAIR_H
#define BENCH_PAIR_H

#include <stddef.h>

#include <mpi.h>

#include "bench_util.h"

struct bench_pair {
    const struct bench_opts *o;
    MPI_Comm comm;
    int me, peer;          /* this rank and the other side of the pair */
    int active;            /* 1 on the pair's two ranks */
    int initiator;         /* 1 on rank A */
    const char *prog;      /* names the program in messages */
    const char *seq_name;  /* what a message's number counts ("iteration") */
    long errors;           /* --check: wrong statuses and bytes seen here */
};

void bench_pair_init(struct bench_pair *p, const struct bench_opts *o, MPI_Comm comm, int me,
                     const char *prog, const char *seq_name);

/* The source and tag a receive from the peer names (wildcards as asked). */
int  bench_pair_recv_source(const struct bench_pair *p);
int  bench_pair_recv_tag(const struct bench_pair *p, int tag);

/* --check: the status (source, tag, count) and every byte of message seq
 * of size bytes received from the peer into buf; errors are counted and
 * the first few printed. */
void bench_pair_check(struct bench_pair *p, const MPI_Status *st, int tag,
                      const unsigned char *buf, size_t size, long seq);

/* For every size: run(ctx, size, 0, w) untimed, then run(ctx, size, w, n)
 * timed and print(ctx, size, n, seconds) on the initiator; w and n are
 * o->warmup and o->iters scaled to the size (n not below iter_floor). */
void bench_pair_sweep(struct bench_pair *p, const size_t *sizes, int nsizes, long iter_floor,
                      void (*run)(void *ctx, size_t size, long done, long n),
                      void (*print)(void *ctx, size_t size, long n, double seconds), void *ctx);

/* Adds up every rank's errors, prints the --check verdict on the initiator
 * and returns the exit status (1 if anything was wrong). */
int  bench_pair_finish(struct bench_pair *p);

#endif
