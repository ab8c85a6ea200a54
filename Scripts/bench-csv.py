#!/usr/bin/env python3
"""CSV write and read of a 1M-row level, DrillDown beside Python's csv module in the same run.

  Scripts/bench-csv.py [--binary .build/debug/drilldown] [--rows 1000000] [--keep DIR]

Generates `{"rows": [{"title", "n", "s", "r", "note"}, …]}` with ROWS records (5 columns, a note with
commas and quotes in every tenth), then times, each the best of --repeat runs:

- DrillDown write: `drilldown convert big.json big.csv` (read the JSON, write the level as CSV),
  beside `drilldown convert big.json copy.json` (the same read, a JSON write) so the CSV writer's
  own share is the difference; and its peak RSS;
- DrillDown read: `drilldown stats big.csv` (read the CSV into a tree, count it) and its peak RSS;
- Python write: csv.writer over the same records (already in memory, as DrillDown's tree is);
- Python read: csv.reader over DrillDown's file into a list of rows.

Checks that Python reads DrillDown's CSV back equal to the records. A benchmark, not a test.
"""
import argparse
import csv
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def timed(args):
    """Runs a command; returns (seconds, peak RSS in MiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(map(str, args))} failed: {err}")
    return seconds, usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(ROOT / ".build" / "debug" / "drilldown"))
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--keep")
    args = parser.parse_args()
    folder = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="bench-csv-"))
    folder.mkdir(parents=True, exist_ok=True)
    records = [
        {"title": f"Row {i}", "n": i, "s": f"text {i % 97}", "r": round(i / 7, 3),
         "note": f'says "hi", twice, {i}' if i % 10 == 0 else f"plain {i}"}
        for i in range(args.rows)
    ]
    src = folder / "big.json"
    src.write_text(json.dumps({"rows": records}))
    out = folder / "big.csv"
    best = lambda runs: min(runs, key=lambda r: r[0])
    csv_write = best([timed([args.binary, "convert", src, out]) for _ in range(args.repeat)])
    json_write = best([timed([args.binary, "convert", src, folder / "copy.json"]) for _ in range(args.repeat)])
    dd_read = best([timed([args.binary, "stats", out]) for _ in range(args.repeat)])

    def py_write():
        start = time.perf_counter()
        with open(folder / "python.csv", "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["title", "n", "s", "r", "note"])
            for r in records:
                writer.writerow([r["title"], r["n"], r["s"], r["r"], r["note"]])
        return time.perf_counter() - start

    def py_read():
        start = time.perf_counter()
        with open(out, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        return time.perf_counter() - start, rows

    py_w = min(py_write() for _ in range(args.repeat))
    reads = [py_read() for _ in range(args.repeat)]
    py_r = min(t for t, _ in reads)
    rows = reads[0][1]
    assert rows[0] == ["title", "n", "s", "r", "note"], rows[0]
    assert len(rows) == args.rows + 1
    for record, row in zip(records, rows[1:]):
        assert row == [record["title"], str(record["n"]), str(record["s"]), json.dumps(record["r"]), record["note"]], (record, row)
    size = out.stat().st_size / (1 << 20)
    print(f"{args.rows:,} rows × 5 columns; {size:.1f} MiB of CSV; binary {args.binary}")
    print(f"| step | DrillDown | peak RSS | Python csv |")
    print(f"|---|---|---|---|")
    print(f"| write (convert JSON → CSV) | {csv_write[0]:.2f} s | {csv_write[1]:.0f} MiB | {py_w:.2f} s (writer only) |")
    print(f"| same read, JSON write | {json_write[0]:.2f} s | {json_write[1]:.0f} MiB | |")
    print(f"| CSV writer's share (difference) | {csv_write[0] - json_write[0]:+.2f} s | | |")
    print(f"| read (stats big.csv) | {dd_read[0]:.2f} s | {dd_read[1]:.0f} MiB | {py_r:.2f} s (reader into a list) |")
    print("Python's csv reads DrillDown's CSV back equal to the records.")


if __name__ == "__main__":
    main()
