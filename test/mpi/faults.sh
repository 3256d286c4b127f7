#!/usr/bin/env bash
# Failures are errors, never wrong answers (issue 18).  test/mpi/faults.c
# checks every result of a loop of MPI_Allreduce, MPI_Bcast, an RMA epoch
# (MPI_Put/MPI_Get between fences) and a point-to-point round trip, while
# one of these breaks the job under it (emulated nodes on this machine):
#
#   drop        every frame of every firmware is dropped
#               (MULTIDEV_NIC_FAULT_DROP=1): 4 ranks on 2 nodes over myri
#   kill-fw     node1's NIC firmware (its nicd) is killed mid-job
#   stop-fw     node1's nicd is stopped (SIGSTOP) for longer than the peer
#               timeout, then continued
#   kill-relay  relay-3node.net: a and c talk only through b; b's rank is
#               killed mid-job (the round trip is a forwarded one).  hydra
#               ends a job one of whose processes died by a signal at once:
#               the job must end so, with hydra's message naming it
#   stop-relay  the same, b's rank stopped for longer than the peer timeout
#               (then continued): a and c must find that their relay failed
#   stop-bcast  stop-relay with nothing but MPI_Bcast from each root in turn:
#               a receive from a root that failed is failed with the size
#               MPICH's binomial broadcast expects (MPICH 4.0.2 chains its
#               size-mismatch error onto the receive's into a cycle, and then
#               neither the error handler nor MPI_Error_string returns)
#   stop-brief  node1's nicd is stopped for half the peer timeout: a
#               stopped process is not a dead one; the job must finish, every
#               result right
#
# each with MPI_ERRORS_ARE_FATAL (the default) and with MPI_ERRORS_RETURN.
# Every run must end by itself within the fault's time plus the peer
# timeout (PEER_TIMEOUT_MS) plus BOUND_S (and the failed ranks' grace before
# MPI_Abort); no rank may report a wrong result; some rank must report the
# failure naming a rank and what failed (MPICH's message, or the error
# line of --errors-return, whose class must be MPIX_ERR_PROC_FAILED).
#
# Usage: test/mpi/faults.sh [drop|kill-fw|stop-fw|kill-relay|stop-relay|stop-bcast|stop-brief]...
#        (default: all)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}/faults
PEER_TIMEOUT_MS=3000
BOUND_S=10
GRACE_S=3
HARD_LIMIT_S=120        # the test's own stop, far beyond any bound
HANG_DUMP_S=${FAULTS_HANG_DUMP_S:-90}         # a job still running then is hung: its stacks are taken

[ -x "$PREFIX/bin/mpicc" ] && [ -x "$PREFIX/bin/mdconfig" ] && [ -x "$PREFIX/bin/nicctl" ] ||
  { echo "faults.sh: build first (scripts/build.sh)" >&2; exit 2; }
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(drop kill-fw stop-fw kill-relay stop-relay stop-bcast stop-brief)
mkdir -p "$WORK" || exit 2
"$PREFIX/bin/mpicc" -O2 -Wall -o "$WORK/faults" "$ROOT/test/mpi/faults.c" ||
  { echo "faults.sh: faults.c does not build" >&2; exit 2; }
for net in emulated-4node relay-3node; do
  rm -rf "$WORK/$net" && "$PREFIX/bin/mdconfig" "$ROOT/examples/$net.net" -o "$WORK/$net" >/dev/null ||
    { echo "faults.sh: mdconfig failed on $net.net" >&2; exit 2; }
done
rundirs=()
trap 'rm -rf "${rundirs[@]}"' EXIT
export MULTIDEV_MYRI_PEER_TIMEOUT_MS=$PEER_TIMEOUT_MS MULTIDEV_SCI_PEER_TIMEOUT_MS=$PEER_TIMEOUT_MS
export MULTIDEV_VIA_PEER_TIMEOUT_MS=$PEER_TIMEOUT_MS MULTIDEV_SCI_TIMEOUT_MS=$PEER_TIMEOUT_MS

# shellcheck source=test/mpi/hang-lib.sh
. "$ROOT/test/mpi/hang-lib.sh"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# wait_for OUT PATTERN PID: until OUT has a line matching PATTERN (60 s).
wait_for() {
  for ((t = 0; t < 600; t++)); do
    grep -q -E "$2" "$1" && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# nicd_pid RUNDIR NODE: the pid of NODE's myri firmware.
# Asked again for up to 5 s: under load one status request came back
# empty (run-tests.sh, load 4-5, 2026-11-28); what nicctl says the last
# time goes to stderr, into the job's report.
nicd_pid() {
  local p t
  for ((t = 0; t < 20; t++)); do
    p=$(MULTIDEV_NIC_RUNDIR=$1 "$PREFIX/bin/nicctl" status --node "$2" --nic myri0 2>/dev/null |
          awk '$1 == "node" && $7 == "pid" { print $8; exit }')
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.25
  done
  MULTIDEV_NIC_RUNDIR=$1 "$PREFIX/bin/nicctl" status --node "$2" --nic myri0 >&2
  return 1
}

# relay_pid OUT: the pid of b's rank (rank 2), from its first line.
relay_pid() {
  awk '/^faults: rank 2 on b pid/ { sub(/:$/, "", $7); print $7; exit }' "$1"
}

# run SCENARIO MODE: one job; returns non-zero if a check failed.
run() {
  local s=$1 mode=$2 out=$WORK/$1-$2.out rundir pid t0 t_fault t_end rc fail=0 limit pid2
  local -a args=(--iters 600 --grace "$GRACE_S") env=() nodes map conf np
  [ "$mode" = return ] && args+=(--errors-return)
  rundir=$(mktemp -d /dev/shm/md-faults-XXXXXX); rundirs+=("$rundir")
  case "$s" in
    *-relay|stop-bcast)
      conf=$WORK/relay-3node nodes="a c b" map=cyclic np=3
      if [ "$s" = stop-bcast ]; then args+=(--bcast-only); else args+=(--pair 1); fi ;;
    *)          conf=$WORK/emulated-4node nodes="node0 node1" map=block np=4 ;;
  esac
  # broken from the start, the window's creation (a collective inside MPICH)
  # would be the first to fail: the loop is what this is about
  [ "$s" = drop ] && env=(MULTIDEV_NIC_FAULT_DROP=1) && args+=(--no-rma)
  # emptied here, not by the job's redirection: that runs in the child, and
  # until it does wait_for would read the previous run's lines
  : >"$out"
  t0=$(now)
  env ${env[@]+"${env[@]}"} NODES="$nodes" NODE_MAP=$map MULTIDEV_CONFIG=$conf \
    MULTIDEV_NIC_RUNDIR="$rundir" timeout --kill-after=5 "$HARD_LIMIT_S" \
    "$ROOT/test/mpi/launch-nodes.sh" "$np" "$WORK/faults" "${args[@]}" >"$out" 2>&1 </dev/null &
  pid=$!
  t_fault=$t0
  if [ "$s" != drop ]; then
    if ! wait_for "$out" ': iteration 40$' "$pid"; then
      echo "FAIL  $s/$mode: the job did not get going"; kill "$pid" 2>/dev/null; wait "$pid"
      sed 's/^/      | /' "$out" | tail -15; return 1
    fi
    # hydra may forward the relay's "started" line after the others' later
    # lines: wait for it rather than read it once
    case "$s" in *-relay|stop-bcast) wait_for "$out" '^faults: rank 2 on b pid [0-9]+:' "$pid" ;; esac
    case "$s" in
      kill-fw)    pid2=$(nicd_pid "$rundir" node1); kill -KILL "$pid2" ;;
      stop-fw|stop-brief) pid2=$(nicd_pid "$rundir" node1); kill -STOP "$pid2" ;;
      kill-relay) pid2=$(relay_pid "$out"); kill -KILL "$pid2" ;;
      stop-relay|stop-bcast) pid2=$(relay_pid "$out"); kill -STOP "$pid2" ;;
    esac || { echo "FAIL  $s/$mode: could not break it (pid '${pid2:-}')"; fail=1; }
    t_fault=$(now)
    case "$s" in
      stop-fw|stop-relay|stop-bcast)
        sleep $((PEER_TIMEOUT_MS / 1000 + 3)); kill -CONT "$pid2" 2>/dev/null ;;
      stop-brief)
        sleep "$(awk -v t="$PEER_TIMEOUT_MS" 'BEGIN { print t / 2000 }')"; kill -CONT "$pid2" 2>/dev/null ;;
    esac
  fi
  # (HANG_DUMP_S counts from the job's start, as the hard limit does)
  rm -f "$WORK/$s-$mode.stacks"
  hang_watch "$pid" "$(awk -v d="$HANG_DUMP_S" -v a="$t0" -v b="$(now)" \
                         'BEGIN { l = int(d - (b - a)); print (l > 1 ? l : 1) }')" \
             "$WORK/$s-$mode.stacks" faults &
  local watcher=$!
  wait "$pid"; rc=$?
  kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
  if [ "$s" = stop-brief ]; then
    local done_n
    done_n=$(grep -c -E '^faults: rank [0-9]+ on [^:]+: done: 600 iterations, every result right' "$out")
    if [ "$rc" -eq 0 ] && [ "$done_n" -eq 4 ]; then
      echo "PASS  $s/$mode: stopped for $((PEER_TIMEOUT_MS / 2)) ms, less than the peer timeout: every rank finished, every result right"
      return 0
    fi
    echo "FAIL  $s/$mode: a brief stop failed the job (status $rc, $done_n of 4 ranks done):"
    sed 's/^/      | /' "$out" | tail -15
    return 1
  fi
  t_end=$(now)
  limit=$(awk -v t="$PEER_TIMEOUT_MS" -v b="$BOUND_S" -v g="$GRACE_S" \
              'BEGIN { print t / 1000 + b + g + ("'"$s"'" ~ /^stop-(fw|relay|bcast)$/ ? 3 : 0) }')
  if grep -q 'WRONG RESULT' "$out"; then
    echo "FAIL  $s/$mode: a rank computed a wrong result:"; grep 'WRONG RESULT' "$out" | sed 's/^/      | /'
    fail=1
  else
    echo "PASS  $s/$mode: no rank reported a wrong result"
  fi
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "FAIL  $s/$mode: the job hung (stopped after $HARD_LIMIT_S s); the output's end," \
         "then where its processes were:"
    sed 's/^/      | /' "$out" | tail -20
    sed 's/^/      | /' "$WORK/$s-$mode.stacks" 2>/dev/null | head -150
    fail=1
  elif awk -v e="$(secs "$t_fault" "$t_end")" -v l="$limit" 'BEGIN { exit !(e <= l) }'; then
    echo "PASS  $s/$mode: the job ended $(secs "$t_fault" "$t_end") s after the fault (limit $limit s), status $rc"
  else
    echo "FAIL  $s/$mode: the job ended only $(secs "$t_fault" "$t_end") s after the fault (limit $limit s)"
    fail=1
  fi
  [ "$rc" -ne 0 ] || { echo "FAIL  $s/$mode: the job succeeded although it was broken"; fail=1; }
  if [ "$s" = kill-relay ]; then
    # hydra ends the job at once: what matters is that it ends, saying why
    if grep -q -E 'BAD TERMINATION|KILLED BY SIGNAL' "$out"; then
      echo "PASS  $s/$mode: hydra ended the job, naming the killed process:" \
           "$(grep -m1 -o -E 'PID [0-9]+ RUNNING AT [^ ]+' "$out")"
    else
      echo "FAIL  $s/$mode: the job ended without saying that a process was killed"; fail=1
    fi
  elif [ "$mode" = return ]; then
    local lines classes
    lines=$(grep -E '^faults: rank [0-9]+ on [^:]+: error in' "$out")
    classes=$(sed -E 's/.* class ([A-Z_]+) .*/\1/' <<<"$lines" | sort | uniq -c | paste -sd' ')
    if [ -z "$lines" ]; then
      echo "FAIL  $s/$mode: no rank reported an error"; fail=1
    elif grep -v -q 'class MPIX_ERR_PROC_FAILED ' <<<"$lines"; then
      echo "FAIL  $s/$mode: an error of another class than MPIX_ERR_PROC_FAILED:"
      grep -v 'class MPIX_ERR_PROC_FAILED ' <<<"$lines" | sed 's/^/      | /'; fail=1
    else
      echo "PASS  $s/$mode: the ranks' error classes: $classes"
    fi
    sed 's/^/      | /' <<<"$lines" | cut -c1-230 | head -4
  else
    # MPICH's error path ran: its message, or the job's status 101 (the
    # class MPIX_ERR_PROC_FAILED, which MPID_Abort exits with; hydra may end
    # the job before the message is forwarded).  The multidevice's warnings
    # alone match the naming below: a job that hung after them once passed.
    local how
    how=$(grep -m1 -o 'Fatal error in [A-Za-z_]*' "$out")
    [ -n "$how" ] || [ "$rc" -ne 101 ] || how="status 101, MPIX_ERR_PROC_FAILED"
    if grep -q -E 'rank [0-9]+ \(node [^)]+\) (is unreachable over|cannot be reached)' "$out" &&
       [ -n "$how" ]; then
      echo "PASS  $s/$mode: MPICH ended the job on the error ($how);" \
           "the failed rank, its node and what failed are named:"
      grep -o -E '(The multidevice failed in [^:]+: )?rank [0-9]+ \(node [^)]+\) (is unreachable over|cannot be reached)[^,;]*' "$out" |
        sort -u | head -2 | sed 's/^/      | /'
    else
      echo "FAIL  $s/$mode: no message names the failed rank and why"; fail=1
      sed 's/^/      | /' "$out" | tail -15
    fi
  fi
  return $fail
}

failed=()
for s in "${scenarios[@]}"; do
  case "$s" in drop|kill-fw|stop-fw|kill-relay|stop-relay|stop-bcast|stop-brief) ;; *)
    echo "faults.sh: drop, kill-fw, stop-fw, kill-relay, stop-relay, stop-bcast or stop-brief, not '$s'" >&2
    exit 2 ;;
  esac
  for mode in fatal return; do
    echo "== faults: $s, MPI_ERRORS_$( [ "$mode" = fatal ] && echo ARE_FATAL || echo RETURN)"
    run "$s" "$mode" || failed+=("$s/$mode")
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "faults.sh: failed: ${failed[*]}"
  exit 1
fi
echo "faults.sh: all passed (${scenarios[*]})"
