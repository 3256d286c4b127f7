#!/usr/bin/env bash
# bench/sci-vs-udp.sh - subdev-sci against raw UDP on loopback, in one run,
# and (with --timing) the D310 timing model measured by NetPIPE against
# P6's ScaMPI figures.  Builds nothing: run it from a build directory after
# `make`, or pass the build directory with BUILD=...  Extra arguments go to
# the program (bench/sci_vs_udp.c lists them).
# The output is kept in BENCH_WORK/results/sci-vs-udp-DATE-PID/output.txt
# (BENCH_WORK: _work/bench); with --timing, --timing-only, --via or
# --via-curve its sweep over size is drawn beside it: latency.png and
# bandwidth.png (SCI, VIA when compared, SCI with the model off with
# --floor), from latency.tsv and bandwidth.tsv.
set -euo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
build=${BUILD:-$(pwd)}
prog=$build/bench/sci_vs_udp
[ -x "$prog" ] || { echo "sci-vs-udp: $prog not built (make in $build)" >&2; exit 2; }
export MULTIDEV_NICD=${MULTIDEV_NICD:-$build/nic/nicd}
export MULTIDEV_NIC_IDLE_MS=${MULTIDEV_NIC_IDLE_MS:-500}
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v l="$load" 'BEGIN { if (l > 0.5) print "sci-vs-udp: warning: load average " l ", numbers will be noisy" }' >&2
# shellcheck source=bench/plot-common.sh
. "$BENCH/plot-common.sh"
results=${BENCH_WORK:-$ROOT/_work/bench}/results/sci-vs-udp-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$results"
set +e
"$prog" "$@" | tee "$results/output.txt"
status=${PIPESTATUS[0]}
set -e

# The sweep's tables as plot.py's series: the D310 table (size, latency us,
# MB/s[, model off: latency us]) and SCI against VIA (size, SCI MB/s, VIA
# MB/s, ...); VIA's latency is size / MB/s (NetPIPE: MB/s = size / half
# round trip, 10^6 B/s = B/us).
awk -v lat="$results/latency.tsv" -v bw="$results/bandwidth.tsv" '
  /^# D310 timing model/ { t = "sci"; next }
  /^# SCI \(D310 model\) against VIA/ { t = "via"; next }
  t != "" && $1 !~ /^[0-9]+$/ { if ($1 != "size") t = ""; next }
  t == "sci" {
    printf "SCI (d310 model)\t%s\t%s\n", $1, $2 > lat
    printf "SCI (d310 model)\t%s\t%s\n", $1, $3 > bw
    if (NF >= 4) {
      printf "SCI, model off\t%s\t%s\n", $1, $4 > lat
      printf "SCI, model off\t%s\t%g\n", $1, $1 / $4 > bw
    }
  }
  t == "via" && $3 > 0 {
    printf "VIA\t%s\t%g\n", $1, $1 / $3 > lat
    printf "VIA\t%s\t%s\n", $1, $3 > bw
  }' "$results/output.txt"
if [ -s "$results/latency.tsv" ]; then
  bench_plot "$results/latency.tsv" "$results/latency.png" --logy \
    --ylabel "us, half round trip (NetPIPE: the smallest)" --title "sci-vs-udp: NetPIPE latency"
  bench_plot "$results/bandwidth.tsv" "$results/bandwidth.png" --logy \
    --ylabel "MB/s = size / half round trip" --title "sci-vs-udp: NetPIPE bandwidth"
fi
echo "sci-vs-udp: output in $results"
bench_plots_done sci-vs-udp
exit "$status"
