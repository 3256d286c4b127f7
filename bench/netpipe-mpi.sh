#!/usr/bin/env bash
# NetPIPE over shared memory, three MPIs side by side in one run: 2 ranks on
# this machine, ours (Debian's NPmpich2 run unmodified on our libmpich.so.12
# from _install/lib), Debian's MPICH (the same binary on its own library) and
# Debian's Open MPI (NPopenmpi, pml ob1 with the vader BTL), interleaved and
# repeated.  Prints per size the latency and the bandwidth (size / half round
# trip) with the ratios ours/mpich and ours/openmpi, and the verdict on issue
# 22 §1: 8 B latency at most Open MPI's (and Debian MPICH's); from 64 KiB on,
# bandwidth at least the better peer's at every size.  See doc/benchmarks.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${BENCH_WORK:-$ROOT/_work/bench}

REPEATS=5
STAT=median
TIMEOUT=300
MAX_SIZE=$((8 << 20))
WAIT_IDLE=0
SETUP=1
NP_ARGS=()

usage() {
  cat <<EOF
usage: bench/netpipe-mpi.sh [options]
  --repeats N        NetPIPE runs per MPI, interleaved (default $REPEATS)
  --stat median|best statistic over the runs (default $STAT)
  --max-size BYTES   NetPIPE's upper bound (default $MAX_SIZE)
  --quick            up to 1 MiB, 3 runs (a smoke run, not for the record)
  --bind             bind the ranks to cores in all three MPIs
  --timeout S        limit for one run, seconds (default $TIMEOUT)
  --wait-idle S      before each round, wait up to S seconds for idle CPUs
  --no-setup         do not install missing packages (scripts/setup-deps.sh)
  -h, --help         this text
Needs the packages netpipe-mpich2 and netpipe-openmpi (installed by
scripts/setup-deps.sh unless --no-setup).  Environment: MULTIDEV_PREFIX
(default ./_install), BENCH_WORK (default ./_work/bench).
Exit status: 0 goals met, 1 a goal missed, 2 usage or set-up error,
3 a run failed or data is missing.
EOF
}

die() { echo "netpipe-mpi: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) REPEATS=${2:?}; shift ;;
    --stat) STAT=${2:?}; shift ;;
    --max-size) MAX_SIZE=${2:?}; shift ;;
    --quick) REPEATS=3; MAX_SIZE=$((1 << 20)) ;;
    --bind) export BIND=1 ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --wait-idle) WAIT_IDLE=${2:?}; shift ;;
    --no-setup) SETUP=0 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || die "--repeats wants a positive number"
[[ "$MAX_SIZE" =~ ^[1-9][0-9]*$ ]] || die "--max-size wants a positive number of bytes"
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a positive number of seconds"
[[ "$WAIT_IDLE" =~ ^[0-9]+$ ]] || die "--wait-idle wants a number of seconds"
[ "$STAT" = median ] || [ "$STAT" = best ] || die "--stat is median or best"

# shellcheck source=bench/mpi-common.sh
. "$BENCH/mpi-common.sh"
# shellcheck source=bench/plot-common.sh
. "$BENCH/plot-common.sh"

bench_mpi_available ours ||
  die "our MPICH is not installed in $PREFIX (scripts/main-job.sh or mpich/build-mpich.sh)"
[ -e "$PREFIX/lib/libmpich.so.12" ] || die "$PREFIX/lib/libmpich.so.12 is missing"
if ! command -v NPmpich2 >/dev/null || ! command -v NPopenmpi >/dev/null ||
   ! bench_mpi_available mpich || ! bench_mpi_available openmpi; then
  [ "$SETUP" -eq 1 ] && "$ROOT/scripts/setup-deps.sh"
fi
command -v NPmpich2 >/dev/null || die "NPmpich2 is missing (package netpipe-mpich2)"
command -v NPopenmpi >/dev/null || die "NPopenmpi is missing (package netpipe-openmpi)"
bench_mpi_available mpich || die "Debian's MPICH is missing (package mpich)"
bench_mpi_available openmpi || die "Debian's Open MPI is missing (package openmpi-bin)"

MPIS=(ours mpich openmpi)
RESULTS="$WORK/results/netpipe-$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$RESULTS"
echo "netpipe-mpi: ${MPIS[*]}, 2 ranks, up to $MAX_SIZE bytes, $REPEATS run(s) each," \
     "$(nproc) cores; raw outputs in $RESULTS"
if [ "$WAIT_IDLE" -eq 0 ]; then bench_check_idle; fi
BENCH_FAILED=0

# netpipe_run MPI ROUND: one NetPIPE run; its output file (bytes, Mbps,
# seconds per half round trip) becomes the report's two series.
netpipe_run() {
  local m=$1 r=$2 np=NPmpich2 raw="$RESULTS/$1.$2.np" err="$RESULTS/$1.$2.err"
  local -a env=()
  bench_mpi_launch "$m" 2
  case "$m" in
    ours) env=(env "LD_LIBRARY_PATH=$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
    openmpi) np=NPopenmpi ;;
  esac
  echo "+ ${LAUNCH[*]} ${env[*]} $np -u $MAX_SIZE -p 0 -o $raw" >"$err"
  if ! (cd "$RESULTS" && timeout --kill-after=10 "$TIMEOUT" "${LAUNCH[@]}" ${env[@]+"${env[@]}"} \
          "$np" -u "$MAX_SIZE" -p 0 -o "$raw" >>"$err" 2>&1 </dev/null) || [ ! -s "$raw" ]; then
    echo "netpipe-mpi: run $r ($m) FAILED (exit status or ${TIMEOUT}s timeout):" >&2
    tail -n 20 "$err" >&2
    BENCH_FAILED=1
    return 0
  fi
  awk '{ printf "%d %.4f\n", $1, $3 * 1e6 }' "$raw" >"$RESULTS/$m.netpipe-lat.$r.txt"
  awk '{ printf "%d %.3f\n", $1, $2 / 1000 }' "$raw" >"$RESULTS/$m.netpipe-bw.$r.txt"
}

for ((r = 1; r <= REPEATS; r++)); do
  # rotate the order every round so no MPI always runs first or last
  if [ "$WAIT_IDLE" -gt 0 ]; then bench_wait_idle "$WAIT_IDLE" || true; fi
  for ((i = 0; i < ${#MPIS[@]}; i++)); do
    netpipe_run "${MPIS[$(((i + r - 1) % ${#MPIS[@]}))]}" "$r"
    printf '.'
  done
done
echo
# (grep -m1 may close the pipe before ldd is done: its SIGPIPE is no error)
for m in "${MPIS[@]}"; do
  case "$m" in
    ours) lib=$(LD_LIBRARY_PATH="$PREFIX/lib" ldd "$(command -v NPmpich2)" | grep -m1 libmpich) || true ;;
    mpich) lib=$(ldd "$(command -v NPmpich2)" | grep -m1 libmpich) || true ;;
    openmpi) lib=$(ldd "$(command -v NPopenmpi)" | grep -m1 libmpi) || true ;;
  esac
  printf '%-8s %s\n' "$m" "$(echo "$lib" | awk '{print $3}')"
done

set +e
IFS=,
python3 "$BENCH/compare_report.py" --goal shm --programs netpipe-lat,netpipe-bw \
  --series "$RESULTS" "$RESULTS" "$STAT" "${MPIS[*]}" | tee "$RESULTS/report.txt"
status=${PIPESTATUS[0]}
unset IFS
set -e
bench_plot "$RESULTS/netpipe-lat.tsv" "$RESULTS/latency.png" --logy \
  --ylabel "us, half round trip ($STAT of $REPEATS)" --title "NetPIPE latency, 2 ranks, one node"
bench_plot "$RESULTS/netpipe-bw.tsv" "$RESULTS/bandwidth.png" \
  --ylabel "Gb/s, size / half round trip ($STAT of $REPEATS)" \
  --title "NetPIPE bandwidth, 2 ranks, one node"
bench_plots_done netpipe-mpi
if [ "$BENCH_FAILED" -eq 1 ] && [ "$status" -lt 3 ]; then status=3; fi
exit "$status"
