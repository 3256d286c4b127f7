#!/usr/bin/env bash
# bench/myri-vs-udp.sh - subdev-myri against raw UDP on loopback, in one
# run, and (with --hplam) the HP-LAM timing model against P2's figures.
# Builds nothing: run it from a build directory after `make`, or pass the
# build directory with BUILD=...  Extra arguments go to the program.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$(pwd)}
prog=$build/bench/myri_vs_udp
[ -x "$prog" ] || { echo "myri-vs-udp: $prog not built (make in $build)" >&2; exit 2; }
export MULTIDEV_NICD=${MULTIDEV_NICD:-$build/nic/nicd}
export MULTIDEV_NIC_IDLE_MS=${MULTIDEV_NIC_IDLE_MS:-500}
if command -v uptime >/dev/null; then
  load=$(cut -d' ' -f1 /proc/loadavg)
  awk -v l="$load" 'BEGIN { if (l > 0.5) print "myri-vs-udp: warning: load average " l ", numbers will be noisy" }' >&2
fi
exec "$prog" "$@"
