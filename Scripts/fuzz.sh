#!/usr/bin/env bash
# Fuzzes every document reader and the presentation schema reader with libFuzzer.
#
#   Scripts/fuzz.sh [SECONDS] [TARGET…]     # default: 60 s each, every target
#
# Builds into .build-fuzz/ (DrillDownCore, DrillDownFormats, Yams and its C libyaml compiled with
# -sanitize=fuzzer,address; one executable per target from Fuzz/Targets/), then runs each target
# for SECONDS on its seed corpus (Fuzz/Corpus/TARGET and the inputs of fixed bugs in
# Fuzz/Regressions/TARGET, never written to) with its dictionary
# (Fuzz/Dictionaries/TARGET.dict). A thrown FormatError is a normal outcome; a trap, a sanitizer
# report, an input taking over 5 s, or over 600 MB is a crash: the input is saved under
# artifacts/fuzz/ and the script exits 1 after running the rest.
#
# Environment: FUZZ_CORPUS_ROOT=DIR keeps a growing corpus per target in DIR/corpus-TARGET;
# FUZZ_LOG_DIR=DIR writes each run's log to DIR/TARGET.log; FUZZ_ARTIFACTS=DIR saves crashing
# inputs there instead; FUZZ_FLAGS adds libFuzzer flags (e.g. "-fork=1 -ignore_crashes=1" to go
# on past a known crash); FUZZ_TIMEOUT=S changes the 5 s limit per input (it is wall-clock time,
# so long runs under `nice` on a busy machine need more; re-run what it reports alone, at 5 s);
# FUZZ_BUILD_ONLY=1 only builds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-60}
shift || true
all_targets=(json plist-xml plist-binary openstep yaml schema)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

out="$root/.build-fuzz"
mkdir -p "$out"
log() { printf '==> %s\n' "$*" >&2; }

# --- sources -------------------------------------------------------------------------------
yams="$root/.build/checkouts/Yams/Sources"
if [ ! -d "$yams/Yams" ]; then
  log "resolving packages (for Yams' sources)"
  swift package resolve >/dev/null
fi
[ -d "$yams/Yams" ] || { echo "fuzz.sh: Yams sources not found in .build/checkouts/Yams" >&2; exit 1; }

# True when $1 is missing or older than any of the other files.
stale() {
  local target=$1; shift
  [ -e "$target" ] || return 0
  local f
  for f in "$@"; do [ "$f" -nt "$target" ] && return 0; done
  return 1
}

# -package-name: the modules share `package` declarations (the core's HugePages, used by the formats), as under SwiftPM.
swift_flags=(-parse-as-library -O -g -sanitize=fuzzer,address -package-name drilldown)

# --- libraries: each module compiled once, whole-module, to one object file ------------------
cyaml_sources=("$yams"/CYaml/src/*.c)
if stale "$out/CYaml.a" "${cyaml_sources[@]}"; then
  log "building CYaml (clang, fuzzer-no-link + address)"
  rm -f "$out"/cyaml-*.o "$out/CYaml.a"
  for f in "${cyaml_sources[@]}"; do
    clang -c -O1 -g -fsanitize=fuzzer-no-link,address -DYAML_DECLARE_STATIC -I"$yams/CYaml/include" \
      "$f" -o "$out/cyaml-$(basename "$f" .c).o"
  done
  ar rcs "$out/CYaml.a" "$out"/cyaml-*.o
fi

# module NAME SWIFT_VERSION DIR [extra flags…]: compiles DIR/**/*.swift into $out/NAME.o + .swiftmodule.
module() {
  local name=$1 version=$2 dir=$3; shift 3
  local sources
  mapfile -t sources < <(find "$dir" -name '*.swift' | sort)
  if stale "$out/$name.o" "${sources[@]}"; then
    log "building $name (swiftc -sanitize=fuzzer,address)"
    touch "$out/$name.started"   # the object takes this time, so edits made during the build count
    swiftc -wmo -c "${swift_flags[@]}" -swift-version "$version" -module-name "$name" \
      -emit-module -emit-module-path "$out/$name.swiftmodule" -I "$out" "$@" \
      "${sources[@]}" -o "$out/$name.o.tmp" 2> >(grep -v -e 'warning:' >&2 || true)
    mv "$out/$name.o.tmp" "$out/$name.o"
    touch -r "$out/$name.started" "$out/$name.o"
  fi
}
module Yams 5 "$yams/Yams" -D SWIFT_PACKAGE -I "$yams/CYaml/include" -Xcc -DYAML_DECLARE_STATIC
module DrillDownCore 6 Sources/DrillDownCore
# The formats import the C module CDrillDownSIMD (the JSON reader's byte classifier, inlined from
# its headers, and stage 1's plain-block loop, CDrillDownScan.c, built here like CYaml).
simd_include=Sources/CDrillDownSIMD/include
# The formats also inline the core's @inlinable code (the store's builder): a newer core rebuilds them.
if [ -e "$out/DrillDownFormats.o" ] && stale "$out/DrillDownFormats.o" "$simd_include"/* "$out/DrillDownCore.o"; then rm -f "$out/DrillDownFormats.o"; fi
simd_sources=(Sources/CDrillDownSIMD/*.c)
if stale "$out/CDrillDownSIMD.a" "${simd_sources[@]}" "$simd_include"/*; then
  log "building CDrillDownSIMD (clang, fuzzer-no-link + address)"
  rm -f "$out"/simd-*.o "$out/CDrillDownSIMD.a"
  for f in "${simd_sources[@]}"; do
    clang -c -O2 -g -fsanitize=fuzzer-no-link,address -I"$simd_include" "$f" -o "$out/simd-$(basename "$f" .c).o"
  done
  ar rcs "$out/CDrillDownSIMD.a" "$out"/simd-*.o
fi
module DrillDownFormats 6 Sources/DrillDownFormats -I "$yams/CYaml/include" -Xcc -DYAML_DECLARE_STATIC -I "$simd_include"

# --- targets -------------------------------------------------------------------------------
source_of() {
  case $1 in
    json) echo FuzzJSON ;; plist-xml) echo FuzzPlistXML ;; plist-binary) echo FuzzPlistBinary ;;
    openstep) echo FuzzOpenStep ;; yaml) echo FuzzYAML ;; schema) echo FuzzSchema ;;
    *) echo "fuzz.sh: unknown target '$1' (known: ${all_targets[*]})" >&2; exit 2 ;;
  esac
}
libraries=("$out/DrillDownFormats.o" "$out/DrillDownCore.o" "$out/Yams.o" "$out/CYaml.a" "$out/CDrillDownSIMD.a")
for t in "${targets[@]}"; do
  src="Fuzz/Targets/$(source_of "$t").swift"
  if stale "$out/fuzz-$t" "$src" Fuzz/Shared/*.swift "${libraries[@]}"; then
    log "linking fuzz-$t"
    swiftc "${swift_flags[@]}" -swift-version 6 -I "$out" -I "$simd_include" -I "$yams/CYaml/include" -Xcc -DYAML_DECLARE_STATIC -module-name "Fuzz_${t//-/_}" \
      "$src" Fuzz/Shared/*.swift "${libraries[@]}" -o "$out/fuzz-$t" 2> >(grep -v "Cannot export local symbol" >&2 || true)
  fi
done
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0

# --- runs ----------------------------------------------------------------------------------
export SWIFT_BACKTRACE=enable=no
# A smaller quarantine keeps ASan's own memory well below the 600 MB limit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=0}
artifacts=${FUZZ_ARTIFACTS:-artifacts/fuzz}
mkdir -p "$artifacts"
read -r -a extra_flags <<<"${FUZZ_FLAGS:-}"
status=0
summary=()
for t in "${targets[@]}"; do
  corpus=()
  if [ -n "${FUZZ_CORPUS_ROOT:-}" ]; then
    mkdir -p "$FUZZ_CORPUS_ROOT/corpus-$t"
    corpus+=("$FUZZ_CORPUS_ROOT/corpus-$t")
  else
    scratch=$(mktemp -d)
    corpus+=("$scratch")
  fi
  corpus+=("Fuzz/Corpus/$t")
  # Inputs that once crashed or hung a reader run first, every time.
  [ -d "Fuzz/Regressions/$t" ] && corpus+=("Fuzz/Regressions/$t")
  dict=()
  [ -f "Fuzz/Dictionaries/$t.dict" ] && dict=(-dict="Fuzz/Dictionaries/$t.dict")
  logfile=${FUZZ_LOG_DIR:+$FUZZ_LOG_DIR/$t.log}
  logfile=${logfile:-$(mktemp)}
  log "fuzzing $t for ${seconds}s (log: $logfile)"
  started=$(date +%s)
  set +e
  "$out/fuzz-$t" "${corpus[@]}" "${dict[@]}" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-5}" -rss_limit_mb=600 \
    -malloc_limit_mb=600 -max_len=16384 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
    ${extra_flags[@]+"${extra_flags[@]}"} >"$logfile" 2>&1
  rc=$?
  set -e
  elapsed=$(( $(date +%s) - started ))
  [ -n "${scratch:-}" ] && rm -rf "$scratch" && scratch=
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logfile" | tail -1)
  [ -n "$execs" ] || execs=$( (grep -oE '^#[0-9]+' "$logfile" || true) | tail -1 | tr -d '#')   # -fork mode
  cov=$( (grep -oE 'cov: [0-9]+ ft: [0-9]+' "$logfile" || true) | tail -1)
  crashes=$(grep -c 'Test unit written to' "$logfile" || true)   # one per crash, timeout or OOM
  summary+=("$(printf '%-13s %4ss  execs %-10s %-22s crashes %s' "$t" "$elapsed" "${execs:-?}" "${cov:-cov: ?}" "$crashes")")
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz.sh: $t failed (exit $rc); last lines of $logfile:" >&2
    tail -40 "$logfile" >&2
    ls "$artifacts/$t"-* 2>/dev/null >&2 || true
  fi
done
printf '%s\n' "${summary[@]}"
exit $status
