/* myri_vs_udp - subdev-myri against raw UDP on loopback, in one run.
 *
 *   myri_vs_udp [--iters N] [--lat-size B] [--bw-size B] [--bw-total B]
 *               [--window W] [--no-pin] [--hplam] [--hplam-only]
 *
 * Prints ping-pong latency (round trip / 2) and streaming bandwidth of
 * subdev-myri (timing model off) beside raw UDP between two processes, and
 * the ratios against the goals (latency <= 1.5x, bandwidth >= 0.8x).  With
 * --hplam also the HP-LAM timing model measured by P2's method, beside the
 * paper's figures (goal: within 15%).  Each rank and its node's nicd share
 * one CPU (rank i on CPU i) unless --no-pin.  Every process polls and
 * yields: run it on an otherwise idle machine (the script warns). */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myri_bench.h"

static int verdict(double v, double goal, int le)
{
    return le ? v <= goal : v >= goal;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "iters", required_argument, 0, 'i' }, { "lat-size", required_argument, 0, 'l' },
        { "bw-size", required_argument, 0, 'b' }, { "bw-total", required_argument, 0, 't' },
        { "window", required_argument, 0, 'w' }, { "no-pin", no_argument, 0, 'n' },
        { "hplam", no_argument, 0, 'H' }, { "hplam-only", no_argument, 0, 'O' },
        { 0, 0, 0, 0 }
    };
    bench_opts_t o = { .iters = 20000, .lat_size = 8, .bw_size = 65536, .bw_total = 256 << 20,
                       .window = 16, .dgram = 4096, .pin = 1 };
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
        default: return 2;
        }
    }
    if (!hplam_only) {
        bench_result_t ub, up, us4, us64, my;
        if (bench_udp_pingpong(&o, 0, &ub) || bench_udp_pingpong(&o, 1, &up) ||
            bench_udp_stream(&o, 4096, &us4) || bench_udp_stream(&o, 65000, &us64) ||
            bench_sdi(&o, NULL, &my)) {
            fprintf(stderr, "myri_vs_udp: a run failed\n");
            return 1;
        }
        double lat_ratio = (my.rtt_us / 2) / (ub.rtt_us / 2);
        double bw_ratio = my.bw_MBs / us4.bw_MBs;
        printf("# subdev-myri vs raw UDP on loopback (timing model off), %d round trips of %zu B,"
               " streaming %zu MB in %zu B messages\n", o.iters, o.lat_size, o.bw_total >> 20,
               o.bw_size);
        printf("%-44s %12s %12s\n", "", "latency us", "MB/s");
        printf("%-44s %12.2f %12s\n", "raw UDP ping-pong (blocking recv)", ub.rtt_us / 2, "");
        printf("%-44s %12.2f %12s\n", "raw UDP ping-pong (busy-polling recv)", up.rtt_us / 2, "");
        printf("%-44s %12s %12.1f\n", "raw UDP streaming, 4096 B datagrams", "", us4.bw_MBs);
        printf("%-44s %12s %12.1f\n", "raw UDP streaming, 65000 B datagrams", "", us64.bw_MBs);
        printf("%-44s %12.2f %12.1f\n", "subdev-myri (4 kB Myrinet packets)", my.rtt_us / 2,
               my.bw_MBs);
        printf("ratio latency myri/udp(blocking)   %.2f  goal <= 1.5  %s\n", lat_ratio,
               verdict(lat_ratio, 1.5, 1) ? "met" : "NOT MET");
        printf("ratio latency myri/udp(busy-poll)  %.2f  (for information)\n",
               (my.rtt_us / 2) / (up.rtt_us / 2));
        printf("ratio bandwidth myri/udp(4096 B)   %.2f  goal >= 0.8  %s\n", bw_ratio,
               verdict(bw_ratio, 0.8, 0) ? "met" : "NOT MET");
        printf("ratio bandwidth myri/udp(65000 B)  %.2f  (for information)\n",
               my.bw_MBs / us64.bw_MBs);
        fails += !verdict(lat_ratio, 1.5, 1) + !verdict(bw_ratio, 0.8, 0);
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
