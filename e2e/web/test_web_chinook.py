"""Editing a relational database's records in the browser (issue 30): the Chinook-shaped database
of Scripts/make-chinook.py, whose songs have `length INTEGER NOT NULL CHECK (length > 0)`, a
`genre` CHECKed against a list and no defaults in the mapping. The forms are the table's columns:
Add asks for what NOT NULL requires, a duration is typed m:ss and stored as seconds, an edit changes
one row, and a constraint is refused naming its column."""
import sqlite3
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server
from webclient import Session


@pytest.fixture
def chinook(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make-chinook.py"), str(tmp_path)], check=True, capture_output=True)
    server = Server(tmp_path / "chinook.sqlite", "--editable")
    server.db = tmp_path / "chinook.sqlite"
    yield server
    server.stop()


def rows(server):
    db = sqlite3.connect(server.db)
    try:
        return db.execute("SELECT id, album_id, name, track, length, composer, genre, plays FROM songs ORDER BY id").fetchall()
    finally:
        db.close()


def test_add_on_an_album_asks_for_name_and_length_and_stores_seconds(page, chinook):
    before = rows(chinook)
    page.goto(chinook.url + "l/0.0")
    page.click("#add-button")
    dialog = page.locator("#add-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".field-row:has(.required-mark) .field-label")).to_have_text(["Name*", "Length*"])
    dialog.get_by_label("Name").fill("Blue Seven")
    page.click("#add-dialog-done")
    expect(dialog.locator(".field-row[data-key='length'] .field-error")).to_contain_text("'length' is required")
    dialog.get_by_label("length").fill("3:43")
    page.click("#add-dialog-done")
    expect(dialog).to_be_hidden()
    expect(page.locator("#rows .row-title").last).to_have_text("Blue Seven")
    added = [r for r in rows(chinook) if r not in before]
    assert [(r[2], r[4]) for r in added] == [("Blue Seven", 223)]


def test_editing_a_songs_composer_in_its_detail_updates_that_one_row(page, chinook):
    before = rows(chinook)
    page.goto(chinook.url + "d/0.0.0")
    page.click("#fields-edit")
    page.get_by_label("composer").fill("Thelonious Monk")
    page.click("#fields-done")
    expect(page.locator("#fields-edit")).to_be_visible()
    after = rows(chinook)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(after) == len(before) and len(changed) == 1
    old, new = changed[0]
    assert new[5] == "Thelonious Monk" and old[:5] == new[:5] and old[6:] == new[6:]


def test_constraint_violations_answer_400_naming_the_column(chinook):
    api = Session(chinook.url)
    before = rows(chinook)
    for body, field in [({"attributes": {"length": 0}}, "length"), ({"attributes": {"genre": "Polka"}}, "genre"),
                        ({"unset": ["length"]}, "length")]:
        status, answer = api.post("/api/edit/update/0.0.0", body)
        assert (status, answer.get("field")) == (400, field), answer
        assert f"'{field}'" in answer["error"] and "SQLITE" not in answer["error"].upper()
    status, answer = api.post("/api/edit/add/0.0", {"title": "No Length"})
    assert (status, answer.get("field")) == (400, "length"), answer
    assert rows(chinook) == before
