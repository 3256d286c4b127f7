#!/usr/bin/env bash
# bench/via-vs-udp.sh - subdev-via against raw UDP on loopback and the VI
# timing models (lanai7: raw VI, P4 Table 1; clan: MPI/Pro on cLAN, P6), in
# one run.  Builds nothing: run it from a build directory after `make`, or
# pass the build directory with BUILD=...  Extra arguments go to the program.
set -euo pipefail
build=${BUILD:-$(pwd)}
prog=$build/bench/via_vs_udp
[ -x "$prog" ] || { echo "via-vs-udp: $prog not built (make in $build)" >&2; exit 2; }
export MULTIDEV_NICD=${MULTIDEV_NICD:-$build/nic/nicd}
export MULTIDEV_NIC_IDLE_MS=${MULTIDEV_NIC_IDLE_MS:-500}
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v l="$load" 'BEGIN { if (l > 0.5) print "via-vs-udp: warning: load average " l ", numbers will be noisy" }' >&2
exec "$prog" "$@"
