#!/usr/bin/env python3
"""Load test of the web server under a slow-client attack: a RELEASE `drilldown serve` on a generated
1M-node JSON, 200 half-sent connections held open the whole time (each sent part of its headers and
keeps trickling one header line every few seconds; any the server drops are opened again at once),
and meanwhile `wrk -t2 -c64 -d60s` on a level page, then on the JSON API.

  Scripts/bench-load.py [--binary .build-release/release/drilldown] [--duration 60] [--held 200]

Prints, per URL: requests/s, p50/p90/p99 latency, wrk's socket errors (connect, read, write,
timeout) and non-2xx/3xx answers; how many held connections the server dropped (re-opened); and
the server's RSS before and after (growth must stay within 10 %). Exits 1 when any request failed
or RSS grew more than 10 %. A benchmark, not part of Scripts/test.sh; installs wrk with apt-get
when missing. Build first:  swift build -c release --product drilldown --scratch-path .build-release
"""
import argparse
import json
import os
import pathlib
import re
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from bench_server import rss_mib, start_server

ROOT = pathlib.Path(__file__).resolve().parent.parent

# wrk's Lua hook: prints one JSON line with the figures this script reports.
WRK_SCRIPT = r"""
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\nRESULT {"requests": %d, "duration_us": %d, "bytes": %d, "connect": %d, "read": %d, "write": %d, ' ..
    '"status": %d, "timeout": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d, "mean_us": %.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
"""


def default_binary():
    for candidate in [os.environ.get("DRILLDOWN_BIN"), ROOT / ".build-release/release/drilldown", ROOT / ".build/release/drilldown"]:
        if candidate and pathlib.Path(candidate).exists():
            return str(candidate)
    sys.exit("no release drilldown binary: build with "
             "`swift build -c release --product drilldown --scratch-path .build-release` or pass --binary")


def ensure_wrk():
    if shutil.which("wrk"):
        return
    print("installing wrk (apt-get)", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "wrk"], check=True, env=env)


class SlowClients:
    """Holds `count` connections that each sent a partial request and trickle a header line every
    `interval` seconds; a connection the server closes (or that fails) is replaced at once."""

    def __init__(self, port, count, interval=5.0):
        self.port, self.count, self.interval = port, count, interval
        self.selector = selectors.DefaultSelector()
        self.sockets = {}  # socket -> next trickle time
        self.dropped = 0  # connections the server closed (or refused to keep)
        self.opened = 0
        self.min_held = None
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open_one(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", self.port))
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n")
        except OSError:
            s.close()
            self.dropped += 1
            return
        s.setblocking(False)
        self.selector.register(s, selectors.EVENT_READ)
        self.sockets[s] = time.monotonic() + self.interval
        self.opened += 1

    def close_one(self, s):
        self.selector.unregister(s)
        del self.sockets[s]
        s.close()

    def run(self):
        n = 0
        while not self.stopping.is_set():
            while len(self.sockets) < self.count and not self.stopping.is_set():
                self.open_one()
            held = len(self.sockets)
            self.min_held = held if self.min_held is None else min(self.min_held, held)
            for key, _ in self.selector.select(timeout=0.2):
                s = key.fileobj
                try:
                    s.recv(4096)
                except OSError:
                    pass
                # The server answered (e.g. 408) or closed: either way this one was dropped.
                self.dropped += 1
                self.close_one(s)
            now = time.monotonic()
            for s, due in list(self.sockets.items()):
                if due <= now:
                    n += 1
                    try:
                        s.send(f"X-Trickle-{n}: a\r\n".encode())
                        self.sockets[s] = now + self.interval
                    except OSError:
                        self.dropped += 1
                        self.close_one(s)

    def start(self):
        self.thread.start()
        deadline = time.monotonic() + 10
        while len(self.sockets) < self.count and time.monotonic() < deadline:
            time.sleep(0.05)
        return len(self.sockets)

    def stop(self):
        self.stopping.set()
        self.thread.join()
        for s in list(self.sockets):
            self.close_one(s)


def wrk(url, duration, threads, connections, script):
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--timeout", "10s", "-s", script, url],
                         capture_output=True, text=True, check=True).stdout
    match = re.search(r"^RESULT (\{.*\})$", out, re.M)
    if not match:
        sys.exit(f"wrk printed no result:\n{out}")
    result = json.loads(match.group(1))
    result["rps"] = result["requests"] / (result["duration_us"] / 1e6)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=None)
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--duration", type=int, default=60, help="seconds per wrk run")
    ap.add_argument("--held", type=int, default=200, help="half-sent connections held open")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--connections", type=int, default=64)
    a = ap.parse_args()
    binary = a.binary or default_binary()
    ensure_wrk()

    with tempfile.TemporaryDirectory(prefix="drilldown-load-") as tmp:
        data = pathlib.Path(tmp) / "big.json"
        subprocess.run([sys.executable, str(ROOT / "Scripts/gen-json.py"), "--nodes", str(a.nodes), str(data)], check=True)
        script = pathlib.Path(tmp) / "report.lua"
        script.write_text(WRK_SCRIPT)
        proc, port, load_s = start_server(binary, [data])
        base = f"http://127.0.0.1:{port}"
        # The root is an array of ~71 000 records: a level page and an API page half-way down it.
        with urllib.request.urlopen(f"{base}/api/level?limit=1") as response:
            middle = json.load(response)["total"] // 2
        targets = [("level page", f"{base}/?offset={middle}"), ("API level", f"{base}/api/level?offset={middle}&limit=100")]
        try:
            print(f"binary {binary}; {a.nodes} nodes ({data.stat().st_size / 1e6:.0f} MB) loaded and serving in {load_s:.2f} s")
            for _, url in targets:  # warm-up, so RSS "before" includes what a first request allocates
                wrk(url, 3, 1, 4, str(script))
            slow = SlowClients(port, a.held)
            held = slow.start()
            time.sleep(1)
            before = rss_mib(proc.pid)
            print(f"held {held} half-sent connections; server RSS before: {before:.1f} MiB")
            results = []
            for name, url in targets:
                r = wrk(url, a.duration, a.threads, a.connections, str(script))
                results.append((name, url, r))
                errors = r["connect"] + r["read"] + r["write"] + r["timeout"]
                print(f"{name:10} {url.replace(base, '')}: {r['rps']:8.0f} req/s  p50 {r['p50_us'] / 1000:6.2f} ms  "
                      f"p90 {r['p90_us'] / 1000:6.2f} ms  p99 {r['p99_us'] / 1000:6.2f} ms  max {r['max_us'] / 1000:7.1f} ms  "
                      f"requests {r['requests']}  socket errors {errors} (connect {r['connect']}, read {r['read']}, "
                      f"write {r['write']}, timeout {r['timeout']})  non-2xx/3xx {r['status']}", flush=True)
            after = rss_mib(proc.pid)
            min_held = slow.min_held
            slow.stop()
            alive = proc.poll() is None
            growth = (after - before) / before * 100
            print(f"held connections: {held} held, never fewer than {min_held} open, {slow.dropped} dropped by the server "
                  f"and re-opened ({slow.opened} opened in all)")
            print(f"server RSS before {before:.1f} MiB, after {after:.1f} MiB: {growth:+.1f} % (limit +10 %); "
                  f"server {'still running' if alive else 'DIED'}")
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        failed = [name for name, _, r in results if r["connect"] + r["read"] + r["write"] + r["timeout"] + r["status"]]
        if failed or growth > 10 or not alive:
            print(f"FAIL: errors in {failed or 'none'}, RSS growth {growth:+.1f} %, server {'alive' if alive else 'dead'}")
            sys.exit(1)
        print("PASS: no errors, RSS growth within 10 %")


if __name__ == "__main__":
    main()
