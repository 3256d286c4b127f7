#!/usr/bin/env bash
# bench/fwd-rate.sh - the message rate of small forwarded messages against
# the direct hop (issue 21), for one or two builds of libmultidev, side by
# side in one run.
#
#   bench/fwd-rate.sh [--old LIBDIR] [--repeats N] [--iters N] [--size B] [--window W] [--bind]
#
# Over examples/relay-3node.net (a -myri- b -sci- c, ranks 0 1 2 on a b c)
# it streams SIZE-byte messages (bench/bandwidth, a window of W) from rank
# 0 to rank 1 (the direct hop a-b) and from rank 0 to rank 2 (forwarded by
# b), N rounds, every round both pairs and both builds in turn, and prints
# the median, least and most MB/s of each, the messages a second of the
# medians and forwarded/direct.  The new build is the prefix's
# (_install, or MULTIDEV_PREFIX); --old LIBDIR is another build's
# installed lib directory (libmultidev.so.* and multidev/ with its
# modules), run under the same MPICH through LD_LIBRARY_PATH (libmpi's
# RUNPATH gives way to it) and MULTIDEV_MODULE_PATH, e.g. a copy of
# _install/lib made before a change.  --bind binds rank r to core r mod
# cores (hydra's -bind-to core, as bench/route.sh does by default: the
# relay gets a core of its own); unbound by default, as the MPICH suite
# runs.  Every run is bounded (--timeout, default 300 s); the raw lines
# are printed as they come.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${BENCH_WORK:-$ROOT/_work/bench}
OLD='' REPEATS=5 ITERS=4000 SIZE=8 WINDOW=64 TIMEOUT=300

die() { echo "fwd-rate: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --old) OLD=${2:?}; shift ;;
    --repeats) REPEATS=${2:?}; shift ;;
    --iters) ITERS=${2:?}; shift ;;
    --size) SIZE=${2:?}; shift ;;
    --window) WINDOW=${2:?}; shift ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --bind) export MPIEXEC_ARGS="${MPIEXEC_ARGS:+$MPIEXEC_ARGS }-bind-to core" ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (--help)" ;;
  esac
  shift
done
[ -z "$OLD" ] || [ -d "$OLD/multidev" ] || die "--old $OLD: no multidev/ module directory there"

# shellcheck source=bench/mpi-common.sh
. "$BENCH/mpi-common.sh"
bench_mpi_available ours || die "no MPICH in $PREFIX (mpich/build-mpich.sh)"
bench_build ours "$WORK/ours" || die "building the benchmarks failed"
conf=$(mktemp -d "${TMPDIR:-/tmp}/fwd-rate-conf.XXXXXX")
rundir=$(mktemp -d /dev/shm/fwd-rate-XXXXXX)
trap 'rm -rf "$conf" "$rundir"' EXIT
"$PREFIX/bin/mdconfig" "$ROOT/examples/relay-3node.net" -o "$conf" >/dev/null ||
  die "mdconfig failed on examples/relay-3node.net"

builds=(new)
[ -z "$OLD" ] || builds=(old new)
results=()
for ((r = 1; r <= REPEATS; r++)); do
  for b in "${builds[@]}"; do
    for pair in 0,1 0,2; do
      libs=()
      [ "$b" = new ] || libs=(LD_LIBRARY_PATH="$OLD" MULTIDEV_MODULE_PATH="$OLD/multidev")
      out=$(env ${libs[@]+"${libs[@]}"} NODES="a b c" MULTIDEV_CONFIG="$conf" \
              MULTIDEV_NIC_RUNDIR="$rundir/$b.$r.$pair" MULTIDEV_PREFIX="$PREFIX" \
              timeout "$TIMEOUT" "$ROOT/test/mpi/launch-nodes.sh" 3 "$WORK/ours/bandwidth" \
              --pair "$pair" --window "$WINDOW" --min-size "$SIZE" --max-size "$SIZE" \
              --iters "$ITERS" 2>&1) || { echo "$out" | tail -5 >&2; die "$b $pair failed"; }
      mbs=$(echo "$out" | awk -v s="$SIZE" '$1 == s { print $2 }')
      [ -n "$mbs" ] || die "$b $pair printed no $SIZE-byte line"
      line="$b $pair $mbs $(cut -d' ' -f1 /proc/loadavg)"
      echo "round $r: $line (MB/s, load)"
      results+=("$line")
    done
  done
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
size = int(sys.argv[1])
runs = {}
for line in sys.stdin:
    b, pair, mbs, _ = line.split()
    runs.setdefault((b, pair), []).append(float(mbs))
med = {k: statistics.median(v) for k, v in runs.items()}
print("build pair      MB/s median (least-most)   msgs/s median")
for (b, pair), v in sorted(runs.items()):
    print("%-5s %-4s %10.2f (%.2f-%.2f) %14.0f" % (b, pair, med[(b, pair)], min(v), max(v),
                                                   med[(b, pair)] * 1e6 / size))
for b in sorted({b for b, _ in runs}):
    print("%s: forwarded/direct %.2f" % (b, med[(b, "0,2")] / med[(b, "0,1")]))
if ("old", "0,2") in med:
    print("forwarded new/old %.2f" % (med[("new", "0,2")] / med[("old", "0,2")]))
' "$SIZE"
