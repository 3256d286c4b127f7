/* sci_bench.h - bench/sci-vs-udp: subdev-sci against raw UDP on loopback,
 * and the D310 timing model measured the way P6 measured ScaMPI (NetPIPE).
 * The raw UDP baseline and the helpers are bench/myri-vs-udp's
 * (myri_bench.h, bench_udp.c, bench_common.c). */
#ifndef SCI_BENCH_H
#define SCI_BENCH_H

#include "myri_bench.h"

/* Ping-pong round trip and windowed streaming over subdev-sci, two ranks
 * on two emulated nodes; timing: NULL (off) or a profile name. */
int bench_sci(const bench_opts_t *o, const char *timing, bench_result_t *r);

/* NetPIPE (P6 §III.A): for each size, ping-pong for budget_ms and keep the
 * smallest round trip.  rtt_us[i] for sizes[i]. */
int bench_sci_netpipe(const bench_opts_t *o, const char *timing, const size_t *sizes, int n,
                      int budget_ms, double *rtt_us);

/* The same sweep over subdev-via: its timing profile (e.g. "clan"), its
 * completion mode ("poll", "block"; NULL: the default) and switch point (0:
 * the default).  wakeups[i] (if not NULL): completions both ranks were
 * woken for per round trip of sizes[i]. */
typedef struct via_np_opts {
    const char *timing, *completion;
    size_t      eager_limit;
} via_np_opts_t;
int bench_via_netpipe(const bench_opts_t *o, const via_np_opts_t *vo, const size_t *sizes, int n,
                      int budget_ms, double *rtt_us, double *wakeups);

#endif /* SCI_BENCH_H */
