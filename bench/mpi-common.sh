# shellcheck shell=bash
# Sourced by the bench/*.sh scripts: how to build and launch the benchmark
# programs with each MPI.  Expects ROOT, BENCH, PREFIX; BIND (0/1) optional.
#
#   ours     MPICH --with-device=multi under $PREFIX (default ./_install)
#   mpich    Debian's MPICH 4.0.2 (ch4:ucx): mpicc.mpich / mpiexec.mpich
#   openmpi  Debian's Open MPI 4.1.4: mpicc.openmpi / mpiexec.openmpi

# bench_mpi_cc NAME: prints the compiler wrapper of one MPI.
bench_mpi_cc() {
  case "$1" in
    ours) echo "$PREFIX/bin/mpicc" ;;
    mpich) echo mpicc.mpich ;;
    openmpi) echo mpicc.openmpi ;;
    *) return 1 ;;
  esac
}

# bench_mpi_available NAME: true when that MPI's wrapper and launcher exist.
bench_mpi_available() {
  case "$1" in
    ours) [ -x "$PREFIX/bin/mpicc" ] && [ -x "$PREFIX/bin/mpiexec" ] ;;
    mpich) command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null ;;
    openmpi) command -v mpicc.openmpi >/dev/null && command -v mpiexec.openmpi >/dev/null ;;
    *) return 1 ;;
  esac
}

# bench_mpi_launch NAME NP: sets the array LAUNCH to the launcher command.
#   ours, mpich: MPICH's hydra.  It does not bind by default, and needs no
#     special environment as root or on 2 cores (Debian's MPICH is ch4:ucx;
#     UCX picks its shared-memory transports by itself).
#   openmpi: refuses to run as root without --allow-run-as-root (or the two
#     OMPI_ALLOW_RUN_AS_ROOT* variables, exported below); binds to cores by
#     default, so --bind-to none matches hydra; pml ob1 with the self and
#     vader (shared memory) BTLs is its on-node fast path and keeps it from
#     probing for network hardware; --oversubscribe lets it start more ranks
#     than cores (added only then).
bench_mpi_launch() {
  local bind=${BIND:-0}
  case "$1" in
    ours)
      LAUNCH=("$PREFIX/bin/mpiexec" -n "$2")
      if [ "$bind" -eq 1 ]; then LAUNCH+=(-bind-to core); fi ;;
    mpich)
      LAUNCH=(mpiexec.mpich -n "$2")
      if [ "$bind" -eq 1 ]; then LAUNCH+=(-bind-to core); fi ;;
    openmpi)
      LAUNCH=(mpiexec.openmpi -n "$2" --mca pml ob1 --mca btl "self,vader")
      # Only when needed: oversubscribed, Open MPI yields in its progress loop.
      if [ "$2" -gt "$(nproc)" ]; then LAUNCH+=(--oversubscribe); fi
      if [ "$(id -u)" -eq 0 ]; then LAUNCH+=(--allow-run-as-root); fi
      if [ "$bind" -eq 1 ]; then LAUNCH+=(--bind-to core); else LAUNCH+=(--bind-to none); fi ;;
    *) return 1 ;;
  esac
}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# bench_build NAME DIR: builds pingpong and bandwidth with that MPI into DIR.
bench_build() {
  local cc p
  cc=$(bench_mpi_cc "$1") || return 1
  mkdir -p "$2" || return 1
  for p in pingpong bandwidth; do
    # Built aside and renamed: another run may be executing the old binary.
    if ! "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra \
         -o "$2/$p.tmp.$$" "$BENCH/$p.c" "$BENCH/bench_util.c" "$BENCH/bench_pair.c" ||
       ! mv -f "$2/$p.tmp.$$" "$2/$p"; then
      rm -f "$2/$p.tmp.$$"
      echo "bench: building $p with $cc failed" >&2
      return 1
    fi
  done
}

# bench_launch_cmd MPI NP: sets LAUNCH for NP ranks -- through the --launcher
# script LAUNCHER when one is given (called as LAUNCHER NP PROGRAM ARGS...,
# e.g. test/mpi/launch-nodes.sh for emulated nodes), else bench_mpi_launch.
# With BIND=1 a launcher over hydra (ours, mpich) gets -bind-to core through
# MPIEXEC_ARGS, which test/mpi/launch-nodes.sh passes on: hydra binds rank r
# to core r mod cores, and a rank's threads (progress thread, NIC firmware)
# inherit it.
bench_launch_cmd() {
  if [ -n "${LAUNCHER:-}" ]; then
    LAUNCH=("$LAUNCHER" "$2")
    if [ "${BIND:-0}" -eq 1 ] && [ "$1" != openmpi ]; then
      export MPIEXEC_ARGS="${MPIEXEC_ARGS:+$MPIEXEC_ARGS }-bind-to core"
    fi
  else
    bench_mpi_launch "$1" "$2"
  fi
}

# bench_run LABEL PROG REP COMMAND...: runs one measurement, bounded by
# TIMEOUT seconds, stdout to $RESULTS/LABEL.PROG.REP.txt (renamed *.failed
# on failure, with stderr shown); sets BENCH_FAILED=1 on failure.
bench_run() {
  local label=$1 prog=$2 rep=$3
  shift 3
  local out="$RESULTS/$label.$prog.$rep.txt" err="$RESULTS/$label.$prog.$rep.err"
  echo "+ $*" >"$err"
  if ! timeout --kill-after=10 "${TIMEOUT:-300}" "$@" >"$out" 2>>"$err" </dev/null; then
    echo "bench: run $rep of $prog ($label) FAILED (exit status or ${TIMEOUT:-300}s timeout):" >&2
    tail -n 20 "$err" >&2
    mv "$out" "$out.failed"
    BENCH_FAILED=1
  fi
}

# bench_busy_percent: how busy the CPUs are (0-100), sampled over one second.
bench_busy_percent() {
  local a b busy total
  read -r -a a < <(head -n1 /proc/stat)
  sleep 1
  read -r -a b < <(head -n1 /proc/stat)
  # fields: cpu user nice system idle iowait irq softirq steal ...
  total=$(( (b[1]+b[2]+b[3]+b[4]+b[5]+b[6]+b[7]+b[8]) - (a[1]+a[2]+a[3]+a[4]+a[5]+a[6]+a[7]+a[8]) ))
  busy=$(( total - (b[4] - a[4]) - (b[5] - a[5]) ))
  if [ "$total" -gt 0 ]; then echo $((100 * busy / total)); else echo 0; fi
}

# bench_check_idle: warns when other work is using the CPUs (the benchmark
# ranks busy-poll; any other process on the 2 cores skews the numbers).
bench_check_idle() {
  local busy
  busy=$(bench_busy_percent)
  if [ "$busy" -ge 10 ]; then
    echo "bench: WARNING: the machine is ${busy}% busy with other work before the runs;" \
         "numbers will be noisy (more --repeats, --stat best or --wait-idle help)" >&2
  fi
}

# bench_wait_idle SECONDS: waits until the CPUs are less than 10% busy over
# one second, for at most SECONDS; false (with a warning) if they never were.
bench_wait_idle() {
  local deadline=$((SECONDS + $1)) busy
  while :; do
    busy=$(bench_busy_percent)
    [ "$busy" -lt 10 ] && return 0
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "bench: WARNING: still ${busy}% busy after waiting $1 s; measuring anyway" >&2
      return 1
    fi
  done
}
