"""Presence marks follow their rows through every change (issue 32, item 4): a row another user is
editing stays marked through an Undo and a Redo, and through a change another writer makes to the
file (the server reads it again: the row is looked for by its title, and its marker dropped when it
is gone rather than shown on another row). Two browser contexts signed in as two users on a real
`drilldown serve`; screenshots of a marked row after an Undo at phone and desktop widths, light and
dark (saved under /work/shots/presence3 when that folder exists, and under artifacts/screenshots)."""
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from conftest import SCREENSHOTS
from test_accounts import sign_in
from test_presence import avatars, visit
from test_presence_views import DATA, WIDTHS, delete, marker, open_rename_dialog, pair, row, server, setup  # noqa: F401

SHOTS = Path("/work/shots/presence3")


def post(server, cookie, token, action):
    """Posts /api/edit/ACTION (undo, redo) as the user of `cookie`."""
    r = requests.post(server.url + f"api/edit/{action}", data="{}",
                      headers={"Cookie": cookie, "X-CSRF-Token": token, "Content-Type": "application/json"}, timeout=30)
    assert r.status_code == 200, r.text


def marked(page):
    return page.locator("#main li.being-edited")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_a_marker_follows_its_row_through_an_undo_and_a_redo(server, browser, width, scheme):
    a, b = pair(browser, server.url, width, scheme)
    bo, bo_token = sign_in(server.url, "bo")
    try:
        # A renames Blur (0.2) from the outline; B's columns mark it.
        visit(a, server.url + "outline?open=0&edit=1&focus=0.2")
        visit(b, server.url + "columns/0")
        expect(avatars(b)).to_have_count(1)
        open_rename_dialog(a)
        expect(marker(b, "0.2")).to_have_count(1)
        # B deletes Queen, above Blur: the marker moves up with Blur.
        delete(server, bo, bo_token, "0.0")
        expect(row(b, "0.1").locator(".row-title")).to_have_text("Blur")
        expect(marker(b, "0.1")).to_have_text("ALana.lima is editing this row")
        # B's Undo brings Queen back: Blur is 0.2 again, and so is its marker (not left on Muse).
        post(server, bo, bo_token, "undo")
        expect(row(b, "0.0").locator(".row-title")).to_have_text("Queen")
        expect(row(b, "0.2").locator(".row-title")).to_have_text("Blur")
        expect(marker(b, "0.2")).to_have_text("ALana.lima is editing this row")
        expect(marked(b)).to_have_count(1)
        row(b, "0.2").scroll_into_view_if_needed()
        for folder in (SHOTS, SCREENSHOTS):
            folder.mkdir(parents=True, exist_ok=True)
            b.screenshot(path=str(folder / f"presence-undo-{width}-{scheme}.png"))
        # A level page opened now marks Blur too.
        visit(b, server.url + "l/0")
        expect(b.locator('#rows li[data-path="0.2"] .editing-marker')).to_have_count(1)
        expect(b.locator("#rows li.being-edited")).to_have_count(1)
        # And the Redo takes Queen away again: the marker goes up with Blur once more.
        post(server, bo, bo_token, "redo")
        expect(b.locator('#rows li[data-path="0.1"] .row-title')).to_have_text("Blur")
        expect(b.locator('#rows li[data-path="0.1"] .editing-marker')).to_have_count(1)
        expect(b.locator("#rows li.being-edited")).to_have_count(1)
    finally:
        a.context.close()
        b.context.close()


def test_a_marker_follows_its_row_through_a_change_made_to_the_file_elsewhere(server, setup, browser):  # noqa: F811
    a, b = pair(browser, server.url, "desktop")
    data = setup / "data.yaml"
    try:
        visit(a, server.url + "outline?open=0&edit=1&focus=0.2")
        visit(b, server.url + "columns/0")
        open_rename_dialog(a)
        expect(marker(b, "0.2")).to_have_count(1)
        # A text editor adds Pulp at the top of Rock: Blur is 0.3 now, and its marker is found there.
        data.write_text(DATA.replace("Rock:\n", "Rock:\n  Pulp: Common People\n"))
        expect(row(b, "0.0").locator(".row-title")).to_have_text("Pulp")
        expect(row(b, "0.3").locator(".row-title")).to_have_text("Blur")
        expect(marker(b, "0.3")).to_have_text("ALana.lima is editing this row")
        expect(marked(b)).to_have_count(1)
        # It deletes Blur: the marker goes rather than land on Oasis, now where Blur was.
        data.write_text(DATA.replace("Rock:\n", "Rock:\n  Pulp: Common People\n").replace("  Blur: Song 2\n", ""))
        expect(row(b, "0.3").locator(".row-title")).to_have_text("Oasis")
        expect(marked(b)).to_have_count(0)
        expect(avatars(b).first).to_have_attribute("title", "ana.lima")
    finally:
        a.context.close()
        b.context.close()
