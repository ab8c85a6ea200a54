"""`drilldown ls` on a sectioned level (schema `section:` and `index:`, issue 12 item 1): headers in
the text listing, sections and the index in `--json`; TreePaths name the rows' places in the data.
The bundled music library's artists are sorted (`sort: title`, issue 30 item 4), so its sections
read A–Z; `ls --sort` and `tree` show the same order."""
import json

from conftest import EXAMPLES

MUSIC, SCHEMA = EXAMPLES / "Music" / "library.yaml", EXAMPLES / "Music" / "schema.yaml"


def test_ls_prints_section_headers_of_the_music_library(drilldown):
    lines = drilldown("ls", MUSIC, "--schema", SCHEMA, check=0).stdout.splitlines()
    heads = [l for l in lines if l.startswith("── ")]
    assert heads == ["── D ──", "── H ──", "── J ──", "── M ──"], lines
    assert lines[lines.index("── J ──") + 1].split()[:3] == ["1", "John", "Coltrane"]
    # A window that starts inside a section repeats its header first.
    window = drilldown("ls", MUSIC, "--schema", SCHEMA, "--offset", "3", check=0).stdout.splitlines()
    assert [l for l in window if l.startswith("── ")] == ["── M ──"]


def test_ls_json_carries_sections_and_the_index(drilldown):
    level = json.loads(drilldown("ls", MUSIC, "--schema", SCHEMA, "--json", check=0).stdout)
    assert level["sections"] == [{"title": t, "start": i, "count": 1} for i, t in enumerate("DHJM")]
    assert [e["title"] for e in level["index"]] == list("DHJM")
    assert [r["path"] for r in level["rows"]] == ["2", "3", "1", "0"]
    albums = json.loads(drilldown("ls", MUSIC, "0", "--schema", SCHEMA, "--json", check=0).stdout)
    assert "sections" not in albums or albums["sections"] is None


def test_the_sqlite_music_library_is_sectioned_the_same_way(drilldown):
    level = json.loads(drilldown("ls", EXAMPLES / "Music" / "music.sqlite", "--json", check=0).stdout)
    assert [s["title"] for s in level["sections"]] == list("MJTH")


def test_ls_sorts_by_the_schema_and_by_sort(drilldown):
    rows = [l.split()[0] for l in drilldown("ls", MUSIC, "--schema", SCHEMA, check=0).stdout.splitlines()[2:] if not l.startswith("──")]
    assert rows == ["2", "3", "1", "0"]
    # --sort re-sorts one level: albums by year, newest first; 'none' is the file's order.
    albums = json.loads(drilldown("ls", MUSIC, "1", "--schema", SCHEMA, "--sort=-year", "--json", check=0).stdout)
    years = [r["subtitle"] for r in albums["rows"]]
    assert years == sorted(years, reverse=True) and len(years) > 1
    plain = json.loads(drilldown("ls", MUSIC, "--schema", SCHEMA, "--sort", "none", "--json", check=0).stdout)
    assert [r["path"] for r in plain["rows"]] == ["0", "1", "2", "3"]
    assert [e["title"] for e in plain["index"]] == list("MJDH")
    bad = drilldown("ls", MUSIC, "--schema", SCHEMA, "--sort", "{year", check=None)
    assert bad.returncode != 0 and "--sort" in bad.stderr


def test_tree_shows_sorted_levels_with_their_data_paths(drilldown):
    out = drilldown("tree", MUSIC, "--schema", SCHEMA, "--depth", "1", "--paths", check=0).stdout.splitlines()
    assert [l.split()[1] for l in out[1:]] == ["2", "3", "1", "0"]
    nested = json.loads(drilldown("tree", MUSIC, "--schema", SCHEMA, "--depth", "1", "--json", check=0).stdout)
    assert [c["path"] for c in nested["children"]] == ["2", "3", "1", "0"]
