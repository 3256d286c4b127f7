#!/usr/bin/env bash
# Builds and installs everything into ./_install: the project (libmultidev,
# subdevices, NIC firmware, mdconfig) and MPICH 4.0.2 with
# --with-device=multi (cached; see doc/mpich.md).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$MD_ROOT/scripts/setup-deps.sh"
md_autoreconf
echo "build: project -> $MD_PREFIX"
md_configure_build _build
make -C "$MD_ROOT/_build" install >/dev/null
if [ "${MD_SKIP_MPICH:-0}" != 1 ]; then
  "$MD_ROOT/mpich/build-mpich.sh"
fi
