#!/usr/bin/env python3
"""Measures existing PostgreSQL tables mapped by `levels:` (issue 11, item 1) on a given `drilldown`
binary against a running server, each beside a floor measured in the same run, and prints one table.

  Scripts/bench-postgres-levels.py --url postgres://dd@127.0.0.1:5432/postgres [--bin .build-release/release/drilldown]
                                   [--artists 1000 --albums 1000] [--requests 300]

- data: a database of its own with `artists` (ARTISTS rows) and `albums` (ARTISTS x ALBUMS rows, indexed on
  (artist_id, year, title)), filled by generate_series, mapped artists › albums ordered by year, title
- start: an editable instance until it answers (it reads nothing but the catalog)
- page: `GET /api/level/G` (the first 100 albums of artist G, G spread over the table), p50/p99; and
  `GET /api/level/?offset=K` deep in the artists level (keyset from the nearest page, or backwards from the end)
- change: one album renamed over HTTP on a level just shown, p50/p99; floor: the same one-row
  `UPDATE albums SET title = … WHERE id = N` by pgbench (one client, per-transaction log)
- search: `GET /api/search?q=…` (title matches of both levels in SQL, in document order), without and then
  with trigram indexes on the title columns
- cross: a rename posted to instance B until instance A's `/events` delivers the change, p50/p99
The database is dropped at the end.
"""
import argparse
import http.client
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e" / "web"))
from webclient import Events, Session  # noqa: E402

SCHEMA = """title: Library
levels:
  - { table: artists, title: name, key: id }
  - { table: albums, title: title, key: id, parent: artist_id, order: "year, title" }
"""


def pct(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def start(binary, url, schema):
    proc = subprocess.Popen([binary, "serve", url, "--schema", str(schema), "--editable", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not match:
        proc.kill()
        sys.exit(f"serve printed {line!r}: {proc.stderr.read()}")
    return proc, match.group(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--bin", default=str(ROOT / ".build-release" / "release" / "drilldown"))
    ap.add_argument("--artists", type=int, default=1000)
    ap.add_argument("--albums", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=300)
    args = ap.parse_args()
    name = f"bench_levels_{os.getpid()}"
    admin = re.sub(r"[?&]sslmode=[^&]*", "", args.url)
    parts = urllib.parse.urlsplit(args.url)
    url = urllib.parse.urlunsplit(parts._replace(path="/" + name))
    plain = re.sub(r"[?&]sslmode=[^&]*", "", url)
    psql = lambda target, sql: subprocess.run(["psql", target, "-qtAXc", sql], capture_output=True, text=True, check=True).stdout.strip()
    tmp = pathlib.Path(tempfile.mkdtemp())
    schema = tmp / "schema.yaml"
    schema.write_text(SCHEMA)
    procs, results = [], []

    def note(*row):
        results.append(row)
        print(" | ".join(row), flush=True)

    psql(admin, f"CREATE DATABASE {name}")
    try:
        t = time.monotonic()
        psql(plain, f"""
            CREATE TABLE artists (id bigserial PRIMARY KEY, name text NOT NULL);
            CREATE TABLE albums (id bigserial PRIMARY KEY, artist_id bigint NOT NULL REFERENCES artists(id), title text NOT NULL, year integer NOT NULL, plays integer NOT NULL DEFAULT 0);
            INSERT INTO artists (name) SELECT 'Artist ' || a FROM generate_series(1, {args.artists}) a;
            INSERT INTO albums (artist_id, title, year) SELECT a, 'Album ' || a || '.' || b, 1950 + (b * 7919) % 70
                FROM generate_series(1, {args.artists}) a, generate_series(1, {args.albums}) b;
            CREATE INDEX albums_by_artist ON albums (artist_id, year, title);""")
        psql(plain, "VACUUM ANALYZE")
        rows = args.artists * (args.albums + 1)
        note("tables (generate_series, indexed, analyzed)", f"{rows:,} rows", f"{time.monotonic() - t:.1f} s", "")
        t = time.monotonic()
        a, a_url = start(args.bin, url, schema)
        procs.append(a)
        note("editable instance start (installs the triggers)", f"{rows:,} rows", f"{(time.monotonic() - t) * 1000:.0f} ms", "")
        port = int(a_url.rsplit(":", 1)[1].strip("/"))
        conn = http.client.HTTPConnection("127.0.0.1", port)

        def get(path):
            t = time.perf_counter()
            conn.request("GET", path)
            r = conn.getresponse()
            r.read()
            assert r.status == 200, (path, r.status)
            return (time.perf_counter() - t) * 1000

        spread = max(1, args.artists // args.requests)
        pages = [get(f"/api/level/{(k * spread + 3) % args.artists}") for k in range(args.requests)]
        note("level page over HTTP (/api/level/G, 100 of an artist's albums)", f"{args.requests} sequential",
             f"p50 {pct(pages, 50):.2f} ms, p99 {pct(pages, 99):.2f} ms", "")
        deep = [get(f"/api/level/?offset={(k * 7919) % max(1, args.artists - 100)}&limit=100") for k in range(args.requests)]
        note("artists page at any offset (/api/level/?offset=K)", f"{args.requests} sequential",
             f"p50 {pct(deep, 50):.2f} ms, p99 {pct(deep, 99):.2f} ms", "")

        session = Session(a_url)
        warm = []
        for k in range(args.requests):
            g, r = (k * 7 + 1) % args.artists, (k * 13 + 5) % min(100, args.albums)
            get(f"/api/level/{g}")
            t = time.perf_counter()
            status, body = session.post(f"/api/edit/rename/{g}.{r}", {"title": f"Warm {k}"})
            warm.append((time.perf_counter() - t) * 1000)
            assert status == 200, body
        album = psql(plain, "SELECT id FROM albums WHERE artist_id = 8 ORDER BY id LIMIT 1")
        script = tmp / "update.sql"
        script.write_text(f"\\set k random(1, 1000000)\nUPDATE albums SET title = 'Bench ' || :k WHERE id = {album};\n")
        pgbench = next(pathlib.Path("/usr/lib/postgresql").glob("*/bin/pgbench"))
        subprocess.run([str(pgbench), "-n", "-f", str(script), "-t", str(args.requests), "-c", "1", "-l", "--log-prefix", str(tmp / "pgb"), plain],
                       check=True, capture_output=True, cwd=tmp)
        floor = [int(l.split()[2]) / 1000 for f in tmp.glob("pgb*") for l in f.read_text().splitlines()]
        note("one change acknowledged (HTTP rename of an album shown)", f"{args.requests} sequential",
             f"p50 {pct(warm, 50):.2f} ms, p99 {pct(warm, 99):.2f} ms",
             f"pgbench UPDATE (fires the trigger too): p50 {pct(floor, 50):.2f} ms, p99 {pct(floor, 99):.2f} ms")

        # Search: title matches found in SQL (one query over both levels, in document order), first
        # without an index on the title columns (sequential scans), then with trigram indexes.
        def search(label):
            times = [get(f"/api/search?q={urllib.parse.quote(f'Album {(k * 37) % args.artists}.{k % 9 + 1}7')}") for k in range(20)]
            note(f"search over HTTP (/api/search?q=Album G.R7, ~20 hits), {label}", "20 sequential",
                 f"p50 {pct(times, 50):.1f} ms, p99 {pct(times, 99):.1f} ms", "")
        search("no index on titles")
        try:
            psql(plain, "CREATE EXTENSION IF NOT EXISTS pg_trgm")
            psql(plain, "CREATE INDEX albums_title_trgm ON albums USING gin (title gin_trgm_ops); CREATE INDEX artists_name_trgm ON artists USING gin (name gin_trgm_ops)")
            search("trigram indexes on the titles")
        except subprocess.CalledProcessError as e:
            note("search with trigram indexes", "", f"not measured: {e.stderr.strip()[:80]}", "")

        b, b_url = start(args.bin, url, schema)
        procs.append(b)
        events = Events(a_url, timeout=30)
        other = Session(b_url)
        cross = []
        for k in range(min(args.requests, 100)):
            t = time.perf_counter()
            status, _ = other.post(f"/api/edit/rename/{k % args.artists}.{(k + 7) % min(100, args.albums)}", {"title": f"Cross {k}"})
            assert status == 200
            events.next_event()
            cross.append((time.perf_counter() - t) * 1000)
        note("change via B reaching A's /events", f"{len(cross)} sequential", f"p50 {pct(cross, 50):.1f} ms, p99 {pct(cross, 99):.1f} ms", "")
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
        subprocess.run(["psql", admin, "-qtAXc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
    print(f"\nload average {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print("\n| measure | size | drilldown | floor (same run) |\n|---|---|---|---|")
    for row in results:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
