"""Several `drilldown serve` instances on one PostgreSQL tree table (issue 11), through the real binary
and a real server: the throwaway cluster Scripts/test.sh starts (DRILLDOWN_TEST_PG_URL). Two instances
take 10 clients x 100 adds each and the table holds exactly 2,000 new rows; a switch flipped through
instance B appears on a Chromium page served by instance A within 1 s; SIGKILL of an instance during a
stream of adds loses no acknowledged add; `pg_ctl restart` under load: writes answer 503 and change
nothing during the outage, reads and live updates come back by themselves."""
import json
import os
import pathlib
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server, drilldown_binary
from webclient import Events, Session

PG_URL = os.environ.get("DRILLDOWN_TEST_PG_URL", "")
pytestmark = pytest.mark.skipif(not PG_URL, reason="DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")
SOUNDS = ROOT / "Examples" / "Sounds"


def table_url(name):
    return PG_URL + ("&" if "?" in PG_URL else "?") + "table=" + name


def psql(sql):
    """Runs `sql` with psql against the test server; returns its unaligned output."""
    url = re.sub(r"[?&]sslmode=[^&]*", "", PG_URL)
    return subprocess.run(["psql", url, "-tAX", "-c", sql], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def sounds_table():
    """The Sounds example imported into a table of its own with `drilldown convert`."""
    name = "sounds_" + uuid.uuid4().hex[:8]
    result = subprocess.run([drilldown_binary(), "convert", str(SOUNDS / "sounds.plist"), table_url(name)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "(postgres," in result.stderr
    yield name
    psql(f"DROP TABLE IF EXISTS {name}; DROP TABLE IF EXISTS {name}_meta; DROP SEQUENCE IF EXISTS {name}_ids; "
         f"DROP FUNCTION IF EXISTS {name}_count()")


def serve(name, *extra):
    return Server(table_url(name), "--schema", SOUNDS / "schema.yaml", "--editable", *extra)


def serve_read_only(name):
    return Server(table_url(name), "--schema", SOUNDS / "schema.yaml")


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def titles(url, path):
    """Every title of the level at `path`, read through the JSON API 1000 at a time."""
    out, offset = [], 0
    while True:
        page = get_json(url + f"api/level/{path}?offset={offset}&limit=1000")
        out += [r["title"] for r in page["rows"]]
        offset += len(page["rows"])
        if not page["rows"] or offset >= page["total"]:
            return out


def count_titles(name, pattern):
    return int(psql(f"SELECT count(*) FROM {name} WHERE key = 'Title' AND value LIKE '{pattern}'"))


def wait_until(check, seconds, message):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, message
        time.sleep(0.05)


def wait_for_listeners(channel, count, database=None, seconds=60):
    """Returns once `count` connections have their LISTEN on `channel` in place: an instance's listener
    confirms its LISTEN with `SELECT '<channel>' AS listening` (PostgresListener.confirmation), which
    pg_stat_activity then shows as that connection's query. A change made after this is announced to
    every such instance; made before, its notification could be missed (a late LISTEN on a busy machine)."""
    sql = f"SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT ''{channel}'' AS listening'"
    if database:
        sql += f" AND datname = '{database}'"
    wait_until(lambda: int(psql(sql)) >= count, seconds, f"fewer than {count} instances listen on {channel}")


def test_read_commands_and_export_work_on_a_postgres_url(sounds_table, tmp_path):
    url = table_url(sounds_table)
    ls = subprocess.run([drilldown_binary(), "ls", url], capture_output=True, text=True, check=True).stdout
    assert "Sounds" in ls and "General" in ls
    for command in (["tree", url], ["show", url, "0"], ["find", url, "Vibrate"], ["stats", url]):
        result = subprocess.run([drilldown_binary(), *command], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, (command, result.stderr)
    assert "Vibrate on Silent" in subprocess.run([drilldown_binary(), "find", url, "Vibrate"], capture_output=True, text=True).stdout
    assert "postgres" in subprocess.run([drilldown_binary(), "stats", url], capture_output=True, text=True).stdout
    # Back to a document, then compared with the original through the same tool.
    out = tmp_path / "back.json"
    subprocess.run([drilldown_binary(), "convert", url, str(out)], check=True, capture_output=True)
    original = subprocess.run([drilldown_binary(), "tree", str(SOUNDS / "sounds.plist")], capture_output=True, text=True).stdout
    assert subprocess.run([drilldown_binary(), "tree", str(out)], capture_output=True, text=True).stdout == original
    # Bad input: a clear error and exit 1.
    for bad in (table_url("no_such_table"), table_url("Bad-Name"), "postgres://dd@127.0.0.1:1/postgres?sslmode=disable"):
        result = subprocess.run([drilldown_binary(), "ls", bad], capture_output=True, text=True, timeout=60)
        assert result.returncode == 1 and result.stderr.strip(), (bad, result.stderr)
        assert "Fatal error" not in result.stderr


def test_a_damaged_table_is_one_clear_line_and_exit_1(sounds_table):
    def ls(*args):
        return subprocess.run([drilldown_binary(), "ls", *args], capture_output=True, text=True, timeout=60)
    # A row of an unknown kind: the level that holds it is refused, the others still read.
    psql(f"UPDATE {sounds_table} SET kind = 99 WHERE key = 'Title' AND value = 'About'")
    bad = ls(table_url(sounds_table), "1")
    assert bad.returncode == 1 and "has kind 99, which is not a known kind" in bad.stderr, bad
    assert bad.stderr.count("postgres://") == 1, bad.stderr
    assert ls(table_url(sounds_table), "0").returncode == 0
    # Two roots; no table; a table that is not a tree table.
    psql(f"INSERT INTO {sounds_table}(id, parent, position, kind) VALUES (999999, NULL, 0, 0)")
    two = ls(table_url(sounds_table))
    assert two.returncode == 1 and "both have no parent; a tree has one root" in two.stderr, two
    missing = ls(table_url("no_such_table"))
    assert missing.returncode == 1 and "there is no table 'no_such_table'" in missing.stderr, missing
    psql("CREATE TABLE IF NOT EXISTS not_a_tree(x int)")
    plain = ls(table_url("not_a_tree"))
    assert plain.returncode == 1 and "is not a DrillDown tree table" in plain.stderr, plain


def test_two_instances_ten_clients_each_adding_a_hundred_rows_make_exactly_2000(sounds_table):
    a, b = serve(sounds_table), serve(sounds_table)
    failures, acknowledged = [], []
    lock = threading.Lock()

    def client(server, label):
        session = Session(server.url)
        try:
            for k in range(100):
                status, body = session.post("/api/edit/add/1", {"title": f"{label}-{k}"})
                with lock:
                    (acknowledged if status == 200 and body.get("changed") else failures).append((label, k, status, body))
        finally:
            session.close()

    try:
        threads = [threading.Thread(target=client, args=(s, f"{n}{i}")) for n, s in (("a", a), ("b", b)) for i in range(10)]
        start = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        seconds = time.monotonic() - start
        print(f"\n2000 adds through two instances in {seconds:.1f} s ({2000 / seconds:.0f}/s)")
        assert not failures, failures[:3]
        assert len(acknowledged) == 2000
        assert count_titles(sounds_table, "a_-%") + count_titles(sounds_table, "b_-%") == 2000
        # Both instances show all of them.
        for server in (a, b):
            wait_until(lambda: get_json(server.url + "api/level/1")["total"] >= 2000, 10, f"{server.url} does not show all 2000 adds")
            shown = titles(server.url, "1")
            assert len([t for t in shown if re.fullmatch(r"[ab]\d-\d+", t)]) == 2000
    finally:
        a.stop()
        b.stop()


def press_through_two_instances(a, b, path, clients=10, presses=100):
    """`clients` clients on each of two instances pressing Play on `path` `presses` times each;
    returns the acknowledged presses, the others (status, body) and the seconds it took."""
    failures, acknowledged = [], []
    lock = threading.Lock()

    def client(server):
        session = Session(server.url)
        try:
            for _ in range(presses):
                status, body = session.post(f"/api/edit/run/{path}", {"action": "play"})
                with lock:
                    (acknowledged if status == 200 and body.get("changed") else failures).append((status, body))
        finally:
            session.close()

    threads = [threading.Thread(target=client, args=(s,)) for s in (a, b) for _ in range(clients)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    return acknowledged, failures, time.monotonic() - start


def test_two_instances_ten_clients_each_pressing_play_a_hundred_times_count_exactly_2000(sounds_table):
    """The action's increment is derived inside the step's transaction, after every other instance's
    step (the revision row queues them): every press counts, none is refused, none is lost."""
    a, b = serve(sounds_table), serve(sounds_table)
    try:
        acknowledged, failures, seconds = press_through_two_instances(a, b, "0.3")
        assert not failures, failures[:3]
        assert len(acknowledged) == 2000
        plays = psql(f"""SELECT v.value FROM {sounds_table} v JOIN {sounds_table} t ON t.parent = v.parent
                         WHERE t.key = 'Title' AND t.value = 'Ringtone' AND v.key = 'plays'""")
        print(f"\n2000 presses through two instances in {seconds:.1f} s ({2000 / seconds:.0f}/s), plays = {plays}")
        assert plays == "2000"
    finally:
        a.stop()
        b.stop()


def test_a_switch_flipped_through_instance_b_appears_on_a_page_of_instance_a_within_1s(page, sounds_table):
    a, b = serve(sounds_table), serve(sounds_table)
    try:
        wait_for_listeners("drilldown_" + sounds_table, 2)
        page.goto(a.url + "l/0")
        expect(page.locator("body")).to_have_attribute("data-live", "1")
        switch = page.locator("#rows li.row", has=page.locator(".row-title", has_text=re.compile("^Vibrate on Silent$"))).locator(".switch")
        expect(switch).to_have_attribute("aria-checked", "false")
        index = titles(b.url, "0").index("Vibrate on Silent")
        session = Session(b.url)
        start = time.monotonic()
        status, body = session.post(f"/api/edit/set/0.{index}", {"control": "enabled"})
        assert status == 200, body
        expect(switch).to_have_attribute("aria-checked", "true", timeout=1000)
        print(f"\nswitch flipped on B shown on A's page after {(time.monotonic() - start) * 1000:.0f} ms")
        session.close()
        assert psql(f"""SELECT v.value FROM {sounds_table} v JOIN {sounds_table} t ON t.parent = v.parent
                        WHERE t.key = 'Title' AND t.value = 'Vibrate on Silent' AND v.key = 'enabled'""") == "true"
    finally:
        a.stop()
        b.stop()


def test_a_read_only_instance_follows_changes_made_through_another_and_refuses_writes(page, sounds_table):
    a, b = serve(sounds_table), serve_read_only(sounds_table)
    try:
        wait_for_listeners("drilldown_" + sounds_table, 2)
        page.goto(b.url + "l/1")
        expect(page.locator("body")).to_have_attribute("data-live", "1")
        expect(page.locator("#edit-button")).to_have_count(0)
        session = Session(a.url)
        start = time.monotonic()
        assert session.post("/api/edit/add/1", {"title": "Seen on the read-only instance"})[0] == 200
        expect(page.locator("#rows .row-title", has_text="Seen on the read-only instance")).to_have_count(1, timeout=1000)
        print(f"\nan add through A shown on read-only B's page after {(time.monotonic() - start) * 1000:.0f} ms")
        session.close()
        # B takes no writes, whatever the form or token.
        request = urllib.request.Request(b.url + "api/edit/add/1", data=b"title=nope", method="POST",
                                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code in (403, 404, 405)
        assert count_titles(sounds_table, "nope") == 0
    finally:
        a.stop()
        b.stop()


def test_a_change_to_a_row_deleted_meanwhile_answers_409_and_the_page_shows_the_table_as_it_is(page, sounds_table):
    a = serve(sounds_table)
    try:
        page.goto(a.url + "l/0")
        expect(page.locator("body")).to_have_attribute("data-live", "1")
        row = page.locator("#rows li.row .row-title", has_text=re.compile("^Vibrate on Silent$"))
        expect(row).to_have_count(1)
        index = titles(a.url, "0").index("Vibrate on Silent")
        # Another writer deletes the row straight in SQL, without telling anyone: A still shows it.
        psql(f"""DELETE FROM {sounds_table} WHERE id IN (WITH RECURSIVE sub(id) AS (
                     SELECT parent FROM {sounds_table} WHERE key = 'Title' AND value = 'Vibrate on Silent'
                     UNION ALL SELECT c.id FROM {sounds_table} c JOIN sub ON c.parent = sub.id) SELECT id FROM sub)""")
        rows = int(psql(f"SELECT count(*) FROM {sounds_table}"))
        assert "Vibrate on Silent" in titles(a.url, "0")
        # The page renames it: 409, a message saying why, nothing written, and the page reloaded.
        page.evaluate("path => window.drilldownPost(path, new URLSearchParams({title: 'Renamed meanwhile'}))",
                      f"/edit/rename/0.{index}")
        expect(page.locator("#edit-message")).to_contain_text("another writer")
        expect(row).to_have_count(0)
        assert int(psql(f"SELECT count(*) FROM {sounds_table}")) == rows
        assert count_titles(sounds_table, "Renamed meanwhile") == 0
        # The JSON API answers 409 too.
        session = Session(a.url)
        index = titles(a.url, "0").index("Vibrate on Ring")
        psql(f"""DELETE FROM {sounds_table} WHERE id IN (WITH RECURSIVE sub(id) AS (
                     SELECT parent FROM {sounds_table} WHERE key = 'Title' AND value = 'Vibrate on Ring'
                     UNION ALL SELECT c.id FROM {sounds_table} c JOIN sub ON c.parent = sub.id) SELECT id FROM sub)""")
        status, body = session.post(f"/api/edit/rename/0.{index}", {"title": "Renamed meanwhile"})
        assert status == 409 and "another writer" in body["error"], (status, body)
        session.close()
    finally:
        a.stop()


def test_sigkill_of_one_instance_during_adds_loses_no_acknowledged_add(sounds_table):
    a, b = serve(sounds_table), serve(sounds_table)
    acknowledged = []
    stop = threading.Event()

    def writer(server, label, out):
        session = Session(server.url)
        k = 0
        try:
            while not stop.is_set():
                try:
                    status, _ = session.post("/api/edit/add/1", {"title": f"Killed take {label}{k}"})
                except (OSError, ValueError):
                    return
                if status == 200:
                    out.append(f"Killed take {label}{k}")
                k += 1
        finally:
            session.close()

    survivor = []
    threads = [threading.Thread(target=writer, args=(a, "a", acknowledged)), threading.Thread(target=writer, args=(b, "b", survivor))]
    try:
        for t in threads:
            t.start()
        # Killed once both have taken adds (not after a fixed 1.5 s, which a busy machine may spend starting up).
        wait_until(lambda: len(acknowledged) > 10 and len(survivor) > 10, 120, "the instances took too few adds to test anything")
        os.kill(a.proc.pid, signal.SIGKILL)
        a.proc.wait()
        # B goes on taking adds after A died.
        after_kill = len(survivor)
        wait_until(lambda: len(survivor) >= after_kill + 5, 60, "B took no adds after A was killed")
        stop.set()
        for t in threads:
            t.join(timeout=30)
        assert len(acknowledged) > 10 and len(survivor) > 10
        stored = set(psql(f"SELECT value FROM {sounds_table} WHERE key = 'Title' AND value LIKE 'Killed take %'").splitlines())
        missing = [t for t in acknowledged + survivor if t not in stored]
        assert not missing, f"{len(missing)} acknowledged adds lost, e.g. {missing[:5]}"
        assert len(stored) <= len(acknowledged) + len(survivor) + 1   # at most the one add in flight when killed
        # The other instance keeps serving.
        assert get_json(b.url + "api/level/1")["total"] >= len(stored)
    finally:
        stop.set()
        a.stop()
        b.stop()


def pg_ctl(action):
    """Stops or starts the test cluster as `postgres` (with the options Scripts/pg-cluster.sh started it with)."""
    env = os.environ
    command = f"{env['DRILLDOWN_TEST_PG_CTL']} -D {env['DRILLDOWN_TEST_PG_DATA']} -w "
    command += "stop -m fast" if action == "stop" else f"-o '{env['DRILLDOWN_TEST_PG_OPTS']}' -l {env['DRILLDOWN_TEST_PG_DATA']}/../log start"
    subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c", command], check=True, capture_output=True, timeout=60)


@pytest.mark.skipif(not os.environ.get("DRILLDOWN_TEST_PG_OPTS"), reason="needs the test cluster's pg_ctl (Scripts/test.sh)")
def test_pg_ctl_stop_and_start_under_load_503s_then_recovers(sounds_table):
    a, b = serve(sounds_table), serve(sounds_table)
    sa, sb = Session(a.url), Session(b.url)
    try:
        assert sa.post("/api/edit/add/1", {"title": "Before the outage"})[0] == 200
        with urllib.request.urlopen(a.url + "readyz", timeout=10) as r:
            assert r.status == 200
        assert "Before the outage" in titles(a.url, "1")   # level 1 is read into A's snapshot
        pg_ctl("stop")
        try:
            status, body = sa.post("/api/edit/add/1", {"title": "During the outage"})
            assert status == 503, body
            assert "unreachable" in body["error"] and "nothing was changed" in body["error"]
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(a.url + "readyz", timeout=10)
            assert refused.value.code == 503
            with urllib.request.urlopen(a.url + "healthz", timeout=10) as r:
                assert r.status == 200
            # Levels already read are served from the instance's snapshot meanwhile; one never read
            # answers 503 with the reason (not an empty level).
            assert "Before the outage" in titles(a.url, "1")
            with pytest.raises(urllib.error.HTTPError) as unread:
                urllib.request.urlopen(a.url + "api/level/0", timeout=10)
            assert unread.value.code == 503
            assert "could not be read" in json.loads(unread.value.read())["error"]
        finally:
            pg_ctl("start")
        wait_until(lambda: sa.post("/api/edit/add/1", {"title": "After the outage"})[0] == 200, 15,
                   "writes did not come back after the restart")
        events = Events(a.url)
        wait_for_listeners("drilldown_" + sounds_table, 2)   # both listeners are back (they retry every 0.5 s)
        assert sb.post("/api/edit/add/1", {"title": "Through B after the outage"})[0] == 200
        wait_until(lambda: "Through B after the outage" in titles(a.url, "1"), 5, "live updates did not resume on A")
        events.close()
        assert count_titles(sounds_table, "During the outage") == 0
        assert count_titles(sounds_table, "After the outage") >= 1
    finally:
        sa.close()
        sb.close()
        a.stop()
        b.stop()
