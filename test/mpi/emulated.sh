#!/usr/bin/env bash
# MPI tests across emulated nodes, with configurations that mdconfig writes
# from the shipped example networks: the test/mpi suite (data checked,
# ANY_SOURCE, ordering, probe, cancel, collectives ...) runs through our
# MPICH on each of these set-ups, every rank on the node MULTIDEV_NODE
# names, each node with its own NIC firmware.
#
#   myri        examples/emulated-4node.net, 4 ranks on 2 nodes: shm inside
#               a node, Myrinet between, so each rank has two subdevices
#   myri4       the same network, 4 ranks on 4 nodes
#   relay       examples/relay-3node.net: a and c share no network, b
#               forwards between them (indirect communication)
#   sci-via     examples/sci-via-pair.net: one pair, small messages over
#               SCI and large ones over VIA (size split, non-overtaking)
#   oscar       examples/oscar.net, 4 ranks on 2 nodes: shm + SCI + Myrinet
#   myri-via    examples/myri-via.net, 4 ranks on 3 nodes (two on p): shm +
#               VIA + Myrinet, p-q split by size between VIA and Myrinet
#   shortcut    test/mpi/nets/shortcut-cheap-forward.net: like relay, with a
#               slow direct VI link a-c that the cheap forwarding at b beats
#               (T-IND-4): a-c is forwarded, the VI link carries nothing
#   shortcut-dear  test/mpi/nets/shortcut-dear-forward.net: the same with a
#               dear forwarding value: a-c goes direct over VI, nothing is
#               forwarded
#   chain       test/mpi/nets/chain-4node.net: a -myri- b -sci- c -via- d,
#               one rank a node: a-d passes two intermediate nodes
#
# After its suite, each set-up runs `coll` (every pair talks) once more with
# MULTIDEV_STATS=1 and checks that every subdevice it names carried bytes
# (fwd: messages forwarded through an intermediate node), and that those
# named with a leading '-' carried none.  relay@R: rank R forwarded
# messages for others.  path@N1,N2,...,Nk: the nodes' configurations route
# Nk through that path (N1's next hop to Nk is N2, and so on; the last
# intermediate reaches Nk directly).  The checks and the list of tests are
# in test/mpi/suite-lib.sh, which test/mpi/hosts.sh shares.  A description
# with a '/' in its name is a path from the project's root, else a file of
# examples/.
#
# Usage: test/mpi/emulated.sh [SETUP...]   (default: all)
# Exit status 0 if every test of every set-up passed.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}/emulated
. "$ROOT/test/mpi/suite-lib.sh"

# setup NAME -> "description|nodes|np|map|subdevices that must carry traffic"
declare -A SETUPS=(
  [myri]="emulated-4node.net|node0 node1|4|block|shm myri"
  [myri4]="emulated-4node.net|node0 node1 node2 node3|4|block|myri"
  [relay]="relay-3node.net|a c b|3|cyclic|myri sci fwd"
  [sci-via]="sci-via-pair.net|a b|2|block|sci via"
  [oscar]="oscar.net|n1 n2|4|block|shm sci myri"
  [myri-via]="myri-via.net|p q r|4|cyclic|shm via myri"
  [shortcut]="test/mpi/nets/shortcut-cheap-forward.net|a c b|3|cyclic|myri sci fwd -via"
  [shortcut-dear]="test/mpi/nets/shortcut-dear-forward.net|a c b|3|cyclic|via -fwd"
  [chain]="test/mpi/nets/chain-4node.net|a b c d|4|block|myri sci via fwd relay@1 relay@2 path@a,b,c,d path@d,c,b,a"
)
ORDER=(myri myri4 relay sci-via oscar myri-via shortcut shortcut-dear chain)

[ -x "$PREFIX/bin/mdconfig" ] && [ -x "$PREFIX/bin/mpicc" ] ||
  { echo "emulated.sh: build first (scripts/build.sh): no mdconfig or mpicc in $PREFIX" >&2; exit 2; }

selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${ORDER[@]}")
mkdir -p "$WORK"
# each run gets its own NIC run directory, so stale firmwares of an
# earlier run cannot be mistaken for this one's
rundir=$(mktemp -d /dev/shm/md-emulated-XXXXXX)
trap 'rm -rf "$rundir"' EXIT


# stats_run SETUP CONF NODES NP MAP: one run of coll with MULTIDEV_STATS=1,
# its output on stdout, for check_carriers.
stats_run() {
  local s=$1 conf=$2 nodes=$3 np=$4 map=$5 out
  out=$(NODES="$nodes" NODE_MAP="$map" MULTIDEV_CONFIG="$conf" MULTIDEV_STATS=1 \
        MULTIDEV_NIC_RUNDIR="$rundir/$s" timeout 120 \
        "$ROOT/test/mpi/launch-nodes.sh" "$np" "$WORK/$s/build/coll" 2>&1) ||
    { echo "FAIL  $s: coll with MULTIDEV_STATS=1 failed" >&2; echo "$out" | tail -5 >&2; return 1; }
  echo "$out"
}

failed=()
for s in "${selected[@]}"; do
  spec=${SETUPS[$s]:-}
  [ -n "$spec" ] || { echo "emulated.sh: no set-up '$s' (have: ${ORDER[*]})" >&2; exit 2; }
  IFS='|' read -r desc nodes np map carriers <<<"$spec"
  conf="$WORK/$s/conf"
  rm -rf "$conf"
  echo "== $s: $desc, $np ranks on nodes: $nodes"
  case "$desc" in */*) desc_path=$ROOT/$desc ;; *) desc_path=$ROOT/examples/$desc ;; esac
  if ! "$PREFIX/bin/mdconfig" "$desc_path" -o "$conf" >/dev/null; then
    echo "emulated.sh: mdconfig failed on $desc" >&2
    failed+=("$s"); continue
  fi
  if ! NODES="$nodes" NODE_MAP="$map" MULTIDEV_CONFIG="$conf" \
       MULTIDEV_NIC_RUNDIR="$rundir/$s" \
       "$ROOT/test/mpi/run.sh" --launcher "$ROOT/test/mpi/launch-nodes.sh" \
       --np "$np" --build "$WORK/$s/build" --env MULTIDEV_STATS=0 "${SUITE_TESTS[@]}"; then
    failed+=("$s")
  elif ! stats=$(stats_run "$s" "$conf" "$nodes" "$np" "$map") ||
       ! check_carriers "$s" "$conf" "$stats" $carriers; then
    failed+=("$s")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "emulated.sh: failed set-ups: ${failed[*]}"
  exit 1
fi
echo "emulated.sh: all set-ups passed (${selected[*]})"
