#!/usr/bin/env bash
# The whole test suite — the README's second command, and what CI (.ci/run) runs:
#   1. the exported package is in sync with the notebooks, the notebooks are clean, README is current;
#   2. pytest over tests/ (references: Weka, scikit-learn, scikit-multilearn; properties; bad input), the same
#      digests on the host and a simulated baseline CPU (and Haswell with RELIEFFML_MACHINES=all;
#      tests/test_machines.py), and nbval over nbs/ and tutorials/ (every cell runs; cells marked
#      NBVAL_CHECK_OUTPUT must match): one job per process, as many at once as there are cores (tools/lanes.py);
#   3. the documentation pages build and read correctly in a browser (tools/check_pages.py).
# With CI=true, a test that would skip because Weka is missing fails instead. RELIEFFML_DATA is a fresh,
# empty data home: the chapters, tutorials and tests use the data sets bundled with the package, as on a fresh
# install, and any other registered set is downloaded — verified — from a loopback server over the shared copy
# of Mulan's tree (tools/serve_mirror.py, ../shared/datasets/mulan-mirror; RELIEFFML_MIRROR), so the download
# path runs offline. The server is stopped and the data home removed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${RELIEFFML_BIN:-.venv/bin}
[ -x "$BIN/python" ] || BIN=$(dirname "$(command -v python3)")
PY="$BIN/python"
export MPLBACKEND=Agg PYTHONHASHSEED=0
# The notice that kernels are compiling (chapter 00a) goes to stderr, which nbval compares in a checked cell:
# off here, so a stored output does not depend on a warm cache (tests/test_progress.py turns it on to test it).
export RELIEFFML_COMPILE_NOTICE=off
status=0
start=$SECONDS
step() { echo; echo "== $* ($((SECONDS - start)) s)"; }

MIRROR_DIR=../shared/datasets/mulan-mirror
export RELIEFFML_DATA=$(mktemp -d)
mirror_url=$(mktemp)
mirror_pid=
cleanup() { [ -n "$mirror_pid" ] && kill "$mirror_pid" 2>/dev/null; rm -rf "$RELIEFFML_DATA" "$mirror_url"; }
trap cleanup EXIT
if [ -d "$MIRROR_DIR" ]; then
  "$PY" tools/serve_mirror.py "$MIRROR_DIR" --url-file "$mirror_url" >/dev/null &
  mirror_pid=$!
  for _ in $(seq 100); do [ -s "$mirror_url" ] && break; sleep 0.1; done
  export RELIEFFML_MIRROR=$(cat "$mirror_url")
  echo "loopback mirror of $MIRROR_DIR at $RELIEFFML_MIRROR (pid $mirror_pid), fresh data home $RELIEFFML_DATA"
else echo "no $MIRROR_DIR: registered sets that are not bundled cannot be downloaded offline"; fi

step "1/3 package in sync with the notebooks, notebooks clean, README current"
if git rev-parse --git-dir >/dev/null 2>&1; then
  "$BIN/nbdev-export" && "$BIN/nbdev-clean" && "$BIN/nbdev-clean" --fname tutorials && "$PY" tools/make_readme.py && "$PY" tools/make_naive.py \
    && { [ ! -d ../shared/datasets ] || "$PY" tools/make_registry.py >/dev/null; }
  changed=$(git status --porcelain -- relieffml nbs tutorials README.md tests/naive.py | grep -v '__pycache__' || true)
  if [ -n "$changed" ]; then
    echo "FAIL: nbdev-export / nbdev-clean / tools/make_readme.py / make_naive.py / make_registry.py changed these files (commit what they produce):"
    echo "$changed"; status=1
  else echo "ok"; fi
else echo "not a git checkout: sync check skipped"; fi

# numba stamps a cached kernel with its own file, not the files of the kernels it calls: after an edit to one module,
# a warm cache (a developer's checkout; CI starts empty) would run callers with the old callee. The package's numba
# cache is cleared whenever any of its modules changed (tools/fresh_kernel_cache.py; with NUMBA_CACHE_DIR set, clear
# that folder by hand after editing a kernel).
[ -n "${NUMBA_CACHE_DIR:-}" ] || "$PY" tools/fresh_kernel_cache.py || status=1

step "2/3 pytest tests/, the multi-machine digest test and nbval of every chapter and tutorial, on $(nproc) lanes"
# One job per process, longest first: pytest over tests/ and tests/test_machines.py (which compiles every kernel
# anew for a simulated CPU) start at once, and each notebook (nbval: every cell runs, cells marked
# NBVAL_CHECK_OUTPUT must match) goes to the first free lane (tools/lanes.py). Much of a job's time is numba
# compiling, on one core; results do not depend on the number of threads, so sharing the cores changes no output.
# The notebooks start once the digest test ends, when pytest has filled numba's cache with most kernels.
{
  printf 'pytest tests/\t%s\n' "$PY -m pytest tests -q -rs -p no:cacheprovider --ignore=tests/test_machines.py"
  printf 'multi-machine digests (tests/test_machines.py)\t%s\n' \
    "$PY -m pytest tests/test_machines.py -q -rs -p no:cacheprovider"
  for nb in tutorials/*.ipynb nbs/*.ipynb; do     # the tutorials first: each takes minutes, a chapter seconds
    [ -f "$nb" ] || continue
    # pytest's exit status 5 (no cells collected: a notebook of prose only) is a pass
    printf 'nbval %s\t%s\n' "$nb" "$PY -m pytest --nbval-lax -q -p no:cacheprovider $nb || [ \$? -eq 5 ]"
  done
} | "$PY" tools/lanes.py || status=1

step "3/3 documentation pages: built offline, then opened in headless Chromium and checked"
"$PY" tools/build_docs.py && "$PY" tools/check_pages.py _docs || status=1

step "done: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
