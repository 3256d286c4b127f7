#!/usr/bin/env bash
# mpich/run-suite.sh - runs MPICH's own test suite (test/mpi, the
# directories our build supports) against our MPICH (--with-device=multi)
# in three set-ups, and against Debian's packaged MPICH 4.0.2 as the judge,
# and prints per directory passed/total for each, every test that is not a
# pass everywhere, each failure with its output and our note on why it fails
# (mpich/suite-notes.txt), and the tests that pass on Debian's but not on ours.
#
# Set-ups (--setups, comma-separated; default ours,emulated,forwarded,debian):
#   ours       our MPICH, every rank on one node (shm)
#   emulated   ours, the ranks of each test cyclic over two emulated nodes
#              (examples/emulated-4node.net: shm + myri per rank)
#   forwarded  ours, the ranks cyclic over the nodes a b c of
#              examples/relay-3node.net: a and c share no network, so in a
#              test of three or more ranks the routes a-c are forwarded by
#              the rank on b (two-rank tests run a-b over myri)
#   debian     Debian's MPICH (mpicc.mpich, mpiexec.mpich; ch4:ucx), one node
#
# Directories (--dirs, comma-separated; default: all those below):
#   attr coll comm datatype errhan group info init mpi_t pt2pt part rma topo
#   io f77 cxx f90 f08 errors threads impls
# Not run: spawn (dynamic processes: libmultidev has no way to add peers
# after md_init), ft (fault tolerance, MPICH's own FT tests; ours are
# test/mpi/faults.sh), ckpoint (needs a checkpointing build), perf and basic
# (commented out of MPICH's own top-level testlist).
#
# Usage: mpich/run-suite.sh [options]
#   --setups LIST       which set-ups (above)
#   --dirs LIST         which directories (above)
#   --setup-dirs SETUP=LIST  run only LIST of the directories on SETUP
#                       (repeatable; the others run --dirs)
#   --quick             what CI runs (scripts/run-tests.sh):
#                       --dirs pt2pt,io,attr,group,info,f77/pt2pt,f08/pt2pt
#                       --setups ours,emulated,forwarded --baseline-failures,
#                       with pt2pt (the longest) not on the forwarded set-up
#   --baseline-failures run Debian's MPICH only on the tests that failed on
#                       one of ours: the same verdict as a full Debian run (a
#                       test that passes on ours cannot be a regression) at
#                       a fraction of its time
#   --timeout S         per-test limit in seconds (MPITEST_TIMEOUT; default 120;
#                       a testlist's own timeLimit still applies)
#   --tests FILE        a testlist of your own instead of the directory's
#                       (one directory only; "name nprocs [arg=..] [env=..]")
#   --prefix DIR        where our MPICH is installed (default <checkout>/_install)
#   --report-only       run nothing; print the summary of the last runs
#   -h, --help          this text
#
# The suite is configured from the fetched MPICH source (_work/mpich-src,
# fetched by mpich/fetch-source.sh when missing) once per MPI, in
# _work/suite/build-<ours|debian>, with C, C++, Fortran (f77, f90, f08) and
# ROMIO tests; the three set-ups of ours share one build (runtests is given
# the launcher).  Results per set-up: _work/suite/<setup>/ (TAP, JUnit, XML,
# logs); the summary: _work/suite/summary.txt (MD_SUITE_DIR moves
# _work/suite elsewhere, e.g. to keep a whole run apart).  Exit status: 0 if every test
# that passes on Debian's MPICH (or every test, without it) passes on each
# set-up of ours, 1 if not, 2 on a usage or set-up error.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}
SRC=$WORK/mpich-src
OUT=${MD_SUITE_DIR:-$WORK/suite}
NOTES=$ROOT/mpich/suite-notes.txt
TIMEOUT=${MPITEST_TIMEOUT:-120}
ALL_DIRS=(attr coll comm datatype errhan group info init mpi_t pt2pt part rma topo
          io f77 cxx f90 f08 errors threads impls)
ALL_SETUPS=(ours emulated forwarded debian)
QUICK_DIRS=pt2pt,io,attr,group,info,f77/pt2pt,f08/pt2pt
QUICK_SETUPS=ours,emulated,forwarded
QUICK_FORWARDED=io,attr,group,info,f77/pt2pt,f08/pt2pt
declare -A SETUP_DIRS=()
DIRS=""
SETUPS=""
BASE_FAILURES=0
REPORT_ONLY=0
TESTLIST=""

die() { echo "run-suite: error: $*" >&2; exit 2; }
say() { echo "run-suite: $*"; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --setups) [ $# -ge 2 ] || die "--setups needs a list"; SETUPS=$2; shift 2 ;;
    --setups=*) SETUPS=${1#--setups=}; shift ;;
    --dirs) [ $# -ge 2 ] || die "--dirs needs a list"; DIRS=$2; shift 2 ;;
    --dirs=*) DIRS=${1#--dirs=}; shift ;;
    --setup-dirs) [ $# -ge 2 ] && [[ "$2" == ?*=?* ]] || die "--setup-dirs needs SETUP=LIST"
                  SETUP_DIRS[${2%%=*}]=${2#*=}; shift 2 ;;
    --quick) DIRS=${DIRS:-$QUICK_DIRS}; SETUPS=${SETUPS:-$QUICK_SETUPS}; BASE_FAILURES=1
             SETUP_DIRS[forwarded]=${SETUP_DIRS[forwarded]:-$QUICK_FORWARDED}; shift ;;
    --baseline-failures) BASE_FAILURES=1; shift ;;
    --timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; TIMEOUT=$2; shift 2 ;;
    --timeout=*) TIMEOUT=${1#--timeout=}; shift ;;
    --tests) [ $# -ge 2 ] || die "--tests needs a file"; TESTLIST=$(realpath "$2"); shift 2 ;;
    --tests=*) TESTLIST=$(realpath "${1#--tests=}"); shift ;;
    --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; PREFIX=$2; shift 2 ;;
    --prefix=*) PREFIX=${1#--prefix=}; shift ;;
    --report-only) REPORT_ONLY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
case "$TIMEOUT" in ''|*[!0-9]*) die "--timeout wants seconds, not '$TIMEOUT'" ;; esac
IFS=, read -r -a dirs <<<"${DIRS:-$(IFS=,; echo "${ALL_DIRS[*]}")}"
IFS=, read -r -a setups <<<"${SETUPS:-$(IFS=,; echo "${ALL_SETUPS[*]}")}"
# a directory of the suite, or a subdirectory of one (f08/pt2pt)
check_dir() {
  [[ " ${ALL_DIRS[*]} " == *" ${1%%/*} "* ]] || die "no directory '$1' in the suite (have: ${ALL_DIRS[*]})"
  [ "$1" = "${1%%/*}" ] || [ -d "$SRC/test/mpi/$1" ] || [ ! -d "$SRC/test/mpi" ] ||
    die "no directory test/mpi/$1 in MPICH's source"
}
for d in "${dirs[@]}"; do check_dir "$d"; done
for s in "${!SETUP_DIRS[@]}"; do
  IFS=, read -r -a sd <<<"${SETUP_DIRS[$s]}"
  for d in "${sd[@]}"; do
    check_dir "$d"
    [[ " ${dirs[*]} " == *" $d "* ]] || dirs+=("$d")
  done
done
# dirs_of SETUP: the directories SETUP runs
dirs_of() {
  if [ -n "${SETUP_DIRS[$1]:-}" ]; then tr , ' ' <<<"${SETUP_DIRS[$1]}"; else echo "${dirs[*]}"; fi
}
for s in "${setups[@]}"; do
  [[ " ${ALL_SETUPS[*]} " == *" $s "* ]] || die "no set-up '$s' (have: ${ALL_SETUPS[*]})"
done
[ -z "$TESTLIST" ] || [ -f "$TESTLIST" ] || die "no test list $TESTLIST"
[ -z "$TESTLIST" ] || [ "${#dirs[@]}" = 1 ] || die "--tests goes with one directory (--dirs)"
has_setup() { [[ " ${setups[*]} " == *" $1 "* ]]; }
# Debian's run: all of it, only ours' failures, or none
if has_setup debian; then BASE_RUN=full; elif [ "$BASE_FAILURES" = 1 ]; then BASE_RUN=failures; else BASE_RUN=none; fi
[ "$BASE_RUN" != full ] || [ "$BASE_FAILURES" = 0 ] || BASE_RUN=failures
ours_setups=()
for s in "${setups[@]}"; do [ "$s" = debian ] || ours_setups+=("$s"); done

if [ "$REPORT_ONLY" = 0 ]; then
  [ -f "$SRC/test/mpi/configure" ] ||
    "$ROOT/mpich/fetch-source.sh" || die "no MPICH source in $SRC, and mpich/fetch-source.sh could not fetch it"
  if [ "${#ours_setups[@]}" -gt 0 ]; then
    for t in mpicc mpicxx mpifort mpiexec mdconfig; do
      [ -x "$PREFIX/bin/$t" ] || die "no $PREFIX/bin/$t: run scripts/build.sh (or mpich/build-mpich.sh) first"
    done
  fi
  if [ "$BASE_RUN" != none ]; then
    for t in mpicc.mpich mpicxx.mpich mpifort.mpich mpiexec.mpich; do
      command -v "$t" >/dev/null ||
        die "Debian's MPICH ($t) is not installed: run scripts/setup-deps.sh"
    done
  fi
fi
mkdir -p "$OUT"

# configure_suite MPI CC CXX FC: test/mpi configured with that MPI's
# wrappers in $OUT/build-MPI (again only when the wrappers changed).
# test/mpi takes them from MPICC/MPICXX/MPIFC/MPIF77 (CC alone is ignored
# and "mpicc" is looked up in PATH - Debian's /usr/bin/mpicc is Open MPI).
configure_suite() {
  local mpi=$1 cc=$2 cxx=$3 fc=$4 dir=$OUT/build-$1
  local stamp="MPICC=$cc MPICXX=$cxx MPIFC=$fc"
  if [ -f "$dir/.configured-with" ] && [ "$(cat "$dir/.configured-with")" = "$stamp" ]; then
    return 0
  fi
  say "[$mpi] configuring test/mpi with $stamp (log: ${dir#$ROOT/}/configure.log)"
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && MPICC=$cc CC=$cc MPICXX=$cxx CXX=$cxx MPIFC=$fc FC=$fc MPIF77=$fc F77=$fc \
      "$SRC/test/mpi/configure" --enable-fortran=all --enable-cxx --enable-romio \
      --disable-spawn --disable-ft-tests --disable-checkpointing \
      >configure.log 2>&1) ||
    { tail -n 30 "$dir/configure.log" >&2; die "[$mpi] configure of test/mpi failed (${dir#$ROOT/}/configure.log)"; }
  echo "$stamp" > "$dir/.configured-with"
}

# enable_f08 MPI FC: test/mpi switches its f08 directory on only when
# MPICH's own configure runs it (FROM_MPICH=yes, which also changes flags
# and wrappers; its FIXME says it should try an F08 program instead).  We
# try one, and if it builds, switch the directory on in config.status
# (util's libmtest_f08 and the f08 line of the top testlist).
enable_f08() {
  local mpi=$1 fc=$2 dir=$OUT/build-$1
  grep -q '^#libmtest_f08_la_SOURCES' "$dir/util/Makefile" || return 0
  printf 'program f08check\n  use mpi_f08\n  call MPI_Init()\n  call MPI_Finalize()\nend program\n' \
    >"$dir/f08check.f90"
  if ! (cd "$dir" && "$fc" -o f08check f08check.f90) >>"$dir/configure.log" 2>&1; then
    say "[$mpi] $fc cannot build a 'use mpi_f08' program: f08 tests left out"
    return 0
  fi
  sed -i 's/^S\["HAS_F08_TRUE"\]="#"$/S["HAS_F08_TRUE"]=""/
          s/^S\["HAS_F08_FALSE"\]=""$/S["HAS_F08_FALSE"]="#"/
          s/^S\["f08dir"\]="#"$/S["f08dir"]="f08"/' "$dir/config.status"
  (cd "$dir" && ./config.status) >>"$dir/configure.log" 2>&1 ||
    die "[$mpi] config.status of test/mpi failed (${dir#$ROOT/}/configure.log)"
  ! grep -q '^#libmtest_f08_la_SOURCES' "$dir/util/Makefile" ||
    die "[$mpi] could not switch test/mpi's f08 tests on"
}

# build_dir MPI DIR: builds the tests of DIR (make -k: a test that does not
# compile is reported by runtests as a failure, the others still run).
build_dir() {
  local mpi=$1 d=$2 dir=$OUT/build-$1 t0=$SECONDS
  mkdir -p "$OUT/logs"
  # util serially: its libraries' parallel libtool steps raced (a missing
  # .libs/mtest_f08.o); a failure there is the tests' to report
  if ! { make -C "$dir/util" all; make -C "$dir/$d" -k -j2 all; } \
       >"$OUT/logs/make-$mpi-${d//\//_}.log" 2>&1; then
    say "[$mpi] some tests of $d did not build (log: ${OUT#$ROOT/}/logs/make-$mpi-${d//\//_}.log)"
  fi
  [ $((SECONDS - t0)) -lt 5 ] || say "[$mpi] built $d in $((SECONDS - t0)) s"
}

# run_dir SETUP MPI MPIEXEC DIR [TESTLIST-NAME]: runtests on one directory;
# its files are named after DIR with / as _ (f08/pt2pt: summary-f08_pt2pt.tap).
run_dir() {
  local s=$1 mpi=$2 mpiexec=$3 d=$4 list=${5:-testlist} res=$OUT/$1 t0=$SECONDS
  local dir=$OUT/build-$mpi f=${4//\//_}
  mkdir -p "$res"
  rm -f "$res/summary-$f".* "$res/elapsed-$f"
  # runtests exits non-zero when a test fails; the TAP file says which.
  (cd "$dir" && MPITEST_TIMEOUT=$TIMEOUT ./runtests -srcdir="$SRC/test/mpi" \
      -tests="$list" -testdirs="$d" -mpiexec="$mpiexec" \
      -xmlfile="$res/summary-$f.xml" -tapfile="$res/summary-$f.tap" \
      -junitfile="$res/summary-$f.junit.xml" \
      >"$res/runtests-$f.log" 2>&1) || true
  [ -f "$res/summary-$f.tap" ] || die "[$s] runtests wrote no TAP file for $d (see ${res#$ROOT/}/runtests-$f.log)"
  echo "$((SECONDS - t0))" > "$res/elapsed-$f"
  echo "$TIMEOUT" > "$res/timeout"
  say "[$s] $d: $(python3 "$ROOT/mpich/suite-report.py" count "$res/summary-$f.tap") in $((SECONDS - t0)) s"
}

# use_testlist MPI DIR: a testlist of --tests in place of the directory's
use_testlist() {
  if [ -n "$TESTLIST" ]; then cp "$TESTLIST" "$OUT/build-$1/$2/testlist.custom"; echo testlist.custom
  else echo testlist; fi
}

# setup_env SETUP: the environment and launcher of a set-up of ours
# (LAUNCH); emulated nodes get their configuration written by mdconfig.
rundir=""
cleanup() { [ -z "$rundir" ] || rm -rf "$rundir"; }
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
setup_env() {
  local s=$1 desc nodes conf=$OUT/$1/conf
  case "$s" in
    ours) LAUNCH=$PREFIX/bin/mpiexec; return 0 ;;
    emulated) desc=emulated-4node.net nodes="node0 node1" ;;
    forwarded) desc=relay-3node.net nodes="a b c" ;;
  esac
  rm -rf "$conf" && mkdir -p "$OUT/$s"
  "$PREFIX/bin/mdconfig" "$ROOT/examples/$desc" -o "$conf" >/dev/null ||
    die "mdconfig failed on examples/$desc"
  [ -n "$rundir" ] || rundir=$(mktemp -d /dev/shm/md-suite-XXXXXX)
  export MULTIDEV_CONFIG=$conf MULTIDEV_NIC_RUNDIR=$rundir/$s NODES=$nodes NODE_MAP=cyclic
  LAUNCH=$ROOT/mpich/mpiexec-nodes.sh
}

if [ "$REPORT_ONLY" = 0 ]; then
  export PATH=$PREFIX/bin:$PATH
  if [ "${#ours_setups[@]}" -gt 0 ]; then
    configure_suite ours "$PREFIX/bin/mpicc" "$PREFIX/bin/mpicxx" "$PREFIX/bin/mpifort"
    enable_f08 ours "$PREFIX/bin/mpifort"
    for d in "${dirs[@]}"; do build_dir ours "$d"; done
  fi
  # made here, not in setup_env's subshell, so that cleanup removes it
  [ -n "$rundir" ] || rundir=$(mktemp -d /dev/shm/md-suite-XXXXXX)
  for s in "${ours_setups[@]}"; do
    ( setup_env "$s"
      rm -f "$OUT/$s/keys-"*
      for d in $(dirs_of "$s"); do run_dir "$s" ours "$LAUNCH" "$d" "$(use_testlist ours "$d")"; done )
  done
  if [ "$BASE_RUN" != none ]; then
    configure_suite debian "$(command -v mpicc.mpich)" "$(command -v mpicxx.mpich)" \
      "$(command -v mpifort.mpich)"
    enable_f08 debian "$(command -v mpifort.mpich)"
    mkdir -p "$OUT/debian"
    for d in $(dirs_of debian); do
      f=${d//\//_}
      rm -f "$OUT/debian/keys-$f" "$OUT/debian/summary-$f".*
      list=$(use_testlist debian "$d")
      if [ "$BASE_RUN" = failures ]; then
        # testlist.failed in DIR and its subdirectories: the tests that
        # failed on one of ours; keys-DIR names them as the full run does
        python3 "$ROOT/mpich/suite-report.py" select-failed "$OUT" "$OUT/build-debian" "$d" \
          "$list" testlist.failed "${ours_setups[@]}" >"$OUT/debian/keys-$f"
        [ -s "$OUT/debian/keys-$f" ] || continue
        say "[debian] $d: running only the $(wc -l <"$OUT/debian/keys-$f") test(s) that failed on ours"
        list=testlist.failed
      fi
      build_dir debian "$d"
      run_dir debian debian "$(command -v mpiexec.mpich)" "$d" "$list"
    done
  fi
fi

# ------------------------------------------------------------ summary
SUMMARY=$OUT/summary.txt
rc=0
python3 "$ROOT/mpich/suite-report.py" report "$OUT" "$NOTES" "$BASE_RUN" "$(IFS=,; echo "${dirs[*]}")" \
  "${setups[@]}" >"$SUMMARY" || rc=$?
cat "$SUMMARY"
say "summary written to ${SUMMARY#$ROOT/}"
exit $rc
