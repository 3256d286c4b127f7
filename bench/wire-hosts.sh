#!/usr/bin/env bash
# bench/wire-hosts.sh - issue 19's benchmark: the wire between two hosts, at
# link speed and under loss.  See doc/benchmarks.md.
#
# Makes two namespace hosts h1, h2 (test/cluster/nshosts.sh) joined by a
# management network (mgmt0: hydra) and a data link (wire0), both with the
# link MTU given (--mtu, 1500 and 9000 by default), and in one run:
#
#  speed  bench/pingpong (2 ranks, one per host, half round trip, 8 B to
#         4 MiB) over each emulated network (myri, via, sci: one network
#         description each, its subnet= the data link's; timing models off)
#         and Debian's MPICH (ch4:ucx, UCX's tcp transport on wire0), the
#         runs interleaved and repeated; a table per MTU with the ratios
#         and the issue's goals: 8 B latency <= 1.2x Debian's MPICH, 4 MiB
#         bandwidth >= 0.8x.
#  loss   per emulated network, a checked ping-pong (every byte verified)
#         from 0 B to 4 MiB, without loss and then with LOSS% of the UDP
#         packets that reach each host on wire0 dropped by nftables (both
#         ways); the time of its timed loops with / without; goal <= 2x.
#         Each run is bounded (--loss-timeout): "did not finish in N s".
#
# Everything it makes (the cluster's namespaces and their nft tables, its
# work directory) is removed at the end, on failure and on Ctrl-C.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/bench
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
NSHOSTS=$ROOT/test/cluster/nshosts.sh
NSSSH=$ROOT/test/cluster/ns-ssh

MTUS=1500,9000
NETS=myri,via,sci
REPEATS=3
STAT=median
TIMEOUT=300             # one speed run, seconds
LOSS=5                  # percent of the UDP packets dropped, each way
LOSS_MTU=""             # the MTU of the loss part (default: the first of --mtu)
LOSS_TIMEOUT=300        # one loss run, seconds
PEER_TIMEOUT=""         # the firmwares' peer timeouts in the loss part, ms (default: theirs)
ITERS=10000; WARMUP=1000            # speed: pingpong's iterations (<= 8 KiB)
LOSS_ITERS=200; LOSS_WARMUP=10      # loss: the checked ping-pong's
DO_SPEED=1
DO_LOSS=1
OPENMPI=1
SETUP=1
KEEP=""

usage() {
  cat <<EOF
usage: bench/wire-hosts.sh [options]
  --mtu LIST          link MTUs, comma-separated (default $MTUS)
  --nets LIST         emulated networks among myri,via,sci (default $NETS)
  --quick             fewer iterations (pingpong --iters 1000, loss --iters 50), one round
  --repeats N         rounds of the speed part, interleaved (default $REPEATS)
  --stat median|best  statistic over the rounds (default $STAT; best = lowest latency)
  --no-loss           the speed part only
  --loss-only         the loss part only
  --loss PERCENT      packets dropped each way in the loss part (default $LOSS)
  --loss-mtu M        link MTU of the loss part (default: the first of --mtu)
  --loss-timeout S    limit of one loss run, seconds (default $LOSS_TIMEOUT)
  --peer-timeout MS   the firmwares' peer timeouts in the loss part (MULTIDEV_{MYRI,VIA,
                      SCI}_PEER_TIMEOUT_MS, MULTIDEV_SCI_TIMEOUT_MS; default: theirs, 10 s),
                      to see how slow a run under loss is rather than whether it fails
  --timeout S         limit of one speed run, seconds (default $TIMEOUT)
  --no-openmpi        leave out Debian's Open MPI (tcp BTL on wire0; optional baseline)
  --keep DIR          keep the raw outputs in DIR (default: removed)
  --no-setup          do not call scripts/setup-deps.sh for missing packages
  -h, --help          this text
Needs root (namespaces), our build (scripts/build.sh), Debian's mpich, nft and
ethtool (scripts/setup-deps.sh installs them).  Environment: MULTIDEV_PREFIX
(default ./_install); MULTIDEV_* variables reach our ranks.
Exit status: 0 goals met, 1 a goal missed, 2 usage or set-up error, 3 a run
failed (or did not finish in time).
EOF
}

die() { echo "wire-hosts: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --mtu) MTUS=${2:?--mtu wants a list}; shift ;;
    --nets) NETS=${2:?--nets wants a list}; shift ;;
    --quick) ITERS=1000; WARMUP=50; LOSS_ITERS=50; LOSS_WARMUP=2; REPEATS=1 ;;
    --repeats) REPEATS=${2:?}; shift ;;
    --stat) STAT=${2:?}; shift ;;
    --no-loss) DO_LOSS=0 ;;
    --loss-only) DO_SPEED=0 ;;
    --loss) LOSS=${2:?}; shift ;;
    --loss-mtu) LOSS_MTU=${2:?}; shift ;;
    --loss-timeout) LOSS_TIMEOUT=${2:?}; shift ;;
    --peer-timeout) PEER_TIMEOUT=${2:?}; shift ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --no-openmpi) OPENMPI=0 ;;
    --keep) KEEP=${2:?}; shift ;;
    --no-setup) SETUP=0 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
IFS=, read -r -a mtu_list <<<"$MTUS"
IFS=, read -r -a net_list <<<"$NETS"
for m in "${mtu_list[@]}"; do
  [[ "$m" =~ ^[0-9]+$ ]] && [ "$m" -ge 576 ] && [ "$m" -le 65535 ] || die "--mtu: 576..65535, not '$m'"
done
for n in "${net_list[@]}"; do
  case "$n" in myri|via|sci) ;; *) die "--nets: myri, via or sci, not '$n'" ;; esac
done
[ ${#net_list[@]} -gt 0 ] || die "--nets: at least one network"
LOSS_MTU=${LOSS_MTU:-${mtu_list[0]}}
[[ "$LOSS_MTU" =~ ^[0-9]+$ ]] && [ "$LOSS_MTU" -ge 576 ] && [ "$LOSS_MTU" -le 65535 ] ||
  die "--loss-mtu: 576..65535, not '$LOSS_MTU'"
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || die "--repeats wants a positive number"
[ "$STAT" = median ] || [ "$STAT" = best ] || die "--stat is median or best"
[[ "$LOSS" =~ ^[0-9]+$ ]] && [ "$LOSS" -le 100 ] || die "--loss: 0..100 percent"
for v in "$TIMEOUT" "$LOSS_TIMEOUT"; do [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "timeouts are seconds > 0"; done
[ -z "$PEER_TIMEOUT" ] || [[ "$PEER_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--peer-timeout: milliseconds > 0"
[ "$DO_SPEED" -eq 1 ] || [ "$DO_LOSS" -eq 1 ] || die "--loss-only and --no-loss: nothing to do"

# ---------------------------------------------------------------- set-up

[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, nftables)"
# shellcheck source=bench/mpi-common.sh
. "$BENCH/mpi-common.sh"
# shellcheck source=bench/plot-common.sh
. "$BENCH/plot-common.sh"
for f in mpicc mpiexec mdconfig; do
  [ -x "$PREFIX/bin/$f" ] || die "build first (scripts/build.sh): no $f in $PREFIX/bin"
done
need_pkgs() {
  command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null || return 1
  command -v nft >/dev/null && command -v ethtool >/dev/null || return 1
}
if ! need_pkgs && [ "$SETUP" -eq 1 ]; then
  echo "wire-hosts: packages missing (mpich, nftables, ethtool); running scripts/setup-deps.sh" >&2
  "$ROOT/scripts/setup-deps.sh" || die "scripts/setup-deps.sh failed"
fi
need_pkgs || die "missing: Debian's mpich (mpicc.mpich, mpiexec.mpich), nft or ethtool" \
                 "(packages mpich libmpich-dev nftables ethtool; scripts/setup-deps.sh)"
command -v python3 >/dev/null || die "python3 is needed for the report"
if [ "$OPENMPI" -eq 1 ] && ! bench_mpi_available openmpi; then
  echo "wire-hosts: Debian's Open MPI is missing (openmpi-bin, libopenmpi-dev): left out" >&2
  OPENMPI=0
fi

WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}/wire-hosts.$$
CLUSTER=wh$$
export MD_CLUSTER=$CLUSTER
CLUSTER_UP=0
JOB=""                  # the timeout process of the run in progress

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$JOB" ]; then kill "$JOB" 2>/dev/null; wait "$JOB" 2>/dev/null; fi
  # down ends every process of the hosts (ranks, nicd daemons, proxies);
  # their network namespaces, with the nft tables, go with them
  if [ "$CLUSTER_UP" -eq 1 ]; then "$NSHOSTS" down "$CLUSTER" >/dev/null || rc=3; fi
  if [ -n "$KEEP" ] && [ -d "$WORK/results" ]; then
    mkdir -p "$KEEP" && cp -r "$WORK/results/." "$KEEP/" && echo "wire-hosts: raw outputs in $KEEP"
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "wire-hosts: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM

mkdir -p "$WORK/results" || die "cannot make $WORK"
RESULTS=$WORK/results

# Programs: pingpong with our MPICH and with Debian's (bench/mpi-common.sh).
bench_build ours "$WORK/ours" >/dev/null || die "building pingpong with our mpicc failed"
bench_build mpich "$WORK/mpich" >/dev/null || die "building pingpong with mpicc.mpich failed"
if [ "$OPENMPI" -eq 1 ]; then
  bench_build openmpi "$WORK/openmpi" >/dev/null || die "building pingpong with mpicc.openmpi failed"
fi

# One description per emulated network: the two hosts on it, its frames on
# the data link (subnet=).  mdconfig writes h1.conf and h2.conf.
MGMT_NET=10.78.0.0/24
WIRE_NET=10.78.1.0/24
for n in "${net_list[@]}"; do
  case "$n" in
    myri) attrs="latency=10us bandwidth=120MB/s"; topo="switch myri0 sw0 h1 h2" ;;
    via) attrs="latency=8us bandwidth=100MB/s"; topo="link via0 h1 h2" ;;
    sci) attrs="latency=8us bandwidth=76MB/s"; topo="ring sci0 r0 h1 h2" ;;
  esac
  mkdir -p "$WORK/conf/$n"
  cat >"$WORK/conf/$n.net" <<EOF
multidev-network 1
# bench/wire-hosts.sh: two namespace hosts, one emulated network on wire0
forward no
node h1 slots=1
node h2 slots=1
network ${n}0 type=$n $attrs subnet=$WIRE_NET
$topo
EOF
  "$PREFIX/bin/mdconfig" "$WORK/conf/$n.net" -o "$WORK/conf/$n" >/dev/null ||
    die "mdconfig failed on the description of $n ($WORK/conf/$n.net)"
done

# ---------------------------------------------------------------- cluster

cluster_up() {
  "$NSHOSTS" up "$CLUSTER" --hosts h1,h2 --net "mgmt0:$MGMT_NET" --net "wire0:$WIRE_NET" \
    --mtu "$1" >/dev/null || die "nshosts.sh up failed (MTU $1)"
  CLUSTER_UP=1
  CUR_MTU=$1
}
cluster_down() {
  "$NSHOSTS" down "$CLUSTER" >/dev/null || die "nshosts.sh down failed"
  CLUSTER_UP=0
}
in_host() { local h=$1; shift; "$NSHOSTS" exec "$CLUSTER" "$h" "$@"; }
wire_rx() { in_host h2 cat /sys/class/net/wire0/statistics/rx_bytes 2>/dev/null || echo 0; }

# launch LABEL PROGRAM-ARGS...: sets CMD, the job run in h1 (hydra's mpiexec,
# its proxy on h2 started through ns-ssh), one rank per host.
HYDRA=(-hosts h1,h2 -launcher ssh -launcher-exec "$NSSSH" -n 2)
OURS_ENV=()             # more environment for our ranks (the loss part's peer timeouts)
launch() {
  local label=$1; shift
  case "$label" in
    myri|via|sci)
      CMD=(env MULTIDEV_CONFIG="$WORK/conf/$label" MULTIDEV_MYRI_TIMING=off
           MULTIDEV_VIA_TIMING=off MULTIDEV_SCI_TIMING=off ${OURS_ENV[@]+"${OURS_ENV[@]}"}
           "$PREFIX/bin/mpiexec" "${HYDRA[@]}" "$WORK/ours/pingpong" "$@") ;;
    mpich)
      # Debian's MPICH is ch4:ucx: UCX's tcp transport, on wire0 only.
      CMD=(env UCX_TLS=tcp,self UCX_NET_DEVICES=wire0
           mpiexec.mpich "${HYDRA[@]}" "$WORK/mpich/pingpong" "$@") ;;
    openmpi)
      # orted on h2 through ns-ssh; the BTL tcp on wire0, its runtime on mgmt0.
      CMD=(mpiexec.openmpi --allow-run-as-root --host h1,h2 -n 2 --bind-to none
           --mca plm_rsh_agent "$NSSSH" --mca pml ob1 --mca btl tcp,self
           --mca btl_tcp_if_include wire0 --mca oob_tcp_if_include mgmt0
           "$WORK/openmpi/pingpong" "$@") ;;
  esac
}

# run OUT LIMIT LABEL ARGS...: one job, bounded by LIMIT seconds, stdout to
# OUT, stderr to OUT.err, the bytes h2 received on wire0 to OUT.wire;
# RUN_RC is its status.  Waited for in the background, so that Ctrl-C ends
# it at once.
run() {
  local out=$1 limit=$2 label=$3 rx0 rx1 t0; shift 3
  launch "$label" "$@"
  rx0=$(wire_rx)
  t0=$(date +%s.%N)
  echo "+ ${CMD[*]}" >"$out.err"
  timeout --kill-after=10 "$limit" "$NSHOSTS" exec "$CLUSTER" h1 "${CMD[@]}" \
    >"$out" 2>>"$out.err" </dev/null &
  JOB=$!
  wait "$JOB"
  RUN_RC=$?
  JOB=""
  rx1=$(wire_rx)
  echo "$((rx1 - rx0))" >"$out.wire"
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", b - a }' >"$out.wall"
}
# after_run: a job that failed may have left processes in the hosts; the
# cluster is made again (with no loss).
after_run() {
  if [ "$RUN_RC" -ne 0 ]; then
    cluster_down
    cluster_up "$CUR_MTU"
  fi
}

# ---------------------------------------------------------------- speed

STATUS=0
FAILED_RUNS=0
report_status() { if [ "$1" -gt "$STATUS" ]; then STATUS=$1; fi; }

speed() {
  local mtu=$1 dir=$RESULTS/speed-mtu$1 r i label out n
  local -a labels=("${net_list[@]}" mpich)
  [ "$OPENMPI" -eq 0 ] || labels+=(openmpi)
  n=${#labels[@]}
  mkdir -p "$dir"
  printf 'wire-hosts: MTU %s, speed: %s; %d round(s), pingpong --iters %s --warmup %s ' \
    "$mtu" "${labels[*]}" "$REPEATS" "$ITERS" "$WARMUP"
  for ((r = 1; r <= REPEATS; r++)); do
    for ((i = 0; i < n; i++)); do
      # the order rotates from round to round: no one always runs first
      label=${labels[$(((i + r - 1) % n))]}
      out=$dir/$label.pingpong.$r.txt
      run "$out" "$TIMEOUT" "$label" --min-size 8 --max-size 4M --iters "$ITERS" --warmup "$WARMUP"
      if [ "$RUN_RC" -ne 0 ]; then
        echo
        if [ "$RUN_RC" -eq 124 ] || [ "$RUN_RC" -eq 137 ]; then
          echo "wire-hosts: $label (MTU $mtu, round $r) did not finish in $TIMEOUT s" >&2
        else
          echo "wire-hosts: $label (MTU $mtu, round $r) failed with status $RUN_RC:" >&2
        fi
        grep -v '^+ ' "$out.err" | tail -n 8 | sed 's/^/    | /' >&2
        mv "$out" "$out.failed"
        FAILED_RUNS=$((FAILED_RUNS + 1))
      fi
      after_run
      printf '.'
    done
  done
  echo
  python3 -B "$BENCH/wire_hosts_report.py" speed "$dir" "$STAT" "$(IFS=,; echo "${labels[*]}")" "$mtu"
  report_status $?
  plot_speed "$dir" "$mtu"
}

# The speed table as plots that outlive the work directory, each beside its
# series: _work/wire-hosts-plots/mtuN.png (half round trip) and
# mtuN-bandwidth.png (size / half round trip).
plot_speed() {
  local from=$1 mtu=$2 dir=${MULTIDEV_WORK_DIR:-$ROOT/_work}/wire-hosts-plots
  local title="two hosts, link MTU $mtu: ours (per network) against Debian's MPIs over TCP"
  [ -s "$from/pingpong.tsv" ] || return 0
  mkdir -p "$dir" && cp "$from/pingpong.tsv" "$dir/mtu$mtu.tsv" &&
    cp "$from/bandwidth.tsv" "$dir/mtu$mtu-bandwidth.tsv" ||
    { echo "wire-hosts: cannot copy the series into $dir (the table stands)" >&2; return 0; }
  bench_plot "$dir/mtu$mtu.tsv" "$dir/mtu$mtu.png" --logy \
    --ylabel "us, half round trip ($STAT of $REPEATS)" --title "$title"
  bench_plot "$dir/mtu$mtu-bandwidth.tsv" "$dir/mtu$mtu-bandwidth.png" --logy \
    --ylabel "MB/s = size / half round trip ($STAT of $REPEATS)" --title "$title"
}

# ---------------------------------------------------------------- loss

loss() {
  local mtu=$1 dir=$RESULTS/loss-mtu$1 n h
  local -a args=(--check --min-size 0 --max-size 4M --iters "$LOSS_ITERS" --warmup "$LOSS_WARMUP")
  mkdir -p "$dir"
  if [ -n "$PEER_TIMEOUT" ]; then
    OURS_ENV=(MULTIDEV_MYRI_PEER_TIMEOUT_MS="$PEER_TIMEOUT" MULTIDEV_VIA_PEER_TIMEOUT_MS="$PEER_TIMEOUT"
              MULTIDEV_SCI_PEER_TIMEOUT_MS="$PEER_TIMEOUT" MULTIDEV_SCI_TIMEOUT_MS="$PEER_TIMEOUT")
    echo "wire-hosts: loss part with the firmwares' peer timeouts at $PEER_TIMEOUT ms"
  fi
  echo "wire-hosts: MTU $mtu, loss: checked pingpong 0 B..4 MiB --iters $LOSS_ITERS" \
       "--warmup $LOSS_WARMUP, without loss then with $LOSS% dropped each way;" \
       "each run at most $LOSS_TIMEOUT s"
  for n in "${net_list[@]}"; do
    printf '  %s: without loss ' "$n"
    run "$dir/$n.clean.txt" "$LOSS_TIMEOUT" "$n" "${args[@]}"
    echo "$RUN_RC" >"$dir/$n.clean.rc"
    after_run
    printf '(status %s), with loss ' "$RUN_RC"
    for h in h1 h2; do "$NSHOSTS" loss "$CLUSTER" "$h" wire0 "$LOSS" || die "nshosts.sh loss failed"; done
    run "$dir/$n.loss.txt" "$LOSS_TIMEOUT" "$n" "${args[@]}"
    echo "$RUN_RC" >"$dir/$n.loss.rc"
    for h in h1 h2; do
      echo "$h $("$NSHOSTS" loss "$CLUSTER" "$h" wire0 show)"
      "$NSHOSTS" loss "$CLUSTER" "$h" wire0 0 || die "nshosts.sh loss failed"
    done >"$dir/$n.drops"
    after_run
    echo "(status $RUN_RC)"
  done
  OURS_ENV=()
  python3 -B "$BENCH/wire_hosts_report.py" loss "$dir" "$(IFS=,; echo "${net_list[*]}")" "$mtu" \
    "$LOSS" "$LOSS_ITERS" "$LOSS_TIMEOUT"
  report_status $?
}

# ---------------------------------------------------------------- main

echo "wire-hosts: hosts h1, h2 (cluster $CLUSTER): mgmt0 $MGMT_NET (hydra), wire0 $WIRE_NET" \
     "(the data); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$(bench_busy_percent)" -ge 10 ]; then
  echo "wire-hosts: WARNING: the CPUs are busy with other work; numbers will be noisy" >&2
fi
mtus_run=()
if [ "$DO_SPEED" -eq 1 ]; then mtus_run=("${mtu_list[@]}"); fi
if [ "$DO_LOSS" -eq 1 ] && [[ " ${mtus_run[*]} " != *" $LOSS_MTU "* ]]; then mtus_run+=("$LOSS_MTU"); fi
for mtu in "${mtus_run[@]}"; do
  cluster_up "$mtu"
  if [ "$DO_SPEED" -eq 1 ] && [[ ",$MTUS," == *",$mtu,"* ]]; then speed "$mtu"; fi
  if [ "$DO_LOSS" -eq 1 ] && [ "$mtu" = "$LOSS_MTU" ]; then loss "$mtu"; fi
  cluster_down
done
if [ "$FAILED_RUNS" -gt 0 ]; then
  echo "wire-hosts: $FAILED_RUNS speed run(s) failed or did not finish (see above)"
  report_status 3
fi
bench_plots_done wire-hosts
exit "$STATUS"
