/* myri_bench.h - bench/myri-vs-udp: subdev-myri against raw UDP on
 * loopback, and the HP-LAM timing model measured the way P2 measured it. */
#ifndef MYRI_BENCH_H
#define MYRI_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct bench_opts {
    int    iters;        /* ping-pong round trips */
    size_t lat_size;     /* ping-pong message bytes */
    size_t bw_size;      /* streaming message bytes */
    size_t bw_total;     /* streaming bytes in total */
    int    window;       /* streaming messages in flight */
    size_t dgram;        /* raw UDP streaming datagram bytes */
    int    pin;          /* rank i on CPU i */
    int    hplam_place;  /* HP-LAM: where each node's NIC runs (pin only) */
} bench_opts_t;

/* HP-LAM placement on 2 CPUs, host i always on CPU i: each node's NIC on
 * the other CPU (cross: a host and its own NIC run side by side, as the
 * LANai beside the host CPU), or on its host's CPU (co), or as a thread of
 * its host's process that the host lends turns (inproc). */
enum { HPLAM_PLACE_CROSS = 0, HPLAM_PLACE_CO = 1, HPLAM_PLACE_INPROC = 2 };

typedef struct bench_result {
    double rtt_us;       /* round trip */
    double bw_MBs;       /* 1e6 bytes per second */
} bench_result_t;

/* Shared with forked children (anonymous shared mapping). */
void *bench_shared(size_t len);
double bench_now_us(void);
void bench_pin(int cpu);
void bench_pin_pid(pid_t pid, int cpu);   /* 0: this process */
/* Run this process and all it starts at SCHED_FIFO (on a machine other
 * work keeps busy); prints a comment line, -1 if refused. */
int bench_rt(const char *prog);

int bench_udp_pingpong(const bench_opts_t *o, int busy_poll, bench_result_t *r);
int bench_udp_stream(const bench_opts_t *o, size_t dgram, bench_result_t *r);
/* The same with UDP GSO trains and GRO receives when offload is set. */
int bench_udp_stream_offload(const bench_opts_t *o, size_t dgram, int offload, bench_result_t *r);
int bench_sdi(const bench_opts_t *o, const char *timing, bench_result_t *r);

/* A subdevice's figures (timing model off), to print beside raw UDP. */
typedef struct vs_udp {
    const char *name;          /* "myri" */
    const char *row;           /* its line in the table */
    size_t      dgram;         /* the baseline's datagrams: the subdevice's frame size */
    double      half_rtt_us;   /* ping-pong round trip / 2 */
    double      bw_MBs;        /* streaming */
} vs_udp_t;
/* Runs the raw UDP baselines, prints them beside s and the ratios against
 * the goals; returns the number of goals missed, -1 if a run failed. */
int bench_vs_udp(const bench_opts_t *o, const vs_udp_t *s);

/* HP-LAM, P2 §4: ping_pong RTT, ping_bulk BW, LogP signature. */
typedef struct hplam_result {
    double rtt_us, bw_MBs, o_s, o_r, L, g;
    double rtt_off_us;   /* the same ping_pong with the timing model off */
} hplam_result_t;
int bench_hplam(const bench_opts_t *o, hplam_result_t *r);

#endif
