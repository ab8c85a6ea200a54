"""Sorted levels (issue 30 item 4) in the browser: the bundled music library reads A–Z with its jump
bar, the Sort menu re-sorts a level through a plain GET form (with and without JavaScript) and
keeps the choice in the URL, rows keep their TreePaths, and a `sort:` on the Chinook-shaped
database's 275 artists is run by SQLite and reads in order."""
import json
import re
import subprocess
import sys
import unicodedata
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server


def titles(page):
    return page.locator("#rows .row-title").all_inner_texts()


def test_the_music_library_reads_a_to_z_with_its_jump_bar(page, music_server):
    page.goto(music_server.url)
    expect(page.locator("#jump-bar a")).to_have_text(["D", "H", "J", "M"])
    expect(page.locator("#rows .section-header h2")).to_have_text(["D", "H", "J", "M"])
    expect(page.locator("#rows .row-title")).to_have_text(
        ["The Dave Brubeck Quartet", "Herbie Hancock", "John Coltrane", "Miles Davis"])
    # Each row keeps the TreePath of its place in the file: the paths name the data, not the screen.
    expect(page.locator("#rows li.row")).to_have_count(4)
    assert [page.locator("#rows li.row").nth(i).get_attribute("data-path") for i in range(4)] == ["2", "3", "1", "0"]
    page.locator("#rows a.cell", has_text="The Dave Brubeck Quartet").click()
    expect(page).to_have_url(re.compile(r"/l/2$"))
    expect(page.locator("#rows .row-title").first).to_have_text("Time Out")


def sort_with_the_menu(page, value):
    page.locator("#sort-select").select_option(value)
    page.locator("#sort-menu button[type=submit]").click()


@pytest.mark.parametrize("javascript", [True, False])
def test_the_sort_menu_sorts_a_level_and_keeps_it_in_the_url(browser, music_server, javascript):
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    try:
        page.goto(music_server.url + "l/0")
        expect(page.locator("#rows .row-title")).to_have_text(["Kind of Blue", "Sketches of Spain"])
        options = page.locator("#sort-select option")
        assert "year (descending)" in options.all_inner_texts()
        assert page.locator("label[for=sort-select]").inner_text() == "Sort"
        sort_with_the_menu(page, "-year")
        expect(page).to_have_url(re.compile(r"/l/0\?sort=-year$"))
        expect(page.locator("#rows .row-title")).to_have_text(["Sketches of Spain", "Kind of Blue"])
        expect(page.locator("#sort-select")).to_have_value("-year")
        # The rows' links still name the data: Sketches of Spain is 0.1 wherever it shows.
        expect(page.locator("#rows a.cell").first).to_have_attribute("href", "/l/0.1")
        page.reload()
        expect(page.locator("#rows .row-title")).to_have_text(["Sketches of Spain", "Kind of Blue"])
        sort_with_the_menu(page, "none")
        expect(page).to_have_url(re.compile(r"/l/0\?sort=none$"))
        expect(page.locator("#rows .row-title")).to_have_text(["Kind of Blue", "Sketches of Spain"])
        # The root's schema sort can be undone too: the file's order.
        page.goto(music_server.url + "?sort=none")
        expect(page.locator("#rows .row-title").first).to_have_text("Miles Davis")
        expect(page.locator("#jump-bar a")).to_have_text(["M", "J", "D", "H"])
    finally:
        context.close()


def test_the_sorted_api_and_a_bad_rule(music_server):
    with urllib.request.urlopen(music_server.url + "api/level/0?sort=-year") as r:
        level = json.load(r)
    assert [row["title"] for row in level["rows"]] == ["Sketches of Spain", "Kind of Blue"]
    assert [row["path"] for row in level["rows"]] == ["0.1", "0.0"]
    for url in ("l/0?sort=%7Byear", "api/level/0?sort=-"):
        with pytest.raises(urllib.error.HTTPError) as failure:
            urllib.request.urlopen(music_server.url + url)
        assert failure.value.code == 400
        assert "sort" in failure.value.read().decode()


@pytest.fixture(scope="module")
def chinook_server(tmp_path_factory):
    """Scripts/make-chinook.py's database (275 artists stored by id) with `sort: name` on artists."""
    folder = tmp_path_factory.mktemp("chinook")
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make-chinook.py"), str(folder)], check=True)
    schema = (folder / "chinook.schema.yaml").read_text()
    assert "  artist:\n" in schema
    sorted_schema = schema.replace("  artist:\n", "  artist:\n    sort: name\n", 1)
    (folder / "sorted.schema.yaml").write_text(sorted_schema)
    server = Server(folder / "chinook.sqlite", "--schema", folder / "sorted.schema.yaml")
    yield server
    server.stop()


def initial(title):
    """The section initial of a title, as `section: initial` folds it (accents off, upper case)."""
    first = unicodedata.normalize("NFKD", title.strip())[0]
    return first.upper() if first.isalpha() else "#"


def test_sorted_chinook_artists_read_in_order(page, chinook_server):
    with urllib.request.urlopen(chinook_server.url + "api/level?limit=1000") as r:
        level = json.load(r)
    assert level["total"] == 275
    # Every row in the order of its initial: the server sorted the 275 rows stored by id.
    initials = [initial(row["title"]) for row in level["rows"]]
    assert initials == sorted(initials), initials
    # Paths name the rows' places in the ORDER BY: 0, 1, 2, … in the order shown.
    assert [row["path"] for row in level["rows"]] == [str(i) for i in range(275)]
    page.goto(chinook_server.url)
    jump = page.locator("#jump-bar a").all_inner_texts()
    # The jump bar lists each initial once, A–Z (Ø after Z, as SQLite's collation and the documents' put it).
    assert jump == sorted(set(initials), key=initials.index), jump
    assert jump == sorted(jump), jump
