# test/mpi/hang-lib.sh - sourced by the MPI test drivers (run.sh, faults.sh):
# a job that hangs is only fixed once it is seen, so before a test's own
# time limit ends a job, the state and every thread's stack of its
# processes are taken (gdb, when installed).

# hang_descendants PID: PID and every process under it (hydra puts each
# rank in a session of its own, so a session or group would miss them).
hang_descendants() {
  local c
  echo "$1"
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do hang_descendants "$c"; done
}

# hang_watch JOBPID SECONDS FILE [PROGRAM]: if the job still runs SECONDS
# after the call, writes to FILE each of its processes' command and state,
# and the stacks of every thread of those running PROGRAM (default: every
# process but the launcher's).  Run it in the background; kill it when the
# job has ended.
hang_watch() {
  local job=$1 secs=$2 file=$3 prog=${4:-} p comm
  local end=$((SECONDS + secs))
  : >"$file"
  while kill -0 "$job" 2>/dev/null; do
    if [ "$SECONDS" -ge "$end" ]; then
      for p in $(hang_descendants "$job"); do
        [ -r "/proc/$p/status" ] || continue
        comm=$(cat "/proc/$p/comm" 2>/dev/null)
        echo "== pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-100)" \
             "($(awk '/^State:/ { print $2, $3 }' "/proc/$p/status"))"
        case "$comm" in timeout|mpiexec|hydra_pmi_proxy|bash|env) continue ;; esac
        [ -z "$prog" ] || [ "$comm" = "$prog" ] || continue
        command -v gdb >/dev/null &&
          timeout 20 gdb -q -batch -p "$p" -ex 'thread apply all bt 12' 2>/dev/null |
            grep -E '^(Thread|#)' | cut -c1-160
      done >>"$file" 2>&1
      return 0
    fi
    sleep 1
  done
}
