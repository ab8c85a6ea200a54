"""An editable server on an SQLite tree table writes row by row (issue 10, item 2 and the tree-table
half of item 6), through the real binary on real database files generated at test time:
twenty clients pressing a row control on a 1M-node table count exactly, SIGKILL during writes keeps
every acknowledged change and a sound database, an `sqlite3` UPDATE made elsewhere reaches open
pages, and a loop of `drilldown add` next to the server loses nothing."""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from conftest import ROOT, Server, drilldown_binary, wait_until
from webclient import Events, Session

SCHEMA = ROOT / "Examples" / "Sounds" / "schema.yaml"
CLIENTS, PRESSES = 20, 100


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    """A generated tree table of about 1M nodes (1000 groups of 249 sound items), made once."""
    path = tmp_path_factory.mktemp("million") / "million.sqlite"
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-tree-table.py"), str(path), "--nodes", "1000000"],
                   check=True, capture_output=True)
    return path


@pytest.fixture
def big(million, tmp_path):
    """A fresh copy of the 1M-node table for one test."""
    path = tmp_path / "big.sqlite"
    shutil.copy(million, path)
    return path


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.sqlite"
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-tree-table.py"), str(path), "--nodes", "4000",
                    "--groups", "10"], check=True, capture_output=True)
    return path


def item(db, group, index):
    """(title, plays) of item `group.index`, read with python's sqlite3."""
    with sqlite3.connect(db) as c:
        rows = c.execute("""
            SELECT t.value, p.value FROM nodes AS i
            JOIN nodes AS t ON t.parent = i.id AND t.key = 'Title'
            JOIN nodes AS p ON p.parent = i.id AND p.key = 'plays'
            WHERE i.parent = (SELECT id FROM nodes WHERE key = 'Children' AND parent =
                                (SELECT id FROM nodes WHERE parent = 2 ORDER BY position, id LIMIT 1 OFFSET ?))
            ORDER BY i.position, i.id LIMIT 1 OFFSET ?""", (group, index)).fetchall()
    return rows[0][0], int(rows[0][1])


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def test_twenty_clients_press_play_on_a_million_node_table_and_count_exactly(big):
    server = Server(big, "--schema", SCHEMA, "--editable")
    failures = []

    def client():
        session = Session(server.url)
        try:
            for _ in range(PRESSES):
                status, body = session.post("/api/edit/run/500.3", {"action": "play"})
                if status != 200 or not body.get("changed"):
                    failures.append((status, body))
        finally:
            session.close()

    try:
        threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not failures, failures[:3]
        shown = get_json(server.url + "api/node/500.3")
        assert {f["key"]: f["value"] for f in shown["fields"]}["plays"] == str(CLIENTS * PRESSES)
    finally:
        server.stop()
    assert item(big, 500, 3) == ("Item 500.3", CLIENTS * PRESSES)
    with sqlite3.connect(big) as c:
        assert c.execute("SELECT count(*) FROM nodes").fetchone()[0] == 999003, "a press writes one row, adds none"


def test_sigkill_during_writes_keeps_every_acknowledged_change(big):
    server = Server(big, "--schema", SCHEMA, "--editable")
    acknowledged = []
    stop = threading.Event()

    def writer():
        session = Session(server.url)
        k = 0
        try:
            while not stop.is_set():
                try:
                    status, _ = session.post(f"/api/edit/rename/{k % 1000}.{k // 1000}", {"title": f"Renamed {k}"})
                except (OSError, ValueError):
                    return
                if status == 200:
                    acknowledged.append(k)
                k += 1
        finally:
            session.close()

    thread = threading.Thread(target=writer)
    thread.start()
    # Killed once renames are being acknowledged (not after a fixed 1.5 s a busy machine may spend starting up).
    wait_until(lambda: len(acknowledged) > 20, 120, "the server acknowledged too few renames to test anything")
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    stop.set()
    thread.join(timeout=30)
    assert len(acknowledged) > 20, "the server acknowledged too few renames to test anything"
    with sqlite3.connect(big) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        titles = {t for (t,) in c.execute("SELECT value FROM nodes WHERE key = 'Title' AND value LIKE 'Renamed %'")}
    missing = [k for k in acknowledged if f"Renamed {k}" not in titles]
    assert not missing, f"{len(missing)} acknowledged renames lost, e.g. {missing[:5]}"
    for k in acknowledged[-3:]:
        assert item(big, k % 1000, k // 1000)[0] == f"Renamed {k}"


def test_an_sqlite3_update_made_elsewhere_reaches_an_open_page(small):
    server = Server(small, "--editable")
    try:
        events = Events(server.url)
        assert get_json(server.url + "api/level/2")["rows"][1]["title"] == "Item 2.1"
        with sqlite3.connect(small) as c:
            c.execute("""UPDATE nodes SET value = 'Changed in the shell' WHERE key = 'Title' AND value = 'Item 2.1'""")
        name, data = events.next_event()
        assert name in ("change", "message", "external") or data
        deadline = time.monotonic() + 5
        while get_json(server.url + "api/level/2")["rows"][1]["title"] != "Changed in the shell":
            assert time.monotonic() < deadline, "the server never showed the shell's change"
            time.sleep(0.05)
        events.close()
        # An edit through the server after the shell's change keeps the shell's row as it is.
        session = Session(server.url)
        status, _ = session.post("/api/edit/rename/2.2", {"title": "Renamed by the page"})
        assert status == 200
        session.close()
        titles = [r["title"] for r in get_json(server.url + "api/level/2")["rows"][:3]]
        assert titles == ["Item 2.0", "Changed in the shell", "Renamed by the page"]
    finally:
        server.stop()


def test_a_drilldown_add_loop_and_the_server_lose_nothing(small):
    server = Server(small, "--editable")
    with sqlite3.connect(small) as c:
        count = lambda: c.execute("""SELECT nchildren FROM nodes WHERE key = 'Children' AND parent =
                                     (SELECT id FROM nodes WHERE parent = 2 ORDER BY position, id LIMIT 1 OFFSET 4)""").fetchone()[0]
        start = count()
    server_acks, cli_acks, errors = [], [], []

    def web():
        session = Session(server.url)
        try:
            for k in range(100):
                status, body = session.post("/api/edit/add/4", {"title": f"web {k}"})
                (server_acks if status == 200 else errors).append((k, status, body))
        finally:
            session.close()

    def cli():
        for k in range(40):
            result = subprocess.run([drilldown_binary(), "add", str(small), "4", f"cli {k}"],
                                    capture_output=True, text=True, timeout=60)
            (cli_acks if result.returncode == 0 else errors).append((k, result.returncode, result.stderr))

    try:
        threads = [threading.Thread(target=web), threading.Thread(target=cli)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not errors, errors[:3]
        assert len(server_acks) == 100 and len(cli_acks) == 40
        with sqlite3.connect(small) as c:
            titles = {t for (t,) in c.execute("SELECT value FROM nodes WHERE key = 'Title'")}
            assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert all(f"web {k}" in titles for k in range(100))
        assert all(f"cli {k}" in titles for k in range(40))
        with sqlite3.connect(small) as c:
            assert count() == start + 140
        # The server shows the CLI's rows too.
        deadline = time.monotonic() + 5
        while True:
            shown = {r["title"] for r in get_json(server.url + "api/level/4?limit=1000")["rows"]}
            if all(f"cli {k}" in shown for k in range(40)) and all(f"web {k}" in shown for k in range(100)):
                break
            assert time.monotonic() < deadline, "the server never showed every add"
            time.sleep(0.1)
    finally:
        server.stop()
