#!/usr/bin/env bash
# Benchmarks (not tests): generates large inputs, builds a release binary, and compares DrillDown
# with peers on the same files in the same run. Prints numbers; the README quotes them.
#   Scripts/bench.sh            1M-node JSON
#   Scripts/bench.sh --big      also 10M nodes (outline and level-page targets)
set -euo pipefail
cd "$(dirname "$0")/.."
data=bench-data
mkdir -p "$data"
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }

swift build -c release --product drilldown >/dev/null
bin=.build/release/drilldown

sizes=(1000000)
[ "${1:-}" = "--big" ] && sizes+=(10000000)

for n in "${sizes[@]}"; do
  f="$data/records-$n.json"
  [ -f "$f" ] || python3 Scripts/gen-json.py --nodes "$n" "$f"
  mb=$(( $(stat -c %s "$f") / 1048576 ))
  echo "== $f ($mb MB)"
  best=""
  for i in 1 2 3; do
    ms=$("$bin" stats "$f" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["loadMilliseconds"], d["peakResidentBytes"]//1048576, d["bytesPerNode"])')
    echo "drilldown load: ${ms% * *} ms  (peak RSS $(echo "$ms" | cut -d' ' -f2) MB, $(echo "$ms" | cut -d' ' -f3) bytes/node in the store)"
  done
  for i in 1 2 3; do
    python3 - "$f" <<'PY'
import json, resource, sys, time
t = time.perf_counter()
json.load(open(sys.argv[1]))
print(f"python json.load: {1000 * (time.perf_counter() - t):.0f} ms  (peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB)")
PY
  done
  for i in 1 2 3; do
    s=$(date +%s%N); jq length "$f" >/dev/null; e=$(date +%s%N)
    echo "jq length: $(( (e - s) / 1000000 )) ms (whole process)"
  done
  "$bin" bench "$f" --query "postal"
done
