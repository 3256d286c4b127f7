# scripts/lib.sh - shared by the top-level scripts: paths and step runner.
# shellcheck shell=bash
MD_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MD_PREFIX="$MD_ROOT/_install"
MD_JOBS=${MD_JOBS:-$(nproc 2>/dev/null || echo 2)}
export MD_ROOT MD_PREFIX MD_JOBS

md_step_names=()
md_step_results=()

# md_step NAME COMMAND... : runs a step, times it, records PASS/FAIL.
md_step() {
  local name=$1; shift
  local t0 t1 rc
  printf '\n=== %s\n' "$name"
  t0=$(date +%s)
  set +e
  "$@"
  rc=$?
  set -e
  t1=$(date +%s)
  md_step_names+=("$name")
  if [ "$rc" -eq 0 ]; then
    md_step_results+=("PASS $((t1 - t0))s")
  else
    md_step_results+=("FAIL (exit $rc) $((t1 - t0))s")
  fi
  printf '=== %s: %s\n' "$name" "${md_step_results[-1]}"
  return 0
}

md_summary() {
  local failed=0 i
  printf '\n=== summary\n'
  for i in "${!md_step_names[@]}"; do
    printf '  %-40s %s\n' "${md_step_names[$i]}" "${md_step_results[$i]}"
    case "${md_step_results[$i]}" in FAIL*) failed=1 ;; esac
  done
  return "$failed"
}

# md_configure_build DIR [configure args...]: VPATH build of the project.
md_configure_build() {
  local dir=$1; shift
  mkdir -p "$MD_ROOT/$dir"
  ( cd "$MD_ROOT/$dir"
    if [ ! -f Makefile ] || [ "$MD_ROOT/configure" -nt Makefile ]; then
      "$MD_ROOT/configure" --prefix="$MD_PREFIX" "$@" >configure.out 2>&1 ||
        { tail -30 configure.out; exit 1; }
    fi
    make -j"$MD_JOBS" >make.out 2>&1 || { grep -E 'error|Error' make.out | head -40; tail -20 make.out; exit 1; }
  )
}

md_autoreconf() {
  if [ ! -x "$MD_ROOT/configure" ] || [ "$MD_ROOT/configure.ac" -nt "$MD_ROOT/configure" ]; then
    ( cd "$MD_ROOT" && autoreconf -fi >/dev/null 2>&1 ) || { echo "autoreconf failed"; return 1; }
  fi
}
