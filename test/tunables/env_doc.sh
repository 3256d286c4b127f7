#!/bin/sh
# doc/environment.md's tables of variables are exactly what the table of
# tunables (src/tunables/md_tun_table.c) gives; on a difference mdinfo
# names the line and the command that writes them anew.
set -eu
"${MDINFO:?make check sets MDINFO}" --doc-check "${TOP_SRCDIR:?}/doc/environment.md"
