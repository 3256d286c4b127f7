/* via_bench.h - bench/via-vs-udp: subdev-via against raw UDP on loopback
 * (timing model off), and the VI timing models measured end to end: the
 * raw VI half round trip and streaming throughput (P4 Table 1, profile
 * lanai7) and MPI-level peak bandwidth through subdev-via (P6's MPI/Pro on
 * cLAN, profile clan).  The UDP baseline is bench_udp.c's. */
#ifndef VIA_BENCH_H
#define VIA_BENCH_H

#include "myri_bench.h"

/* Raw VI (the VI user agent, no MPI layer): two processes on two emulated
 * nodes, a reliable VI between them, descriptors in NIC-shared memory.
 * Half round trip of lat_size bytes (polling, or blocking waits) and
 * streaming bandwidth of bw_size messages.  inproc: each node's firmware
 * a thread of its process, lent the polling (else nicd on the same CPU). */
typedef struct vi_result {
    double half_rtt_us, half_rtt_block_us, bw_MBs;
} vi_result_t;
int bench_vi(const bench_opts_t *o, const char *timing, int inproc, vi_result_t *r);

/* subdev-via through its SDI ops (test/via's harness): ping-pong latency,
 * windowed streaming bandwidth, and NetPIPE's peak: the largest
 * size / (round trip / 2) over ping-pongs of 64 kB .. 4 MB. */
typedef struct via_sdi_result {
    double half_rtt_us, bw_MBs, peak_MBs;
    size_t peak_size;
} via_sdi_result_t;
/* completion: subdev-via's completion mode ("poll", "block"; NULL: default) */
int bench_via_sdi(const bench_opts_t *o, const char *timing, const char *completion, int netpipe,
                  via_sdi_result_t *r);

#endif /* VIA_BENCH_H */
