#!/usr/bin/env bash
# test/via/run-mpi.sh - the MPI tests of test/mpi over subdev-via across
# emulated nodes: mdconfig turns a network description (test/via/mpi/*.net:
# via2 = shm + via on two nodes, mix3 = shm + myri + via on three) into
# per-node files, and test/mpi/run.sh launches with test/mpi/launch-nodes.sh.
#
#   BUILD=_build-via test/via/run-mpi.sh [via2|mix3] [run.sh arguments...]
#
# Uses the modules, nicd and libraries of BUILD (default _build-via) ahead
# of the installed ones, and MPICH from _install.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD:-$ROOT/_build-via}" && pwd)
net=${1:-mix3}; shift || true
desc=$ROOT/test/via/mpi/$net.net
[ -f "$desc" ] || { echo "run-mpi: no $desc" >&2; exit 2; }
work=$(mktemp -d /tmp/via-mpi-XXXXXX)
trap 'rm -rf "$work"' EXIT
"$ROOT/_install/bin/mdconfig" "$desc" -o "$work/conf" >/dev/null
nodes=$(sed -n 's/^node \([^ ]*\).*/\1/p' "$work"/conf/*.conf | sort | tr '\n' ' ')
export MULTIDEV_CONFIG=$work/conf
export MULTIDEV_MODULE_PATH=$build/src/subdev-via/.libs:$build/src/subdev-myri/.libs
export LD_LIBRARY_PATH=$build/src/multidev/.libs:$build/nic/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export MULTIDEV_NICD=$build/nic/nicd
export MULTIDEV_NIC_RUNDIR=$work/run
export NODES=$nodes NODE_MAP=${NODE_MAP:-cyclic}
export MPITEST_BUILD=${MPITEST_BUILD:-$work/build}
"$ROOT/test/mpi/run.sh" --launcher "$ROOT/test/mpi/launch-nodes.sh" "$@"
