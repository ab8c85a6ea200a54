"""The web app end to end: the real `drilldown serve` binary and headless chromium."""
import json
import re
import time

import pytest
from playwright.sync_api import expect

from conftest import BIG_ROWS, SCRIPT_TITLE, Server

SEED_PATH = ["Item 4", "Screen G", "Screen H", "Screen I", "Screen J"]


def title(page):
    return page.locator("#title")


def back_label(page):
    return page.locator("#back .back-label")


def open_row(page, text):
    page.locator("#rows a.cell", has=page.locator(".row-title", has_text=re.compile(f"^{re.escape(text)}$"))).click()


def open_result(page, text):
    page.locator("#results a.cell", has=page.locator(".row-title", has_text=re.compile(f"^{re.escape(text)}$"))).click()


def drill_seed_000(page, shot=None, prefix="seed"):
    """Item 4 › Screen G › H › I › J › detail, checking each title and back label."""
    expect(title(page)).to_have_text("Root")
    expect(page.locator("#back")).to_have_count(0)
    for i in range(1, 5):
        expect(page.locator("#rows .row-title").nth(i - 1)).to_have_text(f"Item {i}")
    if shot:
        shot(f"{prefix}-0-root")
    previous = "Root"
    for depth, name in enumerate(SEED_PATH, start=1):
        open_row(page, name)
        expect(title(page)).to_have_text(name)
        expect(back_label(page)).to_have_text(previous)
        previous = name
        if shot:
            shot(f"{prefix}-{depth}-{name.replace(' ', '-').lower()}")
    expect(page.locator("#detail-title")).to_have_text("Screen J")
    expect(page).to_have_url(re.compile(r"/d/3\.0\.0\.0\.0$"))


def back_five_times(page):
    for expected in ["Screen I", "Screen H", "Screen G", "Item 4", "Root"]:
        page.locator("#back").click()
        expect(title(page)).to_have_text(expected)
    expect(page.locator("#back")).to_have_count(0)


def test_seed_000_drill_down_and_back(page, seed_server, shot):
    page.goto(seed_server.url)
    drill_seed_000(page, shot)
    back_five_times(page)


def test_deep_link_and_reload(page, seed_server, shot):
    page.goto(seed_server.url + "l/3.0.0")
    expect(title(page)).to_have_text("Screen H")
    expect(back_label(page)).to_have_text("Screen G")
    expect(page.locator("#tree-path")).to_have_value("3.0.0")
    expect(page.locator("#title-path")).to_have_attribute("data-path", "Item 4/Screen G/Screen H")
    expect(page.locator("#title-path li")).to_have_text(["Item 4", "Screen G", "Screen H"])
    page.reload()
    expect(title(page)).to_have_text("Screen H")
    page.goto(seed_server.url + "d/3.0.0.0.0")
    expect(page.locator("#detail-title")).to_have_text("Screen J")
    crumbs = page.locator(".breadcrumbs a")
    expect(crumbs).to_have_text(["Root", "Item 4", "Screen G", "Screen H", "Screen I", "Screen J"])
    shot("detail-deep-link")
    page.goto(seed_server.url + "l/Item%204/Screen%20G")
    expect(page).to_have_url(re.compile(r"/l/3\.0$"))
    page.goto(seed_server.url + "l/9.9")
    expect(page.locator("#error-message")).to_contain_text("the root has 4 children")
    shot("not-found")


def test_browser_back_button(page, seed_server):
    page.goto(seed_server.url)
    open_row(page, "Item 4")
    open_row(page, "Screen G")
    expect(title(page)).to_have_text("Screen G")
    page.go_back()
    expect(title(page)).to_have_text("Item 4")
    page.go_back()
    expect(title(page)).to_have_text("Root")
    page.go_forward()
    expect(title(page)).to_have_text("Item 4")


def tree_titles(page):
    return page.locator("#tree [role=treeitem] .row-title")


def test_outline_expand_collapse_in_place(page, seed_server, shot):
    page.goto(seed_server.url + "outline")
    expect(page.locator("#tree")).to_have_attribute("role", "tree")
    expect(tree_titles(page)).to_have_text(["Item 1", "Item 2", "Item 3", "Item 4"])
    page.evaluate("window.__stillHere = true")
    page.locator("#n-1 a.disclosure").click()
    expect(tree_titles(page)).to_have_text(["Item 1", "Item 2", "Screen B", "Item 3", "Item 4"])
    expect(page.locator("#n-1 [role=treeitem]")).to_have_attribute("aria-expanded", "true")
    expect(page).to_have_url(re.compile(r"/outline\?open=1$"))
    page.locator("#n-1\\.0 a.disclosure").click()
    expect(page.locator("#n-1\\.0\\.0 [role=treeitem]")).to_have_attribute("aria-level", "3")
    expect(page).to_have_url(re.compile(r"/outline\?open=1,1\.0$"))
    assert page.evaluate("window.__stillHere") is True, "expanding reloaded the page"
    shot("outline-expanded")
    page.locator("#n-1 a.disclosure").click()
    expect(tree_titles(page)).to_have_text(["Item 1", "Item 2", "Item 3", "Item 4"])
    page.locator("#n-1 a.disclosure").click()
    expect(tree_titles(page)).to_have_text(["Item 1", "Item 2", "Screen B", "Screen C", "Item 3", "Item 4"])
    page.reload()
    expect(tree_titles(page)).to_have_text(["Item 1", "Item 2", "Screen B", "Screen C", "Item 3", "Item 4"])
    page.locator("#expand-all").click()
    expect(tree_titles(page)).to_have_count(14)
    expect(page.locator("#n-3\\.0\\.0\\.0\\.0 [role=treeitem]")).to_have_attribute("aria-level", "5")
    shot("outline-all")
    page.locator("#collapse-all").click()
    expect(tree_titles(page)).to_have_count(4)


def test_outline_keyboard(page, seed_server):
    page.goto(seed_server.url + "outline")
    page.locator("#n-0 a.cell").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#n-1 [role=treeitem]")).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#n-1\\.0 a.cell")).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#n-1 a.cell")).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#n-1 [role=treeitem]")).to_have_attribute("aria-expanded", "false")


def test_columns(page, seed_server, shot):
    page.goto(seed_server.url + "columns")
    page.locator(".column a.cell", has_text="Item 4").click()
    expect(page.locator(".column")).to_have_count(2)
    for name in SEED_PATH:
        page.locator(".column a.cell", has_text=name).last.click()
    expect(page).to_have_url(re.compile(r"/columns/3\.0\.0\.0\.0$"))
    expect(page.locator(".column:not(.column-detail)")).to_have_count(5)
    expect(page.locator(".column .row.selected .row-title")).to_have_text(SEED_PATH)
    expect(page.locator(".column-detail .column-title")).to_have_text("Screen J")
    shot("columns")


def test_search_and_open_a_result(page, seed_server, shot):
    page.goto(seed_server.url + "l/1")
    page.keyboard.press("/")
    expect(page.locator("#search")).to_be_focused()
    page.keyboard.type("screen")
    page.keyboard.press("Enter")
    expect(page.locator("#summary")).to_have_text("10 matches")
    expect(page.locator("#results .result-path").nth(6)).to_have_text("Item 4")
    expect(page.locator("#results li").nth(6)).to_have_attribute("data-path", "3.0")
    shot("search")
    open_result(page, "Screen J")
    expect(page.locator("#detail-title")).to_have_text("Screen J")
    page.go_back()
    open_result(page, "Screen G")
    expect(title(page)).to_have_text("Screen G")


def test_keyboard_navigation(page, seed_server):
    page.goto(seed_server.url)
    page.keyboard.press("ArrowDown")
    expect(page.locator("#n-0 a.cell")).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#n-3 a.cell")).to_be_focused()
    page.keyboard.press("Enter")
    expect(title(page)).to_have_text("Item 4")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    expect(title(page)).to_have_text("Screen G")
    page.keyboard.press("Backspace")
    expect(title(page)).to_have_text("Item 4")
    page.keyboard.press("Escape")
    expect(title(page)).to_have_text("Root")


def test_without_javascript(browser, seed_server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(seed_server.url)
        drill_seed_000(page)
        back_five_times(page)
        page.goto(seed_server.url + "outline")
        page.locator("#n-1 a.disclosure").click()
        expect(page).to_have_url(re.compile(r"/outline\?open=1#n-1$"))
        expect(tree_titles(page)).to_have_text(["Item 1", "Item 2", "Screen B", "Item 3", "Item 4"])
        page.locator("#search").fill("screen h")
        page.locator("#search").press("Enter")
        expect(page.locator("#results .row-title")).to_have_text(["Screen H"])
    finally:
        context.close()


def test_big_level_is_virtualized(page, big_server, shot):
    started = time.monotonic()
    page.goto(big_server.url + "l/0")
    expect(page.locator("#rows.virtual")).to_have_count(1)
    expect(page.locator("#rows .row-title").first).to_have_text("Row 0")
    opened = time.monotonic() - started
    assert opened < 5, f"opening a 100 000-row level took {opened:.1f} s"
    assert page.locator("#rows li").count() <= 200
    expect(page.locator("#pager")).to_be_hidden()
    shot("big-level-top", full_page=False)
    for fraction in [0.25, 0.5, 0.999, 1.0, 0.0]:
        page.evaluate(f"window.scrollTo(0, (document.documentElement.scrollHeight - innerHeight) * {fraction})")
        index = int((BIG_ROWS - 1) * fraction) if fraction < 1 else BIG_ROWS - 1
        page.wait_for_function(
            "n => [...document.querySelectorAll('#rows .row-title')].some(e => Math.abs(+e.textContent.slice(4) - n) < 40)",
            arg=index)
        count = page.locator("#rows li").count()
        assert 0 < count <= 200, f"{count} row elements in the DOM"
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    expect(page.locator("#rows .row-title", has_text=re.compile(rf"^Row {BIG_ROWS - 1}$"))).to_be_visible()
    shot("big-level-bottom", full_page=False)
    page.locator("#rows .row-title", has_text=re.compile(rf"^Row {BIG_ROWS - 1}$")).click()
    expect(page.locator("#detail-title")).to_have_text(f"Row {BIG_ROWS - 1}")


def test_a_virtualized_level_reloads_at_the_row_it_showed_first(page, big_server):
    """The URL keeps the first row shown below the navigation bar; reloading shows that row there
    again, however often (it used to creep up a row or two per reload)."""
    # Each scroll writes the URL 300 ms later: count the writes, and whether a scroll came after the
    # last one, so a reload's check waits for that write rather than for a fixed time.
    page.add_init_script("""(() => {
        window.__urlWrites = 0; window.__scrollPending = false;
        const replace = history.replaceState.bind(history);
        history.replaceState = (...args) => { window.__urlWrites++; window.__scrollPending = false; return replace(...args); };
        addEventListener("scroll", () => { window.__scrollPending = true; }, { passive: true });
    })()""")
    page.goto(big_server.url + "l/0")
    expect(page.locator("#rows.virtual")).to_have_count(1)

    def first_below_bar():
        return page.evaluate("""() => {
            const bar = document.querySelector('.navbar').getBoundingClientRect().bottom;
            const rows = [...document.querySelectorAll('#rows li')].filter(li => li.getBoundingClientRect().top >= bar - 1);
            rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
            return +rows[0].querySelector('.row-title').textContent.slice(4);
        }""")

    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight * 0.3)")
    page.wait_for_function("() => location.search.includes('offset=')")
    # Line the first row below the bar up with the bar: a row a few pixels under it is one the
    # URL rounds to, not the first wholly shown (where 30 % of the page falls depends on the layout).
    page.evaluate("""() => {
        const bar = document.querySelector('.navbar').getBoundingClientRect().bottom;
        const tops = [...document.querySelectorAll('#rows li')].map(li => li.getBoundingClientRect().top).filter(t => t >= bar - 1);
        window.scrollBy(0, Math.min(...tops) - bar);
    }""")
    shown = first_below_bar()
    page.wait_for_function("n => location.search === '?offset=' + n", arg=shown)
    for _ in range(3):
        page.reload()
        expect(page.locator("#rows .row-title", has_text=re.compile(rf"^Row {shown}$"))).to_be_visible()
        # The reload scrolls to the row (from the top), which writes the URL: wait for that write.
        page.wait_for_function("() => window.__urlWrites > 0 && !window.__scrollPending")
        assert first_below_bar() == shown
        assert page.evaluate("location.search") == f"?offset={shown}"


def test_script_title_is_text(page, big_server, shot):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(big_server.url)
    expect(page.locator("#rows .row-title").nth(1)).to_have_text(SCRIPT_TITLE)
    page.locator("#rows a.cell").nth(1).click()
    expect(page.locator("#detail-title")).to_have_text(SCRIPT_TITLE)
    expect(page.locator("#fields .field-value")).to_have_text("<b>not bold</b>")
    expect(page.locator("#fields b")).to_have_count(0)
    page.goto(big_server.url + "search?q=" + "%3Cscript%3E")
    expect(page.locator("#results .row-title")).to_have_text([SCRIPT_TITLE])
    shot("script-title")
    assert dialogs == []


def http_chunks(url, path):
    """The chunks of a chunked HTTP/1.1 answer to GET `path`, each as the server wrote it."""
    import socket
    import urllib.parse
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\nConnection: close\r\n\r\n".encode())
        stream = sock.makefile("rb")
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += stream.readline()
        assert b"200" in head.split(b"\r\n")[0], head
        if b"chunked" not in head.lower():
            return [stream.read().decode()]  # one write with a Content-Length
        chunks = []
        while True:
            size = int(stream.readline().split(b";")[0], 16)
            if size == 0:
                return chunks
            chunks.append(stream.read(size).decode())
            stream.readline()


def test_a_search_page_sends_its_first_hits_before_the_count(page, big_server):
    # 100 000 rows match "row": the first 100 go out in one write, the count in a later one.
    chunks = http_chunks(big_server.url, "/search?q=row&values=1")
    first = next(i for i, c in enumerate(chunks) if 'id="results"' in c)
    assert "data-counting" in "".join(chunks[:first + 1]) and "<mark>Row</mark> 99<" in "".join(chunks[:first + 1])
    assert "summary-total" not in "".join(chunks[:first + 1])
    rest = "".join(chunks[first + 1:])
    assert f'id="summary-total">{BIG_ROWS} matches, showing the first 100</p>' in rest and rest.rstrip().endswith("</html>")
    # With JavaScript the count ends up in the summary above the list.
    page.goto(big_server.url + "search?q=row&values=1")
    expect(page.locator("#summary")).to_have_text(f"{BIG_ROWS} matches, showing the first 100")
    expect(page.locator("#summary-total")).to_have_count(0)
    expect(page.locator("#results li")).to_have_count(100)
    # Fewer hits than the limit: one page, the count in the summary as before.
    chunks = http_chunks(big_server.url, "/search?q=row%2099999")
    assert "data-counting" not in "".join(chunks) and 'id="summary">1 match</p>' in "".join(chunks)


def test_music_library_song_detail_and_back(page, music_server, shot):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(music_server.url)
    expect(title(page)).to_have_text("Music")
    shot("music-root")
    open_row(page, "Miles Davis")
    expect(page.locator("#rows img.thumb").first).to_have_attribute("src", re.compile(r"^/files/art/.+\.png$"))
    # The thumbnail loads (decoded, with a width); the src is set before the browser has fetched it.
    # A function, not an expression: Playwright polls an expression with eval, which the page's CSP forbids.
    page.wait_for_function("() => { const i = document.querySelector('#rows img.thumb'); return i.complete && i.naturalWidth > 0 }",
                           timeout=5000)
    shot("music-albums")
    open_row(page, "Kind of Blue")
    expect(back_label(page)).to_have_text("Miles Davis")
    expect(page.locator("#rows .row-subtitle").first).to_have_text(re.compile(r"^\d+:\d\d$"))
    shot("music-songs")
    open_row(page, "So What")
    expect(page.locator("#detail-title")).to_have_text("So What")
    expect(page.locator("#fields")).to_contain_text("9:22")
    shot("music-song-detail")
    page.locator("#back").click()
    expect(title(page)).to_have_text("Kind of Blue")
    page.emulate_media(color_scheme="dark")
    page.set_viewport_size({"width": 1280, "height": 800})
    shot("music-songs-dark-desktop")


def test_search_screen_has_one_field_with_a_live_count(page, seed_server, shot):
    """Issue 12 item 7: one search field on the search screen, and the count shows while typing."""
    page.goto(seed_server.url + "search?q=screen")
    expect(page.locator("input[type=search]")).to_have_count(1)
    expect(page.locator("#summary")).to_have_text("10 matches")
    counts = []
    page.on("request", lambda r: counts.append(r.url) if "/api/search" in r.url else None)
    field = page.locator("#search")
    field.fill("")
    field.press_sequentially("screen h", delay=20)
    expect(page.locator("#search-count")).to_have_text("1 match")
    assert page.url.endswith("search?q=screen"), "the count came without submitting"
    assert counts and all("limit=25" in url for url in counts), counts
    shot("search-live-count")
    # The navigation bar's field on every other screen counts too.
    page.goto(seed_server.url + "l/3")
    page.locator("#search").press_sequentially("screen", delay=20)
    expect(page.locator("#search-count")).to_have_text("10 matches")
    page.locator("#search").fill("")
    page.locator("#search").press_sequentially("zzz", delay=20)
    expect(page.locator("#search-count")).to_have_text("0 matches")


def test_go_to_placeholder_names_a_path_of_the_served_data(page, music_server, seed_server):
    page.goto(music_server.url)
    page.click("#path-summary")
    go = page.locator(".go-form input")
    expect(go).to_have_attribute("placeholder", "0.0 or Miles Davis/Kind of Blue")
    go.fill("Miles Davis/Kind of Blue")
    go.press("Enter")
    expect(title(page)).to_have_text("Kind of Blue")
    page.goto(seed_server.url)
    page.click("#path-summary")
    placeholder = page.locator(".go-form input").get_attribute("placeholder")
    tree_path, title_path = placeholder.split(" or ")
    page.locator(".go-form input").fill(title_path)
    page.locator(".go-form input").press("Enter")
    expect(page.locator("#tree-path")).to_have_value(tree_path)


def test_music_root_lists_artists_and_mixed_kinds_sit_where_they_make_sense(page, music_server):
    page.goto(music_server.url)
    # Sorted by name (schema `sort: title`, "The " ignored).
    expect(page.locator("#rows .row-title")).to_have_text(
        ["The Dave Brubeck Quartet", "Herbie Hancock", "John Coltrane", "Miles Davis"])
    expect(page.locator("#rows .row-subtitle")).to_have_text(["Jazz"] * 4)
    open_row(page, "John Coltrane")
    open_row(page, "Live at the Village Vanguard (radio session, 1h+)")
    expect(page.locator("#rows .row-subtitle")).to_have_text(["1:02:05"])
    page.goto(music_server.url)
    open_row(page, "Herbie Hancock")
    # An album and a single: the single is a song (its length, no drill), the album drills.
    expect(page.locator("#rows .row-title")).to_have_text(["Maiden Voyage", "Watermelon Man (single)"])
    expect(page.locator("#rows .row-subtitle")).to_have_text(["1965", "7:11"])
    # The single opens its detail (not a level): its link says so, and it ends with a chevron as every row that opens a page.
    expect(page.locator("#rows .row").nth(1).locator("a.cell")).to_have_attribute("href", re.compile(r"^/d/"))
    expect(page.locator("#rows .row").nth(1).locator(".chevron")).to_have_count(1)


def test_music_library_sections_and_jump_bar(page, music_server, shot):
    """Issue 12 item 1: the bundled library's artists in sections by initial, sticky headers, a jump bar."""
    page.set_viewport_size({"width": 390, "height": 420})
    page.goto(music_server.url)
    expect(page.locator("#rows .section-header h2")).to_have_text(["D", "H", "J", "M"])
    expect(page.locator("#jump-bar a")).to_have_text(["D", "H", "J", "M"])
    # Rows keep their TreePaths (their places in the file, whatever the sort shows): headers are not rows.
    expect(page.locator("#rows li.row")).to_have_count(4)
    expect(page.locator("#rows li.row").nth(3)).to_have_attribute("data-path", "0")
    shot("music-sections")
    page.locator("#jump-bar a", has_text="H").click()
    expect(page).to_have_url(re.compile(r"#section-1$"))
    nav_bottom = page.evaluate("document.querySelector('.navbar').getBoundingClientRect().bottom")
    page.wait_for_function("() => window.scrollY > 0")
    header = page.locator("#section-1").bounding_box()
    assert abs(header["y"] - nav_bottom) < 4, (header, nav_bottom)
    expect(page.locator("#n-3")).to_be_in_viewport()
    # Sticky: a header stays under the navigation bar while its rows scroll beneath it.
    position = page.evaluate("getComputedStyle(document.querySelector('#section-0')).position")
    assert position == "sticky"
    shot("music-sections-jumped", full_page=False)


@pytest.fixture(scope="module")
def sectioned_big_server(tmp_path_factory):
    """A level of 100 000 rows sorted by title, sectioned by initial with an index: `A 0` … `Z 99999`."""
    folder = tmp_path_factory.mktemp("sections")
    rows = [{"name": f"{chr(65 + i * 26 // BIG_ROWS)} {i}"} for i in range(BIG_ROWS)]
    (folder / "big.json").write_text(json.dumps({"Rows": [{"name": "Names", "kind": "folder", "Children": rows}]}))
    (folder / "schema.yaml").write_text(
        "kinds:\n  folder: { title: '{name}', childKind: name }\n"
        "  name: { title: '{name}', section: initial, index: true }\n")
    server = Server(folder / "big.json", "--schema", folder / "schema.yaml")
    yield server
    server.stop()


def first_row_of(letter):
    """The index of the first row under `letter` in the sectioned big level."""
    k = ord(letter) - 65
    return next(i for i in range(BIG_ROWS) if i * 26 // BIG_ROWS == k)


def test_jump_bar_on_a_virtualized_level_of_100000_rows(page, sectioned_big_server, shot):
    page.goto(sectioned_big_server.url + "l/0")
    expect(page.locator("#rows.virtual")).to_have_count(1)
    expect(page.locator("#jump-bar a")).to_have_count(26)
    expect(page.locator("#section-current")).to_have_text("A")
    m = first_row_of("M")
    # The server computed the row offset of each letter's first row.
    expect(page.locator("#jump-bar a", has_text=re.compile("^M$"))).to_have_attribute("href", f"/l/0?offset={m}")
    page.locator("#jump-bar a", has_text=re.compile("^M$")).click()
    first = page.locator("#rows .row-title", has_text=re.compile(rf"^M {m}$"))
    expect(first).to_be_in_viewport()
    expect(page.locator("#section-current")).to_have_text("M")
    expect(page.locator(f'#rows li[data-index="{m}"] a.cell')).to_be_focused()
    assert page.locator("#rows li").count() <= 200
    shot("big-level-jumped", full_page=False)
    # The row above it (the last L) is off screen: the jump put M's first row at the top.
    above = page.locator(f'#rows li[data-index="{m - 1}"]')
    if above.count():
        assert above.bounding_box()["y"] < page.evaluate("document.querySelector('.navbar').getBoundingClientRect().bottom") + 30


def test_jump_bar_without_javascript_opens_the_page_of_the_section(browser, sectioned_big_server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(sectioned_big_server.url + "l/0")
        page.locator("#jump-bar a", has_text=re.compile("^T$")).click()
        t = first_row_of("T")
        expect(page.locator("#rows .row-title").first).to_have_text(f"T {t}")
        expect(page.locator("#section-current")).to_have_text("T")
    finally:
        context.close()


@pytest.fixture(scope="module")
def huge_level_server(tmp_path_factory):
    """A level of 300 000 rows: taller than a browser draws an element, so the list is scaled."""
    path = tmp_path_factory.mktemp("huge-level") / "huge.json"
    path.write_text(json.dumps({"Rows": [{"Title": "Huge level", "Children": [{"Title": f"Row {i}"} for i in range(300_000)]}]}))
    server = Server(path, start_timeout=300)
    yield server
    server.stop()


def test_a_scaled_level_reaches_its_last_row(page, huge_level_server):
    page.goto(huge_level_server.url + "l/0")
    expect(page.locator("#rows.virtual")).to_have_count(1)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    last = page.locator("#rows .row-title", has_text=re.compile(r"^Row 299999$"))
    expect(last).to_be_in_viewport()
    assert page.locator("#rows li").count() <= 200
    page.evaluate("window.scrollTo(0, (document.documentElement.scrollHeight - innerHeight) / 2)")
    page.wait_for_function("() => [...document.querySelectorAll('#rows .row-title')].some(e => Math.abs(+e.textContent.slice(4) - 150000) < 200)")
