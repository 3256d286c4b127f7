/* Ring: a token goes round all ranks several times, each rank adding its
 * rank; then every rank exchanges patterned buffers of growing size with its
 * neighbours at once (Irecv from the left, Isend to the right). */
#include "mpitest.h"

static const size_t sizes[] = {0, 1, 8, 1000, 65536, 1 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define LAPS 5

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "ring", 2);
    int left = (mt_rank + mt_size - 1) % mt_size, right = (mt_rank + 1) % mt_size;
    long expect_lap = (long)mt_size * (mt_size - 1) / 2;

    /* Blocking token ring. */
    for (int lap = 0; lap < LAPS; lap++) {
        long token = 0;
        MPI_Status st;
        if (mt_rank == 0) {
            MPI_Send(&token, 1, MPI_LONG, right, lap, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, left, lap, MPI_COMM_WORLD, &st);
            CHECK(token == expect_lap, "lap %d: token %ld, expected %ld", lap, token, expect_lap);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, left, lap, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_SOURCE == left && st.MPI_TAG == lap, "lap %d: status %d/%d", lap,
                  st.MPI_SOURCE, st.MPI_TAG);
            token += mt_rank;
            MPI_Send(&token, 1, MPI_LONG, right, lap, MPI_COMM_WORLD);
        }
    }

    /* Everyone sends and receives at once, patterned data. */
    unsigned char *sbuf = mt_malloc(1 << 20), *rbuf = mt_malloc(1 << 20);
    for (int lap = 0; lap < LAPS; lap++) {
        for (size_t i = 0; i < NSIZES; i++) {
            size_t n = sizes[i];
            MPI_Request req[2];
            MPI_Status st[2];
            mt_fill(sbuf, n, (uint64_t)mt_rank, (uint64_t)lap, n);
            memset(rbuf, 0xee, n);
            MPI_Irecv(rbuf, (int)n, MPI_BYTE, left, 100 + lap, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(sbuf, (int)n, MPI_BYTE, right, 100 + lap, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, st);
            int count = -1;
            MPI_Get_count(&st[0], MPI_BYTE, &count);
            CHECK(count == (int)n, "size %zu: count %d", n, count);
            CHECK(st[0].MPI_SOURCE == left, "size %zu: source %d", n, st[0].MPI_SOURCE);
            long bad = mt_verify(rbuf, n, (uint64_t)left, (uint64_t)lap, n);
            CHECK(bad < 0, "lap %d size %zu: wrong byte at %ld", lap, n, bad);
        }
    }
    free(sbuf);
    free(rbuf);
    return mt_finish();
}
