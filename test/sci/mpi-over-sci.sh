#!/usr/bin/env bash
# MPI over subdev-sci across emulated nodes, with our MPICH (_install) and
# the node files mdconfig writes (doc/network-description.md):
#
#   sci    2 nodes x 2 ranks, and 4 nodes x 1 rank, joined by SCI only:
#          every test of test/mpi/run.sh (off-node traffic over sci)
#   oscar  the OSCAR cluster of P1 (examples/oscar.net): shm inside a node,
#          SCI up to 983 B and Myrinet above between nodes; 2 nodes x 2 ranks
#
#   test/sci/mpi-over-sci.sh [sci|oscar ...] [-- run.sh test names]
#   BUILD=_build-sci test/sci/mpi-over-sci.sh   modules and nicd of a build tree
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
work=$(mktemp -d /tmp/mpi-sci-XXXXXX)
trap 'rm -rf "$work"' EXIT

sets=() tests=()
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; tests=("$@"); break ;;
    sci|oscar) sets+=("$1"); shift ;;
    *) echo "usage: mpi-over-sci.sh [sci|oscar ...] [-- TESTS]" >&2; exit 2 ;;
  esac
done
[ ${#sets[@]} -gt 0 ] || sets=(sci oscar)

if [ -n "${BUILD:-}" ]; then
  b=$(cd "$BUILD" && pwd)
  modpath=$b/src/subdev-sci/.libs:$b/src/subdev-myri/.libs:$b/src/subdev-shm/.libs
  nicd=$b/nic/nicd
else
  modpath=$PREFIX/lib/multidev
  nicd=$PREFIX/bin/nicd
fi
[ -x "$nicd" ] || { echo "mpi-over-sci: no nicd at $nicd" >&2; exit 2; }
[ -x "$PREFIX/bin/mdconfig" ] || { echo "mpi-over-sci: no mdconfig in $PREFIX/bin" >&2; exit 2; }

# run NAME DESC NODES NP: mdconfig DESC, then the MPI tests over NODES
run() {
  local name=$1 desc=$2 nodes=$3 np=$4 rc=0
  "$PREFIX/bin/mdconfig" "$desc" -o "$work/$name.conf" >/dev/null
  echo "== $name: nodes $nodes, $np ranks (mdconfig $(basename "$desc"))"
  NODES="$nodes" MULTIDEV_NIC_RUNDIR=$work/run "$ROOT/test/mpi/run.sh" \
    --launcher "$ROOT/test/mpi/launch-nodes.sh" --np "$np" --build "$work/b-$name" \
    --env MULTIDEV_CONFIG="$work/$name.conf" --env MULTIDEV_MODULE_PATH="$modpath" \
    --env MULTIDEV_NICD="$nicd" --env MULTIDEV_NIC_RUNDIR="$work/run" \
    --env MULTIDEV_STATS=1 ${tests[@]+"${tests[@]}"} || rc=1
  # which subdevices carried the traffic
  find "$work/b-$name" -name '*.log' -exec grep -h " stats " {} + 2>/dev/null |
    sed -n 's/.*stats \([a-z]*\): sent \([0-9]*\) msgs.*/\1 \2/p' |
    awk '{ n[$1] += $2 } END { for (s in n) printf "   messages sent over %s: %d\n", s, n[s] }'
  return $rc
}

fail=0
for s in "${sets[@]}"; do
  case $s in
    sci)
      cat >"$work/sci2.net" <<'NET'
multidev-network 1
node n0 n1 slots=2
network sci0 type=sci latency=8us bandwidth=76MB/s
link sci0 n0 n1
NET
      cat >"$work/sci4.net" <<'NET'
multidev-network 1
node n0 n1 n2 n3 slots=1
network sci0 type=sci latency=8us bandwidth=76MB/s
ring sci0 r0 n0 n1 n2 n3
NET
      run sci-2x2 "$work/sci2.net" "n0 n1" 4 || fail=1
      run sci-4x1 "$work/sci4.net" "n0 n1 n2 n3" 4 || fail=1 ;;
    oscar)
      run oscar "$ROOT/examples/oscar.net" "n1 n2" 4 || fail=1 ;;
  esac
done
exit $fail
