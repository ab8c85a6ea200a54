"""Issue 31 item 3: search in the web app as the terminal UI has it. The list of matches drops down
under the search field while typing (debounced, a page at a time), each match with its title (the
matched part marked) and its parents' titles; arrow keys move through it, Enter opens, Escape
clears, "Show more" pages on; the search page returns to where the search started and pages with
Previous/Next links (without JavaScript too); a search can be narrowed to the current level; and a
1 000 000-row document answers while typing. At phone and desktop widths, light and dark, axe-clean."""
import pathlib
import re
import subprocess
import sys
import time

import pytest
from playwright.sync_api import expect

from conftest import SCREENSHOTS, BIG_ROWS, ROOT, Server

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
SHOTS = SCREENSHOTS / "search"
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


@pytest.fixture(params=list(SIZES))
def size(request, page):
    page.set_viewport_size(SIZES[request.param])
    return request.param


def snap(page, name):
    """A screenshot for the report, artifacts/screenshots/search/NAME.png (the visible window)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def options(page):
    return page.locator("#search-listbox [role=option][data-href]")


def type_query(page, text, timeout=5000):
    """Types `text` into the search field and waits for the list of its matches (not an earlier prefix's)."""
    field = page.locator("#search")
    field.click()
    field.press_sequentially(text, delay=15)
    wait_for_list(page, text, timeout)


def wait_for_list(page, text, timeout=5000):
    page.wait_for_function("q => { const l = document.getElementById('search-listbox'); return l && l.dataset.query === q }",
                           arg=text, timeout=timeout)


def test_matches_are_listed_while_typing_with_parents_and_the_match_marked(page, music_server, size):
    page.goto(music_server.url + "l/0")
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/api/search" in r.url else None)
    type_query(page, "blue")
    expect(page.locator("#search")).to_have_attribute("aria-expanded", "true")
    expect(options(page).first).to_be_visible()
    expect(page.locator("#search-count")).to_have_text(re.compile(r"^\d+ matches$"))
    # Each match: its title with the typed text marked, and its parents' titles, not the hit again.
    song = options(page).filter(has_text="Blue in Green")
    expect(song.locator(".row-title mark")).to_have_text("Blue")
    expect(song.locator(".search-option-path")).to_have_text("Miles Davis › Kind of Blue")
    album = options(page).filter(has_text="Kind of Blue").first
    expect(album.locator(".search-option-path")).to_have_text("Miles Davis")
    assert page.url.endswith("/l/0"), "the list came without leaving the page"
    # One page of matches per request, never every match; typing at speed asks once.
    assert asked and all("limit=25" in u and "offset=0" in u for u in asked), asked
    assert len(asked) <= 2, asked
    snap(page, f"live-{size}-light")
    page.emulate_media(color_scheme="dark")
    snap(page, f"live-{size}-dark")
    # A click opens the match.
    song.click()
    expect(page.locator("#detail-title")).to_have_text("Blue in Green")


def test_keyboard_arrows_enter_and_escape(page, music_server, size):
    page.goto(music_server.url + "l/0")
    page.keyboard.press("/")
    expect(page.locator("#search")).to_be_focused()
    page.keyboard.type("blue")
    wait_for_list(page, "blue")
    expect(options(page).first).to_be_visible()
    field = page.locator("#search")
    page.keyboard.press("ArrowDown")
    first = options(page).nth(0)
    expect(first).to_have_attribute("aria-selected", "true")
    expect(field).to_have_attribute("aria-activedescendant", first.get_attribute("id"))
    page.keyboard.press("ArrowDown")
    second = options(page).nth(1)
    expect(second).to_have_attribute("aria-selected", "true")
    expect(first).to_have_attribute("aria-selected", "false")
    page.keyboard.press("ArrowUp")
    expect(first).to_have_attribute("aria-selected", "true")
    expect(field).to_be_focused()
    snap(page, f"keyboard-{size}")
    # Escape closes the list and clears the field; focus stays in it.
    page.keyboard.press("Escape")
    expect(page.locator("#search-popup")).to_be_hidden()
    expect(field).to_have_value("")
    expect(field).to_be_focused()
    expect(field).to_have_attribute("aria-expanded", "false")
    # Enter opens the chosen match.
    page.keyboard.type("green")
    wait_for_list(page, "green")
    expect(options(page)).to_have_count(1)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.locator("#detail-title")).to_have_text("Blue in Green")


def test_show_more_and_arrow_down_page_on(page, big_server, size):
    page.goto(big_server.url + "l/0")
    type_query(page, "row 1")
    expect(page.locator("#search-count")).to_have_text("11,111 matches")
    expect(options(page)).to_have_count(25)
    more = page.locator("#search-more")
    expect(more).to_have_text("Show more (11,086)")
    more.click()
    expect(options(page)).to_have_count(50)
    expect(options(page).nth(25).locator(".row-title")).to_have_text("Row 114")
    expect(page.locator("#search")).to_be_focused()
    # ArrowDown past the last match loads the next page and moves onto it.
    for _ in range(51):
        page.keyboard.press("ArrowDown")
    expect(options(page)).to_have_count(75)
    expect(options(page).nth(50)).to_have_attribute("aria-selected", "true")
    snap(page, f"more-{size}")


def test_enter_opens_the_search_page_whose_back_button_returns(page, music_server, size):
    page.goto(music_server.url + "l/0.0")
    type_query(page, "blue")
    expect(options(page).first).to_be_visible()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/search\?q=blue&from=%2Fl%2F0\.0$"))
    expect(page.locator("#back .back-label")).to_have_text("Kind of Blue")
    expect(page.locator("#results .row-title mark").first).to_have_text(re.compile("blue", re.I))
    expect(page.locator("#results li").filter(has_text="Blue in Green").locator(".result-path")).to_have_text("Miles Davis › Kind of Blue")
    snap(page, f"search-page-{size}-light")
    page.emulate_media(color_scheme="dark")
    snap(page, f"search-page-{size}-dark")
    page.locator("#back").click()
    expect(page).to_have_url(re.compile(r"/l/0\.0$"))
    # Escape in the emptied field of the search page goes back there too.
    page.goto(music_server.url + "search?q=blue&from=%2Fl%2F0.0")
    page.locator("#search").focus()
    page.keyboard.press("Escape")
    expect(page.locator("#search")).to_have_value("")
    page.keyboard.press("Escape")
    expect(page).to_have_url(re.compile(r"/l/0\.0$"))


def test_a_search_can_be_narrowed_to_the_current_level(page, music_server, size):
    page.goto(music_server.url + "l/0.0")
    type_query(page, "s")
    everywhere = page.locator(".search-scope-button").nth(0)
    here = page.locator(".search-scope-button").nth(1)
    expect(here).to_have_text("In Kind of Blue")
    expect(everywhere).to_have_attribute("aria-pressed", "true")
    expect(options(page).first).to_be_visible()
    wide = int(page.locator("#search-count").inner_text().split()[0])
    here.click()
    expect(here).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#search-count")).not_to_have_text(f"{wide} matches")
    paths = options(page).evaluate_all("els => els.map(e => e.dataset.path)")
    assert paths and all(p.startswith("0.0.") for p in paths), paths
    expect(page.locator("#search")).to_be_focused()
    snap(page, f"scope-{size}")
    # Enter carries the narrowing to the search page, which offers it as a checkbox.
    page.keyboard.press("Enter")
    expect(page.locator("#search-in")).to_be_checked()
    expect(page.locator("#summary")).to_have_text(re.compile(r"^\d+ match"))
    titles = page.locator("#results li").evaluate_all("els => els.map(e => e.dataset.path)")
    assert titles and all(p.startswith("0.0.") for p in titles), titles


def test_the_search_page_pages_on_without_javascript(browser, big_server, size):
    context = browser.new_context(java_script_enabled=False, viewport=SIZES[size])
    page = context.new_page()
    try:
        page.goto(big_server.url + "l/0")
        page.locator("#search").fill("row")
        page.locator("#search").press("Enter")
        expect(page.locator("#summary-total, #summary").last).to_have_text(f"{BIG_ROWS} matches, showing the first 100")
        expect(page.locator("#back .back-label")).to_have_text("Big level")
        expect(page.locator("#search-previous")).to_have_count(0)
        page.locator("#search-next").click()
        expect(page.locator("#summary-total, #summary").last).to_have_text(f"{BIG_ROWS} matches, showing 101–200")
        expect(page.locator("#results .row-title").first).to_have_text("Row 100")
        expect(page.locator("#results .result-path").first).to_have_text("Big level")
        page.locator("#search-previous").click()
        expect(page.locator("#results .row-title").first).to_have_text("Row 0")
        page.locator("#back").click()
        expect(page).to_have_url(re.compile(r"/l/0$"))
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_live_search_and_the_search_page_are_axe_clean(page, music_server, size, scheme):
    from axe_playwright_python.sync_playwright import Axe
    axe = Axe()
    page.emulate_media(color_scheme=scheme)
    page.goto(music_server.url + "l/0.0")
    type_query(page, "blue")
    expect(options(page).first).to_be_visible()
    page.keyboard.press("ArrowDown")
    expect(options(page).first).to_have_attribute("aria-selected", "true")

    def found():
        result = axe.run(page, options=WCAG)
        return [f"{v['id']}: {' '.join(n['target'])}" for v in result.response["violations"] for n in v["nodes"]]

    assert found() == []
    page.goto(music_server.url + "search?q=blue&from=%2Fl%2F0.0")
    page.locator("#search").fill("")
    type_query(page, "so")
    expect(options(page).first).to_be_visible()
    assert found() == []
    page.keyboard.press("Escape")
    assert found() == []


@pytest.fixture(scope="module")
def million_server(tmp_path_factory):
    path = tmp_path_factory.mktemp("million") / "million.json"
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-outline.py"), "--groups", "1000", "--rows", "1000", str(path)],
                   check=True, capture_output=True)
    server = Server(path, start_timeout=300)
    yield server
    server.stop()


def test_a_million_rows_answer_while_typing(page, million_server):
    page.goto(million_server.url + "l/500")
    expect(page.locator("#search")).to_be_visible()
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/api/search" in r.url else None)
    # The first query may wait for the title index, built once in the background as the server starts.
    type_query(page, "row 999.99", timeout=60_000)
    expect(page.locator("#search-count")).to_have_text("11 matches")
    expect(options(page)).to_have_count(11)
    expect(options(page).first.locator(".search-option-path")).to_have_text("Group 999")
    # Then every keystroke's list comes quickly: a scan of the index for one page and the count.
    page.locator("#search").fill("")
    started = time.monotonic()
    type_query(page, "row 998.99", timeout=30_000)
    expect(page.locator("#search-count")).to_have_text("11 matches")
    expect(options(page).first.locator(".row-title")).to_have_text("Row 998.99")
    answered = time.monotonic() - started
    print(f"\n1 001 000 rows: the list came {answered:.2f} s after the first keystroke")
    assert answered < 5, f"the matches took {answered:.1f} s"
    # Every request asked for one page, however many matches there are.
    assert all("limit=25" in u for u in asked), asked
    # A broad query on the same document: the first page and the count, a page at a time.
    page.locator("#search").fill("")
    type_query(page, "row 1", timeout=30_000)
    expect(page.locator("#search-count")).to_have_text("111,000 matches")
    expect(options(page)).to_have_count(25)
    # Narrowed to the group on screen: a walk of its 1000 rows.
    page.locator("#search").fill("")
    type_query(page, "0.1", timeout=30_000)
    expect(page.locator("#search-count")).to_have_text("11,100 matches")
    page.locator(".search-scope-button").nth(1).click()
    expect(page.locator("#search-count")).to_have_text("111 matches")
    paths = options(page).evaluate_all("els => els.map(e => e.dataset.path)")
    assert all(p.startswith("500.") for p in paths), paths
