#!/usr/bin/env python3
"""What accounts cost a cached level page, in instructions (issue 32): serves a 40-row level
(generated, in a temporary folder) under `valgrind --tool=callgrind` with instrumentation off until
it is warm, then counts the user-space instructions of `N` requests of `/` from one keep-alive
client, twice; with `--users`, the server runs with a users file and a shared secret and every
request carries a signed-in `dd_auth` cookie. With `--music`, the page is `/l/0` of the bundled
music library (what `Scripts/bench-accounts.py` requests) and the user a viewer.

  Scripts/bench-accounts-instructions.py BINARY [--users] [--editable] [--music]     (N=200 by default)

Instructions do not move with the machine's load; the kernel's share of a request (a `stat`, the
socket writes) is not in them. They do move from one process to the next with what each draws at
random: dictionaries' hash seeds and the address layout moved a page by ±1k. The server runs with
`SWIFT_DETERMINISTIC_HASHING=1` under `setarch -R` (no address randomization), which leaves
±0.5k (the signed-in session's random id and MAC). A release binary whose debug info valgrind cannot read works once
stripped: `strip --strip-debug -o /tmp/dd/drilldown BINARY`, with the `*.resources` folders linked
beside it. A benchmark, not a test.
"""
import glob
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, accounts, editable, music = sys.argv[1], "--users" in sys.argv, "--editable" in sys.argv, "--music" in sys.argv
    n, page = int(os.environ.get("N", "200")), os.environ.get("PAGE", "/l/0" if music else "/")
    folder = tempfile.mkdtemp(prefix="bench-accounts-")
    rows = {"Rows": [{"Title": f"Group {g}", "Rows": [{"Title": f"Item {g}.{i}", "n": i} for i in range(50)]} for g in range(40)]}
    open(f"{folder}/data.json", "w").write(json.dumps(rows))
    extra = ["--editable"] if editable else []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    data = [f"{root}/Examples/Music/library.yaml", "--schema", f"{root}/Examples/Music/schema.yaml"] if music else [f"{folder}/data.json"]
    if accounts:
        subprocess.run([binary, "user", "add", f"{folder}/users.yaml", "ana", "--role", "viewer" if music else "editor"], input="secret-pw\n", text=True,
                       check=True, capture_output=True)
        open(f"{folder}/secret", "w").write("0123456789abcdef0123456789abcdef")
        extra += ["--users", f"{folder}/users.yaml", "--secret-file", f"{folder}/secret"]
    port = 18000 + os.getpid() % 1000
    server = subprocess.Popen(["setarch", "-R", "valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={folder}/cg.%p",
                               binary, "serve", *data, "--port", str(port), *extra],
                              stdout=open(f"{folder}/serve.log", "w"), stderr=subprocess.STDOUT, cwd=folder,
                              env={**os.environ, "SWIFT_DETERMINISTIC_HASHING": "1"})
    try:
        for _ in range(1200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5)
                break
            except OSError:
                if server.poll() is not None:
                    sys.exit(open(f"{folder}/serve.log").read()[-2000:])
                time.sleep(0.5)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        headers = {}
        if accounts:
            conn.request("POST", "/signin", body="user=ana&password=secret-pw&back=/",
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
            r = conn.getresponse()
            r.read()
            headers["Cookie"] = re.match(r"(dd_auth=[^;]+)", r.getheader("Set-Cookie")).group(1)

        def get(path):
            conn.request("GET", path, headers=headers)
            r = conn.getresponse()
            r.read()
            assert r.status == 200, (path, r.status)
            cookie = r.getheader("Set-Cookie") or ""
            if cookie.startswith("dd_session="):
                headers["Cookie"] = cookie.split(";")[0]

        for _ in range(100):
            get(page)

        def window():
            for args in (["-z"], ["-i", "on"]):
                subprocess.run(["callgrind_control", *args, str(server.pid)], capture_output=True)
            for _ in range(n):
                get(page)
            for args in (["-d"], ["-i", "off"]):
                subprocess.run(["callgrind_control", *args, str(server.pid)], capture_output=True)
            total = 0
            for name in glob.glob(f"{folder}/cg.*"):
                for line in open(name):
                    if line.startswith(("summary:", "totals:")):
                        total += int(line.split()[1])
                        break
                os.unlink(name)
            return total / n

        first, second = window(), window()
        print(f"{binary} {'--users, signed in' if accounts else 'without --users'}{' --editable' if editable else ''}: "
              f"{page} {first / 1e3:.1f}k / {second / 1e3:.1f}k instructions per request")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
