#!/usr/bin/env bash
# MPI over subdev-myri across emulated nodes: an MPI ping-pong and the
# collectives test (MPI_Alltoall among them), data checked, on 2 and on 4
# emulated nodes of this machine, with our MPICH (_install).  Each node's
# configuration sends every off-node peer over myri (shm inside the node);
# each node gets its own nicd.
#
#   test/myri/mpi-over-myri.sh            subdev-myri and nicd from _install
#   BUILD=_build-nic test/myri/mpi-over-myri.sh   ... from a build tree
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
work=$(mktemp -d /tmp/mpi-myri-XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ -n "${BUILD:-}" ]; then
  b=$(cd "$BUILD" && pwd)
  modpath=$b/src/subdev-myri/.libs
  nicd=$b/nic/nicd
else
  modpath=$PREFIX/lib/multidev
  nicd=$PREFIX/bin/nicd
fi
[ -x "$nicd" ] || { echo "mpi-over-myri: no nicd at $nicd" >&2; exit 2; }

# node_configs K: one file per node n0..n(K-1)
node_configs() {
  local k=$1 dir=$work/cfg$1
  mkdir -p "$dir"
  for ((n = 0; n < k; n++)); do
    {
      echo "multidev-node-config 1"
      echo "node n$n"
      echo "device shm"
      echo "device myri"
      for ((m = 0; m < k; m++)); do
        if [ "$m" = "$n" ]; then echo "route n$m 0 inf shm -"; else echo "route n$m 0 inf myri -"; fi
      done
    } >"$dir/n$n.conf"
  done
  echo "$dir"
}

fail=0
for k in 2 4; do
  nodes=$(seq -s ' ' -f 'n%g' 0 $((k - 1)))
  cfg=$(node_configs "$k")
  echo "== $k emulated nodes ($nodes), 4 ranks, off-node traffic over myri"
  NODES="$nodes" MULTIDEV_NIC_RUNDIR=$work/run "$ROOT/test/mpi/run.sh" \
    --launcher "$ROOT/test/mpi/launch-nodes.sh" --np 4 --build "$work/b$k" \
    --env MULTIDEV_CONFIG="$cfg" --env MULTIDEV_MODULE_PATH="$modpath" \
    --env MULTIDEV_NICD="$nicd" --env MULTIDEV_NIC_RUNDIR="$work/run" \
    --env MULTIDEV_STATS=1 pingpong_check coll || fail=1
  grep -h "stats myri" "$work/b$k/logs/latest/coll.log" | sed 's/^/   /' || true
done
exit $fail
