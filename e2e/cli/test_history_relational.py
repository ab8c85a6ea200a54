"""The audit history of a database read through its `levels:` mapping (the music example), SQLite
or PostgreSQL: each edit records who changed what in the database's own `drilldown_history` table,
in the edit's transaction; `drilldown history` lists it and `drilldown revert` takes a change back,
a deleted song coming back with its fields."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import urllib.parse
import uuid

import pytest

from conftest import EXAMPLES


@pytest.fixture
def music(tmp_path):
    for name in ("music.sqlite", "music.schema.yaml"):
        shutil.copy(EXAMPLES / "Music" / name, tmp_path / name)
    return tmp_path / "music.sqlite", tmp_path / "music.schema.yaml"


PG_URL = os.environ.get("DRILLDOWN_TEST_PG_URL", "")


def psql(url, *args):
    url = re.sub(r"[?&]sslmode=[^&]*", "", url)
    return subprocess.run(["psql", url, "-qtAX", "-v", "ON_ERROR_STOP=1", *args], capture_output=True, text=True, check=True,
                          timeout=60).stdout.strip()


@pytest.fixture
def postgres_music():
    """The music tables loaded with psql into a PostgreSQL database of their own, and the schema."""
    if not PG_URL:
        pytest.skip("DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")
    name = "music_" + uuid.uuid4().hex[:8]
    psql(PG_URL, "-c", f"CREATE DATABASE {name}")
    url = urllib.parse.urlunsplit(urllib.parse.urlsplit(PG_URL)._replace(path="/" + name))
    psql(url, "-f", str(EXAMPLES / "Music" / "music.postgres.sql"))
    yield url, EXAMPLES / "Music" / "music.schema.yaml"
    psql(PG_URL, "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


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


def test_postgres_edits_of_mapped_tables_are_recorded_in_the_database_and_revert(drilldown, postgres_music):
    url, schema = postgres_music
    before = songs(drilldown, url, schema)
    drilldown("set", url, "0.0.0", "--title", "So What (take 2)", "--schema", schema, "--user", "ana", check=0)
    drilldown("set", url, "0.0.1", "length=9:50", "--schema", schema, "--user", "bo", check=0)
    drilldown("rm", url, "0.0.2", "--schema", schema, "--user", "ana", check=0)
    entries = history(drilldown, url, schema)
    assert [(e["user"], e["summary"]) for e in entries] == [
        ("ana", "Delete of Blue in Green"),
        ("bo", "Change of length of Freddie Freeloader"),
        ("ana", "Rename of So What to So What (take 2)"),
    ]
    assert entries[1]["differences"] == [{"path": "0.0.1", "field": "length", "old": "586", "new": "590"}]
    # The records are in the database itself, beside the revision table, scoped to the mapped tables.
    assert psql(url, "-c", "SELECT username || ' ' || kind || ' ' || scope FROM drilldown_history ORDER BY id").splitlines() == [
        "ana change albums,artists,songs", "bo change albums,artists,songs", "ana change albums,artists,songs"]
    # Revert the delete: the song is back with its length; then the rename.
    rename, delete = entries[2]["id"], entries[0]["id"]
    drilldown("revert", url, str(delete), "--schema", schema, "--user", "bo", check=0)
    drilldown("revert", url, str(rename), "--schema", schema, "--user", "bo", check=0)
    now = songs(drilldown, url, schema)
    assert now[0] == before[0] and now[2] == before[2] and now[1] == ("Freddie Freeloader", "9:50")
    newest = history(drilldown, url, schema)[:2]
    assert [(e["user"], e["kind"], e["target"]) for e in newest] == [("bo", "revert", rename), ("bo", "revert", delete)]
    # Only what touched a node: the history of the album's second song.
    touching = json.loads(drilldown("history", url, "0.0.1", "--schema", schema, "--json", check=0).stdout)["entries"]
    assert [e["summary"] for e in touching] == ["Change of length of Freddie Freeloader"]
