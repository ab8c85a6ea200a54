"""Moving rows in the browser (issue 12 items 3 and 4): drag a row to reorder it or onto another
row to move it under that node, in a level and in the outline; the keyboard way (Alt+arrows); the
Move… form without JavaScript; a move into the row's own subtree refused with the core's message;
and rename, add and delete from the outline's and the columns' Edit mode. Every change is checked
in the saved file, read back with `drilldown ls --json`."""
import json
import re
import shutil
import sqlite3
import subprocess
import time

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server, drilldown_binary

SOUNDS = ROOT / "Examples" / "Sounds"
LEVEL_0 = ["Vibrate on Ring", "Vibrate on Silent", "Ringer and Alerts", "Ringtone", "Text Tone"]




@pytest.fixture
def sounds(sounds_any_store):
    """Every test here runs on the plist file and on a PostgreSQL tree table."""
    return sounds_any_store

def saved(path, tree_path=""):
    """The titles of one level of the file as it is on disk."""
    args = [drilldown_binary(), "ls", "--json", str(path)] + ([tree_path] if tree_path else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [row["title"] for row in json.loads(out).get("rows", [])]


def eventually_saved(path, tree_path, expected, timeout=5):
    deadline = time.monotonic() + timeout
    while (titles := saved(path, tree_path)) != expected:
        assert time.monotonic() < deadline, f"{tree_path or 'root'} is {titles}, not {expected}"
        time.sleep(0.05)


def esc(path):
    return "#n-" + path.replace(".", "\\.")


def drag(page, source, target, fraction, pause=None):
    """Drags `source`'s handle to `fraction` of `target`'s height with the mouse, in steps."""
    handle = page.locator(esc(source) + " .drag-handle")
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    goal = page.locator(esc(target)).bounding_box()
    page.mouse.move(goal["x"] + goal["width"] / 3, goal["y"] + goal["height"] * fraction, steps=8)
    if pause:
        pause()
    page.mouse.up()


def test_drag_reorders_a_level_and_the_file_follows(page, sounds, shot):
    page.goto(sounds.url + "l/0?edit=1")
    expect(page.locator("#rows .drag-handle")).to_have_count(5)
    # With Playwright's drag_to: the first row after the third (the bottom quarter of its row).
    target = page.locator(esc("0.2"))
    height = target.bounding_box()["height"]
    page.locator(esc("0.0") + " .drag-handle").drag_to(target, target_position={"x": 60, "y": height * 0.9})
    order = ["Vibrate on Silent", "Ringer and Alerts", "Vibrate on Ring", "Ringtone", "Text Tone"]
    expect(page.locator("#rows li.row .row-title")).to_have_text(order)
    eventually_saved(sounds.data, "0", order)
    # With the mouse in steps: the last row before the first (the top quarter).
    drag(page, "0.4", "0.0", 0.1)
    order = ["Text Tone"] + order[:4]
    expect(page.locator("#rows li.row .row-title")).to_have_text(order)
    eventually_saved(sounds.data, "0", order)


def test_drag_onto_a_row_moves_it_under_that_node_in_the_outline(page, sounds, shot):
    page.goto(sounds.url + "outline?open=0,1&edit=1")
    expect(page.locator("#tree.virtual.editing")).to_have_count(1)

    def during():
        # The middle of a row drops into it: the row is outlined, no line shows.
        expect(page.locator(esc("1") + ".drop-into")).to_have_count(1)
        expect(page.locator("#drop-indicator")).to_be_hidden()
        shot("outline-drag-desktop", full_page=False)

    drag(page, "0.4", "1", 0.5, pause=during)
    expect(page.locator(esc("1.1") + " .row-title")).to_have_text("Text Tone")
    eventually_saved(sounds.data, "1", ["About", "Text Tone"])
    eventually_saved(sounds.data, "0", LEVEL_0[:4])
    # A drop line shows over the top quarter; the drop reorders before that row.
    def line():
        expect(page.locator("#drop-indicator")).to_be_visible()
    drag(page, "1.1", "0.0", 0.1, pause=line)
    eventually_saved(sounds.data, "0", ["Text Tone"] + LEVEL_0[:4])
    eventually_saved(sounds.data, "1", ["About"])
    # The open set followed the move: General (now still 1) stays open.
    expect(page).to_have_url(re.compile(r"open=0,1"))


def test_drag_at_phone_width_in_edit_mode(page, sounds, shot):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(sounds.url + "outline?open=0,1&edit=1&focus=0.3")
    expect(page.locator("#edit-selected-title")).to_have_text("Ringtone")
    drag(page, "0.1", "1", 0.5, pause=lambda: shot("outline-drag-phone", full_page=False))
    eventually_saved(sounds.data, "1", ["About", "Vibrate on Silent"])


def test_drag_with_a_finger_on_a_touch_screen(browser, sounds):
    """A phone: touch events (Chromium's own, sent through the DevTools protocol) on the handle
    reorder a level and move a row under another in the outline; the page does not scroll instead."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, device_scale_factor=2)
    page = context.new_page()
    touch = context.new_cdp_session(page)

    def finger(source, target, fraction):
        handle = page.locator(esc(source) + " .drag-handle").bounding_box()
        goal = page.locator(esc(target)).bounding_box()
        x0, y0 = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
        x1, y1 = goal["x"] + goal["width"] / 3, goal["y"] + goal["height"] * fraction
        touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
        for k in range(1, 11):
            touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
                {"x": x0 + (x1 - x0) * k / 10, "y": y0 + (y1 - y0) * k / 10}]})
            page.wait_for_timeout(30)
        touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    try:
        page.goto(sounds.url + "l/0?edit=1")
        expect(page.locator("#rows .drag-handle")).to_have_count(5)
        # At phone width every edit tool is on screen (they used to run off the row's right edge).
        assert page.evaluate("""() => [...document.querySelectorAll('#rows .row.editing > *, #rows .row.editing button')]
            .every(e => { const r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; })""")
        scrolled = page.evaluate("window.scrollY")
        finger("0.0", "0.2", 0.9)
        order = ["Vibrate on Silent", "Ringer and Alerts", "Vibrate on Ring", "Ringtone", "Text Tone"]
        expect(page.locator("#rows li.row .row-title")).to_have_text(order)
        eventually_saved(sounds.data, "0", order)
        assert page.evaluate("window.scrollY") == scrolled
        page.goto(sounds.url + "outline?open=0,1&edit=1")
        expect(page.locator("#tree.virtual.editing")).to_have_count(1)
        finger("0.0", "1", 0.5)
        eventually_saved(sounds.data, "1", ["About", "Vibrate on Silent"])
    finally:
        context.close()


def test_dragging_near_the_bottom_edge_scrolls(page, sounds):
    page.set_viewport_size({"width": 800, "height": 300})
    page.goto(sounds.url + "outline?all=1&edit=1")
    handle = page.locator(esc("0") + " .drag-handle").bounding_box()
    page.mouse.move(handle["x"] + 5, handle["y"] + 5)
    page.mouse.down()
    page.mouse.move(handle["x"] + 5, 295, steps=5)
    page.wait_for_function("() => window.scrollY > 40")
    page.keyboard.press("Escape")
    page.mouse.up()
    assert saved(sounds.data) == ["Sounds", "General"]


def test_moving_into_its_own_subtree_is_refused_with_the_core_message(page, sounds):
    page.goto(sounds.url + "outline?open=0&edit=1")
    drag(page, "0", "0.3", 0.5)
    message = page.locator("#edit-message")
    expect(message).to_be_visible()
    expect(message).to_contain_text("into itself or its own subtree")
    assert saved(sounds.data) == ["Sounds", "General"]
    assert saved(sounds.data, "0") == LEVEL_0


def test_keyboard_moves_with_alt_arrows(page, sounds):
    page.goto(sounds.url + "l/0?edit=1")
    page.locator(esc("0.3") + " a.cell, " + esc("0.3") + " .cell").first.focus()
    page.keyboard.press("Alt+ArrowUp")
    order = ["Vibrate on Ring", "Vibrate on Silent", "Ringtone", "Ringer and Alerts", "Text Tone"]
    eventually_saved(sounds.data, "0", order)
    expect(page.locator("#rows li.row .row-title")).to_have_text(order)
    # In the outline: Alt+Left moves About out of General, Alt+Right moves it back in.
    page.goto(sounds.url + "outline?open=0,1&edit=1")
    page.locator(esc("1.0") + " [role=treeitem]").focus()
    page.keyboard.press("Alt+ArrowLeft")
    eventually_saved(sounds.data, "", ["Sounds", "General", "About"])
    expect(page.locator(esc("2") + " [role=treeitem]")).to_be_focused()
    page.keyboard.press("Alt+ArrowRight")
    eventually_saved(sounds.data, "", ["Sounds", "General"])
    eventually_saved(sounds.data, "1", ["About"])
    expect(page.locator(esc("1.0") + " [role=treeitem]")).to_be_focused()


def test_the_move_form_without_javascript(browser, sounds):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(sounds.url + "l/0?edit=1")
        page.locator(esc("0.3") + " .move-link").click()
        expect(page.locator("#move-heading")).to_contain_text("Ringtone")
        page.locator(".picker-advanced summary").click()
        page.fill("#move-to", "General")          # a title path
        page.click("#move-to-go")
        expect(page.locator("#picker-title")).to_have_text("General")
        page.select_option("#move-position", label="At the start")
        page.click("#move-here")
        expect(page).to_have_url(re.compile(r"/l/0\?edit=1$"))
        expect(page.locator("#rows li.row .row-title")).to_have_text([t for t in LEVEL_0 if t != "Ringtone"])
        eventually_saved(sounds.data, "1", ["Ringtone", "About"])
        # Into its own subtree: the picker says why, nothing changes.
        page.goto(sounds.url + "?edit=1")
        page.locator(esc("0") + " .move-link").click()
        page.locator(".picker-advanced summary").click()
        page.fill("#move-to", "0.2")
        page.click("#move-to-go")
        expect(page.locator("#move-here")).to_be_disabled()
        expect(page.locator("#move-refusal")).to_contain_text("a row cannot move into a row inside it")
        assert saved(sounds.data) == ["Sounds", "General"]
    finally:
        context.close()


def test_rename_add_and_delete_from_the_outline(page, sounds, shot):
    page.goto(sounds.url + "outline?open=0&edit=1")
    expect(page.locator("#edit-selection")).to_contain_text("Select a row")
    page.locator(esc("0.3") + " [role=treeitem]").click()
    expect(page.locator("#edit-selected-title")).to_have_text("Ringtone")
    expect(page.locator(esc("0.3") + " [role=treeitem]")).to_have_attribute("aria-selected", "true")
    expect(page).to_have_url(re.compile(r"focus=0\.3"))
    page.click("#rename-link")
    expect(page.locator("#rename-dialog")).to_be_visible()
    page.fill("#rename-dialog-input", "Marimba")
    page.click("#rename-dialog-done")
    expect(page.locator(esc("0.3") + " .row-title")).to_have_text("Marimba")
    eventually_saved(sounds.data, "0", ["Vibrate on Ring", "Vibrate on Silent", "Ringer and Alerts", "Marimba", "Text Tone"])
    # A sound takes no children (the schema says so): the refusal shows; General takes them.
    page.click("#add-child-link")
    page.fill("#add-dialog-title-input", "Xylophone")
    page.click("#add-dialog-done")
    expect(page.locator("#edit-message")).to_contain_text("gives that kind no children")
    page.locator(esc("1") + " [role=treeitem]").click()
    page.click("#add-child-link")
    expect(page.locator("#add-dialog")).to_be_visible()
    expect(page.locator("#add-dialog-title")).to_have_text("Add to General")
    page.fill("#add-dialog-title-input", "Battery")
    page.click("#add-dialog-done")
    eventually_saved(sounds.data, "1", ["About", "Battery"])
    expect(page.locator("#edit-message")).to_be_hidden()
    shot("outline-edit-mode", full_page=False)
    page.locator(esc("0.4") + " [role=treeitem]").click()
    # Delete asks once more in place (no confirm()); the second press deletes.
    page.click("#delete-link")
    expect(page.locator("#delete-link")).to_have_text(re.compile(r"^Delete “.+”\?$"))
    page.click("#delete-link")
    eventually_saved(sounds.data, "0", ["Vibrate on Ring", "Vibrate on Silent", "Ringer and Alerts", "Marimba"])


def test_rename_add_and_delete_from_columns_without_javascript(browser, sounds):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(sounds.url + "columns/0.3")
        page.click("#edit-button")
        expect(page).to_have_url(re.compile(r"/columns/0\.3\?edit=1$"))
        expect(page.locator("#edit-selected-title")).to_have_text("Ringtone")
        page.click("#rename-link")
        page.fill("#rename-title", "Marimba")
        page.click("#rename-done")
        expect(page).to_have_url(re.compile(r"/columns/0\.3\?edit=1$"))
        eventually_saved(sounds.data, "0", ["Vibrate on Ring", "Vibrate on Silent", "Ringer and Alerts", "Marimba", "Text Tone"])
        # Selecting another row keeps Edit mode.
        page.locator(".column a.cell", has_text="General").click()
        expect(page).to_have_url(re.compile(r"/columns/1\?edit=1$"))
        page.click("#add-child-link")
        page.fill("#add-title", "Battery")
        page.click("#add-done")
        eventually_saved(sounds.data, "1", ["About", "Battery"])
        # Delete asks first, then returns to the parent's columns.
        page.locator(".column a.cell", has_text="About").click()
        page.click("#delete-link")
        page.click("#delete-confirm")
        expect(page).to_have_url(re.compile(r"/columns/1\?edit=1$"))
        eventually_saved(sounds.data, "1", ["Battery"])
    finally:
        context.close()


def test_drag_in_an_sqlite_tree_table_and_in_relational_tables(page, tmp_path):
    """Every store takes the same move route: a tree table moves the row; relational tables move a
    song to another album (its album_id and track change) and refuse a song under an artist."""
    db = tmp_path / "sounds.sqlite"
    subprocess.run([drilldown_binary(), "convert", str(SOUNDS / "sounds.plist"), str(db)], check=True, capture_output=True)
    server = Server(db, "--editable")
    try:
        page.goto(server.url + "outline?open=0,1&edit=1")
        drag(page, "0.4", "1", 0.5)
        eventually_saved(db, "1", ["About", "Text Tone"])
        eventually_saved(db, "0", LEVEL_0[:4])
    finally:
        server.stop()
    music = tmp_path / "music"
    music.mkdir()
    for name in ("music.sqlite", "music.schema.yaml"):
        shutil.copy(ROOT / "Examples" / "Music" / name, music / name)
    server = Server(music / "music.sqlite", "--editable")
    try:
        page.set_viewport_size({"width": 1000, "height": 1100})   # the target row is far from the auto-scroll edge
        page.goto(server.url + "outline?open=0,0.0,0.1&edit=1")
        # "So What" (Kind of Blue's first song) onto the bottom quarter of Sketches of Spain's first.
        drag(page, "0.0.0", "0.1.0", 0.9)
        expect(page.locator(esc("0.1.1") + " .row-title")).to_have_text("So What")
        with sqlite3.connect(music / "music.sqlite") as c:
            album, track = c.execute("select albums.title, songs.track from songs join albums on albums.id = songs.album_id "
                                     "where songs.name = 'So What'").fetchone()
            order = [r[0] for r in c.execute("select songs.name from songs join albums on albums.id = songs.album_id "
                                             "where albums.title = 'Sketches of Spain' order by track")]
        assert album == "Sketches of Spain"
        assert order[:2] == ["Concierto de Aranjuez (Adagio)", "So What"]
        # A song cannot sit under an artist: the store says so in words.
        page.evaluate("window.scrollTo(0, 0)")
        drag(page, "0.1.1", "0", 0.5)
        expect(page.locator("#edit-message")).to_contain_text("can only move under")
    finally:
        server.stop()
