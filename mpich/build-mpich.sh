#!/usr/bin/env bash
# mpich/build-mpich.sh - builds MPICH 4.0.2 with the multidevice netmod.
#
# Gets MPICH's source from Debian (apt-get source mpich), injects our ch4
# netmod "multi" (mpich/netmod/multi), configures it as
# --with-device=multi --with-ch4-shmmods=none, builds, and installs it into
# the project prefix next to libmultidev, together with MPICH's example cpi.
#
# The installed MPICH is cached as a tarball keyed by a hash of everything
# that goes into it; a hit restores it in seconds.
#
# Usage: mpich/build-mpich.sh [options]
#   --prefix DIR     install prefix holding libmultidev (default: <checkout>/_install,
#                    or $MULTIDEV_PREFIX)
#   --jobs N         parallel make jobs (default: number of cores)
#   --no-cache       neither read nor write the cache
#   --force          rebuild even if the prefix or the cache is up to date
#   --incremental    developer mode: reuse the patched tree and build directory
#                    in _work/, copy the netmod in again and just run make
#                    (no autogen/configure); does not touch the cache
#   --print-key      print the cache key and exit
#   -h, --help       this text
#
# Besides MPICH's own names it installs the library names Debian's MPICH
# packages link (libmpich.so.12, libmpichfort.so.12, libmpichcxx.so.12) as
# links to ours, so their programs run over the multidevice with
# LD_LIBRARY_PATH=<prefix>/lib (doc/mpich.md).
#
# Environment: MULTIDEV_PREFIX, MULTIDEV_CACHE_DIR (default ~/.cache/multidev),
# MULTIDEV_WORK_DIR (default <checkout>/_work), MULTIDEV_SKIP_SETUP_DEPS=1
# (do not run scripts/setup-deps.sh).
set -euo pipefail

MPICH_UPSTREAM=4.0.2
KEY_FORMAT=1            # bump when the layout of the cached tarball changes

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${MULTIDEV_PREFIX:-$ROOT/_install}
WORK=${MULTIDEV_WORK_DIR:-$ROOT/_work}
CACHE_DIR=${MULTIDEV_CACHE_DIR:-$HOME/.cache/multidev}
JOBS=$(nproc 2>/dev/null || echo 2)
USE_CACHE=1
FORCE=0
INCREMENTAL=0
PRINT_KEY=0

die() { echo "build-mpich: error: $*" >&2; exit 1; }
say() { echo "build-mpich: $*"; }

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; PREFIX=$2; shift 2 ;;
    --prefix=*) PREFIX=${1#--prefix=}; shift ;;
    --jobs|-j) [ $# -ge 2 ] || die "--jobs needs a number"; JOBS=$2; shift 2 ;;
    --jobs=*) JOBS=${1#--jobs=}; shift ;;
    --no-cache) USE_CACHE=0; shift ;;
    --force) FORCE=1; shift ;;
    --incremental) INCREMENTAL=1; shift ;;
    --print-key) PRINT_KEY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
case "$JOBS" in ''|*[!0-9]*) die "--jobs wants a positive number, not '$JOBS'" ;; esac
mkdir -p "$PREFIX" || die "cannot create the prefix $PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)

SRC_DIR=$WORK/mpich-src          # pristine Debian source, never modified
TREE=$WORK/mpich-tree            # patched copy (netmod injected, autogen run)
BUILD=$WORK/mpich-build          # VPATH build directory
STAGE=$WORK/mpich-stage          # make install DESTDIR=...
LOGS=$WORK/logs
STAMP=$PREFIX/share/multidev/mpich-build.key
mkdir -p "$LOGS"

# Several people share a checkout: one build at a time in this work dir.
exec 9>"$WORK/.build-mpich.lock"
if ! flock -n 9; then
  say "another build-mpich.sh is running in $WORK; waiting for it"
  flock 9
fi

# MPICH configure options.  Why each one is there: doc/mpich.md.
CONFIGURE_OPTS=(
  --with-device=multi
  --with-ch4-shmmods=none
  --enable-thread-cs=global
  --enable-fast=O2
  --enable-fortran=all
  "FFLAGS=-fallow-argument-mismatch -fallow-invalid-boz"
  "FCFLAGS=-fallow-argument-mismatch -fallow-invalid-boz"
  --enable-cxx
  --enable-romio
  --with-file-system=ufs+nfs
  --with-hwloc
  --with-datatype-engine=dataloop
  --disable-static
  "--with-multidev=$PREFIX"
  "--with-multidev-include=$WORK/multidev-include"
  "--prefix=$PREFIX"
)

# Runs a step with its output in $LOGS/<name>.log; on failure shows the
# tail of the log and stops.
step() {
  local name=$1; shift
  local log=$LOGS/$name.log
  local t0=$SECONDS
  say "$name ... (log: ${log#$ROOT/})"
  # a subshell not used as a condition, so that set -e holds inside it
  local rc=0
  set +e
  ( set -e; "$@" ) >"$log" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "----- last 40 lines of $log -----" >&2
    tail -n 40 "$log" >&2
    echo "-----" >&2
    die "step '$name' failed after $((SECONDS - t0)) s; full log: $log"
  fi
  say "$name done in $((SECONDS - t0)) s"
}

# ------------------------------------------------------------ prerequisites
if [ "${MULTIDEV_SKIP_SETUP_DEPS:-0}" != 1 ]; then
  "$ROOT/scripts/setup-deps.sh" || die "scripts/setup-deps.sh failed"
fi
for tool in apt-get apt-cache dpkg-source autoconf automake libtoolize python3 sha256sum tar; do
  command -v "$tool" >/dev/null || die "'$tool' is missing; run scripts/setup-deps.sh"
done

for f in "$PREFIX/include/multidev.h" "$PREFIX/include/md_request.h"; do
  [ -f "$f" ] || die "$f is missing: build and install the project into $PREFIX first
  (autoreconf -fi && mkdir -p _build && cd _build && ../configure --prefix=$PREFIX && make -j2 install)"
done
ls "$PREFIX"/lib/libmultidev.so >/dev/null 2>&1 ||
  die "$PREFIX/lib/libmultidev.so is missing: run 'make install' of the project first"
for h in multidev/multidev.h kit/md_request.h; do
  cmp -s "$ROOT/src/$h" "$PREFIX/include/${h#*/}" ||
    die "$PREFIX/include/${h#*/} differs from src/$h: run 'make install' of the project first"
done

# Debian's source package version (e.g. 4.0.2-3); must be upstream $MPICH_UPSTREAM.
SRC_VERSION=$("$ROOT/mpich/fetch-source.sh" --print-version) || exit 1

# ------------------------------------------------------------ cache key
# Everything that changes the installed MPICH: the netmod sources, this
# script (injection and configure steps), libmultidev's public headers, the
# configure options, the prefix (baked into mpicc and the rpaths), the
# source package and the compiler.
cache_key() {
  {
    echo "key-format $KEY_FORMAT"
    echo "source mpich $SRC_VERSION"
    # (the header snapshot's location does not change what gets installed)
    echo "configure ${CONFIGURE_OPTS[*]}" | sed 's| --with-multidev-include=[^ ]*||'
    echo "prefix $PREFIX"
    echo "cc $(gcc -dumpfullversion 2>/dev/null || gcc --version | head -n 1)"
    (cd "$ROOT" && find mpich/netmod -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    (cd "$ROOT" && sha256sum mpich/build-mpich.sh mpich/coll-errflag.py mpich/err-chain.py \
                               src/multidev/multidev.h \
                               src/kit/md_request.h)
  } | sha256sum | cut -c1-24
}
KEY=$(cache_key)
if [ "$PRINT_KEY" = 1 ]; then echo "$KEY"; exit 0; fi
CACHE_FILE=$CACHE_DIR/mpich-$MPICH_UPSTREAM-multi-$KEY.tar.gz

# Copies a staged tree into the prefix, which already holds libmultidev.
# --remove-destination: programs of the prefix may be running (another
# job's mpiexec); replacing the directory entry leaves them alone, while
# writing into a running executable fails with "Text file busy".
copy_into_prefix() { cp -a --remove-destination "$1/." "$PREFIX/"; }

# Restores the cached tarball: unpacked aside, then copied in (tar would
# write into existing files, and tar --unlink-first fails on the prefix's
# non-empty directories).
unpack_cache() {
  local tmp=$WORK/mpich-unpack
  rm -rf "$tmp" && mkdir -p "$tmp" &&
    tar -xzf "$CACHE_FILE" -C "$tmp" &&
    copy_into_prefix "$tmp" &&
    rm -rf "$tmp"
}

# ------------------------------------------------------------ up to date?
if [ "$FORCE" = 0 ] && [ "$INCREMENTAL" = 0 ] && [ -f "$STAMP" ] &&
   [ "$(cat "$STAMP")" = "$KEY" ] && [ -x "$PREFIX/bin/mpicc" ] && [ -x "$PREFIX/bin/cpi" ]; then
  say "MPICH in $PREFIX is up to date (key $KEY); nothing to do"
  exit 0
fi

if [ "$USE_CACHE" = 1 ] && [ "$FORCE" = 0 ] && [ "$INCREMENTAL" = 0 ]; then
  if [ -f "$CACHE_FILE" ]; then
    t0=$SECONDS
    say "cache HIT: $CACHE_FILE"
    unpack_cache || die "cannot unpack $CACHE_FILE (delete it to rebuild)"
    mkdir -p "$(dirname "$STAMP")" && echo "$KEY" > "$STAMP"
    say "restored MPICH into $PREFIX in $((SECONDS - t0)) s"
    "$PREFIX/bin/mpichversion" | sed -n 's/^/build-mpich:   /; /Version:\|Device:/p'
    exit 0
  fi
  say "cache MISS (key $KEY): building MPICH from source (doc/mpich.md: how long on 2 cores)"
fi

T_START=$SECONDS

# ------------------------------------------------------------ source
step fetch-source "$ROOT/mpich/fetch-source.sh"

# ------------------------------------------------------------ injection
copy_netmod() {
  local dst=$TREE/src/mpid/ch4/netmod/multi
  mkdir -p "$dst"
  # copy only what changed, so that an incremental make rebuilds little
  local f
  for f in "$ROOT"/mpich/netmod/multi/*; do
    cmp -s "$f" "$dst/$(basename "$f")" || cp "$f" "$dst/"
  done
  for f in "$dst"/*; do
    [ -e "$ROOT/mpich/netmod/multi/$(basename "$f")" ] || rm -f "$f"
  done
}

inject() {
  rm -rf "$TREE"
  cp -a "$SRC_DIR" "$TREE"
  copy_netmod

  # 1. automake: ch4's netmod Makefile.mk includes every netmod by name.
  local mk=$TREE/src/mpid/ch4/netmod/Makefile.mk
  grep -q '^include $(top_srcdir)/src/mpid/ch4/netmod/stubnm/Makefile.mk' "$mk" ||
    { echo "unexpected $mk: no stubnm include line"; return 1; }
  sed -i 's|^include $(top_srcdir)/src/mpid/ch4/netmod/stubnm/Makefile.mk$|&\ninclude $(top_srcdir)/src/mpid/ch4/netmod/multi/Makefile.mk|' "$mk"
  grep -q 'netmod/multi/Makefile.mk' "$mk" || { echo "include line not added to $mk"; return 1; }

  # 2. gen_ch4_api.py knows the inlinable netmods by name; without "multi"
  #    NETMOD_INLINE=__netmod_inline_multi__ would silently pick stubnm.
  python3 - "$TREE/maint/gen_ch4_api.py" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
a = '        print("#define __netmod_inline_ucx__   2", file=Out)\n'
b = '        print("#include \\"../ucx/netmod_inline.h\\"", file=Out)\n'
if a not in s or b not in s:
    sys.exit("gen_ch4_api.py: the netmod_inline lines to patch are not there")
s = s.replace(a, a + '        print("#define __netmod_inline_multi__   3", file=Out)\n', 1)
s = s.replace(b, b + '        print("#elif NETMOD_INLINE==__netmod_inline_multi__", file=Out)\n'
                     '        print("#include \\"../multi/netmod_inline.h\\"", file=Out)\n', 1)
open(p, "w").write(s)
PY

  # 3. configure.ac: --with-device=multi means ch4 with the multi netmod.
  local ac=$TREE/configure.ac
  grep -q '^DEVICE=\$with_device$' "$ac" || { echo "unexpected $ac: no DEVICE=\$with_device line"; return 1; }
  python3 - "$ac" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
alias = ('# multidevice alias: --with-device=multi means ch4 with the multi netmod\n'
         'if test "$with_device" = "multi" ; then\n'
         '    with_device="ch4:multi"\n'
         'fi\n')
s = s.replace('\nDEVICE=$with_device\n', '\n' + alias + 'DEVICE=$with_device\n', 1)
open(p, "w").write(s)
PY
  grep -q 'with_device="ch4:multi"' "$ac" || { echo "alias not added to $ac"; return 1; }
}

autogen() {
  (cd "$TREE" && ./autogen.sh -quick)
  grep -q '__netmod_inline_multi__' "$TREE/src/mpid/ch4/netmod/include/netmod_impl.h" ||
    { echo "netmod_impl.h was not regenerated with the multi netmod"; return 1; }
}

# MPICH 4.0.2's collectives may return MPI_SUCCESS after a failed step they
# recorded in errflag: the generated wrappers MPIR_<Coll> check errflag
# (mpich/coll-errflag.py; doc/mpich.md).  After autogen, which generates them.
coll_errflag() {
  python3 "$ROOT/mpich/coll-errflag.py" "$TREE/src/mpi/coll/mpir_coll.c"
}

# MPICH 4.0.2 can chain an error code onto itself, after which its error
# handler spins for ever: combining two codes never closes a cycle
# (mpich/err-chain.py; doc/mpich.md).
err_chain() {
  python3 "$ROOT/mpich/err-chain.py" "$TREE/src/mpi/errhan/errutil.c"
}

# MPICH compiles against a snapshot of libmultidev's public headers whose
# timestamps change only when their contents do: every MPICH object depends
# on them (the request embeds md_request_t), and a plain "make install" of
# the project re-stamps the installed copies, which would make MPICH's make
# rebuild everything.
snapshot_headers() {
  mkdir -p "$WORK/multidev-include"
  local h
  for h in multidev.h md_request.h; do
    cmp -s "$PREFIX/include/$h" "$WORK/multidev-include/$h" ||
      cp "$PREFIX/include/$h" "$WORK/multidev-include/$h"
  done
}

configure_mpich() {
  rm -rf "$BUILD" && mkdir -p "$BUILD"
  (cd "$BUILD" && "$TREE/configure" "${CONFIGURE_OPTS[@]}")
  grep -q 'NETMOD_INLINE=__netmod_inline_multi__' "$BUILD/Makefile" ||
    { echo "configure did not select the inline multi netmod"; return 1; }
}

make_mpich() { make -C "$BUILD" -j"$JOBS"; }

install_mpich() {
  rm -rf "$STAGE"
  make -C "$BUILD" install DESTDIR="$STAGE"
  [ -x "$STAGE$PREFIX/bin/mpicc" ] || { echo "make install left no $STAGE$PREFIX/bin/mpicc"; return 1; }
  debian_names "$STAGE$PREFIX/lib"
  copy_into_prefix "$STAGE$PREFIX"
}

# Debian builds MPICH with MPILIBNAME=mpich, so the programs of its packages
# need libmpich.so.12, libmpichfort.so.12 and libmpichcxx.so.12, where
# upstream's names (ours) are libmpi.so.12, libmpifort.so.12 and
# libmpicxx.so.12: the same ABI (one MPICH version, one compiler).  Each
# Debian name is a symbolic link to ours with the same major version, so
# that LD_LIBRARY_PATH=<prefix>/lib runs such a program unmodified over the
# multidevice (the dynamic loader maps a file once, whichever name reaches
# it).  The unversioned libmpichfort.so lets Debian's link line
# (-lmpichfort -lmpich) build against ours as well.
debian_names() {
  local lib=$1 pair ours deb soname
  for pair in mpi:mpich mpifort:mpichfort mpicxx:mpichcxx; do
    ours=${pair%%:*} deb=${pair#*:}
    soname=$(objdump -p "$lib/lib$ours.so" | awk '$1 == "SONAME" { print $2 }')
    case "$soname" in
      "lib$ours.so".[0-9]*) ;;
      *) echo "lib$ours.so has no SONAME lib$ours.so.N (got '$soname')"; return 1 ;;
    esac
    ln -sfn "$soname" "$lib/lib$deb.so.${soname#lib$ours.so.}"
    [ -e "$lib/lib$deb.so" ] || ln -sfn "lib$ours.so" "$lib/lib$deb.so"
  done
}

# MPICH's examples/cpi, compiled from the fetched source with the installed
# wrapper; it goes into the staged tree too, so the cache carries it.
build_cpi() {
  "$PREFIX/bin/mpicc" -O2 -o "$STAGE$PREFIX/bin/cpi" "$TREE/examples/cpi.c" -lm
  cp -a --remove-destination "$STAGE$PREFIX/bin/cpi" "$PREFIX/bin/cpi"
}

check_install() {
  "$PREFIX/bin/mpichversion"
  "$PREFIX/bin/mpichversion" | grep 'Device:.*ch4:multi' >/dev/null ||
    { echo "installed MPICH does not report device ch4:multi"; return 1; }
  # (grep without -q reads to the end: with -q it may leave early, ldd or
  # nm then dies of SIGPIPE, and pipefail fails the check)
  ldd "$PREFIX/lib/libmpi.so" | grep -F "$PREFIX/lib/libmultidev.so" >/dev/null ||
    { echo "libmpi.so does not resolve libmultidev.so from $PREFIX/lib"; return 1; }
  # Fortran (mpif.h, use mpi, use mpi_f08), C++ and ROMIO made it in
  local f
  for f in bin/mpifort bin/mpicxx lib/libmpifort.so lib/libmpicxx.so include/mpif.h \
           include/mpi.mod include/mpi_f08.mod include/mpio.h \
           lib/libmpich.so.12 lib/libmpichfort.so.12 lib/libmpichcxx.so.12; do
    [ -e "$PREFIX/$f" ] || { echo "$PREFIX/$f is missing"; return 1; }
  done
  nm -D --defined-only "$PREFIX/lib/libmpi.so" | grep -w MPI_File_open >/dev/null ||
    { echo "libmpi.so has no MPI_File_open: ROMIO was not built in"; return 1; }
}

save_cache() {
  mkdir -p "$CACHE_DIR"
  local tmp=$CACHE_FILE.tmp.$$
  tar -czf "$tmp" -C "$STAGE$PREFIX" .
  mv "$tmp" "$CACHE_FILE"
  # keep the three newest entries
  ls -1t "$CACHE_DIR"/mpich-"$MPICH_UPSTREAM"-multi-*.tar.gz 2>/dev/null | tail -n +4 | xargs -r rm -f
}

snapshot_headers
if [ "$INCREMENTAL" = 1 ]; then
  [ -f "$BUILD/Makefile" ] && [ -d "$TREE" ] ||
    die "--incremental needs a previous full build in $WORK (run without --incremental first)"
  grep -q -- "--with-multidev-include=$WORK/multidev-include" "$BUILD/config.log" ||
    die "the build in $BUILD predates the header snapshot: run without --incremental once"
  step copy-netmod copy_netmod
else
  step inject inject
  step autogen autogen
  step coll-errflag coll_errflag
  step err-chain err_chain
  step configure configure_mpich
fi
step make make_mpich
step install install_mpich
step cpi build_cpi
step check check_install

if [ "$INCREMENTAL" = 1 ]; then
  rm -f "$STAMP"        # an incremental build is not what the key describes
  say "incremental build installed in $((SECONDS - T_START)) s (cache not updated)"
  exit 0
fi

mkdir -p "$(dirname "$STAMP")" && echo "$KEY" > "$STAMP"
if [ "$USE_CACHE" = 1 ]; then
  step save-cache save_cache
  say "cached as $CACHE_FILE"
fi
say "MPICH $SRC_VERSION with device ch4:multi installed in $PREFIX in $((SECONDS - T_START)) s"
