"""The Move… destination picker (issue 31 item 2), at phone (390×844) and desktop (1280×800) widths:
browse the tree level by level, search for a destination, choose Move Here with a position; rows
that cannot receive the moved rows are disabled with the reason; a typed path that names nothing or
a refused move comes back to the picker at the same place with the message (never a 404 page). With
script it is a modal dialog (focus kept inside, arrows, Enter, Left, Escape); without, a page whose
back controls say where they go. Works from a level's Edit mode, the outline's selection, and on a
relational database (a track moves under an album, not under an artist). axe finds nothing on it,
light and dark. Screenshots go to artifacts/screenshots/move-*.png."""
import json
import re
import sqlite3
import subprocess

import pytest
from playwright.sync_api import expect

from conftest import SCREENSHOTS, Server, drilldown_binary, wait_until
from test_web_chinook import chinook  # noqa: F401 (the fixture: a fresh Chinook-shaped database, editable)

LEVEL_0 = ["Vibrate on Ring", "Vibrate on Silent", "Ringer and Alerts", "Ringtone", "Text Tone"]
WIDTHS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}

axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


@pytest.fixture(params=list(WIDTHS))
def width(request, page):
    page.set_viewport_size(WIDTHS[request.param])
    return request.param


def saved(path, tree_path=""):
    args = [drilldown_binary(), "ls", "--json", str(path)] + ([tree_path] if tree_path else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [row["title"] for row in json.loads(out).get("rows", [])]


def eventually_saved(path, tree_path, expected):
    wait_until(lambda: saved(path, tree_path) == expected, 10, f"{tree_path or 'root'} is not {expected}")


def esc(path):
    return "#n-" + path.replace(".", "\\.")


def axe_clean(page, name):
    result = axe_module.Axe().run(page, options=WCAG)
    found = [f"{v['id']}: {' '.join(n['target'])}" for v in result.response["violations"] for n in v["nodes"]]
    assert not found, f"{name}: " + "\n".join(found)


def shoot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"move-{name}.png"))


def test_the_picker_page_without_javascript_browses_and_moves(browser, sounds, width):
    context = browser.new_context(java_script_enabled=False, viewport=WIDTHS[width])
    page = context.new_page()
    try:
        page.goto(sounds.url + "l/0?edit=1")
        page.locator(esc("0.3") + " .move-link").click()
        expect(page).to_have_url(re.compile(r"/move/0\.3\?"))
        expect(page.locator("#picker-title")).to_have_text("Sounds")
        # The row itself, and sounds (the schema gives them no children), are disabled with why.
        expect(page.locator(".picker-row.disabled[data-path='0.3'] .picker-reason")).to_have_text("Being moved")
        expect(page.locator(".picker-row.disabled[data-path='0.0'] .picker-reason")).to_have_text("Cannot hold rows")
        # Up a level: the control says where it goes.
        expect(page.locator("#picker-up")).to_have_text("Settings")
        page.click("#picker-up")
        expect(page.locator("#picker-title")).to_have_text("Settings")
        expect(page.locator("#picker-up")).to_have_count(0)
        page.locator(".picker-row", has_text="General").click()
        expect(page.locator("#picker-title")).to_have_text("General")
        expect(page.locator("#picker-up")).to_have_text("Settings")
        page.select_option("#move-position", label="At the start")
        page.click("#move-here")
        expect(page).to_have_url(re.compile(r"/l/0\?edit=1$"))
        expect(page.locator("#rows li.row .row-title")).to_have_text([t for t in LEVEL_0 if t != "Ringtone"])
        eventually_saved(sounds.data, "1", ["Ringtone", "About"])
        # A typed path that names nothing: the picker again, same place, the input kept, a message.
        page.goto(sounds.url + "move/0?back=/l/0")
        page.locator(".picker-advanced summary").click()
        page.fill("#move-to", "Nowhere/At all")
        page.click("#move-to-go")
        expect(page.locator("#move-error")).to_contain_text("No row at “Nowhere/At all”")
        expect(page.locator("#move-to")).to_have_value("Nowhere/At all")
        expect(page.locator("#picker-title")).to_have_text("Settings")
        # A typed title path that exists takes the picker there.
        page.fill("#move-to", "General")
        page.click("#move-to-go")
        expect(page.locator("#picker-title")).to_have_text("General")
        shoot(page, f"page-{width}")
        # Into its own subtree: Move Here is disabled with the reason.
        page.goto(sounds.url + "move/0?at=0")
        expect(page.locator("#move-here")).to_be_disabled()
        expect(page.locator("#move-refusal")).to_contain_text("cannot move into itself")
        assert saved(sounds.data) == ["Sounds", "General"]
    finally:
        context.close()


def test_a_refused_move_comes_back_to_the_picker_with_the_message(page, sounds):
    page.goto(sounds.url + "move/0.3?at=0.0&back=/l/0")
    # Vibrate on Ring is a toggle: the schema gives it no children.
    expect(page.locator("#move-refusal")).to_contain_text("no children")
    csrf = page.locator("#move-here-form input[name=csrf]").input_value()
    answer = page.request.post(sounds.url + "edit/move/0.3", form={"csrf": csrf, "picker": "1", "to": "0.0", "back": "/l/0"})
    assert answer.status == 400
    body = answer.text()
    assert 'id="move-picker"' in body and 'id="move-error"' in body and "no children" in body
    answer = page.request.post(sounds.url + "edit/move/0.3", form={"csrf": csrf, "picker": "1", "to": "Nowhere", "back": "/l/0", "index": "0"})
    assert answer.status == 400
    assert 'id="move-picker"' in answer.text() and 'value="Nowhere"' in answer.text()
    assert saved(sounds.data, "0") == LEVEL_0


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_dialog_by_keyboard_in_a_level(page, sounds, width, scheme):
    page.emulate_media(color_scheme=scheme)
    page.goto(sounds.url + "l/0?edit=1")
    link = page.locator(esc("0.3") + " .move-link")
    link.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#move-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#move-heading")).to_have_text("Move “Ringtone”")
    expect(dialog.locator(".picker-row").first).to_be_focused()
    axe_clean(page, f"move dialog [{scheme}, {width}]")
    shoot(page, f"dialog-{width}-{scheme}")
    # Escape closes; the focus is back on Move….
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(link).to_be_focused()
    assert page.url.endswith("/l/0?edit=1")
    page.keyboard.press("Enter")
    expect(dialog.locator(".picker-row").first).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(dialog.locator(".picker-row").nth(1)).to_be_focused()
    page.keyboard.press("ArrowLeft")  # up a level: Settings, with Sounds (where we were) focused
    expect(dialog.locator("#picker-title")).to_have_text("Settings")
    expect(dialog.locator(".picker-row[data-path='0']")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(dialog.locator(".picker-row[data-path='1']")).to_be_focused()
    page.keyboard.press("Enter")  # drills into General
    expect(dialog.locator("#picker-title")).to_have_text("General")
    # Tab stays inside the dialog.
    for _ in range(12):
        page.keyboard.press("Tab")
        assert page.evaluate("document.getElementById('move-dialog').contains(document.activeElement)")
    dialog.locator("#move-here").focus()
    page.keyboard.press("Enter")
    eventually_saved(sounds.data, "1", ["About", "Ringtone"])
    expect(page.locator("#rows li.row .row-title")).to_have_text([t for t in LEVEL_0 if t != "Ringtone"])


def test_the_dialog_searches_for_a_destination(page, sounds, width):
    page.goto(sounds.url + "l/0?edit=1")
    page.locator(esc("0.3") + " .move-link").click()
    dialog = page.locator("#move-dialog")
    dialog.locator("#picker-search").fill("gen")
    dialog.locator("#picker-search").press("Enter")
    expect(dialog.locator("#picker-title")).to_have_text("1 match")
    hit = dialog.locator(".picker-row[data-path='1']")
    expect(hit).to_contain_text("General")
    expect(hit.locator(".picker-row-context")).to_have_text("in Settings")
    expect(hit).to_be_focused()
    shoot(page, f"search-{width}")
    page.keyboard.press("Enter")
    expect(dialog.locator("#picker-title")).to_have_text("General")
    # The typed path field reports what it did not find, inside the dialog.
    dialog.locator(".picker-advanced summary").click()
    dialog.locator("#move-to").fill("9.9")
    dialog.locator("#move-to").press("Enter")
    expect(dialog.locator("#move-error")).to_contain_text("No row at “9.9”")
    expect(dialog.locator("#move-to")).to_have_value("9.9")
    expect(dialog.locator("#move-to")).to_be_focused()
    expect(dialog.locator("#picker-title")).to_have_text("General")
    dialog.locator("#move-cancel").click()
    expect(dialog).to_be_hidden()
    assert saved(sounds.data, "0") == LEVEL_0


OUTLINE = {"Rows": [
    {"Title": "Alpha", "Children": [{"Title": "A1"}, {"Title": "A2"}, {"Title": "A3"}]},
    {"Title": "Beta"},
    {"Title": "Gamma", "Children": [{"Title": "G1"}, {"Title": "G2"}]},
    {"Title": "Delta"},
]}


def shape(rows):
    return " ".join(r["Title"] + ("(" + shape(r["Children"]) + ")" if r.get("Children") else "") for r in rows)


def test_the_outline_selection_moves_through_the_dialog(page, tmp_path, width):
    path = tmp_path / "outline.json"
    path.write_text(json.dumps(OUTLINE, indent=2))
    server = Server(path, "--editable")
    try:
        page.goto(server.url + "outline?all=1&edit=1")
        expect(page.locator("#tree.virtual.editing")).to_have_count(1)
        page.locator(esc("0.0") + " [role=treeitem]").click()
        page.locator(esc("0.2") + " [role=treeitem]").click(modifiers=["Control"])
        page.click("#selection-move")
        dialog = page.locator("#move-dialog")
        expect(dialog.locator("#move-heading")).to_have_text("Move 2 rows")
        expect(dialog.locator("#picker-title")).to_have_text("Alpha")
        page.keyboard.press("ArrowLeft")
        expect(dialog.locator(".picker-row[data-path='0']")).to_be_focused()
        dialog.locator(".picker-row[data-path='2']").click()
        expect(dialog.locator("#picker-title")).to_have_text("Gamma")
        dialog.locator("#move-position").select_option(label="After “G1”")
        shoot(page, f"outline-{width}")
        dialog.locator("#move-here").click()
        wait_until(lambda: shape(json.loads(path.read_text())["Rows"]) == "Alpha(A2) Beta Gamma(G1 A1 A3 G2) Delta", 10, "not moved")
        expect(page).to_have_url(re.compile(r"/outline\?"))
        # The page after the move has loaded (A1 under Gamma; it was G2 there) before the server
        # stops: a navigation cut off by the server's end left Chromium's context.close() hanging
        # at teardown in about one run out of six on a loaded machine.
        expect(dialog).to_be_hidden()
        expect(page.locator(esc("2.1"))).to_contain_text("A1")
    finally:
        server.stop()


def test_a_relational_track_moves_under_an_album_only(page, chinook, width):
    db = sqlite3.connect(chinook.db)
    try:
        album, = db.execute("SELECT album_id FROM songs ORDER BY album_id, track, id LIMIT 1").fetchone()
    finally:
        db.close()
    page.goto(chinook.url + "l/0.0?edit=1")
    song = page.locator("#rows li.row .row-title").first.text_content()
    page.locator(esc("0.0.0") + " .move-link").click()
    dialog = page.locator("#move-dialog")
    expect(dialog.locator("#picker-title")).to_be_visible()
    album_title = dialog.locator("#picker-title").text_content()
    # Songs hold nothing; the songs level is ordered by track, so positions are offered.
    expect(dialog.locator(".picker-row.disabled").first.locator(".picker-reason")).to_have_text(re.compile("Being moved|Cannot hold rows"))
    page.keyboard.press("ArrowLeft")  # the artist: a song cannot go directly under it
    expect(dialog.locator("#move-here")).to_be_disabled()
    expect(dialog.locator("#move-refusal")).to_contain_text("can only move under")
    shoot(page, f"chinook-refused-{width}")
    page.keyboard.press("ArrowLeft")  # the artists
    dialog.locator(".picker-row[data-path='1']").click()  # the second artist
    dialog.locator(".picker-row[data-path='1.0']").click()  # its first album
    target = dialog.locator("#picker-title").text_content()
    assert target != album_title
    dialog.locator("#move-here").click()
    expect(dialog).to_be_hidden()
    db = sqlite3.connect(chinook.db)
    try:
        wait_until(lambda: db.execute("SELECT album_id FROM songs WHERE name = ?", (song,)).fetchone()[0] != album, 10, "not moved")
    finally:
        db.close()
