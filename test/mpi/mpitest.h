/* Tiny harness for the multi-process MPI tests in test/mpi: a CHECK macro
 * that records (and reports) a failure without stopping, a data pattern, and
 * a common ending that agrees on the outcome across all ranks.  Each test is
 * one .c file built with the MPI's compiler wrapper; run.sh drives them. */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mt_rank = -1;
static int mt_size = 0;
static long mt_errors = 0;
static const char *mt_name = "test";

#define MT_MAX_REPORTS 10

/* Records a failure when cond is false; prints the first few. */
#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            if (mt_errors++ < MT_MAX_REPORTS) {                                   \
                fprintf(stderr, "%s: rank %d: %s:%d: check failed: %s: ", mt_name,  \
                        mt_rank, __FILE__, __LINE__, #cond);                      \
                fprintf(stderr, __VA_ARGS__);                                     \
                fputc('\n', stderr);                                              \
            }                                                                     \
        }                                                                         \
    } while (0)

/* Calls an MPI function and records a failure if it does not return
 * MPI_SUCCESS (only meaningful under MPI_ERRORS_RETURN). */
#define CHECK_MPI(call)                                                           \
    do {                                                                          \
        int mt_rc_ = (call);                                                      \
        CHECK(mt_rc_ == MPI_SUCCESS, "returned %d", mt_rc_);                      \
    } while (0)

static inline void mt_init(int *argc, char ***argv, const char *name, int min_ranks)
{
    mt_name = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    if (mt_size < min_ranks) {
        if (mt_rank == 0)
            fprintf(stderr, "%s: needs at least %d ranks, got %d\n", name, min_ranks, mt_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Agrees on the outcome; returns the process exit status (0 = pass). */
static inline int mt_finish(void)
{
    long total = 0;
    MPI_Allreduce(&mt_errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (mt_rank == 0)
        printf("%s: %s (%d ranks, %ld failed check(s))\n", mt_name, total ? "FAIL" : "ok",
               mt_size, total);
    MPI_Finalize();
    return total ? 1 : 0;
}

static inline void *mt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "%s: rank %d: out of memory (%zu bytes)\n", mt_name, mt_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* A well-mixed byte for (a, b, c, offset): patterns for message contents. */
static inline uint64_t mt_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t mt_seed(uint64_t a, uint64_t b, uint64_t c)
{
    return mt_mix(mt_mix(mt_mix(a + 0x9e3779b97f4a7c15ULL) ^ b) ^ c);
}

static inline unsigned char mt_byte(uint64_t seed, size_t off)
{
    return (unsigned char)(mt_mix(seed + (off >> 3)) >> (8 * (off & 7)));
}

/* Fills buf with the pattern of message (a, b, c), e.g. (sender, seq, size). */
static inline void mt_fill(unsigned char *buf, size_t n, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t seed = mt_seed(a, b, c);
    for (size_t i = 0; i < n; i++)
        buf[i] = mt_byte(seed, i);
}

/* Returns the first offset that differs from the pattern, or -1. */
static inline long mt_verify(const unsigned char *buf, size_t n, uint64_t a, uint64_t b,
                             uint64_t c)
{
    uint64_t seed = mt_seed(a, b, c);
    for (size_t i = 0; i < n; i++)
        if (buf[i] != mt_byte(seed, i))
            return (long)i;
    return -1;
}

#endif
