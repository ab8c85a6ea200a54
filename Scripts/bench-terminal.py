#!/usr/bin/env python3
"""Benchmark (not a test): keypress-to-frame time of `drilldown browse`, driven through tmux.

Generates two inputs into /tmp (never committed): a level of 100 000 rows and a 1M-node JSON
document. Runs the real binary in a detached tmux session with DRILLDOWN_TRACE_FRAMES, sends one
key at a time (waiting for its frame), and prints p50/p99 of the in-process time from reading
the key to having written the frame (handle + render + diff + write).

  Scripts/bench-terminal.py                 # uses $DRILLDOWN_BIN or .build/release/drilldown
  DRILLDOWN_BIN=.build/debug/drilldown Scripts/bench-terminal.py
"""
import os
import pathlib
import shlex
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "e2e" / "terminal"))
from tui_driver import Tmux  # noqa: E402

BIN = os.environ.get("DRILLDOWN_BIN", str(ROOT / ".build" / "release" / "drilldown"))
DATA = pathlib.Path(os.environ.get("BENCH_DATA", "/tmp/drilldown-bench"))


def generate():
    DATA.mkdir(parents=True, exist_ok=True)
    wide = DATA / "wide-100000.json"
    big = DATA / "records-1000000.json"
    if not wide.exists():
        subprocess.run([sys.executable, ROOT / "Scripts" / "gen-json.py", "--wide", "100000", wide], check=True)
    if not big.exists():
        subprocess.run([sys.executable, ROOT / "Scripts" / "gen-json.py", "--nodes", "1000000", big], check=True)
    return wide, big


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def frames(trace):
    if not trace.exists():
        return []
    lines = trace.read_text().splitlines()[1:]
    return [line.split("\t") for line in lines if line.count("\t") == 5]


def run(name, file, keys, width=120, height=40, ready="/"):
    trace = DATA / f"trace-{name}.tsv"
    trace.unlink(missing_ok=True)
    cmd = f"env DRILLDOWN_TRACE_FRAMES={shlex.quote(str(trace))} {shlex.quote(BIN)} browse {shlex.quote(str(file))}"
    start = time.monotonic()
    t = Tmux(cmd, width=width, height=height)
    try:
        t.wait_for(lambda s: len(s.split("\n")) > 2 and s.split("\n")[2].strip() != "", timeout=120, what="the first screen")
        first_screen = time.monotonic() - start
        for key in keys:
            before = len(frames(trace))
            t.send(key)
            deadline = time.monotonic() + 10
            while len(frames(trace)) <= before and time.monotonic() < deadline:
                time.sleep(0.002)
        t.send("q")
        time.sleep(0.2)
    finally:
        t.kill()
    all_rows = frames(trace)
    scans = [int(r[1]) for r in all_rows if r[0].startswith("search-scan:")]
    rows = [r for r in all_rows if not r[0].startswith("search-scan:")]
    total = [int(r[4]) for r in rows]
    parts = {k: [int(r[i]) for r in rows] for i, k in [(1, "handle"), (2, "render"), (3, "write")]}
    print(f"{name}: {len(rows)} frames at {width}x{height}, first screen after {first_screen * 1000:.0f} ms (load included)")
    print(f"  keypress→frame  p50 {percentile(total, 50) / 1000:.2f} ms   p99 {percentile(total, 99) / 1000:.2f} ms   "
          f"max {max(total) / 1000:.2f} ms")
    if scans:
        print(f"  background searches: {len(scans)}, scan p50 {percentile(scans, 50) / 1000:.2f} ms   max {max(scans) / 1000:.2f} ms "
              "(typing is not blocked meanwhile)")
    print("  " + "   ".join(f"{k} p50 {percentile(v, 50) / 1000:.2f} / p99 {percentile(v, 99) / 1000:.2f} ms" for k, v in parts.items()))
    return total


def main():
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} is missing: swift build -c release --product drilldown")
    wide, big = generate()
    print(f"binary: {BIN}")
    scroll = ["Down"] * 200 + ["PageDown"] * 100 + ["End"] + ["Up"] * 50 + ["PageUp"] * 100 + ["Home"] + ["j"] * 49
    run("scroll 100 000-row level", wide, scroll)
    run("scroll 100 000-row level, large terminal", wide, scroll, width=300, height=100)
    drill = []
    for i in range(40):
        drill += ["Enter", "End", "Enter", "BSpace", "BSpace"] + ["Down"] * 3 + ["PageDown"]
    drill += ["o", "Space", "Down", "Space", "Down", "Down", "Space", "o", "c", "Down", "Down", "Enter", "BSpace", "c"]
    run("drill in 1M-node JSON", big, drill)
    run("search-as-you-type in 1M-node JSON", big, ["/"] + list("user 4") + ["BSpace"] * 3 + ["Enter", "n", "n", "N"])


if __name__ == "__main__":
    main()
