"""CSV and OPML through the real binary (issue 33): a level of the relational Chinook songs written
as CSV and read back by Python's csv module equal to the level; CSV read back with values typed by a
schema; OPML 2.0 samples (e2e/cli/data/opml) through DrillDown and back keeping titles, nesting,
attributes and the head (compared with xml.etree); malformed CSV and OPML refused with exit 1,
line:column and nothing written. And progress: `convert` into SQLite on a terminal (a pty) draws one
line rewritten with \\r at most 10 times a second, and nothing when piped; `serve` of a big file says
what it loads."""
import csv
import io
import json
import os
import pty
import re
import select
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, drilldown_bin

OPML_SAMPLES = sorted((ROOT / "e2e" / "cli" / "data" / "opml").glob("*.opml"))


@pytest.fixture(scope="module")
def chinook(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chinook")
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make-chinook.py"), str(folder)], check=True, capture_output=True)
    return folder / "chinook.sqlite", folder / "chinook.schema.yaml"


def level_json(drilldown, *args):
    return json.loads(drilldown("ls", *args, "--json", check=0).stdout)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_chinook_songs_to_csv_read_back_by_python_equal_the_level(drilldown, chinook, tmp_path):
    db, schema = chinook
    out = tmp_path / "songs.csv"
    proc = drilldown("convert", db, out, "--schema", schema, "--level", "0.0", check=0)
    assert "wrote" in proc.stderr and "(csv," in proc.stderr
    assert out.read_bytes().endswith(b"\r\n")
    table = read_csv(out)
    header, rows = table[0], table[1:]
    assert header == ["name", "track", "length", "composer", "genre", "plays"]
    level = level_json(drilldown, db, "0.0", "--schema", schema)
    assert [r[0] for r in rows] == [r["title"] for r in level["rows"]]
    artist = level_json(drilldown, db, "--schema", schema, "--limit", "1")["rows"][0]["title"]
    album = level_json(drilldown, db, "0", "--schema", schema, "--limit", "1")["rows"][0]["title"]
    con = sqlite3.connect(db)
    try:
        (album_id,) = con.execute(
            "SELECT albums.id FROM albums JOIN artists ON artists.id = albums.artist_id WHERE artists.name = ? AND albums.title = ?",
            (artist, album)).fetchone()
        want = con.execute("SELECT name, track, length, composer, genre, plays FROM songs WHERE album_id = ? ORDER BY track", (album_id,)).fetchall()
    finally:
        con.close()
    assert rows == [["" if v is None else str(v) for v in row] for row in want]


def test_every_level_of_chinook_albums_is_a_csv_with_the_tables_columns(drilldown, chinook, tmp_path):
    db, schema = chinook
    out = tmp_path / "albums.csv"
    drilldown("convert", db, out, "--schema", schema, "--level", "0", check=0)
    table = read_csv(out)
    assert table[0] == ["title", "year"]
    assert [r[0] for r in table[1:]] == [r["title"] for r in level_json(drilldown, db, "0", "--schema", schema)["rows"]]


def test_a_document_level_with_awkward_values_round_trips_through_python_csv(drilldown, tmp_path):
    records = [
        {"title": "Kind of Blue", "year": 1959, "note": 'says "so what", then\nleaves', "tags": "modal, cool"},
        {"title": "Zoë's Ørkester — 東京", "year": 2001, "note": "  padded  "},
        {"title": "A, B", "note": ""},
    ]
    src = tmp_path / "albums.json"
    src.write_text(json.dumps({"rows": records}), encoding="utf-8")
    out = tmp_path / "albums.csv"
    drilldown("convert", src, out, check=0)
    with open(out, newline="", encoding="utf-8") as f:
        got = list(csv.DictReader(f))
    assert [r["title"] for r in got] == [r["title"] for r in records]
    assert got[0]["note"] == records[0]["note"] and got[1]["note"] == "  padded  " and got[0]["tags"] == "modal, cool"
    assert got[0]["year"] == "1959" and got[2]["year"] == ""
    # Python writes it, DrillDown reads it: the same rows, numbers typed.
    again = tmp_path / "python.csv"
    with open(again, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(got[0].keys()))
        writer.writeheader()
        writer.writerows(got)
    back = tmp_path / "back.json"
    drilldown("convert", again, back, check=0)
    rows = json.loads(back.read_text(encoding="utf-8"))["rows"]
    assert rows[0] == {"title": "Kind of Blue", "year": 1959, "note": records[0]["note"], "tags": "modal, cool"}
    assert rows[2] == {"title": "A, B"}


def test_a_schema_types_csv_values_and_a_refused_value_names_line_and_column(drilldown, tmp_path):
    schema = tmp_path / "songs.schema.yaml"
    schema.write_text("kinds:\n  song:\n    fields:\n      - { key: length, type: duration }\n      - { key: plays, type: integer }\n")
    good = tmp_path / "songs.csv"
    good.write_text("name,length,plays\r\nSo What,9:22,3\r\nBlue in Green,5:37,\r\n", encoding="utf-8")
    out = tmp_path / "songs.json"
    drilldown("convert", good, out, "--schema", schema, "--kind", "song", check=0)
    assert json.loads(out.read_text())["rows"] == [{"name": "So What", "length": 562, "plays": 3}, {"name": "Blue in Green", "length": 337}]
    bad = tmp_path / "bad.csv"
    bad.write_text("name,length\nSo What,9:22\nFreddie,soon\n", encoding="utf-8")
    proc = drilldown("convert", bad, tmp_path / "bad.json", "--schema", schema, check=1)
    assert "bad.csv:3:9: error:" in proc.stderr and "'length' takes a duration" in proc.stderr
    assert not (tmp_path / "bad.json").exists()


@pytest.mark.parametrize("text,where,message", [
    ('a,b\n1,"two\n3,4\n', "2:3", "unterminated quoted field"),
    ("a,b\n1,2\n3,4,5\n", "3:5", "this record has 3 fields; the header has 2"),
    ("a,b\n1,2\n3\n", "3:2", "this record has 1 field; the header has 2"),
])
def test_malformed_csv_is_exit_1_with_line_and_column_and_nothing_written(drilldown, tmp_path, text, where, message):
    bad = tmp_path / "bad.csv"
    bad.write_text(text, encoding="utf-8")
    for out in (tmp_path / "out.json", tmp_path / "out.sqlite"):
        proc = drilldown("convert", bad, out, check=1)
        assert f"bad.csv:{where}: error: {message}" in proc.stderr, proc.stderr
        assert not out.exists()


def outline_tree(element):
    """An <outline>'s text, other attributes and children, as xml.etree reads them."""
    attributes = {k: v for k, v in element.attrib.items() if k != "text"}
    return (element.get("text", ""), attributes, [outline_tree(c) for c in element.findall("outline")])


def opml_tree(path):
    root = ET.parse(path).getroot()
    head = {child.tag: (child.text or "") for child in root.find("head")} if root.find("head") is not None else {}
    return head, [outline_tree(o) for o in root.find("body").findall("outline")]


@pytest.mark.parametrize("sample", OPML_SAMPLES, ids=[p.name for p in OPML_SAMPLES])
@pytest.mark.parametrize("via", ["opml", "json", "sqlite"])
def test_opml_samples_keep_titles_nesting_attributes_and_head(drilldown, tmp_path, sample, via):
    out = tmp_path / "out.opml"
    if via == "opml":
        drilldown("convert", sample, out, check=0)
    else:
        middle = tmp_path / f"middle.{via}"
        drilldown("convert", sample, middle, check=0)
        drilldown("convert", middle, out, check=0)
    assert opml_tree(out) == opml_tree(sample)
    assert ET.parse(out).getroot().get("version") == "2.0"


def test_an_opml_file_browses_as_its_outline(drilldown):
    sample = ROOT / "e2e" / "cli" / "data" / "opml" / "states.opml"
    level = level_json(drilldown, sample, "United States/Far West/Nevada")
    assert [r["title"] for r in level["rows"]] == ["Reno", "Las Vegas", "Ely", "Gerlach"]
    assert level_json(drilldown, sample)["title"] == "states.opml"


def test_a_subtree_of_a_database_is_written_as_opml(drilldown, chinook, tmp_path):
    db, schema = chinook
    out = tmp_path / "artist.opml"
    drilldown("convert", db, out, "--schema", schema, "--level", "0", check=0)
    head, outlines = opml_tree(out)
    albums = level_json(drilldown, db, "0", "--schema", schema)["rows"]
    assert [o[0] for o in outlines] == [a["title"] for a in albums]
    songs = level_json(drilldown, db, "0.0", "--schema", schema)["rows"]
    assert [s[0] for s in outlines[0][2]] == [s["title"] for s in songs]
    assert set(outlines[0][2][0][1]) >= {"track", "length"}


@pytest.mark.parametrize("text,where,message", [
    ('<opml version="2.0">\n<body>\n<outline text="a">\n</body></opml>\n', "4:1", "expected </outline>"),
    ('<opml version="2.0"><body>\n  <outline text="a & b"/></body></opml>\n', "2:20", "'&' must start an entity"),
    ('<opml version="2.0"><body>\n  <outline text="x"/>\n  <outline text="y"\n', "3:3", "unterminated tag"),
])
def test_malformed_opml_is_exit_1_with_line_and_column_and_nothing_written(drilldown, tmp_path, text, where, message):
    bad = tmp_path / "bad.opml"
    bad.write_text(text, encoding="utf-8")
    proc = drilldown("convert", bad, tmp_path / "out.json", check=1)
    assert f"bad.opml:{where}: error:" in proc.stderr and message in proc.stderr, proc.stderr
    assert not (tmp_path / "out.json").exists()


# ---- Progress -------------------------------------------------------------------------------------

def big_json(path, records):
    with open(path, "w") as f:
        f.write('{"rows": [')
        for i in range(records):
            f.write(("," if i else "") + f'{{"title": "Row {i}", "n": {i}, "s": "text {i % 97}", "r": {i / 7:.3f}}}')
        f.write("]}")


def run_on_pty(args):
    """Runs the binary with stderr (and stdout) on a pseudo-terminal; returns (exit status, output, seconds)."""
    leader, follower = pty.openpty()
    started = time.monotonic()
    proc = subprocess.Popen([drilldown_bin(), *map(str, args)], stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            proc.kill()
            pytest.fail("no output from the process on the pty within 120 s")
        try:
            data = os.read(leader, 65536)
        except OSError:  # the process closed the terminal: it has ended
            break
        if not data:
            break
        chunks.append(data)
    status = proc.wait(timeout=60)
    os.close(leader)
    return status, b"".join(chunks).decode("utf-8", "replace"), time.monotonic() - started


def test_convert_into_sqlite_shows_progress_on_a_terminal_at_most_10_times_a_second_and_none_when_piped(drilldown, tmp_path):
    src = tmp_path / "big.json"
    big_json(src, 250_000)  # 1 250 002 nodes
    status, out, seconds = run_on_pty(["convert", src, tmp_path / "big.sqlite"])
    assert status == 0, out
    draws = [d for d in out.split("\r") if "nodes written" in d]
    assert draws, out
    assert re.search(r"[\d,]+ of 1,250,002 nodes written \(\d+ %\) · [\d,]+ nodes/s · ETA \d+", out) or len(draws) == 1, out
    assert "1,250,002 of 1,250,002 nodes written (100 %)" in out and "building the index…" in out
    assert len(draws) <= 10 * seconds + 2, f"{len(draws)} drawings in {seconds:.1f} s"
    assert "wrote" in out and "(sqlite, 1250002 nodes)" in out
    # The same conversion piped: only the closing line, no \r, no escape sequences.
    proc = drilldown("convert", src, tmp_path / "piped.sqlite", check=0)
    assert "\r" not in proc.stderr and "nodes written" not in proc.stderr and "\x1b" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [f"wrote {tmp_path / 'piped.sqlite'} (sqlite, 1250002 nodes)"]


def test_serve_of_a_big_file_says_what_it_loads(tmp_path):
    src = tmp_path / "big.json"
    big_json(src, 700_000)
    assert src.stat().st_size >= 32 << 20
    proc = subprocess.Popen([drilldown_bin(), "serve", src, "--port", "0", "--host", "127.0.0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline()
        assert "http://127.0.0.1:" in url
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    lines = err.splitlines()
    assert re.fullmatch(r"Loading big\.json \(\d+(\.\d)? MiB\)…", lines[0]), err
    assert re.fullmatch(r"Loaded big\.json \(\d+(\.\d)? MiB\) in \d+\.\d s", lines[1]), err


def test_serve_of_a_big_file_on_a_terminal_draws_a_loading_line(tmp_path):
    src = tmp_path / "big.json"
    big_json(src, 700_000)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([drilldown_bin(), "serve", src, "--port", "0", "--host", "127.0.0.1"],
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    seen = b""
    try:
        while b"http://127.0.0.1:" not in seen:
            ready, _, _ = select.select([leader], [], [], 120)
            assert ready, f"serve printed no URL within 120 s: {seen!r}"
            seen += os.read(leader, 65536)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        os.close(leader)
    text = seen.decode("utf-8", "replace")
    assert re.search(r"\r\x1b\[KLoading big\.json… \d+(\.\d)? MiB", text), text
    assert re.search(r"\r\x1b\[KLoaded big\.json \(\d+(\.\d)? MiB\) in \d+\.\d s", text), text
