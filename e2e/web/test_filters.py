"""Filters and facets in the browser (issue 33): `?where=` on a level page kept in the URL and in
its links, removable chips, the facet panel whose values add a filter (with and without
JavaScript), on the bundled music library and on the relational Chinook database; `/api/level`
and `/api/facets` take the same filters; the search screen's filter field finds rows at any
depth; a bad filter or an injection attempt in a typed value is a 400 and changes nothing; axe
finds nothing; screenshots at 390 and 1280 px, light and dark."""
import json
import os
import re
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import ROOT, SCREENSHOTS, Server

axe_playwright_python = pytest.importorskip("axe_playwright_python.sync_playwright")
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
SHOTS = SCREENSHOTS / "filters"


@pytest.fixture(scope="module")
def chinook_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chinook-filters")
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make-chinook.py"), str(folder)], check=True, capture_output=True)
    server = Server(folder / "chinook.sqlite", "--editable")
    server.db = folder / "chinook.sqlite"
    yield server
    server.stop()


def query(db, sql, *args):
    with sqlite3.connect(db) as c:
        return c.execute(sql, args).fetchall()


def get_json(url):
    with urllib.request.urlopen(url) as r:
        return json.load(r)


def status_of(url):
    try:
        with urllib.request.urlopen(url) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def titles(page):
    return page.locator("#rows .row-title").all_inner_texts()


@pytest.mark.parametrize("javascript", [True, False])
def test_a_facet_value_adds_a_filter_kept_in_the_url_and_a_chip_removes_it(browser, music_server, javascript):
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(music_server.url + "l/0.0")
        expect(page.locator("#facets")).to_be_visible()
        expect(page.locator("#facet-select")).to_have_value("length")
        page.locator("#facet-values a", has_text="9:22").click()
        expect(page).to_have_url(re.compile(r"/l/0\.0\?where=length%3D562"))
        expect(page.locator("#rows .row-title")).to_have_text(["So What"])
        expect(page.locator("#filter-chips .filter-chip span")).to_have_text(["length=562"])
        # A filter typed in the field joins it (repeated where = and); the sort keeps both.
        page.locator("#filter-input").fill("track<3")
        page.locator("#filter-form button[type=submit]").click()
        expect(page).to_have_url(re.compile(r"where=length%3D562&where=track%3C3"))
        page.goto(music_server.url + "l/0.0?where=length>9:00")
        expect(page.locator("#rows .row-title")).to_have_text(["So What", "Freddie Freeloader", "All Blues", "Flamenco Sketches"])
        page.locator("#sort-select").select_option("-length")
        page.locator("#sort-menu button[type=submit]").click()
        expect(page).to_have_url(re.compile(r"where=length%3E9%3A00&sort=-length|sort=-length.*where="))
        expect(page.locator("#rows .row-title")).to_have_text(["All Blues", "Freddie Freeloader", "Flamenco Sketches", "So What"])
        # Rows keep the TreePaths of their places in the data.
        expect(page.locator("#rows a.cell").first).to_have_attribute("href", "/d/0.0.3")
        page.locator("#filter-chips .chip-remove").click()
        expect(page.locator("#filter-chips")).to_have_count(0)
        expect(page.locator("#rows .row-title")).to_have_count(5)
        expect(page).to_have_url(re.compile(r"sort=-length"))
    finally:
        context.close()


@pytest.mark.parametrize("javascript", [True, False])
def test_chinook_facet_panel_filters_artists_by_sql(browser, chinook_server, javascript):
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(chinook_server.url)
        expect(page.locator("#facet-select")).to_have_value("genre")
        counts = dict(query(chinook_server.db, "SELECT genre, COUNT(*) FROM artists GROUP BY genre"))
        rock = page.locator("#facet-values a", has_text="Rock")
        expect(rock.locator(".facet-count")).to_have_text(str(counts["Rock"]))
        rock.click()
        expect(page).to_have_url(re.compile(r"\?where=genre%3DRock"))
        names = sorted(n for (n,) in query(chinook_server.db, "SELECT name FROM artists WHERE genre = 'Rock'"))
        expect(page.locator("#rows .row-title")).to_have_count(len(names))
        assert sorted(titles(page)) == names
        # The facet of another field over the filtered level: the form keeps the filter.
        page.locator("#facet-select").select_option("name")
        page.locator(".facet-form button[type=submit]").click()
        expect(page).to_have_url(re.compile(r"where=genre%3DRock.*facet=name|facet=name.*where=genre%3DRock"))
        expect(page.locator("#rows .row-title")).to_have_count(len(names))
    finally:
        context.close()


def test_the_api_takes_the_same_filters_and_counts_facets(music_server, chinook_server):
    level = get_json(music_server.url + "api/level/0.0?where=" + urllib.parse.quote("length>9:00") + "&where=name~blue")
    assert [(r["title"], r["path"]) for r in level["rows"]] == [("All Blues", "0.0.3")] and level["total"] == 1
    facet = get_json(chinook_server.url + "api/facets?path=&field=genre")
    expected = query(chinook_server.db, "SELECT genre, COUNT(*) FROM artists GROUP BY genre ORDER BY 2 DESC, 1")
    assert [(v["value"], v["count"]) for v in facet["values"]] == expected
    assert facet["values"][0]["where"] == f"genre={expected[0][0]}"
    songs = get_json(chinook_server.url + "api/facets?path=0.0&field=genre&where=" + urllib.parse.quote("length>2:00"))
    album = query(chinook_server.db, "SELECT id FROM albums WHERE artist_id = 1 ORDER BY year, title, id")[0][0]
    assert sum(v["count"] for v in songs["values"]) == query(
        chinook_server.db, "SELECT COUNT(*) FROM songs WHERE album_id = ? AND length > 120", album)[0][0]


def test_bad_filters_and_injection_attempts_are_400s_and_change_nothing(chinook_server):
    before = query(chinook_server.db, "SELECT COUNT(*), SUM(length) FROM songs")
    q = urllib.parse.quote
    for url in ["l/0.0?where=" + q("length>1; DROP TABLE songs"), "api/level/0.0?where=" + q("length>1 OR 1=1"),
                "api/level?where=" + q("colour=red"), "api/level?where=" + q("genre="), "api/facets?field=" + q("genre; DROP TABLE artists"),
                "?where=" + q("(genre=Rock")]:
        status, body = status_of(chinook_server.url + url)
        assert status == 400, (url, status, body[:200])
    status, body = status_of(chinook_server.url + "l/0.0?where=" + q("length>long"))
    assert "column 8" in body
    # Text values are bound, never spliced into SQL: the attempt matches no row.
    for attempt in ["genre=\"Rock' OR '1'='1\"", "name=\"x'); DROP TABLE songs; --\""]:
        level = get_json(chinook_server.url + "api/level?where=" + q(attempt))
        assert level["total"] == 0, attempt
    assert query(chinook_server.db, "SELECT COUNT(*), SUM(length) FROM songs") == before


def test_the_search_screens_filter_field_finds_rows_at_any_depth(page, music_server):
    page.goto(music_server.url + "search")
    page.locator("#search-where").fill("kind=song and length>15:00")
    page.locator(".search-page-form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"where=kind%3Dsong"))
    expect(page.locator("#results .row-title")).to_have_text(["Concierto de Aranjuez (Adagio)", "Complete broadcast"])
    expect(page.locator("#results .result").first).to_have_attribute("data-path", "0.1.0")
    page.goto(music_server.url + "search?q=blue&where=" + urllib.parse.quote("length<6:00"))
    expect(page.locator("#results .row-title")).to_have_text(["Blue in Green"])


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_filtered_pages_have_no_axe_violations_and_are_photographed(browser, music_server, chinook_server, scheme, width):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    try:
        axe = axe_playwright_python.Axe()
        for name, url in [("music-songs", music_server.url + "l/0.0?where=length%3E6%3A00"),
                          ("chinook-artists", chinook_server.url + "?where=genre%3DRock&facet=genre")]:
            page.goto(url)
            page.wait_for_load_state("load")
            expect(page.locator("#facets")).to_have_count(1)
            if width == 390:
                # A disclosure on phones: closed, it opens on a tap.
                expect(page.locator("#facets")).not_to_have_attribute("open", "")
                page.locator("#facets summary").click()
            expect(page.locator("#facet-values")).to_be_visible()
            result = axe.run(page, options=WCAG)
            found = [f"{v['id']}: {' '.join(n['target'])}" for v in result.response["violations"] for n in v["nodes"]]
            assert not found, f"{name} {width} {scheme}: {found}"
            page.screenshot(path=str(SHOTS / f"{name}-{width}-{scheme}.png"), full_page=True)
    finally:
        context.close()


@pytest.mark.skipif(not os.environ.get("DRILLDOWN_TEST_PG_URL"), reason="DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server")
def test_postgres_levels_filter_and_facet_in_sql(tmp_path):
    """The music tables on PostgreSQL: `WHERE` and `GROUP BY` with bound values, `~` folding accents."""
    import uuid

    import test_postgres_levels as pg
    name = "filters_" + uuid.uuid4().hex[:8]
    pg.psql(f"CREATE DATABASE {name}")
    url = pg.database_url(name)
    try:
        pg.run_psql(url, "-v", "ON_ERROR_STOP=1", "-f", str(ROOT / "Examples" / "Music" / "music.postgres.sql"))
        def ls(*args):
            proc = pg.cli("ls", url, *args, "--schema", str(pg.SCHEMA), "--json")
            assert proc.returncode == 0, proc.stderr
            return json.loads(proc.stdout)
        songs = ls("0.0", "--where", "length>9:00")
        assert [r["title"] for r in songs["rows"]] == ["So What", "Freddie Freeloader", "All Blues", "Flamenco Sketches"]
        assert [r["title"] for r in ls("2.0", "--where", "name~rondo a la")["rows"]] == ["Blue Rondo à la Turk"]
        facet = ls("--facet", "genre")
        assert [(v["value"], v["count"]) for v in facet["values"]] == [("Jazz", 4)]
        assert ls("--where", "genre=\"Jazz' OR '1'='1\"")["total"] == 0
        bad = pg.cli("ls", url, "0.0", "--where", "length>1; DROP TABLE songs", "--schema", str(pg.SCHEMA))
        assert bad.returncode == 1
        assert pg.run_psql(url, "-c", "SELECT COUNT(*) FROM songs") != "0"
    finally:
        pg.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
