"""The audit history of an SQLite database read through its `levels:` mapping (the music
example): each edit records who changed what in the database's own `drilldown_history` table, in
the edit's transaction; `drilldown history` lists it and `drilldown revert` takes a change back,
a deleted song coming back with its fields."""
import json
import shutil
import sqlite3

import pytest

from conftest import EXAMPLES


@pytest.fixture
def music(tmp_path):
    for name in ("music.sqlite", "music.schema.yaml"):
        shutil.copy(EXAMPLES / "Music" / name, tmp_path / name)
    return tmp_path / "music.sqlite", tmp_path / "music.schema.yaml"


def songs(drilldown, db, schema):
    out = json.loads(drilldown("ls", db, "0.0", "--schema", schema, "--json", check=0).stdout)
    return [(r["title"], r.get("subtitle")) for r in out["rows"]]


def history(drilldown, db, schema):
    return json.loads(drilldown("history", db, "--schema", schema, "--json", check=0).stdout)["entries"]


def test_edits_of_a_mapped_database_are_recorded_in_it_and_revert(drilldown, music):
    db, schema = music
    before = songs(drilldown, db, schema)
    drilldown("set", db, "0.0.0", "--title", "So What (take 2)", "--schema", schema, "--user", "ana", check=0)
    drilldown("set", db, "0.0.1", "length=9:50", "--schema", schema, "--user", "bo", check=0)
    drilldown("rm", db, "0.0.2", "--schema", schema, "--user", "ana", check=0)
    entries = history(drilldown, db, schema)
    assert [(e["user"], e["summary"]) for e in entries] == [
        ("ana", "Delete of Blue in Green"),
        ("bo", "Change of length of Freddie Freeloader"),
        ("ana", "Rename of So What to So What (take 2)"),
    ]
    assert entries[1]["differences"] == [{"path": "0.0.1", "field": "length", "old": "586", "new": "590"}]
    # The records are in the database itself, beside the mapped tables.
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT user, kind FROM drilldown_history ORDER BY id").fetchall() == [
            ("ana", "change"), ("bo", "change"), ("ana", "change")]
    # Revert the delete: the song is back with its length; then the rename.
    rename, delete = entries[2]["id"], entries[0]["id"]
    drilldown("revert", db, str(delete), "--schema", schema, "--user", "bo", check=0)
    drilldown("revert", db, str(rename), "--schema", schema, "--user", "bo", check=0)
    now = songs(drilldown, db, schema)
    assert now[0] == before[0] and now[2] == before[2] and now[1] == ("Freddie Freeloader", "9:50")
    newest = history(drilldown, db, schema)[:2]
    assert [(e["user"], e["kind"], e["target"]) for e in newest] == [("bo", "revert", rename), ("bo", "revert", delete)]
