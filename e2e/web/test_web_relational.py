"""The relational music example edited in the browser and through the API (issue 10, item 3):
`drilldown serve music.sqlite --editable` on a copy of Examples/Music/music.sqlite (its schema
music.schema.yaml found beside it) writes the real tables, row by row; checked with the `sqlite3`
shell and python's sqlite3."""
import json
import re
import shutil
import signal
import sqlite3
import subprocess
import threading
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server, wait_until
from webclient import Session

MUSIC = ROOT / "Examples" / "Music"
CLIENTS, PRESSES = 20, 100


@pytest.fixture
def music_db(tmp_path):
    """A copy of the relational music example (database, schema beside it, art)."""
    for name in ("music.sqlite", "music.schema.yaml"):
        shutil.copy(MUSIC / name, tmp_path / name)
    shutil.copytree(MUSIC / "art", tmp_path / "art")
    return tmp_path / "music.sqlite"


def query(db, sql, *args):
    with sqlite3.connect(db) as c:
        return c.execute(sql, args).fetchall()


def shell(db, sql):
    """Runs `sql` with the sqlite3 shell (another process, another connection)."""
    return subprocess.run(["sqlite3", str(db), sql], capture_output=True, text=True, check=True, timeout=30).stdout


def rows(page):
    return page.locator("#rows li.row .row-title")


def row(page, text):
    return page.locator("#rows li.row", has=page.locator(".row-title", has_text=re.compile(f"^{re.escape(text)}$")))


def level(url, path):
    with urllib.request.urlopen(url + "api/level/" + path) as response:
        return [r["title"] for r in json.load(response)["rows"]]


def test_add_a_song_rename_an_album_delete_a_song_in_the_browser_writes_the_tables(page, music_db, shot):
    server = Server(music_db, "--editable")
    try:
        # Add a song to Kind of Blue with the Add modal's Done.
        page.goto(server.url + "l/0.0")
        expect(rows(page)).to_have_text(["So What", "Freddie Freeloader", "Blue in Green", "All Blues", "Flamenco Sketches"])
        page.click("#add-button")
        page.fill("#add-dialog-title-input", "Nardis")
        page.click("#add-dialog-done")
        expect(page.locator("#add-dialog")).to_be_hidden()
        expect(rows(page)).to_have_count(6)
        expect(rows(page).last).to_have_text("Nardis")
        shot("relational-add-song")
        # Rename an album in edit mode.
        page.goto(server.url + "l/0")
        page.click("#edit-button")
        album = row(page, "Sketches of Spain")
        album.locator(".rename-cell").click()
        album.locator(".rename-input").fill("Sketches of Spain (Legacy)")
        album.locator(".rename-input").press("Enter")
        expect(rows(page)).to_have_text(["Kind of Blue", "Sketches of Spain (Legacy)"])
        expect(row(page, "Sketches of Spain (Legacy)").locator(".rename-cell")).to_be_focused()
        # Delete a song: the ⊖ slides in Delete; Escape keeps the song, Delete deletes it.
        page.goto(server.url + "l/0.0?edit=1")
        row(page, "Blue in Green").locator(".delete-toggle").click()
        page.keyboard.press("Escape")
        expect(row(page, "Blue in Green").locator(".delete-confirm")).to_be_hidden()
        expect(rows(page)).to_have_count(6)
        row(page, "Blue in Green").locator(".delete-toggle").click()
        row(page, "Blue in Green").locator(".delete-confirm").click()
        expect(rows(page)).to_have_count(5)
        shot("relational-deleted-song")
    finally:
        server.stop()
    # The rows are in the tables, as the sqlite3 shell reads them.
    songs = shell(music_db, "SELECT name, track, length, plays FROM songs WHERE album_id = "
                            "(SELECT id FROM albums WHERE title = 'Kind of Blue') ORDER BY track").splitlines()
    assert songs == ["So What|1|562|0", "Freddie Freeloader|2|586|0", "All Blues|4|693|0",
                     "Flamenco Sketches|5|566|0", "Nardis|6|0|0"]
    assert shell(music_db, "SELECT title FROM albums WHERE artist_id = 1 ORDER BY year").split() == \
        ["Kind", "of", "Blue", "Sketches", "of", "Spain", "(Legacy)"]
    assert query(music_db, "SELECT COUNT(*) FROM songs WHERE name = 'Blue in Green'") == [(0,)]
    assert query(music_db, "PRAGMA integrity_check") == [("ok",)]
    assert query(music_db, "PRAGMA foreign_key_check") == []


def test_undo_of_a_deleted_album_puts_its_songs_back_with_their_keys(music_db):
    server = Server(music_db, "--editable")
    try:
        before = query(music_db, "SELECT * FROM songs ORDER BY id")
        session = Session(server.url)
        status, body = session.post("/api/edit/delete/1.0")
        assert status == 200 and body["paths"] == ["1.0"]
        assert query(music_db, "SELECT COUNT(*) FROM albums WHERE title = 'Blue Train'") == [(0,)]
        assert len(query(music_db, "SELECT * FROM songs")) == len(before) - 5
        status, body = session.post("/api/edit/undo")
        assert status == 200
        assert query(music_db, "SELECT * FROM songs ORDER BY id") == before
        assert level(server.url, "1") == ["Blue Train", "Live at the Village Vanguard (radio session, 1h+)", "A Love Supreme"]
        # A NOT NULL column without a default is a required field of the Add form: left out, it is named.
        status, body = session.post("/api/edit/add/1", {"title": "Giant Steps"})
        assert status == 400 and body["field"] == "year" and "'year' is required" in body["error"], body
        session.close()
    finally:
        server.stop()


def test_a_change_made_with_the_sqlite3_shell_appears_on_the_server(music_db):
    server = Server(music_db, "--editable")
    try:
        assert level(server.url, "2") == ["Time Out"]
        shell(music_db, "INSERT INTO albums(artist_id, title, year) VALUES (3, 'Time Further Out', 1961)")
        deadline = time.monotonic() + 5
        while level(server.url, "2") != ["Time Out", "Time Further Out"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert level(server.url, "2") == ["Time Out", "Time Further Out"]
        # And the server's next change is made on the database as it is now.
        session = Session(server.url)
        status, body = session.post("/api/edit/rename/2.1", {"title": "Time Further Out (1961)"})
        assert status == 200
        assert query(music_db, "SELECT title FROM albums WHERE artist_id = 3 ORDER BY year") == [("Time Out",), ("Time Further Out (1961)",)]
        session.close()
    finally:
        server.stop()


def test_twenty_clients_pressing_play_a_hundred_times_count_exactly_2000_in_the_table(music_db):
    server = Server(music_db, "--editable")
    failures = []

    def client():
        session = Session(server.url)
        try:
            for _ in range(PRESSES):
                status, body = session.post("/api/edit/run/0.0.0", {"action": "play"})
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
    assert query(music_db, "SELECT plays FROM songs WHERE name = 'So What'") == [(CLIENTS * PRESSES,)]
    assert query(music_db, "SELECT SUM(plays) FROM songs") == [(CLIENTS * PRESSES,)]
    print(f"\n{CLIENTS * PRESSES} plays from {CLIENTS} clients in {elapsed:.2f} s ({CLIENTS * PRESSES / elapsed:.0f} changes/s)")


def test_sigkill_during_writes_keeps_every_acknowledged_change_and_a_sound_database(music_db):
    server = Server(music_db, "--editable")
    acknowledged = []
    added = []
    stop = threading.Event()

    def presser():
        session = Session(server.url)
        try:
            while not stop.is_set():
                status, body = session.post("/api/edit/run/0.0.1", {"action": "play"})
                if status == 200:
                    acknowledged.append(body["revision"])
        except (OSError, ValueError):
            pass  # the server died mid-request: that change was never acknowledged

    def adder():
        session = Session(server.url)
        try:
            n = 0
            while not stop.is_set():
                status, _ = session.post("/api/edit/add/3.0", {"title": f"Killed take {n}"})
                if status == 200:
                    added.append(f"Killed take {n}")
                n += 1
        except (OSError, ValueError):
            pass

    threads = [threading.Thread(target=presser) for _ in range(3)] + [threading.Thread(target=adder)]
    for t in threads:
        t.start()
    # Killed once presses and adds are being acknowledged (not after a fixed 1.5 s).
    wait_until(lambda: len(acknowledged) > 10 and len(added) > 3, 120, "too few changes acknowledged to test anything")
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait(timeout=10)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert len(acknowledged) > 10 and len(added) > 3
    assert query(music_db, "PRAGMA integrity_check") == [("ok",)]
    plays = query(music_db, "SELECT plays FROM songs WHERE name = 'Freddie Freeloader'")[0][0]
    assert len(acknowledged) <= plays <= len(acknowledged) + 3
    takes = {name for (name,) in query(music_db, "SELECT name FROM songs WHERE name LIKE 'Killed take %'")}
    assert set(added) <= takes and len(takes) <= len(added) + 1
