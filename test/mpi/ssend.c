/* MPI_Ssend: data arrives intact for sizes from 0 B to 1 MiB, and a
 * synchronous send does not complete before the matching receive is
 * posted: rank 0 starts MPI_Issend and tests it for a while (it must stay
 * incomplete: rank 1 is blocked waiting for a "go" message that rank 0 sends
 * only afterwards), then sends "go" and waits for the Issend. */
#include "mpitest.h"

static const size_t sizes[] = {0, 8, 65536, 1 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define GO_TAG 99

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "ssend", 2);
    unsigned char *buf = mt_malloc(1 << 20);
    MPI_Status st;
    int count;

    for (size_t i = 0; i < NSIZES; i++) {
        size_t n = sizes[i];
        if (mt_rank == 0) {
            mt_fill(buf, n, 0, i, n);
            MPI_Ssend(buf, (int)n, MPI_BYTE, 1, (int)i, MPI_COMM_WORLD);
        } else if (mt_rank == 1) {
            memset(buf, 0, n);
            MPI_Recv(buf, (int)n, MPI_BYTE, 0, (int)i, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == (int)n, "Ssend %zu: count %d", n, count);
            long bad = mt_verify(buf, n, 0, i, n);
            CHECK(bad < 0, "Ssend %zu: wrong byte at %ld", n, bad);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    for (size_t i = 0; i < NSIZES; i++) {
        size_t n = sizes[i];
        int tag = 50 + (int)i, go = 1;
        if (mt_rank == 0) {
            MPI_Request r;
            int done = 0;
            mt_fill(buf, n, 0, (uint64_t)tag, n);
            MPI_Issend(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &r);
            double t0 = MPI_Wtime();
            while (!done && MPI_Wtime() - t0 < 0.2)
                MPI_Test(&r, &done, MPI_STATUS_IGNORE);
            CHECK(!done, "Issend of %zu bytes completed before the receive was posted", n);
            MPI_Send(&go, 1, MPI_INT, 1, GO_TAG, MPI_COMM_WORLD);
            if (!done)
                MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (mt_rank == 1) {
            MPI_Recv(&go, 1, MPI_INT, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            memset(buf, 0, n);
            MPI_Recv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == (int)n, "Issend %zu: count %d", n, count);
            long bad = mt_verify(buf, n, 0, (uint64_t)tag, n);
            CHECK(bad < 0, "Issend %zu: wrong byte at %ld", n, bad);
        }
    }
    free(buf);
    return mt_finish();
}
