#!/bin/sh
# Every MULTIDEV_* name that the sources, scripts, tests and docs use is
# declared in the table of tunables (src/tunables/md_tun_table.c), so that
# none is read without a type, a range and a line in doc/environment.md;
# and only src/tunables reads the environment (the rest asks it).
set -eu
top=${TOP_SRCDIR:?make check sets TOP_SRCDIR}
mdinfo=${MDINFO:?make check sets MDINFO}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$top" ls-files -- src nic mdconfig mpich scripts test bench fuzz doc examples \
        README.md .ci >"$work/files"
else
    (cd "$top" && find src nic mdconfig mpich scripts test bench fuzz doc examples README.md \
        -type f) >"$work/files"
fi
# test/tunables holds this file and tun_test's names of undeclared variables
grep -v '^test/tunables/' "$work/files" >"$work/scanned"

"$mdinfo" --names | sort -u >"$work/declared"
(cd "$top" && xargs grep -ohE 'MULTIDEV_[A-Z0-9_]*' <"$work/scanned" 2>/dev/null || true) |
    grep -vx 'MULTIDEV_H' | sort -u >"$work/used"

status=0
while read -r name; do
    case $name in
    *_)  # a prefix ("MULTIDEV_%s_%s", "MULTIDEV_<SUBDEV>_ADDR"): some name must start so
        grep -q "^$name" "$work/declared" || {
            echo "declared.sh: no declared variable starts with $name" >&2
            status=1
        } ;;
    *)
        grep -qx "$name" "$work/declared" || {
            echo "declared.sh: $name is used but not declared in src/tunables/md_tun_table.c:" >&2
            (cd "$top" && xargs grep -lw "$name" <"$work/scanned" | sed 's/^/    /') >&2
            status=1
        } ;;
    esac
done <"$work/used"

# The environment is read through the table.  The two files below belong to
# other parts of the project and still read theirs directly: md_fwd.c
# (forwarding) and the MPICH netmod, which sees only libmultidev's public
# API; both read variables declared here.
allowed='^(src/tunables/|src/multidev/md_fwd\.c$|mpich/netmod/multi/multi_init\.c$)'
grep -E '\.(c|h)$' "$work/scanned" | grep -Ev "$allowed" >"$work/c_files" || true
readers=$(grep -Ev '^(test|bench|fuzz)/' "$work/c_files" |
    (cd "$top" && xargs -r grep -lE '\bgetenv *\(') || true)
if [ -n "$readers" ]; then
    echo "declared.sh: these read the environment themselves instead of through" \
         "src/tunables (md_tun_env*, md_param_value):" >&2
    echo "$readers" | sed 's/^/    /' >&2
    status=1
fi
exit $status
