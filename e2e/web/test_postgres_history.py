"""The audit history of a PostgreSQL tree table (`<table>_history`, written in each step's own
transaction) through the real binary and a real server: the CLI records who changed what and
reverts it, and Undo is per user across two instances of one table: a session's Undo sent to
instance B takes back the change it made through instance A, found in the shared history, and
never another session's."""
import json
import subprocess

import pytest

from conftest import Server, drilldown_binary
from test_postgres import PG_URL, SOUNDS, psql, sounds_table, table_url  # noqa: F401  (the fixture)
from webclient import Session

pytestmark = pytest.mark.skipif(not PG_URL, reason="DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")


def cli(*args, check=0):
    result = subprocess.run([drilldown_binary(), *map(str, args)], capture_output=True, text=True, timeout=60)
    assert result.returncode == check, result.stderr
    return result


def titles(name, path=None):
    out = cli("ls", table_url(name), *([path] if path else []), "--json").stdout
    return [r["title"] for r in json.loads(out)["rows"]]


def test_cli_edits_of_a_postgres_table_are_recorded_beside_it_and_revert(sounds_table):
    name = sounds_table
    cli("set", table_url(name), "0.3", "--title", "Chime", "--user", "ana")
    cli("add", table_url(name), "0", "First", "--at", "0", "--user", "bob")
    assert psql(f"SELECT count(*) FROM {name}_history") == "2"
    page = json.loads(cli("history", table_url(name), "--json").stdout)
    assert [e["user"] for e in page["entries"]] == ["bob", "ana"]
    rename = page["entries"][1]
    assert rename["differences"] == [{"path": "0.3", "field": "title", "old": "Ringtone", "new": "Chime"}]
    cli("revert", table_url(name), rename["id"], "--user", "bob")
    assert titles(name, "0")[4] == "Ringtone"
    newest = json.loads(cli("history", table_url(name), "--json").stdout)["entries"][0]
    assert newest["kind"] == "revert" and newest["target"] == rename["id"]


def test_undo_is_per_user_across_two_instances_of_one_table(sounds_table, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("a shared secret of enough bytes\n")
    a = Server(table_url(sounds_table), "--schema", SOUNDS / "schema.yaml", "--editable", "--secret-file", secret)
    b = Server(table_url(sounds_table), "--schema", SOUNDS / "schema.yaml", "--editable", "--secret-file", secret)
    try:
        mine, yours = Session(a.url), Session(a.url)
        status, answer = mine.post("/api/edit/rename/0.3", {"title": "Mine"})
        assert status == 200, answer
        # The answer says what my Undo would do: this change (known without reading the history).
        assert answer["history"]["canUndo"] and not answer["history"]["canRedo"], answer
        assert answer["history"]["undo"] == "Rename of Ringtone to Mine", answer
        assert yours.post("/api/edit/rename/0.4", {"title": "Yours"})[0] == 200
        # My undo, sent to instance B (which made neither change), takes back mine only.
        on_b = Session(b.url, credentials=mine.credentials)
        status, answer = on_b.post("/api/edit/undo")
        assert status == 200, answer
        assert titles(sounds_table, "0")[3:5] == ["Ringtone", "Yours"]
        assert answer["history"]["canRedo"] and not answer["history"]["canUndo"]
        # Your undo is still yours.
        status, answer = Session(b.url, credentials=yours.credentials).post("/api/edit/undo")
        assert status == 200, answer
        assert titles(sounds_table, "0")[3:5] == ["Ringtone", "Text Tone"]
        # Redo through A brings mine back.
        assert mine.post("/api/edit/redo")[0] == 200
        assert titles(sounds_table, "0")[3] == "Mine"
        kinds = [e["kind"] for e in json.loads(cli("history", table_url(sounds_table), "--json").stdout)["entries"]]
        assert kinds == ["redo", "undo", "undo", "change", "change"]
    finally:
        a.stop()
        b.stop()
