#!/usr/bin/env python3
"""A change's p50/p99 with the audit history on and off (issue 32: the p99 at 1M rows rises by at most
1 ms with the history on), on a mapped database: the music example's three tables (artists, albums,
songs, mapped with Examples/Music/music.schema.yaml) scaled to --rows songs, in SQLite (the default)
or, with `--store postgres`, in a database of their own on a PostgreSQL server (--pg-url, default
$DRILLDOWN_TEST_PG_URL; e.g. `Scripts/pg-cluster.sh`'s throwaway cluster).

    python3 Scripts/bench-history-p99.py --bin A [--bin B] [--rounds 8] [--requests 500] [--rows 1000000] [--out results.json]
    bash -c 'source Scripts/pg-cluster.sh; trap pg_cluster_stop EXIT; python3 Scripts/bench-history-p99.py --store postgres --bin A'

Each `--bin` is a release binary (e.g. main's and a branch's). Every round runs, for each binary, a
series with the history on (the default of `serve --editable`) and one with `--no-history`, in an
order reversed every other round; each series starts a server on the database as it was made (SQLite:
a fresh, fsync'd copy; PostgreSQL: `drilldown_history` dropped, the song's name put back, `songs`
vacuumed and a CHECKPOINT) and times --requests sequential renames of one song through
`POST /api/edit/rename` (one client, one keep-alive connection, a warm-up first;
`Scripts/bench-edit.py`'s `Server`, `Session` and `rename_series`). Prints each series and, per
binary and setting, p50/p90/p99 pooled over all rounds, with the load average at the start and end
of each series (the machine is shared).
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("bench_edit", os.path.join(ROOT, "Scripts", "bench-edit.py"))
be = importlib.util.module_from_spec(spec)
spec.loader.exec_module(be)
spec = importlib.util.spec_from_file_location("make_music_postgres", os.path.join(ROOT, "Scripts", "make-music-postgres.py"))
music_postgres = importlib.util.module_from_spec(spec)
spec.loader.exec_module(music_postgres)
MAPPING = os.path.join(ROOT, "Examples", "Music", "music.schema.yaml")
SONGS_PER_ALBUM, ALBUMS_PER_ARTIST = 100, 10

SCHEMA = """
CREATE TABLE artists(id INTEGER PRIMARY KEY, name TEXT NOT NULL, genre TEXT NOT NULL DEFAULT 'Jazz');
CREATE TABLE albums(id INTEGER PRIMARY KEY, artist_id INTEGER NOT NULL REFERENCES artists(id),
    title TEXT NOT NULL, year INTEGER NOT NULL, art TEXT);
CREATE INDEX albums_by_artist ON albums(artist_id, year, title);
CREATE TABLE songs(id INTEGER PRIMARY KEY, album_id INTEGER NOT NULL REFERENCES albums(id),
    name TEXT NOT NULL, track INTEGER NOT NULL, length INTEGER NOT NULL, plays INTEGER NOT NULL DEFAULT 0);
CREATE INDEX songs_by_album ON songs(album_id, track);
"""


def sizes(rows):
    """(artists, albums) for `rows` songs: 100 songs per album, 10 albums per artist."""
    albums = max(1, rows // SONGS_PER_ALBUM)
    return max(1, albums // ALBUMS_PER_ARTIST), albums


class SQLiteStore:
    """The music tables in a SQLite file (WAL, checkpointed), copied fresh for each series."""

    def __init__(self, folder, rows, original=None):
        self.original = original or os.path.join(folder, "original.sqlite")
        self.work = os.path.join(folder, "music.sqlite")  # music.schema.yaml beside it maps it
        shutil.copyfile(MAPPING, os.path.join(folder, "music.schema.yaml"))
        if not os.path.exists(self.original):
            be.log(f"making {self.original} with {rows} songs")
            self.make(rows)

    def make(self, rows):
        db = sqlite3.connect(self.original)
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(SCHEMA)
        artists, albums = sizes(rows)
        with db:
            db.executemany("INSERT INTO artists(id, name) VALUES (?, ?)", ((a, f"Artist {a:05d}") for a in range(1, artists + 1)))
            db.executemany("INSERT INTO albums(id, artist_id, title, year) VALUES (?, ?, ?, ?)",
                           ((b, (b - 1) // ALBUMS_PER_ARTIST + 1, f"Album {b}", 1950 + b % 70) for b in range(1, albums + 1)))
            db.executemany("INSERT INTO songs(id, album_id, name, track, length) VALUES (?, ?, ?, ?, ?)",
                           ((s, (s - 1) // SONGS_PER_ALBUM + 1, f"Song {s}", (s - 1) % SONGS_PER_ALBUM + 1, 120 + s % 300)
                            for s in range(1, albums * SONGS_PER_ALBUM + 1)))
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()

    def reset(self):
        """A fresh copy of the database; returns what `serve` is given to open it."""
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self.work + suffix):
                os.unlink(self.work + suffix)
        shutil.copyfile(self.original, self.work)
        # Written to disk before the server starts: else the first checkpoint's sync of the database
        # flushes the whole fresh copy (~20 ms at 1M rows), a cost of the benchmark, not of a change.
        fd = os.open(self.work, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
        return [self.work]

    def recorded(self):
        """How many steps `drilldown_history` holds (None without the table)."""
        db = sqlite3.connect(self.work)
        try:
            return db.execute("SELECT count(*) FROM drilldown_history").fetchone()[0]
        except sqlite3.OperationalError:
            return None
        finally:
            db.close()

    def close(self):
        pass


class PostgresStore:
    """The music tables (Scripts/make-music-postgres.py's columns) in a database of their own on the
    server at `url`, filled with `INSERT … SELECT generate_series`; each series starts from the same
    state: no `drilldown_history` (the mapped store's history, created by the first recorded step as
    in a fresh SQLite copy), every song's name as made, `songs` vacuumed, a CHECKPOINT."""

    def __init__(self, url, rows):
        if not url:
            raise SystemExit("--store postgres needs --pg-url or DRILLDOWN_TEST_PG_URL (e.g. source Scripts/pg-cluster.sh)")
        self.server_url = url
        self.name = f"bench_music_{os.getpid()}"
        self.url = re.sub(r"^(postgres(?:ql)?://[^/]*/)[^?]*", lambda m: m.group(1) + self.name, url)
        self.psql(self.server_url, f"DROP DATABASE IF EXISTS {self.name}", f"CREATE DATABASE {self.name}")
        be.log(f"making {self.name} with {rows} songs")
        try:
            self.make(rows)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def psql(url, *statements):
        result = subprocess.run(["psql", url, "-qtAX", "-v", "ON_ERROR_STOP=1", *[x for s in statements for x in ("-c", s)]],
                                capture_output=True, text=True, timeout=3600)
        if result.returncode != 0:
            raise RuntimeError(f"psql: {result.stderr.strip()}")
        return result.stdout.strip()

    def make(self, rows):
        artists, albums = sizes(rows)
        tables = music_postgres.TABLES
        self.psql(self.url, "BEGIN; " + " ".join(f"CREATE TABLE {t} ({columns});" for t, (columns, _) in tables.items()) +
                  f"INSERT INTO artists (id, name) SELECT a, 'Artist ' || lpad(a::text, 5, '0') FROM generate_series(1, {artists}) a;"
                  f"INSERT INTO albums (id, artist_id, title, year) SELECT b, (b - 1) / {ALBUMS_PER_ARTIST} + 1, 'Album ' || b, "
                  f"1950 + b % 70 FROM generate_series(1, {albums}) b;"
                  f"INSERT INTO songs (id, album_id, name, track, length) SELECT s, (s - 1) / {SONGS_PER_ALBUM} + 1, 'Song ' || s, "
                  f"(s - 1) % {SONGS_PER_ALBUM} + 1, 120 + s % 300 FROM generate_series(1, {albums * SONGS_PER_ALBUM}) s;" +
                  "".join(f"SELECT setval(pg_get_serial_sequence('{t}', 'id'), (SELECT MAX(id) FROM {t}));" for t in tables) +
                  "CREATE INDEX albums_by_artist ON albums (artist_id, year, title);"
                  "CREATE INDEX songs_by_album ON songs (album_id, track); COMMIT;",
                  "VACUUM ANALYZE", "CHECKPOINT")

    def reset(self):
        """The database as made (see the class); returns what `serve` is given to open it."""
        self.psql(self.url, "DROP TABLE IF EXISTS drilldown_history",
                  "UPDATE songs SET name = 'Song ' || id WHERE name <> 'Song ' || id", "VACUUM songs", "CHECKPOINT")
        return [self.url, "--schema", MAPPING]

    def recorded(self):
        """How many steps `drilldown_history` holds (None without the table)."""
        if self.psql(self.url, "SELECT to_regclass('drilldown_history') IS NULL") == "t":
            return None
        return int(self.psql(self.url, "SELECT count(*) FROM drilldown_history"))

    def close(self):
        self.psql(self.server_url, f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


def song_path(session):
    """The first song's path: down the first row of each level."""
    path = ""
    for _ in range(3):
        status, body = session.get(f"/api/level/{path}?limit=1" if path else "/api/level?limit=1")
        rows = json.loads(body).get("rows", []) if status == 200 else []
        if not rows:
            raise RuntimeError(f"no rows under {path or 'the top'}")
        path = rows[0]["path"]
    return path


def series(binary, label, history, store, requests):
    target = store.reset()
    load = os.getloadavg()[0]
    server = be.Server(binary, target + ["--editable"] + ([] if history == "on" else ["--no-history"]), 600)
    try:
        session = be.Session(server.port, 300)
        path = song_path(session)
        samples, _ = be.rename_series(session, path, f"{label} {history}", requests, 600)
        session.close()
    finally:
        server.stop()
    return dict(which=label, history=history, path=path, n=len(samples), load_start=load, load_end=os.getloadavg()[0],
                recorded=store.recorded(),
                p50_ms=be.pct(samples, .5) * 1e3, p99_ms=be.pct(samples, .99) * 1e3, samples=samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", action="append", required=True, help="a drilldown binary; twice to compare two")
    parser.add_argument("--label", action="append", help="a name per --bin (default: before, after)")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite", help="where the music tables are")
    parser.add_argument("--db", help="sqlite: the database to copy for each series (made, with --rows songs, when missing)")
    parser.add_argument("--pg-url", default=os.environ.get("DRILLDOWN_TEST_PG_URL", ""),
                        help="postgres: a server's URL (default $DRILLDOWN_TEST_PG_URL); the tables go into a database of their own")
    parser.add_argument("--out", help="write every series, samples included, to this JSON file")
    args = parser.parse_args()
    labels = args.label or (["before", "after"] if len(args.bin) == 2 else [f"binary {i + 1}" for i in range(len(args.bin))])
    folder = tempfile.mkdtemp(prefix="bench-history-")
    results, store = [], None
    try:
        store = SQLiteStore(folder, args.rows, args.db) if args.store == "sqlite" else PostgresStore(args.pg_url, args.rows)
        for r in range(1, args.rounds + 1):
            order = [(b, l, h) for b, l in zip(args.bin, labels) for h in ("on", "off")]
            for binary, label, history in order if r % 2 else order[::-1]:
                row = series(binary, label, history, store, args.requests)
                row["round"] = r
                results.append(row)
                be.log(f"round {r} {label:7} history {history:3}: n {row['n']} p50 {row['p50_ms']:.2f} ms p99 {row['p99_ms']:.2f} ms"
                       f"  load {row['load_start']:.1f}→{row['load_end']:.1f}  history records {row['recorded']}")
                if args.out:
                    with open(args.out, "w") as f:
                        json.dump(results, f)
    finally:
        be.kill_servers()
        if store:
            store.close()
        shutil.rmtree(folder, ignore_errors=True)
    be.log(f"pooled over {args.rounds} rounds × {args.requests} renames:")
    for label in labels:
        pooled = {h: [s for row in results if row["which"] == label and row["history"] == h for s in row["samples"]] for h in ("on", "off")}
        loads = [x for row in results if row["which"] == label for x in (row["load_start"], row["load_end"])]
        text = {h: f"p50 {be.pct(v, .5) * 1e3:.2f}, p90 {be.pct(v, .9) * 1e3:.2f}, p99 {be.pct(v, .99) * 1e3:.2f} ms" for h, v in pooled.items()}
        rise = (be.pct(pooled["on"], .99) - be.pct(pooled["off"], .99)) * 1e3
        be.log(f"  {label}: history on {text['on']}; off {text['off']}; p99 rise {rise:+.2f} ms; load {min(loads):.1f}–{max(loads):.1f}")


if __name__ == "__main__":
    sys.exit(main())
