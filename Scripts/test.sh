#!/usr/bin/env bash
# Runs every test: Swift unit/server tests, then end-to-end tests that drive the real
# `drilldown` binary (CLI), a real browser (Playwright + Debian's Chromium) and a real
# terminal (tmux). Installs what it needs when missing; safe to run twice.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

log() { printf '\n==> %s\n' "$*"; }

# --- tools -------------------------------------------------------------------------------
apt_packages=()
command -v chromium >/dev/null 2>&1 || apt_packages+=(chromium)
command -v tmux >/dev/null 2>&1 || apt_packages+=(tmux)
command -v jq >/dev/null 2>&1 || apt_packages+=(jq)
# The sqlite3 shell: the relational music tests read the tables back with it (e2e/web/test_web_relational.py).
command -v sqlite3 >/dev/null 2>&1 || apt_packages+=(sqlite3)
if [ ${#apt_packages[@]} -gt 0 ]; then
  log "installing ${apt_packages[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi

venv="$root/.venv-e2e"
if ! "$venv/bin/python" -c 'import playwright, pytest, pytest_playwright' >/dev/null 2>&1; then
  log "installing playwright, pytest, pytest-playwright (pip, into .venv-e2e)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q playwright pytest pytest-playwright
fi
# schemathesis: property-based requests against the JSON API (e2e/web/test_api_fuzz.py, ~1-2 min,
# bounded by a pinned seed, a fixed number of examples and a timeout per run).
if ! "$venv/bin/python" -c 'import schemathesis' >/dev/null 2>&1; then
  log "installing schemathesis (pip, into .venv-e2e)"
  "$venv/bin/pip" install -q schemathesis
fi
# PyYAML: the reference YAML reader of the differential tests (e2e/cli/test_differential.py, ~1 min).
if ! "$venv/bin/python" -c 'import yaml' >/dev/null 2>&1; then
  log "installing pyyaml (pip, into .venv-e2e)"
  "$venv/bin/pip" install -q pyyaml
fi

# axe-playwright-python: axe-core in the browser, WCAG 2.1 A/AA on every screen
# (e2e/web/test_accessibility.py, 41 checks, ~1 min).
if ! "$venv/bin/python" -c 'import axe_playwright_python' >/dev/null 2>&1; then
  log "installing axe-playwright-python (pip, into .venv-e2e)"
  "$venv/bin/pip" install -q axe-playwright-python
fi

# --- PostgreSQL ----------------------------------------------------------------------------
# A throwaway cluster (Debian's postgresql; initdb + pg_ctl in a temporary directory, a free port),
# stopped on any exit: the PostgreSQL stores' Swift tests, e2e/web/test_postgres.py and test_postgres_levels.py use it.
log "starting a throwaway PostgreSQL cluster (Scripts/pg-cluster.sh)"
source Scripts/pg-cluster.sh
trap pg_cluster_stop EXIT
echo "DRILLDOWN_TEST_PG_URL=$DRILLDOWN_TEST_PG_URL"

# --- Swift -------------------------------------------------------------------------------
log "swift build"
swift build --product drilldown
export DRILLDOWN_BIN="$root/.build/debug/drilldown"

log "swift test (Swift Testing: core, formats, web, terminal)"
swift test

# --- end to end --------------------------------------------------------------------------
mkdir -p artifacts
log "end-to-end: CLI, web (Chromium), terminal (tmux)"
"$venv/bin/python" -m pytest e2e -q -p no:cacheprovider

# --- fuzzing (bounded) ---------------------------------------------------------------------
# Every reader's libFuzzer target (JSON, XML/binary/OpenStep plists, YAML, presentation schema)
# for 15 s on its seed corpus: 90 s of fuzzing plus the sanitizer build (a few minutes the first
# time, cached in .build-fuzz/ after). A trap, a sanitizer report, an input taking over 5 s or
# 600 MB fails the run; the input is kept under artifacts/fuzz/. Long runs: Scripts/fuzz.sh 3600.
log "fuzzing every reader, 15 s each (Scripts/fuzz.sh)"
Scripts/fuzz.sh 15
