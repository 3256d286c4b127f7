#!/usr/bin/env bash
# The MPI suite across three hosts that share nothing but networks: a
# namespace test cluster (test/cluster/nshosts.sh) of h1, h2, h3, each with
# its own network stack, hostname, IPC, processes, /dev/shm and /etc/hosts,
# wired as test/mpi/nets/hosts-3.net says:
#
#   h1 -- myri0 + via0 -- h2 -- sci0 -- h3      (each its own bridge and subnet)
#   h1, h2, h3 -- mgmt0, the network hydra uses
#
# The jobs start as on a real cluster: hydra's mpiexec runs in h1 and
# launches its proxies on h2 and h3 through its ssh launcher, with
# test/cluster/ns-ssh standing in for ssh.  The ranks' node names are their
# hostnames (no MULTIDEV_NODE); -hosts h1,h3,h2 puts rank 0 on h1, 1 on h3,
# 2 on h2, 3 on h1, so ranks 0 and 1 talk through h2 (forwarded), and the
# four-rank tests have two ranks on h1 (shm).  Every job has at least 3
# ranks: a forwarded route needs a rank on its relay.
#
#   0. isolation: each host has its hostname, /dev/shm, SysV IPC and
#      processes; names resolve on the management network; a host reaches
#      another only over a network both are on, and not while its link is down
#   1. the test/mpi suite (the tests emulated.sh runs, test/mpi/suite-lib.sh)
#   2. coll once more with MULTIDEV_STATS=1: shm, via, myri and sci carried
#      bytes, messages were forwarded (fwd) and h2's rank relayed them, and
#      the configurations route h1-h3 through h2 both ways
#   3. cut links: pairs of ranks exchange messages in a loop
#      (test/mpi/cutlink.c) and h3's cable to sci0, its only link, is
#      pulled.  Ranks 0 and 1 must each end with an error naming their peer
#      within the peer timeout (lowered to CUT_TIMEOUT_MS) plus CUT_BOUND_S,
#      and the job must end, not hang.  Pair 2-3 does not need the link.
#        cut-direct  ranks on h2,h3,h1: pair 0-1 is h2-h3, over SCI directly
#        cut-relay   ranks on h1,h3,h2: pair 0-1 is h1-h3, forwarded by h2
#   4. attack: h4, a host with no rank on myri0 and sci0, is a stranger on
#      the job's networks (test/nic/wire_attack).  While a checked pingpong
#      runs h1-h3 (through h2), it replays datagrams of the job captured at
#      h2 (from its own port, and spoofed from their sender's address),
#      forges Myrinet packets with a correct CRC and a made-up MAC or none,
#      sends garbage and floods from 1000 ports.  The job's data must come
#      out intact, h2's firmwares must have dropped each kind (their first
#      drop of a kind is logged), and the next job must start.
#
# No address is set by hand: the description's subnet= attributes say
# which address each firmware binds.
#
# Usage: test/mpi/hosts.sh [isolation|suite|stats|cut-direct|cut-relay|attack]...
#        (default: all, in that order)
# Environment: MD_CLUSTER (cluster name, default mdhosts), MULTIDEV_WORK_DIR.
# Needs root and namespaces (nshosts.sh says what is missing; exit 2).
# The cluster is always torn down, whatever happens.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}/hosts
NSHOSTS=$ROOT/test/cluster/nshosts.sh
DESC=$ROOT/test/mpi/nets/hosts-3.net
export MD_CLUSTER=${MD_CLUSTER:-mdhosts}
# Each emulated network on its own link and subnet; the first is hydra's.
# shellcheck disable=SC2054 # the commas are nshosts.sh's host lists
# h4, on the emulated networks but in no job, is the attack part's stranger.
NETS=(--net mgmt0:10.77.0.0/24 --net myri0:10.77.1.0/24:h1,h2,h4
      --net via0:10.77.2.0/24:h1,h2,h4 --net sci0:10.77.3.0/24:h2,h3,h4)
ATTACK=$ROOT/_build/test/nic/wire_attack
RANK_HOSTS=h1,h3,h2
CUT_TIMEOUT_MS=3000     # the firmwares' peer timeouts in the cut-link test
CUT_BOUND_S=10          # how much later than the timeout an error may come
CUT_GRACE_S=5           # a failed rank waits this long before MPI_Abort (cutlink.c)
. "$ROOT/test/mpi/suite-lib.sh"

for f in mdconfig mpicc mpiexec; do
  [ -x "$PREFIX/bin/$f" ] ||
    { echo "hosts.sh: build first (scripts/build.sh): no $f in $PREFIX/bin" >&2; exit 2; }
done
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(isolation suite stats cut-direct cut-relay attack)
for p in "${parts[@]}"; do
  case "$p" in
    isolation|suite|stats|cut-direct|cut-relay|attack) ;;
    *) echo "hosts.sh: isolation, suite, stats, cut-direct, cut-relay or attack, not '$p'" >&2
       exit 2 ;;
  esac
done
if [[ " ${parts[*]} " == *" attack "* ]] && [ ! -x "$ATTACK" ]; then
  make -C "$ROOT/_build/test/nic" wire_attack >/dev/null 2>&1 ||
    { echo "hosts.sh: cannot build $ATTACK (build the project first)" >&2; exit 2; }
fi

conf=$WORK/conf
rm -rf "$conf" && mkdir -p "$WORK/build" || exit 2
"$PREFIX/bin/mdconfig" "$DESC" -o "$conf" >/dev/null ||
  { echo "hosts.sh: mdconfig failed on $DESC" >&2; exit 2; }

# A cluster of this name left by a run that was killed is ours to remove.
"$NSHOSTS" down "$MD_CLUSTER" >/dev/null || exit 2
trap '"$NSHOSTS" down "$MD_CLUSTER"' EXIT
trap 'exit 130' INT     # (the EXIT trap then tears the cluster down)
trap 'exit 143' TERM
"$NSHOSTS" up "$MD_CLUSTER" --hosts h1,h2,h3,h4 "${NETS[@]}" || exit $?

# The launcher, as run.sh calls it: CMD -n N [ARGS] PROGRAM ...
# launcher RANK_HOSTS: the command, with the ranks on those hosts in turn.
launcher() {
  echo "$NSHOSTS exec $MD_CLUSTER h1 $PREFIX/bin/mpiexec -hosts $1" \
       "-launcher ssh -launcher-exec $ROOT/test/cluster/ns-ssh"
}
MPIEXEC=$(launcher "$RANK_HOSTS")
export MULTIDEV_CONFIG=$conf

# in_host HOST CMD...: CMD in HOST's namespaces.
in_host() { local h=$1; shift; "$NSHOSTS" exec "$MD_CLUSTER" "$h" "$@"; }

# udp_delivered FROM TO ADDR: a datagram sent from host FROM to ADDR (an
# address of host TO) arrives there within 2 s.
udp_delivered() {
  local got
  got=$(in_host "$2" timeout 3 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 47999)); s.settimeout(2)
try: print(s.recv(64).decode())
except OSError: pass' "$3" & sleep 0.3
        in_host "$1" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(20):
    try: s.sendto(b"probe", (sys.argv[1], 47999))
    except OSError: pass
    time.sleep(0.05)' "$3"
        wait)
  [ "$got" = probe ]
}

# isolation: the hosts share nothing but the networks made for them.
# (ok and bad always succeed, so "check && ok || bad" is an if-else.)
# shellcheck disable=SC2015
isolation() {
  local rc=0 h v
  ok() { echo "PASS  isolation: $*"; }
  bad() { echo "FAIL  isolation: $*"; rc=1; }
  for h in h1 h2 h3; do
    v=$(in_host "$h" hostname)
    [ "$v" = "$h" ] && ok "$h's hostname is $v" || bad "$h's hostname is '$v'"
  done
  v=$(in_host h2 getent hosts h1 | awk '{ print $1 }')
  [ "$v" = 10.77.0.1 ] && ok "h2 resolves h1 to $v (its /etc/hosts)" || bad "h2 resolves h1 to '$v'"
  in_host h1 sh -c 'echo x >/dev/shm/nshosts-probe'
  if [ ! -e /dev/shm/nshosts-probe ] && ! in_host h2 test -e /dev/shm/nshosts-probe; then
    ok "h1's /dev/shm is its own"
  else
    bad "a file of h1's /dev/shm is seen elsewhere"
  fi
  v=$(in_host h1 sh -c 'ipcmk -M 4096 >/dev/null && ipcs -m | grep -c "^0x"')
  if [ "${v:-0}" -ge 1 ] && [ "$(in_host h2 sh -c 'ipcs -m | grep -c "^0x"')" -eq 0 ]; then
    ok "h1's SysV segment is not seen on h2"
  else
    bad "SysV IPC is shared (h1 sees ${v:-0} segments)"
  fi
  v=$(in_host h3 ps -e --no-headers | wc -l)
  [ "$v" -lt 10 ] && ok "h3 sees $v processes, its own" || bad "h3 sees $v processes"
  ip -4 -o addr | grep -q ' 10\.77\.' && bad "the machine's network namespace has a 10.77 address" ||
    ok "the machine's network namespace has no cluster address"
  udp_delivered h1 h2 10.77.1.2 && ok "h1 reaches h2 over myri0" || bad "h1 does not reach h2 over myri0"
  udp_delivered h1 h3 10.77.3.3 && bad "h1 reaches h3's sci0 address (h1 is not on sci0)" ||
    ok "h1 does not reach h3's sci0 address"
  "$NSHOSTS" link "$MD_CLUSTER" h1 myri0 down
  udp_delivered h1 h2 10.77.1.2 && bad "h1 reaches h2 over myri0 with its link down" ||
    ok "h1's myri0 link down: nothing arrives"
  "$NSHOSTS" link "$MD_CLUSTER" h1 myri0 up
  udp_delivered h1 h2 10.77.1.2 && ok "h1's myri0 link up again: delivered" ||
    bad "h1 does not reach h2 over myri0 after the link came up"
  return $rc
}

# suite: the test/mpi tests, each job across the three hosts.
suite() {
  # at least 3 ranks: a forwarded route needs a rank on its relay (h2)
  "$ROOT/test/mpi/run.sh" --mpiexec "$MPIEXEC" --np 3 \
    --build "$WORK/build" --env MULTIDEV_STATS=0 "${SUITE_TESTS[@]}"
}

# stats: where coll's traffic went.
stats() {
  local out
  "$ROOT/test/mpi/run.sh" --mpiexec "$MPIEXEC" \
    --build "$WORK/build" coll >/dev/null || { echo "FAIL  hosts: coll does not build or run"; return 1; }
  # shellcheck disable=SC2086 # MPIEXEC is words
  out=$(MULTIDEV_STATS=1 timeout --kill-after=10 120 $MPIEXEC -n 4 \
        "$WORK/build/coll" 2>&1 </dev/null) ||
    { echo "FAIL  hosts: coll with MULTIDEV_STATS=1 failed"; tail -5 <<<"$out"; return 1; }
  check_carriers hosts "$conf" "$out" shm via myri sci fwd relay@2 path@h1,h2,h3 path@h3,h2,h1
}

cut-direct() { cut_link cut-direct h2,h3,h1; }
cut-relay() { cut_link cut-relay h1,h3,h2; }

# cut_link NAME RANK_HOSTS: a pulled cable ends the ranks that need it with
# an error, in time; h3's link to sci0 is pulled under pair 0-1.
cut_link() {
  local cut=$1 out=$WORK/$1.out exe=$WORK/build/cutlink pid t rc t_cut t_end r line waited
  local limit=$((CUT_TIMEOUT_MS / 1000 + CUT_BOUND_S)) fail=0 hung=0 MPIEXEC secs
  # the job ends once a failed rank's grace is over and hydra has ended the rest
  local end_limit=$((CUT_TIMEOUT_MS / 1000 + CUT_BOUND_S + CUT_GRACE_S))
  MPIEXEC=$(launcher "$2")
  "$PREFIX/bin/mpicc" -O2 -Wall -o "$exe" "$ROOT/test/mpi/cutlink.c" ||
    { echo "FAIL  $cut: cutlink.c does not compile"; return 1; }
  # shellcheck disable=SC2086 # MPIEXEC is words
  MULTIDEV_SCI_PEER_TIMEOUT_MS=$CUT_TIMEOUT_MS MULTIDEV_SCI_TIMEOUT_MS=$CUT_TIMEOUT_MS \
  MULTIDEV_MYRI_PEER_TIMEOUT_MS=$CUT_TIMEOUT_MS MULTIDEV_VIA_PEER_TIMEOUT_MS=$CUT_TIMEOUT_MS \
    timeout --kill-after=5 120 $MPIEXEC -n 4 "$exe" --trips 1000000 --others 200 --grace "$CUT_GRACE_S" \
    >"$out" 2>&1 </dev/null &
  pid=$!
  # Cut once both ranks of pair 0-1 have made a round trip (at most 60 s).
  for ((t = 0; t < 600; t++)); do
    [ "$(grep -c -E '^cutlink: rank [01] on .*: exchanging' "$out")" -eq 2 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ "$(grep -c -E '^cutlink: rank [01] on .*: exchanging' "$out")" -ne 2 ]; then
    echo "FAIL  $cut: pair 0-1 did not start exchanging"; kill "$pid" 2>/dev/null
    wait "$pid"; sed 's/^/      | /' "$out" | tail -20; return 1
  fi
  sleep 0.5
  t_cut=$(date +%s.%N)
  "$NSHOSTS" link "$MD_CLUSTER" h3 sci0 down || { kill "$pid"; wait "$pid"; return 1; }
  echo "      cut h3's link to sci0"
  # The job has end_limit seconds to end; then it is stopped.
  for ((t = 0; t < end_limit * 10; t++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    hung=1
    kill "$pid" 2>/dev/null   # timeout passes it on to mpiexec in h1
  fi
  wait "$pid"
  rc=$?
  t_end=$(date +%s.%N)
  secs=$(awk -v a="$t_cut" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
  "$NSHOSTS" link "$MD_CLUSTER" h3 sci0 up || true
  echo "      the job ended with status $rc, $secs s after the cut; the ranks printed" \
       "(of the 'waiting' lines, each rank's last):"
  awk '/: waiting for rank/ { w[$3] = $0; next } { print } END { for (r in w) print w[r] }' "$out" |
    grep -v '^$' | sed 's/^/      | /' | head -40

  if [ "$hung" -eq 1 ]; then
    echo "FAIL  $cut: the job still ran $end_limit s after the cut (then stopped)"; fail=1
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "FAIL  $cut: the job hung (killed by its timeout)"; fail=1
  elif [ "$rc" -eq 0 ]; then
    echo "FAIL  $cut: the job succeeded although h3 lost its only link"; fail=1
  fi
  # Each rank that needs the link says which peer failed, in time.
  for r in 0 1; do
    line=$(grep -E "^cutlink: rank $r on [^:]*: exchange with rank $((r ^ 1)) on [^ ]+ failed after" "$out" | head -1)
    if [ -z "$line" ]; then
      echo "FAIL  $cut: rank $r reported no failed exchange with rank $((r ^ 1))"; fail=1
      continue
    fi
    waited=$(sed -E 's/.* ([0-9.]+) s after the last one completed.*/\1/' <<<"$line")
    if awk -v w="$waited" -v lim="$limit" 'BEGIN { exit !(w <= lim) }'; then
      echo "PASS  $cut: rank $r failed ${waited} s after its last round trip (limit $limit s): ${line#*: exchange with }"
    else
      echo "FAIL  $cut: rank $r failed only ${waited} s after its last round trip (limit $limit s)"; fail=1
    fi
  done
  [ "$hung" -eq 1 ] || echo "PASS  $cut: the job ended $secs s after the cut (limit $end_limit s)"
  return $fail
}

# attack: a stranger (h4) writes into a running job; nothing gets in.
attack() {
  local out=$WORK/attack.out cap=$WORK/attack.cap pid target rc=0 line kind
  local -a kinds=("its MAC is not its job's" "not our envelope"
                  "replayed (or duplicated on the way)|its sender sends from another address")
  "$ROOT/test/mpi/run.sh" --mpiexec "$MPIEXEC" --np 3 --build "$WORK/build" pingpong_check \
    >/dev/null || { echo "FAIL  attack: pingpong does not build or run"; return 1; }
  # ranks 0 (h1) and 1 (h3) ping-pong through h2, checking every byte
  # shellcheck disable=SC2086 # MPIEXEC is words
  timeout --kill-after=5 120 $MPIEXEC -n 3 "$WORK/build/pingpong" --check --min-size 8 \
    --max-size 256K --iters 3000 --warmup 10 >"$out" 2>&1 </dev/null &
  pid=$!
  # a datagram of the job arriving at h2, caught there (any of its firmwares)
  line=$(in_host h2 "$ATTACK" capture --count 8 --timeout-ms 30000 --out "$cap") ||
    { echo "FAIL  attack: no datagram of the job seen at h2"; kill "$pid"; wait "$pid"; return 1; }
  target=$(awk '{ print $4 }' <<<"$line")
  echo "      captured at h2: $line"
  in_host h4 "$ATTACK" replay --in "$cap" --to "$target" >/dev/null &&
    in_host h4 "$ATTACK" replay --in "$cap" --to "$target" --spoof >/dev/null &&
    in_host h4 "$ATTACK" forge --in "$cap" --to "$target" >/dev/null &&
    in_host h4 "$ATTACK" garbage --to "$target" --count 300 >/dev/null &&
    in_host h4 "$ATTACK" flood --to "$target" --ports 1000 >/dev/null ||
    { echo "FAIL  attack: h4 could not send its datagrams to $target"; rc=1; }
  echo "      from h4 to $target: replays (own port, spoofed), 100 forged packets, 300" \
       "garbage datagrams, 2000 from 1000 ports"
  wait "$pid" || { echo "FAIL  attack: the job failed under attack"; tail -15 "$out" | sed 's/^/      | /'; return 1; }
  if grep -q '^# check: all bytes verified (0 error(s))' "$out"; then
    echo "PASS  attack: the job's data came out intact ($(grep -c '^ *[0-9]' "$out") sizes checked)"
  else
    echo "FAIL  attack: the data check did not pass"; rc=1
  fi
  for kind in "${kinds[@]}"; do
    if grep -E "dropped a datagram from 10\.77\.[0-9]+\.4:[0-9]+: ($kind)" "$out" | head -1 | grep -q .; then
      echo "PASS  attack: a firmware dropped h4's datagram: $kind"
    else
      echo "FAIL  attack: no firmware reported dropping '$kind' from h4"; rc=1
    fi
  done
  "$ROOT/test/mpi/run.sh" --mpiexec "$MPIEXEC" --np 3 --build "$WORK/build" cpi >/dev/null &&
    echo "PASS  attack: the next job starts and runs (cpi)" ||
    { echo "FAIL  attack: the next job (cpi) failed"; rc=1; }
  return $rc
}

failed=()
for p in "${parts[@]}"; do
  echo "== hosts: $p (cluster $MD_CLUSTER: h1 h2 h3)"
  "$p" || failed+=("$p")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "hosts.sh: failed: ${failed[*]}"
  exit 1
fi
echo "hosts.sh: all passed (${parts[*]})"
