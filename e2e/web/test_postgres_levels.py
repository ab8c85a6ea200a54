"""Existing PostgreSQL tables mapped by a schema's `levels:` (issue 11, item 1), through the real binary,
a real server (the throwaway cluster Scripts/test.sh starts, DRILLDOWN_TEST_PG_URL) and Chromium: the
relational music example loaded with psql from Examples/Music/music.postgres.sql into a database of its
own, read by the CLI, and served by two editable instances that see each other's changes (and psql's)
live; 10 clients x 100 presses of one counter through each instance count exactly 2,000; `pg_ctl` stop
and start."""
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server, drilldown_binary
from test_postgres import PG_URL, pg_ctl, press_through_two_instances, psql, wait_for_listeners, wait_until
from webclient import Session

pytestmark = pytest.mark.skipif(not PG_URL, reason="DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")
MUSIC = ROOT / "Examples" / "Music"
SCHEMA = MUSIC / "music.schema.yaml"


def database_url(name):
    """The test server's URL naming the database `name`."""
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(PG_URL)._replace(path="/" + name))


def wait_for_instances(url, count):
    """Returns once `count` instances on the database at `url` listen for the tables' changes."""
    wait_for_listeners("drilldown_levels", count, database=urllib.parse.urlsplit(url).path.lstrip("/"))


def plays(url, path):
    """The `plays` field of the node at `path`, as the instance shows it."""
    with urllib.request.urlopen(url + "api/node/" + path, timeout=10) as response:
        fields = {f["key"]: f["value"] for f in json.load(response)["fields"]}
    return fields.get("plays")


def run_psql(url, *args):
    url = re.sub(r"[?&]sslmode=[^&]*", "", url)
    return subprocess.run(["psql", url, "-qtAX", *args], capture_output=True, text=True, check=True, timeout=60).stdout.strip()


@pytest.fixture
def music_url():
    """A database of its own holding the music tables, loaded with psql."""
    name = "music_" + uuid.uuid4().hex[:8]
    psql(f"CREATE DATABASE {name}")
    url = database_url(name)
    run_psql(url, "-v", "ON_ERROR_STOP=1", "-f", str(MUSIC / "music.postgres.sql"))
    yield url
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def cli(*args):
    return subprocess.run([drilldown_binary(), *args], capture_output=True, text=True, timeout=60)


def level(url, path):
    with urllib.request.urlopen(url + "api/level/" + path, timeout=30) as response:
        return [r["title"] for r in json.load(response)["rows"]]


def serve(url):
    return Server(url, "--schema", SCHEMA, "--editable")


def test_read_commands_map_the_tables_and_a_mapping_that_does_not_fit_is_a_clear_error(music_url, tmp_path):
    ls = cli("ls", music_url, "--schema", str(SCHEMA))
    assert ls.returncode == 0, ls.stderr
    assert "Miles Davis" in ls.stdout and "John Coltrane" in ls.stdout
    albums = cli("ls", music_url, "0", "--schema", str(SCHEMA)).stdout
    assert "Kind of Blue" in albums and "1959" in albums
    assert "Miles Davis/Kind of Blue/So What" in cli("find", music_url, "So What", "--schema", str(SCHEMA)).stdout
    stats = cli("stats", music_url, "--schema", str(SCHEMA), "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["format"] == "postgres-relational"
    assert json.loads(stats.stdout)["rows"] == 43
    tree = cli("tree", music_url, "--schema", str(SCHEMA)).stdout
    assert "So What  (9:22)" in tree
    # The same mapping on a database without those tables, and a column that is not there.
    bad = tmp_path / "bad.schema.yaml"
    bad.write_text(SCHEMA.read_text().replace("title: name, key: id, kind: artist", "title: nom, key: id, kind: artist"))
    wrong = cli("ls", music_url, "--schema", str(bad))
    assert wrong.returncode == 1 and "column 'nom' (title) does not exist; columns: id, name, genre" in wrong.stderr, wrong.stderr
    missing = cli("ls", PG_URL, "--schema", str(SCHEMA))
    assert missing.returncode == 1 and "table 'artists' does not exist" in missing.stderr, missing.stderr
    assert "Fatal error" not in wrong.stderr + missing.stderr


def test_a_rename_through_b_and_an_update_in_psql_appear_on_a_page_of_a_within_1s(page, music_url):
    a, b = serve(music_url), serve(music_url)
    reader = Server(music_url, "--schema", SCHEMA)   # read-only: follows, takes no writes
    try:
        wait_for_instances(music_url, 3)
        page.goto(a.url + "l/0")
        expect(page.locator("body")).to_have_attribute("data-live", "1")
        title = page.locator("#rows li.row .row-title", has_text=re.compile("^Kind of Blue$"))
        expect(title).to_have_count(1)
        assert level(reader.url, "0") == ["Kind of Blue", "Sketches of Spain"]   # in the reader's snapshot now
        session = Session(b.url)
        start = time.monotonic()
        status, body = session.post("/api/edit/rename/0.0", {"title": "Kind of Blue (Legacy Edition)"})
        assert status == 200, body
        expect(page.locator("#rows li.row .row-title", has_text="Kind of Blue (Legacy Edition)")).to_have_count(1, timeout=1000)
        print(f"\nrename through B shown on A's page after {(time.monotonic() - start) * 1000:.0f} ms")
        session.close()
        assert run_psql(music_url, "-c", "SELECT title FROM albums WHERE id = 1") == "Kind of Blue (Legacy Edition)"
        # Any other program's write reaches the page too (the tables' statement triggers announce it).
        start = time.monotonic()
        run_psql(music_url, "-c", "UPDATE albums SET title = 'Sketches of Spain (psql)' WHERE title = 'Sketches of Spain'")
        expect(page.locator("#rows li.row .row-title", has_text="Sketches of Spain (psql)")).to_have_count(1, timeout=1000)
        print(f"an UPDATE in psql shown on A's page after {(time.monotonic() - start) * 1000:.0f} ms")
        # The read-only instance follows both and refuses writes.
        wait_until(lambda: level(reader.url, "0") == ["Kind of Blue (Legacy Edition)", "Sketches of Spain (psql)"], 1,
                   "the read-only instance does not follow")
        request = urllib.request.Request(reader.url + "api/edit/rename/0.0", data=b"title=nope", method="POST",
                                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code in (403, 404, 405)
        assert run_psql(music_url, "-c", "SELECT count(*) FROM albums WHERE title = 'nope'") == "0"
    finally:
        a.stop()
        b.stop()
        reader.stop()


def test_two_instances_ten_clients_each_pressing_play_a_hundred_times_count_exactly_2000(music_url):
    """The action's increment is derived inside the step's transaction, after every other writer's step:
    every press through either instance counts, none is refused and none is lost."""
    a, b = serve(music_url), serve(music_url)
    try:
        acknowledged, failures, seconds = press_through_two_instances(a, b, "0.0.0")
        assert not failures, failures[:3]
        assert len(acknowledged) == 2000
        count = int(run_psql(music_url, "-c", "SELECT plays FROM songs WHERE name = 'So What'"))
        print(f"\n2000 presses through two instances in {seconds:.1f} s ({2000 / seconds:.0f}/s), plays = {count}")
        assert count == 2000
        # Both instances come to show the count.
        for server in (a, b):
            wait_until(lambda: plays(server.url, "0.0.0") == "2000", 5, f"{server.url} does not show plays = 2000")
    finally:
        a.stop()
        b.stop()


@pytest.mark.skipif(not os.environ.get("DRILLDOWN_TEST_PG_OPTS"), reason="needs the test cluster's pg_ctl (Scripts/test.sh)")
def test_pg_ctl_stop_and_start_503s_writes_and_unread_levels_then_everything_comes_back(music_url):
    a, b = serve(music_url), serve(music_url)
    sa, sb = Session(a.url), Session(b.url)
    try:
        assert sa.post("/api/edit/rename/0.0", {"title": "Kind of Blue (before)"})[0] == 200
        assert "Kind of Blue (before)" in level(a.url, "0")   # Miles Davis's albums are in A's snapshot
        pg_ctl("stop")
        try:
            status, body = sa.post("/api/edit/rename/0.0", {"title": "During the outage"})
            assert status == 503, body
            assert "unreachable" in body["error"] and "nothing was changed" in body["error"]
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(a.url + "readyz", timeout=10)
            assert refused.value.code == 503
            assert "Kind of Blue (before)" in level(a.url, "0")
            with pytest.raises(urllib.error.HTTPError) as unread:
                urllib.request.urlopen(a.url + "api/level/3", timeout=10)
            assert unread.value.code == 503
            assert "could not be read" in json.loads(unread.value.read())["error"]
        finally:
            pg_ctl("start")
        wait_until(lambda: sa.post("/api/edit/rename/0.1", {"title": "Sketches of Spain (after)"})[0] == 200, 15,
                   "writes did not come back after the restart")
        assert level(a.url, "3") == ["Maiden Voyage"]   # the level that answered 503 reads again
        wait_for_instances(music_url, 2)   # both listeners are back (they retry every 0.5 s)
        assert sb.post("/api/edit/rename/0.0", {"title": "Kind of Blue (through B after)"})[0] == 200
        wait_until(lambda: "Kind of Blue (through B after)" in level(a.url, "0"), 5, "live updates did not resume on A")
        assert run_psql(music_url, "-c", "SELECT count(*) FROM albums WHERE title = 'During the outage'") == "0"
    finally:
        sa.close()
        sb.close()
        a.stop()
        b.stop()
