#!/usr/bin/env python3
"""Latency of one change through HTTP on the relational music example (issue 10's target: p99 <= 3 ms),
beside its floor: a one-row UPDATE + COMMIT with python's sqlite3 on the same file.

    python3 Scripts/bench-relational.py [--bin .build-release/release/drilldown] [--requests 500]

Works on a copy of Examples/Music/music.sqlite (with music.schema.yaml beside it), on loopback, one
client with a keep-alive connection, each request acknowledged before the next is sent. Alternates
a button press (UPDATE of plays) and a rename (UPDATE of the title column) on songs.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def percentiles(samples):
    s = sorted(samples)
    pick = lambda q: s[min(len(s) - 1, int(q * len(s)))]
    return {"p50": pick(0.50) * 1e3, "p99": pick(0.99) * 1e3, "max": s[-1] * 1e3, "n": len(s)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build-release", "release", "drilldown"))
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-relational-")
    for name in ("music.sqlite", "music.schema.yaml"):
        shutil.copy(os.path.join(ROOT, "Examples", "Music", name), os.path.join(folder, name))
    db = os.path.join(folder, "music.sqlite")
    server = subprocess.Popen([args.bin, "serve", db, "--editable", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        port = int(re.search(r":(\d+)/", line).group(1))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/")
        response = conn.getresponse()
        response.read()
        cookie = re.match(r"dd_session=[0-9a-f]{32}", response.getheader("Set-Cookie")).group(0)
        headers = {"Content-Type": "application/json", "Cookie": cookie, "X-CSRF-Token": response.getheader("X-CSRF-Token")}

        def post(path, fields):
            conn.request("POST", path, body=json.dumps(fields), headers=headers)
            r = conn.getresponse()
            body = r.read()
            assert r.status == 200, (r.status, body)

        for i in range(50):  # warm-up
            post("/api/edit/run/0.0.0", {"action": "play"})
        samples = []
        for i in range(args.requests):
            start = time.perf_counter()
            if i % 2:
                post("/api/edit/rename/0.0.1", {"title": f"Freddie Freeloader {i}"})
            else:
                post("/api/edit/run/0.0.0", {"action": "play"})
            samples.append(time.perf_counter() - start)
        http_stats = percentiles(samples)
    finally:
        server.terminate()
        server.wait(timeout=10)
    c = sqlite3.connect(db, isolation_level=None)
    floor = []
    for i in range(args.requests + 50):
        start = time.perf_counter()
        c.execute("BEGIN IMMEDIATE")
        c.execute("UPDATE songs SET plays = plays + 1 WHERE id = 1")
        c.execute("COMMIT")
        if i >= 50:
            floor.append(time.perf_counter() - start)
    c.close()
    floor_stats = percentiles(floor)
    print(f"relational music database ({os.path.getsize(db)} bytes, journal WAL), {args.requests} changes, one client:")
    print("  one change through HTTP:       p50 {p50:.3f} ms  p99 {p99:.3f} ms  max {max:.3f} ms".format(**http_stats))
    print("  floor, UPDATE + COMMIT (python): p50 {p50:.3f} ms  p99 {p99:.3f} ms  max {max:.3f} ms".format(**floor_stats))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
