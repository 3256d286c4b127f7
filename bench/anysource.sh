#!/usr/bin/env bash
# Issue 5's ANY_SOURCE benchmark: ping-pong with MPI_ANY_SOURCE receives
# against the same ping-pong with specific-source receives, in one run,
# interleaved and repeated.  Goal: ANY_SOURCE latency at most 1.1x.
# The interesting set-up has two subdevices per rank (e.g. 3 ranks over 2
# emulated nodes, so a rank's communicator members are reached over shm and
# myri):   bench/anysource.sh --np 3 --launcher test/mpi/launch-nodes.sh
# See doc/benchmarks.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${BENCH_WORK:-$ROOT/_work/bench}
MPI=ours NP=2 REPEATS=15 STAT=median TIMEOUT=300 BIND=0 LAUNCHER=
# The goal is about latency: sizes up to 4 KiB, and enough round trips
# (300 000, about 0.1 s at 8 B over shm) that one preemption does not move
# a run's mean; --quick or --pingpong-args "--iters N --max-size S" override.
PP_ARGS=(--max-size 4096 --iters 300000 --warmup 3000)

usage() {
  cat <<EOT
usage: bench/anysource.sh [options]
  --mpi ours|mpich|openmpi  which MPI (default ours)
  --np N                    ranks in the job (default 2; the pair is 0,1
                            unless --pingpong-args "--pair A,B")
  --launcher SCRIPT         launch as SCRIPT NP PROGRAM ARGS... (e.g.
                            test/mpi/launch-nodes.sh) instead of mpiexec -n NP
  --repeats N               runs of each mode, interleaved (default 15)
  --stat median|best        statistic over the runs (default median)
  --quick                   fewer round trips (2000 a size instead of 300 000)
  --bind                    bind ranks to cores
  --timeout S               limit for one run (default 300)
  --pingpong-args A         pingpong arguments after the defaults, which they
                            override (default "--max-size 4096 --iters 300000
                            --warmup 3000")
Exit status: 0 goal met, 1 missed, 2 usage or set-up error, 3 a run failed.
EOT
}
die() { echo "anysource: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi) MPI=${2:?}; shift ;;
    --np) NP=${2:?}; shift ;;
    --launcher) LAUNCHER=${2:?}; shift ;;
    --repeats) REPEATS=${2:?}; shift ;;
    --stat) STAT=${2:?}; shift ;;
    --quick) PP_ARGS+=(--iters 2000 --warmup 200) ;;
    --bind) BIND=1 ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --pingpong-args) read -r -a a <<<"${2:?}"; PP_ARGS+=("${a[@]}"); shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
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

RESULTS="$WORK/results/anysource-$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$RESULTS"
echo "anysource: $MPI, $NP ranks, $REPEATS run(s) per mode; raw outputs in $RESULTS"
bench_check_idle
BENCH_FAILED=0
bench_launch_cmd "$MPI" "$NP"
for ((r = 1; r <= REPEATS; r++)); do
  # Alternate which mode goes first.
  if [ $((r % 2)) -eq 1 ]; then modes=(specific anysource); else modes=(anysource specific); fi
  for mode in "${modes[@]}"; do
    extra=()
    [ "$mode" = anysource ] && extra=(--any-source)
    bench_run "$mode" pingpong "$r" "${LAUNCH[@]}" "$WORK/$MPI/pingpong" \
      ${PP_ARGS[@]+"${PP_ARGS[@]}"} ${extra[@]+"${extra[@]}"}
    printf '.'
  done
done
echo
set +e
python3 "$BENCH/compare_report.py" --goal anysource --programs pingpong --series "$RESULTS" \
  "$RESULTS" "$STAT" anysource,specific | tee "$RESULTS/report.txt"
status=${PIPESTATUS[0]}
set -e
bench_plot "$RESULTS/pingpong.tsv" "$RESULTS/pingpong.png" --logy \
  --ylabel "us, half round trip ($STAT of $REPEATS)" \
  --title "pingpong latency, ANY_SOURCE against specific source ($MPI, $NP ranks)"
bench_plots_done anysource
if [ "$BENCH_FAILED" -eq 1 ] && [ "$status" -lt 3 ]; then status=3; fi
exit "$status"
