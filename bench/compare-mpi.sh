#!/usr/bin/env bash
# Runs bench/pingpong and bench/bandwidth with three MPIs side by side on 2
# ranks of this machine -- ours (_install, MPICH --with-device=multi),
# Debian's MPICH and Debian's Open MPI -- interleaving the runs and repeating
# them, then prints a table per size with the ratios ours/mpich and
# ours/openmpi and the verdict on the issue-2 goals:
#   8 B latency no worse than Debian's MPICH;
#   1 MiB bandwidth at least 0.9x Debian's Open MPI.
# See doc/benchmarks.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${BENCH_WORK:-$ROOT/_work/bench}

REPEATS=3
STAT=median
TIMEOUT=300
BASELINES_ONLY=0
BIND=0
SETUP=1
NP=2
WAIT_IDLE=0
GOAL=mpi
PP_ARGS=()
BW_ARGS=()

usage() {
  cat <<EOF
usage: bench/compare-mpi.sh [options]
  --baselines-only   measure only Debian's MPICH and Open MPI (ours not needed)
  --repeats N        runs per MPI and program, interleaved (default $REPEATS)
  --stat median|best statistic over the runs (default $STAT; best = lowest
                     latency / highest bandwidth)
  --quick            fewer iterations (a smoke run, not for the record)
  --bind             bind ranks to cores in all three MPIs (default: no binding)
  --timeout S        limit for one run, seconds (default $TIMEOUT)
  --wait-idle S      before each round, wait up to S seconds for the CPUs to
                     be idle (< 10% busy over 1 s): for a shared, noisy machine
  --goal mpi|shm     the verdict: mpi (issue 2, default) or shm (issue 22 §1:
                     8 B latency <= Open MPI's and Debian MPICH's, bandwidth
                     >= the better peer's at every size from 64 KiB)
  --pingpong-args A  extra arguments for pingpong (one string, split on spaces)
  --bandwidth-args A extra arguments for bandwidth
  --no-setup         do not call scripts/setup-deps.sh for missing baselines
  -h, --help         this text
Environment: MULTIDEV_PREFIX (default ./_install), BENCH_WORK (default
./_work/bench); MULTIDEV_* variables reach our ranks through mpiexec.
Exit status: 0 goals met (or --baselines-only), 1 a goal missed,
2 usage or set-up error, 3 a run failed or data is missing.
EOF
}

die() { echo "compare-mpi: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --baselines-only) BASELINES_ONLY=1 ;;
    --repeats) REPEATS=${2:?}; shift ;;
    --stat) STAT=${2:?}; shift ;;
    --quick) PP_ARGS+=(--iters 2000 --warmup 200); BW_ARGS+=(--iters 40 --warmup 4) ;;
    --bind) BIND=1 ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --wait-idle) WAIT_IDLE=${2:?}; shift ;;
    --goal) GOAL=${2:?}; shift ;;
    --pingpong-args) read -r -a a <<<"${2:?}"; PP_ARGS+=("${a[@]}"); shift ;;
    --bandwidth-args) read -r -a a <<<"${2:?}"; BW_ARGS+=("${a[@]}"); shift ;;
    --no-setup) SETUP=0 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || die "--repeats wants a positive number"
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a positive number of seconds"
[[ "$WAIT_IDLE" =~ ^[0-9]+$ ]] || die "--wait-idle wants a number of seconds"
[ "$STAT" = median ] || [ "$STAT" = best ] || die "--stat is median or best"
[ "$GOAL" = mpi ] || [ "$GOAL" = shm ] || die "--goal is mpi or shm"
command -v python3 >/dev/null || die "python3 is needed for the report (scripts/setup-deps.sh)"

# --- the three MPIs -----------------------------------------------------------
# shellcheck source=bench/mpi-common.sh
. "$BENCH/mpi-common.sh"
# shellcheck source=bench/plot-common.sh
. "$BENCH/plot-common.sh"

MPIS=()
if [ "$BASELINES_ONLY" -eq 0 ]; then
  if bench_mpi_available ours; then
    MPIS+=(ours)
  else
    cat >&2 <<EOT
compare-mpi: our MPICH is not installed: $PREFIX/bin/mpicc and
$PREFIX/bin/mpiexec are missing.  Build it first (see doc/hacking.md and
mpich/build-mpich.sh), or run with --baselines-only to measure only Debian's
MPICH and Open MPI.
EOT
    exit 2
  fi
fi

if ! bench_mpi_available mpich || ! bench_mpi_available openmpi; then
  if [ "$SETUP" -eq 1 ]; then
    echo "compare-mpi: Debian's MPI packages missing; running scripts/setup-deps.sh" >&2
    "$ROOT/scripts/setup-deps.sh"
  fi
fi
bench_mpi_available mpich ||
  die "Debian's MPICH is missing (packages mpich, libmpich-dev: scripts/setup-deps.sh)"
bench_mpi_available openmpi ||
  die "Debian's Open MPI is missing (packages openmpi-bin, libopenmpi-dev: scripts/setup-deps.sh)"
MPIS+=(mpich openmpi)

# --- build ----------------------------------------------------------------------
for m in "${MPIS[@]}"; do
  bench_build "$m" "$WORK/$m" || die "building the benchmarks with $m failed"
done

# --- run, interleaved -----------------------------------------------------------
RESULTS="$WORK/results/$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$RESULTS"
echo "compare-mpi: ${MPIS[*]} on $NP ranks, $REPEATS run(s) each, $(nproc) cores;" \
     "raw outputs in $RESULTS"
if [ "$WAIT_IDLE" -eq 0 ]; then bench_check_idle; fi
BENCH_FAILED=0

n=${#MPIS[@]}
for ((r = 1; r <= REPEATS; r++)); do
  # Rotate the order every round so no MPI always runs first or last.
  order=()
  for ((i = 0; i < n; i++)); do order+=("${MPIS[$(((i + r - 1) % n))]}"); done
  if [ "$WAIT_IDLE" -gt 0 ]; then bench_wait_idle "$WAIT_IDLE" || true; fi
  for p in pingpong bandwidth; do
    for m in "${order[@]}"; do
      bench_mpi_launch "$m" "$NP"
      if [ "$p" = pingpong ]; then
        bench_run "$m" "$p" "$r" "${LAUNCH[@]}" "$WORK/$m/$p" ${PP_ARGS[@]+"${PP_ARGS[@]}"}
      else
        bench_run "$m" "$p" "$r" "${LAUNCH[@]}" "$WORK/$m/$p" ${BW_ARGS[@]+"${BW_ARGS[@]}"}
      fi
      printf '.'
    done
  done
done
echo

for m in "${MPIS[@]}"; do
  lib=$(grep -h -m1 '^# library:' "$RESULTS/$m.pingpong.1.txt" 2>/dev/null | cut -c12- || true)
  printf '%-8s %s\n' "$m" "${lib:-(no output)}"
done

set +e
IFS=,
python3 "$BENCH/compare_report.py" --goal "$GOAL" --series "$RESULTS" "$RESULTS" "$STAT" "${MPIS[*]}" |
  tee "$RESULTS/report.txt"
status=${PIPESTATUS[0]}
unset IFS
set -e
# the two tables as plots beside them
bench_plot "$RESULTS/pingpong.tsv" "$RESULTS/pingpong.png" --logy \
  --ylabel "us, half round trip ($STAT of $REPEATS)" --title "pingpong latency, $NP ranks"
bench_plot "$RESULTS/bandwidth.tsv" "$RESULTS/bandwidth.png" --logy \
  --ylabel "MB/s ($STAT of $REPEATS)" --title "streaming bandwidth, $NP ranks"
bench_plots_done compare-mpi
if [ "$BENCH_FAILED" -eq 1 ] && [ "$status" -lt 3 ]; then status=3; fi
exit "$status"
