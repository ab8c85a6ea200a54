"""Outline keyboard editing and multi-select (issue 30 item 3) in Chromium: in the outline's Edit
mode Enter adds a row below (typed in place), F2 renames in place, Tab / Shift+Tab indent and
outdent, Alt+Up / Alt+Down move, Delete deletes; Shift+click, Ctrl+click and Shift+arrows select
several rows, and Move…, Delete and drag act on all of them. Each is one step: one Undo restores
the file. The no-script selection form does the same; the screens stay axe-clean."""
import json
import re

import pytest
from playwright.sync_api import expect

from conftest import Server, wait_until

DATA = {"Rows": [
    {"Title": "Alpha", "Children": [{"Title": "A1"}, {"Title": "A2"}, {"Title": "A3"}]},
    {"Title": "Beta"},
    {"Title": "Gamma", "Children": [{"Title": "G1"}, {"Title": "G2"}]},
    {"Title": "Delta"},
]}
START = "Alpha(A1 A2 A3) Beta Gamma(G1 G2) Delta"


def shape(rows):
    return " ".join(r["Title"] + ("(" + shape(r["Children"]) + ")" if r.get("Children") else "") for r in rows)


@pytest.fixture
def outline(tmp_path):
    path = tmp_path / "outline.json"
    path.write_text(json.dumps(DATA, indent=2))
    server = Server(path, "--editable")
    server.data = path
    yield server
    server.stop()


def saved(server):
    return shape(json.loads(server.data.read_text())["Rows"])


def eventually(server, expected):
    try:
        wait_until(lambda: saved(server) == expected, 10, "")
    except AssertionError:
        raise AssertionError(f"the file is {saved(server)!r}, not {expected!r}") from None


def esc(path):
    return "#n-" + path.replace(".", "\\.")


def item(page, path):
    return page.locator(esc(path) + " [role=treeitem]")


def open_edit(page, server, focus=None):
    page.goto(server.url + "outline?all=1&edit=1" + (f"&focus={focus}" if focus else ""))
    expect(page.locator("#tree.virtual.editing")).to_have_count(1)
    if focus:
        item(page, focus).focus()


def undo(page, server, expected=START):
    page.click("#undo")
    eventually(server, expected)


def status(page):
    return page.locator("#outline-status")


def test_enter_adds_a_row_below_typed_in_place(page, outline):
    open_edit(page, outline, "1")
    page.keyboard.press("Enter")
    editor = page.locator("#inline-edit")
    expect(editor).to_be_focused()
    expect(editor).to_have_attribute("aria-label", "Title of the new row below Beta")
    page.keyboard.type("Bravo")
    page.keyboard.press("Enter")
    eventually(outline, "Alpha(A1 A2 A3) Beta Bravo Gamma(G1 G2) Delta")
    expect(item(page, "2")).to_be_focused()
    expect(item(page, "2")).to_have_attribute("aria-selected", "true")
    expect(status(page)).to_have_text("Added “Bravo”.")
    # In a nested level too; Escape leaves everything as it was.
    item(page, "0.0").focus()
    page.keyboard.press("Enter")
    page.keyboard.type("never")
    page.keyboard.press("Escape")
    expect(page.locator("#inline-edit")).to_have_count(0)
    expect(item(page, "0.0")).to_be_focused()
    # Tab indents inside the tree, so Escape is the keyboard's way out of it.
    page.keyboard.press("Escape")
    expect(page.locator("#edit-button")).to_be_focused()
    undo(page, outline)


def test_f2_renames_in_place(page, outline):
    open_edit(page, outline, "2.1")
    page.keyboard.press("F2")
    editor = page.locator("#inline-edit")
    expect(editor).to_be_focused()
    expect(editor).to_have_value("G2")
    page.keyboard.type("Gee two")
    page.keyboard.press("Enter")
    eventually(outline, "Alpha(A1 A2 A3) Beta Gamma(G1 Gee two) Delta")
    expect(item(page, "2.1")).to_be_focused()
    expect(page.locator(esc("2.1") + " .row-title")).to_have_text("Gee two")
    undo(page, outline)


def test_tab_indents_and_shift_tab_outdents(page, outline):
    open_edit(page, outline, "1")
    page.keyboard.press("Tab")
    eventually(outline, "Alpha(A1 A2 A3 Beta) Gamma(G1 G2) Delta")
    expect(item(page, "0.3")).to_be_focused()
    expect(status(page)).to_have_text("Indented 1 row.")
    undo(page, outline)
    open_edit(page, outline, "2.0")
    page.keyboard.press("Shift+Tab")
    eventually(outline, "Alpha(A1 A2 A3) Beta Gamma(G2) G1 Delta")
    expect(item(page, "3")).to_be_focused()
    undo(page, outline)
    # The first row of a level has nothing above to go under: the reason shows, nothing changes.
    open_edit(page, outline, "0.0")
    page.keyboard.press("Tab")
    expect(page.locator("#edit-message")).to_contain_text("nothing to indent")
    assert saved(outline) == START


def test_alt_arrows_move_among_siblings(page, outline):
    open_edit(page, outline, "0.0")
    page.keyboard.press("Alt+ArrowDown")
    eventually(outline, "Alpha(A2 A1 A3) Beta Gamma(G1 G2) Delta")
    expect(item(page, "0.1")).to_be_focused()
    page.keyboard.press("Alt+ArrowUp")
    eventually(outline, START)
    expect(item(page, "0.0")).to_be_focused()
    page.keyboard.press("Alt+ArrowDown")
    eventually(outline, "Alpha(A2 A1 A3) Beta Gamma(G1 G2) Delta")
    undo(page, outline)


def test_delete_deletes_and_undo_brings_it_back(page, outline):
    open_edit(page, outline, "2.1")
    page.keyboard.press("Delete")
    eventually(outline, "Alpha(A1 A2 A3) Beta Gamma(G1) Delta")
    expect(item(page, "2.0")).to_be_focused()
    expect(status(page)).to_have_text("Deleted “G2”. Undo brings it back.")
    undo(page, outline)


def test_multi_select_delete_across_levels_is_one_step(page, outline):
    open_edit(page, outline)
    item(page, "0.1").click()
    item(page, "1").click(modifiers=["Control"])
    item(page, "2.1").click(modifiers=["Control"])
    for path in ["0.1", "1", "2.1"]:
        expect(item(page, path)).to_have_attribute("aria-selected", "true")
    expect(item(page, "0.2")).to_have_attribute("aria-selected", "false")
    expect(page.locator("#edit-selected-title")).to_have_text("3 rows selected")
    page.keyboard.press("Delete")
    eventually(outline, "Alpha(A1 A3) Gamma(G1) Delta")
    expect(status(page)).to_have_text("Deleted 3 rows. Undo brings them back.")
    undo(page, outline)


def test_shift_click_and_shift_arrows_select_a_range_that_tab_indents(page, outline):
    open_edit(page, outline)
    item(page, "1").click()
    item(page, "2").click(modifiers=["Shift"])
    expect(page.locator("#edit-selected-title")).to_have_text("2 rows selected")
    page.keyboard.press("Tab")
    eventually(outline, "Alpha(A1 A2 A3 Beta Gamma(G1 G2)) Delta")
    undo(page, outline)
    open_edit(page, outline, "0.0")
    item(page, "0.0").click()
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowDown")
    expect(item(page, "0.2")).to_be_focused()
    for path in ["0.0", "0.1", "0.2"]:
        expect(item(page, path)).to_have_attribute("aria-selected", "true")
    page.keyboard.press("Shift+Tab")
    eventually(outline, "Alpha A1 A2 A3 Beta Gamma(G1 G2) Delta")
    undo(page, outline)


def test_move_a_selection_with_the_selection_form_and_by_drag(page, outline):
    open_edit(page, outline)
    item(page, "0.0").click()
    item(page, "0.2").click(modifiers=["Control"])
    item(page, "3").click(modifiers=["Control"])
    page.click("#selection-move")
    dialog = page.locator("#move-dialog")
    expect(dialog.locator("#move-heading")).to_have_text("Move 3 rows")
    for path in ["0.0", "0.2", "3"]:
        expect(dialog.locator(f"input[name=paths][value='{path}']")).to_have_count(1)
    page.keyboard.press("ArrowLeft")
    dialog.locator(".picker-row[data-path='2']").click()
    # The picker draws Gamma's level when it arrives; until then the root's position menu is shown.
    expect(dialog.locator(".picker-title")).to_have_text("Gamma")
    dialog.locator("#move-position").select_option("1")
    dialog.locator("#move-here").click()
    eventually(outline, "Alpha(A2) Beta Gamma(G1 A1 A3 Delta G2)")
    expect(page).to_have_url(re.compile(r"/outline\?"))
    undo(page, outline)
    # A drag of one selected row moves the whole selection into Beta, as one step.
    open_edit(page, outline)
    item(page, "0.1").click()
    item(page, "2.0").click(modifiers=["Control"])
    handle = page.locator(esc("0.1") + " .drag-handle").bounding_box()
    goal = page.locator(esc("1")).bounding_box()
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(goal["x"] + goal["width"] / 3, goal["y"] + goal["height"] / 2, steps=8)
    page.mouse.up()
    eventually(outline, "Alpha(A1 A3) Beta(A2 G1) Gamma(G2) Delta")
    undo(page, outline)


def test_without_javascript_the_selection_form_covers_the_keys(browser, outline):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(outline.url + "outline?all=1&edit=1&focus=1")
        page.click("#select-several")
        expect(page.locator("input[name=paths][value='1']")).to_be_checked()
        page.check("input[name=paths][value='2.1']")
        page.click("#select-delete")
        eventually(outline, "Alpha(A1 A2 A3) Gamma(G1) Delta")
        expect(page).to_have_url(re.compile(r"/outline\?all=1&edit=1$"))
        page.click("#undo")
        eventually(outline, START)
        page.goto(outline.url + "outline/select?all=1")
        page.check("input[name=paths][value='1']")
        page.check("input[name=paths][value='2']")
        page.click("#select-indent")
        eventually(outline, "Alpha(A1 A2 A3 Beta Gamma(G1 G2)) Delta")
        page.click("#undo")
        eventually(outline, START)
        page.goto(outline.url + "outline/select?all=1")
        page.check("input[name=paths][value='0.1']")
        page.click("#select-outdent")
        eventually(outline, "Alpha(A1 A3) A2 Beta Gamma(G1 G2) Delta")
        page.goto(outline.url + "outline/select?all=1")
        page.check("input[name=paths][value='4']")
        page.click("#select-up")
        eventually(outline, "Alpha(A1 A3) A2 Beta Delta Gamma(G1 G2)")
        # Enter's counterpart: a new row just below the ticked one.
        page.goto(outline.url + "outline/select?all=1")
        page.check("input[name=paths][value='0.0']")
        page.fill("#select-title", "A1b")
        page.click("#select-add")
        eventually(outline, "Alpha(A1 A1b A3) A2 Beta Delta Gamma(G1 G2)")
    finally:
        context.close()


axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_selection_editor_and_form_have_no_axe_violations(page, outline, scheme):
    axe = axe_module.Axe()
    rules = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}

    def clean(name):
        found = [f"{v['id']}: {' '.join(n['target'])}" for v in axe.run(page, options=rules).response["violations"] for n in v["nodes"]]
        assert not found, f"{name} [{scheme}]: " + "\n".join(found)

    page.emulate_media(color_scheme=scheme)
    open_edit(page, outline)
    item(page, "0.1").click()
    item(page, "2").click(modifiers=["Control"])
    expect(page.locator("#edit-selected-title")).to_have_text("2 rows selected")
    clean("outline with a selection")
    item(page, "2").focus()
    page.keyboard.press("F2")
    expect(page.locator("#inline-edit")).to_be_focused()
    clean("rename in place")
    page.keyboard.press("Escape")
    page.goto(outline.url + "outline/select?all=1&checked=0.1,2")
    clean("selection form")
