"""The audit history in the web app (issue 32 item 3): the History screens name who changed what,
Revert works with and without the script (an editor's own changes; anyone's for an admin), the
screens are axe clean at 390 and 1280 px in light and dark, and Undo is per user: two users in two
browser contexts each undo only their own change."""
import json
import re

import pytest
import requests
from playwright.sync_api import expect

from conftest import Server
from test_accounts import DATA, PASSWORD, cli, sign_in

axe_playwright_python = pytest.importorskip("axe_playwright_python.sync_playwright")
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}

USERS = {"boss": "admin", "ed": "editor", "ana": "editor", "vi": "viewer"}


@pytest.fixture
def server(tmp_path):
    (tmp_path / "data.yaml").write_text(DATA)
    users = tmp_path / "users.yaml"
    for name, role in USERS.items():
        cli("user", "add", users, name, "--role", role, stdin=PASSWORD.format(name) + "\n")
    (tmp_path / "secret").write_text("0123456789abcdef0123456789abcdef")
    s = Server(tmp_path / "data.yaml", "--editable", "--users", users, "--secret-file", tmp_path / "secret")
    yield s
    s.stop()


def api(url, method, path, cookie, token=None, body=None):
    headers = {"Cookie": cookie, "Content-Type": "application/json"}
    if token:
        headers["X-CSRF-Token"] = token
    r = requests.request(method, url + path, data=json.dumps(body) if body is not None else None, headers=headers, timeout=30)
    return r.status_code, r.json()


def signed_in_page(browser, url, name, **options):
    """A page of a new browser context signed in as `name` (through the sign-in form)."""
    context = browser.new_context(**options)
    page = context.new_page()
    page.goto(url + "signin")
    page.fill("input[name=user]", name)
    page.fill("input[name=password]", PASSWORD.format(name))
    page.locator("form button[type=submit]").first.click()
    page.wait_for_url(re.compile(r".*/$"))
    return page


def test_an_editors_write_is_on_the_history_screen_naming_the_editor(server, browser):
    cookie, token = sign_in(server.url, "ed")
    assert api(server.url, "POST", "api/edit/rename/0.0", cookie, token, {"title": "Queen (band)"})[0] == 200
    page = signed_in_page(browser, server.url, "ed")
    page.goto(server.url + "l/0")
    page.click("#path-summary")
    page.click("#path-history")
    expect(page.locator("#history-heading")).to_have_text("History of “Rock”")
    entry = page.locator(".history-entry").first
    expect(entry.locator(".history-who")).to_have_text("ed")
    expect(entry).to_contain_text("Rename of Queen to Queen (band)")
    expect(entry.locator("del")).to_have_text("Queen")
    expect(entry.locator("ins")).to_have_text("Queen (band)")
    status, answer = api(server.url, "GET", "api/history?path=0.0", cookie)
    assert status == 200 and answer["total"] == 1 and answer["entries"][0]["user"] == "ed"
    page.context.close()


@pytest.mark.parametrize("script", [True, False], ids=["script", "no-script"])
def test_revert_restores_an_old_rename_and_is_itself_in_the_history(server, browser, script):
    cookie, token = sign_in(server.url, "ed")
    api(server.url, "POST", "api/edit/rename/1", cookie, token, {"title": "Jazz!"})
    api(server.url, "POST", "api/edit/add/", cookie, token, {"title": "Blues"})
    page = signed_in_page(browser, server.url, "ed", java_script_enabled=script)
    page.goto(server.url + "history")
    rename = page.locator(".history-entry", has_text="Rename of Jazz to Jazz!")
    number = rename.get_attribute("data-id")
    rename.locator("button", has_text="Revert").click()
    expect(page.locator(".history-entry").first).to_contain_text(f"Revert of #{number}")
    titles = [r["title"] for r in api(server.url, "GET", "api/level", cookie)[1]["rows"]]
    assert titles == ["Rock", "Jazz", "Pop", "Blues"]
    # A second revert of it is refused, with the reason on the screen.
    page.goto(server.url + "history")
    page.locator(f"#history-{number} button").click()
    expect(page.locator("#history-error")).to_contain_text("already taken back")
    page.context.close()


def test_only_an_admin_reverts_another_users_change(server):
    ed, ed_token = sign_in(server.url, "ed")
    api(server.url, "POST", "api/edit/rename/2", ed, ed_token, {"title": "Pop!"})
    number = api(server.url, "GET", "api/history", ed)[1]["entries"][0]["id"]
    ana, ana_token = sign_in(server.url, "ana")
    status, answer = api(server.url, "POST", "api/history/revert", ana, ana_token, {"id": number})
    assert status == 403 and "only their own changes" in answer["error"]
    assert 'id="revert-' not in requests.get(server.url + "history", headers={"Cookie": ana}, timeout=30).text
    vi, _ = sign_in(server.url, "vi")
    assert api(server.url, "GET", "api/history", vi)[1]["total"] == 1
    assert 'id="revert-' not in requests.get(server.url + "history", headers={"Cookie": vi}, timeout=30).text
    boss, boss_token = sign_in(server.url, "boss")
    status, answer = api(server.url, "POST", "api/history/revert", boss, boss_token, {"id": number})
    assert status == 200, answer
    assert api(server.url, "GET", "api/node/2", boss)[1]["title"] == "Pop"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_the_history_screen_is_axe_clean(server, browser, width, scheme):
    cookie, token = sign_in(server.url, "ed")
    api(server.url, "POST", "api/edit/rename/0.1", cookie, token, {"title": "Muse (band)"})
    api(server.url, "POST", "api/edit/delete/2", cookie, token, {})
    page = signed_in_page(browser, server.url, "ed", viewport={"width": width, "height": 800}, color_scheme=scheme)
    page.goto(server.url + "history")
    expect(page.locator(".history-entry")).to_have_count(2)
    result = axe_playwright_python.Axe().run(page, options=WCAG)
    found = [f"{v['id']}: {' '.join(n['target'])}" for v in result.response["violations"] for n in v["nodes"]]
    assert not found, found
    page.context.close()


def test_undo_is_per_user_in_two_browser_contexts(server, browser):
    ed = signed_in_page(browser, server.url, "ed")
    ana = signed_in_page(browser, server.url, "ana")
    ed_cookie, ed_token = sign_in(server.url, "ed")
    ana_cookie, ana_token = sign_in(server.url, "ana")
    api(server.url, "POST", "api/edit/rename/0", ed_cookie, ed_token, {"title": "Rock (ed)"})
    api(server.url, "POST", "api/edit/rename/1", ana_cookie, ana_token, {"title": "Jazz (ana)"})
    # ed's Undo says what it would take back: ed's change, not ana's later one.
    ed.goto(server.url)
    expect(ed.locator("#undo")).to_have_attribute("aria-label", "Undo Rename of Rock to Rock (ed)")
    ed.locator("#undo").click()
    expect(ed.locator("#notice-sentence")).to_contain_text("Rock")
    titles = [r["title"] for r in api(server.url, "GET", "api/level", ed_cookie)[1]["rows"]]
    assert titles[:2] == ["Rock", "Jazz (ana)"]
    ana.goto(server.url)
    expect(ana.locator("#undo")).to_have_attribute("aria-label", "Undo Rename of Jazz to Jazz (ana)")
    ana.locator("#undo").click()
    expect(ana.locator("#notice-sentence")).to_contain_text("Jazz")
    titles = [r["title"] for r in api(server.url, "GET", "api/level", ana_cookie)[1]["rows"]]
    assert titles[:2] == ["Rock", "Jazz"]
    ed.goto(server.url)
    expect(ed.locator("#redo")).to_have_attribute("aria-label", "Redo Rename of Rock to Rock (ed)")
    ed.context.close()
    ana.context.close()
