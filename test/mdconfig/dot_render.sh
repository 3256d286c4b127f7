#!/bin/sh
# mdconfig --dot renders the topology with Graphviz in one command:
# `mdconfig --dot=FILE.svg DESC` or `mdconfig --dot DESC -o FILE.png` runs
# dot(1).  A shipped example must give a complete SVG and a PNG; without
# dot on the PATH the error must say what is missing.  Skipped (77) when
# Graphviz is absent.
set -eu
MDCONFIG=${MDCONFIG:-../../mdconfig/mdconfig}
EXAMPLES=${EXAMPLES:-$(dirname "$0")/../../examples}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# no dot on the PATH: a clear error, nothing written
if PATH=/nonexistent "$MDCONFIG" --dot "$EXAMPLES/oscar.net" -o "$tmp/none.svg" \
        2>"$tmp/err"; then
    echo "dot_render: rendering without dot succeeded" >&2
    exit 1
fi
grep -q "needs Graphviz's dot, which is not installed" "$tmp/err" || {
    echo "dot_render: unclear error without dot:" >&2
    cat "$tmp/err" >&2
    exit 1
}
[ ! -e "$tmp/none.svg" ]

command -v dot >/dev/null 2>&1 || { echo "dot_render: no Graphviz, skipped"; exit 77; }
for ex in oscar gateways; do
    "$MDCONFIG" --dot="$tmp/$ex.svg" "$EXAMPLES/$ex.net"
    [ -s "$tmp/$ex.svg" ]
    grep -q '<svg' "$tmp/$ex.svg"
    grep -q '</svg>' "$tmp/$ex.svg"
    grep -q '<g id="node' "$tmp/$ex.svg"       # nodes were drawn
done
"$MDCONFIG" --dot "$EXAMPLES/oscar.net" --size 64k -o "$tmp/oscar.png"
[ "$(head -c 8 "$tmp/oscar.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
echo "dot_render: SVG and PNG rendered by dot"
