#!/usr/bin/env bash
# Several networks at once (issue 22 §2): a stream between two emulated
# nodes joined by myri, sci and via, with the timing models on so that each
# rail is bound by its modelled link (myri hplam, sci d310, via clan), over
# each network alone and striped over all three (mdconfig's rails line:
# once with the weights of the networks' paper bandwidths, once with the
# bandwidths each network alone delivered in a calibration run), at
# a few message sizes (--sizes; the rails carry messages of 64 KiB and
# more, smaller ones take one network), interleaved and repeated.  Prints
# each one's MB/s per size, the sum of the three single rails and the
# striped stream's ratio to that sum (goal, at the largest size: at least
# 0.85), and draws them against size: RESULTS/bandwidth.png beside its
# series bandwidth.tsv (RESULTS: BENCH_WORK/stripe/results).  Then the cut:
# a checked striped stream (bandwidth --check: every byte of every message
# verified) during which the firmware of one rail (--cut NET; default the
# rail of the largest weight that does not carry the small messages' route)
# is killed on the sending node; the stream must finish on the other rails,
# with no error and every byte right.
#
#   bench/stripe.sh [--repeats N] [--sizes LIST (default 16k,64k,256k,1m,4m)]
#                   [--mib N (each run moves N MiB, default 256)]
#                   [--no-cut] [--cut-only] [--cut NET]
#
# Needs scripts/build.sh first (MPICH under _install).  See doc/benchmarks.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${BENCH_WORK:-$ROOT/_work/bench}/stripe
REPEATS=3 MIB=256 WINDOW=4 TIMEOUT=120 CUT=1 SPEED=1 SIZES=16k,64k,256k,1m,4m cut_dev=
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) REPEATS=${2:?}; shift ;;
    --mib) MIB=${2:?}; shift ;;
    --sizes) SIZES=${2:?}; shift ;;
    --no-cut) CUT=0 ;;
    --cut-only) SPEED=0 ;;
    --cut) cut_dev=${2:?}; shift ;;
    -h|--help) sed -n "2,26p" "$0"; exit 0 ;;
    *) echo "stripe.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
IFS=, read -r -a size_list <<<"$SIZES"
[[ "$MIB" =~ ^[1-9][0-9]*$ ]] || { echo "stripe.sh: --mib wants a count of MiB, not '$MIB'" >&2; exit 2; }
for sz in "${size_list[@]}"; do
  [[ "$sz" =~ ^[1-9][0-9]*[kKmM]?$ ]] ||
    { echo "stripe.sh: --sizes wants sizes like 64k,1m,4m, not '$sz'" >&2; exit 2; }
done
. "$BENCH/mpi-common.sh"
# shellcheck source=bench/plot-common.sh
. "$BENCH/plot-common.sh"
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
  bench_plots_done stripe
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
# and mdconfig's files for it in $WORK/NAME.conf.  A network's bandwidth is
# its paper's (net_line), or MBS[net] where that is set.
declare -A MBS=()
configure() {
  local name=$1 desc="$WORK/$1.net" n
  shift
  { echo "multidev-network 1"; echo "node a b slots=1"
    for n in "$@"; do
      if [ -n "${MBS[$n]:-}" ]; then net_line "$n" | sed "s/bandwidth=[^ ]*/bandwidth=${MBS[$n]}MB\/s/"
      else net_line "$n"; fi
      echo "link ${n}0 a b"
    done; } >"$desc"
  rm -rf "$WORK/$name.conf"
  "$PREFIX/bin/mdconfig" -o "$WORK/$name.conf" "$desc" >/dev/null
  [ "$#" -lt 2 ] || grep -q '^rails b ' "$WORK/$name.conf/a.conf" ||
    { echo "stripe.sh: mdconfig wrote no rails line for a-b ($WORK/$name.conf/a.conf)" >&2; exit 2; }
}

SETUPS=(myri sci via rails)
for s in myri sci via; do configure "$s" "$s"; done
configure rails myri sci via

# launch_cmd CONF: sets L to the command that runs a program as two ranks,
# on emulated nodes a and b, with CONF's node files and the timing models on.
launch_cmd() {
  L=(env NODES="a b" MULTIDEV_CONFIG="$WORK/$1.conf" MULTIDEV_NIC_RUNDIR="$rundir"
     MULTIDEV_MYRI_TIMING=hplam MULTIDEV_SCI_TIMING=d310 MULTIDEV_VIA_TIMING=clan
     "$ROOT/test/mpi/launch-nodes.sh" 2)
}

# bytes SIZE: SIZE (64k, 4m, 100) in bytes.
bytes() {
  case "$1" in
    *[kK]) echo $(( ${1%?} * 1024 )) ;;
    *[mM]) echo $(( ${1%?} * 1048576 )) ;;
    *) echo "$1" ;;
  esac
}

# iters_for SIZE: bandwidth's --iters for windows that move MIB MiB at
# SIZE.  bandwidth scales --iters by 8 KiB / size above 8 KiB with a floor
# of iters / 10 windows (bench_scale_iters), so past 80 KiB the floor
# counts: 10 x the windows wanted.
iters_for() {
  local b windows
  b=$(bytes "$1")
  windows=$(( MIB * 1048576 / (WINDOW * b) ))
  [ "$windows" -ge 4 ] || windows=4
  if [ "$b" -le 8192 ]; then echo "$windows"
  elif [ "$b" -le 81920 ]; then echo $(( windows * b / 8192 ))
  else echo $(( windows * 10 )); fi
}

# stream SETUP SIZE REPEAT: one run of the stream; its MB/s in RESULTS.
stream() {
  launch_cmd "$1"
  bench_run "$1" "bandwidth-$2" "$3" "${L[@]}" "$WORK/build/bandwidth" --size "$2" \
    --iters "$(iters_for "$2")" --warmup 1 --window "$WINDOW"
}

if [ "$SPEED" = 1 ]; then
  bench_check_idle
  # Calibration: each network alone once at the largest size; what it
  # delivers becomes its bandwidth in a second rails description
  # ("rails-cal"), whose weights are then what the rails deliver rather
  # than their papers' link rates.
  big=${size_list[$((${#size_list[@]} - 1))]}
  for s in myri sci via; do
    stream "$s" "$big" cal
    MBS[$s]=$(awk '!/^#/ && NF == 2 { printf "%.0f", $2 }' "$RESULTS/$s.bandwidth-$big.cal.txt" 2>/dev/null || true)
    [ -n "${MBS[$s]}" ] && [ "${MBS[$s]}" -gt 0 ] ||
      { echo "stripe.sh: the calibration run of $s gave no bandwidth" >&2; exit 3; }
    rm -f "$RESULTS/$s.bandwidth-$big.cal.txt"
  done
  configure rails-cal myri sci via
  SETUPS+=(rails-cal)
  echo "calibration at $big: myri ${MBS[myri]}, sci ${MBS[sci]}, via ${MBS[via]} MB/s alone"
  for ((r = 1; r <= REPEATS; r++)); do
    for sz in "${size_list[@]}"; do
      for s in "${SETUPS[@]}"; do stream "$s" "$sz" "$r"; done
      printf '.'
    done
  done
  echo
  # the median per setup and size ("setup size MB/s"), then the table and
  # its series (bench/plot.py: label, size, MB/s) with the sum of the three
  for s in "${SETUPS[@]}"; do
    for f in "$RESULTS/$s".bandwidth-*.txt; do
      if [ -e "$f" ]; then awk -v s="$s" '!/^#/ && NF == 2 { print s, $1, $2 }' "$f"; fi
    done
  done | sort -k1,1 -k2,2n -k3,3g |
    awk '{ k = $1 " " $2; if (k != last && last != "") { print last, v[int((n + 1) / 2)]; n = 0 }
           last = k; v[++n] = $3 }
         END { if (last != "") print last, v[int((n + 1) / 2)] }' >"$RESULTS/medians.txt"
  echo "stream a->b, timing models on (myri hplam, sci d310, via clan), median of $REPEATS, MB/s:"
  status=0
  awk -v tsv="$RESULTS/bandwidth.tsv" '
    function size_str(b) { return b >= 1048576 ? b / 1048576 " MiB" : b / 1024 " KiB" }
    { mbs[$1, $2] = $3; if (!($2 in seen)) { seen[$2] = 1; sizes[++ns] = $2 } }
    END {
      nrows = split("myri sci via sum rails rails-cal", rows, " ")
      name["myri"] = "myri alone"; name["sci"] = "sci alone"; name["via"] = "via alone"
      name["sum"] = "sum of the three"; name["rails"] = "striped, paper weights"
      name["rails-cal"] = "striped, measured weights"
      for (i = 1; i <= ns; i++) {
        z = sizes[i]
        if ((("myri", z) in mbs) && (("sci", z) in mbs) && (("via", z) in mbs))
          mbs["sum", z] = mbs["myri", z] + mbs["sci", z] + mbs["via", z]
      }
      printf "  %-24s", ""
      for (i = 1; i <= ns; i++) printf " %9s", size_str(sizes[i])
      printf "\n"
      for (j = 1; j <= nrows; j++) {
        printf "  %-24s", name[rows[j]]
        for (i = 1; i <= ns; i++) {
          z = sizes[i]
          if ((rows[j], z) in mbs) {
            printf " %9.1f", mbs[rows[j], z]
            printf "%s\t%d\t%.2f\n", name[rows[j]], z, mbs[rows[j], z] > tsv
          } else printf " %9s", "-"
        }
        printf "\n"
      }
      for (k = 5; k <= nrows; k++) {
        printf "  %-24s", rows[k] == "rails" ? "  paper / sum" : "  measured / sum"
        for (i = 1; i <= ns; i++) {
          z = sizes[i]
          if (((rows[k], z) in mbs) && mbs["sum", z] > 0) printf " %9.3f", mbs[rows[k], z] / mbs["sum", z]
          else printf " %9s", "-"
        }
        printf "\n"
      }
      z = sizes[ns]
      if (ns == 0 || !(mbs["sum", z] > 0)) { print "  striped / sum: MISSING DATA"; exit 3 }
      for (k = 5; k <= nrows; k++) {
        if (!((rows[k], z) in mbs)) { print "  striped / sum: MISSING DATA"; exit 3 }
        ratio = mbs[rows[k], z] / mbs["sum", z]
        printf "  at %s, %s: striped / sum = %.3f (goal >= 0.85): %s\n", size_str(z),
               name[rows[k]], ratio, (ratio >= 0.85) ? "met" : "NOT met"
      }
    }' "$RESULTS/medians.txt" || status=$?
  echo "  rails line, paper weights:    $(grep '^rails b ' "$WORK/rails.conf/a.conf")"
  echo "  rails line, measured weights: $(grep '^rails b ' "$WORK/rails-cal.conf/a.conf")"
  bench_plot "$RESULTS/bandwidth.tsv" "$RESULTS/bandwidth.png" \
    --ylabel "MB/s (median of $REPEATS)" \
    --title "stripe: a->b over each network alone, their sum, and striped (timing models on)"
  [ "$status" -ne 3 ] || BENCH_FAILED=1
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
MULTIDEV_NIC_FIRMWARE=nicd MULTIDEV_LOG_LEVEL=info "${L[@]}" "$WORK/build/bandwidth" --check --size 4m --iters "$(MIB=320 iters_for 4m)" --warmup 0 --window "$WINDOW" \
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
