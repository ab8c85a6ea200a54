#!/usr/bin/env python3
"""Measures the web app over loopback: p50/p99 latency of a level page and of an API level request,
on the bundled music library and on a generated 1M-node JSON, and the server's memory (RSS); then,
on `serve --editable`, the latency of one change through HTTP (saved to the file before the answer)
and how long a change takes to reach another open page over server-sent events.

  Scripts/bench-web.py [--requests 2000] [--writes 500] [--only-writes] [--binary .build/release/drilldown]
  Scripts/bench-web.py --accounts [--requests 2000] [--rounds 5]

`--accounts` measures what accounts cost a page: the music library served twice at once, without
`--users` and with `--users` and a signed-in session cookie (the signature checked, the user's access
view and CSRF token made per request), in interleaved rounds; it prints each one's req/s (one
sequential keep-alive client) and the server's CPU time per request (from /proc), medians over the rounds.

Starts `drilldown serve --port 0` on 127.0.0.1 for each data set, sends a bounded number of
sequential keep-alive requests per URL from one Python client (its own overhead is included),
and, when `wrk` is installed, a bounded 5-second `wrk -t1 -c4` run per URL for comparison.
Generated data goes to a temporary folder and is deleted afterwards; nothing is committed.
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
import time

from bench_server import rss_mib, start_server

ROOT = pathlib.Path(__file__).resolve().parent.parent


def default_binary():
    for candidate in [os.environ.get("DRILLDOWN_BIN"), ROOT / ".build/release/drilldown", ROOT / ".build/debug/drilldown"]:
        if candidate and pathlib.Path(candidate).exists():
            return str(candidate)
    sys.exit("no drilldown binary: build with `swift build -c release --product drilldown` or set DRILLDOWN_BIN")


def measure(port, path, n):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    for _ in range(min(200, n)):  # warm-up
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        assert r.status == 200, (path, r.status, body[:200])
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        samples.append(time.perf_counter() - t0)
    conn.close()
    samples.sort()
    pct = lambda p: samples[min(len(samples) - 1, int(p * len(samples)))] * 1000
    return pct(0.50), pct(0.99), len(body)


def wrk(port, path):
    if not shutil.which("wrk"):
        return None
    out = subprocess.run(["wrk", "-t1", "-c4", "-d5s", "--latency", f"http://127.0.0.1:{port}{path}"],
                         capture_output=True, text=True, timeout=60).stdout
    def ms(label):
        m = re.search(rf"^\s*{label}\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        if not m:
            return float("nan")
        v = float(m.group(1))
        return v / 1000 if m.group(2) == "us" else v * 1000 if m.group(2) == "s" else v
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return ms("50%"), ms("99%"), float(rps.group(1)) if rps else float("nan")


def percentiles(samples):
    samples = sorted(samples)
    pct = lambda p: samples[min(len(samples) - 1, int(p * len(samples)))] * 1000
    return pct(0.50), pct(0.99)


def measure_writes(binary, tmp, n):
    """Changes through the JSON API on copies of the Sounds example and of the bundled library."""
    sys.path.insert(0, str(ROOT / "e2e" / "web"))
    from webclient import Events, Session
    sounds = tmp / "sounds"
    sounds.mkdir()
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(ROOT / "Examples/Sounds" / name, sounds / name)
    cases = [
        ("Sounds (plist)", [str(sounds / "sounds.plist"), "--schema", str(sounds / "schema.yaml"), "--editable"],
         "/api/edit/run/0.3", lambda i: {"action": "play"}),
        ("music (YAML)", ["--editable", "--data-dir", str(tmp / "music")],
         "/api/edit/rename/0.0", lambda i: {"title": f"Album {i}"}),
    ]
    print(f"\n{'data':<16} {'change':<24} {'p50 ms':>8} {'p99 ms':>8}  {'SSE p50':>8} {'SSE p99':>8}   (n={n})")
    for name, serve_args, path, fields in cases:
        proc, port, _ = start_server(binary, serve_args)
        try:
            url = f"http://127.0.0.1:{port}/"
            session = Session(url)
            for i in range(min(50, n)):
                session.post(path, fields(i))
            samples = []
            for i in range(n):
                t0 = time.perf_counter()
                status, _ = session.post(path, fields(i))
                samples.append(time.perf_counter() - t0)
                assert status == 200
            events = Events(url)
            shown = []
            for i in range(min(n, 200)):
                t0 = time.perf_counter()
                session.post(path, fields(i))
                events.next_event()
                shown.append(time.perf_counter() - t0)
            events.close()
            session.close()
            w50, w99 = percentiles(samples)
            s50, s99 = percentiles(shown)
            print(f"{name:<16} {path:<24} {w50:>8.3f} {w99:>8.3f}  {s50:>8.3f} {s99:>8.3f}")
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_requests(port, path, n, headers):
    """Sends `path` `n` times over one keep-alive connection; returns the seconds it took."""
    conn = http.client.HTTPConnection("127.0.0.1", port)
    begin = time.perf_counter()
    for _ in range(n):
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        r.read()
        assert r.status == 200, (path, r.status)
    took = time.perf_counter() - begin
    conn.close()
    return took


def measure_accounts(binary, tmp, n, rounds):
    """Without and with accounts, interleaved: req/s and server CPU per request of the level page."""
    users = tmp / "users.yaml"
    subprocess.run([binary, "user", "add", str(users), "bench", "--role", "viewer"], input="bench-password\n", text=True, check=True,
                   stdout=subprocess.DEVNULL)
    plain = start_server(binary, [])
    accounts = start_server(binary, ["--users", str(users)])
    try:
        conn = http.client.HTTPConnection("127.0.0.1", accounts[1])
        conn.request("POST", "/signin", body="user=bench&password=bench-password&back=/",
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        r = conn.getresponse()
        r.read()
        assert r.status == 303, r.status
        cookie = re.match(r"(dd_auth=[^;]+)", r.getheader("Set-Cookie")).group(1)
        conn.close()
        servers = [("without --users", plain, {}), ("--users, signed in", accounts, {"Cookie": cookie})]
        print(f"binary: {binary}; {rounds} interleaved rounds of {n} requests each")
        print(f"{'url':<36} {'server':<20} {'req/s':>8} {'CPU µs/req':>11}")
        for path in ["/l/0.0", "/api/level/0.0?offset=0&limit=100"]:
            for _, (proc, port, _), headers in servers:
                timed_requests(port, path, min(200, n), headers)   # warm-up
            results = {label: [] for label, _, _ in servers}
            for _ in range(rounds):
                for label, (proc, port, _), headers in servers:
                    cpu = cpu_seconds(proc.pid)
                    took = timed_requests(port, path, n, headers)
                    results[label].append((n / took, (cpu_seconds(proc.pid) - cpu) / n * 1e6))
            medians = {}
            for label, samples in results.items():
                rate = sorted(x[0] for x in samples)[len(samples) // 2]
                cpu = sorted(x[1] for x in samples)[len(samples) // 2]
                medians[label] = (rate, cpu)
                print(f"{path:<36} {label:<20} {rate:>8.0f} {cpu:>11.1f}")
            (r0, c0), (r1, c1) = medians.values()
            print(f"{path:<36} {'accounts cost':<20} {(r0 - r1) / r0 * 100:>7.1f}% {(c1 - c0) / c0 * 100:>10.1f}%")
    finally:
        for proc, _, _ in (plain, accounts):
            proc.terminate()
            proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=2000, help="sequential requests per URL (bounded)")
    ap.add_argument("--binary", default=None)
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--writes", type=int, default=500, help="sequential changes per editable data set (bounded)")
    ap.add_argument("--only-writes", action="store_true", help="skip the read measurements")
    ap.add_argument("--accounts", action="store_true", help="only the cost of accounts: the level page with and without --users")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds of --accounts")
    args = ap.parse_args()
    binary = args.binary or default_binary()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-web-"))
    try:
        if args.accounts:
            measure_accounts(binary, tmp, args.requests, args.rounds)
            return
        if args.only_writes:
            print(f"binary: {binary}")
            measure_writes(binary, tmp, args.writes)
            return
        big = tmp / "big.json"
        subprocess.run([sys.executable, str(ROOT / "Scripts/gen-json.py"), "--nodes", str(args.nodes), str(big)], check=True,
                       stdout=subprocess.DEVNULL)
        datasets = [
            ("music", [], ["/l/0.0", "/api/level/0.0?offset=0&limit=100"]),
            (f"{args.nodes // 1000}k-node JSON", [str(big)],
             ["/", "/api/level?offset=0&limit=100", "/l/?offset=50000", "/api/level?offset=50000&limit=100", "/l/5000"]),
        ]
        print(f"binary: {binary}")
        print(f"{'data':<16} {'url':<40} {'p50 ms':>8} {'p99 ms':>8} {'bytes':>8}  {'wrk p50':>8} {'wrk p99':>8} {'wrk req/s':>10}")
        for name, serve_args, urls in datasets:
            proc, port, startup = start_server(binary, serve_args)
            try:
                rss_start = rss_mib(proc.pid)
                for url in urls:
                    url = url.replace("/l/?", "/?")
                    p50, p99, size = measure(port, url, args.requests)
                    w = wrk(port, url)
                    wtxt = f"{w[0]:>8.3f} {w[1]:>8.3f} {w[2]:>10.0f}" if w else f"{'-':>8} {'-':>8} {'-':>10}"
                    print(f"{name:<16} {url:<40} {p50:>8.3f} {p99:>8.3f} {size:>8}  {wtxt}")
                print(f"{name:<16} startup {startup:.2f} s, RSS after load {rss_start:.1f} MiB, after the runs {rss_mib(proc.pid):.1f} MiB")
            finally:
                proc.terminate()
                proc.wait(timeout=10)
        measure_writes(binary, tmp, args.writes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
