#!/usr/bin/env bash
# mpich/run-pt2pt-suite.sh - runs MPICH's own point-to-point test suite
# (test/mpi/pt2pt) against our MPICH (--with-device=multi) and, on request,
# against Debian's packaged MPICH 4.0.2 as the baseline, and prints
# passed/total, every failure with its output and our notes on why it fails
# (mpich/pt2pt-notes.txt), and the tests that pass on the baseline only.
#
# The suite is built from Debian's MPICH source in _work/mpich-src, fetched by
# mpich/fetch-source.sh when missing (a build restored from the cache has
# none), and configured against the MPI under test.
#
# Usage: mpich/run-pt2pt-suite.sh [options]
#   --baseline        also run the suite on Debian's MPICH (mpicc.mpich, mpiexec.mpich)
#   --baseline-failures  run on Debian's MPICH only the tests that failed on ours:
#                     the same verdict as --baseline (a test that passes on ours
#                     cannot be a regression) without the baseline's full run
#   --baseline-only   run it on Debian's MPICH only
#   --emulated        also run it on ours with the ranks spread cyclically over
#                     two emulated nodes (examples/emulated-4node.net through
#                     mdconfig): every rank of a test with 3 or more ranks has
#                     peers on shm and on myri, so two subdevices are active
#   --emulated-only   only that run
#   --timeout S       per-test time limit in seconds (MPITEST_TIMEOUT; default 120)
#   --tests FILE      a testlist of your own instead of pt2pt/testlist
#                     (format: "name nprocs [arg=..] [env=..]", one per line)
#   --prefix DIR      where our MPICH is installed (default <checkout>/_install)
#   --report-only     do not run anything; print the summary of the last runs
#   -h, --help        this text
#
# Results: _work/pt2pt-<ours|debian>/ (TAP, JUnit, XML, logs) and
# _work/pt2pt-summary.txt.  Exit status: 0 if every test that passes on the
# baseline (or every test, without a baseline) passes on ours, else 1
# (--baseline-failures: if every test that failed on ours failed there too).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}
SRC=$WORK/mpich-src
NOTES=$ROOT/mpich/pt2pt-notes.txt
TIMEOUT=${MPITEST_TIMEOUT:-120}
RUN_OURS=1
RUN_BASE=0
RUN_EMU=0
REPORT_ONLY=0
TESTLIST=""

die() { echo "run-pt2pt-suite: error: $*" >&2; exit 2; }
say() { echo "run-pt2pt-suite: $*"; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) RUN_BASE=1; shift ;;
    --baseline-failures) RUN_BASE=failures; shift ;;
    --baseline-only) RUN_BASE=1; RUN_OURS=0; shift ;;
    --emulated) RUN_EMU=1; shift ;;
    --emulated-only) RUN_EMU=1; RUN_OURS=0; shift ;;
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
[ -z "$TESTLIST" ] || [ -f "$TESTLIST" ] || die "no test list $TESTLIST"

[ -f "$SRC/test/mpi/configure" ] ||
  "$ROOT/mpich/fetch-source.sh" || die "no MPICH source in $SRC, and mpich/fetch-source.sh could not fetch it"
if [ "$RUN_OURS" = 1 ] || [ "$RUN_EMU" = 1 ]; then
  [ -x "$PREFIX/bin/mpicc" ] && [ -x "$PREFIX/bin/mpiexec" ] ||
    die "no MPICH in $PREFIX: run mpich/build-mpich.sh first"
fi
if [ "$RUN_BASE" != 0 ]; then
  command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null ||
    die "Debian's MPICH (mpicc.mpich, mpiexec.mpich) is not installed: run scripts/setup-deps.sh"
fi

# Builds and runs the suite for one MPI.  $1 name (results in
# $WORK/pt2pt-<name>), $2 mpicc, $3 mpiexec, $4 the name of the run whose
# build to use (default $1): the tests depend on the wrapper only, since
# runtests is given the launcher, so one build serves several launchers.
run_suite() {
  local name=$1 cc=$2 mpiexec=$3 build=${4:-$1}
  local res=$WORK/pt2pt-$name dir=$WORK/pt2pt-$build
  local t0=$SECONDS
  mkdir -p "$dir" "$res"
  # test/mpi's configure takes the wrapper from MPICC (CC alone is ignored
  # and "mpicc" is looked up in PATH - Debian's /usr/bin/mpicc is Open MPI).
  local stamp="MPICC=$cc"
  if [ ! -f "$dir/.configured-with" ] || [ "$(cat "$dir/.configured-with")" != "$stamp" ]; then
    say "[$name] configuring test/mpi with CC=$cc (log: $dir/configure.log)"
    rm -rf "$dir" && mkdir -p "$dir" "$res"
    (cd "$dir" && MPICC=$cc CC=$cc MPIEXEC=$mpiexec "$SRC/test/mpi/configure" \
        --disable-fortran --disable-cxx --disable-romio --disable-spawn --disable-ft-tests \
        >configure.log 2>&1) ||
      { tail -n 30 "$dir/configure.log" >&2; die "[$name] configure of test/mpi failed ($dir/configure.log)"; }
    echo "$stamp" > "$dir/.configured-with"
  else
    say "[$name] test/mpi already configured with CC=$cc in $dir"
  fi
  say "[$name] building util and pt2pt (log: $res/make.log)"
  (make -C "$dir/util" -j2 all && make -C "$dir/pt2pt" -j2 all) >"$res/make.log" 2>&1 ||
    { tail -n 30 "$res/make.log" >&2; die "[$name] building the pt2pt tests failed ($res/make.log)"; }

  local list=testlist
  if [ -n "$TESTLIST" ]; then cp "$TESTLIST" "$dir/pt2pt/testlist.custom"; list=testlist.custom; fi
  say "[$name] running pt2pt with $mpiexec, MPITEST_TIMEOUT=$TIMEOUT s (log: $res/runtests.log)"
  rm -f "$res"/summary-pt2pt.*
  # runtests exits non-zero when a test fails; the TAP file says which.
  (cd "$dir" && MPITEST_TIMEOUT=$TIMEOUT ./runtests -srcdir="$SRC/test/mpi" \
      -tests="$list" -testdirs=pt2pt -mpiexec="$mpiexec" \
      -xmlfile="$res/summary-pt2pt.xml" -tapfile="$res/summary-pt2pt.tap" \
      -junitfile="$res/summary-pt2pt.junit.xml" \
      >"$res/runtests.log" 2>&1) || true
  [ -f "$res/summary-pt2pt.tap" ] || die "[$name] runtests wrote no TAP file (see $res/runtests.log)"
  say "[$name] done in $((SECONDS - t0)) s"
  echo "$((SECONDS - t0))" > "$res/elapsed"
  echo "$TIMEOUT" > "$res/timeout"
}

if [ "$REPORT_ONLY" = 1 ]; then
  [ -f "$WORK/pt2pt-debian/summary-pt2pt.tap" ] && RUN_BASE=1
  [ -f "$WORK/pt2pt-ours/summary-pt2pt.tap" ] || RUN_OURS=0
  [ -f "$WORK/pt2pt-emulated/summary-pt2pt.tap" ] && RUN_EMU=1
else
  export PATH=$PREFIX/bin:$PATH
  [ "$RUN_OURS" = 0 ] || run_suite ours "$PREFIX/bin/mpicc" "$PREFIX/bin/mpiexec"
fi
if [ "$RUN_EMU" = 1 ] && [ "$REPORT_ONLY" = 0 ]; then
  conf=$WORK/pt2pt-emulated-conf
  rm -rf "$conf"
  "$PREFIX/bin/mdconfig" "$ROOT/examples/emulated-4node.net" -o "$conf" >/dev/null ||
    die "mdconfig failed on examples/emulated-4node.net"
  rundir=$(mktemp -d /dev/shm/md-pt2pt-XXXXXX)
  trap 'rm -rf "$rundir"' EXIT
  # the build of the one-node run, when there was one (the same wrapper)
  MULTIDEV_CONFIG=$conf MULTIDEV_NIC_RUNDIR=$rundir NODES="node0 node1" NODE_MAP=cyclic \
    run_suite emulated "$PREFIX/bin/mpicc" "$ROOT/mpich/mpiexec-nodes.sh" \
    "$([ "$RUN_OURS" = 1 ] && echo ours || echo emulated)"
fi
# The testlist lines of the tests that failed on ours (on one node or on the
# emulated nodes), keyed as the summary keys them; their keys go to $2.
select_failed_tests() {
  local run=ours
  [ -f "$WORK/pt2pt-ours/summary-pt2pt.tap" ] || run=emulated
  python3 - "$WORK" "$1" "$2" "${TESTLIST:-$WORK/pt2pt-$run/pt2pt/testlist}" <<'PY'
import os, re, sys
work, list_out, keys_out, testlist = sys.argv[1:5]
failed = set()
for run in ("ours", "emulated"):
    tap = os.path.join(work, "pt2pt-" + run, "summary-pt2pt.tap")
    if not os.path.exists(tap):
        continue
    seen = {}
    for line in open(tap, errors="replace"):
        m = re.match(r"(not ok|ok)\s+\d*\s*- \./pt2pt/(\S+) (\d+)(.*)$", line)
        if not m:
            continue
        base = "%s %s" % (m.group(2), m.group(3))
        seen[base] = seen.get(base, 0) + 1
        if m.group(1) == "not ok" and "# SKIP" not in m.group(4):
            failed.add(base if seen[base] == 1 else "%s #%d" % (base, seen[base]))
seen, lines, keys = {}, [], []
for line in open(testlist):
    f = line.split()
    if len(f) < 2 or f[0].startswith("#"):
        continue
    base = "%s %s" % (f[0], f[1])
    seen[base] = seen.get(base, 0) + 1
    key = base if seen[base] == 1 else "%s #%d" % (base, seen[base])
    if key in failed:
        lines.append(line)
        keys.append(key)
open(list_out, "w").writelines(lines)
open(keys_out, "w").write("".join(k + "\n" for k in keys))
PY
}

if [ "$RUN_BASE" = 1 ] && [ "$REPORT_ONLY" = 0 ]; then
  rm -f "$WORK/pt2pt-debian/keys"
  run_suite debian "$(command -v mpicc.mpich)" "$(command -v mpiexec.mpich)"
elif [ "$RUN_BASE" = failures ] && [ "$REPORT_ONLY" = 0 ]; then
  RUN_BASE=0
  failed_list=$WORK/pt2pt-failed-testlist
  select_failed_tests "$failed_list" "$failed_list.keys"
  if [ -s "$failed_list" ]; then
    say "[debian] running only the $(wc -l <"$failed_list") test(s) that failed on ours"
    TESTLIST=$failed_list run_suite debian "$(command -v mpicc.mpich)" "$(command -v mpiexec.mpich)"
    cp "$failed_list.keys" "$WORK/pt2pt-debian/keys"
    RUN_BASE=1
  fi
fi

# ------------------------------------------------------------ summary
# TAP lines: "ok N - ./pt2pt/name np # time=..", "not ok N - ..", "ok N - .. # SKIP reason".
# Tests are keyed "name np #k" (k-th occurrence: the testlist repeats a test
# with different arguments or environments).
SUMMARY=$WORK/pt2pt-summary.txt
rc=0
python3 - "$WORK" "$NOTES" "$RUN_OURS" "$RUN_BASE" "$TIMEOUT" "$RUN_EMU" >"$SUMMARY" <<'PY' || rc=$?
import os, re, sys, textwrap
work, notes_file, run_ours, run_base, timeout, run_emu = sys.argv[1:7]
runs = [n for n, on in (("ours", run_ours), ("emulated", run_emu), ("debian", run_base))
        if on == "1"]
LABELS = {"ours": "ours (ch4:multi, shm)",
          "emulated": "ours on 2 emulated nodes (shm+myri)",
          "debian": "Debian mpich 4.0.2 (ch4:ucx)"}

def parse(name):
    res, order, seen, out = {}, [], {}, {}
    cur = None
    # a baseline run of only ours' failures names its tests by their keys in the full list
    keys_file = os.path.join(work, "pt2pt-" + name, "keys")
    renamed = [k.strip() for k in open(keys_file)] if os.path.exists(keys_file) else None
    for line in open(os.path.join(work, "pt2pt-" + name, "summary-pt2pt.tap"), errors="replace"):
        m = re.match(r"(not ok|ok)\s+\d*\s*- \./pt2pt/(\S+) (\d+)(.*)$", line)
        if m:
            status, test, np, rest = m.groups()
            base = "%s %s" % (test, np)
            seen[base] = seen.get(base, 0) + 1
            key = base if seen[base] == 1 else "%s #%d" % (base, seen[base])
            if renamed is not None and len(order) < len(renamed):
                key = renamed[len(order)]
            if "# SKIP" in rest:
                status = "skip"
            elif status == "ok":
                status = "pass"
            else:
                status = "FAIL"
            res[key] = status
            order.append(key)
            cur = key if status == "FAIL" else None
            out[key] = []
        elif cur and line.startswith("## ") and not line.startswith("## Test output"):
            out[cur].append(line[3:].rstrip())
    return res, order, out

notes = {}
if os.path.exists(notes_file):
    for line in open(notes_file):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        key, _, why = line.partition(":")
        notes[key.strip()] = why.strip()

data = {n: parse(n) for n in runs}
lazy_base = "debian" in runs and os.path.exists(os.path.join(work, "pt2pt-debian", "keys"))
if lazy_base:
    LABELS["debian"] += ", only ours' failures"
order = data[runs[0]][1]
for n in runs[1:]:
    order += [k for k in data[n][1] if k not in order]

def runinfo(n, what, default="?"):
    try:
        return open(os.path.join(work, "pt2pt-" + n, what)).read().strip()
    except OSError:
        return default

print("MPICH test/mpi/pt2pt")
for n in runs:
    res = data[n][0]
    run = [k for k in res if res[k] != "skip"]
    passed = [k for k in run if res[k] == "pass"]
    label = LABELS[n]
    print("  %-36s passed %d/%d  (skipped %d xfail; %s s, MPITEST_TIMEOUT=%s s)"
          % (label, len(passed), len(run), len(res) - len(run), runinfo(n, "elapsed"),
             runinfo(n, "timeout", timeout)))
print()
if len(runs) >= 2:
    print("%-34s" % "test" + "".join(" %-9s" % n for n in runs))
    for k in order:
        st = [data[n][0].get(k, "-") for n in runs]
        if any(x != "pass" for x in st):
            print("%-34s" % k + "".join(" %-9s" % x for x in st))
    print("(tests that pass on all are not listed)")
    print()

bad = 0
for n in runs:
    res, _, out = data[n]
    fails = [k for k in order if res.get(k) == "FAIL"]
    if not fails:
        continue
    print("Failures on %s:" % n)
    for k in fails:
        base = re.sub(r" #\d+$", "", k)
        why = notes.get("%s %s" % (n, k)) or notes.get("%s %s" % (n, base)) or \
              notes.get(k) or notes.get(base) or "(no note yet)"
        print("  %s" % k)
        print(textwrap.fill(why, width=100, initial_indent="    why: ",
                            subsequent_indent="         "))
        for l in out[k][:6]:
            print("    | " + l[:150])
        if len(out[k]) > 6:
            print("    | ... (%d more lines in pt2pt-%s/summary-pt2pt.tap)" % (len(out[k]) - 6, n))
    print()

for n in (r for r in runs if r != "debian"):
    ours = data[n][0]
    if "debian" in runs:
        deb = data["debian"][0]
        # a baseline of only ours' failures judges those; one it did not run is ours to explain
        regress = [k for k in order if ours.get(k) not in ("pass", "skip", None) and
                   deb.get(k) != "FAIL"] if lazy_base else \
                  [k for k in order if deb.get(k) == "pass" and ours.get(k) != "pass"]
        print(("Fail on %s but not on Debian's MPICH: %d" if lazy_base else
               "Pass on Debian's MPICH but not on %s: %d") % (LABELS[n], len(regress)))
        for k in regress:
            print("  " + k)
        bad += len(regress)
    else:
        bad += len([k for k in ours if ours[k] == "FAIL"])
sys.exit(1 if bad else 0)
PY
cat "$SUMMARY"
say "summary written to ${SUMMARY#$ROOT/}"
exit $rc
