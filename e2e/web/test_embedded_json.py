"""JSON inside a text value in the web app (issue 33, item 3): the value's row drills (a chevron, a
level of its members at TreePaths that continue past it), a value inside is set in the detail's Edit
mode and a key renamed in place, and the file's text value is rewritten as compact JSON."""
import json
import re

import pytest
from playwright.sync_api import expect

from conftest import Server, wait_until

DOC = {"name": "svc", "config": json.dumps({"port": 8080, "inner": {"x": 1}}), "notes": "[not json"}


@pytest.fixture
def service(tmp_path):
    path = tmp_path / "service.json"
    path.write_text(json.dumps(DOC, indent=2) + "\n")
    server = Server(path, "--editable")
    server.data = path
    yield server
    server.stop()


def row(page, text):
    return page.locator("#rows li.row", has=page.locator(".row-title", has_text=re.compile(f"^{re.escape(text)}$")))


def inner(path):
    return json.loads(path.read_text())["config"]


def test_a_json_value_drills_and_edits_inside_rewrite_it(page, service):
    page.goto(service.url)
    # The JSON value's row opens a level; the text that is not JSON opens its detail.
    expect(row(page, "config").locator(".chevron")).to_have_count(1)
    expect(row(page, "config").locator("a.cell")).to_have_attribute("href", re.compile(r"/l/1$"))
    expect(row(page, "notes").locator("a.cell")).to_have_attribute("href", re.compile(r"/d/2$"))
    row(page, "config").locator("a.cell").click()
    expect(page).to_have_url(re.compile(r"/l/1$"))
    expect(page.locator("#rows li.row .row-title")).to_have_text(["port", "inner"])
    # Set a value inside, in the detail's Edit mode.
    page.goto(service.url + "d/1.0")
    expect(page.locator("#value")).to_have_text("8080")
    expect(page.locator("body[data-live='1']")).to_have_count(1)
    page.click("#fields-edit")
    page.get_by_label("port").fill("9090")
    page.click("#fields-done")
    expect(page.locator("#value")).to_have_text("9090")
    wait_until(lambda: inner(service.data) == '{"port":9090,"inner":{"x":1}}', 10, "the value's text was not rewritten")
    # Rename a key inside, in place.
    page.goto(service.url + "l/1")
    page.click("#edit-button")
    cell = row(page, "inner")
    cell.locator(".rename-cell").click()
    cell.locator(".rename-input").fill("outer")
    cell.locator(".rename-input").press("Enter")
    expect(row(page, "outer")).to_have_count(1)
    wait_until(lambda: inner(service.data) == '{"port":9090,"outer":{"x":1}}', 10, "the key was not renamed in the text")
    assert json.loads(service.data.read_text())["notes"] == "[not json"


@pytest.fixture
def services_db(tmp_path):
    """A relational SQLite database whose services have a TEXT column holding JSON, mapped by `levels:`."""
    import sqlite3
    db = tmp_path / "services.sqlite"
    with sqlite3.connect(db) as c:
        c.executescript("""
            CREATE TABLE teams(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE services(id INTEGER PRIMARY KEY, team_id INTEGER NOT NULL, name TEXT NOT NULL, config TEXT);
            INSERT INTO teams VALUES (1, 'core');
            INSERT INTO services VALUES (1, 1, 'api', '{"port": 8080, "tags": ["a", "b"]}');
            INSERT INTO services VALUES (2, 1, 'web', 'plain text');
            """)
    (tmp_path / "services.schema.yaml").write_text(
        "levels:\n  - { table: teams, title: name, key: id }\n  - { table: services, title: name, key: id, parent: team_id }\n")
    server = Server(db, "--editable")
    server.data = db
    yield server
    server.stop()


def test_a_json_column_of_a_database_row_drills_in_the_browser(page, services_db):
    page.goto(services_db.url + "l/0")
    # The row whose column holds JSON drills; the one whose column holds text opens its detail.
    expect(row(page, "api").locator(".chevron")).to_have_count(1)
    expect(row(page, "web").locator("a.cell")).to_have_attribute("href", re.compile(r"/d/0\.1$"))
    row(page, "api").locator("a.cell").click()
    expect(page).to_have_url(re.compile(r"/l/0\.0$"))
    expect(page.locator("#rows li.row .row-title")).to_have_text(["config"])
    row(page, "config").locator("a.cell").click()
    expect(page).to_have_url(re.compile(r"/l/0\.0\.0$"))
    expect(page.locator("#rows li.row .row-title")).to_have_text(["port", "tags"])
