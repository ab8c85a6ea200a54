"""Presence in the outline and columns views (issue 32, item 4): a user looking at or editing a
node there is shown to the others viewing the same nodes in any of the three views (level,
outline, columns), and the other way round, with the level page's initials and row markers; a
marker follows its row when another user deletes a row above it. Two browser contexts signed in
as two users, on a real `drilldown serve`, at phone and desktop widths."""
import json
import re

import pytest
import requests
from playwright.sync_api import expect

from conftest import SCREENSHOTS, Server
from test_accounts import accounts_folder, sign_in
from test_presence import AXE_TAGS, DESKTOP, PHONE, avatars, signed_in, visit
from webclient import Events

DATA = """\
Rock:
  Queen: Bohemian Rhapsody
  Muse: Uprising
  Blur: Song 2
  Oasis: Wonderwall
Jazz:
  Miles: So What
Pop:
  Abba: Waterloo
"""
USERS = {"ana.lima": "editor", "bo": "editor"}
WIDTHS = {"phone": PHONE, "desktop": DESKTOP}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    return accounts_folder(tmp_path_factory.mktemp("presence-views"), "data.yaml", DATA, USERS, "grants: []")


@pytest.fixture
def server(setup):
    # One server per test: the deletion test changes the data.
    (setup / "data.yaml").write_text(DATA)
    s = Server(setup / "data.yaml", "--editable", "--users", setup / "users.yaml", "--secret-file", setup / "secret")
    yield s
    s.stop()


def pair(browser, url, width, scheme="light"):
    return signed_in(browser, url, "ana.lima", WIDTHS[width], scheme), signed_in(browser, url, "bo", WIDTHS[width], scheme)


def row(page, path):
    return page.locator(f'#main li[data-path="{path}"]')


def marker(page, path):
    return row(page, path).locator(":scope > .editing-marker")


def delete(server, cookie, token, path):
    """Deletes the row at `path` through the API, as the user of `cookie` (the other user's edit)."""
    r = requests.post(server.url + f"api/edit/delete/{path}", data="{}",
                      headers={"Cookie": cookie, "X-CSRF-Token": token, "Content-Type": "application/json"}, timeout=30)
    assert r.status_code == 200, r.text


def open_rename_dialog(page):
    """Opens the edit tools' Rename… dialog of the selected row (the outline's or the columns')."""
    page.click("#rename-link")
    expect(page.locator("#rename-dialog")).to_be_visible()


@pytest.mark.parametrize("width", WIDTHS)
def test_outline_shows_who_else_is_on_its_rows_and_marks_the_row_they_rename(server, browser, width):
    a, b = pair(browser, server.url, width)
    try:
        # B's outline shows the root's rows and Rock's; A's level page is on Rock.
        visit(b, server.url + "outline?open=0")
        visit(a, server.url + "l/0?edit=1")
        expect(avatars(b)).to_have_count(1)
        expect(avatars(b).first).to_have_attribute("title", "ana.lima")
        expect(avatars(a)).to_have_count(1)   # and A sees B's outline
        expect(avatars(a).first).to_have_attribute("title", "bo")
        # A renames Muse in place: B's outline marks that row, with words for screen readers.
        a.click('#rows li[data-path="0.1"] .rename-cell')
        expect(a.locator(".rename-input")).to_be_focused()
        expect(marker(b, "0.1")).to_have_text("ALana.lima is editing this row")
        expect(row(b, "0.1")).to_have_class(re.compile(r"\bbeing-edited\b"))
        expect(avatars(b).first).to_have_attribute("title", "ana.lima (editing)")
        a.keyboard.press("Escape")
        expect(marker(b, "0.1")).to_have_count(0)
        # B collapses Rock: its rows are no longer shown, so A on Rock is no longer there.
        b.click('#main li[data-path="0"] [role="treeitem"]')
        expect(avatars(b)).to_have_count(0)
        expect(avatars(a)).to_have_count(0)
        # And the other way round: A's outline renames Blur (the Rename… dialog); B's level page marks it.
        visit(b, server.url + "l/0")
        visit(a, server.url + "outline?open=0&edit=1&focus=0.2")
        expect(avatars(b)).to_have_count(1)
        open_rename_dialog(a)
        expect(b.locator('#rows li[data-path="0.2"] .editing-marker')).to_have_text("ALana.lima is editing this row")
        a.keyboard.press("Escape")
        expect(b.locator('#rows li[data-path="0.2"] .editing-marker')).to_have_count(0)
    finally:
        a.context.close()
        b.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_columns_show_who_else_is_on_their_rows_and_mark_the_row_they_rename(server, browser, width):
    a, b = pair(browser, server.url, width)
    try:
        # B's columns show the root's rows and Rock's (Muse selected); A renames from the outline.
        visit(b, server.url + "columns/0.1")
        visit(a, server.url + "outline?open=0&edit=1&focus=0.3")
        expect(avatars(b)).to_have_count(1)
        expect(avatars(a)).to_have_count(1)
        open_rename_dialog(a)
        expect(marker(b, "0.3")).to_have_text("ALana.lima is editing this row")
        expect(avatars(b).first).to_have_attribute("title", "ana.lima (editing)")
        a.keyboard.press("Escape")
        expect(marker(b, "0.3")).to_have_count(0)
        # Columns to columns: A's Rename… on Jazz's column; B's columns show the root's rows (Jazz among them).
        visit(a, server.url + "columns/1?edit=1")
        open_rename_dialog(a)
        expect(marker(b, "1")).to_have_text("ALana.lima is editing this row")
        a.keyboard.press("Escape")
        expect(marker(b, "1")).to_have_count(0)
        # Columns elsewhere (Pop's, and the root's) still share the root's rows; a level page on Jazz shares none.
        visit(b, server.url + "l/1")
        expect(avatars(b)).to_have_count(1)   # A's columns on Jazz show Jazz's rows
        visit(a, server.url + "columns/2?edit=1")
        expect(avatars(b)).to_have_count(0)
    finally:
        a.context.close()
        b.context.close()


def test_a_marker_follows_its_row_when_the_other_user_deletes_a_row_above_it(server, browser):
    a, b = pair(browser, server.url, "desktop")
    bo, bo_token = sign_in(server.url, "bo")
    try:
        visit(a, server.url + "outline?open=0&edit=1&focus=0.2")
        visit(b, server.url + "columns/0")
        open_rename_dialog(a)
        expect(marker(b, "0.2")).to_have_count(1)
        expect(row(b, "0.2").locator(".row-title")).to_have_text("Blur")
        # B deletes Queen, above Blur: Blur is 0.1 now, and the marker is still on Blur.
        delete(server, bo, bo_token, "0.0")
        expect(row(b, "0.1").locator(".row-title")).to_have_text("Blur")
        expect(marker(b, "0.1")).to_have_text("ALana.lima is editing this row")
        expect(marker(b, "0.2")).to_have_count(0)
        # A level page opened now marks Blur too.
        visit(b, server.url + "l/0")
        expect(b.locator('#rows li[data-path="0.1"] .editing-marker')).to_have_count(1)
        expect(b.locator('#rows li.being-edited')).to_have_count(1)
        a.keyboard.press("Escape")
        expect(b.locator('#rows li.being-edited')).to_have_count(0)
        # Level page to level page: A renames Blur in place; B deletes Muse, above it.
        visit(a, server.url + "l/0?edit=1")
        a.click('#rows li[data-path="0.1"] .rename-cell')
        expect(b.locator('#rows li[data-path="0.1"] .editing-marker')).to_have_count(1)
        delete(server, bo, bo_token, "0.0")
        expect(b.locator('#rows li[data-path="0.0"] .row-title')).to_have_text("Blur")
        expect(b.locator('#rows li[data-path="0.0"] .editing-marker')).to_have_count(1)
        expect(b.locator('#rows li[data-path="0.1"] .row-title')).to_have_text("Oasis")
        expect(b.locator('#rows li.being-edited')).to_have_count(1)
    finally:
        a.context.close()
        b.context.close()


def test_presence_updates_to_the_api_are_checked(server):
    """POST /api/presence's `levels` (as the outline and columns send them) and its refusals."""
    ana, ana_token = sign_in(server.url, "ana.lima")
    bo, _ = sign_in(server.url, "bo")
    stream = Events(server.url, path="/events?presence=&presence=0", cookie=ana)
    page = stream.hello["page"]
    headers = {"Cookie": ana, "X-CSRF-Token": ana_token, "Content-Type": "application/json"}

    def post(body):
        return requests.post(server.url + "api/presence", data=json.dumps(body), headers=headers, timeout=30)

    def here(cookie, level):
        watch = Events(server.url, path=f"/events?presence={level}", cookie=cookie)
        name, data = watch.next_event()
        watch.close()
        assert name == "presence" and data["level"] == level
        return [v["user"] for v in data["here"]]

    try:
        assert here(bo, "0") == ["ana.lima"] and here(bo, "1") == []
        r = post({"page": page, "levels": ["1"]})
        assert r.status_code == 200, r.text
        assert here(bo, "0") == [] and here(bo, "1") == ["ana.lima"]
        for bad in ({"page": page, "levels": ["0.x"]}, {"page": page, "levels": [1]}, {"page": page, "levels": ["0"] * 501}):
            r = post(bad)
            assert r.status_code == 400 and "levels" in r.json()["error"], r.text
        assert post({"page": "nope", "levels": ["0"]}).status_code == 404
        r = requests.get(server.url + "events?presence=0.x", headers={"Cookie": ana}, timeout=30)
        assert r.status_code == 400 and "presence" in r.text
        # The OpenAPI document describes both.
        document = requests.get(server.url + "api/openapi.json", headers={"Cookie": ana}, timeout=30).json()
        assert [p["name"] for p in document["paths"]["/events"]["get"]["parameters"]] == ["presence", "editing"]
        assert document["components"]["schemas"]["PresenceUpdate"]["properties"]["levels"]["type"] == "array"
    finally:
        stream.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_presence_in_outline_and_columns_is_axe_clean_and_looks_right(server, browser, width, scheme):
    from axe_playwright_python.sync_playwright import Axe
    a, b = pair(browser, server.url, width, scheme)
    try:
        visit(a, server.url + "l/0?edit=1")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for view in ("outline?open=0", "columns/0"):
            visit(b, server.url + view)
            expect(avatars(b)).to_have_count(1)
            a.click('#rows li[data-path="0.2"] .rename-cell')
            expect(marker(b, "0.2")).to_be_visible()
            name = view.split("?")[0].split("/")[0]
            b.screenshot(path=str(SCREENSHOTS / f"presence-{name}-{width}-{scheme}.png"))
            result = Axe().run(b, options=AXE_TAGS)
            assert result.response["violations"] == [], result.response["violations"]
            # The marker is information, not a control: not in the tab order.
            assert row(b, "0.2").locator(".editing-marker [tabindex], .editing-marker a, .editing-marker button").count() == 0
            a.keyboard.press("Escape")
            expect(marker(b, "0.2")).to_have_count(0)
    finally:
        a.context.close()
        b.context.close()
