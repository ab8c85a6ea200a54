"""Fixtures for the browser tests: Debian's chromium driven by Playwright, and real `drilldown serve`
processes on free loopback ports (Examples/Data.plist, the bundled music library, a generated 100 000-row level)."""
import json
import os
import pathlib
import queue
import re
import shutil
import subprocess
import threading
import time
import uuid

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
BIG_ROWS = 100_000
SCRIPT_TITLE = "<script>alert(1)</script>"


def drilldown_binary() -> str:
    return os.environ.get("DRILLDOWN_BIN", str(ROOT / ".build" / "debug" / "drilldown"))


def wait_until(check, seconds, message):
    """Polls `check()` until it holds; the deadline only bounds a failure (wait for the event, not a time)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, message
        time.sleep(0.02)


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


PG_URL = os.environ.get("DRILLDOWN_TEST_PG_URL", "")


def serve_sounds(tmp_path, store="file"):
    """A fresh copy of the Sounds example and an editable server on it (`data`: the copy, or with
    store "postgres" the URL of a table of its own imported from it; `schema`: the schema's copy;
    `cleanup()` drops the table). Every read command takes `data` either way."""
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(ROOT / "Examples" / "Sounds" / name, tmp_path / name)
    data, schema, cleanup = tmp_path / "sounds.plist", tmp_path / "schema.yaml", lambda: None
    if store == "postgres":
        if not PG_URL:
            pytest.skip("DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")
        table = "sounds_" + uuid.uuid4().hex[:8]
        url = PG_URL + ("&" if "?" in PG_URL else "?") + "table=" + table
        subprocess.run([drilldown_binary(), "convert", str(data), url], check=True, capture_output=True, timeout=60)
        psql = re.sub(r"[?&]sslmode=[^&]*", "", PG_URL)
        data = url
        cleanup = lambda: subprocess.run(["psql", psql, "-qtAX", "-c", f"DROP TABLE IF EXISTS {table}; DROP TABLE IF EXISTS {table}_meta; DROP SEQUENCE IF EXISTS {table}_ids"], capture_output=True)
    server = Server(data, "--schema", schema, "--editable")
    server.data, server.schema, server.cleanup = data, schema, cleanup
    return server


@pytest.fixture
def sounds(tmp_path):
    """A fresh copy of the Sounds example and an editable server on it (see serve_sounds)."""
    server = serve_sounds(tmp_path)
    yield server
    server.stop()


@pytest.fixture(params=["file", "postgres"])
def sounds_any_store(request, tmp_path):
    """`sounds` on the plist file, then on a PostgreSQL tree table (skipped without a server): the
    editing tests run on both stores."""
    server = serve_sounds(tmp_path, request.param)
    yield server
    server.stop()
    server.cleanup()
