#!/usr/bin/env python3
"""Writes Examples/Music/music.postgres.sql, the relational music example (Examples/Music/music.sqlite)
as a PostgreSQL script: the same three tables (artists, albums, songs) with their keys, foreign keys,
NOT NULL columns and indexes, and the same rows. Load it with psql, then map it with the same schema:

    psql postgres://dd@127.0.0.1:5432/music -f Examples/Music/music.postgres.sql
    drilldown serve postgres://dd@127.0.0.1:5432/music --schema Examples/Music/music.schema.yaml --editable

    python3 Scripts/make-music-postgres.py [OUT]   # default: Examples/Music/music.postgres.sql
"""
import os
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "Examples", "Music", "music.sqlite")
TABLES = {
    "artists": ("id bigserial PRIMARY KEY, name text NOT NULL, genre text NOT NULL DEFAULT 'Jazz'", "id, name, genre"),
    "albums": ("id bigserial PRIMARY KEY, artist_id bigint NOT NULL REFERENCES artists(id), title text NOT NULL, "
               "year integer NOT NULL, art text", "id, artist_id, title, year, art"),
    "songs": ("id bigserial PRIMARY KEY, album_id bigint NOT NULL REFERENCES albums(id), name text NOT NULL, "
              "track integer NOT NULL, length integer NOT NULL, plays integer NOT NULL DEFAULT 0",
              "id, album_id, name, track, length, plays"),
}


def literal(value):
    if value is None:
        return "NULL"
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Examples", "Music", "music.postgres.sql")
    db = sqlite3.connect(SOURCE)
    lines = ["-- The relational music example for PostgreSQL (written by Scripts/make-music-postgres.py from music.sqlite).",
             "BEGIN;", "DROP TABLE IF EXISTS songs, albums, artists;"]
    for table, (columns, names) in TABLES.items():
        lines.append(f"CREATE TABLE {table} ({columns});")
        for row in db.execute(f"SELECT {names} FROM {table} ORDER BY id"):
            lines.append(f"INSERT INTO {table} ({names}) VALUES ({', '.join(literal(v) for v in row)});")
        lines.append(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}));")
    lines += ["CREATE INDEX albums_by_artist ON albums (artist_id, year, title);",
              "CREATE INDEX songs_by_album ON songs (album_id, track);", "COMMIT;"]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
