#!/usr/bin/env bash
# What a wake-up costs, per way a message arrives (issue 21: blocked waiting
# that never loses a wake-up).  An 8-byte ping-pong over each path, run
# twice, interleaved: with the ranks awake (MULTIDEV_IDLE=spin: they poll
# all the time) and asleep (MULTIDEV_IDLE=block with no spin and no yield
# time: each receive sleeps and every message must wake its receiver).  The
# difference is the price of one wake-up; the "late" column counts the
# sleeps that ran to their bound (MULTIDEV_IDLE_SLEEP_MS) while work was
# waiting -- lost wake-ups, which must be 0 (MULTIDEV_STATS).
#
#   bench/wakeup.sh [--repeats N] [--iters N] [PATH ...]
#
# Paths: shm (two ranks of one node), myri, via, sci (two emulated nodes, the
# in-process firmware and the progress thread between wire and rank), relay
# (a-c forwarded through b over myri and sci: examples/relay-3node.net).
# Needs scripts/build.sh first (MPICH under _install).  See doc/benchmarks.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${BENCH_WORK:-$ROOT/_work/bench}/wakeup
REPEATS=3 ITERS=2000 TIMEOUT=120
PATHS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) REPEATS=${2:?}; shift ;;
    --iters) ITERS=${2:?}; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "wakeup.sh: unknown option $1" >&2; exit 2 ;;
    *) PATHS+=("$1") ;;
  esac
  shift
done
[ ${#PATHS[@]} -gt 0 ] || PATHS=(shm myri via sci relay)
. "$BENCH/mpi-common.sh"
bench_mpi_available ours && [ -x "$PREFIX/bin/mdconfig" ] ||
  { echo "wakeup.sh: build first (scripts/build.sh)" >&2; exit 2; }

mkdir -p "$WORK"
bench_build ours "$WORK/build" || exit 2
rundir=$(mktemp -d /dev/shm/md-wakeup-XXXXXX)
trap 'rm -rf "$rundir"' EXIT

# describe PATH: writes PATH's network description; prints "NODES|PAIR".
describe() {
  local desc="$WORK/$1.net"
  case "$1" in
    shm)
      printf 'multidev-network 1\nnode a slots=2\n' >"$desc"
      echo "a a|0,1" ;;
    myri|via|sci)
      printf 'multidev-network 1\nnode a b slots=1\nnetwork n0 type=%s latency=10us bandwidth=100MB/s\nlink n0 a b\n' \
        "$1" >"$desc"
      echo "a b|0,1" ;;
    relay)
      cp "$ROOT/examples/relay-3node.net" "$desc"
      echo "a b c|0,2" ;;
    *) echo "wakeup.sh: no path '$1' (shm myri via sci relay)" >&2; return 1 ;;
  esac
}

# one_run PATH NODES PAIR MODE REP: half round trip (us) and late sleeps of
# one run.
one_run() {
  local path=$1 nodes=$2 pair=$3 mode=$4 rep=$5 np out lat late
  read -r -a n <<<"$nodes"
  np=${#n[@]}
  local -a env=(MULTIDEV_IDLE=spin)
  [ "$mode" = asleep ] &&
    env=(MULTIDEV_IDLE=block MULTIDEV_YIELD_US=0 MULTIDEV_SPIN_POLLS=0 MULTIDEV_STATS=1)
  out=$(env "${env[@]}" NODES="$nodes" MULTIDEV_CONFIG="$WORK/$path.conf" \
        MULTIDEV_NIC_RUNDIR="$rundir/$path.$mode.$rep" timeout "$TIMEOUT" \
        "$ROOT/test/mpi/launch-nodes.sh" "$np" "$WORK/build/pingpong" \
        --size 8 --iters "$ITERS" --warmup 100 --pair "$pair" 2>&1) ||
    { echo "wakeup.sh: $path ($mode) failed:" >&2; echo "$out" | tail -5 >&2; return 1; }
  lat=$(awk '/^8 / { print $2 }' <<<"$out")
  late=$(awk '/stats idle:/ { for (i = 1; i <= NF; i++) if ($i == "late") s += $(i - 3) } END { print s + 0 }' <<<"$out")
  echo "$lat $late"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "wakeup.sh: 8 B ping-pong, $ITERS iterations, median of $REPEATS interleaved runs; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %12s %12s %14s %6s\n' path "awake us" "asleep us" "wake-up us" late
status=0
for path in "${PATHS[@]}"; do
  spec=$(describe "$path") || exit 2
  IFS='|' read -r nodes pair <<<"$spec"
  "$PREFIX/bin/mdconfig" "$WORK/$path.net" -o "$WORK/$path.conf" >/dev/null ||
    { echo "wakeup.sh: mdconfig failed on $WORK/$path.net" >&2; exit 2; }
  awake=() asleep=() late=0
  for ((r = 1; r <= REPEATS; r++)); do
    read -r a _ < <(one_run "$path" "$nodes" "$pair" awake "$r") || { status=3; continue 2; }
    read -r s l < <(one_run "$path" "$nodes" "$pair" asleep "$r") || { status=3; continue 2; }
    awake+=("$a") asleep+=("$s") late=$((late + l))
  done
  ma=$(printf '%s\n' "${awake[@]}" | median)
  ms=$(printf '%s\n' "${asleep[@]}" | median)
  printf '%-6s %12.2f %12.2f %14.2f %6d\n' "$path" "$ma" "$ms" "$(awk -v s="$ms" -v a="$ma" 'BEGIN { print s - a }')" "$late"
  [ "$late" -eq 0 ] || status=1
done
[ "$status" -ne 1 ] || echo "wakeup.sh: LOST WAKE-UPS: a sleep ran to its bound while work was waiting" >&2
exit "$status"
