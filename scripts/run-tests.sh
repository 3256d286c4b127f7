#!/usr/bin/env bash
# The test command (README; .ci/run calls it).  On a fresh Debian 12 machine
# it installs what it needs, builds everything (MPICH from its cache when
# the inputs are unchanged), and runs:
#   - the Criterion unit tests (make check), plain and under ASan/UBSan and
#     TSan builds,
#   - the MPI tests through our MPICH (test/mpi), on one node and across
#     emulated nodes (shm+myri, forwarding through a relay, sci/via split,
#     the OSCAR cluster: test/mpi/emulated.sh), and across three hosts of
#     a namespace test cluster, launched through hydra's ssh launcher, with
#     a link cut under a running job and a stranger writing into one
#     (test/mpi/hosts.sh; the cluster is torn down whatever happens), and
#     under failures (frames dropped, a firmware killed or stopped, a relay
#     killed or stopped: errors, never wrong results or hangs;
#     test/mpi/faults.sh),
#   - a part of MPICH's own test suite against our build (mpich/run-suite.sh
#     --quick: pt2pt, io, attr, group, info and the Fortran 77 and 2008
#     pt2pt tests on one node, on two emulated nodes and (all but pt2pt)
#     with forwarded routes), with Debian's MPICH as the judge of any
#     failure; the whole suite is mpich/run-suite.sh,
#   - the fuzz targets for a bounded time.
# Every step runs even if an earlier one failed; the summary at the end
# says which failed, and the exit status is non-zero if any did.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$MD_ROOT/scripts/setup-deps.sh"
md_autoreconf

# Leaks inside Criterion itself are not ours (test/lsan.supp says which).
export LSAN_OPTIONS="suppressions=$MD_ROOT/test/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

unit_tests() {   # DIR [configure args]
  local dir=$1; shift
  md_configure_build "$dir" "$@" || return 1
  ( cd "$MD_ROOT/$dir" && make -j"$MD_JOBS" check >check.out 2>&1 ) || {
    grep -E '^(FAIL|ERROR)' "$MD_ROOT/$dir/check.out"
    # The log of each failed test (its .trs says FAIL or ERROR), not the
    # suite summaries, which all mention FAIL.
    find "$MD_ROOT/$dir" -name '*.trs' -newer "$MD_ROOT/$dir/Makefile" \
      -exec grep -l -E '^:test-result: (FAIL|ERROR)' {} + 2>/dev/null |
      head -5 | while read -r t; do
        echo "--- ${t%.trs}.log"; tail -60 "${t%.trs}.log"
      done
    return 1
  }
  grep -E '^# (PASS|FAIL|ERROR):' "$MD_ROOT/$dir/check.out" | paste -sd' '
}

install_build() {
  md_configure_build _build && make -C "$MD_ROOT/_build" install >/dev/null
}

mpich_suite() {
  # A part of MPICH's own suite on our build (--quick), on one node (shm),
  # with the ranks spread over two emulated nodes (shm + myri: two
  # subdevices per rank) and over three with forwarded routes; every test
  # that passes on stock MPICH must pass on ours (mpich/suite-notes.txt says
  # why any other fails), so Debian's MPICH runs the tests that failed on
  # ours, not the whole selection again.
  "$MD_ROOT/mpich/run-suite.sh" --quick --timeout "${MD_SUITE_TIMEOUT:-${MD_PT2PT_TIMEOUT:-180}}"
}

fuzz_bounded() {
  FUZZ_SECONDS=${FUZZ_SECONDS:-30} "$MD_ROOT/fuzz/run.sh"
}

md_step "build and install"                  install_build
md_step "MPICH --with-device=multi (cached)" "$MD_ROOT/mpich/build-mpich.sh"
md_step "unit tests"                         unit_tests _build
md_step "MPI tests, one node (shm)"          "$MD_ROOT/test/mpi/run.sh"
md_step "MPI tests, emulated nodes"          "$MD_ROOT/test/mpi/emulated.sh"
md_step "MPI tests, namespace hosts"         "$MD_ROOT/test/mpi/hosts.sh"
md_step "MPI tests, failures"                "$MD_ROOT/test/mpi/faults.sh"
md_step "MPICH test/mpi suite (--quick)"     mpich_suite
md_step "unit tests, ASan+UBSan"             unit_tests _build-asan --enable-sanitizer=address,undefined
md_step "unit tests, TSan"                   unit_tests _build-tsan --enable-sanitizer=thread
md_step "fuzz targets (bounded)"             fuzz_bounded
md_summary
