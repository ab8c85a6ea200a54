"""Filters and facets in the CLI (issue 33): `ls --where`, `find --where` at any depth, `--facet`, on
a document (Examples/Music/library.yaml) and on the relational Chinook database (SQL WHERE and
GROUP BY with bound values: an injection attempt in a value finds nothing and changes nothing)."""
import json
import sqlite3
import subprocess
import sys

import pytest

from conftest import EXAMPLES, ROOT

LIBRARY = EXAMPLES / "Music" / "library.yaml"
SCHEMA = ("--schema", EXAMPLES / "Music" / "schema.yaml")


@pytest.fixture(scope="module")
def chinook(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chinook")
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make-chinook.py"), str(folder)], check=True, capture_output=True)
    return folder / "chinook.sqlite"


def query(db, sql, *args):
    with sqlite3.connect(db) as c:
        return c.execute(sql, args).fetchall()


def ls_json(drilldown, *args):
    return json.loads(drilldown("ls", *args, "--json", check=0).stdout)


def test_ls_where_filters_a_level_by_a_duration_and_keeps_paths(drilldown):
    level = ls_json(drilldown, LIBRARY, *SCHEMA, "Miles Davis/Kind of Blue", "--where", "length>9:00")
    assert [(r["path"], r["title"]) for r in level["rows"]] == [
        ("0.0.0", "So What"), ("0.0.1", "Freddie Freeloader"), ("0.0.3", "All Blues"), ("0.0.4", "Flamenco Sketches")]
    assert level["total"] == 4
    both = ls_json(drilldown, LIBRARY, *SCHEMA, "Miles Davis/Kind of Blue", "--where", "length>9:00", "--where", "name~blue")
    assert [r["title"] for r in both["rows"]] == ["All Blues"]
    either = ls_json(drilldown, LIBRARY, *SCHEMA, "Miles Davis/Kind of Blue", "--where", "track in (1, 3) or name~FREDDIE")
    assert [r["title"] for r in either["rows"]] == ["So What", "Freddie Freeloader", "Blue in Green"]


def test_find_where_returns_rows_at_any_depth_with_their_paths(drilldown):
    out = json.loads(drilldown("find", LIBRARY, *SCHEMA, "--where", "kind=song and length>15:00", "--json", check=0).stdout)
    assert [(h["titlePath"], h["path"]) for h in out["hits"]] == [
        ("Miles Davis/Sketches of Spain/Concierto de Aranjuez (Adagio)", "0.1.0"),
        ("John Coltrane/Live at the Village Vanguard (radio session, 1h+)/Complete broadcast", "1.2.0")]
    text = drilldown("find", LIBRARY, *SCHEMA, "--where", "kind=song and length>15:00", check=0).stdout
    assert "0.1.0  Miles Davis/Sketches of Spain/Concierto de Aranjuez (Adagio)" in text
    assert text.strip().endswith("2 matches")


def test_bad_filters_exit_1_naming_the_column(drilldown):
    bad = drilldown("ls", LIBRARY, *SCHEMA, "0.0", "--where", "length>", check=1)
    assert "column 8" in bad.stderr and "expected a value" in bad.stderr
    unknown = drilldown("ls", LIBRARY, *SCHEMA, "0.0", "--where", "colour=red", check=1)
    assert "unknown field 'colour'" in unknown.stderr
    typed = drilldown("ls", LIBRARY, *SCHEMA, "0.0", "--where", "length>long", check=1)
    assert "column 8" in typed.stderr and "duration" in typed.stderr
    drilldown("find", LIBRARY, *SCHEMA, "--where", "(kind=song", check=1)


def test_facet_counts_a_field_over_a_level_and_a_filtered_level(drilldown):
    facet = json.loads(drilldown("ls", LIBRARY, *SCHEMA, "--facet", "genre", "--json", check=0).stdout)
    counts = {v["value"]: v["count"] for v in facet["values"]}
    assert counts["Jazz"] >= 3 and facet["rows"] == sum(counts.values()) + facet["missing"]
    text = drilldown("find", LIBRARY, *SCHEMA, "--where", "kind=song and length>10:00", "--facet", "length", check=0).stdout
    assert "16:19" in text and "1:02:05" in text


def test_chinook_where_is_the_rows_sql_finds(drilldown, chinook):
    album = query(chinook, "SELECT id FROM albums WHERE artist_id = 1 ORDER BY year, title, id")[0][0]
    expected = [n for (n,) in query(chinook, "SELECT name FROM songs WHERE album_id = ? ORDER BY track, id", album)]
    long = [n for (n, l) in query(chinook, "SELECT name, length FROM songs WHERE album_id = ? ORDER BY track, id", album) if l > 300]
    level = ls_json(drilldown, chinook, "0.0", "--where", "length>5:00")
    assert [r["title"] for r in level["rows"]] == long
    assert all(r["path"].startswith("0.0.") for r in level["rows"])
    assert {int(r["path"].split(".")[-1]) for r in level["rows"]} == {expected.index(n) for n in long}
    genres = ls_json(drilldown, chinook, "--where", "genre in (Rock, Jazz)", "--limit", "1000")
    names = [n for (n,) in query(chinook, "SELECT name FROM artists WHERE genre IN ('Rock', 'Jazz')")]
    assert genres["total"] == len(names) and sorted(r["title"] for r in genres["rows"]) == sorted(names)


def test_chinook_facet_is_sql_group_by(drilldown, chinook):
    facet = json.loads(drilldown("ls", chinook, "--facet", "genre", "--json", check=0).stdout)
    expected = query(chinook, "SELECT genre, COUNT(*) FROM artists GROUP BY genre ORDER BY 2 DESC, 1")
    assert [(v["value"], v["count"]) for v in facet["values"]] == expected
    assert facet["rows"] == 275
    filtered = json.loads(drilldown("ls", chinook, "--where", "name~davis", "--facet", "genre", "--json", check=0).stdout)
    assert sum(v["count"] for v in filtered["values"]) == len(query(chinook, "SELECT 1 FROM artists WHERE name LIKE '%davis%'"))


def test_chinook_injection_in_a_value_finds_nothing_and_changes_nothing(drilldown, chinook):
    before = query(chinook, "SELECT COUNT(*) FROM songs")
    for attempt in ["name=\"x'); DROP TABLE songs; --\"", "genre=\"Rock' OR '1'='1\"", "name~\"%' OR 1=1 --\""]:
        level = ls_json(drilldown, chinook, "--where", attempt)
        assert level["total"] == 0, attempt
    bad = drilldown("ls", chinook, "0.0", "--where", "length>1; DROP TABLE songs", check=1)
    assert "duration" in bad.stderr
    assert query(chinook, "SELECT COUNT(*) FROM songs") == before
