#!/usr/bin/env python3
"""Before/after by instruction counts: the same commands under `valgrind --tool=callgrind` for two
(or more) `drilldown` binaries, one table of counts and ratios. Instructions, unlike seconds, do not
move with the machine's load, so two builds compare on a busy machine.

  Scripts/bench-instructions.py BEFORE_BIN AFTER_BIN [--nodes 300000] [--data DIR]

Build each binary with `swift build -c release --product drilldown --scratch-path .build-release`
(the older one in a worktree of its commit). Inputs are generated into --data (a temporary folder,
deleted afterwards, unless given) and never committed:
  the outline JSON of about --nodes nodes (Scripts/gen-outline.py), the same as YAML, XML and binary
  property lists (written by the first binary's `convert`), and a copy of the bundled music library.
Commands measured (each binary, the same arguments), first the start-up alone (`ls` of the smallest
example), which every other row includes:
  stats of each format (the load), `ls` of a level of the JSON, `show` of one node, `set` of one
  title in the music YAML (open, lock, one step through the model, write; no schema, which
  older binaries may not read), `ls` of the relational
  music database (Examples/Music/music.sqlite and its mapping) and `convert` of the JSON into an
  SQLite tree table.
A benchmark, not a test: the exit status is 0 unless a command failed.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def instructions(binary, args, cwd):
    """The total instructions (all threads) that callgrind counts for one run of `binary args`."""
    out = pathlib.Path(cwd) / "callgrind.out"
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, *args],
                         cwd=cwd, capture_output=True, text=True, timeout=1800)
    if run.returncode != 0:
        sys.exit(f"{binary} {' '.join(args)} failed ({run.returncode}):\n{run.stderr[-2000:]}")
    found = re.search(r"Collected : (\d+)", run.stderr)
    out.unlink(missing_ok=True)
    if not found:
        sys.exit(f"no instruction count in callgrind's output:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--nodes", type=int, default=300_000)
    ap.add_argument("--data")
    a = ap.parse_args()
    if shutil.which("valgrind") is None:
        subprocess.run(["apt-get", "install", "-y", "-qq", "valgrind"], check=True)
    data = pathlib.Path(a.data or tempfile.mkdtemp(prefix="bench-instructions-"))
    data.mkdir(parents=True, exist_ok=True)
    # valgrind 3.19 cannot read the toolchain's DWARF 5: measure copies without debug info (the
    # same code, so the same instructions).
    binaries = []
    for k, b in enumerate(a.binaries):
        copy = data / f"drilldown-{k}"
        subprocess.run(["strip", "--strip-debug", "-o", copy, b], check=True)
        binaries.append(str(copy))
    print("binaries: " + ", ".join(f"{k}: {b}" for k, b in enumerate(a.binaries)))
    try:
        measure(binaries, data, a.nodes)
    finally:
        if not a.data:
            shutil.rmtree(data, ignore_errors=True)


def measure(binaries, data, nodes):
    json_file = data / "outline.json"
    if not json_file.exists():
        subprocess.run([sys.executable, ROOT / "Scripts/gen-outline.py", json_file, "--nodes", str(nodes)], check=True)
    first = binaries[0]
    for ext, extra in (("yaml", []), ("plist", []), ("bin.plist", ["--to", "bplist"])):
        target = data / f"outline.{ext}"
        if not target.exists():
            subprocess.run([first, "convert", json_file, target, *extra], check=True, capture_output=True)
    music = ROOT / "Examples/Music"
    commands = [
        ("start-up: ls of Examples/Data.plist", ["ls", ROOT / "Examples/Data.plist"]),
        ("stats, JSON", ["stats", json_file]),
        ("stats, YAML", ["stats", data / "outline.yaml"]),
        ("stats, XML plist", ["stats", data / "outline.plist"]),
        ("stats, binary plist", ["stats", data / "outline.bin.plist"]),
        ("ls of a level, JSON", ["ls", json_file, "0"]),
        ("show of one node, JSON", ["show", json_file, "0.5"]),
        ("set a title, music YAML", None),
        ("ls, relational SQLite", ["ls", music / "music.sqlite", "--schema", music / "music.schema.yaml", "0"]),
        ("convert JSON to an SQLite tree table", None),
    ]
    width = max(len(name) for name, _ in commands)
    print(f"{'command':<{width}}  " + "  ".join(f"{'binary ' + str(k):>14}" for k in range(len(binaries))) + "   last/first")
    for name, args in commands:
        counts = []
        for k, binary in enumerate(binaries):
            if name.startswith("set"):
                copy = data / f"library-{k}.yaml"
                shutil.copy(music / "library.yaml", copy)
                args = ["set", copy, "0", "--title", "Renamed"]
            if name.startswith("convert"):
                target = data / f"tree-{k}.sqlite"
                target.unlink(missing_ok=True)
                args = ["convert", json_file, target]
            counts.append(instructions(binary, [str(x) for x in args], data))
        ratio = counts[-1] / counts[0]
        print(f"{name:<{width}}  " + "  ".join(f"{c / 1e6:>13.1f}M" for c in counts) + f"   {ratio:.3f}", flush=True)


if __name__ == "__main__":
    main()
