#!/usr/bin/env bash
# report_test.sh - compare_report.py's route verdicts on made-up results:
# the forwarded latency judged against --forward-us by the median excess,
# the sizes over the cost marked, the 4 MiB bandwidth against the slower
# hop, and the exit status of each case.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
report=${COMPARE_REPORT:-$here/compare_report.py}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "report_test: FAIL: $*" >&2; exit 1; }

# hops of 10 us each; A-C 25, 31 and 40 us over three sizes: excess 5, 11, 20
for l in AB BC; do
  printf '# size latency_us\n0 10\n8 10\n64 10\n' >"$dir/$l.pingpong.1.txt"
  printf '# size bandwidth_MBps\n4194304 100\n' >"$dir/$l.bandwidth.1.txt"
done
printf '# size latency_us\n0 25\n8 31\n64 40\n' >"$dir/AC.pingpong.1.txt"
printf '# size bandwidth_MBps\n4194304 85\n' >"$dir/AC.bandwidth.1.txt"

out=$(python3 "$report" --goal route --forward-us 15 "$dir" median AC,AB,BC) ||
  fail "median excess 11 us within 15 us and bandwidth 0.85x: status $?"
grep -q "at 2 of 3 sizes" <<<"$out" || fail "sizes within the cost not counted: $out"
grep -q "40.000 .*over$" <<<"$out" || fail "the size over the cost is not marked"
grep -q "11.0 us vs 15.0 us .*MET" <<<"$out" || fail "no latency verdict"

st=0
python3 "$report" --goal route --forward-us 10 "$dir" median AC,AB,BC >/dev/null || st=$?
[ "$st" -eq 1 ] || fail "median excess 11 us over 10 us: status $st, not 1"

printf '# size bandwidth_MBps\n4194304 70\n' >"$dir/AC.bandwidth.1.txt"
st=0
python3 "$report" --goal route --forward-us 15 "$dir" median AC,AB,BC >/dev/null || st=$?
[ "$st" -eq 1 ] || fail "bandwidth 0.70x of the slower hop: status $st, not 1"

rm "$dir/AC.bandwidth.1.txt"
st=0
python3 "$report" --goal route "$dir" median AC,AB,BC >/dev/null || st=$?
[ "$st" -eq 3 ] || fail "no A->C bandwidth: status $st, not 3 (data missing)"

if python3 "$report" --goal route --forward-us 0 "$dir" median AC,AB,BC >/dev/null 2>&1; then
  fail "--forward-us 0 was taken"
fi
echo "report_test: PASS"
