/* bench_vs_udp.c - the part the three NIC benchmarks share: raw UDP
 * between two processes on loopback (ping-pong blocking and busy-polling,
 * streaming plain, with the segmentation offloads, and in 65000 B
 * datagrams), measured in the same run as the subdevice, printed beside
 * it with the ratios against the goals (latency <= 1.5x raw UDP blocking,
 * bandwidth >= 0.8x raw UDP streaming in datagrams of the frame size). */
#include "config.h"

#include <stdio.h>

#include "myri_bench.h"

static int vs_met(double v, double goal, int at_most)
{
    return at_most ? v <= goal : v >= goal;
}

int bench_vs_udp(const bench_opts_t *o, const vs_udp_t *s)
{
    bench_result_t ub, up, plain, offl, big;
    const int w = 46;
    char label[64];

    if (bench_udp_pingpong(o, 0, &ub) || bench_udp_pingpong(o, 1, &up) ||
        bench_udp_stream_offload(o, s->dgram, 0, &plain) ||
        bench_udp_stream_offload(o, s->dgram, 1, &offl) ||
        bench_udp_stream_offload(o, 65000, 0, &big)) {
        fprintf(stderr, "bench: a raw UDP run failed\n");
        return -1;
    }
    double lat = s->half_rtt_us / (ub.rtt_us / 2), bw = s->bw_MBs / plain.bw_MBs;
    printf("# subdev-%s vs raw UDP on loopback (timing model off), %d round trips of %zu B, "
           "streaming %zu MB in %zu B messages, window %d\n", s->name, o->iters, o->lat_size,
           o->bw_total >> 20, o->bw_size, o->window);
    printf("%-*s %12s %12s\n", w, "", "latency us", "MB/s");
    printf("%-*s %12.2f %12s\n", w, "raw UDP ping-pong (blocking recv)", ub.rtt_us / 2, "");
    printf("%-*s %12.2f %12s\n", w, "raw UDP ping-pong (busy-polling recv)", up.rtt_us / 2, "");
    snprintf(label, sizeof(label), "raw UDP streaming, %zu B datagrams", s->dgram);
    printf("%-*s %12s %12.1f\n", w, label, "", plain.bw_MBs);
    snprintf(label, sizeof(label), "raw UDP streaming, %zu B, GSO/GRO trains", s->dgram);
    printf("%-*s %12s %12.1f\n", w, label, "", offl.bw_MBs);
    printf("%-*s %12s %12.1f\n", w, "raw UDP streaming, 65000 B datagrams", "", big.bw_MBs);
    printf("%-*s %12.2f %12.1f\n", w, s->row, s->half_rtt_us, s->bw_MBs);
    printf("ratio latency %s/udp(blocking)        %.2f  goal <= 1.5  %s\n", s->name, lat,
           vs_met(lat, 1.5, 1) ? "met" : "NOT MET");
    printf("ratio latency %s/udp(busy-poll)       %.2f  (for information)\n", s->name,
           s->half_rtt_us / (up.rtt_us / 2));
    printf("ratio bandwidth %s/udp(%zu B)         %.2f  goal >= 0.8  %s\n", s->name, s->dgram, bw,
           vs_met(bw, 0.8, 0) ? "met" : "NOT MET");
    printf("ratio bandwidth %s/udp(%zu B GSO/GRO) %.2f  (for information: the offloads our wire"
           " uses)\n", s->name, s->dgram, s->bw_MBs / offl.bw_MBs);
    printf("ratio bandwidth %s/udp(65000 B)       %.2f  (for information)\n", s->name,
           s->bw_MBs / big.bw_MBs);
    return !vs_met(lat, 1.5, 1) + !vs_met(bw, 0.8, 0);
}
