#!/usr/bin/env bash
# An mpiexec for MPICH's runtests that spreads the ranks of each test over
# emulated nodes (test/mpi/launch-nodes.sh): "mpiexec-nodes.sh -n N PROG
# [ARGS...]".  NODES, NODE_MAP and MULTIDEV_CONFIG come from the caller
# (mpich/run-suite.sh sets them for its emulated set-ups).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
np=
while [ $# -gt 0 ]; do
  case "$1" in
    -n|-np) [ $# -ge 2 ] || { echo "mpiexec-nodes.sh: $1 needs a count" >&2; exit 2; }
            np=$2; shift 2 ;;
    -*) echo "mpiexec-nodes.sh: option '$1' is not supported" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ -n "$np" ] && [ $# -ge 1 ] ||
  { echo "usage: mpiexec-nodes.sh -n N PROGRAM [ARGS...]" >&2; exit 2; }
exec "$ROOT/test/mpi/launch-nodes.sh" "$np" "$@"
