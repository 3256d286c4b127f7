# common.sh - sourced by test/mdinfo's scripts: a scratch directory that
# goes at exit, and fail, which says what is wrong and marks the test
# failed (the script exits with $status).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

fail() {
    echo "${0##*/}: $*" >&2
    status=1
}
