"""Downloads (issue 33 item 4) in Chromium: the Path menu's "CSV of this level" link downloads the
level as a CSV attachment named after it (with the script and without), streamed from
/export/csv/PATH and equal to the level's rows; "OPML" downloads the subtree as OPML 2.0."""
import csv
import io
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server


@pytest.fixture(scope="module")
def chinook(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chinook")
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make-chinook.py"), str(folder)], check=True, capture_output=True)
    server = Server(folder / "chinook.sqlite")
    server.db = folder / "chinook.sqlite"
    yield server
    server.stop()


def level_songs(server, artist, album):
    db = sqlite3.connect(server.db)
    try:
        return db.execute(
            "SELECT s.name, s.track, s.length, s.composer, s.genre, s.plays FROM songs s JOIN albums a ON a.id = s.album_id "
            "JOIN artists r ON r.id = a.artist_id WHERE r.name = ? AND a.title = ? ORDER BY s.track", (artist, album)).fetchall()
    finally:
        db.close()


def download_csv(page):
    page.click("#path-summary")
    with page.expect_download() as info:
        page.click("#download-csv")
    download = info.value
    with open(download.path(), newline="", encoding="utf-8") as f:
        return download.suggested_filename, list(csv.reader(f))


@pytest.mark.parametrize("script", [True, False], ids=["script", "no-script"])
def test_download_csv_of_a_level_is_the_levels_rows(browser, chinook, script):
    context = browser.new_context(java_script_enabled=script, accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(chinook.url + "l/0")
        artist = page.locator("#title").inner_text().strip()
        page.goto(chinook.url + "l/0.0")
        album = page.locator("#title").inner_text().strip()
        titles = page.locator("#rows .row-title").all_inner_texts()
        name, table = download_csv(page)
        assert name == f"{album}.csv"
        assert table[0] == ["name", "track", "length", "composer", "genre", "plays"]
        assert [r[0] for r in table[1:]] == titles
        want = level_songs(chinook, artist, album)
        assert table[1:] == [["" if v is None else str(v) for v in row] for row in want]
    finally:
        context.close()


def test_the_csv_link_follows_the_page_to_another_level(page, chinook):
    page.goto(chinook.url + "l/0")
    expect(page.locator("#download-csv")).to_have_attribute("href", "/export/csv/0")
    page.locator("#rows a.cell").first.click()
    expect(page.locator("#download-csv")).to_have_attribute("href", "/export/csv/0.0")
    expect(page.locator("#download-opml")).to_have_attribute("href", "/export/opml/0.0")


def test_download_opml_of_a_subtree_keeps_titles_and_nesting(browser, chinook):
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(chinook.url + "l/0")
        albums = page.locator("#rows .row-title").all_inner_texts()
        page.click("#path-summary")
        with page.expect_download() as info:
            page.click("#download-opml")
        root = ET.parse(info.value.path()).getroot()
        assert root.get("version") == "2.0"
        assert [o.get("text") for o in root.find("body").findall("outline")] == albums
        assert all(len(o.findall("outline")) > 0 for o in root.find("body").findall("outline"))
    finally:
        context.close()


def test_the_csv_route_streams_an_attachment_and_a_bad_path_is_404(chinook):
    with urllib.request.urlopen(chinook.url + "export/csv") as response:
        assert response.headers["Content-Type"].startswith("text/csv")
        assert response.headers["Content-Disposition"].startswith("attachment; filename=")
        rows = list(csv.reader(io.StringIO(response.read().decode("utf-8"), newline="")))
    assert rows[0] == ["name", "genre"]
    assert len(rows) == 1 + 275
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(chinook.url + "export/csv/999.0")
    assert refused.value.code == 404


def test_a_filtered_levels_csv_holds_the_rows_the_page_lists(page, chinook):
    """The Path menu's link carries the page's `where=` filters, and the download holds only the
    rows that match, in the page's order."""
    page.goto(chinook.url + "l/0.0?where=length%3E200")
    titles = page.locator("#rows .row-title").all_inner_texts()
    href = page.locator("#download-csv").get_attribute("href")
    assert href == "/export/csv/0.0?where=length%3E200"
    with urllib.request.urlopen(chinook.url + href.lstrip("/")) as response:
        rows = list(csv.reader(io.StringIO(response.read().decode("utf-8"), newline="")))
    assert [r[0] for r in rows[1:]] == titles
    assert 0 < len(titles) and all(int(r[2]) > 200 for r in rows[1:])
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(chinook.url + "export/csv/0.0?where=length%3E")
    assert refused.value.code == 400
