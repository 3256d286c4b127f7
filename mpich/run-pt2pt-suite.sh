#!/usr/bin/env bash
# mpich/run-pt2pt-suite.sh - MPICH's point-to-point tests (test/mpi/pt2pt)
# only: mpich/run-suite.sh --dirs pt2pt, with the options this script had
# before the whole suite existed.  Results and summary as run-suite.sh's
# (_work/suite/).
#
# Usage: mpich/run-pt2pt-suite.sh [options]
#   --baseline        also run the suite on Debian's MPICH (mpicc.mpich, mpiexec.mpich)
#   --baseline-failures  run on Debian's MPICH only the tests that failed on ours
#   --baseline-only   run it on Debian's MPICH only
#   --emulated        also run it on ours with the ranks cyclic over two
#                     emulated nodes (run-suite.sh's set-up "emulated")
#   --emulated-only   only that run
#   --forwarded       also run it with some routes forwarded (set-up "forwarded")
#   --timeout S, --tests FILE, --prefix DIR, --report-only: as run-suite.sh's
#   -h, --help        this text
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ours=1 emulated=0 forwarded=0 debian=0
args=(--dirs pt2pt)
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) debian=1 ;;
    --baseline-failures) args+=(--baseline-failures) ;;
    --baseline-only) debian=1 ours=0 ;;
    --emulated) emulated=1 ;;
    --emulated-only) emulated=1 ours=0 ;;
    --forwarded) forwarded=1 ;;
    --timeout|--tests|--prefix) [ $# -ge 2 ] || { echo "run-pt2pt-suite: $1 needs a value" >&2; exit 2; }
                                args+=("$1" "$2"); shift ;;
    --timeout=*|--tests=*|--prefix=*|--report-only) args+=("$1") ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-pt2pt-suite: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
setups=()
[ "$ours" = 0 ] || setups+=(ours)
[ "$emulated" = 0 ] || setups+=(emulated)
[ "$forwarded" = 0 ] || setups+=(forwarded)
[ "$debian" = 0 ] || setups+=(debian)
exec "$ROOT/mpich/run-suite.sh" --setups "$(IFS=,; echo "${setups[*]}")" "${args[@]}"
