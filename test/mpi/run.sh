#!/usr/bin/env bash
# Builds and runs the multi-process MPI tests of test/mpi (and the bench
# programs in --check mode) with one MPI, each run bounded by `timeout`;
# prints PASS/FAIL per test and exits non-zero if any failed.
#
# Default MPI: ours, under _install.  Other MPIs or launch set-ups:
#   MPICC=mpicc.mpich MPIEXEC=mpiexec.mpich test/mpi/run.sh
#   test/mpi/run.sh --env MULTIDEV_STATS=1 ring cpi
#   test/mpi/run.sh --launcher test/mpi/launch-nodes.sh      (emulated nodes, MPMD)
# See doc/benchmarks.md ("MPI tests") and --help.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
# shellcheck source=test/mpi/hang-lib.sh
. "$HERE/hang-lib.sh"

MPICC=${MPICC:-$PREFIX/bin/mpicc}
MPIFORT=${MPIFORT:-}
MPIEXEC=${MPIEXEC:-$PREFIX/bin/mpiexec}
MPIEXEC_ARGS=${MPIEXEC_ARGS:-}
LAUNCHER=${MPI_LAUNCHER:-}
TIMEOUT=${TEST_TIMEOUT:-120}
BUILD=${MPITEST_BUILD:-}
NP_OVERRIDE=
VERBOSE=0
LIST=0
ENVS=()
SELECT=()

# name  ranks  source  arguments
# source: a file test/mpi/<name>.c, f:<name> for test/mpi/<name>.f90 (built
# with the Fortran wrapper), bench:<prog> for bench/<prog>.c, or
# bench-fault:<prog> for the same built with -DBENCH_FAULT_INJECTION.
# A name starting with '!' must fail, reporting "check: FAILED" (shows that
# the data check catches a corrupted byte).  Ranks 0: the program alone,
# started without any launcher (an MPI singleton).
TESTS=(
  "pingpong_check   2 bench:pingpong  --check --iters 20 --warmup 2"
  "pingpong_anysrc  2 bench:pingpong  --check --any-source --any-tag --iters 5 --warmup 1"
  "!pingpong_fault  2 bench-fault:pingpong --check --iters 3 --warmup 0 --max-size 64K"
  "bandwidth_check  2 bench:bandwidth --check --iters 4 --warmup 1 --max-size 1M"
  "ring             4 ring"
  "anysource        4 anysource"
  "anymix           3 anymix"
  "anytag           2 anytag"
  "probe            2 probe"
  "cancel           2 cancel"
  "truncate         2 truncate"
  "ssend            2 ssend"
  "datatype         2 datatype"
  "order            2 order"
  "coll             4 coll"
  "coll3            3 coll"
  "rma              4 rma"
  "cpi              4 cpi"
  "singleton        0 singleton"
  "errchain         0 errchain"
  "mpiio            4 mpiio"
  "fortran_f08      4 f:fortran_f08"
  "fortran_mpi      3 f:fortran_mpi"
)

usage() {
  cat <<EOF
usage: test/mpi/run.sh [options] [TEST...]
  TEST...             run only these tests (default: all; see --list)
  --list              list the tests with their rank counts and arguments
  --np N              run every test on at least N ranks
  --timeout S         limit per test in seconds (default $TIMEOUT; env TEST_TIMEOUT)
  --env VAR=VALUE     put VAR in the environment of every run (repeatable);
                      hydra's mpiexec passes the environment on to the ranks
  --mpicc CC          compiler wrapper (env MPICC; default _install/bin/mpicc)
  --mpifort FC        Fortran wrapper (env MPIFORT; default: the --mpicc one
                      with mpicc replaced by mpifort, e.g. mpifort.mpich)
  --mpiexec CMD       launcher command, split on spaces (env MPIEXEC;
                      default _install/bin/mpiexec); run as: CMD -n N ARGS PROG
  --mpiexec-args A    extra launcher arguments after -n N (env MPIEXEC_ARGS),
                      e.g. "-env MULTIDEV_STATS 1"
  --launcher SCRIPT   run SCRIPT N PROG ARGS... instead of mpiexec (env
                      MPI_LAUNCHER), e.g. test/mpi/launch-nodes.sh for MPMD
                      runs over emulated nodes
  --build DIR         where binaries and logs go (env MPITEST_BUILD;
                      default _work/mpitest/<MPI>)
  -v, --verbose       print every test's output
  -h, --help          this text
Exit status: 0 all passed, 1 some test failed, 2 usage or set-up error.
EOF
}

die() { echo "run.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --list) LIST=1 ;;
    --np) NP_OVERRIDE=${2:?}; shift ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --env) [[ "${2:-}" == *=* ]] || die "--env wants VAR=VALUE"; ENVS+=("$2"); shift ;;
    --mpicc) MPICC=${2:?}; shift ;;
    --mpifort) MPIFORT=${2:?}; shift ;;
    --mpiexec) MPIEXEC=${2:?}; shift ;;
    --mpiexec-args) MPIEXEC_ARGS=${2?}; shift ;;
    --launcher) LAUNCHER=${2:?}; shift ;;
    --build) BUILD=${2:?}; shift ;;
    -v|--verbose) VERBOSE=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) usage >&2; die "unknown option '$1'" ;;
    *) SELECT+=("$1") ;;
  esac
  shift
done
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a positive number of seconds"
[ -z "$NP_OVERRIDE" ] || [[ "$NP_OVERRIDE" =~ ^[1-9][0-9]*$ ]] || die "--np wants a number"

if [ "$LIST" -eq 1 ]; then
  printf '%s\n' "${TESTS[@]}"
  exit 0
fi

# Selected tests must exist.
for s in ${SELECT[@]+"${SELECT[@]}"}; do
  found=0
  for t in "${TESTS[@]}"; do t=${t#!}; [ "${t%% *}" = "$s" ] && found=1; done
  [ "$found" -eq 1 ] || die "no test named '$s' (see --list)"
done

# the Fortran wrapper beside the C one: .../mpicc -> .../mpifort,
# mpicc.mpich -> mpifort.mpich
if [ -z "$MPIFORT" ]; then
  case "$MPICC" in
    */*) MPIFORT=$(dirname "$MPICC")/$(basename "$MPICC" | sed 's/^mpicc/mpifort/') ;;
    *) MPIFORT=${MPICC/#mpicc/mpifort} ;;
  esac
fi
read -r -a MPIEXEC_CMD <<<"$MPIEXEC"
read -r -a MPIEXEC_EXTRA <<<"$MPIEXEC_ARGS"
if ! command -v "$MPICC" >/dev/null; then
  if [ "$MPICC" = "$PREFIX/bin/mpicc" ]; then
    die "our MPICH is not installed ($PREFIX/bin/mpicc missing): build it first, or
run with another MPI, e.g.: MPICC=mpicc.mpich MPIEXEC=mpiexec.mpich test/mpi/run.sh"
  fi
  die "compiler wrapper '$MPICC' not found"
fi
if [ -z "$LAUNCHER" ]; then
  command -v "${MPIEXEC_CMD[0]}" >/dev/null || die "launcher '${MPIEXEC_CMD[0]}' not found"
else
  [ -x "$LAUNCHER" ] || die "--launcher '$LAUNCHER' is not an executable file"
fi

if [ -z "$BUILD" ]; then
  tag=$(basename "$MPICC")
  [ "$MPICC" = "$PREFIX/bin/mpicc" ] && tag=ours
  BUILD="$ROOT/_work/mpitest/$tag"
fi
# Several people may run this at once on one build directory: every run
# logs into its own directory (the 20 newest are kept, logs/latest points to
# this run's), and binaries are replaced by rename, never rewritten in place
# while another run executes them.
LOGS="$BUILD/logs/$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$LOGS" || die "cannot create $LOGS"
ln -sfn "$(basename "$LOGS")" "$BUILD/logs/latest" 2>/dev/null || true
# shellcheck disable=SC2012 # names are ours: date-pid
ls -1d "$BUILD"/logs/[0-9]*-[0-9]* 2>/dev/null | sort | head -n -20 | xargs -r rm -rf

# Open MPI refuses root without these; harmless for MPICH.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
for e in ${ENVS[@]+"${ENVS[@]}"}; do export "${e?}"; done

CFLAGS=(-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra)

# exe_of SOURCE: where the binary of a test source goes.
exe_of() {
  case "$1" in
    bench:*) echo "$BUILD/${1#bench:}" ;;
    bench-fault:*) echo "$BUILD/${1#bench-fault:}-fault" ;;
    f:*) echo "$BUILD/${1#f:}" ;;
    *) echo "$BUILD/$1" ;;
  esac
}

# build SOURCE: compiles one test source; compiler output in the log.
build() {
  local src=$1 exe tmp log="$LOGS/build-$1.log" rc
  exe=$(exe_of "$src")
  tmp="$exe.tmp.$$"
  case "$src" in
    bench:*)
      "$MPICC" "${CFLAGS[@]}" -I"$ROOT/bench" -o "$tmp" "$ROOT/bench/${src#bench:}.c" \
        "$ROOT/bench/bench_util.c" "$ROOT/bench/bench_pair.c" >"$log" 2>&1 ;;
    bench-fault:*)
      "$MPICC" "${CFLAGS[@]}" -DBENCH_FAULT_INJECTION -I"$ROOT/bench" -o "$tmp" \
        "$ROOT/bench/${src#bench-fault:}.c" "$ROOT/bench/bench_util.c" "$ROOT/bench/bench_pair.c" \
        >"$log" 2>&1 ;;
    f:*)
      "$MPIFORT" -O2 -g -Wall -o "$tmp" "$HERE/${src#f:}.f90" >"$log" 2>&1 ;;
    *)
      "$MPICC" "${CFLAGS[@]}" -I"$HERE" -o "$tmp" "$HERE/$src.c" -lm >"$log" 2>&1 ;;
  esac
  rc=$?
  if [ "$rc" -eq 0 ]; then mv -f "$tmp" "$exe" || rc=1; else rm -f "$tmp"; fi
  return "$rc"
}

pass=0
fail=0
failed=()
built=" "
echo "run.sh: MPICC=$MPICC; launcher: ${LAUNCHER:-$MPIEXEC -n N $MPIEXEC_ARGS};" \
     "timeout ${TIMEOUT}s; logs in $LOGS"
for t in "${TESTS[@]}"; do
  read -r name np src args <<<"$t"
  must_fail=0
  if [ "${name#!}" != "$name" ]; then must_fail=1; name=${name#!}; fi
  if [ "${#SELECT[@]}" -gt 0 ]; then
    want=0
    for s in "${SELECT[@]}"; do [ "$s" = "$name" ] && want=1; done
    [ "$want" -eq 1 ] || continue
  fi
  # --np raises every test to N ranks (never below the test's own count)
  if [ -n "$NP_OVERRIDE" ] && [ "$np" -gt 0 ] && [ "$NP_OVERRIDE" -gt "$np" ]; then
    np=$NP_OVERRIDE
  fi
  read -r -a argv <<<"${args:-}"
  log="$LOGS/$name.log"
  exe=$(exe_of "$src")

  if [[ "$built" != *" $src "* ]]; then
    if build "$src"; then
      built+="$src "
    else
      printf 'FAIL  %-16s (does not compile: %s)\n' "$name" "$LOGS/build-$src.log"
      sed 's/^/      /' "$LOGS/build-$src.log" | head -20
      fail=$((fail + 1)); failed+=("$name")
      continue
    fi
  fi

  if [ "$np" -eq 0 ]; then
    cmd=("$exe" ${argv[@]+"${argv[@]}"})
  elif [ -n "$LAUNCHER" ]; then
    cmd=("$LAUNCHER" "$np" "$exe" ${argv[@]+"${argv[@]}"})
  else
    cmd=("${MPIEXEC_CMD[@]}" -n "$np" ${MPIEXEC_EXTRA[@]+"${MPIEXEC_EXTRA[@]}"} "$exe"
         ${argv[@]+"${argv[@]}"})
  fi
  start=$(date +%s.%N)
  echo "+ ${cmd[*]}" >"$log"
  timeout --kill-after=10 "$TIMEOUT" "${cmd[@]}" >>"$log" 2>&1 </dev/null &
  job=$!
  # a job about to hit the limit is hung: its stacks, before it is ended
  hang_watch "$job" "$((TIMEOUT > 15 ? TIMEOUT - 10 : TIMEOUT * 2 / 3 + 1))" "$log.stacks" \
    "$(basename "$exe" | cut -c1-15)" &
  watcher=$!
  wait "$job"
  rc=$?
  kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
  if [ "$must_fail" -eq 1 ]; then
    # Passes when the program noticed the injected fault and said so.
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] &&
       grep -q 'check: FAILED' "$log"; then
      rc=0
    else
      echo "run.sh: expected a reported check failure (exit $rc)" >>"$log"
      [ "$rc" -eq 0 ] && rc=1
    fi
  fi
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  if [ "$rc" -eq 0 ]; then
    printf 'PASS  %-16s %2d ranks  %6ss\n' "$name" "$np" "$secs"
    pass=$((pass + 1))
    [ "$VERBOSE" -eq 1 ] && sed 's/^/      /' "$log"
  else
    why="exit $rc"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="timed out after ${TIMEOUT}s"
    printf 'FAIL  %-16s %2d ranks  %6ss  (%s; log %s)\n' "$name" "$np" "$secs" "$why" "$log"
    tail -n 25 "$log" | sed 's/^/      /'
    if [ -s "$log.stacks" ]; then
      echo "      where its processes were before the limit:"
      head -n 120 "$log.stacks" | sed 's/^/      | /'
    fi
    fail=$((fail + 1)); failed+=("$name")
  fi
done

echo "run.sh: $pass passed, $fail failed${failed[*]:+: ${failed[*]}}"
[ "$fail" -eq 0 ]
