/* myri_vs_udp - subdev-myri against raw UDP on loopback, in one run.
 *
 *   myri_vs_udp [--iters N] [--lat-size B] [--bw-size B] [--bw-total B]
 *               [--window W] [--no-pin] [--hplam] [--hplam-only]
 *               [--hplam-place cross|co|inproc] [--rt]
 *
 * Prints ping-pong latency (round trip / 2) and streaming bandwidth of
 * subdev-myri (timing model off) beside raw UDP between two processes, and
 * the ratios against the goals (latency <= 1.5x, bandwidth >= 0.8x).  With
 * --hplam also the HP-LAM timing model measured by P2's method, beside the
 * paper's figures (goal: within 15%), after the emulation's own round trip
 * with the model off.  Each rank and its node's nicd share one CPU (rank i
 * on CPU i) unless --no-pin; for HP-LAM each node's firmware runs in its
 * host's process (--hplam-place inproc, the default: as the subdevices run
 * a node's only rank), or as a nicd on the other CPU (cross) or on its
 * host's (co) (bench_hplam.c).  Every process polls and yields: run it on an
 * otherwise idle machine (the script warns), or with --rt (every process
 * at SCHED_FIFO) on a machine other work keeps busy. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myri_bench.h"

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "iters", required_argument, 0, 'i' }, { "lat-size", required_argument, 0, 'l' },
        { "bw-size", required_argument, 0, 'b' }, { "bw-total", required_argument, 0, 't' },
        { "window", required_argument, 0, 'w' }, { "no-pin", no_argument, 0, 'n' },
        { "hplam", no_argument, 0, 'H' }, { "hplam-only", no_argument, 0, 'O' },
        { "rt", no_argument, 0, 'R' }, { "hplam-place", required_argument, 0, 'P' },
        { 0, 0, 0, 0 }
    };
    bench_opts_t o = { .iters = 20000, .lat_size = 8, .bw_size = 65536, .bw_total = 256 << 20,
                       .window = 16, .dgram = 4096, .pin = 1,
                       .hplam_place = HPLAM_PLACE_INPROC };
    int hplam = 0, hplam_only = 0, c, fails = 0;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'i': o.iters = atoi(optarg); break;
        case 'l': o.lat_size = strtoul(optarg, NULL, 0); break;
        case 'b': o.bw_size = strtoul(optarg, NULL, 0); break;
        case 't': o.bw_total = strtoul(optarg, NULL, 0); break;
        case 'w': o.window = atoi(optarg); break;
        case 'n': o.pin = 0; break;
        case 'H': hplam = 1; break;
        case 'O': hplam = hplam_only = 1; break;
        case 'R': bench_rt("myri_vs_udp"); break;
        case 'P':
            if (strcmp(optarg, "cross") != 0 && strcmp(optarg, "co") != 0 &&
                strcmp(optarg, "inproc") != 0) {
                fprintf(stderr, "myri_vs_udp: --hplam-place cross|co|inproc\n");
                return 2;
            }
            o.hplam_place = strcmp(optarg, "co") == 0       ? HPLAM_PLACE_CO
                            : strcmp(optarg, "inproc") == 0 ? HPLAM_PLACE_INPROC
                                                            : HPLAM_PLACE_CROSS;
            break;
        default: return 2;
        }
    }
    if (!hplam_only) {
        bench_result_t my;
        if (bench_sdi(&o, NULL, &my)) {
            fprintf(stderr, "myri_vs_udp: the subdev-myri run failed\n");
            return 1;
        }
        vs_udp_t v = { "myri", "subdev-myri (4 kB Myrinet packets)", 4096, my.rtt_us / 2,
                       my.bw_MBs };
        int missed = bench_vs_udp(&o, &v);
        if (missed < 0)
            return 1;
        fails += missed;
    }
    if (hplam) {
        hplam_result_t h;
        bench_opts_t ho = o;
        ho.iters = o.iters > 4000 ? 4000 : o.iters;
        if (bench_hplam(&ho, &h)) {
            fprintf(stderr, "myri_vs_udp: the HP-LAM run failed\n");
            return 1;
        }
        struct { const char *name; double got, paper; } row[] = {
            { "round trip (us)", h.rtt_us, 28.1 }, { "bulk bandwidth (MB/s)", h.bw_MBs, 24.0 },
            { "o_s (us)", h.o_s, 2.9 }, { "o_r (us)", h.o_r, 5.8 }, { "L (us)", h.L, 5.3 },
            { "g (us)", h.g, 8.7 },
        };
        printf("# HP-LAM timing model (component costs only), measured as P2 §4 did\n");
        printf("# the emulation alone (timing model off): round trip %.2f us\n", h.rtt_off_us);
        printf("%-24s %10s %10s %8s\n", "", "emulated", "paper", "ratio");
        for (size_t i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
            double r = row[i].got / row[i].paper;
            int ok = fabs(r - 1.0) <= 0.15;
            fails += !ok;
            printf("%-24s %10.2f %10.2f %8.2f  %s\n", row[i].name, row[i].got, row[i].paper, r,
                   ok ? "within 15%" : "OFF BY MORE THAN 15%");
        }
    }
    return fails ? 3 : 0;
}
