#!/bin/sh
# mdconfig-scale.sh - how long mdconfig takes, and how much memory, to write
# every per-node file of a generated cluster of N nodes with three networks
# (bench/mdconfig-gen.sh: a two-level Myrinet, SCI rings of 8, VIA switches
# of 64; every node may forward).  Goals: under 10 s and 1 GiB at N = 4096
# (issue 3); at N = 65536 under 60 s and 2 GiB, and one node's file
# (--node) under 2 s (issue 22).
#
#   bench/mdconfig-scale.sh [N ...]        default: 512 1024 2048 4096
#
# MDCONFIG    the binary (default: _install/bin/mdconfig, then mdconfig)
# OUT         where the files go (default: _work/bench-mdconfig; removed
#             after each size)
# THREADS     -j for mdconfig (default: its own default, the CPU count)
# REPEAT      runs of --node per size, the median is printed (default 5;
#             0: none, for a binary without --node)
#
# Prints a table (wall and CPU time, peak RSS, output size, Dijkstra runs,
# route lines as written: a line may cover a range of peers, and the route
# intervals they stand for, one per peer and size range) and, from one size
# to the next, how time grows (N doubling: x4 = quadratic), then the time
# of --node for the middle node (median wall, its CPU time).  The table is
# also drawn against N, each plot beside its series in OUT: time.png (wall
# and CPU time of all files, wall time of --node; time.tsv) and memory.png
# (peak RSS; memory.tsv).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
sizes=${*:-512 1024 2048 4096}
out=${OUT:-$top/_work/bench-mdconfig}
mdconfig=${MDCONFIG:-}
if [ -z "$mdconfig" ]; then
    if [ -x "$top/_install/bin/mdconfig" ]; then
        mdconfig=$top/_install/bin/mdconfig
    else
        mdconfig=$(command -v mdconfig || true)
    fi
fi
[ -n "$mdconfig" ] && [ -x "$mdconfig" ] || {
    echo "mdconfig-scale.sh: no mdconfig (make install, or set MDCONFIG)" >&2
    exit 2
}
[ -x /usr/bin/time ] || { echo "mdconfig-scale.sh: needs /usr/bin/time" >&2; exit 2; }
jobs=${THREADS:+-j $THREADS}

mkdir -p "$out"
# shellcheck disable=SC2034 # read by plot-common.sh
BENCH=$here
# shellcheck source=bench/plot-common.sh
. "$here/plot-common.sh"
: >"$out/time.tsv"
: >"$out/memory.tsv"
echo "mdconfig: $mdconfig; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%6s %9s %9s %9s %10s %10s %9s %11s %12s %8s %9s %9s\n" N wall_s \
    user_s sys_s peak_MiB output_MiB dijkstra route_lines intervals growth \
    node_wall node_cpu
prev=""
for n in $sizes; do
    desc="$out/gen-$n.net"
    dir="$out/files-$n"
    sh "$here/mdconfig-gen.sh" "$n" >"$desc"
    rm -rf "$dir"
    # shellcheck disable=SC2086
    /usr/bin/time -v "$mdconfig" "$desc" -o "$dir" -v $jobs \
        >"$out/run-$n.log" 2>&1 || {
        echo "mdconfig failed for N=$n:" >&2
        cat "$out/run-$n.log" >&2
        exit 1
    }
    log="$out/run-$n.log"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
           awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
    user=$(sed -n 's/.*User time (seconds): //p' "$log")
    sys=$(sed -n 's/.*System time (seconds): //p' "$log")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    runs=$(sed -n 's/.* \([0-9]*\) Dijkstra runs.*/\1/p' "$log")
    intervals=$(sed -n 's/.* \([0-9]*\) route intervals.*/\1/p' "$log")
    bytes=$(du -sb "$dir" | cut -f1)
    lines=$(find "$dir" -name '*.conf' -exec cat {} + | grep -c '^route')
    rm -rf "$dir"
    # one node's file: the middle node, median of REPEAT runs
    mid=$(sed -n "s/^node n\[\([0-9]*\)-\([0-9]*\)\].*/\2/p" "$desc")
    mid=$(printf "n%0${#mid}d" $((n / 2)))
    node_times=""
    for _ in $(seq "${REPEAT:-5}"); do
        /usr/bin/time -f "%e %U %S" -o "$out/node-$n.time" \
            "$mdconfig" "$desc" -o "$dir" --node "$mid" >/dev/null 2>&1 || {
            echo "mdconfig --node $mid failed for N=$n" >&2
            exit 1
        }
        node_times="$node_times$(cat "$out/node-$n.time")
"
        rm -rf "$dir"
    done
    node="- -"
    [ -n "$node_times" ] && node=$(printf "%s" "$node_times" | sort -n |
        awk -v r="${REPEAT:-5}" \
            'NR == int((r + 1) / 2) { printf "%s %.2f", $1, $2 + $3 }')
    growth="-"
    [ -n "$prev" ] && growth=$(awk -v a="$wall" -v b="$prev" \
        'BEGIN { if (b > 0) printf "x%.2f", a / b; else print "-" }')
    printf "%6s %9s %9s %9s %10.1f %10.1f %9s %11s %12s %8s %9s %9s\n" "$n" \
        "$wall" "$user" "$sys" "$(echo "$rss" | awk '{ print $1 / 1024 }')" \
        "$(echo "$bytes" | awk '{ print $1 / 1048576 }')" "${runs:-?}" \
        "$lines" "${intervals:-?}" "$growth" $node
    node_wall=${node%% *}
    {
        printf "all files, wall\t%s\t%s\n" "$n" "$wall"
        printf "all files, CPU (user + sys)\t%s\t%s\n" "$n" \
            "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')"
        [ "$node_wall" = - ] ||
            printf "one node's file (--node), wall\t%s\t%s\n" "$n" "$node_wall"
    } >>"$out/time.tsv"
    printf "peak RSS, all files\t%s\t%s\n" "$n" \
        "$(echo "$rss" | awk '{ print $1 / 1024 }')" >>"$out/memory.tsv"
    prev=$wall
done
echo "growth: wall time relative to the previous N (N doubles: x4 = quadratic)"
bench_plot "$out/time.tsv" "$out/time.png" --linx --xlabel "nodes (N)" --ylabel "seconds" \
    --title "mdconfig: time to write the node files"
bench_plot "$out/memory.tsv" "$out/memory.png" --linx --xlabel "nodes (N)" \
    --ylabel "MiB" --title "mdconfig: peak memory, all files"
bench_plots_done mdconfig-scale
