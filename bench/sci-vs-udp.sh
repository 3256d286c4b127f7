#!/usr/bin/env bash
# bench/sci-vs-udp.sh - subdev-sci against raw UDP on loopback, in one run,
# and (with --timing) the D310 timing model measured by NetPIPE against
# P6's ScaMPI figures.  Builds nothing: run it from a build directory after
# `make`, or pass the build directory with BUILD=...  Extra arguments go to
# the program (bench/sci_vs_udp.c lists them).
set -euo pipefail
build=${BUILD:-$(pwd)}
prog=$build/bench/sci_vs_udp
[ -x "$prog" ] || { echo "sci-vs-udp: $prog not built (make in $build)" >&2; exit 2; }
export MULTIDEV_NICD=${MULTIDEV_NICD:-$build/nic/nicd}
export MULTIDEV_NIC_IDLE_MS=${MULTIDEV_NIC_IDLE_MS:-500}
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v l="$load" 'BEGIN { if (l > 0.5) print "sci-vs-udp: warning: load average " l ", numbers will be noisy" }' >&2
exec "$prog" "$@"
