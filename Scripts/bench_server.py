"""What the web benchmarks share: starting `drilldown serve` on a free loopback port and reading a
process's resident memory."""
import queue
import re
import subprocess
import sys
import threading
import time


def start_server(binary, serve_args):
    """Starts `binary serve SERVE_ARGS… --host 127.0.0.1 --port 0`; returns (process, port, seconds
    until it printed its URL). `binary` may be a command's words (`["taskset", "-c", "0", path]`)."""
    command = binary if isinstance(binary, list) else [binary]
    proc = subprocess.Popen([*command, "serve", *map(str, serve_args), "--host", "127.0.0.1", "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    started = time.monotonic()
    line = lines.get(timeout=120)
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        proc.terminate()
        sys.exit(f"unexpected output: {line!r}")
    return proc, int(match.group(1)), time.monotonic() - started


def rss_mib(pid):
    """The resident memory of process `pid`, in MiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")
