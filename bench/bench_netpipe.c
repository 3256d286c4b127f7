/* bench_netpipe.c - NetPIPE's smallest-round-trip sweep (bench_netpipe.h). */
#include "config.h"

#include <stdlib.h>

#include "bench_netpipe.h"
#include "myri_bench.h"

int np_sizes(size_t *sizes, int max)
{
    int n = 0;
    for (size_t s = 1; s <= (4u << 20) && n + 3 <= max; s *= 2) {
        sizes[n++] = s;
        if (s == 512) {
            sizes[n++] = 560;
            sizes[n++] = 561;
        }
        if (s == 131072)
            sizes[n++] = 131073;
    }
    return n;
}

/* The round trips of a size run back to back, as in NetPIPE (a barrier
 * between them would let a rank absorb, outside the timed round trip, work
 * that a ping-pong puts on its path: a blocking rank's wake-up for its own
 * send's completion).  Rank 0 says which round trip is the last in the first
 * byte of its message; the peer reads it from what it received. */
double np_bandwidth(const size_t *sizes, const double *rtt, int n, double *mbs,
                    size_t *peak_at)
{
    double peak = 0;

    *peak_at = 0;
    for (int i = 0; i < n; i++) {
        mbs[i] = sizes[i] / (rtt[i] / 2);
        if (mbs[i] > peak) {
            peak = mbs[i];
            *peak_at = sizes[i];
        }
    }
    return peak;
}

int np_run(void *rank, int me, const np_ops_t *ops, const size_t *sizes, int n, int budget_ms,
           volatile double *shared)
{
    size_t max = 1;
    uint8_t *buf;

    for (int i = 0; i < n; i++)
        max = sizes[i] > max ? sizes[i] : max;
    if ((buf = calloc(1, max)) == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        double best = 1e30, end = bench_now_us() + budget_ms * 1000.0;
        int reps = 0, last = 0;
        uint64_t ev0 = ops->events != NULL ? ops->events(rank) : 0;
        ops->barrier(rank);
        while (!last) {
            if (me == 0)
                buf[0] = (uint8_t)(last = bench_now_us() > end && reps >= 3);
            double t0 = bench_now_us();
            if (ops->round_trip(rank, buf, sizes[i]) != 0) {
                free(buf);
                return -1;
            }
            double t = bench_now_us() - t0;
            best = t < best ? t : best;
            reps++;
            last = buf[0] != 0;
        }
        buf[0] = 0;
        if (me == 0)
            shared[i] = best;
        if (ops->events != NULL && (me == 0 || me == 1))
            shared[(1 + me) * n + i] = (double)(ops->events(rank) - ev0) / reps;
    }
    free(buf);
    return 0;
}
