/* Shared helpers for the point-to-point benchmarks (pingpong, bandwidth):
 * command-line options, the size list, iteration scaling, buffers, and the
 * data pattern used by --check.  MPI-implementation neutral: the same source
 * is built with our mpicc and with Debian's MPICH and Open MPI wrappers. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#define BENCH_MAX_SIZES 64

struct bench_opts {
    size_t min_size;     /* first size measured (0 allowed for pingpong) */
    size_t max_size;     /* last size measured */
    long iters;          /* timed iterations for sizes <= BENCH_LARGE_SIZE */
    long warmup;         /* untimed iterations for sizes <= BENCH_LARGE_SIZE */
    int window;          /* bandwidth only: nonblocking sends per window */
    int any_source;      /* receives use MPI_ANY_SOURCE */
    int any_tag;         /* receives use MPI_ANY_TAG */
    int check;           /* fill and verify every byte of every message */
    int rank_a, rank_b;  /* the measured pair; other ranks wait */
};

/* Sizes above this get proportionally fewer iterations. */
#define BENCH_LARGE_SIZE ((size_t)8192)

/* Parses argv into *o (defaults filled by the caller first).  Returns 0 on
 * success, 1 when --help was given, -1 on a bad option (message already
 * printed to stderr when verbose). */
int bench_parse_opts(int argc, char **argv, struct bench_opts *o, int verbose,
                     const char *prog, const char *extra_usage);

/* 0 if the job has both ranks of the measured pair, else -1 with a message
 * (from rank 0 when verbose). */
int bench_check_pair(const struct bench_opts *o, int nprocs, int verbose, const char *prog);

/* Prints "# library: <first line of MPI_Get_library_version>". */
void bench_print_library(void);

/* Fills sizes[] with the sizes to measure; returns how many. */
int bench_size_list(const struct bench_opts *o, size_t *sizes);

/* Iteration count for one size: base for small sizes, scaled down in
 * proportion to the size above BENCH_LARGE_SIZE, never below floor_n. */
long bench_scale_iters(long base, size_t size, long floor_n);

/* Page-aligned, touched allocation; aborts the job on failure. */
void *bench_alloc(size_t bytes);

/* Pattern of message (size, seq, sender): every byte depends on all three
 * and on its offset, so a stale, misplaced or foreign message is caught. */
void bench_fill(unsigned char *buf, size_t size, uint64_t seq, int sender);

/* Verifies buf against the pattern; returns the offset of the first wrong
 * byte, or (size_t)-1 when every byte is right. */
size_t bench_verify(const unsigned char *buf, size_t size, uint64_t seq, int sender);

/* Expected byte at offset off (for error messages). */
unsigned char bench_expected_byte(size_t size, uint64_t seq, int sender, size_t off);

/* Barrier over comm.  Ranks outside the measured pair (active == 0) wait
 * for it by testing and sleeping instead of spinning, so that on a machine
 * with fewer cores than ranks they do not steal the pair's CPU time. */
void bench_sync(MPI_Comm comm, int active);

/* Formats a size with a K/M suffix when exact (for messages). */
const char *bench_size_str(size_t size, char *buf, size_t len);

#endif
