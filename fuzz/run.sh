#!/bin/sh
# fuzz/run.sh - build the libFuzzer targets and run each for a bounded time.
#
#   fuzz/run.sh                 both targets, FUZZ_SECONDS (default 60) each
#   FUZZ_SECONDS=600 fuzz/run.sh desc
#   FUZZ_TIMEOUT=10 ...         seconds one input may take (default 60)
#
# Targets: desc (the network description parser, plus the router on small
# inputs) and nodeconf (md_nodeconf_parse_string with a write/parse/write
# round trip).  Built with clang -fsanitize=fuzzer,address,undefined from
# the sources directly.  Seed corpora: examples/*.net, and per-node files
# mdconfig writes for them (when a built mdconfig is found) plus
# fuzz/seeds-nodeconf/.  Work files go to _work/fuzz/ (corpora grow there
# across runs; crashes are saved as _work/fuzz/<target>/crash-*).
# Prints one line per target: runs, seconds, corpus size, verdict; exits
# non-zero if a target found a crash.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
# per input; generous because the machine is shared (an input that merely
# waited for a CPU is not a hang)
timeout=${FUZZ_TIMEOUT:-60}
work=${FUZZ_WORK:-$top/_work/fuzz}
cc=${FUZZ_CC:-clang}
targets=${*:-desc nodeconf}

command -v "$cc" >/dev/null 2>&1 || {
    echo "fuzz/run.sh: $cc not found (install clang)" >&2
    exit 2
}
mkdir -p "$work"

conf_src="$top/src/tunables/md_size.c $(ls "$top"/src/tunables/md_tun_*.c)
          $top/src/conf/md_ipv4.c $top/src/conf/md_lines.c
          $top/src/conf/md_names.c
          $top/src/conf/md_nodeconf.c $top/src/conf/md_nodeconf_rails.c
          $top/src/conf/md_nodeconf_parse.c $top/src/conf/md_nodeconf_parse_rails.c
          $top/src/conf/md_nodeconf_out.c $top/src/conf/md_nodeconf_write.c"
mdc_src=$(ls "$top"/mdconfig/mdc_*.c)
cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
        -D_GNU_SOURCE -I$top/src/tunables -I$top/src/conf -I$top/mdconfig"

build() {
    # shellcheck disable=SC2086
    case $1 in
    desc)     $cc $cflags -o "$work/fuzz_desc" "$here/fuzz_desc.c" $conf_src \
                  $mdc_src -lpthread ;;
    nodeconf) $cc $cflags -o "$work/fuzz_nodeconf" "$here/fuzz_nodeconf.c" \
                  $conf_src ;;
    *) echo "fuzz/run.sh: unknown target $1 (desc or nodeconf)" >&2; exit 2 ;;
    esac
}

seed() {
    corpus="$work/$1/corpus"
    mkdir -p "$corpus"
    case $1 in
    desc)
        cp "$top"/examples/*.net "$corpus"/ ;;
    nodeconf)
        cp "$here"/seeds-nodeconf/* "$corpus"/
        # per-node files of the examples, from an mdconfig of these sources
        # shellcheck disable=SC2086
        $cc -O1 -D_GNU_SOURCE -I"$top/src/tunables" -I"$top/src/conf" -I"$top/mdconfig" \
            -o "$work/mdconfig" "$top/mdconfig/mdconfig.c" $conf_src $mdc_src \
            -lpthread
        for f in "$top"/examples/*.net; do
            out="$work/seed-files/$(basename "$f" .net)"
            "$work/mdconfig" "$f" -o "$out" >/dev/null 2>&1 || continue
            for c in "$out"/*.conf; do
                cp "$c" "$corpus/$(basename "$f" .net)-$(basename "$c")"
            done
        done ;;
    esac
}

status=0
for t in $targets; do
    build "$t"
    seed "$t"
    log="$work/$t/fuzz.log"
    start=$(date +%s)
    set +e
    (cd "$work/$t" && "$work/fuzz_$t" -max_total_time="$seconds" \
        -dict="$here/$t.dict" -max_len=4096 -timeout="$timeout" \
        -rss_limit_mb=2048 \
        -print_final_stats=1 corpus >"$log" 2>&1)
    rc=$?
    set -e
    end=$(date +%s)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    files=$(find "$work/$t/corpus" -type f | wc -l)
    if [ $rc -eq 0 ]; then
        verdict="no crash"
    else
        verdict="FAILED (exit $rc, see $log)"
        status=1
    fi
    echo "fuzz_$t: ${runs:-?} runs in $((end - start)) s, corpus $files inputs: $verdict"
done
exit $status
