/* A program started without mpiexec (an MPI singleton): MPI_Init must give
 * it a world of one rank, and that rank can talk to itself (small, eager
 * and large messages to self, a collective) and finalize. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    static const int sizes[] = { 0, 8, 4096, 1 << 20 };
    int sum = 0, one = 1;

    mt_init(&argc, &argv, "singleton", 1);
    CHECK(mt_size == 1 && mt_rank == 0, "world of %d, rank %d", mt_size, mt_rank);
    for (int k = 0; k < (int) (sizeof(sizes) / sizeof(sizes[0])); k++) {
        size_t n = (size_t) sizes[k];
        unsigned char *out = mt_malloc(n + 1), *in = mt_malloc(n + 1);
        MPI_Request r;
        MPI_Status st;
        int got = -1;

        mt_fill(out, n, 1, (uint64_t) k, 0);
        MPI_Irecv(in, (int) n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &r);
        MPI_Send(out, (int) n, MPI_BYTE, 0, k, MPI_COMM_WORLD);
        MPI_Wait(&r, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        CHECK(got == (int) n, "%zu bytes to self: received %d", n, got);
        CHECK(mt_verify(in, n, 1, (uint64_t) k, 0) < 0, "%zu bytes to self: data", n);
        free(out);
        free(in);
    }
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == 1, "allreduce over one rank: %d", sum);
    return mt_finish();
}
