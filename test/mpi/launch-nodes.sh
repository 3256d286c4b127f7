#!/usr/bin/env bash
# Launches one MPI program over emulated nodes on this machine, as an MPMD
# job of hydra's mpiexec: one segment per node, each with its own
# environment (by default -env MULTIDEV_NODE <node>).  Meant as a
# --launcher for test/mpi/run.sh, or on its own:
#
#   launch-nodes.sh NP PROGRAM [ARGS...]
#
# Environment:
#   NODES        node names, space-separated (default "n0 n1")
#   NODE_MAP     block (default: ranks 0..k-1 on the first node, ...) or
#                cyclic (rank r on node r mod #nodes)
#   NODE_ARGS    launcher arguments added to each node's segment, with %n
#                replaced by the node name (default "-env MULTIDEV_NODE %n")
#   MPIEXEC      launcher (default _install/bin/mpiexec); split on spaces
#   MPIEXEC_ARGS global launcher arguments, before the first segment
#   DRY_RUN=1    print the command instead of running it
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: launch-nodes.sh NP PROGRAM [ARGS...]" >&2; exit 2; }
np=$1; shift
[[ "$np" =~ ^[1-9][0-9]*$ ]] || { echo "launch-nodes.sh: bad rank count '$np'" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
read -r -a nodes <<<"${NODES:-n0 n1}"
read -r -a launcher <<<"${MPIEXEC:-${MULTIDEV_PREFIX:-$ROOT/_install}/bin/mpiexec}"
read -r -a global <<<"${MPIEXEC_ARGS:-}"
node_args=${NODE_ARGS:--env MULTIDEV_NODE %n}
map=${NODE_MAP:-block}
k=${#nodes[@]}
[ "$k" -ge 1 ] || { echo "launch-nodes.sh: NODES is empty" >&2; exit 2; }

# add_segment NODE COUNT PROGRAM [ARGS...]: appends one MPMD segment to cmd.
add_segment() {
  local node=$1 count=$2 node_seg
  shift 2
  read -r -a node_seg <<<"${node_args//%n/$node}"
  if [ "${#cmd[@]}" -gt "$base" ]; then cmd+=(:); fi
  cmd+=(-n "$count" ${node_seg[@]+"${node_seg[@]}"} "$@")
}

cmd=("${launcher[@]}" ${global[@]+"${global[@]}"})
base=${#cmd[@]}
case "$map" in
  block)
    per=$(((np + k - 1) / k)); left=$np
    for node in "${nodes[@]}"; do
      [ "$left" -gt 0 ] || break
      c=$((left < per ? left : per))
      add_segment "$node" "$c" "$@"
      left=$((left - c))
    done ;;
  cyclic)
    for ((r = 0; r < np; r++)); do
      add_segment "${nodes[$((r % k))]}" 1 "$@"
    done ;;
  *) echo "launch-nodes.sh: NODE_MAP is block or cyclic, not '$map'" >&2; exit 2 ;;
esac

if [ "${DRY_RUN:-0}" = 1 ]; then
  printf '%q ' "${cmd[@]}"; echo
  exit 0
fi
exec "${cmd[@]}"
