#!/usr/bin/env python3
"""Facet and filter times on a 1M-row level (issue 33), with a peer in the same run.

    Scripts/bench-facets.py [--rows 1000000] [--bin .build/release/drilldown]
    Scripts/bench-facets.py --core     # only DrillDownCore in release (a minute, not a full release build)

Generates one level of songs (Scripts/gen-json.py --songs: a genre of 8 values, a length, a year),
then times, in a release build, `drilldown bench FILE --facet genre --where 'length>600'`: the
facet over the whole level (one pass), the filter, and the facet over the filter's matches (best
and median of 7, data loaded once). The peer counts the same JSON's genres in Python with orjson
(parse timed apart from counting, as DrillDown's load is). Target: a facet ≤ 200 ms on 1M rows.
With --core, Scripts/bench-facets-core.swift is compiled against a release build of DrillDownCore
alone and builds the same-shaped level in memory (no JSON reader): the same presenter calls.
"""
import argparse
import collections
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--bin", default=str(ROOT / ".build" / "release" / "drilldown"))
    ap.add_argument("--out", default="/tmp/drilldown-bench-facets")
    ap.add_argument("--core", action="store_true", help="time with only DrillDownCore built in release")
    a = ap.parse_args()
    if a.core:
        subprocess.run(["swift", "build", "-c", "release", "--target", "DrillDownCore"], cwd=ROOT, check=True, capture_output=True)
        os.makedirs(a.out, exist_ok=True)
        exe = os.path.join(a.out, "bench-facets-core")
        objects = sorted(str(p) for p in (ROOT / ".build" / "release" / "DrillDownCore.build").glob("*.o"))
        subprocess.run(["swiftc", "-O", "-I", str(ROOT / ".build" / "release" / "Modules"),
                        str(ROOT / "Scripts" / "bench-facets-core.swift"), *objects, "-o", exe], check=True)
        print(f"{a.rows} rows in one level, built in memory (DrillDownCore in release)")
        subprocess.run([exe, str(a.rows)], check=True)
    elif not os.path.exists(a.bin):
        sys.exit(f"{a.bin} is missing: swift build -c release --product drilldown")
    else:
        run_cli(a)
    peer(a)


def run_cli(a):
    os.makedirs(a.out, exist_ok=True)
    data = pathlib.Path(a.out) / f"songs-{a.rows}.json"
    if not data.exists():
        subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-json.py"), "--songs", str(a.rows), str(data)], check=True)
    print(f"{data} ({data.stat().st_size / 1e6:.0f} MB, {a.rows} rows in one level)")

    out = subprocess.run([a.bin, "bench", str(data), "--facet", "genre", "--where", "length>600", "--json"],
                         check=True, capture_output=True, text=True).stdout
    for t in json.loads(out):
        print(f"  drilldown  {t['name']}: best {t['bestMilliseconds']:.1f} ms, median {t['medianMilliseconds']:.1f} ms")


def peer(a):
    data = pathlib.Path(a.out) / f"songs-{a.rows}.json"
    if not data.exists():
        os.makedirs(a.out, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-json.py"), "--songs", str(a.rows), str(data)], check=True)
    try:
        import orjson
    except ImportError:
        print("  peer: orjson is not installed (pip install orjson)")
        return
    raw = data.read_bytes()
    t0 = time.perf_counter()
    doc = orjson.loads(raw)
    parse = (time.perf_counter() - t0) * 1000
    rows = doc["Rows"]
    counts, filtered = [], []
    for _ in range(7):
        t0 = time.perf_counter()
        c = collections.Counter(r.get("genre") for r in rows)
        counts.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        n = sum(1 for r in rows if r.get("length", 0) > 600)
        filtered.append((time.perf_counter() - t0) * 1000)
    print(f"  python+orjson  parse {parse:.0f} ms; count genre: best {min(counts):.1f} ms, median {statistics.median(counts):.1f} ms "
          f"({len(c)} values); length>600: best {min(filtered):.1f} ms ({n} rows)")


if __name__ == "__main__":
    main()
