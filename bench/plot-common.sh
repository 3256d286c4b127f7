# shellcheck shell=sh
# bench/plot-common.sh - sourced by the bench/*.sh scripts (bash or sh):
# their tables drawn by bench/plot.py, each PNG beside its TSV.  Expects
# BENCH, the bench/ directory.
#
#   bench_plot DATA.tsv OUT.png [plot.py options]
#       draws DATA.tsv into OUT.png and adds OUT.png to BENCH_PLOTS (one a
#       line).
#       Without matplotlib for /usr/bin/python3 it says so (once) and draws
#       nothing; a plot that fails is reported and the run goes on (the
#       table stands).  Never fails.
#   bench_plots_done NAME
#       prints the PNGs drawn, one a line ("NAME: plot FILE"); for the end
#       of a run.

BENCH_PLOTS=
bench_plot_ok=

bench_plot() {
  if [ -z "$bench_plot_ok" ]; then
    if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
      bench_plot_ok=1
    else
      bench_plot_ok=0
      echo "bench: no matplotlib for /usr/bin/python3 (scripts/setup-deps.sh installs" \
           "python3-matplotlib): no plots, the tables stand" >&2
    fi
  fi
  [ "$bench_plot_ok" = 1 ] || return 0
  if [ ! -s "$1" ]; then
    echo "bench: no data in $1: no plot $2" >&2
    return 0
  fi
  if /usr/bin/python3 "${BENCH:?bench_plot: BENCH is not set}/plot.py" "$@"; then
    BENCH_PLOTS="$BENCH_PLOTS$2
"
  else
    echo "bench: plotting $1 into $2 failed (the table stands)" >&2
  fi
  return 0
}

bench_plots_done() {
  printf '%s' "$BENCH_PLOTS" | while IFS= read -r _png; do
    echo "$1: plot $_png"
  done
}
