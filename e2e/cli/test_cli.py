"""End-to-end tests of the `drilldown` CLI: the real binary on the examples, every format, bad input."""
import json
import os
import uuid

import pytest

from conftest import EXAMPLES

SEED = EXAMPLES / "Data.plist"

OPENSTEP_SEED = """// Examples/Data.plist in OpenStep text form
{
    Rows = (
        { Title = "Item 1"; Children = ( { Title = "Screen A"; } ); },
        { Title = "Item 2"; Children = ( { Title = "Screen B"; Children = ( { Title = "Screen C"; } ); } ); },
        { Title = "Item 3"; Children = ( { Title = "Screen D"; Children = ( { Title = "Screen E";
            Children = ( { Title = "Screen F"; } ); } ); } ); },
        { Title = "Item 4"; Children = ( { Title = "Screen G"; Children = ( { Title = "Screen H";
            Children = ( { Title = "Screen I"; Children = ( { Title = "Screen J"; } ); } ); } ); } ); }
    );
}
"""


@pytest.fixture(scope="module")
def seed_files(tmp_path_factory, drilldown):
    """The data of Examples/Data.plist in every format: XML plist (the example), JSON, YAML, binary and OpenStep plists,
    and a PostgreSQL tree table imported from it (when Scripts/test.sh started a server)."""
    d = tmp_path_factory.mktemp("seed")
    files = {"plist": SEED}
    for ext in ["json", "yaml", "bplist"]:
        out = d / f"Data.{ext}"
        drilldown("convert", SEED, out, check=0)
        files[ext] = out
    openstep = d / "Data.openstep"
    openstep.write_text(OPENSTEP_SEED)
    files["openstep"] = openstep
    pg = os.environ.get("DRILLDOWN_TEST_PG_URL", "")
    if pg:
        files["postgres"] = pg + ("&" if "?" in pg else "?") + f"table=seed_{uuid.uuid4().hex[:8]}"
        drilldown("convert", SEED, files["postgres"], check=0)
    return files


def ls_json(drilldown, file, path=None):
    args = ["ls", file] + ([path] if path is not None else []) + ["--json"]
    return json.loads(drilldown(*args, check=0).stdout)


@pytest.mark.parametrize("fmt", ["plist", "json", "yaml", "bplist", "openstep", "postgres"])
def test_seed_drills_level_by_level_in_every_format(drilldown, seed_files, fmt):
    if fmt not in seed_files:
        pytest.skip("DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")
    f = seed_files[fmt]
    root = ls_json(drilldown, f)
    assert root["title"] == "Root"
    assert root.get("backLabel") is None
    assert [r["title"] for r in root["rows"]] == ["Item 1", "Item 2", "Item 3", "Item 4"]
    assert all(r["drills"] for r in root["rows"])
    expected = [("3", "Item 4", "Root"), ("3.0", "Screen G", "Item 4"), ("3.0.0", "Screen H", "Screen G"),
                ("3.0.0.0", "Screen I", "Screen H")]
    for path, title, back in expected:
        level = ls_json(drilldown, f, path)
        assert (level["title"], level["backLabel"]) == (title, back)
        assert len(level["rows"]) == 1
    detail = json.loads(drilldown("show", f, "3.0.0.0.0", "--json", check=0).stdout)
    assert detail["title"] == "Screen J"
    assert detail["backLabel"] == "Screen I"
    assert detail["breadcrumbs"] == ["Root", "Item 4", "Screen G", "Screen H", "Screen I", "Screen J"]


def test_ls_text_shows_title_back_label_and_drill_markers(drilldown):
    out = drilldown("ls", SEED, "Item 4", check=0).stdout.splitlines()
    assert out[0] == "Item 4"
    assert out[1] == "‹ Root"
    assert out[2].split() == ["3.0", "Screen", "G", "›"]
    root = drilldown("ls", SEED, check=0).stdout.splitlines()
    assert root[:2] == ["Root", "(root)"]
    assert len(root) == 6


def test_ls_of_a_leaf_opens_its_detail(drilldown):
    out = drilldown("ls", SEED, "Item 4/Screen G/Screen H/Screen I/Screen J", check=0).stdout
    assert out.startswith("Screen J\n‹ Screen I\n")
    assert "path: 3.0.0.0.0" in out


def test_title_paths_and_tree_paths_name_the_same_node(drilldown):
    a = json.loads(drilldown("show", SEED, "3.0.0", "--json", check=0).stdout)
    b = json.loads(drilldown("show", SEED, "Item 4/Screen G/Screen H", "--json", check=0).stdout)
    assert a == b
    assert a["titlePath"] == "Item 4/Screen G/Screen H"


def test_tree_prints_an_outline_with_depth_limit(drilldown):
    out = drilldown("tree", SEED, check=0).stdout.splitlines()
    assert out[0] == "Root"
    assert out[1] == "├─ Item 1"
    assert out[2] == "│  └─ Screen A"
    assert out[-1].strip().endswith("Screen J")
    assert len(out) == 15
    shallow = drilldown("tree", SEED, "--depth", "1", check=0).stdout.splitlines()
    assert shallow == ["Root", "├─ Item 1  › 1", "├─ Item 2  › 1", "├─ Item 3  › 1", "└─ Item 4  › 1"]
    sub = json.loads(drilldown("tree", SEED, "3.0", "--json", check=0).stdout)
    assert sub["title"] == "Screen G"
    assert sub["children"][0]["children"][0]["title"] == "Screen I"


def test_find_lists_matches_with_paths(drilldown):
    out = drilldown("find", SEED, "screen j", check=0).stdout.splitlines()
    assert out == ["3.0.0.0.0  Item 4/Screen G/Screen H/Screen I/Screen J", "1 match"]
    res = json.loads(drilldown("find", SEED, "screen", "--json", "--limit", "3", check=0).stdout)
    assert res["total"] == 10
    assert [h["path"] for h in res["hits"]] == ["0.0", "1.0", "1.0.0"]


def test_music_library_uses_the_schema(drilldown):
    lib, schema = EXAMPLES / "Music" / "library.yaml", EXAMPLES / "Music" / "schema.yaml"
    root = ls_json(drilldown, lib, None) if False else json.loads(
        drilldown("ls", lib, "--schema", schema, "--json", check=0).stdout)
    assert root["title"] == "Music"
    # Artists sorted by name (schema `sort: title`, "The " ignored); paths name the file's order.
    assert (root["rows"][0]["title"], root["rows"][0]["path"]) == ("The Dave Brubeck Quartet", "2")
    songs = json.loads(drilldown("ls", lib, "Miles Davis/Kind of Blue", "--schema", schema, "--json", check=0).stdout)
    assert songs["title"] == "Kind of Blue"
    assert songs["backLabel"] == "Miles Davis"
    assert [(r["title"], r["subtitle"]) for r in songs["rows"][:2]] == [("So What", "9:22"), ("Freddie Freeloader", "9:46")]
    albums = json.loads(drilldown("ls", lib, "0", "--schema", schema, "--json", check=0).stdout)
    assert albums["rows"][0]["image"] == "art/kind-of-blue.png"
    live = json.loads(drilldown("ls", lib, "John Coltrane/Live at the Village Vanguard (radio session, 1h+)", "--schema", schema, "--json", check=0).stdout)
    assert live["rows"][0]["subtitle"] == "1:02:05"
    detail = drilldown("show", lib, "0.0.0", "--schema", schema, check=0).stdout
    assert "Length  9:22" in detail, "labelled as people read it"


def test_planets_have_optional_state_levels(drilldown):
    f, schema = EXAMPLES / "Planets" / "planets.json", EXAMPLES / "Planets" / "schema.yaml"
    usa = json.loads(drilldown("ls", f, "Earth/United States", "--schema", schema, "--json", check=0).stdout)
    assert [r["kind"] for r in usa["rows"]] == ["state", "state"]
    france = json.loads(drilldown("ls", f, "Earth/France", "--schema", schema, "--json", check=0).stdout)
    assert [r["kind"] for r in france["rows"]] == ["city", "city"]
    assert france["rows"][0]["subtitle"] == "2,102,650 people"
    paris = json.loads(drilldown("show", f, "Earth/France/Paris", "--schema", schema, "--json", check=0).stdout)
    assert {"key": "population", "label": "Population", "value": "2,102,650"} in paris["fields"]


def test_every_example_lists_and_prints_its_tree(drilldown):
    for data, schema in [(SEED, None), (EXAMPLES / "Music" / "library.yaml", EXAMPLES / "Music" / "schema.yaml"),
                         (EXAMPLES / "Planets" / "planets.json", EXAMPLES / "Planets" / "schema.yaml"),
                         (EXAMPLES / "Sounds" / "sounds.plist", EXAMPLES / "Sounds" / "schema.yaml")]:
        extra = ["--schema", schema] if schema else []
        drilldown("ls", data, *extra, check=0)
        assert len(drilldown("tree", data, *extra, check=0).stdout.splitlines()) > 3
        stats = json.loads(drilldown("stats", data, "--json", check=0).stdout)
        assert stats["nodes"] > 5 and stats["mode"] == "outline"


def test_generic_mode_browses_any_json(drilldown, tmp_path):
    f = tmp_path / "any.json"
    f.write_text('{"servers": [{"host": "a", "port": 80}, {"host": "b", "port": 443}], "debug": false}')
    root = ls_json(drilldown, f)
    assert root["title"] == "any.json"
    assert [r["title"] for r in root["rows"]] == ["servers", "debug"]
    detail = json.loads(drilldown("show", f, "servers/1/port", "--json", check=0).stdout)
    assert detail["value"] == "443" and detail["valueKind"] == "integer"
    forced = ls_json(drilldown, SEED) if False else json.loads(drilldown("ls", SEED, "--generic", "--json", check=0).stdout)
    assert [r["title"] for r in forced["rows"]] == ["Rows"]


def test_a_scalar_document_is_a_tree_of_one_leaf(drilldown, tmp_path):
    f = tmp_path / "answer.json"
    f.write_text("42\n")
    stats = json.loads(drilldown("stats", f, "--json", check=0).stdout)
    assert stats["nodes"] == 1
    assert "No items" in drilldown("ls", f, check=0).stdout


def test_convert_round_trips_through_every_format(drilldown, tmp_path):
    src = EXAMPLES / "Planets" / "planets.json"
    previous = src
    for ext in ["yaml", "plist", "bplist", "json"]:
        out = tmp_path / f"p.{ext}"
        drilldown("convert", previous, out, check=0)
        previous = out
    assert json.loads(previous.read_text()) == json.loads(src.read_text())


def test_stats_reports_counts_and_costs(drilldown):
    stats = json.loads(drilldown("stats", SEED, "--json", check=0).stdout)
    assert stats["nodes"] > 14
    assert stats["rows"] == 14
    assert stats["depth"] >= 5
    assert stats["bytesPerNode"] > 0
    text = drilldown("stats", SEED, check=0).stdout
    assert "load time" in text and "bytes/node" in text



def test_a_mapped_json_file_is_its_trees_text(drilldown, tmp_path):
    """A JSON file of 1 MiB or more is mapped and its tree's keys and values are slices of it (no
    copy): `stats` says so; the tree reads, searches and converts as from a copy, escapes and far
    values (more than 15 bytes after their key) included. A small file is copied as before."""
    rows = [{"Title": f"Row {i}", "note": "tab\there é" if i % 7 == 0 else f"plain {i}", "n": i} for i in range(30_000)]
    big = tmp_path / "big.json"
    big.write_text('{"Rows": [' + ",\n".join(
        json.dumps(r) if i % 5 else '{"Title"  :                    "Far %d", "n": %d}' % (i, i) for i, r in enumerate(rows)) + "]}")
    assert big.stat().st_size > 1 << 20
    stats = json.loads(drilldown("stats", big, "--json", check=0).stdout)
    assert stats["textInFile"] is True and stats["rows"] == 30_000
    assert "slices of the mapped file" in drilldown("stats", big, check=0).stdout
    small = tmp_path / "small.json"
    small.write_text('{"Rows": [{"Title": "a"}]}')
    assert json.loads(drilldown("stats", small, "--json", check=0).stdout)["textInFile"] is False
    found = drilldown("find", big, "Far 29995", check=0).stdout
    assert "Far 29995" in found
    out = tmp_path / "back.json"
    drilldown("convert", big, out, check=0)
    assert json.loads(out.read_text()) == json.loads(big.read_text())


# --- bad input: one clear message with file, line and column, exit status 1 -----------------

BAD = {
    "truncated.json": (b'{"Rows": [{"Title": "a"', r"truncated\.json:1:\d+"),
    "trailing-comma.json": (b'{\n  "a": 1,\n}\n', r"trailing-comma\.json:3:1"),
    "unclosed.plist": (b'<?xml version="1.0"?>\n<plist version="1.0">\n<dict>\n  <key>a</key>\n  <string>b</string>\n</plist>\n',
                       r"unclosed\.plist:\d+:\d+"),
    "bad-utf8.json": (b'{"a": "caf\xe9"}', r"bad-utf8\.json:1:\d+"),
    "corrupt.bplist": (b"bplist00\xd1\x01\x02\x51a\x10\x01\x08\x0b\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff",
                       r"corrupt\.bplist"),
    "empty.json": (b"", r"empty\.json"),
    "garbage.json": (b'{"a": 1} xyz', r"garbage\.json:1:10"),
    "bad-indent.yaml": (b"a:\n  b: 1\n c: 2\n", r"bad-indent\.yaml:3:\d+"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_files_give_one_clear_error_and_exit_1(drilldown, tmp_path, name):
    import re
    content, pattern = BAD[name]
    f = tmp_path / name
    f.write_bytes(content)
    for cmd in (["ls", f], ["stats", f]):
        proc = drilldown(*cmd, timeout=20)
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr
        assert re.search(pattern, lines[0]), lines[0]
        assert "error" in lines[0]


def test_a_missing_file_is_bad_input(drilldown, tmp_path):
    proc = drilldown("ls", tmp_path / "nope.json")
    assert proc.returncode == 1
    assert "nope.json" in proc.stderr


def test_a_path_outside_the_tree_is_bad_input(drilldown):
    proc = drilldown("ls", SEED, "3.7")
    assert proc.returncode == 1
    assert "Data.plist" in proc.stderr and "3.7" in proc.stderr
    proc = drilldown("show", SEED, "Item 9")
    assert proc.returncode == 1
    assert "no child titled 'Item 9'" in proc.stderr


def test_a_bad_schema_is_bad_input(drilldown, tmp_path):
    s = tmp_path / "schema.yaml"
    s.write_text("kinds:\n  song:\n    subtitle: '{length|shout}'\n")
    proc = drilldown("ls", SEED, "--schema", s)
    assert proc.returncode == 1
    assert "kinds.song.subtitle" in proc.stderr and "shout" in proc.stderr


def test_usage_errors_exit_2(drilldown):
    assert drilldown("ls").returncode == 2
    assert drilldown("ls", SEED, "--bogus").returncode == 2
    assert drilldown("tree", SEED, "--depth", "-1").returncode == 2
    assert drilldown("convert", SEED, "out.unknownext").returncode == 2
    assert drilldown("frobnicate").returncode == 2


def test_convert_never_leaves_a_half_written_file(drilldown, tmp_path):
    out = tmp_path / "out.json"
    out.write_text('{"keep": true}')
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": ')
    assert drilldown("convert", bad, out).returncode == 1
    assert out.read_text() == '{"keep": true}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "out.json"]


@pytest.mark.parametrize("args", [["Screen"], ["screen", "--limit", "3"], ["item", "--values"], ["%"], ["nothing like it"]])
def test_find_on_a_postgresql_table_answers_as_on_the_file(drilldown, seed_files, args):
    """The table's search goes through its trigram index; the hits, their order and the count are the file's."""
    if "postgres" not in seed_files:
        pytest.skip("DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")
    on_file = drilldown("find", seed_files["plist"], *args, "--json", check=0).stdout
    on_table = drilldown("find", seed_files["postgres"], *args, "--json", check=0).stdout
    assert json.loads(on_table) == json.loads(on_file)
