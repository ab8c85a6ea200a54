#!/usr/bin/env python3
"""Generates large JSON documents for benchmarks and tests (never committed).

  gen-json.py --nodes 1000000 OUT.json           records: an array of objects (~32 bytes/node)
  gen-json.py --wide 100000 OUT.json             one level with N rows (outline convention)
  gen-json.py --songs 1000000 OUT.json           one level of N songs with a genre (8 values), a
                                                 length in seconds and a year, for filters and facets
"""
import argparse
import json
import random


def records(n_nodes, out):
    rng = random.Random(1)
    cities = ["Lyon", "Osaka", "Sydney", "Paris", "Buffalo", "Tokyo", "Austin", "Porto"]
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]
    per_record = 14  # nodes per record below
    count = max(1, (n_nodes - 1) // per_record)
    with open(out, "w") as f:
        f.write("[")
        for i in range(count):
            if i:
                f.write(",")
            rec = {
                "identifier": i,
                "displayName": f"User number {i} {rng.choice(words)}",
                "isActive": i % 3 == 0,
                "lastScore": round(rng.random() * 100, 4),
                "description": None if i % 5 else " ".join(rng.choice(words) for _ in range(8)),
                "tags": [rng.choice(words), rng.choice(words), rng.choice(words)],
                "address": {"cityName": rng.choice(cities), "postalCode": f"{rng.randrange(10000, 99999)}-{i % 977}",
                            "street": f"{rng.randrange(1, 500)} {rng.choice(words).title()} Street"},
            }
            f.write(json.dumps(rec, indent=2))
        f.write("]\n")
    return 1 + count * per_record


def wide(n_rows, out):
    rows = [{"Title": f"Row {i}", "n": i} for i in range(n_rows)]
    with open(out, "w") as f:
        json.dump({"Title": "Wide", "Rows": rows}, f, separators=(",", ":"))
    return n_rows


def songs(n_rows, out):
    rng = random.Random(33)
    genres = ["Rock", "Jazz", "Metal", "Blues", "Soul", "Funk", "Folk", "Pop"]
    rows = [{"name": f"Song {i}", "genre": rng.choice(genres), "length": rng.randrange(90, 900), "year": rng.randrange(1950, 2025)}
            for i in range(n_rows)]
    with open(out, "w") as f:
        json.dump({"Title": "Songs", "Rows": rows}, f, separators=(",", ":"))
    return n_rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int)
    ap.add_argument("--wide", type=int)
    ap.add_argument("--songs", type=int)
    a = ap.parse_args()
    if a.songs:
        songs(a.songs, a.out)
    elif a.wide:
        wide(a.wide, a.out)
    else:
        records(a.nodes or 1_000_000, a.out)


if __name__ == "__main__":
    main()
