#!/bin/sh
# mdinfo --subdevs lists the subdevice modules with what libmultidev's
# loader makes of them (see Makefile.am).
set -eu
: "${MDINFO:?make check sets MDINFO}" "${TOP_SRCDIR:?}" "${SUBDEV_DIRS:?}" "${TEST_MODULE_DIR:?}"
. "$TOP_SRCDIR/test/mdinfo/common.sh"

# The block of subdevice $1 in file $2 (from its "subdevice" line to the next).
block() {
    awk -v name="$1" '/^subdevice /{ on = ($2 == name) } on' "$2"
}

# $1's block in $2 has a row "$3" (label) whose text starts with "$4".
expect_row() {
    row=$(block "$1" "$2" | awk -v label="$3" '
        substr($0, 1, 4 + length(label)) == "    " label {
            sub(/^ +[^ ]+( [^ ]+)? +/, ""); print; exit }')
    case $row in
    "$4"*) ;;
    *) fail "$1: '$3' is '$row', expected '$4...'" ;;
    esac
}

sdi_abi=$(sed -n 's/^#define MD_SDI_ABI_VERSION \([0-9]*\).*/\1/p' "$TOP_SRCDIR/src/kit/md_sdi.h")
kit_abi=$(sed -n 's/^#define MD_KIT_ABI_VERSION \([0-9]*\).*/\1/p' "$TOP_SRCDIR/src/kit/md_kit.h")
[ -n "$sdi_abi" ] && [ -n "$kit_abi" ] || fail "no ABI versions in src/kit's headers"

# The four subdevices, from their build directories.
if ! "$MDINFO" --subdevs --module-path "$SUBDEV_DIRS" >"$work/subdevs" 2>"$work/err"; then
    fail "mdinfo --subdevs failed on the built subdevices:"
    cat "$work/err" >&2
fi
for name in shm myri via sci; do
    if [ -z "$(block "$name" "$work/subdevs")" ]; then
        fail "$name is not listed"
        continue
    fi
    dir=$(echo "$SUBDEV_DIRS" | tr ':' '\n' | grep "/subdev-$name\$")
    expect_row "$name" "$work/subdevs" "module" "$dir/.libs/libmd_$name.so"
    expect_row "$name" "$work/subdevs" "SDI ABI" "$sdi_abi"
    expect_row "$name" "$work/subdevs" "kit ABI" "$kit_abi"
    expect_row "$name" "$work/subdevs" "offers" "ready improbe imrecv wait_fd"
    block "$name" "$work/subdevs" | grep -q "^      MULTIDEV_$(echo "$name" |
        tr a-z A-Z)_EAGER_LIMIT" || fail "$name: its eager_limit parameter is not listed"
done
expect_row shm "$work/subdevs" "capabilities" "local-only"
for name in myri via sci; do
    expect_row "$name" "$work/subdevs" "capabilities" "none"
done

# test/multidev's modules: each refused one with the loader's message.
if "$MDINFO" --subdevs --module-path "$TEST_MODULE_DIR" >"$work/tests" 2>&1; then
    fail "mdinfo --subdevs exits 0 though modules were refused"
fi
expect_row tbadabi "$work/tests" "not loaded" \
    "subdevice 'tbadabi' was built for SDI ABI version 99, but this libmultidev speaks version $sdi_abi: rebuild it"
expect_row tbadkit "$work/tests" "not loaded" \
    "subdevice 'tbadkit' was built against subdevice kit ABI version 77, but this process's libmdkit is version $kit_abi"
expect_row tnullslot "$work/tests" "not loaded" \
    "subdevice 'tnullslot' leaves the mandatory operation 'isend' empty"
expect_row tbadname "$work/tests" "not loaded" "subdevice 'tbadname' calls itself 'somebody_else'"
block tnosym "$work/tests" | grep -q "does not export tnosym_LoadDevicePtr" ||
    fail "tnosym: the missing entry point is not said"
expect_row tgood "$work/tests" "kit ABI" "none"
expect_row tgood "$work/tests" "offers" "no optional operation"

[ $status -eq 0 ] || { echo "--- mdinfo output:" >&2; cat "$work/subdevs" "$work/tests" >&2; }
exit $status
