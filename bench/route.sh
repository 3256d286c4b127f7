#!/usr/bin/env bash
# Issue 5's forwarding benchmark: a route A->B->C (A and C share no network,
# so libmultidev forwards through B) against its two direct hops, in one run,
# interleaved and repeated.  Measures ping-pong latency and streaming
# bandwidth for the pairs A-B, B-C and A-C.  Goals: A-C latency at most
# A-B + B-C plus the forwarding cost (the excess is printed); A->C bandwidth
# at 4 MiB at least 0.8x the slower hop.
# Needs a launch over emulated nodes whose network description makes A-C
# indirect, e.g.:
#   NODES="a b c" bench/route.sh --launcher test/mpi/launch-nodes.sh
# (rank 0 on node a, 1 on b, 2 on c with the default block map).
# See doc/benchmarks.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${BENCH_WORK:-$ROOT/_work/bench}
MPI=ours NP=3 RANKS=0,1,2 REPEATS=3 STAT=median TIMEOUT=600 BIND=1 LAUNCHER= FORWARD_US=
PP_ARGS=()
BW_ARGS=()

usage() {
  cat <<EOT
usage: bench/route.sh [options]
  --mpi ours|mpich|openmpi  which MPI (default ours)
  --np N                    ranks in the job (default 3)
  --ranks A,B,C             the route's ranks (default 0,1,2)
  --launcher SCRIPT         launch as SCRIPT NP PROGRAM ARGS... (e.g.
                            test/mpi/launch-nodes.sh) instead of mpiexec -n NP
  --repeats N               runs per pair and program, interleaved (default 3)
  --stat median|best        statistic over the runs (default median)
  --quick                   fewer iterations
  --bind                    bind ranks to cores, the default (hydra's
                            -bind-to core, also through --launcher: rank r on
                            core r mod cores; with 3 ranks on 2 cores the
                            relay has a core and A and C take turns on the
                            other, as nodes with processors of their own)
  --no-bind                 let the kernel place the ranks
  --timeout S               limit for one run (default 600: with the timing
                            models on a bandwidth run takes 4-5 min)
  --forward-us US           the relay's forwarding cost in the description
                            (relay-3node.net: 15): judge the latency too
  --pingpong-args A         extra pingpong arguments
  --bandwidth-args A        extra bandwidth arguments
Exit status: 0 goal met, 1 missed, 2 usage or set-up error, 3 a run failed.
EOT
}
die() { echo "route: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi) MPI=${2:?}; shift ;;
    --np) NP=${2:?}; shift ;;
    --ranks) RANKS=${2:?}; shift ;;
    --launcher) LAUNCHER=${2:?}; shift ;;
    --repeats) REPEATS=${2:?}; shift ;;
    --stat) STAT=${2:?}; shift ;;
    --quick) PP_ARGS+=(--iters 2000 --warmup 200); BW_ARGS+=(--iters 40 --warmup 4) ;;
    --bind) BIND=1 ;;
    --no-bind) BIND=0 ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --forward-us) FORWARD_US=${2:?}; shift ;;
    --pingpong-args) read -r -a a <<<"${2:?}"; PP_ARGS+=("${a[@]}"); shift ;;
    --bandwidth-args) read -r -a a <<<"${2:?}"; BW_ARGS+=("${a[@]}"); shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
[[ "$RANKS" =~ ^([0-9]+),([0-9]+),([0-9]+)$ ]] || die "--ranks wants A,B,C"
A=${BASH_REMATCH[1]} B=${BASH_REMATCH[2]} C=${BASH_REMATCH[3]}
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || die "--repeats wants a positive number"
[[ "$NP" =~ ^[1-9][0-9]*$ ]] || die "--np wants a positive number"
[ "$STAT" = median ] || [ "$STAT" = best ] || die "--stat is median or best"

# shellcheck source=bench/mpi-common.sh
. "$BENCH/mpi-common.sh"
# shellcheck source=bench/plot-common.sh
. "$BENCH/plot-common.sh"
bench_mpi_available "$MPI" ||
  die "MPI '$MPI' is not available (ours: build _install; others: scripts/setup-deps.sh)"
bench_build "$MPI" "$WORK/$MPI" || die "building the benchmarks with $MPI failed"

RESULTS="$WORK/results/route-$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$RESULTS"
echo "route: $MPI, $NP ranks, route $A->$B->$C, $REPEATS run(s) each$([ "$BIND" -eq 1 ] && echo ", ranks bound to cores" || echo ", ranks not bound"); raw outputs in $RESULTS"
bench_check_idle
BENCH_FAILED=0
bench_launch_cmd "$MPI" "$NP"
declare -A PAIR=([AB]="$A,$B" [BC]="$B,$C" [AC]="$A,$C")
labels=(AB BC AC)
for ((r = 1; r <= REPEATS; r++)); do
  order=()
  for ((i = 0; i < 3; i++)); do order+=("${labels[$(((i + r - 1) % 3))]}"); done
  for p in pingpong bandwidth; do
    for l in "${order[@]}"; do
      if [ "$p" = pingpong ]; then
        bench_run "$l" "$p" "$r" "${LAUNCH[@]}" "$WORK/$MPI/$p" --pair "${PAIR[$l]}" \
          ${PP_ARGS[@]+"${PP_ARGS[@]}"}
      else
        bench_run "$l" "$p" "$r" "${LAUNCH[@]}" "$WORK/$MPI/$p" --pair "${PAIR[$l]}" \
          ${BW_ARGS[@]+"${BW_ARGS[@]}"}
      fi
      printf '.'
    done
  done
done
echo
set +e
python3 "$BENCH/compare_report.py" --goal route ${FORWARD_US:+--forward-us "$FORWARD_US"} \
  --series "$RESULTS" "$RESULTS" "$STAT" AC,AB,BC |
  tee "$RESULTS/report.txt"
status=${PIPESTATUS[0]}
set -e
bench_plot "$RESULTS/pingpong.tsv" "$RESULTS/pingpong.png" --logy \
  --ylabel "us, half round trip ($STAT of $REPEATS)" \
  --title "pingpong latency, forwarded A-C ($A->$B->$C) against its hops A-B, B-C"
bench_plot "$RESULTS/bandwidth.tsv" "$RESULTS/bandwidth.png" --logy \
  --ylabel "MB/s ($STAT of $REPEATS)" \
  --title "streaming bandwidth, forwarded A->C ($A->$B->$C) against its hops A->B, B->C"
bench_plots_done route
if [ "$BENCH_FAILED" -eq 1 ] && [ "$status" -lt 3 ]; then status=3; fi
exit "$status"
