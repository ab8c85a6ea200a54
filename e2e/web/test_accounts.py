"""Accounts and roles (issue 32, items 1 and 2): `serve --users users.yaml` signs people in (a session
cookie signed with the shared --secret-file, or an API token as `Authorization: Bearer`), and each
user reads and changes what their role and grants allow — the same rule in pages, the JSON API and
/events. Every test here drives real `drilldown serve` processes; users and tokens are made with the
real `drilldown user` / `drilldown token` commands."""
import json
import re
import subprocess
import time

import pytest
import requests

from conftest import Server, drilldown_binary

DATA = """\
Rock:
  Queen: Bohemian Rhapsody
  Muse: Uprising
Jazz:
  Miles: So What
Pop:
  Abba: Waterloo
"""
USERS = {"boss": "admin", "ed": "editor", "vi": "viewer", "rocky": "viewer", "nojazz": "editor"}
PASSWORD = "pw-{}-correct"
SECRET = "0123456789abcdef0123456789abcdef"


def cli(*args, stdin=None):
    result = subprocess.run([drilldown_binary(), *map(str, args)], input=stdin, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"drilldown {' '.join(map(str, args))}: {result.stderr}"
    return result.stdout


def accounts_folder(folder, data_name, data, users_roles, grants):
    """`folder` with the data file, a users file made with `drilldown user add` (each user's password
    is PASSWORD.format(name)) and `grants` written into it as a person would, and the shared secret."""
    (folder / data_name).write_text(data)
    users = folder / "users.yaml"
    for name, role in users_roles.items():
        cli("user", "add", users, name, "--role", role, stdin=PASSWORD.format(name) + "\n")
    text = users.read_text()
    assert "grants: []" in text
    users.write_text(text.replace("grants: []", grants))
    (folder / "secret").write_text(SECRET)
    return folder


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    # rocky edits Rock only; Jazz is hidden from nojazz.
    return accounts_folder(tmp_path_factory.mktemp("accounts"), "data.yaml", DATA, USERS,
                           'grants:\n  - { user: rocky, path: "Rock", role: editor }\n  - { user: nojazz, path: "Jazz", role: none }')


def start(setup, *extra, data="data.yaml"):
    return Server(setup / data, "--editable", "--users", setup / "users.yaml", "--secret-file", setup / "secret", *extra)


@pytest.fixture(scope="module")
def server(setup):
    s = start(setup)
    yield s
    s.stop()


def sign_in(url, name, password=None, cookie=None):
    """Signs in; returns (cookie header value, CSRF token of the session's pages)."""
    headers = {"Cookie": cookie} if cookie else {}
    r = requests.post(url + "signin", data={"user": name, "password": password or PASSWORD.format(name), "back": "/"},
                      headers=headers, allow_redirects=False, timeout=30)
    assert r.status_code == 303, (r.status_code, r.text[:300])
    match = re.match(r"dd_auth=([^;]+)", r.headers["Set-Cookie"])
    assert match and "HttpOnly" in r.headers["Set-Cookie"] and "SameSite=Strict" in r.headers["Set-Cookie"]
    session = f"dd_auth={match.group(1)}"
    page = requests.get(url, headers={"Cookie": session}, allow_redirects=False, timeout=30)
    assert page.status_code == 200
    return session, page.headers.get("X-CSRF-Token", "")


def get(url, path, cookie):
    return requests.get(url + path, headers={"Cookie": cookie}, allow_redirects=False, timeout=30)


def rename(url, path, title, cookie=None, token=None, bearer=None):
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    if token:
        headers["X-CSRF-Token"] = token
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"
    r = requests.post(url + "api/edit/rename/" + path, data=json.dumps({"title": title}), headers=headers, timeout=30)
    return r.status_code, r.json()


def test_no_credentials_get_401_or_the_sign_in_page_and_no_data(server):
    for path in ("api/level", "api/level/0", "api/node/0", "api/search?q=queen", "events"):
        r = requests.get(server.url + path, timeout=30, allow_redirects=False)
        assert r.status_code == 401, path
        assert r.headers.get("WWW-Authenticate") == "Bearer"
        assert not any(word in r.text for word in ("Rock", "Queen", "Jazz")), r.text
    page = requests.get(server.url + "l/0", timeout=30, allow_redirects=False)
    assert page.status_code == 303 and page.headers["Location"].startswith("/signin?back=")
    form = requests.get(server.url + page.headers["Location"].lstrip("/"), timeout=30)
    assert form.status_code == 200 and 'name="password"' in form.text
    assert not any(word in form.text for word in ("Rock", "Queen", "Jazz", "Music"))
    status, body = rename(server.url, "0", "Stolen")
    assert status == 401 and "Sign in" in body["error"]


def test_viewer_write_is_403_naming_what_is_missing_and_an_editor_write_is_200(server):
    cookie, token = sign_in(server.url, "vi")
    page = requests.get(server.url, headers={"Cookie": cookie}, timeout=30).text
    assert 'id="edit-button"' not in page and "Sign out" in page
    status, body = rename(server.url, "2", "Pop!", cookie, token)
    assert status == 403
    assert body["error"] == "vi is a viewer at 'Pop' (2): changing it needs the editor role"
    cookie, token = sign_in(server.url, "ed")
    assert 'id="edit-button"' in requests.get(server.url, headers={"Cookie": cookie}, timeout=30).text
    status, body = rename(server.url, "2", "Pop music", cookie, token)
    assert status == 200, body
    status, body = rename(server.url, "2", "Pop", cookie, token)
    assert status == 200, body


def test_a_grant_on_one_subtree_allows_writes_there_and_403_elsewhere(server):
    cookie, token = sign_in(server.url, "rocky")
    status, body = rename(server.url, "0.1", "Muse (band)", cookie, token)
    assert status == 200, body
    status, body = rename(server.url, "1.0", "Miles Davis", cookie, token)
    assert status == 403 and "rocky is a viewer at 'Jazz/Miles'" in body["error"]
    status, body = rename(server.url, "0.1", "Muse", cookie, token)
    assert status == 200, body


def test_a_hidden_subtree_is_absent_from_levels_search_and_paths(server):
    cookie, _ = sign_in(server.url, "nojazz")
    h = {"Cookie": cookie}
    level = requests.get(server.url + "api/level", headers=h, timeout=30).json()
    assert [row["title"] for row in level["rows"]] == ["Rock", "Pop"]
    assert level["total"] == 2
    search = requests.get(server.url + "api/search?q=miles", headers=h, timeout=30).json()
    assert search["total"] == 0 and search["hits"] == []
    assert requests.get(server.url + "api/search?q=queen", headers=h, timeout=30).json()["total"] == 1
    for path in ("api/level/1", "api/level/Jazz", "api/node/1.0", "api/node/Jazz%2FMiles", "l/1", "d/1.0", "search?q=so+what&values=1"):
        r = requests.get(server.url + path, headers=h, timeout=30, allow_redirects=False)
        # Nothing of the hidden rows but what the request itself named.
        assert "So What" not in r.text and ("Miles" not in r.text or "Miles" in path), path
        if not path.startswith("search"):
            assert r.status_code == 404, path
    page = requests.get(server.url, headers=h, timeout=30).text
    assert "Jazz" not in page
    outline = requests.get(server.url + "outline?all=1", headers=h, timeout=30)
    assert outline.status_code == 200 and "Queen" in outline.text and "Jazz" not in outline.text and "Miles" not in outline.text
    # A CSV download of the level leaves the hidden rows out (an OPML one too: test_accounts_writes.py).
    download = requests.get(server.url + "export/csv", headers=h, timeout=30)
    assert download.status_code == 200 and "Jazz" not in download.text and "Rock" in download.text and "Pop" in download.text
    assert requests.get(server.url + "export/csv/1", headers=h, timeout=30).status_code == 404
    # Everyone else still sees it.
    cookie, _ = sign_in(server.url, "vi")
    assert requests.get(server.url + "api/level", headers={"Cookie": cookie}, timeout=30).json()["total"] == 3
    assert "Jazz" in requests.get(server.url + "export/csv", headers={"Cookie": cookie}, timeout=30).text


def test_a_bearer_token_works_on_the_api_and_events_and_stops_when_revoked(server, setup):
    token = cli("token", "create", setup / "users.yaml", "ed", "--expires", "30d").strip()
    assert re.fullmatch(r"ddt_[0-9a-f]{8}_[0-9a-f]{64}", token)
    assert token not in (setup / "users.yaml").read_text()
    h = {"Authorization": f"Bearer {token}"}
    assert requests.get(server.url + "api/level", headers=h, timeout=30).json()["total"] == 3
    status, body = rename(server.url, "2.0", "ABBA", bearer=token)   # no cookie, no CSRF token
    assert status == 200, body
    with requests.get(server.url + "events", headers=h, stream=True, timeout=30) as events:
        assert events.status_code == 200
        assert next(events.iter_lines()).startswith(b"retry:")
    # A token in a URL is refused, even a valid one.
    assert requests.get(server.url + "api/level?access_token=" + token, timeout=30).status_code == 400
    token_id = token.split("_")[1]
    assert token_id in cli("token", "list", setup / "users.yaml")
    cli("token", "revoke", setup / "users.yaml", token_id)
    r = requests.get(server.url + "api/level", headers=h, timeout=30)
    assert r.status_code == 401 and "revoked" in r.json()["error"]
    status, _ = rename(server.url, "2.0", "Abba", bearer=token)
    assert status == 401


def test_session_fixation_is_refused(server):
    chosen = "dd_auth=v1.0123456789abcdef0123456789abcdef.ZWQ.9999999999.deadbeef"
    # A made-up session is not accepted...
    assert requests.get(server.url + "api/level", headers={"Cookie": chosen}, timeout=30).status_code == 401
    # ...and signing in with one planted gives a new session id, never the planted one.
    cookie, _ = sign_in(server.url, "ed", cookie=chosen)
    again, _ = sign_in(server.url, "ed", cookie=cookie)
    assert cookie != chosen and again != cookie
    assert cookie.split(".")[1] != again.split(".")[1]
    # The old anonymous CSRF cookie is not what a signed-in session's token is bound to.
    anon = "dd_session=0123456789abcdef0123456789abcdef"
    status, _ = rename(server.url, "2", "Pop", cookie=anon, token="0" * 64)
    assert status == 401


def test_csrf_with_another_users_token_is_refused(server):
    ed_cookie, ed_token = sign_in(server.url, "ed")
    boss_cookie, boss_token = sign_in(server.url, "boss")
    assert ed_token and boss_token and ed_token != boss_token
    status, body = rename(server.url, "2", "Pop", ed_cookie, boss_token)
    assert status == 403 and "CSRF" in body["error"]
    status, body = rename(server.url, "2", "Pop", ed_cookie)
    assert status == 403
    status, body = rename(server.url, "2", "Pop", ed_cookie, ed_token)
    assert status == 200, body


def test_sign_out_ends_the_session_in_the_page(server):
    cookie, token = sign_in(server.url, "ed")
    r = requests.post(server.url + "signout", data={"csrf": token}, headers={"Cookie": cookie}, allow_redirects=False, timeout=30)
    assert r.status_code == 303 and r.headers["Location"] == "/signin"
    assert r.headers["Set-Cookie"].startswith("dd_auth=; Max-Age=0")


def test_a_session_made_on_one_instance_works_on_another_with_the_same_secret(setup, server):
    other = start(setup)
    try:
        cookie, token = sign_in(server.url, "ed")
        assert requests.get(other.url + "api/level", headers={"Cookie": cookie}, timeout=30).status_code == 200
        status, body = rename(other.url, "2", "Pop", cookie, token)   # a page from instance A posts to B
        assert status == 200, body
    finally:
        other.stop()


def test_failed_sign_ins_slow_down(setup):
    own = start(setup)   # its own process: the delay it applies would slow the other tests' sign-ins
    try:
        for _ in range(5):
            r = requests.post(own.url + "signin", data={"user": "ed", "password": "wrong"}, allow_redirects=False, timeout=30)
            assert r.status_code == 401 and "The name or the password is wrong." in r.text
        # From the sixth on, each attempt must wait 1 s, 2 s, 4 s … after the last failure: the form
        # answers 429 with Retry-After (the test does not wait that long; the delay doubles, so a
        # slow machine meets it within a few attempts).
        for _ in range(6):
            r = requests.post(own.url + "signin", data={"user": "ed", "password": "wrong"}, allow_redirects=False, timeout=30)
            if r.status_code == 429:
                break
            assert r.status_code == 401
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        assert "Too many failed sign-ins" in r.text
        # Even the right password is not checked meanwhile.
        r = requests.post(own.url + "signin", data={"user": "ed", "password": PASSWORD.format("ed")}, allow_redirects=False, timeout=30)
        assert r.status_code == 429 and "Set-Cookie" not in r.headers
        # The same answer for a name that does not exist: the form does not tell names apart.
        r = requests.post(own.url + "signin", data={"user": "ghost", "password": "x"}, allow_redirects=False, timeout=30)
        assert r.status_code == 429
    finally:
        own.stop()


def test_the_proxy_header_is_believed_only_from_a_trusted_proxy(setup):
    trusted = start(setup, "--auth-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1")
    untrusted = start(setup, "--auth-header", "X-Forwarded-User", "--trusted-proxy", "192.0.2.1")
    try:
        h = {"X-Forwarded-User": "vi"}
        assert requests.get(trusted.url + "api/level", headers=h, timeout=30).status_code == 200
        assert requests.get(untrusted.url + "api/level", headers=h, timeout=30).status_code == 401
    finally:
        trusted.stop()
        untrusted.stop()


def test_the_sign_in_page_is_keyboard_and_axe_clean(server, browser):
    from axe_playwright_python.sync_playwright import Axe
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "l/0")
    assert page.url.startswith(server.url + "signin")
    result = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
    assert result.response["violations"] == [], result.response["violations"]
    # The name field has the focus; Tab to the password, Enter signs in and returns to the page asked for.
    assert page.evaluate("document.activeElement.id") == "signin-user"
    page.keyboard.type("ed")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD.format("ed"))
    page.keyboard.press("Enter")
    page.wait_for_url(server.url + "l/0")
    assert "Queen" in page.content()
    result = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
    assert result.response["violations"] == [], result.response["violations"]
    page.focus("#sign-out")
    page.keyboard.press("Enter")
    page.wait_for_url(server.url + "signin")
    context.close()


def test_signing_in_and_out_works_without_javascript(server, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server.url)
    page.fill("#signin-user", "vi")
    page.fill("#signin-password", "wrong")
    page.click("#signin-button")
    assert "The name or the password is wrong." in page.content()
    page.fill("#signin-password", PASSWORD.format("vi"))
    page.click("#signin-button")
    page.wait_for_url(server.url)
    assert "Rock" in page.content() and 'id="edit-button"' not in page.content()
    page.click("#sign-out")
    page.wait_for_url(server.url + "signin")
    context.close()


def test_a_read_only_server_with_accounts_shows_each_user_their_view_until_the_users_file_changes(setup, tmp_path):
    # The same accounts on a server that is not --editable: a signed-in session's view of the data is
    # made once (per session and users file generation), so this checks that it stays the user's own
    # and ends with an edit of the users file.
    users = tmp_path / "users.yaml"
    users.write_text((setup / "users.yaml").read_text())
    s = Server(setup / "data.yaml", "--users", users, "--secret-file", setup / "secret")
    try:
        assert requests.get(s.url + "api/level", timeout=30).status_code == 401
        nojazz, _ = sign_in(s.url, "nojazz")
        vi, _ = sign_in(s.url, "vi")
        for _ in range(3):
            assert [row["title"] for row in get(s.url, "api/level", nojazz).json()["rows"]] == ["Rock", "Pop"]
            assert [row["title"] for row in get(s.url, "api/level", vi).json()["rows"]] == ["Rock", "Jazz", "Pop"]
        # The pages too, rendered once and then from the page cache: each user's own.
        for _ in range(2):
            mine = get(s.url, "", nojazz)
            assert mine.status_code == 200 and "Rock" in mine.text and "Jazz" not in mine.text
            assert get(s.url, "l/1", nojazz).status_code == 404
            jazz = get(s.url, "l/1", vi)
            assert jazz.status_code == 200 and "Miles" in jazz.text
        page = get(s.url, "", vi)
        assert page.status_code == 200 and "Jazz" in page.text
        # No script writes to a read-only server: the token is in the page's sign-out form, not in a header.
        assert "X-CSRF-Token" not in page.headers
        token = re.search(r'action="/signout" class="account-form"><input type="hidden" name="csrf" value="([^"]+)"', page.text).group(1)
        # Removing nojazz from the users file ends that session at its next request; vi's goes on.
        cli("user", "remove", users, "nojazz")
        deadline = time.monotonic() + 10
        while get(s.url, "api/level", nojazz).status_code != 401:
            assert time.monotonic() < deadline, "the removed user's session was still accepted after 10 s"
        assert get(s.url, "api/level", vi).status_code == 200
        # Sign-out with the page's token works.
        r = requests.post(s.url + "signout", data={"csrf": token}, headers={"Cookie": vi}, allow_redirects=False, timeout=30)
        assert r.status_code == 303 and r.headers["Location"] == "/signin"
    finally:
        s.stop()
