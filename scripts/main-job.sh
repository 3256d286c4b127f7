#!/usr/bin/env bash
# The main job (README): on a fresh Debian 12 machine, install what is
# needed, build everything including MPICH with --with-device=multi,
# generate the per-node configurations with mdconfig from the shipped
# example network (examples/emulated-4node.net: four emulated nodes with
# shm inside and Myrinet between them), and run MPI jobs across those
# nodes, printing which subdevice carried how much traffic.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$MD_ROOT/scripts/build.sh"

DESC="$MD_ROOT/examples/emulated-4node.net"
CONF="$MD_ROOT/_work/demo/conf"
rm -rf "$CONF" && mkdir -p "$CONF"
echo
echo "== mdconfig $DESC -> $CONF"
"$MD_PREFIX/bin/mdconfig" "$DESC" -o "$CONF"
ls "$CONF"
echo "-- $CONF/node0.conf"
cat "$CONF/node0.conf"

export MULTIDEV_CONFIG="$CONF" MULTIDEV_STATS=1
export NODES="node0 node1 node2 node3"
launch="$MD_ROOT/test/mpi/launch-nodes.sh"

echo
echo "== cpi on 8 ranks over 4 emulated nodes (2 ranks per node)"
timeout 120 "$launch" 8 "$MD_PREFIX/bin/cpi"

echo
echo "== ping-pong with data check, 0 B .. 4 MiB, rank 0 on node0 <-> rank 1 on node1"
"$MD_PREFIX/bin/mpicc" -O2 -o "$MD_ROOT/_work/demo/pingpong" \
  "$MD_ROOT/bench/pingpong.c" "$MD_ROOT/bench/bench_util.c" "$MD_ROOT/bench/bench_pair.c"
NODES="node0 node1" timeout 300 "$launch" 2 "$MD_ROOT/_work/demo/pingpong" --check
