#!/usr/bin/env python3
"""Measures the PostgreSQL store (issue 11's targets) on a given `drilldown` binary against a running
server, each beside a peer measured in the same run, and prints one table.

  Scripts/bench-postgres.py --url postgres://dd@127.0.0.1:5432/postgres [--bin .build-release/release/drilldown]
                            [--groups 334 --rows 1000] [--requests 300] [--seconds 5]

- import: `drilldown convert` of a generated outline JSON (gen-outline.py, GROUPS x ROWS rows) into a table (COPY)
- start: an editable instance until it answers (it reads the root row, not the table)
- change: one rename acknowledged over HTTP (`POST /api/edit/rename/G.R`, one client, sequential), p50/p99;
  floor: the same one-row `UPDATE … WHERE id = N` by pgbench (one client, `-l` per-transaction latencies)
- page: `GET /api/level/G` (the first 100 rows of group G, G spread over the table, so most are read from
  PostgreSQL, not the instance's cache), p50/p99, one instance
- pages/s: wrk (4 connections per instance) on `/api/level/G` for SECONDS against one instance, then against
  two at once (the sum), so the limit of this machine shows
- cross: a rename posted to instance B until instance A's `/events` delivers the change, p50/p99
The input is generated into a temporary folder and deleted; the table is dropped at the end.
"""
import argparse
import http.client
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e" / "web"))
from webclient import Events, Session  # noqa: E402


def pct(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def start(binary, url):
    proc = subprocess.Popen([binary, "serve", url, "--editable", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not match:
        proc.kill()
        sys.exit(f"serve printed {line!r}: {proc.stderr.read()}")
    return proc, match.group(0)


def note(results, row):
    """Keeps a result row and prints it at once (a slow section may be cut short)."""
    results.append(row)
    print(" | ".join(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--bin", default=str(ROOT / ".build-release" / "release" / "drilldown"))
    ap.add_argument("--groups", type=int, default=334)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--cross", type=int, default=100, help="samples of the cross-instance measurement")
    ap.add_argument("--seconds", type=int, default=5, help="wrk duration for the pages/s measurement")
    args = ap.parse_args()
    table = "bench_" + str(os.getpid())
    url = args.url + ("&" if "?" in args.url else "?") + "table=" + table
    plain = re.sub(r"[?&]sslmode=[^&]*", "", args.url)
    tmp = pathlib.Path(tempfile.mkdtemp())
    procs = []
    results = []
    try:
        doc = tmp / "doc.json"
        out = subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-outline.py"), "--groups", str(args.groups), "--rows", str(args.rows), str(doc)],
                             capture_output=True, text=True, check=True).stdout.strip()
        t = time.monotonic()
        subprocess.run([args.bin, "convert", str(doc), url], check=True, capture_output=True)
        note(results, ("import (convert, COPY)", f"{out}", f"{time.monotonic() - t:.1f} s", ""))

        t = time.monotonic()
        a, a_url = start(args.bin, url)
        nodes = re.search(r"([\d,]+) nodes", out).group(1)
        note(results, ("editable instance start (root row only)", nodes + " nodes", f"{(time.monotonic() - t) * 1000:.0f} ms", ""))
        procs.append(a)
        session = Session(a_url)
        lat = []
        for k in range(args.requests):
            t = time.perf_counter()
            status, body = session.post(f"/api/edit/rename/{k % args.groups}.{k % args.rows}", {"title": f"Bench {k}"})
            lat.append((time.perf_counter() - t) * 1000)
            assert status == 200, body
        # Floor: the same one-row UPDATE by pgbench, one client, per-transaction log.
        row_id = subprocess.run(["psql", plain, "-tAXc", f"SELECT id FROM {table} WHERE key = 'Title' AND value = 'Row 7.3'"],
                                capture_output=True, text=True, check=True).stdout.strip()
        script = tmp / "update.sql"
        script.write_text(f"\\set k random(1, 1000000)\nUPDATE {table} SET value = 'Bench ' || :k WHERE id = {row_id};\n")
        pgbench = next(pathlib.Path("/usr/lib/postgresql").glob("*/bin/pgbench"))
        subprocess.run([str(pgbench), "-n", "-f", str(script), "-t", str(args.requests), "-c", "1", "-l", "--log-prefix", str(tmp / "pgb"), plain],
                       check=True, capture_output=True, cwd=tmp)
        floor = [int(l.split()[2]) / 1000 for f in tmp.glob("pgb*") for l in f.read_text().splitlines()]
        note(results, ("one change acknowledged (HTTP rename, level not read yet)", f"{args.requests} sequential",
                       f"p50 {pct(lat, 50):.2f} ms, p99 {pct(lat, 99):.2f} ms", f"pgbench UPDATE: p50 {pct(floor, 50):.2f} ms, p99 {pct(floor, 99):.2f} ms"))
        # The usual case: the row is renamed on a page that shows it (its level is in the snapshot).
        warm = []
        for k in range(args.requests):
            g, r = (k * 7 + 1) % args.groups, (k * 13 + 5) % args.rows
            with urllib.request.urlopen(f"{a_url}api/level/{g}?offset={r // 100 * 100}&limit=100", timeout=30) as shown:
                shown.read()
            t = time.perf_counter()
            status, body = session.post(f"/api/edit/rename/{g}.{r}", {"title": f"Warm {k}"})
            warm.append((time.perf_counter() - t) * 1000)
            assert status == 200, body
        note(results, ("one change acknowledged (HTTP rename, level shown)", f"{args.requests} sequential",
                       f"p50 {pct(warm, 50):.2f} ms, p99 {pct(warm, 99):.2f} ms", "same floor"))

        conn = http.client.HTTPConnection("127.0.0.1", int(a_url.rsplit(":", 1)[1].strip("/")))
        pages = []
        spread = max(1, args.groups // args.requests)
        for k in range(args.requests):
            t = time.perf_counter()
            conn.request("GET", f"/api/level/{(k * spread + 3) % args.groups}")
            r = conn.getresponse()
            r.read()
            pages.append((time.perf_counter() - t) * 1000)
            assert r.status == 200
        note(results, ("level page over HTTP (/api/level/G)", f"{args.requests} sequential", f"p50 {pct(pages, 50):.2f} ms, p99 {pct(pages, 99):.2f} ms", ""))

        b, b_url = start(args.bin, url)
        procs.append(b)
        if shutil.which("wrk"):
            def wrk(base):
                return subprocess.Popen(["wrk", "-t1", "-c4", f"-d{args.seconds}s", base + "api/level/5"], stdout=subprocess.PIPE, text=True)
            def rate(proc):
                return float(re.search(r"Requests/sec:\s+([\d.]+)", proc.communicate()[0]).group(1))
            one = rate(wrk(a_url))
            both = [wrk(a_url), wrk(b_url)]
            two = sum(rate(p) for p in both)
            note(results, ("level pages/s (wrk, /api/level/5)", f"{args.seconds} s each", f"one instance {one:.0f}/s; two instances {two:.0f}/s",
                           f"{os.cpu_count()} cores shared by wrk, the instances and PostgreSQL"))
        events = Events(a_url, timeout=30)
        other = Session(b_url)
        cross = []
        for k in range(args.cross):
            t = time.perf_counter()
            status, _ = other.post(f"/api/edit/rename/{k % args.groups}.{(k + 7) % args.rows}", {"title": f"Cross {k}"})
            assert status == 200
            events.next_event()
            cross.append((time.perf_counter() - t) * 1000)
        note(results, ("change via B reaching A's /events", f"{len(cross)} sequential", f"p50 {pct(cross, 50):.1f} ms, p99 {pct(cross, 99):.1f} ms", ""))
    finally:
        for p in procs:
            p.kill()
        subprocess.run(["psql", plain, "-qtAXc", f"DROP TABLE IF EXISTS {table}; DROP TABLE IF EXISTS {table}_meta; DROP SEQUENCE IF EXISTS {table}_ids; DROP FUNCTION IF EXISTS {table}_count()"],
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n| measure | size | drilldown | peer / floor (same run) |\n|---|---|---|---|")
    for row in results:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
