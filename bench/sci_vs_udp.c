/* sci_vs_udp - subdev-sci against raw UDP on loopback, in one run; and the
 * D310 timing model measured by NetPIPE, as P6 measured ScaMPI.
 *
 *   sci_vs_udp [--iters N] [--lat-size B] [--bw-size B] [--bw-total B]
 *              [--window W] [--no-pin] [--timing] [--timing-only]
 *              [--budget-ms MS] [--via] [--via-completion poll|block]
 *              [--via-eager B] [--via-curve FILE] [--floor] [--rt]
 *
 * Part 1 (timing model off): ping-pong latency (round trip / 2) and
 * streaming bandwidth of subdev-sci beside raw UDP between two processes,
 * and the ratios against the goals (latency <= 1.5x, bandwidth >= 0.8x).
 * Part 2 (--timing): the D310 profile (component costs only), NetPIPE's
 * smallest round trip per size; the MPI latency and peak bandwidth that
 * come out, beside P6's 8 us and 76 MB/s; --floor first runs the same sweep
 * with the model off, the emulation's own latency per size, which the model
 * can hide only where it is shorter.  With --via the same sweep over
 * subdev-via with the clan model, run as P6 ran MPI/Pro: blocking
 * completion (--via-completion, default block) and the subdevice's switch
 * point (--via-eager, default 8 KB, P6's better value; MPI/Pro's default
 * was 4 KB); its latency and peak beside P6's 65 us and 93.5 MB/s, SCI
 * against VIA per size, the wake-ups per VIA round trip, and where VIA
 * overtakes (P6: 16 KB; verdict: within a factor of two).  --via-curve
 * FILE (lines "size MB/s") compares against a curve from a file instead.
 * Each rank and its node's nicd share one CPU unless --no-pin; --rt runs
 * every process of the run at SCHED_FIFO (for a machine other work keeps
 * busy). */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_netpipe.h"
#include "sci_bench.h"

#define MAXSZ 64

static int part_udp(const bench_opts_t *o)
{
    bench_result_t sc;

    if (bench_sci(o, NULL, &sc)) {
        fprintf(stderr, "sci_vs_udp: the subdev-sci run failed\n");
        return -1;
    }
    vs_udp_t v = { "sci", "subdev-sci (frames of up to 8.9 kB)", 8192, sc.rtt_us / 2, sc.bw_MBs };
    return bench_vs_udp(o, &v);
}

static int read_curve(const char *path, size_t *sz, double *mbs, int max)
{
    FILE *f = fopen(path, "r");
    char line[256];
    int n = 0;

    if (f == NULL)
        return -1;
    while (n < max && fgets(line, sizeof(line), f) != NULL) {
        unsigned long s;
        double v;
        if (line[0] != '#' && sscanf(line, "%lu %lf", &s, &v) == 2) {
            sz[n] = s;
            mbs[n++] = v;
        }
    }
    fclose(f);
    return n;
}

/* SCI against VIA per size; where VIA overtakes.  vwake (or NULL): the
 * wake-ups per VIA round trip. */
static int compare_via(const size_t *sz, const double *sci_mbs, int n, const size_t *vsz,
                       const double *vmbs, const double *vwake, int vn, const char *what)
{
    size_t last_ahead = 0, first_behind = 0;
    int fails = 0;

    printf("# SCI (D310 model) against VIA (%s), NetPIPE bandwidth\n", what);
    printf("%10s %12s %12s %10s %s\n", "size B", "SCI MB/s", "VIA MB/s", "SCI/VIA",
           vwake != NULL ? "  VIA wake-ups per round trip" : "");
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < vn; k++) {
            if (vsz[k] != sz[i])
                continue;
            double r = sci_mbs[i] / vmbs[k];
            printf("%10zu %12.4f %12.4f %10.2f", sz[i], sci_mbs[i], vmbs[k], r);
            if (vwake != NULL)
                printf("  %8.2f", vwake[k]);
            printf("\n");
            if (r > 1.0)
                last_ahead = sz[i];
            else if (first_behind == 0 || sz[i] < first_behind)
                first_behind = sz[i];
        }
    }
    printf("SCI ahead up to %zu B, VIA ahead from %zu B  (P6: SCI ahead up to about 16 KB)\n",
           last_ahead, first_behind);
    /* "about 16 KB": within a factor of two, and no crossing back */
    fails += !(last_ahead >= 8192 && last_ahead <= 32768 && first_behind > last_ahead &&
               first_behind <= 65536);
    printf("crossover %s\n", fails ? "NOT within a factor of two of P6's 16 KB"
                                    : "within a factor of two of P6's 16 KB");
    return fails;
}

/* The VIA side: subdev-via with the clan model, run as MPI/Pro ran it
 * (completion=block unless vo says otherwise); its latency and peak beside
 * P6's, then SCI against it. */
static int sci_against_via(const bench_opts_t *o, const via_np_opts_t *vo, const size_t *sz,
                           const double *mbs, int n, int budget_ms)
{
    double vrtt[MAXSZ], vmbs[MAXSZ], vwake[MAXSZ], vpeak;
    size_t vpeak_at;
    char what[160];

    if (bench_via_netpipe(o, vo, sz, n, budget_ms, vrtt, vwake)) {
        fprintf(stderr, "sci_vs_udp: the VIA run failed\n");
        return -1;
    }
    vpeak = np_bandwidth(sz, vrtt, n, vmbs, &vpeak_at);
    snprintf(what, sizeof(what), "subdev-via, %s timing model, completion=%s, eager_limit=%zu",
             vo->timing, vo->completion, vo->eager_limit ? vo->eager_limit : (size_t)8192);
    printf("VIA MPI latency  %8.2f us   P6: 65 us (MPI/Pro, blocking)  ratio %.2f\n", vrtt[0] / 2,
           vrtt[0] / 2 / 65.0);
    printf("VIA peak         %8.2f MB/s P6: 93.5 MB/s  ratio %.2f  (at %zu B)\n", vpeak,
           vpeak / 93.5, vpeak_at);
    return compare_via(sz, mbs, n, sz, vmbs, vwake, n, what);
}

static int part_timing(const bench_opts_t *o, int budget_ms, const via_np_opts_t *via,
                       const char *via_curve, int emu_floor)
{
    size_t sz[MAXSZ], vsz[MAXSZ];
    double rtt[MAXSZ], off[MAXSZ], mbs[MAXSZ], vmbs[MAXSZ], peak;
    size_t peak_at;
    int n = np_sizes(sz, MAXSZ), fails = 0;

    /* the emulation alone, same placement: the model can hide it only where
     * it is shorter */
    if (emu_floor && bench_sci_netpipe(o, NULL, sz, n, budget_ms, off)) {
        fprintf(stderr, "sci_vs_udp: the run with the model off failed\n");
        return -1;
    }
    if (bench_sci_netpipe(o, "d310", sz, n, budget_ms, rtt)) {
        fprintf(stderr, "sci_vs_udp: the timing-model run failed\n");
        return -1;
    }
    printf("# D310 timing model (component costs only: PIO 780 ns per 64-byte transaction, "
           "link 500 MB/s, bridge 670 ns per packet, DMA 50 MB/s + 2 us); NetPIPE: smallest "
           "round trip in %d ms per size\n", budget_ms);
    printf("%10s %14s %12s%s\n", "size B", "latency us", "MB/s",
           emu_floor ? "  model off: latency us" : "");
    peak = np_bandwidth(sz, rtt, n, mbs, &peak_at);
    for (int i = 0; i < n; i++) {
        printf("%10zu %14.2f %12.2f", sz[i], rtt[i] / 2, mbs[i]);
        if (emu_floor)
            printf("  %22.2f", off[i] / 2);
        printf("\n");
    }
    if (emu_floor)
        printf("emulation alone (model off), 1 B: %.2f us\n", off[0] / 2);
    double lat = rtt[0] / 2;
    printf("SCI MPI latency  %8.2f us   P6: 8 us     ratio %.2f  %s\n", lat, lat / 8.0,
           fabs(lat / 8.0 - 1) <= 0.25 ? "near" : "NOT near");
    printf("SCI peak         %8.2f MB/s P6: 76 MB/s  ratio %.2f  %s (at %zu B)\n", peak,
           peak / 76.0, fabs(peak / 76.0 - 1) <= 0.15 ? "near" : "NOT near", peak_at);
    fails += fabs(lat / 8.0 - 1) > 0.25;
    fails += fabs(peak / 76.0 - 1) > 0.15;
    if (via != NULL) {
        int rc = sci_against_via(o, via, sz, mbs, n, budget_ms);
        if (rc < 0)
            return -1;
        fails += rc;
    } else if (via_curve != NULL) {
        int vn = read_curve(via_curve, vsz, vmbs, MAXSZ);
        if (vn <= 0) {
            fprintf(stderr, "sci_vs_udp: no VIA curve in %s\n", via_curve);
            return -1;
        }
        fails += compare_via(sz, mbs, n, vsz, vmbs, NULL, vn, via_curve);
    }
    return fails;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "iters", required_argument, 0, 'i' }, { "lat-size", required_argument, 0, 'l' },
        { "bw-size", required_argument, 0, 'b' }, { "bw-total", required_argument, 0, 't' },
        { "window", required_argument, 0, 'w' }, { "no-pin", no_argument, 0, 'n' },
        { "timing", no_argument, 0, 'T' }, { "timing-only", no_argument, 0, 'O' },
        { "budget-ms", required_argument, 0, 'B' }, { "via-curve", required_argument, 0, 'V' },
        { "rt", no_argument, 0, 'R' }, { "via", no_argument, 0, 'v' },
        { "via-completion", required_argument, 0, 'C' }, { "via-eager", required_argument, 0, 'E' },
        { "floor", no_argument, 0, 'F' }, { 0, 0, 0, 0 }
    };
    via_np_opts_t vo = { .timing = "clan", .completion = "block" };
    bench_opts_t o = { .iters = 20000, .lat_size = 8, .bw_size = 65536, .bw_total = 256 << 20,
                       .window = 16, .dgram = 8192, .pin = 1 };
    int timing = 0, timing_only = 0, budget = 300, c, fails = 0, rc, via = 0, emu_floor = 0;
    const char *via_curve = NULL;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'i': o.iters = atoi(optarg); break;
        case 'l': o.lat_size = strtoul(optarg, NULL, 0); break;
        case 'b': o.bw_size = strtoul(optarg, NULL, 0); break;
        case 't': o.bw_total = strtoul(optarg, NULL, 0); break;
        case 'w': o.window = atoi(optarg); break;
        case 'n': o.pin = 0; break;
        case 'T': timing = 1; break;
        case 'O': timing = timing_only = 1; break;
        case 'B': budget = atoi(optarg); break;
        case 'V': via_curve = optarg; timing = 1; break;
        case 'v': via = 1; timing = 1; break;
        case 'C': vo.completion = optarg; break;
        case 'E': vo.eager_limit = strtoul(optarg, NULL, 0); break;
        case 'F': emu_floor = 1; break;
        case 'R': bench_rt("sci_vs_udp"); break;
        default: return 2;
        }
    }
    if (!timing_only) {
        if ((rc = part_udp(&o)) < 0)
            return 1;
        fails += rc;
    }
    if (timing) {
        if ((rc = part_timing(&o, budget, via ? &vo : NULL, via_curve, emu_floor)) < 0)
            return 1;
        fails += rc;
    }
    return fails ? 3 : 0;
}
