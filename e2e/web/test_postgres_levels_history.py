"""The audit history of PostgreSQL tables read through a `levels:` mapping (the music example loaded
with psql), through the real binary and a real server: `drilldown_history`, written in each step's
transaction, is read by every instance on the database; an Undo of the server's own delete puts the
album's songs back with their keys; `--no-history` records nothing."""
import json
import urllib.request

import pytest

from conftest import Server, wait_until
from test_postgres_levels import PG_URL, SCHEMA, level, music_url, run_psql  # noqa: F401  (the fixture)
from webclient import Session

pytestmark = pytest.mark.skipif(not PG_URL, reason="DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")


def entries(url):
    with urllib.request.urlopen(url + "api/history", timeout=30) as response:
        return json.load(response)["entries"]


def test_postgres_levels_history_is_shared_by_instances_and_undo_restores_keys(music_url):
    a = Server(music_url, "--schema", SCHEMA, "--editable")
    b = Server(music_url, "--schema", SCHEMA, "--editable")
    try:
        songs = "SELECT * FROM songs ORDER BY id"
        before = run_psql(music_url, "-c", songs)
        session = Session(a.url)
        status, body = session.post("/api/edit/delete/1.0")
        assert status == 200 and body["paths"] == ["1.0"], body
        assert body["history"]["undo"] == "Delete of Blue Train", body
        assert run_psql(music_url, "-c", "SELECT count(*) FROM songs WHERE album_id = 4") == "0"
        # Instance B, which made no change, lists A's step from the shared table.
        first = entries(b.url)
        assert [(e["kind"], e["summary"]) for e in first] == [("change", "Delete of Blue Train")]
        with urllib.request.urlopen(b.url + "history", timeout=30) as response:
            assert "Delete of Blue Train" in response.read().decode()
        # The session's Undo on A, which deleted them: the songs come back with their keys.
        status, body = session.post("/api/edit/undo")
        assert status == 200, body
        assert run_psql(music_url, "-c", songs) == before
        newest = entries(b.url)[0]
        assert (newest["kind"], newest["target"]) == ("undo", first[0]["id"])
        wait_until(lambda: "Blue Train" in level(b.url, "1"), 30, "B does not show the album back")
        # A rename through B, and its Revert from the History screen's API on A.
        other = Session(b.url)
        status, body = other.post("/api/edit/rename/0", {"title": "Miles Dewey Davis"})
        assert status == 200, body
        rename = entries(a.url)[0]
        assert rename["summary"] == "Rename of Miles Davis to Miles Dewey Davis", rename
        status, body = session.post("/api/history/revert", {"id": rename["id"]})
        assert status == 200, body
        assert run_psql(music_url, "-c", "SELECT name FROM artists WHERE id = 1") == "Miles Davis"
        assert run_psql(music_url, "-c", "SELECT kind FROM drilldown_history ORDER BY id").split() == ["change", "undo", "change", "revert"]
        session.close()
        other.close()
    finally:
        a.stop()
        b.stop()
    # An instance started with --no-history records nothing, and its Undo is its own step list.
    c = Server(music_url, "--schema", SCHEMA, "--editable", "--no-history")
    try:
        session = Session(c.url)
        assert session.post("/api/edit/rename/0", {"title": "Miles"})[0] == 200
        assert run_psql(music_url, "-c", "SELECT count(*) FROM drilldown_history") == "4"
        assert session.post("/api/edit/undo")[0] == 200
        assert run_psql(music_url, "-c", "SELECT name FROM artists WHERE id = 1") == "Miles Davis"
        session.close()
    finally:
        c.stop()
