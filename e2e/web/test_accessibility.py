"""Accessibility (issue 12 item 5): axe-core's WCAG 2.1 A/AA rules find nothing on any screen, in
light and dark, read-only and editable; the outline is a WAI-ARIA tree a keyboard and a screen
reader can use; focus is visible and comes back after the Add dialog.

`python -m pytest e2e/web/test_accessibility.py -s` prints every violation it finds (rule, impact,
the offending elements), and `AXE_COUNT_ONLY=1` reports the total without failing (used to measure
the count on older code)."""
import os
import re
import shutil

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server

axe_playwright_python = pytest.importorskip("axe_playwright_python.sync_playwright")
Axe = axe_playwright_python.Axe

WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
SCHEMES = ["light", "dark"]
# Every screen of the bundled music library, read-only.
MUSIC_SCREENS = {
    "music root": "",
    "sorted level (Sort menu)": "l/0?sort=-year",
    "albums (a deeper level)": "l/0",
    "songs": "l/0.0",
    "song detail": "d/0.0.0",
    "outline": "outline?open=0,0.0&focus=0.0.1",
    "outline expanded": "outline?all=1",
    "columns": "columns/0.0.0",
    "search": "search?q=blue",
    "error": "l/9.9",
}
# The Sounds example on an editable server: controls, Edit mode and the no-script forms.
SOUNDS_SCREENS = {
    "settings root": "",
    "sounds": "l/0",
    "sounds edit mode": "l/0?edit=1",
    "sound detail": "d/0.3",
    "sound detail edit mode": "d/0.3?edit=1",
    "outline editable": "outline?all=1",
    "columns editable": "columns/0.3",
    "search editable": "search?q=tone",
    "add form": "add/0",
    "delete form": "delete/0.3",
    "outline edit mode": "outline?open=0,1&edit=1&focus=0.3",
    "outline edit mode, nothing selected": "outline?all=1&edit=1",
    "columns edit mode": "columns/0.3?edit=1",
    "move form": "move/0.3",
    "rename form": "rename/0.3",
}
TOTALS = {}


@pytest.fixture(scope="module")
def axe():
    return Axe()


@pytest.fixture(scope="module")
def sounds_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("a11y-sounds")
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(ROOT / "Examples" / "Sounds" / name, folder / name)
    server = Server(folder / "sounds.plist", "--schema", folder / "schema.yaml", "--editable")
    yield server
    server.stop()


def violations(axe, page):
    """axe's WCAG 2.1 A/AA violations on the page as it is now, as readable lines."""
    result = axe.run(page, options=WCAG)
    lines = []
    for v in result.response["violations"]:
        for node in v["nodes"]:
            lines.append(f"{v['id']} ({v['impact']}): {' '.join(node['target'])} — {node['failureSummary'].splitlines()[-1].strip()}")
    return lines


def check(axe, page, name, scheme):
    found = violations(axe, page)
    TOTALS[(name, scheme)] = len(found)
    if found:
        print(f"\n{name} [{scheme}]: {len(found)} violations\n  " + "\n  ".join(found))
    if not os.environ.get("AXE_COUNT_ONLY"):
        assert not found, f"{name} [{scheme}]: " + "\n".join(found)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("screen", list(MUSIC_SCREENS))
def test_music_screens_have_no_violations(page, music_server, axe, screen, scheme):
    page.emulate_media(color_scheme=scheme)
    page.goto(music_server.url + MUSIC_SCREENS[screen])
    page.wait_for_load_state("load")
    check(axe, page, screen, scheme)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("screen", list(SOUNDS_SCREENS))
def test_editable_sounds_screens_have_no_violations(page, sounds_server, axe, screen, scheme):
    page.emulate_media(color_scheme=scheme)
    page.goto(sounds_server.url + SOUNDS_SCREENS[screen])
    page.wait_for_load_state("load")
    check(axe, page, screen, scheme)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_add_dialog_has_no_violations_and_focus_returns(page, sounds_server, axe, scheme):
    page.emulate_media(color_scheme=scheme)
    page.goto(sounds_server.url + "l/0")
    page.locator("#add-button").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#add-dialog")).to_be_visible()
    expect(page.locator("#add-dialog-title-input")).to_be_focused()
    check(axe, page, "add dialog", scheme)
    page.keyboard.press("Escape")
    expect(page.locator("#add-dialog")).to_be_hidden()
    expect(page.locator("#add-button")).to_be_focused()
    page.locator("#add-button").click()
    page.locator("#add-dialog-cancel").click()
    expect(page.locator("#add-button")).to_be_focused()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_drag_in_progress_and_the_rename_dialog_have_no_violations(page, sounds_server, axe, scheme):
    page.emulate_media(color_scheme=scheme)
    page.goto(sounds_server.url + "outline?open=0&edit=1&focus=0.3")
    handle = page.locator("#n-0\\.0 .drag-handle").bounding_box()
    target = page.locator("#n-0\\.2").bounding_box()
    page.mouse.move(handle["x"] + 5, handle["y"] + 5)
    page.mouse.down()
    page.mouse.move(handle["x"] + 5, target["y"] + 4, steps=5)
    expect(page.locator("#drop-indicator")).to_be_visible()
    check(axe, page, "drag in progress", scheme)
    page.keyboard.press("Escape")
    page.mouse.up()
    page.locator("#rename-link").click()
    expect(page.locator("#rename-dialog")).to_be_visible()
    check(axe, page, "rename dialog", scheme)
    page.keyboard.press("Escape")
    expect(page.locator("#rename-link")).to_be_focused()


def test_report_the_total(request):
    """Prints the total over every screen and scheme the tests above checked (runs last)."""
    if TOTALS:
        print(f"\naxe WCAG 2.1 A/AA violations: {sum(TOTALS.values())} over {len(TOTALS)} screen×scheme checks")


def test_outline_is_a_wai_aria_tree_with_keyboard_disclosure(page, music_server):
    page.goto(music_server.url + "outline")
    tree = page.get_by_role("tree")
    expect(tree).to_have_count(1)
    items = tree.get_by_role("treeitem")
    expect(items).to_have_count(4)
    first = items.first
    expect(first).to_have_attribute("aria-level", "1")
    expect(first).to_have_attribute("tabindex", "0")
    expect(items.nth(1)).to_have_attribute("tabindex", "-1")
    expect(first).to_have_attribute("aria-expanded", "false")
    # The accessibility tree names each item by its title and says it is collapsed.
    snapshot = page.locator("#tree").aria_snapshot()
    assert re.search(r'- treeitem "Miles Davis[^"]*"', snapshot), snapshot
    # One tab stop into the tree (roving tabindex); arrows move, Right/Left disclose.
    page.locator("body").focus()
    page.keyboard.press("Tab")
    for _ in range(12):
        if page.evaluate("!!document.activeElement.closest('#tree')"):
            break
        page.keyboard.press("Tab")
    # The artists are sorted (The Dave Brubeck Quartet, path 2, first); items keep their paths.
    focused = page.evaluate("document.activeElement.closest('li.treeitem').dataset.path")
    assert focused == "2"
    page.keyboard.press("ArrowRight")
    expect(page.locator('#n-2 [role=treeitem]')).to_have_attribute("aria-expanded", "true")
    expect(items).to_have_count(5)
    expect(page.locator('#n-2\\.0 [role=treeitem]')).to_have_attribute("aria-level", "2")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.closest('li.treeitem').dataset.path") == "2.0"
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.closest('li.treeitem').dataset.path") == "2"
    page.keyboard.press("ArrowLeft")
    expect(page.locator('#n-2 [role=treeitem]')).to_have_attribute("aria-expanded", "false")
    expect(items).to_have_count(4)
    page.keyboard.press("End")
    expect(page.locator('#n-0 [role=treeitem]')).to_be_focused()
    expect(page.locator('#n-0 [role=treeitem]')).to_have_attribute("tabindex", "0")
    page.keyboard.press("Home")
    expect(page.locator('#n-2 [role=treeitem]')).to_be_focused()
    snapshot = page.locator("#tree").aria_snapshot()
    assert "treeitem" in snapshot


def test_focus_is_visible(page, music_server):
    page.goto(music_server.url)
    page.keyboard.press("Tab")
    for _ in range(20):
        tag = page.evaluate("document.activeElement.matches('#rows a.cell')")
        if tag:
            break
        page.keyboard.press("Tab")
    style = page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
        return [s.outlineStyle, s.outlineWidth, s.boxShadow].join(' '); }""")
    assert ("none" not in style.split()[0]) or ("rgb" in style), f"no visible focus: {style}"
