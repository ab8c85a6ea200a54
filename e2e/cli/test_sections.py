"""`drilldown ls` on a sectioned level (schema `section:` and `index:`, issue 12 item 1): headers in
the text listing, sections and the index in `--json`; TreePaths stay row indices."""
import json

from conftest import EXAMPLES

MUSIC, SCHEMA = EXAMPLES / "Music" / "library.yaml", EXAMPLES / "Music" / "schema.yaml"


def test_ls_prints_section_headers_of_the_music_library(drilldown):
    lines = drilldown("ls", MUSIC, "--schema", SCHEMA, check=0).stdout.splitlines()
    heads = [l for l in lines if l.startswith("── ")]
    assert heads == ["── M ──", "── J ──", "── T ──", "── H ──"], lines
    assert lines[lines.index("── J ──") + 1].split()[:3] == ["1", "John", "Coltrane"]
    # A window that starts inside a section repeats its header first.
    window = drilldown("ls", MUSIC, "--schema", SCHEMA, "--offset", "3", check=0).stdout.splitlines()
    assert [l for l in window if l.startswith("── ")] == ["── H ──"]


def test_ls_json_carries_sections_and_the_index(drilldown):
    level = json.loads(drilldown("ls", MUSIC, "--schema", SCHEMA, "--json", check=0).stdout)
    assert level["sections"] == [{"title": t, "start": i, "count": 1} for i, t in enumerate("MJTH")]
    assert [e["title"] for e in level["index"]] == list("MJTH")
    assert [r["path"] for r in level["rows"]] == ["0", "1", "2", "3"]
    albums = json.loads(drilldown("ls", MUSIC, "0", "--schema", SCHEMA, "--json", check=0).stdout)
    assert "sections" not in albums or albums["sections"] is None


def test_the_sqlite_music_library_is_sectioned_the_same_way(drilldown):
    level = json.loads(drilldown("ls", EXAMPLES / "Music" / "music.sqlite", "--json", check=0).stdout)
    assert [s["title"] for s in level["sections"]] == list("MJTH")
