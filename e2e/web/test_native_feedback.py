"""Issue 31 item 4, feedback: Undo and Redo say what they would do and are disabled when they
cannot act; after one, a notice says what was undone or redone, and where when it was another
page, with the opposite step's button (with and without script); a row's Play and Ping buttons
leave a sign in their row, and a refusal shows there too. Phone and desktop widths, keyboard only,
axe in light and dark, screenshots in artifacts/screenshots/feedback/."""
import base64
import json
import os
import pathlib
import plistlib
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import SCREENSHOTS, wait_until
from webclient import Session

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
SHOTS = SCREENSHOTS / "feedback"


@pytest.fixture(params=list(SIZES))
def size(request, page):
    page.set_viewport_size(SIZES[request.param])
    return request.param


def api(server, page=None):
    """An API client; with `page`, in that page's session (its cookie and CSRF token): with the
    audit history on, Undo takes back only the session's own changes (issue 32)."""
    if page is None:
        return Session(server.url)
    cookie = next(c["value"] for c in page.context.cookies() if c["name"] == "dd_session")
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    return Session(server.url, credentials=(f"dd_session={cookie}", token))


def field(server, path, key):
    """The field `key` of the node at `path`, as the API shows it (None when absent)."""
    with urllib.request.urlopen(server.url + "api/node/" + path) as r:
        return {f["key"]: f["value"] for f in json.load(r)["fields"]}.get(key)


def row(page, title):
    return page.locator("#rows li.row", has=page.locator(".row-title", has_text=re.compile("^" + re.escape(title) + "$")))


def live(page, url):
    page.goto(url)
    expect(page.locator("body[data-live='1']")).to_be_attached()


def test_undo_and_redo_say_what_they_do_and_are_disabled_when_they_cannot_act(page, sounds, size):
    live(page, sounds.url + "l/0")
    undo, redo = page.locator("#undo"), page.locator("#redo")
    expect(undo).to_be_disabled()
    expect(redo).to_be_disabled()
    expect(undo).to_have_attribute("title", "Nothing to undo")
    # A change this session made through the API enables Undo here, labelled with what it takes back.
    assert api(sounds, page).post("/api/edit/rename/0.3", {"title": "Chime"})[0] == 200
    expect(undo).to_be_enabled()
    expect(undo).to_have_attribute("title", "Undo Rename of Ringtone to Chime")
    expect(undo).to_have_accessible_name("Undo Rename of Ringtone to Chime")
    undo.click()
    notice = page.locator("#notice")
    expect(notice).to_be_visible()
    expect(page.locator("#notice-sentence")).to_have_text("Undid Rename of Ringtone to Chime")
    expect(page.locator("#notice-show")).to_have_count(0)  # this very page: no link to it
    expect(page.locator("#notice-region")).to_have_attribute("aria-live", "polite")
    expect(row(page, "Ringtone")).to_have_count(1)
    expect(undo).to_be_disabled()
    expect(redo).to_have_attribute("title", "Redo Rename of Ringtone to Chime")
    page.locator("#notice-again").click()
    expect(page.locator("#notice-sentence")).to_have_text("Redid Rename of Ringtone to Chime")
    expect(row(page, "Chime")).to_have_count(1)
    expect(redo).to_be_disabled()
    expect(page.locator("#notice-again")).to_have_text("Undo")


def test_an_undo_of_a_change_on_another_page_says_where_and_links_to_it(page, sounds, size):
    live(page, sounds.url + "l/0")
    # A move in General (another level), made by another client.
    session = api(sounds, page)
    assert session.post("/api/edit/add/1", {"title": "Marimba"})[0] == 200
    assert session.post("/api/edit/move/1.1", {"index": 0})[0] == 200
    expect(page.locator("#undo")).to_have_attribute("title", "Undo Move of Marimba")
    page.locator("#undo").click()
    expect(page.locator("#notice-sentence")).to_have_text("Undid Move of Marimba")
    expect(page.locator("#notice .notice-text")).to_have_text("Undid Move of Marimba in General — Show")
    page.locator("#notice-show").click()
    expect(page).to_have_url(sounds.url + "l/1")
    expect(row(page, "Marimba")).to_have_count(1)
    assert [r["title"] for r in json.load(urllib.request.urlopen(sounds.url + "api/level/1"))["rows"]] == ["About", "Marimba"]


def test_play_and_ping_leave_a_sign_in_their_row_and_a_refusal_shows_there(page, sounds, size):
    live(page, sounds.url + "l/0")
    ringtone = row(page, "Ringtone")
    ringtone.get_by_role("button", name="Play").click()
    expect(ringtone.locator(".row-sign")).to_have_text("✓ Played")
    wait_until(lambda: field(sounds, "0.3", "plays") == "1", 10, "the play was not counted")
    ringtone.get_by_role("button", name="Ping").click()
    expect(ringtone.locator(".row-sign")).to_have_text("✓ Pinged")
    expect(page.locator("#undo")).to_have_attribute("title", re.compile(r"^Undo Change of lastPinged of Ringtone"))
    # Another writer makes the count a word: Play is refused, and the row says why.
    data = plistlib.loads(pathlib.Path(sounds.data).read_bytes())
    data["Rows"][0]["Children"][4]["plays"] = "many"
    pathlib.Path(sounds.data).write_bytes(plistlib.dumps(data))
    wait_until(lambda: field(sounds, "0.4", "plays") == "many", 20, "the server did not read the file again")
    text_tone = row(page, "Text Tone")
    text_tone.get_by_role("button", name="Play").click()
    expect(text_tone.locator(".row-sign-error")).to_be_visible()
    expect(text_tone.locator(".row-sign-error")).to_have_attribute("role", "alert")


def test_keyboard_only_undo_notice_redo_and_escape(page, sounds, size):
    live(page, sounds.url + "l/0")
    assert api(sounds, page).post("/api/edit/delete/0.4")[0] == 200
    undo = page.locator("#undo")
    expect(undo).to_have_attribute("title", "Undo Delete of Text Tone")
    # Tab from the search field reaches Undo.
    page.locator("#search").focus()
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "undo":
            break
    expect(undo).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#notice-sentence")).to_have_text("Undid Delete of Text Tone")
    # Undo can do no more: the focus moves on to the notice's Redo.
    expect(page.locator("#notice-again")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#notice-sentence")).to_have_text("Redid Delete of Text Tone")
    expect(page.locator("#notice-again")).to_be_focused()
    url = page.url
    page.keyboard.press("Escape")
    expect(page.locator("#notice")).to_have_count(0)
    expect(undo).to_be_focused()
    assert page.url == url  # Escape closed the notice; it did not go back a page


def test_without_script_the_undo_form_comes_back_with_the_notice(browser, sounds, size):
    context = browser.new_context(java_script_enabled=False, viewport=SIZES[size])
    page = context.new_page()
    try:
        page.goto(sounds.url + "l/0")
        expect(page.locator("#undo")).to_be_disabled()
        ringtone = row(page, "Ringtone")
        ringtone.get_by_role("button", name="Play").click()
        expect(page.locator("#undo")).to_have_attribute("title", "Undo Change of plays of Ringtone")
        page.locator("#undo").click()
        expect(page).to_have_url(sounds.url + "l/0")
        expect(page.locator("#notice-sentence")).to_have_text("Undid Change of plays of Ringtone")
        expect(page.locator("#notice-again")).to_have_text("Redo")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"no-script-notice-{size}.png"))
        page.locator("#notice-again").click()
        expect(page.locator("#notice-sentence")).to_have_text("Redid Change of plays of Ringtone")
        # The notice is shown once: the next page is without it.
        page.reload()
        expect(page.locator("#notice")).to_have_count(0)
        # A title with markup is shown as text, never as markup.
        assert api(sounds, page).post("/api/edit/rename/0.3", {"title": "<b>Bold</b>"})[0] == 200
        page.reload()
        page.locator("#undo").click()
        expect(page.locator("#notice-sentence")).to_have_text("Undid Rename of Ringtone to <b>Bold</b>")
        expect(page.locator("#notice b")).to_have_count(0)
    finally:
        context.close()


def test_a_forged_notice_cookie_is_not_shown(browser, sounds):
    context = browser.new_context(java_script_enabled=False)
    forged = {"op": "undo", "summary": "Rename of X", "level": "0", "place": "Sounds", "href": "//evil.example/"}
    value = base64.urlsafe_b64encode(json.dumps(forged).encode()).decode().rstrip("=")
    context.add_cookies([{"name": "dd_notice", "value": value, "url": sounds.url}])
    page = context.new_page()
    try:
        page.goto(sounds.url + "l/0")
        expect(page.locator("#title")).to_be_visible()
        expect(page.locator("#notice")).to_have_count(0)
    finally:
        context.close()


axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_notice_and_row_signs_have_no_axe_violations_and_are_photographed(page, sounds, size, scheme):
    page.emulate_media(color_scheme=scheme)
    SHOTS.mkdir(parents=True, exist_ok=True)
    live(page, sounds.url + "l/0")

    def no_violations(what):
        result = axe_module.Axe().run(page, options=WCAG)
        found = [f"{v['id']}: {' '.join(n['target'])}" for v in result.response["violations"] for n in v["nodes"]]
        assert not found, what + ":\n" + "\n".join(found)

    ringtone = row(page, "Ringtone")
    ringtone.get_by_role("button", name="Ping").click()
    expect(ringtone.locator(".row-sign")).to_have_text("✓ Pinged")
    no_violations("row sign")
    page.screenshot(path=str(SHOTS / f"row-sign-{size}-{scheme}.png"))
    session = api(sounds, page)
    assert session.post("/api/edit/add/1", {"title": "Marimba"})[0] == 200
    assert session.post("/api/edit/move/1.1", {"index": 0})[0] == 200
    expect(page.locator("#undo")).to_have_attribute("title", "Undo Move of Marimba")
    page.locator("#undo").click()
    expect(page.locator("#notice-show")).to_be_visible()
    no_violations("notice")
    page.screenshot(path=str(SHOTS / f"notice-{size}-{scheme}.png"))
    # A new step leaves nothing to redo: the notice and its Redo go.
    ringtone.get_by_role("button", name="Play").click()
    expect(page.locator("#notice")).to_have_count(0)
