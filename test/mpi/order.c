/* Non-overtaking between a pair: rank 0 sends many messages of mixed sizes
 * (0 B to 256 KiB, so short and long protocols interleave) to rank 1 with
 * nonblocking sends; rank 1 receives them through a window of posted
 * receives, alternating specific and MPI_ANY_SOURCE, and checks that the
 * k-th receive got the k-th message (size and data).  Phases: receives
 * posted early; receives posted late (everything unexpected first); two
 * tags interleaved and received with MPI_ANY_TAG. */
#include "mpitest.h"

#include <time.h>

#define NMSG 1500
#define BATCH 64
#define RWIN 16
#define MAXSZ (256 * 1024)

static size_t size_of(int i)
{
    static const size_t s[] = {0, 1, 24, 512, 4000, 16384, 70000, MAXSZ, 8, 131072, 3};
    return s[(unsigned)(i * 5 + i / 11) % 11];
}

static int tag_of(int phase, int i) { return phase == 2 ? 40 + i % 2 : 30; }

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void sender(int phase, unsigned char *slots)
{
    MPI_Request req[BATCH];
    MPI_Status st[BATCH]; /* not MPI_STATUSES_IGNORE: GCC 12 misreads MPICH's sentinel */
    for (int i0 = 0; i0 < NMSG; i0 += BATCH) {
        int nb = NMSG - i0 < BATCH ? NMSG - i0 : BATCH;
        for (int j = 0; j < nb; j++) {
            int i = i0 + j;
            size_t n = size_of(i);
            unsigned char *b = slots + (size_t)j * MAXSZ;
            mt_fill(b, n, (uint64_t)phase, (uint64_t)i, n);
            MPI_Isend(b, (int)n, MPI_BYTE, 1, tag_of(phase, i), MPI_COMM_WORLD, &req[j]);
        }
        MPI_Waitall(nb, req, st);
    }
}

static void receiver(int phase, unsigned char *slots)
{
    MPI_Request req[RWIN];
    MPI_Status st;
    int posted = 0;
    if (phase == 1)
        nap_ms(100); /* let the first batch pile up unexpected */
    for (int i = 0; i < NMSG; i++) {
        while (posted < NMSG && posted < i + RWIN) {
            int k = posted % RWIN;
            int src = (posted % 2) ? MPI_ANY_SOURCE : 0;
            int tag = phase == 2 ? MPI_ANY_TAG : tag_of(phase, posted);
            MPI_Irecv(slots + (size_t)k * MAXSZ, MAXSZ, MPI_BYTE, src, tag, MPI_COMM_WORLD,
                      &req[k]);
            posted++;
        }
        int k = i % RWIN, count = -1;
        MPI_Wait(&req[k], &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        size_t n = size_of(i);
        CHECK(st.MPI_SOURCE == 0, "phase %d msg %d: source %d", phase, i, st.MPI_SOURCE);
        CHECK(st.MPI_TAG == tag_of(phase, i), "phase %d msg %d: tag %d, expected %d", phase, i,
              st.MPI_TAG, tag_of(phase, i));
        CHECK(count == (int)n, "phase %d msg %d: %d bytes, expected %zu: overtaken?", phase, i,
              count, n);
        if (count == (int)n) {
            long bad = mt_verify(slots + (size_t)k * MAXSZ, n, (uint64_t)phase, (uint64_t)i, n);
            CHECK(bad < 0, "phase %d msg %d (%zu bytes): wrong byte at %ld", phase, i, n, bad);
        }
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "order", 2);
    unsigned char *slots = NULL;
    if (mt_rank == 0)
        slots = mt_malloc((size_t)BATCH * MAXSZ);
    else if (mt_rank == 1)
        slots = mt_malloc((size_t)RWIN * MAXSZ);
    for (int phase = 0; phase < 3; phase++) {
        if (mt_rank == 0)
            sender(phase, slots);
        else if (mt_rank == 1)
            receiver(phase, slots);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(slots);
    return mt_finish();
}
