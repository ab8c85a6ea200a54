"""Accounts under attack and rows hidden by grants (issue 32, items 1 and 2), beyond test_accounts.py:
what a user from whom a subtree is hidden sees in the outline, the columns, /api/outline, child counts,
the Go to example, /events and error pages (nothing of it); secrets compared in constant time by
swift-crypto; the sign-in page telling no names apart by its answers or its timing; a flood of sign-ins
not stalling pages (bcrypt runs off the request threads); a session made on one instance accepted by
another on one PostgreSQL table. Every test drives real `drilldown serve` processes."""
import json
import os
import pathlib
import queue
import re
import select
import socket
import statistics
import subprocess
import threading
import time
import urllib.parse
import uuid

import pytest
import requests

from conftest import ROOT, Server
from test_accounts import PASSWORD, accounts_folder, cli, rename, sign_in
from test_accounts import start as start_accounts

DATA = """\
Rock:
  Queen: Bohemian Rhapsody
  Muse: Uprising
Jazz:
  Miles: So What
  Coltrane: Giant Steps
Pop:
  Abba: Waterloo
"""
USERS = {"ed": "editor", "nojazz": "editor", "noqueen": "viewer", "onlyjazz": "viewer", "t0": "viewer", "t1": "viewer",
         "t2": "viewer", "t3": "viewer", "t4": "viewer"}
GRANTS = """grants:
  - { user: nojazz, path: "Jazz", role: none }
  - { user: noqueen, path: "Rock/Queen", role: none }
  - { user: onlyjazz, path: "", role: none }
  - { user: onlyjazz, path: "Jazz", role: viewer }"""


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    return accounts_folder(tmp_path_factory.mktemp("attacks"), "Discography.yaml", DATA, USERS, GRANTS)


def start(setup, *extra):
    return start_accounts(setup, *extra, data="Discography.yaml")


@pytest.fixture(scope="module")
def server(setup):
    s = start(setup)
    yield s
    s.stop()


def get(url, path, cookie, **kwargs):
    return requests.get(url + path, headers={"Cookie": cookie, **kwargs.pop("headers", {})}, timeout=30, allow_redirects=False, **kwargs)


def test_the_outline_columns_and_api_outline_leave_hidden_rows_out(server):
    cookie, _ = sign_in(server.url, "nojazz")
    outline = get(server.url, "api/outline?all=1", cookie)
    assert outline.status_code == 200, outline.text
    rows = outline.json()["rows"]
    assert [r["title"] for r in rows] == ["Rock", "Queen", "Muse", "Pop", "Abba"]
    assert outline.json()["total"] == 5
    assert [r["setSize"] for r in rows if r["depth"] == 1] == [2, 2]
    assert [r["position"] for r in rows if r["depth"] == 1] == [1, 2]
    # Expanding the hidden row by its path shows nothing of it, and focusing it finds nothing.
    opened = get(server.url, "api/outline?open=1,0", cookie).json()
    assert [r["title"] for r in opened["rows"]] == ["Rock", "Queen", "Muse", "Pop"]
    assert get(server.url, "api/outline?focus=1.0", cookie).status_code == 404
    for path in ("outline?all=1", "outline?open=1", "columns/0", "columns", "columns/2.0"):
        page = get(server.url, path, cookie)
        assert page.status_code == 200, (path, page.status_code)
        assert "Jazz" not in page.text and "Miles" not in page.text and "Coltrane" not in page.text, path
        assert "Rock" in page.text, path
    assert get(server.url, "columns/1", cookie).status_code == 404
    # Everyone else's outline still has Jazz (outlines are cached per reader).
    cookie, _ = sign_in(server.url, "ed")
    assert [r["title"] for r in get(server.url, "api/outline?all=1", cookie).json()["rows"]][3:6] == ["Jazz", "Miles", "Coltrane"]


def test_a_rows_child_count_counts_no_hidden_child(server):
    cookie, _ = sign_in(server.url, "noqueen")
    rows = get(server.url, "api/outline", cookie).json()["rows"]
    assert [(r["title"], r["children"]) for r in rows] == [("Rock", 1), ("Jazz", 2), ("Pop", 1)]
    level = get(server.url, "api/level/0", cookie).json()
    assert [r["title"] for r in level["rows"]] == ["Muse"] and level["total"] == 1
    assert "Queen" not in get(server.url, "outline?all=1", cookie).text
    assert "Queen" not in get(server.url, "columns/0.1", cookie).text


def test_the_go_to_example_names_only_rows_the_reader_sees(server):
    cookie, _ = sign_in(server.url, "onlyjazz")
    page = get(server.url, "", cookie)
    assert page.status_code == 200
    example = re.search(r'id="go-path" name="path" placeholder="([^"]*)"', page.text).group(1)
    assert example == "1.0 or Jazz/Miles", example
    assert "Rock" not in page.text and "Pop" not in page.text
    cookie, _ = sign_in(server.url, "ed")
    example = re.search(r'id="go-path" name="path" placeholder="([^"]*)"', get(server.url, "", cookie).text).group(1)
    assert example == "0.0 or Rock/Queen"


def test_events_tell_nothing_of_changes_to_hidden_rows(server):
    cookie, _ = sign_in(server.url, "nojazz")
    ed_cookie, ed_token = sign_in(server.url, "ed")
    lines = queue.Queue()

    def follow():
        with requests.get(server.url + "events", headers={"Cookie": cookie}, stream=True, timeout=60) as events:
            assert events.status_code == 200
            for line in events.iter_lines():
                lines.put(line.decode())

    threading.Thread(target=follow, daemon=True).start()
    hello = ""
    while not hello.startswith("data:"):
        hello = lines.get(timeout=30)
    assert "Miles" not in hello and "Jazz" not in hello
    # A change to the hidden subtree, then one to a row the reader sees.
    assert rename(server.url, "1.0", "Miles Davis", ed_cookie, ed_token)[0] == 200
    assert rename(server.url, "2.0", "ABBA", ed_cookie, ed_token)[0] == 200
    events = []
    while True:
        line = lines.get(timeout=30)
        if line.startswith("data:"):
            events.append(json.loads(line[5:]))
            if "2.0" in events[-1]["paths"]:
                break
    # Only the visible change came, and nothing in the stream names the hidden one.
    assert len(events) == 1, events
    assert events[0]["paths"] == ["2.0"]
    assert "Miles" not in json.dumps(events) and "Jazz" not in json.dumps(events)
    assert "undo" not in events[0]["history"], events[0]["history"]
    for path, title in (("1.0", "Miles"), ("2.0", "Abba")):
        assert rename(server.url, path, title, ed_cookie, ed_token)[0] == 200


def test_an_error_page_for_a_bad_token_does_not_show_the_data_sets_title(server):
    r = requests.get(server.url + "l/0", headers={"Authorization": "Bearer ddt_00000000_" + "0" * 64, "Accept": "text/html"}, timeout=30)
    assert r.status_code == 401
    assert "Discography" not in r.text and "Rock" not in r.text
    r = requests.get(server.url + "l/0?access_token=x", headers={"Accept": "text/html"}, timeout=30)
    assert r.status_code == 400 and "Discography" not in r.text


def test_secrets_are_compared_in_constant_time_by_swift_crypto(server):
    # The code: no hand-written comparison loop of secrets; swift-crypto's constant-time checks instead.
    web = ROOT / "Sources" / "DrillDownWeb"
    code = "\n".join(p.read_text() for p in web.rglob("*.swift"))
    assert "diff |=" not in code and "constantTimeEqual" not in code
    csrf = (web / "App" / "CSRFTokens.swift").read_text()
    assert "HMAC<SHA256>.isValidAuthenticationCode" in csrf
    assert "SHA256.hash(data: Data(token.utf8)) == stored" in (web / "Accounts" / "UsersFile.swift").read_text()
    # A session cookie's (truncated) MAC: swift-crypto's `SymmetricKey` `==`, when it is checked and when it is found again.
    assert "guard code == SymmetricKey(data: sent)," in (web / "Accounts" / "SessionCookie.swift").read_text()
    assert "guard self.mac == SymmetricKey(data: mac)," in (web / "Accounts" / "SessionCache.swift").read_text()
    # The behaviour: a MAC or token one digit off, cut short or in capitals is refused.
    cookie, token = sign_in(server.url, "ed")
    value = cookie.split("=", 1)[1]
    mac = value.rsplit(".", 1)[1]
    for bad in (mac[:-1] + ("0" if mac[-1] != "0" else "1"), mac[:-2], mac.upper(), ""):
        forged = "dd_auth=" + value.rsplit(".", 1)[0] + "." + bad
        assert get(server.url, "api/level", forged).status_code == 401, bad
    for bad in (token[:-1] + ("0" if token[-1] != "0" else "1"), token[:-2], token.upper(), ""):
        assert rename(server.url, "2", "Pop", cookie, bad)[0] == 403, bad
    assert rename(server.url, "2", "Pop", cookie, token)[0] == 200


def test_a_token_in_any_url_parameter_is_refused_even_on_events(server, setup):
    token = cli("token", "create", setup / "users.yaml", "ed").strip()
    for name in ("access_token", "token", "bearer", "api_key", "auth"):
        for path in ("api/level", "events", "api/outline", ""):
            r = requests.get(server.url + path + f"?{name}=" + token, timeout=30, allow_redirects=False)
            assert r.status_code == 400 and "Authorization: Bearer" in r.text, (name, path, r.status_code)
    cli("token", "revoke", setup / "users.yaml", token.split("_")[1])


def test_the_sign_in_page_answers_an_unknown_name_as_a_wrong_password(setup):
    own = start(setup, "--trusted-proxy", "127.0.0.1")
    try:
        answers = []
        for k, name in enumerate(("t0", "nobody-here")):
            r = requests.post(own.url + "signin", data={"user": name, "password": "wrong", "back": "/l/0"},
                              headers={"X-Forwarded-For": f"192.0.2.{k + 1}"}, allow_redirects=False, timeout=30)
            answers.append((r.status_code, r.text.replace(name, "NAME"), sorted(k for k in r.headers if k.lower() not in ("date", "content-length"))))
        assert answers[0] == answers[1]
    finally:
        own.stop()


def test_an_unknown_name_costs_a_sign_in_as_much_time_as_a_wrong_password(setup):
    """Medians over 20 tries each, interleaved (each from its own address, each known name at most 4
    times, so the throttle never steps in): an unknown name still runs bcrypt, on a decoy hash."""
    own = start(setup, "--trusted-proxy", "127.0.0.1")
    try:
        session = requests.Session()

        def attempt(name, k):
            begin = time.perf_counter()
            r = session.post(own.url + "signin", data={"user": name, "password": "wrong"},
                             headers={"X-Forwarded-For": f"198.51.100.{k}"}, allow_redirects=False, timeout=60)
            assert r.status_code == 401, r.status_code
            return time.perf_counter() - begin

        attempt("warm-up", 250)
        known, unknown = [], []
        for k in range(20):
            known.append(attempt(f"t{k % 5}", 2 * k))
            unknown.append(attempt(f"ghost-{uuid.uuid4().hex[:6]}", 2 * k + 1))
        a, b = statistics.median(known), statistics.median(unknown)
        # Without the decoy an unknown name answers in well under a tenth of a bcrypt.
        assert 0.5 < b / a < 2, (a, b)
    finally:
        own.stop()


def test_a_flood_of_sign_ins_does_not_stall_pages(setup):
    """16 sign-ins are sent at once (each for an unknown name from an address of its own, so each runs
    bcrypt); a page asked for after them is answered while most of them still wait for theirs."""
    own = start(setup, "--trusted-proxy", "127.0.0.1")
    token = cli("token", "create", setup / "users.yaml", "ed").strip()
    host, port = urllib.parse.urlsplit(own.url).hostname, urllib.parse.urlsplit(own.url).port
    sockets = []
    try:
        for k in range(16):
            body = f"user=flood{k}&password=wrong"
            s = socket.create_connection((host, port))
            s.sendall((f"POST /signin HTTP/1.1\r\nHost: {host}:{port}\r\nX-Forwarded-For: 203.0.113.{k + 1}\r\n"
                       f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n{body}").encode())
            sockets.append(s)
        page = requests.get(own.url + "api/level", headers={"Authorization": f"Bearer {token}"}, timeout=120)
        assert page.status_code == 200 and page.json()["total"] == 3
        answered, _, _ = select.select(sockets, [], [], 0)
        assert len(answered) <= 8, f"{len(answered)} of 16 sign-ins were answered before the page"
        for s in sockets:   # every sign-in is answered in the end: 401, or 503 past the queue
            s.settimeout(120)
            assert re.match(rb"HTTP/1.1 (401|503)", s.recv(64))
    finally:
        for s in sockets:
            s.close()
        cli("token", "revoke", setup / "users.yaml", token.split("_")[1])
        own.stop()


def test_grants_hold_in_the_html_forms_too(server):
    cookie, token = sign_in(server.url, "nojazz")
    def form(path, title):
        return requests.post(server.url + "edit/rename/" + path, data={"title": title, "csrf": token, "back": "/"},
                             headers={"Cookie": cookie, "Origin": server.url.rstrip("/")}, allow_redirects=False, timeout=30)
    r = form("1.0", "Stolen")
    assert r.status_code in (403, 404) and "Miles" not in r.text and "So What" not in r.text
    r = form("2.0", "Abba!")
    assert r.status_code == 303, r.text[:300]
    assert form("2.0", "Abba").status_code == 303


PG_URL = os.environ.get("DRILLDOWN_TEST_PG_URL", "")


@pytest.mark.skipif(not PG_URL, reason="DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")
def test_a_session_from_instance_a_is_accepted_by_instance_b_on_one_postgres_table(setup):
    from test_postgres import psql, table_url
    name = "accounts_" + uuid.uuid4().hex[:8]
    result = subprocess.run([str(pathlib.Path(os.environ.get("DRILLDOWN_BIN", ""))), "convert", str(setup / "Discography.yaml"), table_url(name)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    extra = ("--editable", "--users", setup / "users.yaml", "--secret-file", setup / "secret")
    a, b = Server(table_url(name), *extra), Server(table_url(name), *extra)
    try:
        cookie, token = sign_in(a.url, "ed")
        assert requests.get(b.url + "api/level", headers={"Cookie": cookie}, timeout=30).json()["total"] == 3
        status, body = rename(b.url, "2.0", "ABBA", cookie, token)   # a page of instance A posts to instance B
        assert status == 200, body
        assert requests.get(a.url + "api/node/2.0", headers={"Cookie": cookie}, timeout=30).json()["title"] == "ABBA"
        # And a viewer's session stays a viewer's on B; a hidden subtree stays hidden there.
        cookie, token = sign_in(a.url, "nojazz")
        assert [r["title"] for r in requests.get(b.url + "api/level", headers={"Cookie": cookie}, timeout=30).json()["rows"]] == ["Rock", "Pop"]
    finally:
        a.stop()
        b.stop()
        psql(f"DROP TABLE IF EXISTS {name} CASCADE; DROP TABLE IF EXISTS {name}_meta; DROP SEQUENCE IF EXISTS {name}_ids; "
             f"DROP FUNCTION IF EXISTS {name}_count()")
