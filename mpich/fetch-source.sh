#!/usr/bin/env bash
# mpich/fetch-source.sh - makes sure Debian's MPICH source package is
# unpacked, pristine, in <work>/mpich-src (apt-get source mpich).
#
# mpich/build-mpich.sh builds from it; mpich/run-suite.sh builds
# MPICH's test suite from it.  A restore from the build cache needs no
# source, so the suite cannot count on the build having fetched it.
#
# Usage: mpich/fetch-source.sh [--print-version]
#   --print-version  print the Debian source version it would fetch
#                    (e.g. 4.0.2-3) and exit
#   -h, --help       this text
#
# Environment: MULTIDEV_WORK_DIR (default <checkout>/_work).
set -euo pipefail

MPICH_UPSTREAM=4.0.2

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}
SRC_DIR=$WORK/mpich-src
PRINT_VERSION=0

die() { echo "fetch-source: error: $*" >&2; exit 1; }
say() { echo "fetch-source: $*"; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --print-version) PRINT_VERSION=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

for tool in apt-get apt-cache dpkg-source; do
  command -v "$tool" >/dev/null || die "'$tool' is missing; run scripts/setup-deps.sh"
done

# Debian's source package version; its upstream part must be $MPICH_UPSTREAM.
version=$(apt-cache showsrc mpich 2>/dev/null | sed -n 's/^Version: //p' |
          grep "^$MPICH_UPSTREAM-" | sort -V | tail -n 1 || true)
[ -n "$version" ] ||
  die "apt knows no source package mpich $MPICH_UPSTREAM-*: check the deb-src entries
  (scripts/setup-deps.sh adds them) and run apt-get update"
if [ "$PRINT_VERSION" = 1 ]; then echo "$version"; exit 0; fi

if [ -f "$SRC_DIR/.multidev-source-version" ] &&
   [ "$(cat "$SRC_DIR/.multidev-source-version")" = "$version" ]; then
  say "reusing $SRC_DIR (mpich $version)"
  exit 0
fi

tmp=$SRC_DIR.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
if ! (cd "$tmp" && apt-get source "mpich=$version"); then
  say "apt-get source failed; refreshing the package lists and retrying"
  apt-get update || sudo apt-get update
  (cd "$tmp" && apt-get source "mpich=$version") || die "apt-get source mpich=$version failed"
fi
unpacked=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name "mpich-$MPICH_UPSTREAM*" | head -n 1)
[ -n "$unpacked" ] && [ -f "$unpacked/configure.ac" ] ||
  die "no unpacked mpich-$MPICH_UPSTREAM in $tmp"
rm -rf "$SRC_DIR" && mv "$unpacked" "$SRC_DIR"
echo "$version" > "$SRC_DIR/.multidev-source-version"
rm -rf "$tmp"
say "unpacked mpich $version into $SRC_DIR"
