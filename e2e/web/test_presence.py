"""Presence (issue 32, item 4): on a server with accounts, a level's page shows who else is on it
(initials in the navigation bar, live) and marks a row another user is editing; an anonymous server
shows and sends nothing; a reader is told nothing about levels and rows they may not read. Two
browser contexts signed in as two users, on a real `drilldown serve`."""
import json
import re

import pytest
import requests
from playwright.sync_api import expect

from conftest import SCREENSHOTS, Server
from test_accounts import DATA, PASSWORD, accounts_folder, sign_in
from webclient import Events

USERS = {"ana.lima": "editor", "bo": "editor", "nojazz": "editor"}
AXE_TAGS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    return accounts_folder(tmp_path_factory.mktemp("presence"), "data.yaml", DATA, USERS,
                           'grants:\n  - { user: nojazz, path: "Jazz", role: none }')


@pytest.fixture(scope="module")
def server(setup):
    s = Server(setup / "data.yaml", "--editable", "--users", setup / "users.yaml", "--secret-file", setup / "secret")
    yield s
    s.stop()


def signed_in(browser, url, name, viewport=DESKTOP, scheme="light"):
    """A page of a new browser context signed in as `name`."""
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    page = context.new_page()
    page.goto(url + "signin")
    page.fill("#signin-user", name)
    page.fill("#signin-password", PASSWORD.format(name))
    page.click("#signin-button")
    page.wait_for_load_state()
    return page


def visit(page, url):
    """Opens `url` and waits until the page follows /events and has heard who is there."""
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-live", "1")
    expect(page.locator("body")).to_have_attribute("data-presence", re.compile(r"^\d+$"))


def two_users(browser, url):
    """Pages of ana.lima and bo, each in a browser context of their own."""
    return signed_in(browser, url, "ana.lima"), signed_in(browser, url, "bo")


def avatars(page):
    return page.locator("#presence li.avatar")


def test_b_sees_a_on_the_same_level_only_and_a_leaving_takes_the_initials_away(server, browser):
    a, b = two_users(browser, server.url)
    try:
        visit(a, server.url + "l/0")
        visit(b, server.url + "l/0")
        expect(avatars(b)).to_have_count(1)
        expect(avatars(b)).to_have_text("ALana.lima")
        expect(avatars(b).first).to_have_attribute("title", "ana.lima")
        expect(avatars(a)).to_have_count(1)   # and A sees B
        expect(avatars(a)).to_have_attribute("title", "bo")
        # Not on another level.
        visit(b, server.url + "l/1")
        expect(b.locator("body")).to_have_attribute("data-presence", "0")
        expect(b.locator("#presence")).to_be_hidden()
        expect(avatars(a)).to_have_count(0)
        # Back on A's level; A navigates away, then comes back and closes the page.
        visit(b, server.url + "l/0")
        expect(avatars(b)).to_have_count(1)
        a.goto(server.url + "l/2")
        expect(avatars(b)).to_have_count(0)
        expect(b.locator("#presence")).to_be_hidden()
        visit(a, server.url + "l/0")
        expect(avatars(b)).to_have_count(1)
        a.context.close()
        expect(avatars(b)).to_have_count(0)
    finally:
        b.context.close()


def test_a_row_a_renames_is_marked_on_bs_page(server, browser):
    a, b = two_users(browser, server.url)
    try:
        visit(a, server.url + "l/0?edit=1")
        visit(b, server.url + "l/0")
        marker = b.locator('#rows li[data-path="0.1"] .editing-marker')
        expect(marker).to_have_count(0)
        a.click('#rows li[data-path="0.1"] .rename-cell')
        expect(a.locator(".rename-input")).to_be_focused()
        expect(marker).to_have_count(1)
        expect(marker).to_have_text("ALana.lima is editing this row")
        expect(b.locator('#rows li[data-path="0.1"]')).to_have_class(re.compile(r"\bbeing-edited\b"))
        expect(avatars(b)).to_have_attribute("title", "ana.lima (editing)")
        # Escape closes the field: the marker goes.
        a.keyboard.press("Escape")
        expect(marker).to_have_count(0)
        # The detail's Edit mode of a row marks it too.
        visit(a, server.url + "d/0.0")
        a.click("#fields-edit")
        expect(b.locator('#rows li[data-path="0.0"] .editing-marker')).to_have_count(1)
        a.click("#fields-cancel")
        expect(b.locator('#rows li[data-path="0.0"] .editing-marker')).to_have_count(0)
    finally:
        a.context.close()
        b.context.close()


def test_a_reader_is_told_nothing_of_levels_and_rows_hidden_from_them(server):
    ana, ana_token = sign_in(server.url, "ana.lima")
    bo, _ = sign_in(server.url, "bo")
    nojazz, _ = sign_in(server.url, "nojazz")
    # Ana is on Jazz (hidden from nojazz), and on the root editing the Jazz row.
    on_jazz = Events(server.url, path="/events?presence=1", cookie=ana)
    on_root = Events(server.url, path="/events?presence=", cookie=ana)
    page = on_root.hello["page"]
    r = requests.post(server.url + "api/presence", data=json.dumps({"page": page, "editing": "1"}),
                      headers={"Cookie": ana, "X-CSRF-Token": ana_token, "Content-Type": "application/json"}, timeout=30)
    assert r.status_code == 200, r.text
    # Someone else's page cannot be set.
    r = requests.post(server.url + "api/presence", data=json.dumps({"page": page, "editing": "0"}),
                      headers={"Cookie": bo, "X-CSRF-Token": sign_in(server.url, "bo")[1], "Content-Type": "application/json"}, timeout=30)
    assert r.status_code in (403, 404), r.text
    try:
        def presence_of(cookie, level):
            stream = Events(server.url, path=f"/events?presence={level}", cookie=cookie)
            name, data = stream.next_event()
            stream.close()
            assert name == "presence" and data["level"] == level
            return data["here"]

        assert presence_of(bo, "1") == [{"user": "ana.lima", "initials": "AL", "editing": []}]
        assert presence_of(nojazz, "1") == []
        assert presence_of(bo, "") == [{"user": "ana.lima", "initials": "AL", "editing": ["1"]}]
        assert presence_of(nojazz, "") == [{"user": "ana.lima", "initials": "AL", "editing": []}]
    finally:
        on_jazz.close()
        on_root.close()


def test_a_server_without_accounts_shows_and_sends_nothing(setup, browser):
    anonymous = Server(setup / "data.yaml", "--editable")
    try:
        page = browser.new_context().new_page()
        page.goto(anonymous.url + "l/0")
        expect(page.locator("body")).to_have_attribute("data-live", "1")
        assert page.locator('meta[name="presence"]').count() == 0
        assert page.locator("#presence").count() == 0
        stream = Events(anonymous.url, path="/events?presence=0")
        assert "page" not in stream.hello
        stream.close()
        r = requests.post(anonymous.url + "api/presence", data="{}", headers={"Content-Type": "application/json"}, timeout=30)
        assert r.status_code == 404
        page.context.close()
    finally:
        anonymous.stop()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", ["phone", "desktop"])
def test_presence_is_keyboard_and_axe_clean_and_looks_right(server, browser, scheme, width):
    from axe_playwright_python.sync_playwright import Axe
    viewport = PHONE if width == "phone" else DESKTOP
    a = signed_in(browser, server.url, "ana.lima", viewport, scheme)
    b = signed_in(browser, server.url, "bo", viewport, scheme)
    n = signed_in(browser, server.url, "nojazz", viewport, scheme)
    try:
        visit(a, server.url + "l/0?edit=1")
        visit(n, server.url + "l/0")
        visit(b, server.url + "l/0")
        expect(avatars(b)).to_have_count(2)
        a.click('#rows li[data-path="0.1"] .rename-cell')
        expect(b.locator('#rows li[data-path="0.1"] .editing-marker')).to_have_count(1)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        b.screenshot(path=str(SCREENSHOTS / f"presence-{width}-{scheme}.png"))
        result = Axe().run(b, options=AXE_TAGS)
        assert result.response["violations"] == [], result.response["violations"]
        # The circles are not in the tab order; the keyboard goes from the title bar's buttons to the rows as before.
        assert b.locator("#presence [tabindex], #presence a, #presence button").count() == 0
        b.focus("#search")
        b.keyboard.press("Shift+Tab")
        assert b.evaluate("document.activeElement.closest('#presence')") is None
    finally:
        for p in (a, b, n):
            p.context.close()
