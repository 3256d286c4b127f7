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
[ "$STAT" = median ] || [ "$STAT" = best ] || die "--stat is median or best"
command -v python3 >/dev/null || die "python3 is needed for the report (scripts/setup-deps.sh)"

# --- the three MPIs -----------------------------------------------------------
MPIS=()
if [ "$BASELINES_ONLY" -eq 0 ]; then
  if [ -x "$PREFIX/bin/mpicc" ] && [ -x "$PREFIX/bin/mpiexec" ]; then
    MPIS+=(ours)
  else
    cat >&2 <<EOF
compare-mpi: our MPICH is not installed: $PREFIX/bin/mpicc and
$PREFIX/bin/mpiexec are missing.  Build it first (see doc/hacking.md and
mpich/build-mpich.sh), or run with --baselines-only to measure only Debian's
MPICH and Open MPI.
EOF
    exit 2
  fi
fi

if ! command -v mpicc.mpich >/dev/null || ! command -v mpicc.openmpi >/dev/null; then
  if [ "$SETUP" -eq 1 ]; then
    echo "compare-mpi: Debian's MPI packages missing; running scripts/setup-deps.sh" >&2
    "$ROOT/scripts/setup-deps.sh"
  fi
fi
if ! command -v mpicc.mpich >/dev/null || ! command -v mpiexec.mpich >/dev/null; then
  die "Debian's MPICH is missing (packages mpich, libmpich-dev: scripts/setup-deps.sh)"
fi
if ! command -v mpicc.openmpi >/dev/null || ! command -v mpiexec.openmpi >/dev/null; then
  die "Debian's Open MPI is missing (packages openmpi-bin, libopenmpi-dev: scripts/setup-deps.sh)"
fi
MPIS+=(mpich openmpi)

# mpi_cc NAME: the compiler wrapper of one MPI.
mpi_cc() {
  case "$1" in
    ours) echo "$PREFIX/bin/mpicc" ;;
    mpich) echo mpicc.mpich ;;
    openmpi) echo mpicc.openmpi ;;
  esac
}

# mpi_launch NAME: fills LAUNCH with the launcher command for $NP ranks.
#   ours, mpich: MPICH's hydra; it does not bind by default and needs no
#     special environment as root or on 2 cores (Debian's MPICH is ch4:ucx;
#     UCX picks its shared-memory transports by itself).
#   openmpi: refuses to run as root without --allow-run-as-root (or the two
#     OMPI_ALLOW_RUN_AS_ROOT* variables, set below); binds to cores by default,
#     so --bind-to none makes it match hydra; pml ob1 with the self and vader
#     (shared memory) BTLs is its fastest on-node path and keeps it from
#     probing for network hardware.
mpi_launch() {
  case "$1" in
    ours)
      LAUNCH=("$PREFIX/bin/mpiexec" -n "$NP")
      if [ "$BIND" -eq 1 ]; then LAUNCH+=(-bind-to core); fi ;;
    mpich)
      LAUNCH=(mpiexec.mpich -n "$NP")
      if [ "$BIND" -eq 1 ]; then LAUNCH+=(-bind-to core); fi ;;
    openmpi)
      LAUNCH=(mpiexec.openmpi -n "$NP" --mca pml ob1 --mca btl "self,vader")
      if [ "$(id -u)" -eq 0 ]; then LAUNCH+=(--allow-run-as-root); fi
      if [ "$BIND" -eq 1 ]; then LAUNCH+=(--bind-to core); else LAUNCH+=(--bind-to none); fi ;;
  esac
}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# --- build ----------------------------------------------------------------------
for m in "${MPIS[@]}"; do
  mkdir -p "$WORK/$m"
  for p in pingpong bandwidth; do
    "$(mpi_cc "$m")" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra \
      -o "$WORK/$m/$p" "$BENCH/$p.c" "$BENCH/bench_util.c" ||
      die "building $p with $(mpi_cc "$m") failed"
  done
done

# --- run, interleaved -----------------------------------------------------------
RESULTS="$WORK/results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$RESULTS"
echo "compare-mpi: ${MPIS[*]} on $NP ranks, $REPEATS run(s) each, $(nproc) cores;" \
     "raw outputs in $RESULTS"
FAILED=0

run_one() { # run_one MPI PROG REP ARGS...
  local m=$1 p=$2 r=$3; shift 3
  local out="$RESULTS/$m.$p.$r.txt" err="$RESULTS/$m.$p.$r.err"
  mpi_launch "$m"
  if ! timeout --kill-after=10 "$TIMEOUT" "${LAUNCH[@]}" "$WORK/$m/$p" "$@" >"$out" 2>"$err"
  then
    echo "compare-mpi: run $r of $p with $m FAILED (exit or timeout ${TIMEOUT}s); stderr:" >&2
    tail -n 20 "$err" >&2
    mv "$out" "$out.failed"
    FAILED=1
  fi
}

n=${#MPIS[@]}
for ((r = 1; r <= REPEATS; r++)); do
  # Rotate the order every round so no MPI always runs first or last.
  order=()
  for ((i = 0; i < n; i++)); do order+=("${MPIS[$(((i + r - 1) % n))]}"); done
  for p in pingpong bandwidth; do
    for m in "${order[@]}"; do
      if [ "$p" = pingpong ]; then
        run_one "$m" "$p" "$r" ${PP_ARGS[@]+"${PP_ARGS[@]}"}
      else
        run_one "$m" "$p" "$r" ${BW_ARGS[@]+"${BW_ARGS[@]}"}
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
python3 "$BENCH/compare_report.py" "$RESULTS" "$STAT" "${MPIS[*]}" | tee "$RESULTS/report.txt"
status=${PIPESTATUS[0]}
unset IFS
set -e
if [ "$FAILED" -eq 1 ] && [ "$status" -lt 3 ]; then status=3; fi
exit "$status"
