"""Fixtures for the browser tests: Debian's chromium driven by Playwright, and real `drilldown serve`
processes on free loopback ports (seed 000, the bundled music library, a generated 100 000-row level)."""
import json
import os
import pathlib
import queue
import re
import shutil
import subprocess
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
BIG_ROWS = 100_000
SCRIPT_TITLE = "<script>alert(1)</script>"


def drilldown_binary() -> str:
    return os.environ.get("DRILLDOWN_BIN", str(ROOT / ".build" / "debug" / "drilldown"))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            "args": ["--disable-dev-shm-usage"]}


class Server:
    """One `drilldown serve` process on 127.0.0.1 with a free port; `url` ends with `/`."""

    def __init__(self, *args, start_timeout=60):
        binary = drilldown_binary()
        if not os.path.exists(binary):
            pytest.fail(f"{binary} is missing: build with `swift build --product drilldown` or set DRILLDOWN_BIN")
        self.proc = subprocess.Popen([binary, "serve", *map(str, args), "--port", "0", "--host", "127.0.0.1"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in self.proc.stdout], daemon=True).start()
        try:
            line = lines.get(timeout=start_timeout)
        except queue.Empty:
            self.stop()
            pytest.fail(f"drilldown serve printed no URL within {start_timeout} s")
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if not match:
            self.stop()
            pytest.fail(f"drilldown serve printed {line!r}; stderr: {self.proc.stderr.read()}")
        self.url = match.group(0)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def seed_server():
    server = Server(ROOT / "Examples" / "Data.plist")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def music_server():
    server = Server()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def big_server(tmp_path_factory):
    """A generated document: a level of 100 000 rows, and a row whose title is a script."""
    path = tmp_path_factory.mktemp("web-data") / "big.json"
    rows = [{"Title": f"Row {i}", "n": i} for i in range(BIG_ROWS)]
    path.write_text(json.dumps({"Rows": [{"Title": "Big level", "Children": rows},
                                         {"Title": SCRIPT_TITLE, "note": "<b>not bold</b>"}]}))
    server = Server(path)
    yield server
    server.stop()


@pytest.fixture
def shot(page):
    """Saves a screenshot of the page as artifacts/screenshots/NAME.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name, full_page=True):
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)

    return take


@pytest.fixture
def sounds(tmp_path):
    """A fresh copy of the Sounds example and an editable server on it (`data`, `schema`: the copies)."""
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(ROOT / "Examples" / "Sounds" / name, tmp_path / name)
    data, schema = tmp_path / "sounds.plist", tmp_path / "schema.yaml"
    server = Server(data, "--schema", schema, "--editable")
    server.data, server.schema = data, schema
    yield server
    server.stop()
