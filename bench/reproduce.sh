#!/usr/bin/env bash
# bench/reproduce.sh - every figure of the seeds that the timing models
# claim, in one run, and one report with plots (issue 23):
#
#   P2 (HP-LAM, seed 002): round trip, bulk bandwidth, o_s, o_r, L, g
#       (bench/myri_vs_udp --hplam-only);
#   P4 (VI primitives, seed 004): raw VI half round trip and throughput
#       (bench/via_vs_udp --timing-only);
#   P6 (SCI against VIA under MPI, seed 000): NetPIPE latency and
#       bandwidth curves of subdev-sci (d310 model) and subdev-via (clan
#       model, blocking completion) (bench/sci_vs_udp --timing-only --via),
#       and VIA's latency when it polls (--via-completion poll).
#
# It runs those programs, interleaved (the order rotates each round), takes
# the median of the rounds, and writes OUT/report.md (paper, ours, ratio,
# verdict per row), OUT/*.png (bench/plot.py) and OUT/raw/.
#
#   bench/reproduce.sh [--quick | --smoke] [--repeats N] [--budget-ms MS]
#                      [--out DIR] [--no-rt] [--no-plots]
#
# --quick: 3 rounds, NetPIPE 100 ms per size (about a minute); default: 7
# rounds, 500 ms per size as P6's NetPIPE (about 6 minutes); --smoke: one
# round, 20 ms per size, no SCHED_FIFO (the test's: checks that everything
# runs, the numbers mean little).  --rt (the default as root): every
# process at SCHED_FIFO, without which this shared machine's other work
# takes the CPU in the middle of round trips.  BUILD: the build directory
# (default _build).  Exit status: 0 report written (whatever the verdicts),
# 2 usage or set-up error, 3 a benchmark run failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD:-$top/_build}
out=$top/_work/reproduce
repeats=7 budget=500 rt=auto plots=1 mode=full

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) mode=quick repeats=3 budget=100 ;;
    --smoke) mode=smoke repeats=1 budget=20 rt=0 ;;
    --repeats) repeats=${2:?}; shift ;;
    --budget-ms) budget=${2:?}; shift ;;
    --out) out=${2:?}; shift ;;
    --no-rt) rt=0 ;;
    --rt) rt=1 ;;
    --no-plots) plots=0 ;;
    -h|--help) usage ;;
    *) echo "reproduce: unknown argument $1" >&2; usage ;;
  esac
  shift
done
[ "$rt" = auto ] && { [ "$(id -u)" = 0 ] && rt=1 || rt=0; }
rtflag=(); [ "$rt" = 1 ] && rtflag=(--rt)

for p in myri_vs_udp via_vs_udp sci_vs_udp; do
  [ -x "$build/bench/$p" ] || { echo "reproduce: $build/bench/$p not built (make in $build)" >&2; exit 2; }
done
if [ "$plots" = 1 ] && ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  echo "reproduce: no matplotlib for /usr/bin/python3 (scripts/setup-deps.sh installs" \
       "python3-matplotlib); writing the report without plots" >&2
  plots=0
fi

export MULTIDEV_NICD=${MULTIDEV_NICD:-$build/nic/nicd}
export MULTIDEV_NIC_IDLE_MS=${MULTIDEV_NIC_IDLE_MS:-500}
mkdir -p "$out/raw"
rm -f "$out"/raw/*.txt "$out"/*.png "$out"/*.tsv "$out/report.md"

{
  echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu	$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "cores	$(nproc)"
  echo "kernel	$(uname -sr)"
  echo "commit	$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet HEAD 2>/dev/null || echo ' (with changes)')"
  echo "mode	$mode: $repeats round(s), NetPIPE $budget ms per size, SCHED_FIFO $([ "$rt" = 1 ] && echo on || echo off)"
  echo "load_start	$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/raw/machine.tsv"

# One benchmark of round r: its output in raw/NAME-r.txt; a failed run
# stops the whole (its output is kept).
run() {
  local name=$1 r=$2; shift 2
  local f=$out/raw/$name-$r.txt rc=0
  "$@" > "$f" 2>&1 || rc=$?
  # 3: a figure outside its goal, which the report judges itself
  if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
    echo "reproduce: $name, round $r, failed (status $rc); its output: $f" >&2
    tail -5 "$f" >&2
    exit 3
  fi
}

start=$(date +%s)
for r in $(seq 1 "$repeats"); do
  order=(p2 p4 p6)
  for ((k = 0; k < (r - 1) % 3; k++)); do order=("${order[@]:1}" "${order[0]}"); done
  echo "reproduce: round $r of $repeats (${order[*]}), load $(cut -d' ' -f1 /proc/loadavg)" >&2
  for b in "${order[@]}"; do
    case $b in
      p2) run p2 "$r" "$build/bench/myri_vs_udp" --hplam-only "${rtflag[@]}" ;;
      p4) run p4 "$r" "$build/bench/via_vs_udp" --timing-only "${rtflag[@]}" ;;
      p6) run p6 "$r" "$build/bench/sci_vs_udp" --timing-only --via --budget-ms "$budget" \
            "${rtflag[@]}"
          # VIA polling instead of blocking, for its latency only (P6's polling
          # prototype): a shorter budget will do
          run p6poll "$r" "$build/bench/sci_vs_udp" --timing-only --via --via-completion poll \
            --budget-ms "$((budget < 100 ? budget : 100))" "${rtflag[@]}" ;;
    esac
  done
done
{
  echo "load_end	$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "seconds	$(( $(date +%s) - start ))"
} >> "$out/raw/machine.tsv"

/usr/bin/python3 "$here/reproduce_report.py" "$out" || exit 3
if [ "$plots" = 1 ]; then
  plot() { /usr/bin/python3 "$here/plot.py" "$@" || exit 3; }
  plot "$out/p6_bandwidth.tsv" "$out/p6_bandwidth.png" --marks "$out/p6_bandwidth_marks.tsv" \
    --ylabel "MB/s (NetPIPE: size / half round trip)" \
    --title "P6 Fig. 3: MPI bandwidth, SCI (D310 model) and VIA (cLAN model)"
  plot "$out/p6_latency.tsv" "$out/p6_latency.png" --marks "$out/p6_latency_marks.tsv" --logy \
    --ylabel "half round trip, us" --title "P6: MPI latency over size (NetPIPE's smallest round trip)"
  plot "$out/p6_ratio.tsv" "$out/p6_ratio.png" --marks "$out/p6_ratio_marks.tsv" --logy \
    --ylabel "SCI / VIA bandwidth" --title "P6: SCI against VIA (above 1: SCI ahead)"
fi
echo "reproduce: $out/report.md" >&2
