"""End-to-end tests of the SQLite store through the real binary: documents converted to and from
tree tables, reading and editing a tree table, a relational database browsed through a schema's
`levels:`, and bad databases failing with exit status 1 and one clear line.
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import EXAMPLES, ROOT, drilldown_bin

PLANETS = EXAMPLES / "Planets" / "planets.json"


def rows(drilldown, *args):
    return json.loads(drilldown("ls", *args, "--json", check=0).stdout)["rows"]


@pytest.fixture
def planets_db(drilldown, tmp_path):
    """Examples/Planets/planets.json imported into a tree table."""
    db = tmp_path / "planets.sqlite"
    drilldown("convert", PLANETS, db, check=0)
    return db


def test_convert_json_to_sqlite_and_back_is_lossless(drilldown, tmp_path, planets_db):
    assert planets_db.read_bytes().startswith(b"SQLite format 3\0")
    back = tmp_path / "back.json"
    result = drilldown("convert", planets_db, back, check=0)
    assert "wrote" in result.stderr
    assert json.loads(back.read_text()) == json.loads(PLANETS.read_text())
    with sqlite3.connect(planets_db) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT value FROM meta WHERE key = 'documentFormat'").fetchone()[0] == "json"
        assert db.execute("SELECT COUNT(*) FROM nodes WHERE parent IS NULL").fetchone()[0] == 1


def test_every_kind_survives_the_round_trip(drilldown, tmp_path):
    doc = {"int": 42, "str42": "42", "real": 42.5, "neg": -1e-7, "t": True, "f": False, "nil": None,
           "empty": {}, "list": [], "clé ✓ 日本語": "🎵", "nested": [[[]], {"x": [1, 2.5, "3"]}]}
    src = tmp_path / "kinds.json"
    src.write_text(json.dumps(doc))
    drilldown("convert", src, tmp_path / "kinds.db", check=0)
    drilldown("convert", tmp_path / "kinds.db", tmp_path / "back.json", check=0)
    assert json.loads((tmp_path / "back.json").read_text()) == doc


def test_ls_find_tree_and_stats_read_a_tree_table(drilldown, planets_db):
    assert [r["title"] for r in rows(drilldown, planets_db)] == [r["title"] for r in rows(drilldown, PLANETS)]
    assert rows(drilldown, planets_db, "0") == rows(drilldown, PLANETS, "0")
    found = drilldown("find", planets_db, "moon", check=0).stdout
    assert found == drilldown("find", PLANETS, "moon", check=0).stdout
    assert drilldown("tree", planets_db, check=0).stdout == drilldown("tree", PLANETS, check=0).stdout
    stats = json.loads(drilldown("stats", planets_db, "--json", check=0).stdout)
    assert stats["format"] == "sqlite"
    assert stats["nodes"] == json.loads(drilldown("stats", PLANETS, "--json", check=0).stdout)["nodes"]


def test_set_on_a_tree_table_saves_into_the_database(drilldown, tmp_path, planets_db):
    first = rows(drilldown, planets_db)[0]["title"]
    out = drilldown("set", planets_db, "0", "--title", "Terra", "moons=1", check=0).stdout
    assert out.strip() == "0"
    assert rows(drilldown, planets_db)[0]["title"] == "Terra"
    detail = json.loads(drilldown("show", planets_db, "0", "--json", check=0).stdout)
    assert {f["key"]: f["value"] for f in detail["fields"]}["moons"] == "1"
    assert planets_db.read_bytes().startswith(b"SQLite format 3\0"), "still a database, not rewritten as a document"
    drilldown("convert", planets_db, tmp_path / "edited.json", check=0)
    edited = json.loads((tmp_path / "edited.json").read_text())
    assert first != "Terra" and "Terra" in json.dumps(edited)


@pytest.fixture
def music(tmp_path):
    """An artists/albums/songs database made with python's sqlite3, and a schema mapping it by levels."""
    db = tmp_path / "music.db"
    with sqlite3.connect(db) as c:
        c.executescript("""
            CREATE TABLE artists(id INTEGER PRIMARY KEY, name TEXT, country TEXT);
            CREATE TABLE albums(id INTEGER PRIMARY KEY, artist_id INTEGER, title TEXT, year INTEGER);
            CREATE TABLE songs(id INTEGER PRIMARY KEY, album_id INTEGER, name TEXT, track INTEGER, length INTEGER);
            INSERT INTO artists VALUES (1, 'Miles Davis', 'US'), (2, 'John Coltrane', 'US');
            INSERT INTO albums VALUES (1, 1, 'Sketches of Spain', 1960), (2, 1, 'Kind of Blue', 1959),
                                      (3, 2, 'A Love Supreme', 1965);
            INSERT INTO songs VALUES (1, 2, 'Freddie Freeloader', 2, 586), (2, 2, 'So What', 1, 562),
                                     (3, 3, 'Acknowledgement', 1, 469), (4, 1, 'Solea', 5, 735);
        """)
    schema = tmp_path / "schema.yaml"
    schema.write_text("""title: Music
kinds:
  song: { title: "{name}", subtitle: "{length|duration}" }
levels:
  - { table: artists, title: name, key: id }
  - { table: albums, title: title, parent: artist_id, key: id, order: year }
  - { table: songs, title: name, parent: album_id, order: track, kind: song }
""")
    return db, schema


def test_a_relational_database_browses_through_the_schemas_levels(drilldown, music):
    db, schema = music
    listing = json.loads(drilldown("ls", db, "--schema", schema, "--json", check=0).stdout)
    assert listing["title"] == "Music"
    assert [r["title"] for r in listing["rows"]] == ["Miles Davis", "John Coltrane"]
    albums = rows(drilldown, db, "Miles Davis", "--schema", schema)
    assert [r["title"] for r in albums] == ["Kind of Blue", "Sketches of Spain"], "ordered by year"
    songs = rows(drilldown, db, "Miles Davis/Kind of Blue", "--schema", schema)
    assert [(r["title"], r["subtitle"]) for r in songs] == [("So What", "9:22"), ("Freddie Freeloader", "9:46")]
    detail = json.loads(drilldown("show", db, "0.0.0", "--schema", schema, "--json", check=0).stdout)
    assert {f["key"] for f in detail["fields"]} == {"track", "length"}
    found = drilldown("find", db, "so", "--schema", schema, check=0).stdout
    assert "Miles Davis/Kind of Blue/So What" in found
    assert "John Coltrane" in drilldown("tree", db, "--schema", schema, check=0).stdout


def test_a_relational_database_is_edited_in_its_tables_and_a_bad_edit_changes_nothing(drilldown, music):
    db, schema = music
    before = db.read_bytes()
    result = drilldown("set", db, "0", "x=1", "--schema", schema, check=1)
    assert "no field 'x'; its fields: name, country" in result.stderr
    assert db.read_bytes() == before
    drilldown("set", db, "0", "country=FR", "--schema", schema, check=0)
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT country FROM artists WHERE name = 'Miles Davis'").fetchone() == ("FR",)


@pytest.mark.parametrize("levels, message", [
    ("- { table: artists, title: name }\n  - { table: albumz, title: title, parent: artist_id }", "table 'albumz' does not exist"),
    ("- { table: artists, title: name }\n  - { table: albums, title: titel, parent: artist_id }", "column 'titel' (title) does not exist"),
    ("- { table: artists, title: name }\n  - { table: albums, title: title }", "no 'parent' column"),
    ("- { table: artists, title: name }\n  - { table: albums, title: title, parent: artist_id, children: artists }", "cycle"),
])
def test_a_malformed_mapping_is_one_clear_line_and_exit_1(drilldown, music, tmp_path, levels, message):
    db, _ = music
    schema = tmp_path / "bad.yaml"
    schema.write_text(f"levels:\n  {levels}\n")
    result = drilldown("ls", db, "--schema", schema, check=1)
    assert message in result.stderr
    assert "level 2" in result.stderr and "music.db" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_corrupt_database_exits_1_with_a_clear_message(drilldown, tmp_path):
    bad = tmp_path / "corrupt.sqlite"
    bad.write_bytes(b"SQLite format 3\0" + bytes(range(256)) * 16)
    for command in (["ls", bad], ["convert", bad, tmp_path / "out.json"], ["set", bad, "0", "x=1"]):
        result = drilldown(*command, check=1)
        assert result.stderr.startswith(f"drilldown: {bad}: ")
        assert "not an SQLite database" in result.stderr or "corrupt" in result.stderr
        assert "Fatal error" not in result.stderr
    assert not (tmp_path / "out.json").exists()


def test_a_database_without_a_tree_table_says_to_give_levels(drilldown, music):
    db, _ = music
    result = drilldown("ls", db, check=1)
    assert "levels:" in result.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "delete", "reading never switches the database to WAL"


def test_killing_a_write_leaves_the_previous_or_the_new_tree(drilldown, tmp_path, planets_db):
    """SIGKILL at several moments of a large import into an existing tree table: the database always
    reads back whole, as the old tree or the new one, never half-written."""
    big = tmp_path / "big.json"
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-json.py"), "--nodes", "200000", str(big)], check=True)
    expected_new = json.loads(big.read_text())
    expected_old = json.loads(PLANETS.read_text())
    start = time.monotonic()
    drilldown("convert", big, tmp_path / "timing.sqlite", check=0)
    duration = time.monotonic() - start
    for fraction in (0.2, 0.4, 0.6, 0.75, 0.9):
        drilldown("convert", PLANETS, planets_db, check=0)
        proc = subprocess.Popen([drilldown_bin(), "convert", str(big), str(planets_db)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(duration * fraction)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        out = tmp_path / "after.json"
        drilldown("convert", planets_db, out, check=0)
        after = json.loads(out.read_text())
        assert after in (expected_old, expected_new), f"killed at {fraction:.0%}: neither the old nor the new tree"
