#!/usr/bin/env python3
"""Acknowledged changes per second on a big JSON file: 20 clients each press `play` N times on an
editable server (`drilldown serve FILE --editable`), every press answered only once a write holding
it is on disk. Prints changes/s, latency percentiles and checks the exact count in the file.

    Scripts/bench-group-commit.py --bin .build-release/release/drilldown [--nodes 1000000] [--presses 25]
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e" / "web"))
from webclient import Session  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / ".build-release" / "release" / "drilldown"))
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--presses", type=int, default=25)
    args = parser.parse_args()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="dd-bench-gc-"))
    data = folder / "big.json"
    rows = [{"Title": "Ringtone", "plays": 0}] + [{"Title": f"Row {i}", "n": i} for i in range(args.nodes // 3 - 1)]
    data.write_text(json.dumps({"Rows": rows}, indent=1) + "\n")
    (folder / "schema.yaml").write_text("root: sound\nkinds:\n  sound:\n    controls:\n      - { button: Play, action: play }\nactions:\n  play: { increment: plays }\n")
    size = data.stat().st_size
    proc = subprocess.Popen([args.bin, "serve", str(data), "--schema", str(folder / "schema.yaml"), "--editable",
                             "--port", "0", "--host", "127.0.0.1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline()).group(0)
    latencies, failures, lock = [], [], threading.Lock()

    def client():
        session = Session(url, timeout=600)
        for _ in range(args.presses):
            t = time.monotonic()
            status, body = session.post("/api/edit/run/0", {"action": "play"})
            with lock:
                latencies.append(time.monotonic() - t)
                if status != 200:
                    failures.append(body)
        session.close()

    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - start
    proc.terminate()
    proc.wait()
    total = args.clients * args.presses
    plays = json.loads(data.read_text())["Rows"][0]["plays"]
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    print(f"{args.bin}: {args.nodes} nodes ({size / 1e6:.1f} MB), {args.clients} clients x {args.presses} presses: "
          f"{total / seconds:.1f} acknowledged changes/s, p50 {p(0.5):.0f} ms, p99 {p(0.99):.0f} ms, "
          f"failures {len(failures)}, plays in file {plays} (expected {total})")
    return 0 if plays == total and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
