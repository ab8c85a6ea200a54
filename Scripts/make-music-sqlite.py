#!/usr/bin/env python3
"""Builds Examples/Music/music.sqlite, the music example as a relational database,
from Examples/Music/library.yaml: real tables with foreign keys, NOT NULL columns and a track
column that orders each album's songs. Examples/Music/music.schema.yaml maps it with `levels:`.

    python3 Scripts/make-music-sqlite.py [OUT]     # default: Examples/Music/music.sqlite

Rows at the top level of library.yaml that are not artists (the radio session album) have no
place in the artists table and are left out. The file is written in WAL mode and checkpointed, so
it is one self-contained file in git; re-running it rebuilds the file from scratch.
"""
import os
import sqlite3
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "Examples", "Music", "library.yaml")

SCHEMA = """
CREATE TABLE artists(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    genre TEXT NOT NULL DEFAULT 'Jazz');
CREATE TABLE albums(
    id INTEGER PRIMARY KEY,
    artist_id INTEGER NOT NULL REFERENCES artists(id),
    title TEXT NOT NULL,
    year INTEGER NOT NULL,
    art TEXT);
CREATE INDEX albums_by_artist ON albums(artist_id, year, title);
CREATE TABLE songs(
    id INTEGER PRIMARY KEY,
    album_id INTEGER NOT NULL REFERENCES albums(id),
    name TEXT NOT NULL,
    track INTEGER NOT NULL,
    length INTEGER NOT NULL,
    plays INTEGER NOT NULL DEFAULT 0);
CREATE INDEX songs_by_album ON songs(album_id, track);
"""


def build(out):
    with open(SOURCE, encoding="utf-8") as f:
        library = yaml.safe_load(f)
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
    db = sqlite3.connect(out)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(SCHEMA)
    with db:
        for artist in library["Rows"]:
            if "albums" not in artist:
                continue
            artist_id = db.execute("INSERT INTO artists(name, genre) VALUES (?, ?)", (artist["name"], artist.get("genre", "Jazz"))).lastrowid
            for album in artist["albums"]:
                album_id = db.execute(
                    "INSERT INTO albums(artist_id, title, year, art) VALUES (?, ?, ?, ?)",
                    (artist_id, album["title"], album["year"], album.get("art"))).lastrowid
                for song in album.get("songs", []):
                    db.execute(
                        "INSERT INTO songs(album_id, name, track, length) VALUES (?, ?, ?, ?)",
                        (album_id, song["name"], song["track"], song["length"]))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    build(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Examples", "Music", "music.sqlite"))
