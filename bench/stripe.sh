#!/usr/bin/env bash
# Several networks at once (issue 22 §2): a 4 MiB stream between two
# emulated nodes joined by myri, sci and via, with the timing models on so
# that each rail is bound by its modelled link (myri hplam, sci d310, via
# clan), over each network alone and striped over all three (mdconfig's
# rails line), interleaved and repeated.  Prints each one's MB/s, the sum of
# the three single rails, and the striped stream's ratio to that sum (goal:
# at least 0.85).  Then the cut: a checked striped stream (bandwidth
# --check: every byte of every message verified) during which the firmware
# of one rail (--cut NET; default the rail of the largest weight that does
# not carry the small messages' route) is killed on the sending node; the
# stream must finish on the other rails, with no error and every byte right.
#
#   bench/stripe.sh [--repeats N] [--iters N (scaled by 64 KiB / 4 MiB: 1280 is 20 windows)] [--no-cut] [--cut-only] [--cut NET]
#
# Needs scripts/build.sh first (MPICH under _install).  See doc/benchmarks.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${BENCH_WORK:-$ROOT/_work/bench}/stripe
REPEATS=3 ITERS=1280 WINDOW=4 TIMEOUT=120 CUT=1 SPEED=1 cut_dev=
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) REPEATS=${2:?}; shift ;;
    --iters) ITERS=${2:?}; shift ;;
    --no-cut) CUT=0 ;;
    --cut-only) SPEED=0 ;;
    --cut) cut_dev=${2:?}; shift ;;
    -h|--help) sed -n "2,16p" "$0"; exit 0 ;;
    *) echo "stripe.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
. "$BENCH/mpi-common.sh"
bench_mpi_available ours && [ -x "$PREFIX/bin/mdconfig" ] ||
  { echo "stripe.sh: build first (scripts/build.sh)" >&2; exit 2; }

mkdir -p "$WORK"
bench_build ours "$WORK/build" || exit 2
RESULTS="$WORK/results"
rm -rf "$RESULTS" && mkdir -p "$RESULTS"
rundir=$(mktemp -d /dev/shm/md-stripe-XXXXXX)
job_pid=
cleanup() {
  [ -z "$job_pid" ] || kill "$job_pid" 2>/dev/null || true
  rm -rf "$rundir"
}
trap cleanup EXIT

# The three networks with their modelled peaks (what the weights come
# from): HP-LAM's 80 MB/s link (P2), the D310's 76 MB/s (P6), cLAN's
# 93.5 MB/s (P6).
net_line() {
  case "$1" in
    myri) echo "network myri0 type=myri latency=9us bandwidth=80MB/s" ;;
    sci)  echo "network sci0 type=sci latency=8us bandwidth=76MB/s" ;;
    via)  echo "network via0 type=via latency=14us bandwidth=93.5MB/s" ;;
  esac
}

# configure NAME NETS...: a description of nodes a and b joined by NETS,
# and mdconfig's files for it in $WORK/NAME.conf.
configure() {
  local name=$1 desc="$WORK/$1.net" n
  shift
  { echo "multidev-network 1"; echo "node a b slots=1"
    for n in "$@"; do net_line "$n"; echo "link ${n}0 a b"; done; } >"$desc"
  rm -rf "$WORK/$name.conf"
  "$PREFIX/bin/mdconfig" -o "$WORK/$name.conf" "$desc" >/dev/null
}

SETUPS=(myri sci via rails)
for s in myri sci via; do configure "$s" "$s"; done
configure rails myri sci via
grep -q '^rails b ' "$WORK/rails.conf/a.conf" ||
  { echo "stripe.sh: mdconfig wrote no rails line for a-b ($WORK/rails.conf/a.conf)" >&2; exit 2; }

# launch_cmd CONF: sets L to the command that runs a program as two ranks,
# on emulated nodes a and b, with CONF's node files and the timing models on.
launch_cmd() {
  L=(env NODES="a b" MULTIDEV_CONFIG="$WORK/$1.conf" MULTIDEV_NIC_RUNDIR="$rundir"
     MULTIDEV_MYRI_TIMING=hplam MULTIDEV_SCI_TIMING=d310 MULTIDEV_VIA_TIMING=clan
     "$ROOT/test/mpi/launch-nodes.sh" 2)
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }

if [ "$SPEED" = 1 ]; then
  bench_check_idle
  for ((r = 1; r <= REPEATS; r++)); do
    for s in "${SETUPS[@]}"; do
      launch_cmd "$s"
      bench_run "$s" bandwidth "$r" "${L[@]}" "$WORK/build/bandwidth" --size 4m \
        --iters "$ITERS" --warmup 1 --window "$WINDOW"
    done
  done
  declare -A mbs
  for s in "${SETUPS[@]}"; do
    mbs[$s]=$(cat "$RESULTS/$s".bandwidth.*.txt 2>/dev/null | awk '!/^#/ && NF == 2 { print $2 }' | median)
  done
  sum=$(awk -v a="${mbs[myri]}" -v b="${mbs[sci]}" -v c="${mbs[via]}" 'BEGIN { printf "%.1f", a + b + c }')
  echo
  echo "4 MiB stream a->b, timing models on (myri hplam, sci d310, via clan), median of $REPEATS, MB/s:"
  printf '  %-22s %8s\n' "myri alone" "${mbs[myri]}" "sci alone" "${mbs[sci]}" "via alone" "${mbs[via]}" \
    "sum of the three" "$sum" "striped over all three" "${mbs[rails]}"
  awk -v r="${mbs[rails]}" -v s="$sum" 'BEGIN {
    ratio = s > 0 ? r / s : 0
    verdict = (ratio >= 0.85) ? "met" : "NOT met"
    printf "  striped / sum = %.3f (goal >= 0.85): %s\n", ratio, verdict }'
  echo "  rails line: $(grep '^rails b ' "$WORK/rails.conf/a.conf")"
fi

[ "$CUT" = 1 ] || exit "${BENCH_FAILED:-0}"

# The rail to cut: --cut NET, or the first of the rails line (the largest
# weight) that does not carry the route of small messages (the stream's
# acknowledgements: a message already handed to the lost subdevice fails
# with it, doc/multidevice.md).
conf_a="$WORK/rails.conf/a.conf"
small_dev=$(awk '$1 == "route" && $2 == "b" && $3 == 0 { print $5 }' "$conf_a")
for d in $(grep '^rails b ' "$conf_a" | tr ' ' '\n' | sed -n 's/=.*//p'); do
  [ -n "$cut_dev" ] && break
  [ "$d" = "$small_dev" ] || cut_dev=$d
done
[ -n "$cut_dev" ] || { echo "stripe.sh: no rail to cut" >&2; exit 2; }
out="$RESULTS/cut.txt" err="$RESULTS/cut.err"
echo
echo "cut: a checked striped stream (4 MiB messages, every byte verified); ${cut_dev}'s firmware on node a is killed mid-stream"
t0=$(date +%s.%N)
launch_cmd rails
# the firmwares in processes of their own (nicd), so that one can be killed
MULTIDEV_NIC_FIRMWARE=nicd MULTIDEV_LOG_LEVEL=info "${L[@]}" "$WORK/build/bandwidth" --check --size 4m --iters 80 --warmup 0 --window "$WINDOW" \
  >"$out" 2>"$err" </dev/null &
job_pid=$!
fw=
for _ in $(seq 100); do      # the stream runs once the firmwares are up
  fw=$(pgrep -f -- "--node a --nic [^ ]+ --pers $cut_dev --ready-fd 3 --rundir $rundir" | head -1 || true)
  [ -n "$fw" ] && break
  sleep 0.1
done
sleep 1.5
if [ -z "$fw" ] || ! kill -0 "$job_pid" 2>/dev/null; then
  echo "  FAILED: the stream was not running with a $cut_dev firmware on a to kill" >&2
  cat "$err" >&2
  exit 1
fi
kill -KILL "$fw"
t_cut=$(date +%s.%N)
rc=0
if timeout "$TIMEOUT" tail --pid="$job_pid" -f /dev/null; then
  wait "$job_pid" || rc=$?
else
  rc=124                      # it hangs: ended here (our own job, by its PID)
  kill "$job_pid" 2>/dev/null || true
  wait "$job_pid" 2>/dev/null || true
fi
job_pid=
t1=$(date +%s.%N)
mb=$(awk '!/^#/ && NF == 2 { print $2 }' "$out")
awk -v a="$t0" -v c="$t_cut" -v b="$t1" 'BEGIN { printf "  killed %.1f s into the stream, which ended %.1f s later\n", c - a, b - c }'
if [ "$rc" -eq 0 ] && [ -n "$mb" ]; then
  echo "  the stream finished: every byte verified, $mb MB/s over the whole run (320 MiB)"
  { grep -hE "rail .* is lost|now go over|says rail" "$err" || true; } | head -6 | sed 's/^/  log: /'
else
  echo "  FAILED: exit status $rc" >&2
  tail -20 "$err" >&2
  exit 1
fi
exit "${BENCH_FAILED:-0}"
