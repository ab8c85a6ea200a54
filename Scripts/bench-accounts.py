#!/usr/bin/env python3
"""What sign-in and session checks cost a level page's requests per second (issue 32: at most 5 %).

  Scripts/bench-accounts.py [--binary .build-release/release/drilldown] [--rounds 10] [--seconds 3]
                            [--connections 8] [--path /l/0] [--editable]

Serves the bundled music library twice at once from one binary: without `--users`, and with
`--users` (one viewer, made with `drilldown user add`) and `--secret-file`, signed in once. Then,
`--rounds` times, runs `wrk -t1 -cCONNECTIONS -dSECONDS` on PATH three times (the order rotating
and reversing per round, so that none always runs first): against the server without accounts with
no cookie, against it with the signed-in `dd_auth` cookie (which it ignores), and against the
server with accounts with that cookie, as a browser sends it. Prints each round's req/s, the
medians, and what accounts cost: 1 − median(signed in) / median(no cookie), the whole cost of a
signed-in browser's requests, and 1 − median(signed in) / median(same cookie), the server's
checks alone (the HTTP layer's parsing of a `Cookie` field is paid by any request that carries
one). Both servers answer from their page cache after the first request, as a level page that
people read does.

The machine's load moves req/s; the interleaved rounds and medians are there so that both servers
see the same load. `uptime`'s load average is printed before and after: compare only runs on a
quiet machine. A benchmark, not a test; wrk must be installed.
"""
import argparse
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_server import start_server  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
# With --pin: the servers on the first CPU, wrk on the second (set in main).
PIN_CLIENT = []


def load():
    return open("/proc/loadavg").read().split()[0]


def wrk(port, path, seconds, connections, cookie=None):
    args = [*PIN_CLIENT, "wrk", "-t1", f"-c{connections}", f"-d{seconds}s"]
    if cookie:
        args += ["-H", f"Cookie: {cookie}"]
    out = subprocess.run([*args, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, timeout=seconds + 60).stdout
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not match or "Non-2xx" in out:
        sys.exit(f"wrk failed:\n{out}")
    return float(match.group(1))


def sign_in(port, user, password):
    """The `dd_auth=…` cookie of a sign-in (the redirect is not followed)."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(f"http://127.0.0.1:{port}/signin", data=f"user={user}&password={password}&back=/".encode(),
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        opener.open(request, timeout=30)
    except urllib.error.HTTPError as e:
        if e.code != 303:
            raise
        return re.match(r"(dd_auth=[^;]+)", e.headers["Set-Cookie"]).group(1)
    sys.exit("the sign-in was not answered with a redirect")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / ".build-release" / "release" / "drilldown"))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--path", default="/l/0")
    ap.add_argument("--editable", action="store_true", help="serve both with --editable")
    ap.add_argument("--pin", action="store_true",
                    help="run both servers on CPU 0 and wrk on CPU 1 (taskset), so that neither takes the other's core")
    args = ap.parse_args()
    binary = [args.binary]
    if args.pin:
        PIN_CLIENT[:] = ["taskset", "-c", "1"]
        binary = ["taskset", "-c", "0", args.binary]
    if not shutil.which("wrk"):
        sys.exit("wrk is not installed (apt-get install wrk)")
    data = [ROOT / "Examples" / "Music" / "library.yaml", "--schema", ROOT / "Examples" / "Music" / "schema.yaml"]
    extra = ["--editable"] if args.editable else []
    with tempfile.TemporaryDirectory(prefix="bench-accounts-") as tmp:
        folder = pathlib.Path(tmp)
        subprocess.run([args.binary, "user", "add", folder / "users.yaml", "ana", "--role", "viewer"], input="secret-pw\n", text=True,
                       check=True, capture_output=True)
        (folder / "secret").write_text("0123456789abcdef0123456789abcdef")
        plain, plain_port, _ = start_server(binary, [*data, *extra])
        accounts, accounts_port, _ = start_server(binary, [*data, *extra, "--users", folder / "users.yaml", "--secret-file", folder / "secret"])
        try:
            cookie = sign_in(accounts_port, "ana", "secret-pw")
            # Warm both (page cache, connections) before measuring.
            wrk(plain_port, args.path, 1, args.connections)
            wrk(accounts_port, args.path, 1, args.connections, cookie)
            print(f"{args.binary} {args.path} ({'editable' if args.editable else 'read-only'}), wrk -t1 -c{args.connections} "
                  f"{'(servers on CPU 0, wrk on CPU 1) ' if args.pin else ''}"
                  f"-d{args.seconds}s, {args.rounds} rounds, load {load()} before")
            variants = [("without", plain_port, None), ("same cookie", plain_port, cookie), ("with", accounts_port, cookie)]
            got = {name: [] for name, _, _ in variants}
            for k in range(args.rounds):
                order = variants[k % 3:] + variants[:k % 3]
                if k % 2:
                    order.reverse()
                for name, port, c in order:
                    got[name].append(wrk(port, args.path, args.seconds, args.connections, c))
                print(f"round {k + 1:2}: without --users {got['without'][-1]:9.0f} req/s, the same with the cookie "
                      f"{got['same cookie'][-1]:9.0f}   --users, signed in {got['with'][-1]:9.0f} req/s   "
                      f"({got['with'][-1] / got['without'][-1] - 1:+.1%})  load {load()}")
            a, c, b = (statistics.median(got[name]) for name in ("without", "same cookie", "with"))
            print(f"median: without --users {a:.0f} req/s ({c:.0f} with the cookie), --users signed in {b:.0f} req/s: "
                  f"accounts cost {1 - b / a:.1%} of req/s, the checks alone {1 - b / c:.1%} (load {load()} after)")
            # Each round's own ratio: the three runs of a round are seconds apart, so what the machine
            # does meanwhile moves them together, and their median moves less than the medians' ratio.
            whole = statistics.median(1 - w / o for w, o in zip(got["with"], got["without"]))
            checks = statistics.median(1 - w / o for w, o in zip(got["with"], got["same cookie"]))
            print(f"median of the rounds' own ratios: accounts cost {whole:.1%}, the checks alone {checks:.1%}")
        finally:
            for proc in (plain, accounts):
                proc.terminate()
                proc.wait()


if __name__ == "__main__":
    main()
