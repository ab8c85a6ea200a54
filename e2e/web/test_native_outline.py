"""Issue 31 item 6, the outline and the columns feel native: a row's title keeps you in the outline
(a row with children expands or collapses in place, a leaf opens its detail whose Back returns to
the same outline: expansion, scroll position and the leaf focused), a row added with "Add child…"
shows at once under its expanded parent, the drop line of a drag is indented to the depth the row
lands at and follows the pointer's x, and the columns answer the arrow keys as soon as they show
(Finder's keys, with a visible focus ring). At phone (390) and desktop (1280) widths, with and
without JavaScript where the outline has a no-script form; axe finds nothing in light and dark.
Screenshots go to artifacts/screenshots/outline/."""
import json
import os
import pathlib
import re

import pytest
from playwright.sync_api import expect

from conftest import SCREENSHOTS, Server, wait_until
from test_outline_keys import esc, item, outline, saved  # the Alpha/Beta/Gamma/Delta outline, editable

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
SHOTS = SCREENSHOTS / "outline"
GROUPS, LEAVES = 60, 5


def snap(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.fixture(scope="module")
def groups_server(tmp_path_factory):
    """60 groups of 5 leaves: long enough to scroll."""
    path = tmp_path_factory.mktemp("groups") / "groups.json"
    path.write_text(json.dumps({"Rows": [
        {"Title": f"Group {g:02d}", "Children": [{"Title": f"Leaf {g:02d}-{k}", "n": k} for k in range(LEAVES)]} for g in range(GROUPS)]}))
    server = Server(path)
    yield server
    server.stop()


def scroll_to_row(page, index):
    """Scrolls the virtual tree so row `index` sits just under the navigation bar."""
    page.evaluate("""i => { const t = document.getElementById('tree'), nav = document.querySelector('.navbar');
        const h = t.getBoundingClientRect().height / +t.dataset.total;
        window.scrollTo(0, t.getBoundingClientRect().top + scrollY + i * h - nav.offsetHeight - 8); }""", index)


# ---- A title keeps you in the outline ---------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_a_title_toggles_in_place_and_a_leaf_detail_returns_to_the_same_outline(page, groups_server, size):
    page.set_viewport_size(SIZES[size])
    page.goto(groups_server.url + "outline?open=3")
    expect(page.locator("#tree.virtual")).to_have_count(1)
    page.evaluate("window.__stillHere = true")
    scroll_to_row(page, 42)     # Group 40 is row 45 (Group 03's 5 leaves before it), Leaf 40-2 row 48
    # A row with children: its title expands it here (it used to open the list), and keeps the focus.
    item(page, "40").click()
    expect(item(page, "40")).to_have_attribute("aria-expanded", "true")
    expect(item(page, "40.4")).to_be_visible()
    expect(item(page, "40")).to_be_focused()
    expect(page).to_have_url(re.compile(r"/outline\?open=3,40"))
    assert page.evaluate("window.__stillHere") is True, "the title left the page"
    # Enter on it collapses it again, and again expands it (keyboard).
    page.keyboard.press("Enter")
    expect(item(page, "40")).to_have_attribute("aria-expanded", "false")
    page.keyboard.press("Enter")
    expect(item(page, "40")).to_have_attribute("aria-expanded", "true")
    # A leaf opens its detail; the detail's Back returns to this outline, scrolled as it was.
    scroll_to_row(page, 42)
    expect(item(page, "40.2")).to_be_visible()
    page.wait_for_function("() => /offset=4[0-9]/.test(location.search)")
    before = page.evaluate("scrollY")
    item(page, "40.2").click()
    expect(page).to_have_url(re.compile(r"/d/40\.2\?outline="))
    expect(page.locator("#detail-title, h1").first).to_contain_text("Leaf 40-2")
    back = page.locator("#back")
    expect(back).to_contain_text("Outline")
    snap(page, f"detail-from-outline-{size}")
    back.click()
    expect(page).to_have_url(re.compile(r"/outline\?open=3,40&focus=40\.2&offset=4"))
    expect(item(page, "40.2")).to_be_focused()
    expect(item(page, "40")).to_have_attribute("aria-expanded", "true")
    assert abs(page.evaluate("scrollY") - before) <= 2, "Back did not keep the scroll position"
    # The browser's Back after opening the leaf again comes to the same place too.
    item(page, "40.3").click()
    expect(page).to_have_url(re.compile(r"/d/40\.3\?"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/outline\?open=3,40&focus=40\.3"))
    expect(item(page, "40.3")).to_be_visible()
    assert abs(page.evaluate("scrollY") - before) <= 2


def test_keyboard_only_the_outline_opens_a_leaf_and_comes_back(page, groups_server):
    page.goto(groups_server.url + "outline")
    expect(page.locator("#tree.virtual")).to_have_count(1)
    item(page, "0").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")                 # expands Group 01
    expect(item(page, "1")).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("ArrowDown")
    expect(item(page, "1.0")).to_be_focused()  # once the expanded rows are fetched
    page.keyboard.press("ArrowDown")
    expect(item(page, "1.1")).to_be_focused()
    page.keyboard.press("Enter")                 # opens Leaf 01-1
    expect(page).to_have_url(re.compile(r"/d/1\.1\?outline=open%3D1"))
    page.keyboard.press("Escape")                # Back (the detail's Back link)
    expect(page).to_have_url(re.compile(r"/outline\?open=1&focus=1\.1"))
    expect(item(page, "1.1")).to_be_focused()


def test_without_javascript_titles_stay_in_the_outline(browser, groups_server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(groups_server.url + "outline")
        page.locator(esc("2") + " a.cell").click()
        expect(page).to_have_url(re.compile(r"/outline\?open=2&focus=2#n-2$"))
        expect(page.locator(esc("2.4") + " .row-title")).to_have_text("Leaf 02-4")
        page.locator(esc("2.4") + " a.cell").click()
        expect(page).to_have_url(re.compile(r"/d/2\.4\?outline=open%3D2$"))
        expect(page.locator("#back")).to_contain_text("Outline")
        expect(page.locator(".modes [aria-current=page]")).to_have_text("Outline")
        page.locator("#back").click()
        expect(page).to_have_url(re.compile(r"/outline\?open=2&focus=2\.4#n-2\.4$"))
        expect(page.locator(esc("2.4") + ".focused")).to_have_count(1)
    finally:
        context.close()


# ---- Add child… reveals the new row -----------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_add_child_expands_the_parent_and_selects_the_new_row(page, outline, size):
    page.set_viewport_size(SIZES[size])
    page.goto(outline.url + "outline?edit=1&focus=1")
    expect(page.locator("#tree.virtual.editing")).to_have_count(1)
    expect(page.locator("#edit-selected-title")).to_have_text("Beta")
    page.locator("#add-child-link").click()
    expect(page.locator("#add-dialog")).to_be_visible()
    page.fill("#add-dialog-title-input", "B1")
    page.keyboard.press("Enter")
    wait_until(lambda: saved(outline) == "Alpha(A1 A2 A3) Beta(B1) Gamma(G1 G2) Delta", 10, "B1 was not added")
    expect(item(page, "1")).to_have_attribute("aria-expanded", "true")
    expect(item(page, "1.0")).to_be_visible()
    expect(item(page, "1.0")).to_have_attribute("aria-selected", "true")
    expect(item(page, "1.0")).to_be_focused()
    expect(page.locator("#edit-selected-title")).to_have_text("B1")
    expect(page).to_have_url(re.compile(r"open=1(&|,|$).*focus=1\.0"))
    snap(page, f"add-child-revealed-{size}")


def test_add_child_without_javascript_returns_to_the_new_row_shown(browser, outline):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(outline.url + "outline?edit=1&focus=2")
        page.locator("#add-child-link").click()
        page.fill("#add-title", "G3")
        page.click("#add-done")
        expect(page).to_have_url(re.compile(r"/outline\?open=2&edit=1&focus=2\.2#n-2\.2$"))
        expect(page.locator(esc("2.2") + ".focused .row-title")).to_have_text("G3")
        expect(page.locator("#edit-selected-title")).to_have_text("G3")
    finally:
        context.close()


# ---- The drop line shows the depth ------------------------------------------------------------

def drag_to_gap(page, source, target, dx, check):
    """Drags `source`'s handle to the bottom quarter of `target`, `dx` px right of where it began."""
    page.evaluate("() => document.getElementById('tree').scrollIntoView({ block: 'center' })")
    handle = page.locator(esc(source) + " .drag-handle").bounding_box()
    goal = page.locator(esc(target)).bounding_box()
    x0, y0 = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0, goal["y"] + goal["height"] * 0.9, steps=6)
    page.mouse.move(x0 + dx, goal["y"] + goal["height"] * 0.9, steps=3)
    check()
    page.mouse.up()


@pytest.mark.parametrize("size", SIZES)
def test_the_drop_line_is_indented_to_the_depth_the_pointer_chooses(page, outline, size):
    page.set_viewport_size(SIZES[size])
    page.goto(outline.url + "outline?all=1&edit=1")
    expect(page.locator("#tree.virtual.editing")).to_have_count(1)
    indicator = page.locator("#drop-indicator")
    g2 = item(page, "2.1").bounding_box()["x"]
    gamma = item(page, "2").bounding_box()["x"]

    # Delta after G2, the end of a level: one step right makes it G2's sibling (depth 2)...
    def sibling():
        expect(indicator).to_be_visible()
        expect(indicator).to_have_attribute("data-depth", "2")
        assert abs(indicator.bounding_box()["x"] - g2) <= 2
        snap(page, f"drop-depth-{size}")
    drag_to_gap(page, "3", "2.1", 20, sibling)
    wait_until(lambda: saved(outline) == "Alpha(A1 A2 A3) Beta Gamma(G1 G2 Delta)", 10, "Delta is not under Gamma")
    expect(page.locator(esc("2.2") + " .row-title")).to_have_text("Delta")

    # ...and A3 after A3's level, one step left, lands at depth 1 after Alpha (the line at Alpha's x).
    def outdented():
        expect(indicator).to_have_attribute("data-depth", "1")
        assert abs(indicator.bounding_box()["x"] - gamma) <= 2
    drag_to_gap(page, "0.2", "0.2", -20, outdented)
    wait_until(lambda: saved(outline) == "Alpha(A1 A2) A3 Beta Gamma(G1 G2 Delta)", 10, "A3 did not move out")
    expect(page.locator(esc("1") + " .row-title")).to_have_text("A3")

    # Straight down keeps the row's depth: A1 to the gap after A2 stays in Alpha.
    def same():
        expect(indicator).to_have_attribute("data-depth", "2")
    drag_to_gap(page, "0.0", "0.1", 0, same)
    wait_until(lambda: saved(outline) == "Alpha(A2 A1) A3 Beta Gamma(G1 G2 Delta)", 10, "A1 did not move after A2")


# ---- Columns answer the arrows at once --------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_columns_answer_the_arrow_keys_as_soon_as_they_show(page, seed_server, size):
    page.set_viewport_size(SIZES[size])
    page.goto(seed_server.url + "columns/3")
    # The selected row of the deepest column with one has the focus, with a visible ring.
    cell = page.locator(".column .row.selected a.cell")
    expect(cell).to_be_focused()
    ring = page.evaluate("() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]; }")
    assert ring[0] == "solid" and ring[1] != "0px", ring
    snap(page, f"columns-focus-{size}")
    page.keyboard.press("ArrowUp")                       # ↑ within the column
    expect(page.locator(".column").first.locator("a.cell", has_text="Item 3")).to_be_focused()
    page.keyboard.press("ArrowRight")                    # → opens it, into its first child
    expect(page).to_have_url(re.compile(r"/columns/2$"))
    expect(page.locator(".column").nth(1).locator("a.cell", has_text="Screen D")).to_be_focused()
    page.keyboard.press("ArrowLeft")                     # ← back to the previous column's selection
    expect(page.locator(".column").first.locator(".row.selected a.cell")).to_be_focused()
    page.keyboard.press("ArrowRight")                    # → into the column it shows
    expect(page.locator(".column").nth(1).locator("a.cell", has_text="Screen D")).to_be_focused()
    page.keyboard.press("Enter")                         # Enter opens
    expect(page).to_have_url(re.compile(r"/columns/2\.0$"))
    expect(page.locator(".column").nth(1).locator(".row.selected a.cell")).to_be_focused()


# ---- axe and screenshots ----------------------------------------------------------------------

axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


@pytest.fixture(scope="module")
def axe():
    return axe_module.Axe()


def clean(axe, page, what):
    found = axe.run(page, options=WCAG).response["violations"]
    assert not found, what + ": " + "; ".join(f"{v['id']} ({len(v['nodes'])})" for v in found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES)
def test_no_axe_violations_and_screenshots(page, outline, seed_server, axe, size, scheme):
    page.set_viewport_size(SIZES[size])
    page.emulate_media(color_scheme=scheme)
    page.goto(outline.url + "outline?open=0")
    item(page, "2").click()
    expect(item(page, "2")).to_be_focused()
    clean(axe, page, "outline after a title click")
    snap(page, f"outline-{size}-{scheme}")
    item(page, "2.1").click()
    expect(page.locator("#back")).to_contain_text("Outline")
    clean(axe, page, "detail opened from the outline")
    snap(page, f"outline-detail-{size}-{scheme}")
    page.goto(outline.url + "outline?all=1&edit=1")
    expect(page.locator("#tree.virtual.editing")).to_have_count(1)

    def during():
        expect(page.locator("#drop-indicator")).to_be_visible()
        clean(axe, page, "drag with the indented drop line")
        snap(page, f"drag-{size}-{scheme}")
        page.keyboard.press("Escape")
    drag_to_gap(page, "3", "2.1", 20, during)
    page.goto(seed_server.url + "columns/3.0")
    expect(page.locator(".column .row.selected a.cell").last).to_be_focused()
    clean(axe, page, "columns with the focus")
    snap(page, f"columns-{size}-{scheme}")
