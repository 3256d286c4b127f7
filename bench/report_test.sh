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
# goal shm on NetPIPE's series: 8 B latency against both peers, bandwidth
# from 64 KiB against the better peer at every size
for m in ours mpich openmpi; do rm -f "$dir"/$m.*; done
printf '8 0.30\n65536 3.0\n' >"$dir/ours.netpipe-lat.1.txt"
printf '8 0.40\n65536 3.5\n' >"$dir/mpich.netpipe-lat.1.txt"
printf '8 0.33\n65536 3.2\n' >"$dir/openmpi.netpipe-lat.1.txt"
printf '8 0.2\n65536 50\n1048576 60\n' >"$dir/ours.netpipe-bw.1.txt"
printf '8 0.1\n65536 45\n1048576 61\n' >"$dir/mpich.netpipe-bw.1.txt"
printf '8 0.1\n65536 48\n1048576 58\n' >"$dir/openmpi.netpipe-bw.1.txt"
shm() { python3 "$report" --goal shm --programs netpipe-lat,netpipe-bw "$dir" median \
          ours,mpich,openmpi; }
st=0
out=$(shm) || st=$?
[ "$st" -eq 1 ] || fail "1 MiB behind Debian MPICH (60 < 61): status $st, not 1"
grep -q "ahead or equal at 1 of 2 sizes, behind at 1M (0.984)" <<<"$out" ||
  fail "the size behind is not named: $out"
grep -q "ours vs openmpi: ours 0.300 us vs openmpi 0.330 us .*MET" <<<"$out" ||
  fail "no 8 B latency verdict against Open MPI: $out"
printf '8 0.2\n65536 50\n1048576 61\n' >"$dir/ours.netpipe-bw.1.txt"
shm >/dev/null || fail "ahead or equal everywhere: status $?, not 0"
printf '8 0.34\n65536 3.0\n' >"$dir/ours.netpipe-lat.1.txt"
st=0
shm >/dev/null || st=$?
[ "$st" -eq 1 ] || fail "8 B latency 0.34 over Open MPI's 0.33: status $st, not 1"
echo "report_test: PASS"
