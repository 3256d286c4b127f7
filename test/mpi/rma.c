/* One-sided communication between every pair of ranks, so that on emulated
 * nodes it crosses every subdevice of the configuration (and a forwarded
 * route where there is one).  Each rank exposes a window of NSLOT slots per
 * peer; all data is checked.
 *
 *   fence:   MPI_Put of a pattern into my slot at every other rank, MPI_Get
 *            of their slot at every other rank, sizes from 1 B to 256 KiB
 *            (small and large active messages), then MPI_Accumulate(SUM) of
 *            rank-dependent integers from all ranks into one counter array.
 *   lock:    passive target: MPI_Win_lock(EXCLUSIVE) for Put + Get of the
 *            same region (the Get sees the Put: same origin, same epoch after
 *            flush), MPI_Win_lock(SHARED) for Accumulate(SUM) of many small
 *            increments, MPI_Fetch_and_op and MPI_Compare_and_swap on a
 *            counter that every rank increments: the final value is exact.
 *   lock_all: MPI_Win_lock_all with MPI_Get_accumulate(SUM). */
#include "mpitest.h"

#define MAXSZ (256 * 1024)
#define NACC 512
#define ROUNDS 50

static const int sizes[] = {1, 8, 100, 4096, 16384, 65536, MAXSZ};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

/* Window layout: [size slots: one MAXSZ region per origin rank]
 *                [NACC longs of sums][counter long][cas long][getacc long] */
typedef struct {
    unsigned char *base;
    MPI_Aint slots_bytes;
    MPI_Aint acc_disp, counter_disp, cas_disp, getacc_disp;
    MPI_Win win;
} rma_win_t;

static void win_create(rma_win_t *w)
{
    w->slots_bytes = (MPI_Aint)mt_size * MAXSZ;
    w->acc_disp = w->slots_bytes;
    w->counter_disp = w->acc_disp + NACC * (MPI_Aint)sizeof(long);
    w->cas_disp = w->counter_disp + (MPI_Aint)sizeof(long);
    w->getacc_disp = w->cas_disp + (MPI_Aint)sizeof(long);
    MPI_Aint total = w->getacc_disp + (MPI_Aint)sizeof(long);
    MPI_Win_allocate(total, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win);
    memset(w->base, 0, (size_t)total);
    MPI_Barrier(MPI_COMM_WORLD);
}

static long *win_long(rma_win_t *w, MPI_Aint disp) { return (long *)(w->base + disp); }

static void fence_put_get(rma_win_t *w)
{
    unsigned char *src = mt_malloc(MAXSZ), *got = mt_malloc((size_t)mt_size * MAXSZ);

    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        mt_fill(src, (size_t)n, (uint64_t)mt_rank, 1, (uint64_t)n);
        MPI_Win_fence(0, w->win);
        for (int p = 0; p < mt_size; p++)
            if (p != mt_rank)
                MPI_Put(src, n, MPI_BYTE, p, (MPI_Aint)mt_rank * MAXSZ, n, MPI_BYTE, w->win);
        MPI_Win_fence(0, w->win);
        for (int p = 0; p < mt_size; p++) {
            if (p == mt_rank)
                continue;
            long bad = mt_verify(w->base + (size_t)p * MAXSZ, (size_t)n, (uint64_t)p, 1,
                                 (uint64_t)n);
            CHECK(bad < 0, "fence put of %d B from rank %d: byte %ld wrong", n, p, bad);
        }
        /* each rank reads back, from every peer, what it put there */
        for (int p = 0; p < mt_size; p++)
            if (p != mt_rank)
                MPI_Get(got + (size_t)p * MAXSZ, n, MPI_BYTE, p, (MPI_Aint)mt_rank * MAXSZ, n,
                        MPI_BYTE, w->win);
        MPI_Win_fence(0, w->win);
        for (int p = 0; p < mt_size; p++) {
            if (p == mt_rank)
                continue;
            long bad = mt_verify(got + (size_t)p * MAXSZ, (size_t)n, (uint64_t)mt_rank, 1,
                                 (uint64_t)n);
            CHECK(bad < 0, "fence get of %d B from rank %d: byte %ld wrong", n, p, bad);
        }
    }
    free(src);
    free(got);
}

static void fence_accumulate(rma_win_t *w)
{
    long add[NACC];

    for (int i = 0; i < NACC; i++)
        add[i] = (long)(mt_rank + 1) * (i + 1);
    MPI_Win_fence(0, w->win);
    for (int p = 0; p < mt_size; p++)
        MPI_Accumulate(add, NACC, MPI_LONG, p, w->acc_disp, NACC, MPI_LONG, MPI_SUM, w->win);
    MPI_Win_fence(0, w->win);
    long ranks_sum = (long)mt_size * (mt_size + 1) / 2;
    for (int i = 0; i < NACC; i++) {
        long want = ranks_sum * (i + 1);
        CHECK(win_long(w, w->acc_disp)[i] == want, "fence accumulate [%d]: %ld, want %ld", i,
              win_long(w, w->acc_disp)[i], want);
    }
}

/* Exclusive lock on each peer in turn: put a fresh pattern, flush, get it
 * back in the same epoch. */
static void lock_put_get(rma_win_t *w)
{
    unsigned char *src = mt_malloc(MAXSZ), *got = mt_malloc(MAXSZ);

    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        for (int p = 0; p < mt_size; p++) {
            if (p == mt_rank)
                continue;
            mt_fill(src, (size_t)n, (uint64_t)mt_rank, 2, (uint64_t)(n + p));
            memset(got, 0, (size_t)n);
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, p, 0, w->win);
            MPI_Put(src, n, MPI_BYTE, p, (MPI_Aint)mt_rank * MAXSZ, n, MPI_BYTE, w->win);
            MPI_Win_flush(p, w->win);
            MPI_Get(got, n, MPI_BYTE, p, (MPI_Aint)mt_rank * MAXSZ, n, MPI_BYTE, w->win);
            MPI_Win_unlock(p, w->win);
            long bad = mt_verify(got, (size_t)n, (uint64_t)mt_rank, 2, (uint64_t)(n + p));
            CHECK(bad < 0, "lock put+get of %d B at rank %d: byte %ld wrong", n, p, bad);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int p = 0; p < mt_size; p++) {
        if (p == mt_rank)
            continue;
        int n = sizes[NSIZES - 1];
        long bad = mt_verify(w->base + (size_t)p * MAXSZ, (size_t)n, (uint64_t)p, 2,
                             (uint64_t)(n + mt_rank));
        CHECK(bad < 0, "lock put of %d B from rank %d seen by target: byte %ld wrong", n, p,
              bad);
    }
    free(src);
    free(got);
}

/* Every rank adds to every peer's counters under shared locks, and
 * increments rank 0's counter with fetch-and-op and compare-and-swap. */
static void lock_atomics(rma_win_t *w)
{
    memset(win_long(w, w->acc_disp), 0, NACC * sizeof(long));
    *win_long(w, w->counter_disp) = 0;
    *win_long(w, w->cas_disp) = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    long one = 1, old = -1;
    for (int r = 0; r < ROUNDS; r++) {
        for (int p = 0; p < mt_size; p++) {
            long v = mt_rank + 1;
            MPI_Win_lock(MPI_LOCK_SHARED, p, 0, w->win);
            MPI_Accumulate(&v, 1, MPI_LONG, p, w->acc_disp + (MPI_Aint)(r % NACC) * (MPI_Aint)sizeof(long), 1,
                           MPI_LONG, MPI_SUM, w->win);
            MPI_Win_unlock(p, w->win);
        }
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win);
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, w->counter_disp, MPI_SUM, w->win);
        MPI_Win_unlock(0, w->win);
        CHECK(old >= 0 && old < (long)ROUNDS * mt_size, "fetch_and_op returned %ld", old);

        /* compare-and-swap increment: retry until our compare wins */
        long seen = 0, tries = 0;
        for (;;) {
            long want = seen + 1, result = -1;
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win);
            MPI_Compare_and_swap(&want, &seen, &result, MPI_LONG, 0, w->cas_disp, w->win);
            MPI_Win_unlock(0, w->win);
            if (result == seen)
                break;
            seen = result;
            if (++tries > 100000) {
                CHECK(0, "compare_and_swap never won (last value %ld)", result);
                break;
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long ranks_sum = (long)mt_size * (mt_size + 1) / 2;
    for (int i = 0; i < NACC && i < ROUNDS; i++)
        CHECK(win_long(w, w->acc_disp)[i] == ranks_sum, "lock accumulate [%d]: %ld, want %ld",
              i, win_long(w, w->acc_disp)[i], ranks_sum);
    if (mt_rank == 0) {
        long want = (long)ROUNDS * mt_size;
        CHECK(*win_long(w, w->counter_disp) == want, "fetch_and_op counter %ld, want %ld",
              *win_long(w, w->counter_disp), want);
        CHECK(*win_long(w, w->cas_disp) == want, "compare_and_swap counter %ld, want %ld",
              *win_long(w, w->cas_disp), want);
    }
}

/* lock_all epoch: get-accumulate into the last rank's word; the values
 * returned are distinct partial sums and the final value is exact. */
static void lock_all_get_accumulate(rma_win_t *w)
{
    int target = mt_size - 1;
    *win_long(w, w->getacc_disp) = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    long add = 1L << (2 * mt_rank), before = -1;
    MPI_Win_lock_all(0, w->win);
    MPI_Get_accumulate(&add, 1, MPI_LONG, &before, 1, MPI_LONG, target, w->getacc_disp, 1,
                       MPI_LONG, MPI_SUM, w->win);
    MPI_Win_unlock_all(w->win);
    CHECK(before >= 0 && (before & add) == 0, "get_accumulate saw %ld before adding %ld",
          before, add);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == target) {
        long want = 0;
        for (int r = 0; r < mt_size; r++)
            want += 1L << (2 * r);
        CHECK(*win_long(w, w->getacc_disp) == want, "get_accumulate total %ld, want %ld",
              *win_long(w, w->getacc_disp), want);
    }
}

int main(int argc, char **argv)
{
    rma_win_t w;

    mt_init(&argc, &argv, "rma", 2);
    win_create(&w);
    fence_put_get(&w);
    fence_accumulate(&w);
    lock_put_get(&w);
    lock_atomics(&w);
    lock_all_get_accumulate(&w);
    MPI_Win_free(&w.win);
    return mt_finish();
}
