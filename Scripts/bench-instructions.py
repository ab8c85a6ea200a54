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
With `--pages`, it measures the server instead: each binary serves a 1M-node JSON
(Scripts/gen-json.py) under callgrind with instrumentation off until the server is warm, then
counts the user-space instructions of `--requests` requests for the static file (the peer), of
as many first views of distinct 100-row level pages (`/?offset=N`, each a page-cache miss) and of
the same pages again (cached); per request, with the page/static ratio. The kernel's share of a
request (the socket writes, the scheduler) is not counted: CPU time per request, which includes
it, is what `bench-concurrency.py --only uncached` prints.
A benchmark, not a test: the exit status is 0 unless a command failed.
"""
import argparse
import glob
import http.client
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

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
    ap.add_argument("--pages", action="store_true", help="measure the server's level pages against its static file")
    ap.add_argument("--requests", type=int, default=200, help="requests per measure with --pages")
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
        if a.pages:
            measure_pages(binaries, data, a.requests)
        else:
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


def measure_pages(binaries, data, requests):
    big = data / "big.json"
    if not big.exists():
        subprocess.run([sys.executable, ROOT / "Scripts/gen-json.py", "--nodes", "1000000", big], check=True,
                       stdout=subprocess.DEVNULL)
    print(f"user-space instructions per request, {requests} requests each, 1M-node JSON")
    print(f"{'binary':<8} {'static':>10} {'first view':>11} {'cached':>10} {'first/static':>13}")
    for k, binary in enumerate(binaries):
        static, first, cached = server_instructions(binary, big, data, requests, port=free_port())
        print(f"{k:<8} {static / 1e3:>9.0f}k {first / 1e3:>10.0f}k {cached / 1e3:>9.0f}k {first / static:>13.2f}", flush=True)


def free_port():
    """A TCP port nothing listens on now (other servers may run on this machine)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_instructions(binary, data_file, cwd, requests, port):
    """Instructions per request of `binary serve data_file` for the static file, first views and cached pages."""
    out = pathlib.Path(cwd) / f"server-{port}"
    out.mkdir(exist_ok=True)
    server = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                               f"--callgrind-out-file={out}/cg.%p", binary, "serve", str(data_file), "--port", str(port)],
                              cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        conn = None
        for _ in range(1200):  # loading under valgrind takes a while
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                break
            except OSError:
                conn = None
                time.sleep(0.5)
        if conn is None:
            sys.exit(f"{binary} did not start serving")

        def get(path):
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            assert response.status == 200, (path, response.status)

        get("/api/search?q=zz&limit=1")  # waits for the search index, built once at start
        for n in range(50):
            get("/static/app.css")
            get(f"/?offset={900_000 + n}")

        def per_request(paths):
            control = ["callgrind_control", str(server.pid)]
            subprocess.run([*control[:1], "-z", *control[1:]], capture_output=True, check=True)
            subprocess.run([*control[:1], "-i", "on", *control[1:]], capture_output=True, check=True)
            for path in paths:
                get(path)
            subprocess.run([*control[:1], "-d", *control[1:]], capture_output=True, check=True)
            subprocess.run([*control[:1], "-i", "off", *control[1:]], capture_output=True, check=True)
            total = 0
            for dump in glob.glob(f"{out}/cg.*"):
                with open(dump) as f:
                    for line in f:
                        if line.startswith("summary:"):
                            total += int(line.split()[1])
                            break
                os.unlink(dump)
            return total / len(paths)

        static = per_request(["/static/app.css"] * requests)
        pages = [f"/?offset={1000 + n}" for n in range(requests)]
        first = per_request(pages)
        cached = per_request(pages)
        return static, first, cached
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
