#!/usr/bin/env python3
"""Measures every row of issue 10's "Targets" table (edits at scale) on a given `drilldown` binary,
each beside a peer measured in the same run, and prints one table at the end.

  Scripts/bench-edit.py [--bin .build-release/release/drilldown] [--only json,sqlite,...] [--quick] [--history on|off]
                        [--requests 200] [--budget 60] [--data DIR] [--no-big] [--timeout 5400]

Sections (`--only`, comma-separated; all by default):
  json     one rename through HTTP (`POST /api/edit/rename/500.5`, one client, sequential) on the
           1M-row JSON file; peer: replacing a file of that size (write + fsync + rename, Python)
  sqlite   the same on that data as an SQLite tree table (3M nodes) and on a 10M-node table;
           peer (floor): a one-row UPDATE + COMMIT on the same table with Python's sqlite3
  postgres the same on that data as a PostgreSQL tree table (--pg-url, default
           $DRILLDOWN_TEST_PG_URL; skipped without one); floor: a one-row UPDATE + COMMIT via psql
  music    the same on the relational music database (--music, default Examples/Music/music.sqlite
           with the schema beside it; skipped when absent); floor: a one-row UPDATE + COMMIT on it
  clients  20 concurrent clients renaming rows of the 1M-row JSON file: acknowledged changes/s
  memory   server start time and RSS, editable vs read-only: JSON (3M nodes), tree table (10M)
  open     a 10M-node tree table opened to its first page: process start to the first page's
           HTTP 200 (read-only and editable server) and `drilldown ls` wall time; peer: the
           `sqlite3` shell reading the same first page
  events   100 open `/events` streams (server started with --max-event-streams 128): time from
           sending a rename to each stream seeing its event; peer: the rename's own answer
  core     `drilldown bench FILE --edits N` on the 10M-node JSON (when the binary has --edits)

Every rename series stops at --requests or after --budget seconds (at least 3 samples), so slow
stores (seconds per change) stay bounded; every process and request has a timeout, the whole run
--timeout, and servers are killed on exit. Inputs are generated with Scripts/gen-outline.py into
--data (a temporary folder, deleted afterwards, unless given) and never committed; the tree tables
are made with `drilldown convert` by the binary under test. Each editable run edits a fresh copy.
Latencies are measured by one Python client over loopback (its own overhead is included).
A benchmark, not a test: the exit status is 0 unless the run itself failed (1) or timed out (2).
"""
import argparse
import http.client
import json
import os
import pathlib
import queue
import re
import selectors
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
SECTIONS = ["json", "sqlite", "postgres", "music", "clients", "memory", "open", "events", "core"]
SERVERS = []  # every server started, killed on exit


class RunTimeout(Exception):
    """The whole run took longer than --timeout."""


# ---------------------------------------------------------------------------------------------
# Small helpers


def pct(samples, p):
    """The p-th percentile (0..1) of samples (nearest rank)."""
    s = sorted(samples)
    return s[min(len(s) - 1, max(0, int(round(p * len(s) + 0.5)) - 1))] if s else float("nan")


def fmt_ms(seconds):
    ms = seconds * 1000
    if ms != ms:
        return "-"
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms"
    if ms >= 1:
        return f"{ms:.2f} ms"
    return f"{ms * 1000:.0f} µs"


def latency_text(samples):
    return f"p50 {fmt_ms(pct(samples, .5))}, p99 {fmt_ms(pct(samples, .99))}, max {fmt_ms(max(samples))} (n={len(samples)})"


def proc_status(pid):
    """VmRSS and VmHWM of a process, in MiB."""
    values = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    values[line.split(":")[0]] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return values.get("VmRSS", float("nan")), values.get("VmHWM", float("nan"))


def log(*parts):
    print(*parts, flush=True)


# ---------------------------------------------------------------------------------------------
# The server and its clients


class Server:
    """`drilldown serve ARGS --host 127.0.0.1 --port 0`, timed from process start."""

    def __init__(self, binary, serve_args, timeout):
        self.spawned = time.monotonic()
        self.proc = subprocess.Popen(
            [binary, "serve", *map(str, serve_args), "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        SERVERS.append(self)
        self.stderr = []
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in self.proc.stdout] + [lines.put(None)], daemon=True).start()
        errors = threading.Thread(target=lambda: [self.stderr.append(line) for line in self.proc.stderr], daemon=True)
        errors.start()
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            raise RuntimeError(f"the server printed no URL within {timeout:.0f} s")
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line or "")
        if not match:
            self.proc.wait(timeout=10)
            errors.join(timeout=5)
            self.stop()
            raise RuntimeError(f"the server did not start: {(''.join(self.stderr[-3:]) or line or '').strip()}")
        self.port = int(match.group(1))
        self.url_seconds = time.monotonic() - self.spawned
        self.url = f"http://127.0.0.1:{self.port}/"

    def first_page(self, timeout):
        """Seconds from process start until `GET /` answered 200 (asked right after the URL)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.request("GET", "/")
        response = conn.getresponse()
        response.read()
        seconds = time.monotonic() - self.spawned
        conn.close()
        if response.status != 200:
            raise RuntimeError(f"GET / answered {response.status}")
        return seconds

    def memory(self):
        return proc_status(self.proc.pid)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self in SERVERS:
            SERVERS.remove(self)


def kill_servers():
    for server in list(SERVERS):
        try:
            server.proc.kill()
            server.proc.wait(timeout=5)
        except Exception:
            pass
    SERVERS.clear()


class Session:
    """One keep-alive connection with its own CSRF session (the cookie and token a page gets)."""

    def __init__(self, port, timeout):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.conn.request("GET", "/")
        response = self.conn.getresponse()
        response.read()
        match = re.match(r"dd_session=([0-9a-f]+)", response.getheader("Set-Cookie") or "")
        self.token = response.getheader("X-CSRF-Token") or ""
        if not match or not self.token:
            raise RuntimeError("no dd_session cookie or X-CSRF-Token: is the server editable?")
        self.cookie = match.group(0)

    def post(self, path, fields):
        self.conn.request("POST", path, body=json.dumps(fields), headers={
            "Content-Type": "application/json", "Accept": "application/json",
            "Cookie": self.cookie, "X-CSRF-Token": self.token})
        response = self.conn.getresponse()
        body = response.read()
        try:
            return response.status, json.loads(body or b"{}")
        except ValueError:
            return response.status, {"raw": body[:200].decode(errors="replace")}

    def get(self, path):
        self.conn.request("GET", path, headers={"Accept": "application/json"})
        response = self.conn.getresponse()
        return response.status, response.read()

    def close(self):
        self.conn.close()


def rename(session, path, title):
    """One acknowledged rename; raises on anything but 200 with a change."""
    status, body = session.post(f"/api/edit/rename/{path}", {"title": title})
    if status != 200 or not body.get("changed", True):
        raise RuntimeError(f"rename {path} answered {status}: {body}")
    return body


def rename_series(session, path, tag, requests, budget, min_samples=3):
    """Sequential renames of `path`: a warm-up, then up to `requests` timed ones within `budget` s."""
    t0 = time.perf_counter()
    rename(session, path, f"{tag} warm-up")
    if time.perf_counter() - t0 < 0.5:
        for i in range(min(5, requests // 10)):
            rename(session, path, f"{tag} warm-up {i}")
    samples, started, title = [], time.monotonic(), None
    for i in range(requests):
        if len(samples) >= min_samples and time.monotonic() - started > budget:
            break
        title = f"{tag} {i}"
        t0 = time.perf_counter()
        rename(session, path, title)
        samples.append(time.perf_counter() - t0)
    return samples, title


def get_series(session, path, requests, budget):
    samples, started = [], time.monotonic()
    for _ in range(requests):
        if len(samples) >= 3 and time.monotonic() - started > budget:
            break
        t0 = time.perf_counter()
        status, _ = session.get(path)
        samples.append(time.perf_counter() - t0)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}")
    return samples


# ---------------------------------------------------------------------------------------------
# Peers measured in the same run


def sqlite_floor(db_path, n, budget):
    """One-row UPDATE + COMMIT on the largest table of `db_path`, with Python's sqlite3 and the
    database's own journal mode; returns (samples, description)."""
    db = sqlite3.connect(db_path, isolation_level=None, timeout=30)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        if not tables:
            raise RuntimeError(f"{db_path} has no tables")
        counts = {t: db.execute(f'SELECT max(rowid) FROM "{t}"').fetchone()[0] or 0 for t in tables}
        table = "nodes" if "nodes" in tables else max(tables, key=counts.get)
        columns = db.execute(f'PRAGMA table_info("{table}")').fetchall()  # cid, name, type, notnull, default, pk
        names = [c[1] for c in columns]
        column = next((c for c in ("value", "title", "name") if c in names), None) or next(
            (c[1] for c in columns if "TEXT" in (c[2] or "").upper() and not c[5]), names[-1])
        rowid = max(1, counts[table] // 2)
        while db.execute(f'SELECT 1 FROM "{table}" WHERE rowid = ?', (rowid,)).fetchone() is None and rowid > 1:
            rowid -= 1
        original = db.execute(f'SELECT "{column}" FROM "{table}" WHERE rowid = ?', (rowid,)).fetchone()[0]
        text = isinstance(original, str) or original is None
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
        sync = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(db.execute("PRAGMA synchronous").fetchone()[0], "?")
        samples, started = [], time.monotonic()
        for i in range(n):
            if len(samples) >= 3 and time.monotonic() - started > budget:
                break
            value = f"floor {i}" if text else original
            t0 = time.perf_counter()
            db.execute("BEGIN IMMEDIATE")
            db.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (value, rowid))
            db.execute("COMMIT")
            samples.append(time.perf_counter() - t0)
        db.execute("BEGIN IMMEDIATE")
        db.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (original, rowid))
        db.execute("COMMIT")
        return samples, f"UPDATE {table}.{column} + COMMIT, python sqlite3, {mode}, synchronous={sync}"
    finally:
        db.close()


def file_replace_floor(path, n, budget):
    """Writing a file of `path`'s size to a temporary file, fsync, rename over a scratch copy."""
    data = pathlib.Path(path).read_bytes()
    target = pathlib.Path(path).with_suffix(".floor")
    samples, started = [], time.monotonic()
    try:
        for _ in range(n):
            if len(samples) >= 3 and time.monotonic() - started > budget:
                break
            t0 = time.perf_counter()
            tmp = target.with_suffix(".floor.tmp")
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
            samples.append(time.perf_counter() - t0)
    finally:
        target.unlink(missing_ok=True)
    return samples


# ---------------------------------------------------------------------------------------------
# The run


class Bench:
    def __init__(self, args):
        self.a = args
        self.bin = args.bin
        self.rows = []  # the final table
        self.details = {}  # everything measured, for --json-out
        self.data = pathlib.Path(args.data) if args.data else pathlib.Path(tempfile.mkdtemp(prefix="bench-edit-"))
        self.data.mkdir(parents=True, exist_ok=True)
        self.work = pathlib.Path(tempfile.mkdtemp(prefix="work-", dir=self.data))
        self.cache = {}
        if args.quick:
            self.small = (10, 30)  # groups, rows: ~900 nodes
            self.big = (34, 30)  # ~3k nodes
        else:
            self.small = (args.groups, args.group_rows)
            self.big = (max(1, round(args.big_nodes / (3 * args.group_rows))), args.group_rows)
        self.identity = self.binary_identity()
        self.load_at_start = os.getloadavg()[0]

    def binary_identity(self):
        st = os.stat(self.bin)
        return f"{os.path.realpath(self.bin)} {st.st_size} {st.st_mtime_ns}"

    # -- results

    def add(self, measure, target, measured, peer="", ok=None):
        mark = "—" if ok is None else ("yes" if ok else "NO")
        self.rows.append((measure, target, measured, peer, mark))
        log(f"  => {measure}: {measured}" + (f"   [peer: {peer}]" if peer else "") + f"   target {target}: {mark}")

    def print_table(self):
        log("")
        log(f"binary: {self.bin}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} now, "
            f"{self.load_at_start:.1f} at the start (other processes share the CPUs: compare with the peers)")
        widths = [max(len(str(r[i])) for r in self.rows + [("measure", "target", "measured", "peer (same run)", "met")])
                  for i in range(5)]
        widths = [min(w, 70) for w in widths]
        header = ("measure", "target", "measured", "peer (same run)", "met")
        for row in [header, tuple("-" * w for w in widths)] + self.rows:
            log(" | ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())

    # -- inputs

    def sizes_name(self, size):
        groups, rows = size
        nodes = 2 + 3 * groups + 3 * groups * rows
        return f"{nodes / 1e6:.0f}M" if nodes >= 1e6 else f"{nodes / 1e3:.0f}k" if nodes >= 1e3 else str(nodes)

    def nodes(self, size):
        return 2 + 3 * size[0] + 3 * size[0] * size[1]

    def rename_path(self, size):
        groups, rows = size
        return f"{groups // 2}.{5 if rows > 5 else 0}"

    def json_file(self, size):
        key = ("json", size)
        if key not in self.cache:
            path = self.data / f"outline-{size[0]}x{size[1]}.json"
            if not path.exists():
                log(f"generating {path.name} ({self.nodes(size)} nodes)")
                tmp = path.with_suffix(".tmp")
                subprocess.run([sys.executable, str(ROOT / "Scripts/gen-outline.py"), "--groups", str(size[0]),
                                "--rows", str(size[1]), str(tmp)], check=True, timeout=self.remaining(1800))
                tmp.rename(path)
            self.cache[key] = path
        return self.cache[key]

    def sqlite_file(self, size):
        """The JSON file converted to a tree table by the binary under test (cached per binary)."""
        key = ("sqlite", size)
        if key not in self.cache:
            source = self.json_file(size)
            path = self.data / f"outline-{size[0]}x{size[1]}.sqlite"
            stamp = path.with_suffix(".stamp")
            if not path.exists() or not stamp.exists() or stamp.read_text() != self.identity:
                for p in (path, pathlib.Path(f"{path}-wal"), pathlib.Path(f"{path}-shm")):
                    p.unlink(missing_ok=True)
                log(f"converting {source.name} to {path.name} with drilldown convert")
                t0 = time.monotonic()
                self.run_bin(["convert", source, path], timeout=self.remaining(3600))
                log(f"  converted in {time.monotonic() - t0:.1f} s ({path.stat().st_size / 1e6:.0f} MB)")
                stamp.write_text(self.identity)
            self.cache[key] = path
        return self.cache[key]

    def fresh_copy(self, original):
        """A copy of `original` (and its -wal) to edit, so cached inputs stay as generated."""
        target = self.work / original.name
        for suffix in ("", "-wal", "-shm"):
            pathlib.Path(f"{target}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(original, target)
        if pathlib.Path(f"{original}-wal").exists():
            shutil.copyfile(f"{original}-wal", f"{target}-wal")
        return target

    def cleanup_copies(self):
        for p in self.work.iterdir():
            if p.is_file():
                p.unlink()

    # -- processes

    def remaining(self, cap):
        return max(1, min(cap, self.deadline - time.monotonic()))

    def run_bin(self, args, timeout):
        proc = subprocess.run([self.bin, *map(str, args)], capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"drilldown {' '.join(map(str, args[:1]))} exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
        return proc

    def serve(self, args):
        if self.a.history == "off" and "--editable" in map(str, args):  # ("both" is handled by its section)
            args = [*args, "--no-history"]
        return Server(self.bin, args, timeout=self.remaining(self.a.start_timeout))

    def session(self, server):
        return Session(server.port, timeout=self.remaining(self.a.request_timeout))

    def check_persisted(self, file, path, title):
        """Whether `drilldown ls` on the file finds `title` at `path` after the server stopped."""
        parent, _, index = path.rpartition(".")
        try:
            out = self.run_bin(["ls", file, parent or "", "--offset", index, "--limit", "1", "--json"],
                               timeout=self.remaining(300)).stdout
            return any(r.get("title") == title for r in json.loads(out).get("rows", []))
        except Exception as error:  # reported, not fatal
            log(f"  (could not check the file: {error})")
            return None

    # -- sections

    def section_json(self):
        size = self.small
        original = self.json_file(size)
        name = f"JSON file, {self.sizes_name(size)} nodes"
        file = self.fresh_copy(original)
        path = self.rename_path(size)
        server = self.serve([file, "--editable"])
        try:
            session = self.session(server)
            log(f"{name}: rename {path} (server up in {server.url_seconds:.2f} s)")
            samples, title = rename_series(session, path, "JSON rename", self.a.requests, self.a.budget)
            group, _, row = path.rpartition(".")
            reads = get_series(session, f"/api/level/{group}?offset={row}&limit=1", min(self.a.requests, 200), self.a.budget / 4)
            session.close()
        finally:
            server.stop()
        persisted = self.check_persisted(file, path, title)
        floor = file_replace_floor(file, min(self.a.requests, 20), self.a.budget / 2)
        self.details["json"] = {"rename": samples, "read": reads, "file_replace": floor, "persisted": persisted}
        log(f"  rename: {latency_text(samples)}; saved in the file: {persisted}")
        log(f"  GET of that row: {latency_text(reads)}; replacing a {file.stat().st_size / 1e6:.1f} MB file: {latency_text(floor)}")
        self.add(f"one rename via HTTP, {name}", "none (issue: p50 765 ms)", latency_text(samples),
                 f"file write+fsync p50 {fmt_ms(pct(floor, .5))}; GET row p99 {fmt_ms(pct(reads, .99))}")
        self.cleanup_copies()

    def rename_on_table(self, size, label):
        original = self.sqlite_file(size)
        file = self.fresh_copy(original)
        path = self.rename_path(size)
        floor, floor_text = sqlite_floor(file, min(self.a.requests, 500), self.a.budget / 4)
        log(f"{label}: floor {floor_text}: {latency_text(floor)}")
        server = self.serve([file, "--editable"])
        try:
            log(f"{label}: rename {path} (server up in {server.url_seconds:.2f} s)")
            session = self.session(server)
            samples, title = rename_series(session, path, "SQLite rename", self.a.requests, self.a.budget)
            session.close()
        finally:
            server.stop()
        persisted = self.check_persisted(file, path, title)
        log(f"  rename: {latency_text(samples)}; saved in the table: {persisted}")
        self.details[f"sqlite {label}"] = {"rename": samples, "floor": floor, "persisted": persisted}
        p99 = pct(samples, .99)
        self.add(f"one rename via HTTP, {label}", "p99 ≤ 3 ms", latency_text(samples),
                 f"floor p50 {fmt_ms(pct(floor, .5))}, p99 {fmt_ms(pct(floor, .99))}", p99 <= 0.003)
        self.cleanup_copies()

    def section_sqlite(self):
        self.rename_on_table(self.small, f"SQLite tree table, {self.sizes_name(self.small)} nodes")
        if not self.a.no_big:
            self.rename_on_table(self.big, f"SQLite tree table, {self.sizes_name(self.big)} nodes")

    def section_postgres(self):
        url = self.a.pg_url or os.environ.get("DRILLDOWN_TEST_PG_URL", "")
        size = self.small
        label = f"PostgreSQL tree table, {self.sizes_name(size)} nodes"
        if not url:
            log(f"{label}: no --pg-url or DRILLDOWN_TEST_PG_URL, skipped")
            self.add(f"one rename via HTTP, {label}", "p99 ≤ 3 ms", "skipped: no PostgreSQL")
            return
        table = f"bench_{os.getpid()}"
        table_url = url + ("&" if "?" in url else "?") + "table=" + table
        log(f"{label}: converting {self.json_file(size).name} into {table}")
        t0 = time.monotonic()
        self.run_bin(["convert", self.json_file(size), table_url], timeout=self.remaining(3600))
        log(f"  converted in {time.monotonic() - t0:.1f} s")
        path = self.rename_path(size)
        # With --history both: on, off, on, off on the one table, so both see the same load.
        modes = ["on", "off", "on", "off"] if self.a.history == "both" else [self.a.history]
        try:
            for round, mode in enumerate(modes):
                server = Server(self.bin, [table_url, "--editable"] + (["--no-history"] if mode == "off" else []),
                                timeout=self.remaining(self.a.start_timeout))
                try:
                    log(f"{label}: rename {path} (server up in {server.url_seconds:.2f} s, history {mode})")
                    session = self.session(server)
                    samples, _ = rename_series(session, path, "PostgreSQL rename", self.a.requests, self.a.budget)
                    session.close()
                finally:
                    server.stop()
                log(f"  rename, history {mode}: {latency_text(samples)}")
                self.details[f"postgres {label} history {mode} #{round + 1}"] = {"rename": samples}
                self.add(f"one rename via HTTP, {label}, history {mode}", "p99 ≤ 3 ms", latency_text(samples), "",
                         pct(samples, .99) <= 0.003)
        finally:
            plain = re.sub(r"[?&]sslmode=[^&]*", "", url)
            subprocess.run(["psql", plain, "-qtAX", "-c",
                            f"DROP TABLE IF EXISTS {table}, {table}_meta, {table}_keys, {table}_history; "
                            f"DROP SEQUENCE IF EXISTS {table}_ids; DROP FUNCTION IF EXISTS {table}_count()"],
                           capture_output=True, text=True, timeout=120)

    def music_schema(self, db):
        if self.a.music_schema:
            return [self.a.music_schema]
        candidates = [p for p in sorted(db.parent.glob("*.yaml")) + sorted(db.parent.glob("*.json"))
                      if re.search(r"^levels:", p.read_text(errors="replace"), re.M)]
        return [None] + candidates

    def section_music(self):
        original = pathlib.Path(self.a.music)
        label = f"relational music database ({original.name})"
        if not original.exists():
            log(f"{label}: {original} is not there, skipped")
            self.add("one rename via HTTP, relational music database", "p99 ≤ 3 ms", f"skipped: {original.name} absent")
            return
        file = self.fresh_copy(original)
        for beside in original.parent.glob(f"{original.stem}.schema.*"):  # the schema found by the file's name
            shutil.copyfile(beside, self.work / beside.name)
        floor, floor_text = sqlite_floor(file, min(self.a.requests, 500), self.a.budget / 4)
        server, errors = None, []
        for schema in self.music_schema(original):
            try:
                server = self.serve([file, "--editable"] + (["--schema", schema] if schema else []))
                break
            except RuntimeError as error:
                errors.append(f"{schema or 'no --schema'}: {error}")
        if server is None:
            if any("read-only" in e for e in errors):  # before issue 10: relational databases were read-only
                log(f"{label}: not editable: {errors[-1]}")
                self.add("one rename via HTTP, relational music database", "p99 ≤ 3 ms",
                         "not editable (serve --editable refuses a database read through levels:)",
                         f"floor p50 {fmt_ms(pct(floor, .5))}, p99 {fmt_ms(pct(floor, .99))}", False)
                self.cleanup_copies()
                return
            raise RuntimeError("; ".join(errors))
        try:
            session = self.session(server)
            path = ""
            for _ in range(3):  # down to a row three levels deep (a song), or as deep as it goes
                status, body = session.get(f"/api/level/{path}?limit=1" if path else "/api/level?limit=1")
                rows = json.loads(body).get("rows", []) if status == 200 else []
                if not rows:
                    break
                path = rows[0]["path"]
                if not rows[0].get("drills"):
                    break
            if not path:
                raise RuntimeError("the music database's first level is empty")
            log(f"{label}: rename {path} (server up in {server.url_seconds:.2f} s)")
            samples, _ = rename_series(session, path, "Music rename", self.a.requests, self.a.budget)
            session.close()
        finally:
            server.stop()
        log(f"  rename: {latency_text(samples)}; floor {floor_text}: {latency_text(floor)}")
        self.details["music"] = {"rename": samples, "floor": floor, "path": path}
        self.add("one rename via HTTP, relational music database", "p99 ≤ 3 ms", latency_text(samples),
                 f"floor p50 {fmt_ms(pct(floor, .5))}, p99 {fmt_ms(pct(floor, .99))}", pct(samples, .99) <= 0.003)
        self.cleanup_copies()

    def section_clients(self):
        size = self.small
        file = self.fresh_copy(self.json_file(size))
        clients, duration = self.a.clients, self.a.duration
        label = f"JSON file, {self.sizes_name(size)} nodes, {clients} clients"
        server = self.serve([file, "--editable"])
        groups, rows = size
        acks, errors, lock = [], [], threading.Lock()
        try:
            sessions = [self.session(server) for _ in range(clients)]
            rename(sessions[0], self.rename_path(size), "warm-up")
            barrier = threading.Barrier(clients + 1)
            stop_at = [0.0]

            def client(k, session):
                path = f"{groups // 2}.{(5 + k) % rows}"
                barrier.wait()
                i = 0
                while time.monotonic() < stop_at[0]:
                    t0 = time.monotonic()
                    try:
                        rename(session, path, f"client {k} change {i}")
                        with lock:
                            acks.append((time.monotonic(), time.monotonic() - t0))
                    except Exception as error:
                        with lock:
                            errors.append(str(error)[:200])
                        return
                    i += 1

            threads = [threading.Thread(target=client, args=(k, s), daemon=True) for k, s in enumerate(sessions)]
            for t in threads:
                t.start()
            started = time.monotonic()
            stop_at[0] = started + duration
            barrier.wait()
            for t in threads:  # in-flight changes finish; each is bounded by the request timeout
                t.join(timeout=self.remaining(duration + self.a.request_timeout + 5))
            for s in sessions:
                s.close()
        finally:
            server.stop()
        if not acks:
            raise RuntimeError(f"no change was acknowledged: {errors[:3]}")
        elapsed = max(t for t, _ in acks) - started
        rate = len(acks) / elapsed
        latencies = [d for _, d in acks]
        floor = file_replace_floor(file, 5, self.a.budget / 4)
        floor_rate = 1 / statistics.median(floor)
        log(f"{label}: {len(acks)} acknowledged in {elapsed:.1f} s = {rate:.1f}/s, errors {len(errors)}; "
            f"latency {latency_text(latencies)}")
        self.details["clients"] = {"acks": len(acks), "seconds": elapsed, "rate": rate, "errors": errors[:5],
                                   "latency": latencies, "file_replace": floor}
        self.add(f"throughput, {label}", "≥ 50 changes/s", f"{rate:.1f} changes/s ({len(acks)} in {elapsed:.1f} s, "
                 f"{len(errors)} errors, p99 {fmt_ms(pct(latencies, .99))})",
                 f"whole-file writes+fsync: {floor_rate:.1f}/s", rate >= 50 and not errors)
        self.cleanup_copies()

    def start_and_measure(self, file, editable, edits, path):
        """Starts a server; returns (seconds to URL, seconds to first page, RSS after the first page,
        RSS and peak after `edits` renames)."""
        server = self.serve([file] + (["--editable"] if editable else []))
        try:
            first = server.first_page(self.remaining(self.a.request_timeout))
            time.sleep(0.5)
            rss, _ = server.memory()
            after, hwm, done = rss, server.memory()[1], 0
            if editable and edits:
                session = self.session(server)
                samples, _ = rename_series(session, path, "memory", edits, self.a.budget / 2, min_samples=1)
                done = len(samples) + 1
                session.close()
                time.sleep(0.5)
                after, hwm = server.memory()
            return server.url_seconds, first, rss, after, hwm, done
        finally:
            server.stop()

    def section_memory(self):
        cases = [("JSON file", self.small, self.json_file, "≤ 1.3× read-only")]
        if not self.a.no_big:
            cases.append(("SQLite tree table", self.big, self.sqlite_file, "≤ 100 MB"))
        for kind, size, make, target in cases:
            label = f"{kind}, {self.sizes_name(size)} nodes"
            original = make(size)
            ro = self.start_and_measure(original, False, 0, None)
            log(f"{label} read-only: URL after {ro[0]:.2f} s, first page after {ro[1]:.2f} s, RSS {ro[2]:.0f} MiB")
            ed = self.start_and_measure(self.fresh_copy(original), True, self.a.memory_edits, self.rename_path(size))
            log(f"{label} editable: URL after {ed[0]:.2f} s, first page after {ed[1]:.2f} s, RSS {ed[2]:.0f} MiB, "
                f"after {ed[5]} renames {ed[3]:.0f} MiB (peak {ed[4]:.0f} MiB)")
            self.details[f"memory {label}"] = {"read_only": ro, "editable": ed}
            self.add(f"server start, {label}", "none (issue: 0.36 s JSON, 2.25 s SQLite)",
                     f"editable {ed[1]:.2f} s to first page", f"read-only {ro[1]:.2f} s")
            ratio = ed[3] / ro[2]
            measured = f"editable {ed[3]:.0f} MiB after {ed[5]} renames (peak {ed[4]:.0f}) = {ratio:.2f}× read-only"
            ok = ratio <= 1.3 if kind == "JSON file" else ed[4] <= 100
            self.add(f"server memory, {label}", target, measured, f"read-only {ro[2]:.0f} MiB", ok)
            self.cleanup_copies()

    def section_open(self):
        size = self.big if not self.a.no_big else self.small
        table = self.sqlite_file(size)
        label = f"SQLite tree table, {self.sizes_name(size)} nodes"
        firsts = []
        for _ in range(self.a.open_runs):
            server = self.serve([table])
            try:
                firsts.append(server.first_page(self.remaining(self.a.request_timeout)))
            finally:
                server.stop()
        copy = self.fresh_copy(table)
        server = self.serve([copy, "--editable"])
        try:
            editable = server.first_page(self.remaining(self.a.request_timeout))
        finally:
            server.stop()
        ls_times = []
        for _ in range(self.a.open_runs):
            t0 = time.monotonic()
            self.run_bin(["ls", table, "--limit", "50"], timeout=self.remaining(600))
            ls_times.append(time.monotonic() - t0)
        peer = "sqlite3 shell: not installed"
        if shutil.which("sqlite3"):
            shell = []
            for _ in range(self.a.open_runs):
                t0 = time.monotonic()
                proc = subprocess.run(["sqlite3", "-readonly", str(table),
                                       "SELECT id, key, value FROM nodes WHERE parent = 0 ORDER BY position LIMIT 50"],
                                      capture_output=True, text=True, timeout=self.remaining(120))
                if proc.returncode != 0:  # another layout: the first rows of the largest table
                    proc = subprocess.run(["sqlite3", "-readonly", str(table), "SELECT * FROM nodes LIMIT 50"],
                                          capture_output=True, text=True, timeout=self.remaining(120))
                shell.append(time.monotonic() - t0)
            peer = f"sqlite3 shell, first 50 rows: {fmt_ms(min(shell))}"
        log(f"{label}: server start to first page {', '.join(fmt_ms(s) for s in firsts)} (read-only), "
            f"{fmt_ms(editable)} (editable); drilldown ls {', '.join(fmt_ms(s) for s in ls_times)}; {peer}")
        self.details["open"] = {"read_only": firsts, "editable": editable, "ls": ls_times}
        best = min(firsts)
        self.add(f"open to first page, {label}", "≤ 100 ms",
                 f"server {fmt_ms(best)} read-only, {fmt_ms(editable)} editable; ls {fmt_ms(min(ls_times))}", peer,
                 max(best, editable) <= 0.1)
        self.cleanup_copies()

    def section_events(self):
        results = [("JSON file", self.small, self.json_file)]
        if self.a.events_sqlite:
            results.append(("SQLite tree table", self.small, self.sqlite_file))
        for kind, size, make in results:
            self.events_on(f"{kind}, {self.sizes_name(size)} nodes", self.fresh_copy(make(size)), self.rename_path(size))
            self.cleanup_copies()

    def events_on(self, label, file, path):
        n_streams = self.a.streams
        # Every stream comes from this one address (and no session): lift the per-client cap with the global one.
        cap = str(max(64, n_streams + 28))
        server = self.serve([file, "--editable", "--max-event-streams", cap, "--max-event-streams-per-client", cap])
        streams = []
        try:
            for _ in range(n_streams):
                streams.append(EventStream(server.port, timeout=self.remaining(self.a.request_timeout)))
            reader = EventReader(streams)
            reader.start()
            if not reader.wait_hello(timeout=self.remaining(30)):
                raise RuntimeError("not every event stream said hello")
            session = self.session(server)
            rename(session, path, "events warm-up")
            latencies, acks, started = [], [], time.monotonic()
            for i in range(self.a.event_changes):
                if len(acks) >= 3 and time.monotonic() - started > self.a.budget:
                    break
                t0 = time.perf_counter()
                body = rename(session, path, f"events {i}")
                acks.append(time.perf_counter() - t0)
                revision = body.get("revision")
                seen = reader.wait_revision(revision, timeout=self.remaining(self.a.request_timeout))
                missing = n_streams - len(seen)
                if missing:
                    raise RuntimeError(f"{missing} of {n_streams} streams never saw revision {revision}")
                latencies += [t - t0 for t in seen.values()]
            session.close()
            reader.stop()
        finally:
            for s in streams:
                s.close()
            server.stop()
        log(f"{label}, {n_streams} streams: POST to event {latency_text(latencies)}; the POST's answer {latency_text(acks)}")
        self.details[f"events {label}"] = {"latency": latencies, "ack": acks}
        self.add(f"change → {n_streams} event streams, {label}", "p99 ≤ 50 ms", latency_text(latencies),
                 f"the POST's own answer p99 {fmt_ms(pct(acks, .99))}", pct(latencies, .99) <= 0.05)

    def section_core(self):
        help_text = subprocess.run([self.bin, "bench", "--help"], capture_output=True, text=True, timeout=60).stdout
        if "--edits" not in help_text:
            log("core: `drilldown bench` has no --edits option in this binary: not available")
            size = self.big if not self.a.no_big else self.small
            self.add(f"a change in the core, {self.sizes_name(size)} nodes", "p99 ≤ 50 µs",
                     "not available (drilldown bench has no --edits)")
            return
        size = self.big if not self.a.no_big else self.small
        file = self.json_file(size)
        takes_value = re.search(r"--edits <", help_text) is not None  # an option with a count, or a flag
        args = ["bench", file, "--edits"] + ([str(self.a.core_edits)] if takes_value else []) + ["--json"]
        if "--samples" in help_text:
            args += ["--samples", str(self.a.core_samples)]
        if self.a.core_cpu_clock and "--cpu-clock" in help_text:
            args += ["--cpu-clock"]
        log(f"core: drilldown {' '.join(map(str, args))}")
        out = self.run_bin(args, timeout=self.remaining(1200)).stdout
        try:
            report = json.loads(out)
        except ValueError:
            log(out)
            self.add(f"a change in the core, {self.sizes_name(size)} nodes", "p99 ≤ 50 µs", "bench printed no JSON (see above)")
            return
        # Every timed measure in the report, wherever it sits ({"name", "p99Microseconds", ...}),
        # with the keys leading to it: the change timings are under "edits" (or named like changes).
        found = []

        def collect(node, where):
            if isinstance(node, dict):
                if "p99Microseconds" in node and "name" in node:
                    found.append((where, node))
                for key, value in node.items():
                    collect(value, where + (key,))
            elif isinstance(node, list):
                for value in node:
                    collect(value, where)

        collect(report, ())
        edit_words = re.compile(r"\b(edit|edits|change|changes|insert|rename|set attribute|delete|move|undo|redo)\b", re.I)
        reads_words = re.compile(r"level page|outline|search", re.I)
        edits = [m for where, m in found if ("edits" in where or edit_words.search(m["name"])) and not reads_words.search(m["name"])]
        for where, m in found:
            log(f"  {'/'.join(where)}: {m['name']}: p50 {m.get('p50Microseconds', float('nan')):.1f} µs, "
                f"p99 {m['p99Microseconds']:.1f} µs, max {m.get('maxMicroseconds', float('nan')):.1f} µs ({m.get('samples', '?')})")
        self.details["core"] = report
        label = f"a change in the core, {self.sizes_name(size)} nodes"
        if not edits:
            self.add(label, "p99 ≤ 50 µs", "bench --edits printed no change measure")
            return
        # The headline: the measure of all changes together when there is one, else the worst kind.
        overall = [m for m in edits if re.search(r"all kinds|one change|^changes?$", m["name"], re.I)]
        head = overall[0] if overall else max(edits, key=lambda m: m["p99Microseconds"])
        worst = max(edits, key=lambda m: m["p99Microseconds"])
        fresh = [m for where, m in found if "level page" in m["name"] and "editedReads" not in where]
        edited = [m for where, m in found if "level page" in m["name"] and "editedReads" in where]
        peer = "; ".join(
            [f"level page p99 {fresh[0]['p99Microseconds']:.0f} µs fresh" if fresh else ""]
            + [f"{edited[0]['p99Microseconds']:.0f} µs after the edits" if edited else ""]).strip("; ")
        self.add(label, "p99 ≤ 50 µs",
                 f"{head['name']}: p50 {head.get('p50Microseconds', float('nan')):.1f} µs, p99 {head['p99Microseconds']:.1f} µs "
                 f"(worst: {worst['name']} p99 {worst['p99Microseconds']:.1f} µs)", peer, head["p99Microseconds"] <= 50)

    def run(self, sections):
        self.deadline = time.monotonic() + self.a.timeout
        failed = False
        for name in sections:
            log(f"\n== {name}")
            started = time.monotonic()
            try:
                getattr(self, f"section_{name}")()
            except RunTimeout:
                raise
            except Exception as error:
                failed = True
                log(f"  {name} failed: {type(error).__name__}: {error}")
                self.add(f"{name}", "", f"FAILED: {str(error)[:120]}")
            finally:
                kill_servers()
            log(f"  ({name} took {time.monotonic() - started:.0f} s)")
        return failed


class EventStream:
    """A raw `GET /events` connection (chunked or not), decoded incrementally."""

    def __init__(self, port, timeout):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("the event stream closed before its headers")
            head += chunk
        head, _, rest = head.partition(b"\r\n\r\n")
        status = head.split(b"\r\n")[0]
        if b" 200" not in status:
            raise RuntimeError(f"GET /events answered {status.decode(errors='replace')}")
        self.chunked = b"chunked" in head.lower()
        self.raw, self.text, self.hello = b"", "", False
        self.feed(rest)
        self.sock.setblocking(False)

    def feed(self, data):
        """Adds bytes; returns the complete events seen as (name, data) pairs."""
        if self.chunked:
            self.raw += data
            while True:
                line_end = self.raw.find(b"\r\n")
                if line_end < 0:
                    break
                size = int(self.raw[:line_end].split(b";")[0] or b"0", 16)
                if len(self.raw) < line_end + 2 + size + 2:
                    break
                self.text += self.raw[line_end + 2:line_end + 2 + size].decode(errors="replace")
                self.raw = self.raw[line_end + 2 + size + 2:]
        else:
            self.text += data.decode(errors="replace")
        events = []
        while "\n\n" in self.text:
            block, _, self.text = self.text.partition("\n\n")
            name, payload = "message", ""
            for line in block.split("\n"):
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    payload += line[5:].strip()
            if name == "hello":
                self.hello = True
            if payload:
                events.append((name, payload))
        return events

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class EventReader(threading.Thread):
    """Reads every stream in one thread, noting when each saw each revision."""

    def __init__(self, streams):
        super().__init__(daemon=True)
        self.streams = streams
        self.seen = {}  # stream index -> [(revision, time)] in arrival order
        self.cond = threading.Condition()
        self.stopping = False

    def run(self):
        selector = selectors.DefaultSelector()
        for i, s in enumerate(self.streams):
            selector.register(s.sock, selectors.EVENT_READ, i)
        while not self.stopping:
            for key, _ in selector.select(timeout=0.1):
                now = time.perf_counter()
                stream = self.streams[key.data]
                try:
                    data = stream.sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    selector.unregister(stream.sock)
                    continue
                events = stream.feed(data)
                with self.cond:
                    for name, payload in events:
                        if name == "change":
                            try:
                                revision = json.loads(payload).get("revision")
                            except ValueError:
                                continue
                            if isinstance(revision, int):
                                self.seen.setdefault(key.data, []).append((revision, now))
                    self.cond.notify_all()

    def wait_hello(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(s.hello for s in self.streams):
                return True
            time.sleep(0.01)
        return False

    def arrivals(self, revision):
        """Per stream, when it first saw `revision` or a later one (a server may fold changes)."""
        found = {}
        for index, events in self.seen.items():
            found_at = next((t for r, t in events if r >= revision), None)
            if found_at is not None:
                found[index] = found_at
        return found

    def wait_revision(self, revision, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.arrivals(revision)) < len(self.streams) and time.monotonic() < deadline:
                self.cond.wait(timeout=0.05)
            return self.arrivals(revision)

    def stop(self):
        self.stopping = True
        self.join(timeout=5)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--bin", default=str(ROOT / ".build-release/release/drilldown"), help="the drilldown binary to measure")
    ap.add_argument("--only", default=",".join(SECTIONS), help=f"sections to run, comma-separated: {','.join(SECTIONS)}")
    ap.add_argument("--pg-url", help="the PostgreSQL server of the postgres section (default $DRILLDOWN_TEST_PG_URL)")
    ap.add_argument("--history", choices=["on", "off", "both"], default="on",
                    help="editable servers keep the audit history (on, the default) or are started with --no-history (off); "
                         "both: the postgres section measures on, off, on, off on one table")
    ap.add_argument("--quick", action="store_true", help="tiny inputs and few requests: a smoke run in seconds")
    ap.add_argument("--requests", type=int, default=200, help="most timed renames per series (default 200)")
    ap.add_argument("--budget", type=float, default=60, help="seconds a rename series may take (at least 3 samples)")
    ap.add_argument("--groups", type=int, default=1000, help="groups in the main file (default 1000: 3M nodes)")
    ap.add_argument("--group-rows", type=int, default=1000, help="rows per group (default 1000)")
    ap.add_argument("--big-nodes", type=int, default=10_000_000, help="nodes of the big variant (default 10M)")
    ap.add_argument("--no-big", action="store_true", help="skip the 10M-node variant (open and core use the main file)")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--duration", type=float, default=20, help="seconds the concurrent clients keep sending")
    ap.add_argument("--streams", type=int, default=100, help="open /events streams")
    ap.add_argument("--event-changes", type=int, default=50, help="most changes timed on the event streams")
    ap.add_argument("--events-sqlite", action="store_true", help="also measure the event streams on the tree table")
    ap.add_argument("--memory-edits", type=int, default=20, help="renames before reading an editable server's RSS")
    ap.add_argument("--open-runs", type=int, default=3)
    ap.add_argument("--core-edits", type=int, default=10000, help="passed to drilldown bench --edits")
    ap.add_argument("--core-samples", type=int, default=1000, help="passed to drilldown bench --samples")
    ap.add_argument("--core-cpu-clock", action="store_true",
                    help="time core changes by the thread's CPU clock (drilldown bench --cpu-clock): leaves out "
                         "time a busy machine gives other processes; the target is judged on the wall clock")
    ap.add_argument("--music", default=str(ROOT / "Examples/Music/music.sqlite"),
                    help="the relational database of the music section (default Examples/Music/music.sqlite)")
    ap.add_argument("--music-schema", help="its schema (default: the one beside it, then any *.yaml there with levels:)")
    ap.add_argument("--data", help="folder for generated inputs, kept and reused (default: a temporary folder)")
    ap.add_argument("--start-timeout", type=float, default=600, help="seconds a server may take to print its URL")
    ap.add_argument("--request-timeout", type=float, default=300, help="seconds one request may take (default 300: a 10M-node rename took 89 s before issue 10)")
    ap.add_argument("--timeout", type=float, default=5400, help="seconds the whole run may take")
    ap.add_argument("--json-out", help="also write every sample to this JSON file")
    a = ap.parse_args()
    if a.quick:
        a.requests, a.budget, a.duration = min(a.requests, 10), min(a.budget, 5), min(a.duration, 2)
        a.streams, a.event_changes, a.memory_edits = min(a.streams, 20), min(a.event_changes, 3), min(a.memory_edits, 3)
        a.open_runs, a.core_edits, a.core_samples = 1, min(a.core_edits, 100), min(a.core_samples, 50)
        a.clients = min(a.clients, 5)
    sections = [s.strip() for s in a.only.split(",") if s.strip()]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        ap.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"no drilldown binary at {a.bin}: build with "
                 "`swift build -c release --scratch-path .build-release --product drilldown` or pass --bin")

    def on_signal(signum, _frame):
        if signum == signal.SIGALRM:
            raise RunTimeout()
        kill_servers()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGALRM, on_signal)
    signal.alarm(int(a.timeout) + 30)  # the sections also bound themselves; this is the backstop
    bench = Bench(a)
    status = 0
    try:
        log(f"bench-edit: {a.bin}; sections {', '.join(sections)}; main file {bench.sizes_name(bench.small)} nodes"
            + ("" if a.no_big else f", big {bench.sizes_name(bench.big)} nodes") + f"; data in {bench.data}")
        status = 1 if bench.run(sections) else 0
    except RunTimeout:
        log(f"\nthe run took longer than --timeout {a.timeout:.0f} s: stopped")
        bench.add("(run)", "", f"TIMED OUT after {a.timeout:.0f} s")
        status = 2
    except KeyboardInterrupt:
        status = 130
    finally:
        signal.alarm(0)
        kill_servers()
        shutil.rmtree(bench.work, ignore_errors=True)
        if not a.data:
            shutil.rmtree(bench.data, ignore_errors=True)
    bench.print_table()
    if a.json_out:
        pathlib.Path(a.json_out).write_text(json.dumps({"binary": a.bin, "rows": bench.rows, "details": bench.details},
                                                       indent=1, default=str))
    sys.exit(status)


if __name__ == "__main__":
    main()
