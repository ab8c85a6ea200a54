"""Sessions that end on the server (issue 32): a sign-out is recorded in the users file, which every
instance reads, so a copy of the signed-out cookie is refused everywhere; a password change,
`drilldown user signout` and "Sign out everywhere" end every session of a user; a sign-out the
server cannot record says so. Real `drilldown serve` processes, the real `drilldown user` command
and a real browser."""
import html
import re
import subprocess

import pytest
import requests

from conftest import Server, drilldown_binary, wait_until
from test_accounts import DATA, PASSWORD, accounts_folder, cli, sign_in

USERS = {"ana": "editor", "bob": "viewer"}


@pytest.fixture
def folder(tmp_path):
    return accounts_folder(tmp_path, "data.yaml", DATA, USERS, "grants: []")


@pytest.fixture
def servers(folder):
    """Two instances sharing the users file and the secret, as behind a round-robin proxy."""
    started = []

    def start():
        server = Server(folder / "data.yaml", "--editable", "--users", folder / "users.yaml", "--secret-file", folder / "secret")
        started.append(server)
        return server
    yield start
    for server in started:
        server.stop()


def api(url, cookie):
    return requests.get(url + "api/level", headers={"Cookie": cookie}, allow_redirects=False, timeout=30).status_code


def page(url, cookie):
    r = requests.get(url + "l/0", headers={"Cookie": cookie}, allow_redirects=False, timeout=30)
    return r.status_code, r.headers.get("Location", "")


def sign_out(url, cookie, token, everywhere=False):
    data = {"csrf": token, **({"everywhere": "1"} if everywhere else {})}
    r = requests.post(url + "signout", data=data, headers={"Cookie": cookie}, allow_redirects=False, timeout=30)
    assert r.status_code == 303 and r.headers["Set-Cookie"].startswith("dd_auth=; Max-Age=0"), (r.status_code, r.headers)
    return r.headers["Location"]


def refused(url, cookie):
    return api(url, cookie) == 401 and page(url, cookie) == (303, "/signin?back=%2Fl%2F0")


def test_a_cookie_copied_before_sign_out_is_refused_after_it_on_this_instance_and_another(servers, folder):
    a, b = servers(), servers()
    copied, token = sign_in(a.url, "ana")
    other, _ = sign_in(a.url, "ana")   # another session of the same user, in another browser
    assert api(a.url, copied) == 200 and api(b.url, copied) == 200   # B has it cached now
    assert sign_out(a.url, copied, token) == "/signin"
    # On the instance that signed out: refused at once, to the API and to pages.
    assert refused(a.url, copied)
    # On the other instance: as soon as it reads the users file again (it watches the file's folder).
    wait_until(lambda: api(b.url, copied) == 401, 10, "instance B still accepts a signed-out cookie")
    assert refused(b.url, copied)
    # The user's other session goes on, on both.
    assert api(a.url, other) == 200 and api(b.url, other) == 200
    # The file keeps the session id's SHA-256 and when it expires, not the id.
    text = (folder / "users.yaml").read_text()
    session_id = copied.split(".")[1]
    assert "signedOut:" in text and session_id not in text
    assert re.search(r"session: '?[0-9a-f]{64}'?", text) and "expires:" in text


def test_a_password_change_and_user_signout_end_every_session_and_a_fresh_sign_in_works(servers, folder):
    a, b = servers(), servers()
    users = folder / "users.yaml"
    old, _ = sign_in(a.url, "ana")
    bob, _ = sign_in(b.url, "bob")
    assert api(a.url, old) == 200 and api(b.url, old) == 200
    cli("user", "passwd", users, "ana", stdin="a-new-password\n")
    for server in (a, b):
        wait_until(lambda: api(server.url, old) == 401, 10, "an old session survived a password change")
        assert refused(server.url, old)
    fresh, _ = sign_in(b.url, "ana", password="a-new-password")
    assert api(a.url, fresh) == 200 and api(b.url, bob) == 200   # bob's session is not ana's
    out = cli("user", "signout", users, "ana")
    assert "Ended every session of ana" in out
    for server in (a, b):
        wait_until(lambda: api(server.url, fresh) == 401, 10, "a session survived 'drilldown user signout'")
        assert refused(server.url, fresh)
    again, _ = sign_in(a.url, "ana", password="a-new-password")
    assert api(b.url, again) == 200 and api(a.url, bob) == 200
    listed = cli("user", "list", users).splitlines()
    assert re.fullmatch(r"ana\teditor\tsessions ended \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", listed[0]), listed
    assert listed[1] == "bob\tviewer"


def test_user_signout_of_an_unknown_user_is_bad_input(folder):
    users = folder / "users.yaml"
    before = users.read_text()
    proc = subprocess.run([drilldown_binary(), "user", "signout", str(users), "nobody"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "no user named 'nobody'" in proc.stderr
    assert users.read_text() == before


def test_sign_out_everywhere_ends_another_browsers_session_without_javascript(servers, browser):
    a, b = servers(), servers()
    here = browser.new_context(java_script_enabled=False)
    there = browser.new_context()
    try:
        pages = []
        for context, server in ((here, a), (there, b)):
            p = context.new_page()
            p.goto(server.url)
            p.fill("#signin-user", "ana")
            p.fill("#signin-password", PASSWORD.format("ana"))
            p.click("#signin-button")
            p.wait_for_url(server.url)
            pages.append(p)
        bob, _ = sign_in(a.url, "bob")
        pages[0].click("#sign-out-everywhere")
        pages[0].wait_for_url(a.url + "signin?signout=everywhere")
        assert "You are signed out everywhere" in pages[0].locator("#signin-notice").inner_text()
        # The other browser, on the other instance, is sent to sign in at its next page.
        def other_browser_refused():
            pages[1].goto(b.url + "l/0")
            return pages[1].url.startswith(b.url + "signin")
        wait_until(other_browser_refused, 10, "the other browser's session survived 'Sign out everywhere'")
        assert api(a.url, bob) == 200 and api(b.url, bob) == 200
    finally:
        here.close()
        there.close()


@pytest.mark.parametrize("everywhere", [False, True])
def test_a_sign_out_the_server_cannot_record_says_so(servers, folder, everywhere):
    users = folder / "users.yaml"
    server = servers()
    cookie, token = sign_in(server.url, "ana")
    before = users.read_bytes()
    users.chmod(0o444)   # read-only for everyone, root included: DrillDown does not replace it
    try:
        target = sign_out(server.url, cookie, token, everywhere)
        assert target == ("/signin?signout=everywhere-failed" if everywhere else "/signin?signout=failed")
        shown = requests.get(server.url + target.lstrip("/"), timeout=30)
        assert shown.status_code == 200
        text = html.unescape(shown.text)
        assert "You are signed out in this browser only: the server could not record the sign-out" in text
        assert ("your other sessions still work" if everywhere else "a copy of this session's cookie still works") in text
        # The page's texts are fixed: a link cannot make it say something else.
        made_up = requests.get(server.url + "signin?signout=Your+account+was+hacked", timeout=30)
        assert made_up.status_code == 200 and "hacked" not in made_up.text and "signin-error" not in made_up.text
        # Truthful: the copy does still work, and the file is as it was.
        assert api(server.url, cookie) == 200
        assert users.read_bytes() == before
    finally:
        users.chmod(0o600)
        server.stop()
    stderr = server.proc.stderr.read()
    assert "the sign-out of ana was not recorded" in stderr and "read-only" in stderr, stderr

