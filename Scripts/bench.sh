#!/usr/bin/env bash
# Benchmarks (not tests): generates large inputs, builds a release binary, and compares DrillDown
# with its peers on the same file in the same run. Prints numbers, and writes the run (date, machine,
# commit and what it printed) into Docs/benchmarks.md between its generated-section markers; the
# rest of that file (the history of before/after measurements) is left as it is.
#
#   Scripts/bench.sh                 the 3M-node outline JSON (1000 x 1000 rows, 47.7 MB), then
#                                    the same outline as XML and binary plists (against plistlib)
#   Scripts/bench.sh --big           also 10M nodes (peak RSS against store + file)
#   BENCH_RUNS=5 Scripts/bench.sh    repetitions per peer (default 3; the best and all runs print)
#   BENCH_BIN=path Scripts/bench.sh  measure that drilldown binary (e.g. main's, for before/after)
#   BENCH_YAML=0 Scripts/bench.sh    skip the YAML comparison (1M nodes as JSON and as YAML)
#   Scripts/bench.sh --quick         a smoke run on a small outline (100 x 100 rows), one run per peer,
#                                    the debug binary unless BENCH_BIN is set: checks the script and the
#                                    report, measures nothing worth keeping
#   BENCH_REPORT=path Scripts/bench.sh   write the report there instead (BENCH_REPORT= : nowhere)
#   Scripts/bench.sh --huge          only the 2 GB outline (42 000 x 1 000 rows, generated when missing):
#                                    time to the first screen of the web app and the terminal UI and
#                                    peak RSS against the file size (Scripts/bench-huge.py), then
#                                    `drilldown stats` (indexed lazily above 256 MiB)
#
# Peers (in-process parse, file already in the page cache): pysimdjson's parse to its tape, cold
# (a fresh process and parser, whose buffers are new memory, as each `drilldown stats` load is)
# and warm (one parser reused, best of 8; `drilldown bench --loads 8` is DrillDown's warm
# counterpart), alternating with DrillDown round by round, each round's ratio printed and the
# median ratio after the rounds; orjson.loads, python json.loads; whole processes: jq,
# `python3 -c 'json.load(...)'` and `drilldown stats`. YAML: the same 1M-node tree as JSON and as
# YAML (written by `drilldown convert`), DrillDown's load of each beside PyYAML's libyaml loader
# (`yaml.load(data, Loader=yaml.CSafeLoader)`). pysimdjson, orjson and PyYAML are installed into
# .venv-bench with pip when missing. The machine's load average is printed first: on a shared
# machine compare only numbers from one run.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case $mode in
  "" | --big | --huge | --quick) ;;
  *) echo "usage: Scripts/bench.sh [--big | --huge | --quick]" >&2; exit 2 ;;
esac
report=${BENCH_REPORT-Docs/benchmarks.md}
data=bench-data
log=$(mktemp)
trap 'rm -f "$log"' EXIT

mkdir -p "$data"
runs=${BENCH_RUNS:-$([ "$mode" = --quick ] && echo 1 || echo 3)}
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }
if [ ! -x .venv-bench/bin/python ]; then python3 -m venv .venv-bench; fi
.venv-bench/bin/python -c 'import simdjson, orjson, yaml' 2>/dev/null || .venv-bench/bin/pip install -q pysimdjson orjson pyyaml
py=.venv-bench/bin/python

if [ -n "${BENCH_BIN:-}" ]; then
  bin=$BENCH_BIN
elif [ "$mode" = --quick ]; then
  swift build --product drilldown >/dev/null
  bin=.build/debug/drilldown
else
  swift build -c release --product drilldown --scratch-path .build-release >/dev/null
  bin=.build-release/release/drilldown
fi

# The inputs: the 3M-node outline (47.7 MB) and, for YAML, a 1M-node one; in a quick run one small
# outline stands for both.
if [ "$mode" = --quick ]; then
  main_json=$data/outline-quick.json
  [ -f "$main_json" ] || python3 Scripts/gen-outline.py --groups 100 --rows 100 "$main_json" >/dev/null
  yaml_json=$main_json
else
  main_json=$data/outline-3m.json
  yaml_json=$data/outline-1m.json
fi

# The measurements; their output goes to the terminal and into the report.
run_benchmarks() {
if [ "$mode" = "--huge" ]; then
  huge="$data/outline-2g.json"
  [ -f "$huge" ] || python3 Scripts/gen-outline.py --groups 42000 --rows 1000 "$huge" >/dev/null
  python3 Scripts/bench-huge.py "$huge" --bin "$bin" --runs "$runs"
  "$bin" stats "$huge"
  return 0
fi

files=("$main_json")
[ -f "$main_json" ] || python3 Scripts/gen-outline.py --groups 1000 --rows 1000 "$main_json" >/dev/null
if [ "$mode" = "--big" ]; then
  [ -f "$data/outline-10m.json" ] || python3 Scripts/gen-outline.py --nodes 10000000 "$data/outline-10m.json" >/dev/null
  files+=("$data/outline-10m.json")
fi

# `drilldown stats FILE --json` into a file, read once it has exited: piped straight into python,
# python's start-up ran beside the load and took one of the two cores from it.
stats_json() { "$bin" stats "$1" --json > "$data/.stats.json"; }

# Milliseconds of wall time of a whole command.
wall() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)  ($(nproc) cores)"
for f in "${files[@]}"; do
  size=$(stat -c %s "$f")
  echo "== $f ($(( size / 1000 )) kB)"
  cat "$f" >/dev/null  # into the page cache
  # DrillDown and simdjson alternate round by round, cold then warm, and each round prints its
  # ratio: this VM's speed changes from minute to minute (the same code's CPU time doubles in slow
  # phases), so only numbers taken side by side compare.
  cold_ratios=() warm_ratios=()
  for i in $(seq "$runs"); do
    # Cold: a fresh `drilldown stats` process against simdjson's first parse in a fresh process,
    # with a new parser that must allocate and fault in its buffers.
    stats_json "$f"
    read -r dc line < <(python3 -c '
import json, sys
d = json.load(sys.stdin); size = int(sys.argv[1])
ms, rss, store = d["loadMilliseconds"], d["peakResidentBytes"], d["storeBytes"]
# A store whose keys and values are slices of the mapped file counts the file in storeBytes already.
whole, what = (store, "store %.0f MB, the file its text" % (store / 1e6)) if d.get("textInFile") else (store + size, "store %.0f MB + file" % (store / 1e6))
print("%.1f drilldown in-process load, cold (fresh process): %.1f ms  (%.0f MB/s; peak RSS %.0f MB = %.2f x (%s))"
      % (ms, ms, size / 1e3 / ms, rss / 1e6, rss / whole, what))' "$size" < "$data/.stats.json")
    echo "$line"
    sc=$("$py" -c '
import sys, time, simdjson
data = open(sys.argv[1], "rb").read()
t = time.perf_counter(); simdjson.Parser().parse(data); print("%.1f" % (1000 * (time.perf_counter() - t)))' "$f")
    echo "simdjson tape, cold (fresh process and parser): $sc ms"
    cold_ratios+=("$(python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print("%.2f" % (a / b) if b else "inf")' "$dc" "$sc")")
    echo "  round $i cold: drilldown / simdjson = ${cold_ratios[-1]}"
    # Warm: loads repeated in one process, the later ones in memory the earlier ones freed (glibc is
    # told to keep freed memory rather than give it back, as simdjson's reused parser keeps its
    # buffers), against one simdjson parser reused; the best of 8 after the first each.
    MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=4294967296 "$bin" bench "$f" --loads 8 --json > "$data/.stats.json"
    dw=$(python3 -c 'import json, sys; t = json.load(sys.stdin)["loadMilliseconds"]; print("%.1f %s" % (min(t[1:]), ", ".join("%.0f" % x for x in t)))' < "$data/.stats.json")
    sw=$("$py" -c '
import sys, time, simdjson
data = open(sys.argv[1], "rb").read(); p = simdjson.Parser(); t = []
for _ in range(9):
    a = time.perf_counter(); p.parse(data); t.append(1000 * (time.perf_counter() - a))
print("%.1f %s" % (min(t[1:]), ", ".join("%.0f" % x for x in t)))' "$f")
    echo "drilldown in-process load, warm (repeated in one process): ${dw%% *} ms  (runs: ${dw#* }; the first is cold)"
    echo "simdjson tape, warm (parser reused): ${sw%% *} ms  (runs: ${sw#* })"
    warm_ratios+=("$(python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print("%.2f" % (a / b) if b else "inf")' "${dw%% *}" "${sw%% *}")")
    echo "  round $i warm: drilldown / simdjson = ${warm_ratios[-1]}"
  done
  echo "drilldown / simdjson, median of $runs rounds: cold $(printf '%s\n' "${cold_ratios[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p"), warm $(printf '%s\n' "${warm_ratios[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")"
  for i in $(seq "$runs"); do echo "drilldown stats (whole process): $(wall "$bin" stats "$f") ms"; done
  "$py" - "$f" "$runs" <<'PY'
import gc, json, sys, time
import orjson, simdjson
path, runs = sys.argv[1], int(sys.argv[2])
data = open(path, "rb").read()
def best(name, fn):
    times = []
    for _ in range(runs):
        gc.collect()
        t = time.perf_counter(); r = fn(); times.append(1000 * (time.perf_counter() - t)); del r
    print(f"{name}: {min(times):.1f} ms  (runs: {', '.join(f'{x:.0f}' for x in times)})")
best("orjson.loads (in-process)", lambda: orjson.loads(data))
best("python json.loads (in-process)", lambda: json.loads(data))
PY
  for i in $(seq "$runs"); do echo "python3 json.load (whole process): $(wall python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f") ms"; done
  for i in $(seq "$runs"); do echo "jq length (whole process): $(wall jq length "$f") ms"; done
done

# Property lists: the same 3M-node outline as an XML and a binary plist (written by plistlib),
# DrillDown's in-process load against python's plistlib.loads on the same bytes.
for kind in xml binary; do
  f="${main_json%.json}.$([ "$kind" = xml ] && echo plist || echo bplist)"
  [ -f "$f" ] || python3 -c '
import json, plistlib, sys
fmt = plistlib.FMT_XML if sys.argv[1] == "xml" else plistlib.FMT_BINARY
open(sys.argv[3], "wb").write(plistlib.dumps(json.load(open(sys.argv[2])), fmt=fmt))' "$kind" "$main_json" "$f"
  size=$(stat -c %s "$f")
  echo "== $f ($(( size / 1000 )) kB, $kind plist)"
  cat "$f" >/dev/null
  for i in $(seq "$runs"); do
    stats_json "$f"
    python3 -c '
import json, sys
d = json.load(sys.stdin); size = int(sys.argv[1])
print("drilldown in-process load: %.1f ms  (%.0f MB/s)" % (d["loadMilliseconds"], size / 1e3 / d["loadMilliseconds"]))' "$size" < "$data/.stats.json"
  done
  python3 - "$f" "$runs" <<'PY'
import gc, plistlib, sys, time
path, runs = sys.argv[1], int(sys.argv[2])
data = open(path, "rb").read()
times = []
for _ in range(runs):
    gc.collect()
    t = time.perf_counter(); r = plistlib.loads(data); times.append(1000 * (time.perf_counter() - t)); del r
print(f"python plistlib.loads (in-process): {min(times):.1f} ms  ({len(data) / 1e3 / min(times):.0f} MB/s; runs: {', '.join(f'{x:.0f}' for x in times)})")
PY
done

if [ "${BENCH_YAML:-1}" = 1 ]; then
  json1m=$yaml_json
  yaml1m=${yaml_json%.json}.yaml
  [ -f "$json1m" ] || python3 Scripts/gen-outline.py --groups 333 --rows 1000 "$json1m" >/dev/null
  [ -f "$yaml1m" ] || "$bin" convert "$json1m" "$yaml1m" >/dev/null
  echo "== YAML: the same tree as $json1m ($(( $(stat -c %s "$json1m") / 1000 )) kB) and $yaml1m ($(( $(stat -c %s "$yaml1m") / 1000 )) kB)"
  for f in "$json1m" "$yaml1m"; do
    cat "$f" >/dev/null
    for i in $(seq "$runs"); do
      echo "drilldown in-process load of ${f##*.}: $(stats_json "$f"; python3 -c 'import json, sys; print(json.load(sys.stdin)["loadMilliseconds"])' < "$data/.stats.json") ms"
    done
  done
  "$py" - "$yaml1m" <<'PY'
import sys, time, yaml
assert yaml.__with_libyaml__, "PyYAML was built without libyaml"
data = open(sys.argv[1], "rb").read()
t = time.perf_counter(); yaml.load(data, Loader=yaml.CSafeLoader)
print(f"PyYAML yaml.load(Loader=CSafeLoader) (in-process, libyaml): {1000 * (time.perf_counter() - t):.0f} ms")
PY
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# The report: this run's date, machine, commit and output, between the markers of $report's
# generated section (the rest of the file, the history, is kept as it is).
write_report() {
  [ -n "$report" ] || return 0
  local commit
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
  python3 - "$report" "$log" "$commit" "$bin" "$runs" "bench.sh${mode:+ $mode}" "$(uname -a)" "$(nproc)" <<'PY'
import datetime, pathlib, re, sys
report, log, commit, binary, runs, command, uname, cores = sys.argv[1:9]
start, end = "<!-- bench.sh: generated section start -->", "<!-- bench.sh: generated section end -->"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown processor")
output = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", open(log, errors="replace").read()).rstrip()
quick = "--quick" in command
section = "\n".join([
    start,
    f"`Scripts/{command}`, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"
    + (" — a quick smoke run on small inputs, not a measurement to compare." if quick else "."),
    "",
    f"- machine: `{uname}`, {cores} cores ({cpu})",
    f"- commit: {commit}; binary: `{binary}`; {runs} run(s) per peer",
    "",
    "```text",
    output,
    "```",
    end,
])
path = pathlib.Path(report)
text = path.read_text() if path.exists() else "# Benchmarks\n"
if start in text and end in text:
    text = text[: text.index(start)] + section + text[text.index(end) + len(end):]
else:
    text = text.rstrip("\n") + "\n\n## The latest run of Scripts/bench.sh\n\n" + section + "\n"
path.write_text(text)
print(f"wrote this run into {report}")
PY
}

run_benchmarks 2>&1 | tee "$log"
write_report
