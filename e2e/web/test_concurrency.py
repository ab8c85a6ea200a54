"""Faults and load on `drilldown serve --editable`, loopback only: concurrent clients lose no
change, and SIGKILL in the middle of a stream of writes leaves a readable file holding every
acknowledged change."""
import json
import plistlib
import shutil
import signal
import subprocess
import threading
import time

import pytest

from conftest import ROOT, Server, drilldown_binary, wait_until
from webclient import Session

SOUNDS = ROOT / "Examples" / "Sounds"
CLIENTS, PRESSES = 20, 100


@pytest.fixture
def copy(tmp_path):
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(SOUNDS / name, tmp_path / name)
    return tmp_path / "sounds.plist", tmp_path / "schema.yaml"


def plays_in(path):
    """The Ringtone's play count as `drilldown show` reads it back (the file must parse)."""
    shown = subprocess.run([drilldown_binary(), "show", str(path), "0.3", "--json"],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    fields = {f["key"]: f["value"] for f in json.loads(shown.stdout)["fields"]}
    with open(path, "rb") as f:
        ringtone = plistlib.load(f)["Rows"][0]["Children"][3]
    assert str(ringtone.get("plays", 0)) == str(fields.get("plays", 0))
    return int(ringtone.get("plays", 0))


def test_twenty_clients_each_pressing_play_a_hundred_times_count_exactly_2000(copy):
    data, schema = copy
    server = Server(data, "--schema", schema, "--editable")
    failures = []

    def client():
        session = Session(server.url)
        try:
            for _ in range(PRESSES):
                status, body = session.post("/api/edit/run/0.3", {"action": "play"})
                if status != 200 or not body.get("changed"):
                    failures.append((status, body))
        finally:
            session.close()

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    elapsed = time.monotonic() - start
    server.stop()
    assert not any(t.is_alive() for t in threads)
    assert failures == []
    assert plays_in(data) == CLIENTS * PRESSES
    print(f"\n{CLIENTS * PRESSES} plays from {CLIENTS} clients in {elapsed:.2f} s "
          f"({CLIENTS * PRESSES / elapsed:.0f} changes/s)")


def test_sigkill_during_a_stream_of_writes_keeps_every_acknowledged_change(copy):
    data, schema = copy
    server = Server(data, "--schema", schema, "--editable")
    acknowledged = []
    stop = threading.Event()

    def writer():
        session = Session(server.url)
        try:
            while not stop.is_set():
                status, body = session.post("/api/edit/run/0.3", {"action": "play"})
                if status == 200:
                    acknowledged.append(body["revision"])
        except (OSError, ValueError):
            pass  # the server died mid-request: that change was never acknowledged

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    # Killed once changes are being acknowledged (not after a fixed 1 s).
    wait_until(lambda: len(acknowledged) > 10, 120, "too few changes acknowledged to test anything")
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait(timeout=10)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert len(acknowledged) > 10
    plays = plays_in(data)
    # Every acknowledged change is in the file; at most one in-flight change per writer beyond.
    assert len(acknowledged) <= plays <= len(acknowledged) + len(threads)
