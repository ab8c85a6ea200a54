"""Presence with the keyboard only (issue 32, item 4): a user who moves through the outline and the
columns with Tab, the arrows and Enter, while another user is there and renames a row, hears and
reaches who is there and which row they edit: the navigation bar's list of initials is named and
each circle carries the user's name in words; the focused row's cell is described by its marker
(aria-describedby), whose words then show; a status region says who came, edits which row and
stops. axe finds no violations. Phone (390 px) and desktop widths, light and dark."""
import re

import pytest
from playwright.sync_api import expect

from conftest import SCREENSHOTS
from test_presence import AXE_TAGS, avatars, visit
from test_presence_marks import SHOTS
from test_presence_views import WIDTHS, marker, pair, row, server, setup  # noqa: F401


def tab_to(page, selector, limit=40):
    """Presses Tab until the focus is on an element matching `selector`; returns how many presses it took."""
    for k in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return k
    raise AssertionError(f"Tab never reached {selector}")


def focused(page):
    return page.locator("*:focus")


def check_announced(page, path, title, shot):
    """The row at `path` has the focus, is described by its marker (the other user's name), and the
    marker's words show; the bar names its list and its circle's words; the status region said it."""
    cell = row(page, path).locator(":scope > .cell")
    expect(cell).to_be_focused()
    expect(cell).to_have_attribute("aria-describedby", f"editing-{path}")
    expect(cell).to_have_accessible_description("ana.lima is editing this row")
    expect(marker(page, path).locator(".visually-hidden")).to_be_visible()
    expect(page.get_by_role("list", name="Also here")).to_be_visible()
    expect(avatars(page).first.locator(".visually-hidden")).to_have_text("ana.lima (editing)")
    expect(avatars(page).first.locator('[aria-hidden="true"]')).to_have_text("AL")
    expect(page.locator("#presence-status")).to_have_attribute("role", "status")
    expect(page.locator("#presence-status")).to_contain_text(f"ana.lima is editing {title}.")
    for folder in (SHOTS, SCREENSHOTS):
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"presence-keyboard-{shot}.png"))


def axe_clean(page):
    from axe_playwright_python.sync_playwright import Axe
    result = Axe().run(page, options=AXE_TAGS)
    assert result.response["violations"] == [], result.response["violations"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_outline_and_columns_with_the_keyboard_only_while_another_user_edits(server, browser, width, scheme):
    a, b = pair(browser, server.url, width, scheme)
    try:
        # A renames Blur in place on Rock's level page; B has the outline, collapsed.
        visit(a, server.url + "l/0?edit=1")
        a.click('#rows li[data-path="0.2"] .rename-cell')
        expect(a.locator(".rename-input")).to_be_focused()
        visit(b, server.url + "outline")
        expect(avatars(b)).to_have_count(0)
        # B: Tab into the tree (Rock), → expands it: Rock's rows are shown, so A is there, editing Blur.
        tab_to(b, "#tree [role=treeitem]")
        expect(focused(b)).to_have_accessible_name(re.compile(r"^Rock\b"))
        b.keyboard.press("ArrowRight")
        expect(avatars(b)).to_have_count(1)
        expect(b.locator("#presence-status")).to_contain_text("ana.lima is here.")
        # ↓ three times: Queen, Muse, Blur — the marked row says who edits it.
        for _ in range(3):
            b.keyboard.press("ArrowDown")
        check_announced(b, "0.2", "Blur", f"outline-{width}-{scheme}")
        axe_clean(b)
        # A stops: the marker and its description go, and the status says so.
        a.keyboard.press("Escape")
        expect(marker(b, "0.2")).to_have_count(0)
        expect(row(b, "0.2").locator(":scope > .cell")).not_to_have_attribute("aria-describedby", "editing-0.2")
        expect(b.locator("#presence-status")).to_contain_text("ana.lima stopped editing.")

        # The columns: the focus starts on the root's column; ↓/↑ to Rock, Enter opens it, → into its rows.
        a.click('#rows li[data-path="0.3"] .rename-cell')
        visit(b, server.url + "columns/")
        focus = tab_to(b, ".column a.cell") if not b.evaluate("document.activeElement.matches('.column a.cell')") else 0
        assert focus < 40
        while b.evaluate("document.activeElement.closest('li').dataset.path") != "0":
            b.keyboard.press("ArrowUp")
        b.keyboard.press("Enter")
        b.wait_for_url("**/columns/0**")
        expect(b.locator("body")).to_have_attribute("data-live", "1")
        expect(avatars(b)).to_have_count(1)
        expect(focused(b)).to_have_accessible_name(re.compile(r"^Rock\b"))
        b.keyboard.press("ArrowRight")
        expect(focused(b)).to_have_accessible_name(re.compile(r"^Queen\b"))
        for _ in range(3):
            b.keyboard.press("ArrowDown")
        check_announced(b, "0.3", "Oasis", f"columns-{width}-{scheme}")
        axe_clean(b)
    finally:
        a.context.close()
        b.context.close()
