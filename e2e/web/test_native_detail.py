"""Issue 31 items 7, 8 and 10 in Chromium at phone (390x844) and desktop (1280x800) widths, light
and dark: the path tools behind a Path menu in the navigation bar (titles unescaped, the syntax
copied and typed), a detail that reads as people read (labels, dates in the reader's locale, sizes,
Yes/No, no `kind`, a song's length once), the layout glitches (the back label, columns, the page
column, form fields) and a schema whose kind is named only as a childKind.

Screenshots go to artifacts/screenshots/detail/ when that folder exists."""
import os
import pathlib
import re
import struct
import zlib

import pytest
from playwright.sync_api import expect

from conftest import SCREENSHOTS, ROOT, Server

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
SHOTS = SCREENSHOTS / "detail"
SONG = "For Those About To Rock (We Salute You)"
ALBUM = "For Those About To Rock We Salute You"

LIBRARY = f"""Title: Music
Rows:
  - name: AC/DC
    genre: Rock
    albums:
      - title: {ALBUM}
        year: 1981
        songs:
          - {{ name: "{SONG}", kind: song, length: 344, bytes: 11170334, lastPinged: "2026-11-27T19:10:33Z", explicit: true }}
          - {{ name: Put The Finger On You, length: 205 }}
  - name: Miles Davis
    genre: Jazz
    albums:
      - title: Kind of Blue
        year: 1959
        songs:
          - {{ name: So What, length: 562 }}
"""
SCHEMA = """title: Music
root: artist
kinds:
  artist: { title: "{name}", subtitle: "{genre}", children: albums, childKind: album, sort: title, section: initial, index: true }
  album: { title: "{title}", subtitle: "{year}", children: songs, childKind: song }
  song:
    title: "{name}"
    subtitle: "{length|duration}"
    select: detail
    formats: { length: duration }
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    folder = tmp_path_factory.mktemp("native-detail")
    (folder / "library.yaml").write_text(LIBRARY)
    (folder / "schema.yaml").write_text(SCHEMA)
    server = Server(folder / "library.yaml", "--schema", folder / "schema.yaml", "--editable")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    server = Server(ROOT / "Examples" / "Data.plist")
    yield server
    server.stop()


@pytest.fixture(params=list(SIZES))
def size(request):
    return request.param


@pytest.fixture
def context(browser, size):
    context = browser.new_context(viewport=SIZES[size], locale="en-US", timezone_id="UTC")
    yield context
    context.close()


@pytest.fixture
def page(context):
    return context.new_page()


def snap(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def box(page, selector):
    b = page.locator(selector).first.bounding_box()
    assert b, f"{selector} has no box"
    return b


# ---- Item 8: the path tools behind a Path menu --------------------------------------------------

def test_the_path_tools_are_a_path_menu_in_the_navigation_bar(page, context, library, size):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(library.url + "l/0.0")
    expect(page.locator("footer.pathbar")).to_have_count(0)
    expect(page.locator("body")).not_to_contain_text("TREEPATH")
    menu = page.locator("header.navbar #path-menu")
    expect(menu).to_have_count(1)
    expect(page.locator("#tree-path")).to_be_hidden()
    page.click("#path-summary")
    expect(page.locator("#tree-path")).to_be_visible()
    expect(page.locator("#tree-path")).to_have_value("0.0")
    # The titles read as they are (AC/DC); the copied title path keeps its escape.
    expect(page.locator("#title-path li")).to_have_text(["AC/DC", ALBUM])
    expect(page.locator("#path-menu")).not_to_contain_text("AC\\/DC")
    expect(page.locator("#title-path")).to_have_attribute("data-path", f"AC\\/DC/{ALBUM}")
    page.get_by_role("button", name="Copy title path").click()
    expect(page.get_by_role("button", name="Copy title path")).to_have_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == f"AC\\/DC/{ALBUM}"
    page.get_by_role("button", name="Copy TreePath").click()
    assert page.evaluate("() => navigator.clipboard.readText()") == "0.0"
    # The popover stays on screen at both widths.
    popover = box(page, ".path-popover")
    assert popover["x"] >= 0 and popover["x"] + popover["width"] <= SIZES[size]["width"]
    snap(page, f"path-menu-{size}")
    # Go to takes the escaped syntax.
    page.fill("#go-path", f"AC\\/DC/{ALBUM}/{SONG}")
    page.press("#go-path", "Enter")
    expect(page).to_have_url(re.compile(r"/d/0\.0\.0$"))
    expect(page.locator("#detail-title")).to_have_text(SONG)


def test_the_path_menu_by_keyboard_alone(page, library, size):
    page.goto(library.url + "l/0")
    page.focus("#path-summary")
    page.keyboard.press("Enter")
    expect(page.locator("#path-menu")).to_have_attribute("open", "")
    expect(page.locator("#go-path")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#path-menu")).not_to_have_attribute("open", "")
    expect(page.locator("#path-summary")).to_be_focused()
    expect(page).to_have_url(re.compile(r"/l/0$")), "Escape closed the menu without going back"
    page.keyboard.press("Enter")
    expect(page.locator("#go-path")).to_be_focused()
    page.keyboard.type("Miles Davis/Kind of Blue")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/l/1\.0$"))


def test_the_path_menu_works_without_javascript(browser, library, size):
    context = browser.new_context(viewport=SIZES[size], java_script_enabled=False)
    page = context.new_page()
    page.goto(library.url + "d/0.0.0")
    expect(page.locator("#tree-path")).to_be_hidden()
    page.click("#path-summary")
    expect(page.locator("#tree-path")).to_have_value("0.0.0")
    expect(page.locator("#title-path li")).to_have_text(["AC/DC", ALBUM, SONG])
    page.fill("#go-path", "1.0")
    page.press("#go-path", "Enter")
    expect(page).to_have_url(re.compile(r"/l/1\.0$"))
    context.close()


# ---- Item 8: a detail that reads as people read ----------------------------------------------------

def test_a_detail_shows_labels_and_formatted_values(page, library, size):
    page.goto(library.url + "d/0.0.0")
    fields = page.locator("#fields .field")
    expect(page.locator("#fields dt")).to_have_text(["Length", "Bytes", "Last Pinged", "Explicit"])
    values = dict(zip(page.locator("#fields dt").all_inner_texts(), page.locator("#fields dd").all_inner_texts()))
    assert values["Length"] == "5:44"
    assert values["Bytes"] == "10.7 MB"
    assert values["Explicit"] == "Yes"
    # The reader's locale (en-US, UTC here) shows the date; the markup keeps the instant.
    when = page.locator("#fields time")
    expect(when).to_have_attribute("datetime", "2026-11-27T19:10:33Z")
    assert values["Last Pinged"] == "Nov 27, 2026, 7:10 PM"
    expect(fields).to_have_count(4)
    expect(page.locator("#fields")).not_to_contain_text("kind")
    # The length shows once on the page, as Length.
    assert page.locator("#detail").inner_text().count("5:44") == 1
    snap(page, f"detail-{size}")


def test_a_detail_without_javascript_shows_the_servers_date(browser, library, size):
    context = browser.new_context(viewport=SIZES[size], java_script_enabled=False)
    page = context.new_page()
    page.goto(library.url + "d/0.0.0")
    expect(page.locator("#fields time")).to_have_text("2026-11-27 19:10")
    context.close()


# ---- Item 7: glitches ---------------------------------------------------------------------------

def test_the_back_label_truncates_before_it_reaches_the_title(page, library, size):
    page.goto(library.url + "d/0.0.0")
    back, title = box(page, "#back"), box(page, "#title")
    assert back["x"] + back["width"] <= title["x"] + 1, f"back {back} runs into title {title}"
    label = page.locator(".back-label")
    if size == "phone":
        assert label.evaluate("e => e.scrollWidth > e.clientWidth"), "the long back label is truncated"


def test_columns_show_one_whole_column_on_a_phone_and_the_deepest_on_a_desktop(page, seed, size):
    page.goto(seed.url + "columns/3.0.0.0.0")
    strip = box(page, "#columns")
    last = page.locator(".column").last
    expect(last).to_be_in_viewport()
    b = last.bounding_box()
    assert b["x"] >= strip["x"] - 1 and b["x"] + b["width"] <= strip["x"] + strip["width"] + 1, f"last column {b} in {strip}"
    if size == "phone":
        assert abs(b["width"] - strip["width"]) <= 1, "a phone shows one column, no strip of the next"
    snap(page, f"columns-{size}")


def test_the_page_is_one_column_with_the_jump_bar_beside_the_list(page, library, size):
    page.goto(library.url)
    lists = box(page, "#rows")
    toolbar = box(page, ".toolbar")
    navrow = box(page, ".navbar-row")
    search = box(page, ".search-form")
    if size == "desktop":
        assert abs(toolbar["width"] - navrow["width"]) <= 1
        # The search bar starts where the level's body starts (the facet panel, then the list,
        # issue 33), the toolbar ends where the list ends (the jump bar beside it), all in one
        # column of at most 820 px.
        body = box(page, ".level-body")
        assert abs(search["x"] - body["x"]) <= 1, (search, body)
        assert lists["x"] >= body["x"] and abs(lists["x"] + lists["width"] - (body["x"] + body["width"])) <= 1, (lists, body)
        assert abs((toolbar["x"] + toolbar["width"] - 16) - (lists["x"] + lists["width"])) <= 40, (toolbar, lists)
        assert toolbar["width"] <= 820
        jump = box(page, "#jump-bar")
        assert jump["x"] >= lists["x"] + lists["width"] - 1, "the jump bar does not cover the list"
        assert jump["x"] + jump["width"] <= navrow["x"] + navrow["width"] + 1, "the jump bar stands in the page column, not at the window's edge"
    snap(page, f"root-{size}")


def test_form_fields_are_grouped_with_their_label_above(page, library, size):
    for path, field in [("rename/0.0", "#rename-title"), ("move/0.0", "#move-to")]:
        page.goto(library.url + path)
        label = page.locator(f"label.field:has({field}) > span")
        l, f = label.bounding_box(), page.locator(field).bounding_box()
        assert f["y"] - (l["y"] + l["height"]) >= 4, f"{path}: the label touches its field"
        assert f["height"] >= 44, f"{path}: a 44 px field"
        radius = page.locator(field).evaluate("e => parseFloat(getComputedStyle(e).borderTopLeftRadius)")
        assert radius >= 8
        snap(page, f"{path.split('/')[0]}-form-{size}")


def png_rows(data):
    """The RGB(A) pixel rows of a PNG screenshot (8-bit truecolour, as Chromium writes them)."""
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert depth == 8 and colour in (2, 6)
    channels = 4 if colour == 6 else 3
    raw, chunks, i = b"", [], 8
    while i < len(data):
        length, kind = struct.unpack(">I4s", data[i:i + 8])
        if kind == b"IDAT":
            chunks.append(data[i + 8:i + 8 + length])
        i += 12 + length
    raw = zlib.decompress(b"".join(chunks))
    stride, rows, prev = width * channels, [], bytearray(width * channels)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b, c = prev[x], prev[x - channels] if x >= channels else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        prev = line
    return rows


def test_the_outlines_last_row_has_no_separator_below_its_card(page, seed, size):
    page.goto(seed.url + "outline?all=1")
    tree = page.locator("#tree")
    expect(tree.locator("[role=treeitem]").first).to_be_visible()
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    b = tree.bounding_box()
    bottom = b["y"] + b["height"]
    assert bottom <= SIZES[size]["height"], "the card's bottom is on screen"
    # The card's last pixel row and the one below it: page background or card, never a line.
    shot = page.screenshot(clip={"x": b["x"] + 40, "y": bottom - 1, "width": b["width"] - 80, "height": 2})
    darkest = min(min(p) for row in png_rows(shot) for p in row)
    assert darkest >= 236, f"a separator line ({darkest}) at the card's bottom edge"


# ---- Item 10: a kind named only as a childKind ------------------------------------------------------

def test_a_kind_named_only_as_a_child_kind_is_served(page, tmp_path, size):
    (tmp_path / "data.yaml").write_text("Rows:\n  - { name: AC/DC, Children: [ { Title: Back in Black, year: 1980 } ] }\n")
    (tmp_path / "schema.yaml").write_text("kinds:\n  artist: { title: \"{name}\", childKind: album }\n")
    server = Server(tmp_path / "data.yaml", "--schema", tmp_path / "schema.yaml")
    try:
        page.goto(server.url + "l/0")
        expect(page.locator("#rows .row-title")).to_have_text(["Back in Black"])
    finally:
        server.stop()


# ---- axe on these screens, light and dark ---------------------------------------------------------

axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_these_screens(page, library, seed, size, scheme):
    axe = axe_module.Axe()
    page.emulate_media(color_scheme=scheme)
    screens = [(library, "d/0.0.0", True), (library, "l/0", True), (library, "rename/0.0", False),
               (library, "move/0.0", False), (seed, "columns/3.0.0.0.0", False)]
    for server, path, open_menu in screens:
        page.goto(server.url + path)
        page.wait_for_load_state("load")
        if open_menu:
            page.click("#path-summary")
            expect(page.locator("#go-path")).to_be_visible()
        found = [f"{v['id']}: {' '.join(n['target'])}" for v in axe.run(page, options=WCAG).response["violations"] for n in v["nodes"]]
        assert not found, f"{path} [{scheme}, {size}]: {found}"
        snap(page, f"axe-{path.replace('/', '_')}-{size}-{scheme}")
