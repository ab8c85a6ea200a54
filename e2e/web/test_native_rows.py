"""Rows that feel native (issue 31 items 1, 5, 9 and part of 7; issue 29 item 4), at phone and
desktop widths: Edit mode as iOS shows it (one line per row, a red ⊖ that slides in a Delete
button, the title edited in place, a reorder handle the keyboard can grab, none on a level ordered
by its key); rows with switches that do not look disabled; the virtual list's list semantics;
chevrons on rows that open a detail and a placeholder for a missing image; the script's rows
made from the server's row template. axe finds nothing on these screens, light and dark."""
import json
import pathlib
import re
import shutil
import subprocess

import pytest
from playwright.sync_api import expect

from conftest import SCREENSHOTS, ROOT, Server, drilldown_binary, wait_until

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
SHOTS = SCREENSHOTS / "rows"
LEVEL_0 = ["Vibrate on Ring", "Vibrate on Silent", "Ringer and Alerts", "Ringtone", "Text Tone"]
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


def snap(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def esc(path):
    return "#n-" + path.replace(".", "\\.")


def titles(page):
    return page.locator("#rows li.row .row-title")


def row(page, text):
    return page.locator("#rows li.row", has=page.locator(".row-title", has_text=re.compile(f"^{re.escape(text)}$")))


def saved(path, tree_path=""):
    args = [drilldown_binary(), "ls", "--json", str(path)] + ([tree_path] if tree_path else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [r["title"] for r in json.loads(out).get("rows", [])]


def eventually_saved(path, tree_path, expected):
    """The page shows a rename or move before the server has written it: wait for the file."""
    wait_until(lambda: saved(path, tree_path) == expected, 10, f"{tree_path or 'root'} is {saved(path, tree_path)!r}, not {expected!r}")


def no_dialogs(page):
    """Fails the test if the page opens confirm(), alert() or prompt()."""
    seen = []
    page.on("dialog", lambda d: (seen.append(d.message), d.dismiss()))
    return seen


def axe_violations(page):
    from axe_playwright_python.sync_playwright import Axe
    result = Axe().run(page, options=WCAG)
    return [f"{v['id']}: {' '.join(n['target'])}" for v in result.response["violations"] for n in v["nodes"]]


@pytest.fixture
def music_copy(tmp_path):
    """A copy of the relational music example, editable."""
    for name in ("music.sqlite", "music.schema.yaml"):
        shutil.copy(ROOT / "Examples" / "Music" / name, tmp_path / name)
    shutil.copytree(ROOT / "Examples" / "Music" / "art", tmp_path / "art")
    server = Server(tmp_path / "music.sqlite", "--editable")
    yield server
    server.stop()


@pytest.mark.parametrize("size", SIZES)
def test_edit_mode_is_one_aligned_line_per_row_with_a_delete_that_slides_in(page, sounds, size):
    page.set_viewport_size(SIZES[size])
    dialogs = no_dialogs(page)
    page.goto(sounds.url + "l/0?edit=1")
    expect(titles(page)).to_have_text(LEVEL_0)
    geometry = page.evaluate("""() => [...document.querySelectorAll('#rows > li.row')].map(li => ({
        height: li.getBoundingClientRect().height,
        offCentre: Math.max(...[...li.children].filter(e => e.offsetParent).map(e => { const r = e.getBoundingClientRect(),
            l = li.getBoundingClientRect(); return Math.abs((r.top + r.bottom) / 2 - (l.top + l.bottom) / 2); })),
        minus: li.querySelector('.delete-toggle').getBoundingClientRect().left,
        handle: li.querySelector('.drag-handle').getBoundingClientRect().right,
        inside: [...li.children].every(e => { const r = e.getBoundingClientRect();
            return r.width === 0 || (r.left >= 0 && r.right <= innerWidth); }),
        inputs: [...li.querySelectorAll('input:not([type=hidden]), button')].filter(e => e.offsetParent).length }))""")
    # One line each (everything centred on the row's middle, no row taller than a title with its
    # subtitle), every ⊖ and every handle in one column.
    assert all(g["height"] <= 64 and g["offCentre"] <= 4 for g in geometry), geometry
    assert len({round(g["minus"]) for g in geometry}) == 1, geometry
    assert len({round(g["handle"]) for g in geometry}) == 1, geometry
    assert all(g["inside"] for g in geometry), geometry
    # No text field, Rename, ↑ or ↓: the reorder handle (and a row's own switch) are the only buttons.
    expect(page.locator("#rows input[type=text], #rows .rename-title")).to_have_count(0)
    expect(page.locator("#rows .step:visible")).to_have_count(0)
    snap(page, f"edit-mode-{size}-light")
    # ⊖ slides in Delete; a press elsewhere takes it back.
    tone = row(page, "Text Tone")
    tone.locator(".delete-toggle").click()
    expect(tone.locator(".delete-confirm")).to_be_visible()
    expect(tone.locator(".delete-confirm")).to_be_focused()
    expect(tone.locator(".move-link")).to_be_hidden()
    snap(page, f"edit-delete-{size}-light")
    page.locator("#title").click()
    expect(tone.locator(".delete-confirm")).to_be_hidden()
    # Escape takes it back too, and focus returns to the ⊖.
    tone.locator(".delete-toggle").click()
    expect(tone.locator(".delete-confirm")).to_be_visible()
    page.keyboard.press("Escape")
    expect(tone.locator(".delete-confirm")).to_be_hidden()
    expect(tone.locator(".delete-toggle")).to_be_focused()
    expect(page).to_have_url(re.compile(r"/l/0\?edit=1$"))
    # The Delete button deletes, without confirm().
    tone.locator(".delete-toggle").click()
    tone.locator(".delete-confirm").click()
    expect(titles(page)).to_have_text(LEVEL_0[:4])
    eventually_saved(sounds.data, "0", LEVEL_0[:4])
    assert dialogs == []
    page.emulate_media(color_scheme="dark")
    row(page, "Ringtone").locator(".delete-toggle").click()
    snap(page, f"edit-delete-{size}-dark")
    page.keyboard.press("Escape")
    snap(page, f"edit-mode-{size}-dark")


@pytest.mark.parametrize("size", SIZES)
def test_the_title_is_edited_in_place(page, sounds, size):
    page.set_viewport_size(SIZES[size])
    page.goto(sounds.url + "l/0?edit=1")
    ring = row(page, "Ringtone")
    ring.locator(".rename-cell").click()
    field = ring.locator(".rename-input")
    expect(field).to_be_focused()
    expect(field).to_have_value("Ringtone")
    snap(page, f"edit-rename-{size}")
    # Escape cancels: the title is back, unchanged, and the page stays in Edit mode.
    page.keyboard.press("Escape")
    expect(field).to_have_count(0)
    expect(ring.locator(".rename-cell")).to_be_focused()
    expect(page).to_have_url(re.compile(r"/l/0\?edit=1$"))
    # Enter saves (the keyboard only: Enter on the focused title opens the field).
    page.keyboard.press("Enter")
    expect(field).to_be_focused()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("Marimba")
    page.keyboard.press("Enter")
    expect(titles(page)).to_have_text(LEVEL_0[:3] + ["Marimba", "Text Tone"])
    eventually_saved(sounds.data, "0", LEVEL_0[:3] + ["Marimba", "Text Tone"])
    expect(row(page, "Marimba").locator(".rename-cell")).to_be_focused()


@pytest.mark.parametrize("size", SIZES)
def test_the_reorder_handle_is_grabbed_and_moved_with_the_keyboard(page, sounds, size):
    page.set_viewport_size(SIZES[size])
    page.goto(sounds.url + "l/0?edit=1")
    # Tab from the top of the page to the first row's handle.
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('drag-handle')"):
            break
    handle = page.locator(esc("0.0") + " .drag-handle")
    expect(handle).to_be_focused()
    expect(handle).to_have_accessible_name("Reorder Vibrate on Ring")
    page.keyboard.press("Space")
    expect(handle).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#reorder-status")).to_contain_text("Grabbed Vibrate on Ring")
    page.keyboard.press("ArrowDown")
    moved = page.locator(esc("0.1") + " .drag-handle")
    expect(moved).to_be_focused()
    expect(moved).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#reorder-status")).to_have_text("Moved Vibrate on Ring to position 2 of 5.")
    page.keyboard.press("ArrowDown")
    expect(page.locator(esc("0.2") + " .drag-handle")).to_be_focused()
    expect(titles(page)).to_have_text(["Vibrate on Silent", "Ringer and Alerts", "Vibrate on Ring", "Ringtone", "Text Tone"])
    snap(page, f"edit-grabbed-{size}")
    page.keyboard.press("Escape")
    expect(page.locator(esc("0.2") + " .drag-handle")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#reorder-status")).to_contain_text("Dropped Vibrate on Ring at position 3 of 5")
    # Alt+↑ on the handle moves it back up, focus staying on the handle.
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator(esc("0.1") + " .drag-handle")).to_be_focused()
    expect(titles(page)).to_have_text(["Vibrate on Silent", "Vibrate on Ring", "Ringer and Alerts", "Ringtone", "Text Tone"])
    eventually_saved(sounds.data, "0", ["Vibrate on Silent", "Vibrate on Ring", "Ringer and Alerts", "Ringtone", "Text Tone"])


@pytest.mark.parametrize("size", SIZES)
def test_a_level_ordered_by_its_key_has_no_reorder_controls(page, music_copy, size):
    page.set_viewport_size(SIZES[size])
    # Artists (by key) and albums (order: year, title) keep their order: no handles, no ↑/↓.
    for path in ("?edit=1", "l/0?edit=1"):
        page.goto(music_copy.url + path)
        expect(page.locator("#rows .delete-toggle").first).to_be_visible()
        expect(page.locator("#rows .drag-handle, #rows .step, #rows .reorder-form")).to_have_count(0)
    snap(page, f"edit-ordered-by-key-{size}")
    # Songs are ordered by track, which the user can change: handles.
    page.goto(music_copy.url + "l/0.0?edit=1")
    expect(page.locator("#rows .drag-handle")).to_have_count(5)


def test_edit_mode_without_javascript_works_through_forms(browser, sounds):
    context = browser.new_context(java_script_enabled=False, viewport=SIZES["phone"])
    page = context.new_page()
    try:
        page.goto(sounds.url + "l/0?edit=1")
        # ↓ is a form button; ↑ on the first row (and ↓ on the last) is disabled but keeps its place.
        expect(page.locator(esc("0.0") + " .move-up")).to_be_disabled()
        row(page, "Vibrate on Ring").locator(".move-down").click()
        expect(titles(page)).to_have_text(["Vibrate on Silent", "Vibrate on Ring"] + LEVEL_0[2:])
        # The title opens the Rename page; the ⊖ the Delete page.
        row(page, "Ringtone").locator(".rename-cell").click()
        page.fill("#rename-title", "Marimba")
        page.click("#rename-done")
        expect(page).to_have_url(re.compile(r"/l/0\?edit=1$"))
        row(page, "Text Tone").locator(".delete-toggle").click()
        expect(page.locator("#delete-form")).to_contain_text("Text Tone")
        page.click("#delete-confirm")
        expect(titles(page)).to_have_text(["Vibrate on Silent", "Vibrate on Ring", "Ringer and Alerts", "Marimba"])
        assert saved(sounds.data, "0") == ["Vibrate on Silent", "Vibrate on Ring", "Ringer and Alerts", "Marimba"]
    finally:
        context.close()


@pytest.mark.parametrize("size", SIZES)
def test_rows_with_switches_look_like_settings(page, sounds, size):
    page.set_viewport_size(SIZES[size])
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.goto(sounds.url + "l/0")
        switch_row = row(page, "Vibrate on Silent")
        drill_row = row(page, "Ringtone")
        look = page.evaluate("""([a, b]) => {
            const s = e => getComputedStyle(e);
            return { title: s(a.querySelector('.row-title')).color, normal: s(b.querySelector('.row-title')).color,
                     cursor: s(a.querySelector('.cell')).cursor, off: s(a.querySelector('.switch')).backgroundColor,
                     disabled: a.classList.contains('disabled') }; }""",
                             [switch_row.element_handle(), drill_row.element_handle()])
        expect(switch_row.locator(".switch")).to_have_attribute("aria-checked", "false")
        assert look["title"] == look["normal"], look
        assert look["cursor"] != "not-allowed" and not look["disabled"], look
        # The off track: iOS's light grey in light, a dark grey (not a white pill) in dark.
        assert look["off"] == ("rgb(233, 233, 235)" if scheme == "light" else "rgb(57, 57, 61)"), look
        snap(page, f"switches-{size}-{scheme}")


@pytest.mark.parametrize("size", SIZES)
def test_the_virtual_list_uses_list_semantics_and_the_server_row_template(page, big_server, size):
    page.set_viewport_size(SIZES[size])
    page.goto(big_server.url + "l/0")
    expect(page.locator("#rows.virtual")).to_have_count(1)
    first = page.locator("#rows li.row").first
    expect(first).to_have_attribute("aria-setsize", "100000")
    expect(first).to_have_attribute("aria-posinset", "1")
    assert page.evaluate("document.getElementById('rows').hasAttribute('aria-rowcount')") is False
    expect(page.locator("#rows [aria-rowindex]")).to_have_count(0)
    # A row the script fetched (far below the first page) is the server's template filled in:
    # the same elements and classes as a server-rendered row.
    page.goto(big_server.url + "l/0?offset=5000")
    far = page.locator("#rows li.row", has=page.locator(".row-title", has_text=re.compile(r"^Row 5010$")))
    expect(far).to_have_attribute("aria-posinset", "5011")
    shape = "li => [...li.querySelectorAll('*')].map(e => e.tagName + '.' + [...e.classList].join('.')).join(' ')"
    assert page.locator("#row-template").count() == 1
    template_shape = page.evaluate("() => [...document.getElementById('row-template').content.querySelectorAll('li *')]"
                                   ".map(e => e.tagName + '.' + [...e.classList].join('.')).join(' ')")
    assert far.evaluate(shape) == "A.cell SPAN.text SPAN.row-title SPAN.chevron"
    assert set(far.evaluate(shape).split()) <= set(template_shape.split())
    assert page.evaluate("getComputedStyle(document.querySelector('#rows li.row')).height") == "56px"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_drawn_level_pages_and_edit_mode(page, big_server, music_server, sounds, scheme):
    pytest.importorskip("axe_playwright_python.sync_playwright")
    page.emulate_media(color_scheme=scheme)
    for url in (music_server.url, music_server.url + "l/0", big_server.url + "l/0", sounds.url + "l/0", sounds.url + "l/0?edit=1"):
        page.goto(url)
        expect(page.locator("#rows li.row").first).to_be_visible()
        assert axe_violations(page) == [], url
    # With a Delete slid in, and a title being edited.
    row(page, "Ringtone").locator(".delete-toggle").click()
    expect(row(page, "Ringtone").locator(".delete-confirm")).to_be_visible()
    assert axe_violations(page) == []
    page.keyboard.press("Escape")
    row(page, "Ringtone").locator(".rename-cell").click()
    expect(row(page, "Ringtone").locator(".rename-input")).to_be_focused()
    assert axe_violations(page) == []


@pytest.fixture
def music_without_one_cover(tmp_path):
    """The bundled YAML music library with one album's cover missing."""
    shutil.copytree(ROOT / "Examples" / "Music", tmp_path / "Music")
    (tmp_path / "Music" / "art" / "kind-of-blue.png").unlink()
    server = Server(tmp_path / "Music" / "library.yaml", "--schema", tmp_path / "Music" / "schema.yaml")
    yield server
    server.stop()


@pytest.mark.parametrize("size", SIZES)
def test_detail_rows_have_a_chevron_and_a_missing_cover_a_placeholder(page, music_without_one_cover, size):
    page.set_viewport_size(SIZES[size])
    url = music_without_one_cover.url
    page.goto(url + "l/0")
    kind = row(page, "Kind of Blue")
    expect(kind.locator(".thumb-missing")).to_have_count(1)
    expect(kind.locator("img")).to_have_count(0)
    expect(row(page, "Sketches of Spain").locator("img.thumb")).to_have_count(1)
    snap(page, f"missing-cover-{size}")
    # Songs open their detail: each row ends with a chevron.
    page.goto(url + "l/0.0")
    songs = page.locator("#rows li.row")
    expect(songs.first.locator("a.cell")).to_have_attribute("href", re.compile(r"^/d/"))
    assert songs.count() == page.locator("#rows li.row a.cell .chevron").count() > 0
    snap(page, f"songs-chevrons-{size}")
