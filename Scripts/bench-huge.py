#!/usr/bin/env python3
"""Benchmark (not a test): time to first screen and peak memory of a huge JSON file in the web app
and the terminal UI, against the file's size.

  Scripts/bench-huge.py FILE [--bin PATH] [--runs N] [-- EXTRA drilldown ARGS]

Web: starts `drilldown serve FILE --port 0` and times from the start of the process until `GET /`
has answered 200 with the first row's title in it. Terminal: starts `drilldown browse FILE` in a
detached tmux window and times until the first row's title is on the screen (the screen polled every
10 ms). Peak RSS is the process's VmHWM (mapped file pages it touched count) read after the first
screen. The file is read once beforehand so both start from the page cache. Prints one line per
run and front end; the machine's load average first.
"""
import argparse
import os
import pathlib
import re
import shlex
import subprocess
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "e2e" / "terminal"))
from tui_driver import Tmux  # noqa: E402


def peak_rss(pid):
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except FileNotFoundError:
        pass
    return 0


def first_title(path):
    """The first row's title as the first screen shows it: the first "Title" value in the file."""
    with open(path, "rb") as f:
        head = f.read(1 << 16).decode("utf-8", "replace")
    match = re.search(r'"[Tt]itle"\s*:\s*"([^"]*)"', head)
    return match.group(1) if match else "Root"


def web(binary, path, extra, title, timeout):
    start = time.monotonic()
    proc = subprocess.Popen([binary, "serve", str(path), "--port", "0", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://[^/\s]+/", line)
        if not match:
            return None, 0, f"no URL: {line!r} {proc.stderr.read()[:300]}"
        while time.monotonic() - start < timeout:
            try:
                with urllib.request.urlopen(match.group(0), timeout=timeout) as response:
                    body = response.read().decode()
                    if response.status == 200 and title in body:
                        return time.monotonic() - start, peak_rss(proc.pid), ""
            except OSError:
                pass
            time.sleep(0.01)
        return None, peak_rss(proc.pid), "timed out"
    finally:
        proc.terminate()
        proc.wait()


def tui(binary, path, extra, title, timeout):
    command = " ".join(shlex.quote(str(a)) for a in ["exec", binary, "browse", path, *extra])
    start = time.monotonic()
    t = Tmux(command, width=120, height=40)
    try:
        deadline = start + timeout
        while time.monotonic() < deadline:
            screen = t.screen()
            if title in screen:
                elapsed = time.monotonic() - start
                return elapsed, peak_rss(t.pane_pid()), ""
            if "drilldown:" in screen:
                return None, 0, screen.strip()[:300]
            time.sleep(0.01)
        return None, peak_rss(t.pane_pid()), "timed out"
    finally:
        t.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--bin", default=os.environ.get("DRILLDOWN_BIN", str(ROOT / ".build-release" / "release" / "drilldown")))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("extra", nargs="*", help="more drilldown arguments (after --)")
    a = ap.parse_args()
    size = os.path.getsize(a.file)
    title = first_title(a.file)
    subprocess.run(["cat", a.file], stdout=subprocess.DEVNULL, check=True)  # into the page cache
    print(f"load average: {' '.join(open('/proc/loadavg').read().split()[:3])}  ({os.cpu_count()} cores)")
    print(f"== {a.file} ({size / 1e9:.2f} GB), {a.bin} {' '.join(a.extra)}")
    for name, measure in (("web", web), ("terminal", tui)):
        for _ in range(a.runs):
            seconds, rss, error = measure(a.bin, a.file, a.extra, title, a.timeout)
            if seconds is None:
                print(f"{name}: no first screen ({error}); peak RSS {rss / 1e6:.0f} MB")
            else:
                print(f"{name}: first screen in {seconds:.2f} s, peak RSS {rss / 1e6:.0f} MB = {rss / size:.2f} x the file")


if __name__ == "__main__":
    main()
