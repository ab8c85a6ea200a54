"""`drilldown add/set/rm/mv/run` on the relational music example (issue 10, item 3): the schema
beside music.sqlite maps its tables, and every command writes the rows it changes."""
import shutil
import sqlite3

import pytest

from conftest import EXAMPLES


@pytest.fixture
def music(tmp_path):
    for name in ("music.sqlite", "music.schema.yaml"):
        shutil.copy(EXAMPLES / "Music" / name, tmp_path / name)
    return tmp_path / "music.sqlite"


def query(db, sql, *args):
    with sqlite3.connect(db) as c:
        return c.execute(sql, args).fetchall()


def test_add_set_rm_mv_run_write_the_tables(drilldown, music):
    assert drilldown("add", music, "Miles Davis/Kind of Blue", "Nardis", "--attr", "length=351", check=0).stdout.strip() == "0.0.5"
    assert query(music, "SELECT album_id, track, length, typeof(length) FROM songs WHERE name = 'Nardis'") == [(1, 6, 351, "integer")]
    drilldown("set", music, "Miles Davis/Kind of Blue/Nardis", "length=400", "--title", "Nardis (alt)", check=0)
    assert query(music, "SELECT length FROM songs WHERE name = 'Nardis (alt)'") == [(400,)]
    assert drilldown("mv", music, "0.0.5", "--up", check=0).stdout.strip() == "0.0.4"
    assert [n for (n,) in query(music, "SELECT name FROM songs WHERE album_id = 1 ORDER BY track")][-2:] == ["Nardis (alt)", "Flamenco Sketches"]
    drilldown("run", music, "0.0.0", "play", check=0)
    drilldown("run", music, "0.0.0", "play", check=0)
    assert query(music, "SELECT plays FROM songs WHERE name = 'So What'") == [(2,)]
    drilldown("add", music, "Miles Davis", "Bitches Brew", "--attr", "year=1970", check=0)
    assert query(music, "SELECT year, typeof(year) FROM albums WHERE title = 'Bitches Brew'") == [(1970, "integer")]
    drilldown("rm", music, "Miles Davis", check=0)
    assert query(music, "SELECT COUNT(*) FROM artists WHERE name = 'Miles Davis'") == [(0,)]
    assert query(music, "SELECT COUNT(*) FROM albums WHERE artist_id = 1") == [(0,)]
    assert query(music, "SELECT COUNT(*) FROM songs WHERE album_id IN (1, 2)") == [(0,)]
    assert query(music, "PRAGMA foreign_key_check") == []


@pytest.mark.parametrize("args, message", [
    (["set", "0.0.0", "colour=red"], "no field 'colour'; its fields: name, track, length, plays"),
    (["set", "0.0.0", "length=long"], "'length' takes a duration (m:ss, h:mm:ss or seconds), not 'long'"),
    (["add", "John Coltrane", "Giant Steps"], "'year' is required"),
    (["mv", "0.1", "--up"], "is ordered by year, title"),
    (["mv", "0.0.0", "1"], "can only move under a row of level 'albums'"),
])
def test_bad_edits_are_one_clear_line_exit_1_and_change_nothing(drilldown, music, args, message):
    before = [query(music, f"SELECT * FROM {t} ORDER BY id") for t in ("artists", "albums", "songs")]
    result = drilldown(args[0], music, *args[1:], check=1)
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert [query(music, f"SELECT * FROM {t} ORDER BY id") for t in ("artists", "albums", "songs")] == before


def test_the_schema_beside_the_database_is_found_and_an_explicit_one_wins(drilldown, music, tmp_path):
    listing = drilldown("ls", music, "John Coltrane", check=0).stdout
    assert "Blue Train" in listing and "1957" in listing
    other = tmp_path / "flat.yaml"
    other.write_text("levels:\n  - { table: songs, title: name }\n")
    assert "So What" in drilldown("ls", music, "--schema", other, check=0).stdout
