#!/usr/bin/env bash
# Installs the Debian 12 packages multidev needs to build, test and
# benchmark.  Idempotent; quiet when everything is present.
set -euo pipefail

PKGS=(
  build-essential gfortran autoconf automake libtool libtool-bin m4 pkg-config
  python3 perl dpkg-dev
  libltdl-dev libcriterion-dev libhwloc-dev hwloc libsodium-dev
  iproute2 procps psmisc
  # baselines for the benchmarks (Debian's own MPI builds)
  mpich libmpich-dev openmpi-bin libopenmpi-dev
  # NetPIPE built against each of them (bench/netpipe-mpi.sh; doc/mpich.md runs NPmpich2 on ours)
  netpipe-mpich2 netpipe-openmpi
  # random loss on namespace hosts (test/cluster/nshosts.sh loss, bench/wire-hosts.sh)
  nftables ethtool
  # fuzzing, sanitizer runtimes, pictures
  clang libclang-rt-14-dev afl++ graphviz
  # benchmark plots (bench/plot.py, run by /usr/bin/python3)
  python3-matplotlib
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# MPICH's source comes from Debian's source package: make sure deb-src
# entries exist (deb822 sources on Debian 12).
need_src=0
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && \
   ! grep -qs '^deb-src' /etc/apt/sources.list; then
  need_src=1
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if [ "$need_src" -eq 1 ]; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
      $SUDO tee /etc/apt/sources.list.d/multidev-deb-src.sources >/dev/null
  elif [ -f /etc/apt/sources.list ]; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list |
      $SUDO tee /etc/apt/sources.list.d/multidev-deb-src.list >/dev/null
  fi
fi

if [ "${#missing[@]}" -gt 0 ] || [ "$need_src" -eq 1 ]; then
  echo "setup-deps: installing ${missing[*]:-(source entries only)}"
  $SUDO apt-get update -qq
  if [ "${#missing[@]}" -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi
