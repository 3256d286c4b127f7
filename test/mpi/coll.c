/* Collectives with checked data, on any number of ranks: MPI_Bcast from
 * every root at several sizes, MPI_Allreduce (sum, max, min on int, double
 * and long, also in place) and MPI_Alltoall with per-(source, destination)
 * contents. */
#include "mpitest.h"

static void bcast_test(void)
{
    static const size_t sizes[] = {1, 100, 10000, 1 << 20};
    unsigned char *buf = mt_malloc(1 << 20);
    for (int root = 0; root < mt_size; root++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t n = sizes[i];
            if (mt_rank == root)
                mt_fill(buf, n, (uint64_t)root, 77, n);
            else
                memset(buf, 0, n);
            MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
            long bad = mt_verify(buf, n, (uint64_t)root, 77, n);
            CHECK(bad < 0, "Bcast root %d size %zu: wrong byte at %ld", root, n, bad);
        }
    free(buf);
}

static void allreduce_test(void)
{
    static const int counts[] = {1, 1000, 100000};
    long nr = mt_size;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int n = counts[c];
        int *isend = mt_malloc((size_t)n * sizeof(int)), *irecv = mt_malloc((size_t)n * sizeof(int));
        double *dv = mt_malloc((size_t)n * sizeof(double));
        long *lv = mt_malloc((size_t)n * sizeof(long));
        for (int j = 0; j < n; j++) {
            isend[j] = mt_rank * 1000 + j;
            dv[j] = (double)((mt_rank * 7 + j) % (mt_size + 3)) + 0.25;
            lv[j] = (long)j - mt_rank * 100000L;
        }
        MPI_Allreduce(isend, irecv, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, dv, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, lv, n, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
        int bad_i = 0, bad_d = 0, bad_l = 0;
        for (int j = 0; j < n; j++) {
            long want = (long)j * nr + 1000L * nr * (nr - 1) / 2;
            bad_i += irecv[j] != want;
            double dmax = 0;
            for (int r = 0; r < mt_size; r++) {
                double v = (double)((r * 7 + j) % (mt_size + 3)) + 0.25;
                dmax = v > dmax ? v : dmax;
            }
            bad_d += dv[j] != dmax;
            bad_l += lv[j] != (long)j - (nr - 1) * 100000L;
        }
        CHECK(bad_i == 0, "Allreduce SUM int count %d: %d wrong", n, bad_i);
        CHECK(bad_d == 0, "Allreduce MAX double in place count %d: %d wrong", n, bad_d);
        CHECK(bad_l == 0, "Allreduce MIN long in place count %d: %d wrong", n, bad_l);
        free(isend);
        free(irecv);
        free(dv);
        free(lv);
    }
}

static int a2a_value(int src, int dst, int k) { return (src * 131 + dst) * 100003 + k; }

static void alltoall_test(void)
{
    static const int counts[] = {1, 64, 20000};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int n = counts[c];
        size_t total = (size_t)n * mt_size;
        int *sb = mt_malloc(total * sizeof(int)), *rb = mt_malloc(total * sizeof(int));
        for (int d = 0; d < mt_size; d++)
            for (int k = 0; k < n; k++) {
                sb[(size_t)d * n + k] = a2a_value(mt_rank, d, k);
                rb[(size_t)d * n + k] = -1;
            }
        MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, MPI_COMM_WORLD);
        int bad = 0;
        for (int s = 0; s < mt_size; s++)
            for (int k = 0; k < n; k++)
                bad += rb[(size_t)s * n + k] != a2a_value(s, mt_rank, k);
        CHECK(bad == 0, "Alltoall count %d: %d wrong elements", n, bad);
        free(sb);
        free(rb);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll", 2);
    bcast_test();
    allreduce_test();
    alltoall_test();
    MPI_Barrier(MPI_COMM_WORLD);
    return mt_finish();
}
