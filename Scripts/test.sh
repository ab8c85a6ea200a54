#!/usr/bin/env bash
# Runs the tests in layers: Swift unit/server tests, the documentation build, then end-to-end tests that drive the real
# `drilldown` binary (CLI), a real browser (Playwright + Debian's Chromium), a real terminal (tmux)
# and a real PostgreSQL, then a bounded fuzzing run. Installs what the chosen layers need when
# missing; safe to run twice.
#
#   Scripts/test.sh                 # every layer (what CI runs)
#   Scripts/test.sh cli terminal    # only these layers, in the usual order
#
# Layers: swift (the Swift suites but the PostgreSQL ones), docs (the DocC catalogue of the DrillDown
# library, Sources/DrillDown/Documentation.docc, built by the toolchain's docc with warnings as
# errors), cli (e2e/cli), web (e2e/web), terminal
# (e2e/terminal), postgres (what needs a PostgreSQL server, on a throwaway cluster: the Swift
# PostgreSQL suites, e2e/web/test_postgres*.py and test_faults.py, and the `postgres` cases of the
# CLI and editing tests, which the cli and web layers leave out), fuzz (every reader for 15 s). Every chosen layer runs even when an earlier one fails; a summary
# table of results and times ends the output, and the exit status is 1 when any layer failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

log() { printf '\n==> %s\n' "$*"; }

all_layers=(swift docs cli web terminal postgres fuzz)
chosen=()
for arg in "$@"; do
  case " ${all_layers[*]} " in
    *" $arg "*) chosen+=("$arg") ;;
    *)
      status=0
      case $arg in -h | --help) ;; *) echo "unknown layer: $arg" >&2; status=2 ;; esac
      echo "usage: Scripts/test.sh [LAYER...]   (layers: ${all_layers[*]}; default: all)" >&2
      exit $status ;;
  esac
done
[ ${#chosen[@]} -gt 0 ] || chosen=("${all_layers[@]}")
wants() { case " ${chosen[*]} " in *" $1 "*) return 0 ;; esac; return 1; }
wants_any() { for l in "$@"; do wants "$l" && return 0; done; return 1; }

# --- tools (only what the chosen layers use) -----------------------------------------------
apt_packages=()
if wants_any web postgres; then command -v chromium >/dev/null 2>&1 || apt_packages+=(chromium); fi
# tmux: the terminal tests, and e2e/web/test_writers.py (server, terminal and CLI on one file).
if wants_any web terminal; then command -v tmux >/dev/null 2>&1 || apt_packages+=(tmux); fi
if wants cli; then command -v jq >/dev/null 2>&1 || apt_packages+=(jq); fi
# The sqlite3 shell: the relational music tests read the tables back with it (e2e/web/test_web_relational.py).
if wants web; then command -v sqlite3 >/dev/null 2>&1 || apt_packages+=(sqlite3); fi
# ss: e2e/web/test_search_concurrency.py waits until the server has read a request before hanging up.
if wants web; then command -v ss >/dev/null 2>&1 || apt_packages+=(iproute2); fi
if [ ${#apt_packages[@]} -gt 0 ]; then
  log "installing ${apt_packages[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi

venv="$root/.venv-e2e"
pip_install() {  # pip_install MODULE PACKAGE... : installs PACKAGEs into .venv-e2e when MODULE is missing
  local module=$1; shift
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  if ! "$venv/bin/python" -c "import $module" >/dev/null 2>&1; then
    log "installing $* (pip, into .venv-e2e)"
    "$venv/bin/pip" install -q "$@"
  fi
}
if wants_any cli web terminal postgres; then pip_install pytest pytest; fi
# pytest-timeout: a test that waits forever (a browser call that never answers) fails after 10 minutes
# with its stack, and the run goes on, instead of holding CI until its limit.
if wants_any cli web terminal postgres; then pip_install pytest_timeout pytest-timeout; fi
if wants_any web postgres; then pip_install 'playwright, pytest_playwright' playwright pytest-playwright; fi
# schemathesis: property-based requests against the JSON API (e2e/web/test_api_fuzz.py, ~1-2 min,
# bounded by a pinned seed, a fixed number of examples and a timeout per run).
# (The postgres layer picks its cases out of e2e/web and e2e/cli, so it needs what they import too.)
if wants_any web postgres; then pip_install schemathesis schemathesis; fi
# PyYAML: the reference YAML reader of the differential tests (e2e/cli/test_differential.py, ~1 min).
if wants_any cli web postgres; then pip_install yaml pyyaml; fi
# axe-playwright-python: axe-core in the browser, WCAG 2.1 A/AA on every screen
# (e2e/web/test_accessibility.py, 41 checks, ~1 min).
if wants_any web postgres; then pip_install axe_playwright_python axe-playwright-python; fi

# --- running layers ------------------------------------------------------------------------
results=()   # "name|result|seconds"
failed=0
last_status=0
# run_step NAME COMMAND...: runs COMMAND (a failure does not stop the script), records whether it
# passed and how long it took; its exit status is left in last_status.
run_step() {
  local name=$1; shift
  log "$name"
  local start=$SECONDS result=pass
  last_status=0
  "$@" || last_status=$?
  if [ $last_status -ne 0 ]; then result="FAIL (exit $last_status)"; failed=1; fi
  results+=("$name|$result|$((SECONDS - start))")
}
skip_step() { results+=("$1|not run: $2|0"); failed=1; }

summary() {
  log "summary"
  printf '%-10s %-26s %s\n' layer result time
  local row name result seconds
  for row in "${results[@]}"; do
    IFS='|' read -r name result seconds <<<"$row"
    printf '%-10s %-26s %dm%02ds\n' "$name" "$result" $((seconds / 60)) $((seconds % 60))
  done
  printf '%-10s %-26s %dm%02ds\n' total "$([ $failed -eq 0 ] && echo pass || echo FAIL)" $((SECONDS / 60)) $((SECONDS % 60))
}

pytest_e2e() { "$venv/bin/python" -m pytest -q -p no:cacheprovider --timeout 600 "$@"; }

# The Swift suites that need a PostgreSQL server (DRILLDOWN_TEST_PG_URL): the postgres layer's.
pg_swift_tests='DrillDownPostgresTests\.|PostgresRelationalTests|TreeTableStoreTests/postgresProperty'

layer_swift() { swift test --skip "$pg_swift_tests"; }
# The catalogue and every public symbol's doc comment, through swift-docc-plugin: a broken link, an
# unknown symbol or a malformed article fails the layer. The archive is left in
# .build/plugins/Swift-DocC/outputs/DrillDown.doccarchive.
layer_docs() { swift package generate-documentation --target DrillDown --warnings-as-errors; }
# The end-to-end tests on PostgreSQL: test_postgres*.py, test_faults.py, and the cases named
# `postgres` (`[postgres]` of the tests run on every store, the CLI on a table).
pg_e2e='postgres or test_faults'
layer_cli() { (unset DRILLDOWN_TEST_PG_URL; pytest_e2e e2e/cli -k "not ($pg_e2e)"); }
layer_web() { (unset DRILLDOWN_TEST_PG_URL; pytest_e2e e2e/web -k "not ($pg_e2e)"); }
layer_terminal() { pytest_e2e e2e/terminal; }
layer_postgres() {
  local status=0
  swift test --filter "$pg_swift_tests" || status=1
  pytest_e2e e2e/cli -k "$pg_e2e" || status=1
  pytest_e2e e2e/web -k "$pg_e2e" || status=1
  return $status
}
# Every reader's libFuzzer target (JSON, XML/binary/OpenStep plists, YAML, presentation schema)
# for 15 s on its seed corpus: 90 s of fuzzing plus the sanitizer build (a few minutes the first
# time, cached in .build-fuzz/ after). A trap, a sanitizer report, an input taking over 5 s or
# 600 MB fails the run; the input is kept under artifacts/fuzz/. Long runs: Scripts/fuzz.sh 3600.
layer_fuzz() { Scripts/fuzz.sh 15; }

# A throwaway cluster (Debian's postgresql; initdb + pg_ctl in a temporary directory, a free port)
# for the postgres layer only, stopped on any exit.
start_cluster() {
  log "starting a throwaway PostgreSQL cluster (Scripts/pg-cluster.sh)"
  # shellcheck source=Scripts/pg-cluster.sh
  source Scripts/pg-cluster.sh || return 1
  echo "DRILLDOWN_TEST_PG_URL=$DRILLDOWN_TEST_PG_URL"
  "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"
}
# The summary ends every run, also an interrupted one.
trap '! declare -F pg_cluster_stop >/dev/null || pg_cluster_stop; summary' EXIT

# The drilldown binary the end-to-end layers drive.
built=1
if wants_any cli web terminal postgres; then
  run_step build swift build --product drilldown
  [ $last_status -eq 0 ] || built=0
  export DRILLDOWN_BIN="$root/.build/debug/drilldown"
  mkdir -p artifacts
fi

for layer in "${all_layers[@]}"; do
  wants "$layer" || continue
  if [ "$layer" != swift ] && [ "$layer" != docs ] && [ "$layer" != fuzz ] && [ $built -eq 0 ]; then
    skip_step "$layer" "the build failed"
    continue
  fi
  if [ "$layer" = postgres ] && ! start_cluster; then
    skip_step "$layer" "no PostgreSQL cluster"
    continue
  fi
  run_step "$layer" "layer_$layer"
done

exit $failed
