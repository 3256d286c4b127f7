# test/mpi/suite-lib.sh - what the MPI suites across nodes share (sourced
# by test/mpi/emulated.sh and test/mpi/hosts.sh): the tests they run, and
# the checks that a set-up's traffic went where its description says.  Each
# check prints PASS or FAIL lines and returns non-zero on a failure.
#
#   check_carriers SETUP CONF OUT CHECK...
#
# OUT is the output of one run with MULTIDEV_STATS=1 (every pair talks,
# e.g. coll), CONF the directory of the per-node files.  Each CHECK is
#   NAME        the subdevice NAME carried bytes, summed over the ranks
#               (fwd: messages forwarded through an intermediate node), or
#               system messages (a network that is a rail carries the
#               chunks of striped messages: doc/multidevice.md)
#   -NAME       NAME carried nothing
#   relay@R     rank R forwarded messages for others
#   path@N1,...,Nk  the nodes' configurations route Nk through that path
#               (N1's next hop to Nk is N2, and so on; the last
#               intermediate reaches Nk directly)
# shellcheck shell=bash

# The test/mpi/run.sh tests each set-up runs.
# shellcheck disable=SC2034 # used by the scripts that source this
SUITE_TESTS=(pingpong_check pingpong_anysrc anysource anymix anytag probe cancel
             truncate ssend datatype order coll rma cpi mpiio fortran_f08 fortran_mpi)

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
           n++; if ($6 != next_hop) bad++ } END { exit !(n > 0 && bad == 0) }' \
         "$2/${hop[$i]}.conf"; then
      echo "FAIL  $1: ${hop[$i]} does not route $dst through $next"; return 1
    fi
  done
  echo "PASS  $1: $dst is reached along ${3//,/ -> }"
}

# check_carriers SETUP CONF OUT CHECK...: bytes sent per subdevice over all
# ranks, from the MULTIDEV_STATS lines ("multidev[R] stats NAME: sent N
# msgs B B ..."), and the relay and path checks.
check_carriers() {
  local s=$1 conf=$2 out=$3 sd name bytes rc=0
  shift 3
  for sd in "$@"; do
    case "$sd" in
      relay@*) check_relay "$s" "${sd#relay@}" "$out" || rc=1; continue ;;
      path@*) check_path "$s" "$conf" "${sd#path@}" || rc=1; continue ;;
    esac
    name=${sd#-}
    read -r bytes sys < <(awk -v sd="$name:" '$2 == "stats" && $3 == sd { b += $7
        for (i = 8; i < NF - 1; i++) if ($i == "sysmsgs" && $(i + 1) == "sent") m += $(i + 2) }
        END { print b + 0, m + 0 }' <<<"$out")
    if [ "$sd" != "$name" ]; then
      if [ "$bytes" -eq 0 ] && [ "$sys" -eq 0 ]; then
        echo "PASS  $s: $name carried nothing"
      else
        echo "FAIL  $s: $name carried $bytes bytes and $sys system messages, expected none"; rc=1
      fi
    elif [ "$bytes" -gt 0 ] || [ "$sys" -gt 0 ]; then
      echo "PASS  $s: $sd carried $bytes bytes and $sys system messages"
    else
      echo "FAIL  $s: $sd carried nothing"; rc=1
    fi
  done
  return $rc
}
