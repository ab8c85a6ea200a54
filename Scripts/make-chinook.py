#!/usr/bin/env python3
"""Writes a Chinook-shaped relational music database (275 artists stored by id, not by name; their
albums and songs) and its mapping, for the relational editing and sorting tests and benchmarks.

    Scripts/make-chinook.py DIR          # DIR/chinook.sqlite and DIR/chinook.schema.yaml

The real Chinook sample cannot be fetched here (no network), so the names are drawn from fixed word
lists with a fixed seed: every run writes the same rows. Unlike Examples/Music, the mapping gives no
defaults, so a song's `length` (NOT NULL, CHECK > 0) must be supplied when one is added, and `genre`
is CHECKed against a list.
"""
import os
import random
import sqlite3
import sys

FIRST = ["Miles", "Ella", "Nina", "Chet", "Dizzy", "Billie", "Herbie", "Sonny", "Wayne", "Thelonious", "Art",
         "Charles", "Sarah", "Bill", "Oscar", "Dexter", "Cannonball", "Lee", "Horace", "Stan", "Ornette", "Eric",
         "Zoë", "Ángel", "Émile", "Øystein", "Ian", "Uma", "Quincy", "Yusef", "Kenny", "Freddie", "Ron", "Tony"]
LAST = ["Davis", "Fitzgerald", "Simone", "Baker", "Gillespie", "Holiday", "Hancock", "Rollins", "Shorter",
        "Monk", "Blakey", "Mingus", "Vaughan", "Evans", "Peterson", "Gordon", "Adderley", "Morgan", "Silver",
        "Getz", "Coleman", "Dolphy", "Zawinul", "Ødegaard", "Ibarra", "Umeki", "Jones", "Lateef", "Burrell",
        "Hubbard", "Carter", "Williams", "Álvarez", "Nakamura"]
BANDS = ["The {} Quartet", "The {} Trio", "{} Orchestra", "{} & Friends", "the {} Ensemble"]
WORDS = ["Blue", "Night", "Train", "Spain", "Voyage", "Supreme", "Time", "River", "Moon", "Autumn", "Song",
         "Dance", "Dream", "City", "Rain", "Light", "Fire", "Road", "Sky", "Waltz"]
GENRES = ["Rock", "Jazz", "Metal", "Blues"]

SCHEMA = """\
# The Chinook-shaped music database written by Scripts/make-chinook.py: 275 artists stored by id.
title: Chinook
levels:
  - { table: artists, title: name, key: id, kind: artist }
  - { table: albums, title: title, key: id, parent: artist_id, order: "year, title", kind: album }
  - { table: songs, title: name, key: id, parent: album_id, order: track, kind: song }
kinds:
  artist:
    section: initial
    index: true
  album:
    subtitle: "{year}"
  song:
    subtitle: "{length|duration}"
    select: detail
    formats:
      length: duration
"""


def artist_names(rng, count):
    names, seen = [], set()
    while len(names) < count:
        person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        name = rng.choice(BANDS).format(rng.choice(LAST)) if rng.random() < 0.2 else person
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-chinook.py DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "chinook.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    rng = random.Random(275)
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE artists(id INTEGER PRIMARY KEY, name TEXT NOT NULL, genre TEXT);
        CREATE TABLE albums(id INTEGER PRIMARY KEY, artist_id INTEGER NOT NULL REFERENCES artists(id),
            title TEXT NOT NULL, year INTEGER);
        CREATE TABLE songs(id INTEGER PRIMARY KEY, album_id INTEGER NOT NULL REFERENCES albums(id),
            name TEXT NOT NULL, track INTEGER NOT NULL, length INTEGER NOT NULL CHECK (length > 0),
            composer TEXT, genre TEXT CHECK (genre IN ('Rock', 'Jazz', 'Metal', 'Blues')),
            plays INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX albums_by_artist ON albums(artist_id);
        CREATE INDEX songs_by_album ON songs(album_id, track);
    """)
    album_id = song_id = 0
    for artist_id, name in enumerate(artist_names(rng, 275), start=1):
        db.execute("INSERT INTO artists VALUES (?, ?, ?)", (artist_id, name, rng.choice(GENRES)))
        for _ in range(rng.randint(1, 3)):
            album_id += 1
            title = f"{rng.choice(WORDS)} {rng.choice(WORDS)}"
            db.execute("INSERT INTO albums VALUES (?, ?, ?, ?)", (album_id, artist_id, title, rng.randint(1955, 2015)))
            for track in range(1, rng.randint(3, 9)):
                song_id += 1
                composer = f"{rng.choice(FIRST)} {rng.choice(LAST)}" if rng.random() < 0.7 else None
                db.execute("INSERT INTO songs VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
                           (song_id, album_id, f"{rng.choice(WORDS)} {rng.choice(WORDS)}", track,
                            rng.randint(90, 720), composer, rng.choice(GENRES)))
    db.commit()
    db.close()
    with open(os.path.join(out, "chinook.schema.yaml"), "w") as f:
        f.write(SCHEMA)
    print(path)


if __name__ == "__main__":
    main()
