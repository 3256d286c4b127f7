/* bench_netpipe.h - NetPIPE's method (P6 §III.A) for any harness: for each
 * message size, ping-pong for a time budget and keep the smallest round
 * trip.  The harness supplies a round trip and a barrier. */
#ifndef BENCH_NETPIPE_H
#define BENCH_NETPIPE_H

#include <stddef.h>
#include <stdint.h>

typedef struct np_ops {
    int      (*round_trip)(void *rank, uint8_t *buf, size_t n);   /* 0: done */
    void     (*barrier)(void *rank);
    /* optional: a running count of some event of the rank (e.g. wake-ups),
     * reported per round trip */
    uint64_t (*events)(void *rank);
} np_ops_t;

/* Shared doubles np_run needs for n sizes (mapped before the fork). */
static inline size_t np_shared_len(int n) { return 3 * (size_t)n * sizeof(double); }

/* Both ranks call it; the round trips of a size run back to back (no
 * barrier between them, as in NetPIPE); rank 0 decides when a size has had
 * its time and leaves the smallest round trip of size i in shared[i]; with
 * ops->events, rank r leaves its events per round trip of size i in
 * shared[(1 + r) n + i]. */
int np_run(void *rank, int me, const np_ops_t *ops, const size_t *sizes, int n, int budget_ms,
           volatile double *shared);

/* The sizes of the sweep: powers of two from 1 B to 4 MB and the SCI
 * protocol switches (560/561 B, 128 KB + 1); returns how many (<= max). */
int np_sizes(size_t *sizes, int max);

/* NetPIPE's bandwidth of each size, size / (round trip / 2), into mbs;
 * returns the peak and where it is (*peak_at). */
double np_bandwidth(const size_t *sizes, const double *rtt, int n, double *mbs,
                    size_t *peak_at);

#endif /* BENCH_NETPIPE_H */
