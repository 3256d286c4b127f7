#!/usr/bin/env bash
# reproduce_test.sh - bench/reproduce.sh --smoke (one round, 20 ms a size,
# about 15 s): every program it runs works and the report has every row
# and the P6 plots.  The figures themselves are not judged: speed goals
# are the benchmarks' business (doc/benchmarks.md), not a unit test's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=${REPRODUCE:-$here/reproduce.sh}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "reproduce_test: FAIL: $*" >&2; exit 1; }

"$script" --smoke --out "$dir" >"$dir/log" 2>&1 || { cat "$dir/log" >&2; fail "reproduce.sh --smoke"; }
r=$dir/report.md
[ -s "$r" ] || fail "no report"
for want in "## P2 HP-LAM" "## P4 VI primitives" "## P6 SCI against VIA" "| round trip |" \
            "| g (gap) |" "| raw VI throughput" "ScaMPI: bandwidth at 4 MB" "SCI ahead up to" \
            "machine: " "load average"; do
  grep -qF -- "$want" "$r" || fail "report lacks '$want'"
done
rows=$(grep -c '^| .* | .* | .* | .* | .* |$' "$r")
[ "$rows" -ge $((6 + 2 + 8 + 26)) ] || fail "report has $rows table lines"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  for p in p6_bandwidth p6_latency p6_ratio; do
    [ -s "$dir/$p.png" ] || fail "no $p.png"
  done
fi
echo "reproduce_test: ok ($(sed -n 's/^- run: //p' "$r"))"
