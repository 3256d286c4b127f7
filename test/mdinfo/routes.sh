#!/bin/sh
# mdinfo --routes prints a node file's connection table: every route line
# of the node files mdconfig writes is a row (see Makefile.am).
set -eu
: "${MDINFO:?make check sets MDINFO}" "${MDCONFIG:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/test/mdinfo/common.sh"

# Every "route PEER MIN MAX SUBDEV HOP" line of node file $1 is the row of
# table output $2 that ends in its line number, with its subdevice and
# next hop ("-" is "direct"), and the table has no other row.
check_routes() {
    awk '
        FNR == NR {
            if ($1 == "route")
                want[FNR] = $5 " " ($6 == "-" ? "direct" : $6)
            next
        }
        /^connection table/ { on = 1; getline; next }
        on && NF == 0 { on = 0 }
        on {
            got = $(NF - 2) " " $(NF - 1)
            if (!($NF in want))
                { print "row for line " $NF " that is no route line: " $0; bad = 1 }
            else if (want[$NF] != got)
                { print "line " $NF ": " got ", expected " want[$NF]; bad = 1 }
            seen[$NF] = 1
        }
        END {
            for (l in want)
                if (!(l in seen)) { print "route line " l " has no row"; bad = 1 }
            exit bad
        }' "$1" "$2" >&2
}

for net in myri-via relay-3node gateways; do
    "$MDCONFIG" "$TOP_SRCDIR/examples/$net.net" -o "$work/$net" >/dev/null
    for conf in "$work/$net"/*.conf; do
        if ! "$MDINFO" --routes --node-file "$conf" >"$work/out" 2>"$work/err"; then
            fail "mdinfo --routes --node-file $conf failed: $(cat "$work/err")"
        elif ! check_routes "$conf" "$work/out"; then
            fail "$conf: the table differs from the file:"
            cat "$work/out" >&2
        fi
    done
done

# Size classes as the file gives them: myri-via's p reaches q over via for
# small messages and over myri for large ones.
"$MDINFO" --routes --node-file "$work/myri-via/p.conf" >"$work/p"
first=$(awk '$1 == "route" && $2 == "q" { print $3 " .. " $4; exit }' "$work/myri-via/p.conf")
grep -Eq "^  q +$first +via +direct" "$work/p" || fail "p's first class to q ($first, via) is not shown"

# Rails: rails-2node's a stripes messages to b over myri, via and sci from
# 64 KiB on; without rails lines (--rails=off) mdinfo says there are none.
"$MDCONFIG" "$TOP_SRCDIR/examples/rails-2node.net" -o "$work/rails-2node" >/dev/null
"$MDINFO" --routes --node-file "$work/rails-2node/a.conf" >"$work/rails"
line=$(grep -n '^rails b ' "$work/rails-2node/a.conf" | cut -d: -f1)
[ -n "$line" ] || fail "mdconfig wrote no rails line for a's peer b"
grep -Eq "^  b +64k +$line +myri=120 via=94 sci=70\$" "$work/rails" ||
    fail "a's rails to b are not shown: $(cat "$work/rails")"
"$MDCONFIG" "$TOP_SRCDIR/examples/rails-2node.net" -o "$work/norails" --rails=off >/dev/null
"$MDINFO" --routes --node-file "$work/norails/a.conf" >"$work/norails.out"
grep -q "^rails: no rails line" "$work/norails.out" || fail "--rails=off still shows rails"

# The directory mdconfig wrote, as MULTIDEV_CONFIG names it, with the node
# from MULTIDEV_NODE: a's route to c goes through b.
MULTIDEV_CONFIG="$work/relay-3node" MULTIDEV_NODE=a "$MDINFO" --routes >"$work/a"
grep -q "^# node a ($work/relay-3node/a.conf)" "$work/a" || fail "MULTIDEV_CONFIG's a.conf is not read"
grep -Eq "^  c +0 \.\. inf +myri +b " "$work/a" || fail "a's route to c through b is not shown"
if MULTIDEV_NODE=nosuch "$MDINFO" --routes --node-file "$work/relay-3node" >/dev/null 2>"$work/err"; then
    fail "a directory without the node's file is accepted"
fi
grep -q "holds no configuration for node nosuch" "$work/err" || fail "the missing node file is not said"

# A device line's value shows where it comes from; the environment wins.
"$MDINFO" --env --node-file "$work/myri-via/p.conf" >"$work/env"
line=$(grep -n '^device myri' "$work/myri-via/p.conf" | cut -d: -f1)
grep -Eq "^MULTIDEV_MYRI_SWITCH=sw0 +node file $work/myri-via/p.conf:$line\$" "$work/env" ||
    fail "myri's switch= is not shown from the node file's line $line"
MULTIDEV_MYRI_SWITCH=swx "$MDINFO" --env --node-file "$work/myri-via/p.conf" >"$work/env"
grep -Eq "^MULTIDEV_MYRI_SWITCH=swx +environment\$" "$work/env" ||
    fail "the environment does not win over the device line"

# A node file that does not parse: the parser's file:line:column.
sed 's/^route q 0 \([0-9]*\) via -$/route q 0 \1 nosuchdev -/' "$work/myri-via/p.conf" \
    >"$work/broken.conf"
if "$MDINFO" --routes --node-file "$work/broken.conf" >/dev/null 2>"$work/err"; then
    fail "a node file routing over an unlisted device is accepted"
fi
grep -Eq "^mdinfo: $work/broken.conf:[0-9]+:[0-9]+: " "$work/err" ||
    fail "the parser's error does not name file:line:column: $(cat "$work/err")"
exit $status
