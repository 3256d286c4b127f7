#!/bin/sh
# Under ThreadSanitizer: mdconfig's worker threads (-j) write every node's
# file of the OSCAR and gateway examples; a data race aborts the run
# (TSan's exitcode), and the output must not depend on the thread count.
set -eu
MDCONFIG=${MDCONFIG:-../../mdconfig/mdconfig}
EXAMPLES=${EXAMPLES:-$(dirname "$0")/../../examples}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
for ex in oscar gateways; do
    "$MDCONFIG" -j 4 -o "$tmp/$ex-4" "$EXAMPLES/$ex.net"
    "$MDCONFIG" -j 1 -o "$tmp/$ex-1" "$EXAMPLES/$ex.net"
    "$MDCONFIG" -j 4 --check "$EXAMPLES/$ex.net" > /dev/null
    diff -r "$tmp/$ex-1" "$tmp/$ex-4"
    [ "$(ls "$tmp/$ex-4" | wc -l)" -gt 1 ]
done
echo "threads_tsan: mdconfig -j 4 race-free and identical to -j 1"
