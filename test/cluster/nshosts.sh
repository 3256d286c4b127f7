#!/usr/bin/env bash
# test/cluster/nshosts.sh - a test cluster of "hosts" made of Linux namespaces.
#
# Each host is a holder process in its own net, UTS, IPC, PID and mount
# namespace: its own hostname, loopback, SysV IPC, process tree, a private
# /dev/shm (tmpfs) and a private /etc/hosts.  So nothing but the networks
# made here joins two hosts, as on a real cluster (DESIGN.md, invariant 6);
# the file system is shared, as a cluster's NFS home would be.
#
# Each network is a Linux bridge in a "switch" namespace of the cluster (a
# holder too).  An attached host gets one veth, created from inside the
# switch namespace with its other end placed in the host's namespace, named
# after the network and given address .<i> of the network's subnet, where i
# is the host's position in --hosts (1-based).  The machine's own network
# namespace is never touched: tests only use loopback and namespaces they
# make.  The first network is the management network: every host is on it,
# and every host's /etc/hosts maps every host name to its address there
# (hydra's proxies resolve the launching host by that name).  Each host
# runs an ns-sshd (test/cluster/ns-sshd): the way test/cluster/ns-ssh, the
# ssh of hydra's launcher, starts commands in it from another host.
#
#   nshosts.sh up NAME --hosts h1,h2,h3 --net NET:A.B.C.D/N[:h1,h2] ... [--mtu BYTES]
#   nshosts.sh exec NAME HOST CMD [ARGS...]   run CMD in HOST's namespaces, in
#                                             the same directory, same environment
#                                             (from the machine; inside a host,
#                                             use ns-ssh)
#   nshosts.sh link NAME HOST NET down|up     cut or restore HOST's cable on NET
#   nshosts.sh loss NAME HOST NET PERCENT     drop PERCENT (0-100; 0 stops it) of
#                                             the UDP packets that reach HOST on NET
#   nshosts.sh loss NAME HOST NET show        how many were seen and dropped
#   nshosts.sh addr NAME HOST NET             print HOST's address on NET
#   nshosts.sh show NAME                      hosts, holders and networks
#   nshosts.sh down NAME                      end the holders, remove everything,
#                                             check that nothing is left
#
# State: ${MULTIDEV_WORK_DIR:-<checkout>/_work}/cluster/NAME.  A caller makes
# sure of the teardown with a trap:
#   trap 'test/cluster/nshosts.sh down c1' EXIT
#   test/cluster/nshosts.sh up c1 --hosts h1,h2 --net mgmt:10.9.0.0/24
# and `up` itself removes what it made if it fails half-way.
#
# Needs root, unshare, nsenter and ip, and a kernel that gives all five
# namespace kinds, bridges and veths; without them it exits with status 2
# and one line naming what is missing.  Other errors: status 1.
#
# `loss` needs nft (nftables) and ethtool; this kernel has no netem.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
BASE=${MULTIDEV_WORK_DIR:-$ROOT/_work}/cluster
READY_SECONDS=10        # how long a holder may take to set itself up
GONE_SECONDS=10         # how long ended holders may take to disappear

die() { echo "nshosts.sh: $*" >&2; exit 1; }
refuse() { echo "nshosts.sh: cannot make namespace hosts: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'; }

# ---------------------------------------------------------------- checks

# preflight: everything `up` needs, or status 2 naming what is missing.
preflight() {
  local t out
  [ "$(id -u)" -eq 0 ] || refuse "not root (namespaces, bridges and veths need CAP_SYS_ADMIN and CAP_NET_ADMIN)"
  for t in unshare nsenter ip mount; do
    command -v "$t" >/dev/null || refuse "no '$t' command (util-linux, iproute2)"
  done
  out=$(unshare --fork --pid --mount-proc --net --uts --ipc --mount true 2>&1) ||
    refuse "the kernel refuses new pid/net/uts/ipc/mount namespaces: $out"
  # A throw-away network namespace: the bridge and veth in it vanish with it.
  out=$(unshare --net sh -c 'ip link add nsh-probe type bridge &&
          ip link add nsh-p0 type veth peer name nsh-p1' 2>&1) ||
    refuse "the kernel refuses bridges or veth pairs: $out"
}

# check_name WHAT NAME: names become interface and file names.
check_name() {
  [[ "$2" =~ ^[a-z][a-z0-9]*$ ]] && [ ${#2} -le 12 ] && return 0
  die "$1 '$2': use a lower-case letter then letters and digits, at most 12"
}

# ---------------------------------------------------------------- addresses

# shellcheck disable=SC2086 # split on the dots
ip2int() { local IFS=.; set -- $1; echo $((($1 << 24) | ($2 << 16) | ($3 << 8) | $4)); }
int2ip() { echo "$(($1 >> 24 & 255)).$(($1 >> 16 & 255)).$(($1 >> 8 & 255)).$(($1 & 255))"; }

# host_addr SUBNET/PREFIX INDEX: address INDEX of the subnet.
host_addr() {
  local net=${1%/*} prefix=${1#*/} base
  base=$(ip2int "$net")
  [ "$2" -lt $(((1 << (32 - prefix)) - 1)) ] ||
    die "subnet $1 has no address .$2 for host $2 (too small for the hosts)"
  int2ip $(((base & ~((1 << (32 - prefix)) - 1)) + $2))
}

# ---------------------------------------------------------------- state

state_of() { echo "$BASE/$1"; }

need_cluster() {
  check_name cluster "$1"
  CLUSTER=$1
  STATE=$(state_of "$1")
  [ -f "$STATE/hosts.list" ] || die "no cluster '$1' is up (no $STATE/hosts.list)"
}

# start_time PID: the process's start time (field 22 of its stat), which
# tells a holder from a later process that got its pid again.
start_time() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }   # after the command name, which may hold spaces
  # shellcheck disable=SC2086 # split into fields
  set -- $stat
  echo "${20}"
}

# holder_ns WHAT: the directory of the namespace files of holder WHAT (a
# host, or switch), checked to be the process that up started.
holder_ns() {
  local rec="$STATE/holders/$1" pid start
  [ -f "$rec" ] || die "cluster $CLUSTER has no host '$1' (see: nshosts.sh show $CLUSTER)"
  read -r pid start _ <"$rec"
  # (inside a host, /proc shows that host's processes only: from there,
  # ns-ssh reaches the others)
  [ "$(start_time "$pid" || true)" = "$start" ] ||
    die "no holder of $1 (pid $pid) in this /proc: run this on the machine, not in a host" \
        "(there, use test/cluster/ns-ssh), or the cluster is broken (nshosts.sh down $CLUSTER)"
  echo "/proc/$pid/ns"
}

# ---------------------------------------------------------------- holders

# The pid-1 of a holder's namespaces (this script again, run by unshare):
# sets the namespace up, starts the host's ns-sshd (the way in for
# ns-ssh), says so, then only reaps orphans until killed.  Bash as pid 1
# reaps every child that ends, adopted ones too (nicd daemons of the host
# double-fork and end up here).
holder_main() {
  local state=$1 dir=$1/holders/$2.d host=${3:-} t
  trap 'exit 0' TERM INT
  ip link set lo up
  if [ -n "$host" ]; then
    echo "$host" >/proc/sys/kernel/hostname
    mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
    mount --bind "$state/etc-hosts" /etc/hosts
    # A sysfs of this network namespace: /sys/class/net lists the host's
    # own interfaces, not the machine's (UCX, for one, finds its TCP
    # devices there).  The machine's cgroup tree moves over to it.
    if mountpoint -q /sys/fs/cgroup; then
      mkdir -p "$dir/cgroup"
      mount --rbind /sys/fs/cgroup "$dir/cgroup"
    fi
    mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
    if [ -d "$dir/cgroup" ]; then mount --move "$dir/cgroup" /sys/fs/cgroup; fi
    "$(dirname "$SELF")/ns-sshd" "$dir/sshd.sock" </dev/null &
    for ((t = 0; t < READY_SECONDS * 20; t++)); do
      [ -S "$dir/sshd.sock" ] && break
      sleep 0.05
    done
  fi
  : >"$dir/ready"
  while :; do sleep 3600 & wait $! || true; done
}

# start_holder WHAT [HOST]: starts the holder WHAT (a host name, or
# "switch") and records it in holders/WHAT as
#   INIT_PID INIT_START UNSHARE_PID UNSHARE_START NET_NS PID_NS MNT_NS
# unshare's own pid is recorded at once (holders/WHAT.unshare), so that a
# holder that never gets ready is ended too; --kill-child makes the end of
# unshare the end of its pid-1, and so of the holder's pid namespace.
start_holder() {
  local what=$1 dir=$STATE/holders/$1.d upid init t ns
  mkdir -p "$dir"
  # stdio to a file: a caller's $(...) must not wait for the holders.
  unshare --fork --kill-child --pid --mount-proc --net --uts --ipc --mount \
    --propagation private "$SELF" _holder "$STATE" "$what" ${2:+"$2"} \
    </dev/null >"$dir/log" 2>&1 &
  upid=$!
  disown "$upid"   # ended by down, not waited for here
  echo "$upid $(start_time "$upid")" >"$STATE/holders/$what.unshare"
  for ((t = 0; t < READY_SECONDS * 20; t++)); do
    [ -f "$dir/ready" ] && break
    kill -0 "$upid" 2>/dev/null || die "holder of $what failed: $(tail -3 "$dir/log")"
    sleep 0.05
  done
  [ -f "$dir/ready" ] || die "holder of $what not ready after ${READY_SECONDS}s: $(tail -3 "$dir/log")"
  init=$(ps -o pid= --ppid "$upid" | tr -d ' ')
  [ -n "$init" ] || die "holder of $what: no process under unshare $upid"
  ns=$(readlink "/proc/$init/ns/net" "/proc/$init/ns/pid" "/proc/$init/ns/mnt" | paste -sd' ')
  echo "$init $(start_time "$init") $upid $(start_time "$upid") $ns" >"$STATE/holders/$what"
}

# in_switch CMD...: runs CMD in the switch's network namespace; in_host
# HOST CMD...: in HOST's.
in_switch() { nsenter --net="$(holder_ns switch)/net" -- "$@" || die "in the switch: '$*' failed"; }
in_host() {
  local h=$1; shift
  nsenter --net="$(holder_ns "$h")/net" -- "$@" || die "in host $h: '$*' failed"
}

# ---------------------------------------------------------------- up

cmd_up() {
  local name=${1:-} hosts="" mtu=1500 nets=() spec
  [ -n "$name" ] || die "up: which cluster? (nshosts.sh up NAME --hosts ... --net ...)"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --hosts) hosts=${2:?--hosts wants h1,h2,...}; shift 2 ;;
      --net) nets+=("${2:?--net wants NET:A.B.C.D/N[:h1,h2]}"); shift 2 ;;
      --mtu) mtu=${2:?--mtu wants bytes}; shift 2 ;;
      *) die "up: unknown argument '$1'" ;;
    esac
  done
  check_name cluster "$name"
  CLUSTER=$name
  [ -n "$hosts" ] || die "up: --hosts h1,h2,... is required"
  [ ${#nets[@]} -gt 0 ] || die "up: at least one --net (the first is the management network)"
  if ! [[ "$mtu" =~ ^[0-9]+$ ]] || [ "$mtu" -lt 576 ] || [ "$mtu" -gt 65535 ]; then
    die "up: --mtu wants 576..65535, not '$mtu'"
  fi

  local -a host_list
  IFS=, read -r -a host_list <<<"$hosts"
  local -A index=()
  local i h
  for i in "${!host_list[@]}"; do
    h=${host_list[$i]}
    check_name host "$h"
    [ "$h" != switch ] || die "up: 'switch' is the name of the cluster's switch namespace"
    [ -z "${index[$h]:-}" ] || die "up: host '$h' given twice"
    index[$h]=$((i + 1))
  done

  # Parse every network before making anything.
  local -a net_names=() net_subnets=() net_members=()
  local -A seen_net=()
  local net subnet members m
  for spec in "${nets[@]}"; do
    IFS=: read -r net subnet members <<<"$spec"
    check_name network "$net"
    [ ${#net} -le 11 ] || die "network '$net': at most 11 characters (the switch names its bridge br$net)"
    [ -z "${seen_net[$net]:-}" ] || die "up: network '$net' given twice"
    seen_net[$net]=1
    [[ "$subnet" =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/([0-9]|[12][0-9]|30)$ ]] ||
      die "network '$net': expected a subnet A.B.C.D/N (N at most 30), got '$subnet'"
    members=${members:-$hosts}
    IFS=, read -r -a m <<<"$members"
    for h in "${m[@]}"; do
      [ -n "${index[$h]:-}" ] || die "network '$net': '$h' is not one of --hosts $hosts"
      [ $((${#h} + 1 + ${#net})) -le 15 ] ||
        die "network '$net', host '$h': '$h-$net' is longer than an interface name may be (15)"
      host_addr "$subnet" "${index[$h]}" >/dev/null
    done
    if [ ${#net_names[@]} -eq 0 ] && [ ${#m[@]} -ne ${#host_list[@]} ]; then
      die "network '$net' is the management network (the first): every host must be on it"
    fi
    net_names+=("$net"); net_subnets+=("$subnet"); net_members+=("$members")
  done

  preflight
  STATE=$(state_of "$name")
  [ ! -e "$STATE" ] || die "cluster '$name' exists ($STATE); nshosts.sh down $name first"
  mkdir -p "$STATE/holders"
  # From here on a failure removes what was made.
  # shellcheck disable=SC2064 # the name now; it is checked to be a plain word
  trap "echo 'nshosts.sh: up $name failed; removing what it made' >&2; cmd_down $name >&2; exit 1" EXIT

  # Every host finds every other by name on the management network; the
  # host's own name too, so it does not resolve to a loopback address
  # (hydra tells the proxies to call back the launching host by name).
  {
    echo "127.0.0.1 localhost"
    echo "::1 localhost ip6-localhost ip6-loopback"
    for h in "${host_list[@]}"; do
      echo "$(host_addr "${net_subnets[0]}" "${index[$h]}") $h"
    done
  } >"$STATE/etc-hosts"
  printf '%s\n' "${host_list[@]}" >"$STATE/hosts.list.tmp"

  start_holder switch
  for h in "${host_list[@]}"; do start_holder "$h" "$h"; done

  local k pid addr
  for k in "${!net_names[@]}"; do
    net=${net_names[$k]}; subnet=${net_subnets[$k]}
    in_switch ip link add "br$net" type bridge
    in_switch ip link set "br$net" mtu "$mtu" up
    IFS=, read -r -a m <<<"${net_members[$k]}"
    for h in "${m[@]}"; do
      read -r pid _ <"$STATE/holders/$h"
      addr=$(host_addr "$subnet" "${index[$h]}")
      # made here, the host's end moved straight into its namespace
      in_switch ip link add "$h-$net" mtu "$mtu" type veth peer name "$net" netns "$pid"
      in_switch ip link set "$h-$net" master "br$net" up
      in_host "$h" ip addr add "$addr/${subnet#*/}" dev "$net"
      in_host "$h" ip link set "$net" mtu "$mtu" up
    done
    echo "$net $subnet ${net_members[$k]} $mtu" >>"$STATE/nets"
  done
  mv "$STATE/hosts.list.tmp" "$STATE/hosts.list"
  trap - EXIT
  echo "nshosts.sh: cluster $name up: hosts ${host_list[*]}; networks ${net_names[*]} (state $STATE)"
}

# ---------------------------------------------------------------- down

# end_holder WHAT: kills a holder's unshare (--kill-child takes its pid-1,
# and so every process of its pid namespace, with it) and its pid-1, if they
# are still the processes started (same start time).
end_holder() {
  local init istart upid ustart
  if [ -f "$STATE/holders/$1" ]; then
    read -r init istart _ <"$STATE/holders/$1"
    if [ "$(start_time "$init" || true)" = "$istart" ]; then kill -KILL "$init" 2>/dev/null || true; fi
  fi
  read -r upid ustart <"$STATE/holders/$1.unshare"
  if [ "$(start_time "$upid" || true)" = "$ustart" ]; then kill -KILL "$upid" 2>/dev/null || true; fi
}

# namespace_users NS...: pids of processes in one of these namespaces.
namespace_users() {
  local p ns kind want
  for p in /proc/[0-9]*; do
    for kind in net pid mnt; do
      ns=$(readlink "$p/ns/$kind" 2>/dev/null) || continue
      for want in "$@"; do [ "$ns" != "$want" ] || { echo "${p#/proc/}"; continue 3; }; done
    done
  done
  return 0
}

cmd_down() {
  local name=${1:-} rec what t left nss=() n=0
  [ -n "$name" ] || die "down: which cluster?"
  check_name cluster "$name"
  STATE=$(state_of "$name")
  [ -d "$STATE" ] || { echo "nshosts.sh: no cluster '$name' ($STATE); nothing to do"; return 0; }
  for rec in "$STATE"/holders/*.unshare; do
    [ -f "$rec" ] || continue
    what=$(basename "$rec" .unshare)
    if [ -f "$STATE/holders/$what" ]; then
      read -r -a rec <"$STATE/holders/$what"
      nss+=("${rec[@]:4}")
    fi
    end_holder "$what"
    n=$((n + 1))
  done
  left=""
  for ((t = 0; t < GONE_SECONDS * 10; t++)); do
    left=$(namespace_users ${nss[@]+"${nss[@]}"})
    [ -z "$left" ] && break
    sleep 0.1
  done
  # shellcheck disable=SC2086 # one line of pids
  [ -z "$left" ] || die "down $name: processes still in its namespaces after ${GONE_SECONDS}s:" $left
  # A namespace lives on while a process is in it or a file pins it (ip
  # netns does that; we never do).  With no process left, the bridges,
  # veths, tmpfs and bind mounts went with them; none may be here.
  if findmnt -rn -o TARGET,SOURCE | grep -F -- "$STATE" >/dev/null; then
    die "down $name: mounts of $STATE are left in this namespace"
  fi
  rm -rf "$STATE"
  echo "nshosts.sh: cluster $name down: $n holders ended, no process left in its namespaces"
}

# ---------------------------------------------------------------- others

# on_net NET HOST: prints NET's subnet if HOST is on it (else an error).
on_net() {
  local net subnet members
  while read -r net subnet members _; do
    [ "$net" = "$1" ] || continue
    [[ ",$members," == *",$2,"* ]] || die "host '$2' is not on network '$1' of cluster $CLUSTER"
    echo "$subnet"; return 0
  done <"$STATE/nets"
  die "cluster $CLUSTER has no network '$1'"
}

cmd_exec() {
  [ $# -ge 3 ] || die "exec: nshosts.sh exec NAME HOST CMD [ARGS...]"
  need_cluster "$1"
  local ns
  ns=$(holder_ns "$2")
  shift 2
  exec nsenter --net="$ns/net" --uts="$ns/uts" --ipc="$ns/ipc" --mount="$ns/mnt" \
    --pid="$ns/pid" --wd="$PWD" -- "$@"
}

cmd_link() {
  [ $# -eq 4 ] || die "link: nshosts.sh link NAME HOST NET down|up"
  need_cluster "$1"
  case "$4" in down|up) ;; *) die "link: down or up, not '$4'" ;; esac
  on_net "$3" "$2" >/dev/null
  # The switch's end of the cable: the host keeps its interface and address
  # and sees no carrier, as when a cable is pulled; its packets are lost.
  in_switch ip link set "$2-$3" "$4"
}

# Random loss: a chain per network in table inet nshosts_loss of HOST's
# network namespace, at prerouting before defragmentation (priority -500,
# defrag is -400), so that each IP packet on the link is a draw of its own:
# a fragment, or one segment of a GSO datagram.  For the latter the switch's
# port to HOST does not pass GSO batches on whole (as a veth would): its UDP
# segmentation offload is off while there is loss, so the batch is cut into
# the datagrams a real link carries before it reaches HOST.
cmd_loss() {
  [ $# -eq 4 ] || die "loss: nshosts.sh loss NAME HOST NET PERCENT|show"
  need_cluster "$1"
  local host=$2 net=$3 pct=$4 chain=loss_$3 t ns
  on_net "$net" "$host" >/dev/null
  ns=$(holder_ns "$host")/net
  # (a query that may fail: not through in_host, which dies)
  nft_query() { nsenter --net="$ns" -- nft "$@" 2>/dev/null; }
  for t in nft ethtool; do
    command -v "$t" >/dev/null || refuse "no '$t' command (packages nftables, ethtool)"
  done
  if [ "$pct" = show ]; then
    # "seen N dropped M", from the chain's two counters (nothing: no loss set)
    { nft_query list chain inet nshosts_loss "$chain" || true; } |
      awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") c[n++] = $(i + 1) }
           END { printf "seen %d dropped %d\n", c[0], c[1] }'
    return 0
  fi
  [[ "$pct" =~ ^[0-9]+$ ]] && [ "$pct" -le 100 ] || die "loss: PERCENT is 0 to 100, not '$pct'"
  if nft_query list chain inet nshosts_loss "$chain" >/dev/null; then
    in_host "$host" nft delete chain inet nshosts_loss "$chain"
  fi
  if [ "$pct" -eq 0 ]; then
    if nft_query list table inet nshosts_loss >/dev/null &&
       ! nft_query list table inet nshosts_loss | grep -q chain; then
      in_host "$host" nft delete table inet nshosts_loss
    fi
    in_switch ethtool -K "$host-$net" tx-udp-segmentation on
    return 0
  fi
  in_switch ethtool -K "$host-$net" tx-udp-segmentation off
  in_host "$host" nft add table inet nshosts_loss
  in_host "$host" nft add chain inet nshosts_loss "$chain" \
    "{ type filter hook prerouting priority -500; policy accept; }"
  in_host "$host" nft add rule inet nshosts_loss "$chain" iifname "$net" meta l4proto udp counter
  in_host "$host" nft add rule inet nshosts_loss "$chain" iifname "$net" meta l4proto udp \
    numgen random mod 100 "<" "$pct" counter drop
}

cmd_addr() {
  [ $# -eq 3 ] || die "addr: nshosts.sh addr NAME HOST NET"
  need_cluster "$1"
  local subnet i
  subnet=$(on_net "$3" "$2")
  i=$(grep -nx -- "$2" "$STATE/hosts.list" | cut -d: -f1)
  host_addr "$subnet" "$i"
}

cmd_show() {
  [ $# -eq 1 ] || die "show: nshosts.sh show NAME"
  need_cluster "$1"
  local rec
  echo "cluster $1 ($STATE)"
  for rec in "$STATE"/holders/*.unshare; do
    rec=${rec%.unshare}
    [ -f "$rec" ] && echo "  holder $(basename "$rec"): pid $(cut -d' ' -f1 "$rec")"
  done
  sed 's/^/  network /' "$STATE/nets"
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  exec) shift; cmd_exec "$@" ;;
  link) shift; cmd_link "$@" ;;
  addr) shift; cmd_addr "$@" ;;
  loss) shift; cmd_loss "$@" ;;
  show) shift; cmd_show "$@" ;;
  _holder) shift; holder_main "$@" ;;
  -h|--help) usage ;;
  *) usage >&2; exit 1 ;;
esac
