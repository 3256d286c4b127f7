#!/bin/sh
# out_of_tree.sh - a subdevice built out of the tree against the installed
# SDI and kit alone: examples/subdev-self is compiled with nothing but the
# headers and the library that `make install` puts in a prefix (here a
# DESTDIR staging of src/kit's install), -Werror, then self_test runs a job
# over it (MULTIDEV_MODULE_PATH).  Fails if the kit's installed headers
# need anything from the source tree, or if the example stops working.
set -eu
: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}" "${PREFIX:?}" "${CC:=cc}"
stage=$(mktemp -d "${TMPDIR:-/tmp}/md-out-of-tree.XXXXXX")
trap 'rm -rf "$stage"' EXIT

make -s -C "$TOP_BUILDDIR/src/kit" install DESTDIR="$stage" >/dev/null
inc=$stage$PREFIX/include
lib=$stage$PREFIX/lib
test -f "$inc/multidev-kit/md_sdi.h" || { echo "md_sdi.h is not installed with the kit"; exit 1; }
if ls "$inc/multidev-kit" | grep -v '^md_' >/dev/null; then
  echo "the kit installs a header not named md_*"; exit 1
fi
$CC -std=c11 -Wall -Wextra -Werror -fPIC -shared \
    -I"$inc" -I"$inc/multidev-kit" \
    -o "$stage/libmd_self.so" "$TOP_SRCDIR/examples/subdev-self/self.c" \
    -L"$lib" -lmdkit -Wl,-rpath,"$TOP_BUILDDIR/src/kit/.libs"
MULTIDEV_MODULE_PATH="$stage:$TOP_BUILDDIR/test/multidev" ./self_test
