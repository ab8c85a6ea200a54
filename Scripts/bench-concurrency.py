#!/usr/bin/env python3
"""Many users at once (issue 12 item 6): 16 concurrent searches on a 1M-row file, and level pages
against the same server's static file, in one run, each beside its peer.

  Scripts/bench-concurrency.py [--binary .build-release/release/drilldown] [--rounds 20] [--seconds 10]
                               [--clients 16] [--rows 1000] [--groups 1000] [--quick] [--accounts]

1. Generates the 1,001,000-row outline (`gen-outline.py`, 3M nodes) and a 1M-node JSON
   (`gen-json.py`) in a temporary folder (deleted afterwards; nothing is committed).
2. Serves the outline and times `GET /api/search?q=…&limit=100` for 16 distinct queries: each alone,
   one after another (the peer), then all 16 at once from 16 threads, `--rounds` times; prints p50/p99
   per search and checks every total against the one found alone. Then the same 16 at once while a
   17th client asks for level pages, whose p50/p99 shows whether searches starve pages.
3. For the music example and the 1M-node JSON, runs `wrk -t1 -c8 -d SECONDS` on a level page and on
   `/static/app.css` of the same server, one after the other, and prints req/s and their ratio; then
   the server's own CPU time per request (from /proc, over `--cpu-requests` sequential requests), which
   a shared machine's load moves far less than req/s.

With `--accounts`, every server of step 3 runs with `--users` (one viewer, made with `drilldown user
add`) and every request carries that user's signed-in session cookie: run with and without it to see
what the sign-in and session checks cost a page (issue 32: at most 5 % of its req/s).

Every line records `uptime`'s load: the machine may be shared, so compare with the peers.
"""
import argparse
import http.client
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_server import rss_mib, start_server  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
QUERIES = ["row 1", "row 2.", "3.14", "group 9", "row 42", "7.7", "row 100.", "5.55",
           "row 9", "8.", "row 31", "2.99", "row 6.6", "group 12", "4.4", "row 777."]


# Headers every request sends (`--accounts`: the signed-in session's cookie).
HEADERS = {}


def load():
    return open("/proc/loadavg").read().split()[0]


def get(port, path, conn=None):
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t0 = time.perf_counter()
    conn.request("GET", path, headers=HEADERS)
    r = conn.getresponse()
    body = r.read()
    dt = time.perf_counter() - t0
    if own or r.getheader("Connection", "").lower() == "close":
        conn.close()
    return r.status, body, dt


def search_path(q):
    return "/api/search?limit=100&q=" + urllib.parse.quote(q)


def pct(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(p * len(s)))] * 1000


def searches(port, rounds, clients):
    import json
    queries = (QUERIES * ((clients + len(QUERIES) - 1) // len(QUERIES)))[:clients]
    expected = {}
    alone = []
    for _ in range(3):  # the first search builds the index; warm up, then time each alone
        for q in queries:
            status, body, dt = get(port, search_path(q))
            assert status == 200, (q, status, body[:200])
            expected[q] = json.loads(body)["total"]
    for _ in range(max(1, rounds // 4)):
        for q in queries:
            alone.append(get(port, search_path(q))[2])
    together, wrong = [], []
    pages = []

    def burst(with_pages):
        barrier = threading.Barrier(len(queries) + (1 if with_pages else 0))
        done = threading.Event()
        lock = threading.Lock()

        def one(q):
            barrier.wait()
            status, body, dt = get(port, search_path(q))
            total = json.loads(body)["total"] if status == 200 else None
            with lock:
                together.append(dt)
                if total != expected[q]:
                    wrong.append((q, status, total, expected[q]))

        def pager():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            barrier.wait()
            while not done.is_set():
                pages.append(get(port, "/l/5", conn)[2])
            conn.close()

        threads = [threading.Thread(target=one, args=(q,)) for q in queries]
        extra = threading.Thread(target=pager) if with_pages else None
        for t in threads + ([extra] if extra else []):
            t.start()
        for t in threads:
            t.join()
        done.set()
        if extra:
            extra.join()

    for _ in range(rounds):
        burst(False)
    solo = list(together)
    together.clear()
    for _ in range(max(1, rounds // 2)):
        burst(True)
    return alone, solo, together, pages, wrong, expected


def wrk(port, path, seconds):
    headers = [arg for name, value in HEADERS.items() for arg in ("-H", f"{name}: {value}")]
    out = subprocess.run(["wrk", "-t1", "-c8", f"-d{seconds}s", "--latency", *headers, f"http://127.0.0.1:{port}{path}"],
                         capture_output=True, text=True, timeout=seconds + 60).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    if non2xx:
        sys.exit(f"wrk got {non2xx.group(1)} error answers from {path}")
    return float(rps.group(1)) if rps else float("nan")


def cpu_seconds(pid):
    """User + system CPU time process `pid` has used so far (10 ms ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_request(pid, port, path, n):
    """The server's CPU time per request over `n` sequential keep-alive requests, in µs: unlike req/s,
    it hardly moves when other processes load the machine. `path` is one page, or a function of
    the request's number (distinct pages: each rendered for the first time)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    before = cpu_seconds(pid)
    for k in range(n):
        status, _, _ = get(port, path(k) if callable(path) else path, conn)
        assert status == 200, (path, status)
    conn.close()
    return (cpu_seconds(pid) - before) / n * 1e6


def accounts(binary, folder):
    """`serve` arguments turning on accounts with one viewer, and a function that signs them in on a port
    (setting HEADERS' cookie)."""
    users, secret = folder / "users.yaml", folder / "secret"
    subprocess.run([binary, "user", "add", str(users), "bench", "--role", "viewer"], input="bench-password\n", text=True,
                   check=True, capture_output=True)
    secret.write_text("0123456789abcdef0123456789abcdef")

    def sign_in(port):
        HEADERS.pop("Cookie", None)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("POST", "/signin", body="user=bench&password=bench-password&back=/",
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        r = conn.getresponse()
        r.read()
        cookie = re.match(r"(dd_auth=[^;]+)", r.getheader("Set-Cookie") or "")
        if r.status != 303 or not cookie:
            sys.exit(f"signing in failed: {r.status}")
        HEADERS["Cookie"] = cookie.group(1)
        conn.close()
    return ["--users", users, "--secret-file", secret], sign_in


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.environ.get("DRILLDOWN_BIN") or str(ROOT / ".build-release/release/drilldown"))
    ap.add_argument("--rounds", type=int, default=20, help="bursts of concurrent searches")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=int, default=10, help="wrk duration per URL")
    ap.add_argument("--groups", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=1_000_000, help="nodes of the JSON for level pages")
    ap.add_argument("--cpu-requests", type=int, default=3000, help="sequential requests per URL for the CPU measure")
    ap.add_argument("--quick", action="store_true", help="small inputs and short runs (a smoke test)")
    ap.add_argument("--accounts", action="store_true", help="level pages and static file with accounts on, signed in")
    ap.add_argument("--only", default="search,pages", help="search, pages, uncached (first views of distinct "
                    "100-row pages against the static file, CPU per request), comma-separated")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.seconds, args.groups, args.rows, args.nodes, args.cpu_requests = 3, 1, 50, 200, 20_000, 200
    if not pathlib.Path(args.binary).exists():
        sys.exit(f"no binary at {args.binary}: swift build -c release --product drilldown --scratch-path .build-release")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-concurrency-"))
    print(f"binary: {args.binary}; {os.cpu_count()} cores; load at start {load()}")
    try:
        if "search" in args.only:
            outline = tmp / "outline.json"
            subprocess.run([sys.executable, str(ROOT / "Scripts/gen-outline.py"), "--groups", str(args.groups), "--rows",
                            str(args.rows), str(outline)], check=True, stdout=subprocess.DEVNULL)
            proc, port, startup = start_server(args.binary, [outline])
            try:
                alone, together, mixed, pages, wrong, expected = searches(port, args.rounds, args.clients)
                rows = args.groups * (args.rows + 1)
                print(f"\n{rows:,}-row outline (startup {startup:.2f} s, RSS {rss_mib(proc.pid):.0f} MiB); "
                      f"totals {min(expected.values()):,}–{max(expected.values()):,}")
                print(f"{'measure':<52} {'n':>5} {'p50 ms':>8} {'p99 ms':>8}  load")
                print(f"{'one search alone (peer)':<52} {len(alone):>5} {pct(alone, .5):>8.1f} {pct(alone, .99):>8.1f}  {load()}")
                print(f"{f'{args.clients} concurrent searches':<52} {len(together):>5} {pct(together, .5):>8.1f} "
                      f"{pct(together, .99):>8.1f}  {load()}")
                print(f"{f'{args.clients} concurrent searches + a client reading pages':<52} {len(mixed):>5} "
                      f"{pct(mixed, .5):>8.1f} {pct(mixed, .99):>8.1f}")
                if pages:
                    print(f"{'  level pages /l/5 during those searches':<52} {len(pages):>5} {pct(pages, .5):>8.1f} "
                          f"{pct(pages, .99):>8.1f}  {load()}")
                print(f"wrong totals: {len(wrong)}" + (f" {wrong[:3]}" if wrong else ""))
            finally:
                proc.terminate()
                proc.wait(timeout=10)
        if "pages" in args.only:
            if not shutil.which("wrk"):
                sys.exit("wrk is not installed (apt-get install wrk)")
            big = tmp / "big.json"
            subprocess.run([sys.executable, str(ROOT / "Scripts/gen-json.py"), "--nodes", str(args.nodes), str(big)],
                           check=True, stdout=subprocess.DEVNULL)
            print(f"\nwrk -t1 -c8 -d{args.seconds}s, level page then static file of the same server; then the server's CPU "
                  f"per request over {args.cpu_requests} sequential requests each (µs), whose ratio is the req/s ratio of a "
                  "CPU-bound server")
            extra, sign_in = accounts(args.binary, tmp) if args.accounts else ([], None)
            if args.accounts:
                print("with accounts: --users, every request signed in (a session cookie)")
            print(f"{'data':<14} {'level page':<22} {'page req/s':>10} {'static req/s':>12} {'ratio':>6}  "
                  f"{'page µs':>8} {'static µs':>9} {'ratio':>6}  load")
            for name, serve_args, page in [("music", [], "/l/0"), (f"{args.nodes // 1000}k JSON", [big], "/l/?offset=50000"),
                                           (f"{args.nodes // 1000}k JSON", [big], f"/l/{min(5000, args.nodes // 40)}")]:
                page = page.replace("/l/?", "/?")
                proc, port, _ = start_server(args.binary, serve_args + extra)
                try:
                    if sign_in:
                        sign_in(port)
                    for _ in range(200):
                        get(port, page)
                        get(port, "/static/app.css")
                    p = wrk(port, page, args.seconds)
                    s = wrk(port, "/static/app.css", args.seconds)
                    pc = cpu_per_request(proc.pid, port, page, args.cpu_requests)
                    sc = cpu_per_request(proc.pid, port, "/static/app.css", args.cpu_requests)
                    print(f"{name:<14} {page:<22} {p:>10.0f} {s:>12.0f} {p / s:>6.0%}  {pc:>8.0f} {sc:>9.0f} {sc / pc:>6.0%}  {load()}")
                finally:
                    proc.terminate()
                    proc.wait(timeout=10)
        if "uncached" in args.only:
            big = tmp / "big.json"
            if not big.exists():
                subprocess.run([sys.executable, str(ROOT / "Scripts/gen-json.py"), "--nodes", str(args.nodes), str(big)],
                               check=True, stdout=subprocess.DEVNULL)
            proc, port, _ = start_server(args.binary, [big])
            try:
                for _ in range(200):
                    get(port, "/static/app.css")
                # The server builds its search index in the background once started; a search waits
                # for it, so that start-up work is not counted as the pages'.
                get(port, "/api/search?q=zz&limit=1")
                # Each `/?offset=N` is a page never shown before: the page cache misses every time.
                first = cpu_per_request(proc.pid, port, lambda k: f"/?offset={1000 + k}", args.cpu_requests)
                static = cpu_per_request(proc.pid, port, "/static/app.css", args.cpu_requests)
                print(f"\nfirst views of {args.cpu_requests} distinct 100-row pages of the {args.nodes // 1000}k JSON: "
                      f"{first:.0f} µs CPU per request; static file {static:.0f} µs; {first / static:.1f}×  {load()}")
            finally:
                proc.terminate()
                proc.wait(timeout=10)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
