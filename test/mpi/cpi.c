/* cpi-like reduction: pi as the integral of 4/(1+x^2) over [0,1] by the
 * midpoint rule, intervals dealt round-robin to the ranks, partial sums
 * combined with MPI_Reduce at rank 0 (and MPI_Allreduce, so every rank
 * checks), the interval count sent with MPI_Bcast. */
#include "mpitest.h"

#include <math.h>

#define PI_REF 3.14159265358979323846

static double partial_pi(long n, int rank, int size)
{
    double h = 1.0 / (double)n, sum = 0.0;
    for (long i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    return h * sum;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "cpi", 2);
    static const long intervals[] = {10000, 1000000};
    for (size_t t = 0; t < sizeof intervals / sizeof intervals[0]; t++) {
        long n = mt_rank == 0 ? intervals[t] : -1;
        MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        CHECK(n == intervals[t], "Bcast of the interval count gave %ld", n);
        double mine = partial_pi(n, mt_rank, mt_size), pi = 0.0, pi_all = 0.0;
        MPI_Reduce(&mine, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &pi_all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        /* midpoint rule error is about 1/(6 n^2) * |f'| ~ 1e-9 for n = 1e4 */
        double tol = 1e-8;
        if (mt_rank == 0) {
            CHECK(fabs(pi - PI_REF) < tol, "n=%ld: pi = %.16f, error %.3e", n, pi,
                  fabs(pi - PI_REF));
            printf("cpi: n=%ld pi=%.16f error=%.3e\n", n, pi, fabs(pi - PI_REF));
        }
        CHECK(fabs(pi_all - PI_REF) < tol, "n=%ld: Allreduce pi = %.16f", n, pi_all);
    }
    return mt_finish();
}
