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
# intermediate reaches Nk directly).  A description with a '/' in its name
# is a path from the project's root, else a file of examples/.
#
# Usage: test/mpi/emulated.sh [SETUP...]   (default: all)
# Exit status 0 if every test of every set-up passed.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}/emulated
TESTS=(pingpong_check pingpong_anysrc anysource anymix anytag probe cancel
       truncate ssend datatype order coll rma cpi)

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

# check_relay SETUP RANK STATS: RANK's forwarding counters (its
# "multidev[R] stats forwarding: ... relayed N msgs ..." line) show relayed
# messages.
check_relay() {
  local n
  n=$(awk -v who="multidev[$2]" '$1 == who && $3 == "forwarding:" {
        for (i = 4; i < NF; i++) if ($i == "relayed") print $(i + 1) }' <<<"$3")
  if [ "${n:-0}" -gt 0 ]; then
    echo "PASS  $1: rank $2 relayed $n messages"
  else
    echo "FAIL  $1: rank $2 relayed nothing"; return 1
  fi
}

# check_path SETUP CONF N1,...,Nk: every route line of Ni to Nk names N(i+1)
# as its next hop, and N(k-1)'s are direct.
check_path() {
  local -a hop
  IFS=, read -r -a hop <<<"$3"
  local k=${#hop[@]} dst=${hop[$((${#hop[@]} - 1))]} i next
  for ((i = 0; i < k - 1; i++)); do
    next=${hop[$((i + 1))]}
    [ "$next" = "$dst" ] && next=-
    if ! awk -v dst="$dst" -v next_hop="$next" '$1 == "route" && $2 == dst {
           n++; if ($6 != next_hop) bad++ } END { exit !(n > 0 && bad == 0) }'          "$2/${hop[$i]}.conf"; then
      echo "FAIL  $1: ${hop[$i]} does not route $dst through $next"; return 1
    fi
  done
  echo "PASS  $1: $dst is reached along ${3//,/ -> }"
}

# check_carriers SETUP CONF NODES NP MAP SUBDEV...: bytes sent per subdevice
# over all ranks of one run of coll, from the MULTIDEV_STATS lines
# ("multidev[R] stats NAME: sent N msgs B B ...").
check_carriers() {
  local s=$1 conf=$2 nodes=$3 np=$4 map=$5 out sd bytes rc=0
  shift 5
  out=$(NODES="$nodes" NODE_MAP="$map" MULTIDEV_CONFIG="$conf" MULTIDEV_STATS=1 \
        MULTIDEV_NIC_RUNDIR="$rundir/$s" timeout 120 \
        "$ROOT/test/mpi/launch-nodes.sh" "$np" "$WORK/$s/build/coll" 2>&1) ||
    { echo "FAIL  $s: coll with MULTIDEV_STATS=1 failed"; echo "$out" | tail -5; return 1; }
  for sd in "$@"; do
    case "$sd" in
      relay@*) check_relay "$s" "${sd#relay@}" "$out" || rc=1; continue ;;
      path@*) check_path "$s" "$conf" "${sd#path@}" || rc=1; continue ;;
    esac
    local name=${sd#-}
    bytes=$(awk -v sd="$name:" '$2 == "stats" && $3 == sd { b += $7 } END { print b + 0 }' <<<"$out")
    if [ "$sd" != "$name" ]; then
      if [ "$bytes" -eq 0 ]; then
        echo "PASS  $s: $name carried nothing"
      else
        echo "FAIL  $s: $name carried $bytes bytes, expected none"; rc=1
      fi
    elif [ "$bytes" -gt 0 ]; then
      echo "PASS  $s: $sd carried $bytes bytes"
    else
      echo "FAIL  $s: $sd carried nothing"; rc=1
    fi
  done
  return $rc
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
       --np "$np" --build "$WORK/$s/build" --env MULTIDEV_STATS=0 "${TESTS[@]}"; then
    failed+=("$s")
  elif ! check_carriers "$s" "$conf" "$nodes" "$np" "$map" $carriers; then
    failed+=("$s")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "emulated.sh: failed set-ups: ${failed[*]}"
  exit 1
fi
echo "emulated.sh: all set-ups passed (${selected[*]})"
