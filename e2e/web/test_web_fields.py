"""Editing values and fields in the web app (issue 30, items 1-3): the detail's Edit mode (iOS
style: Edit turns the fields into inputs, Done saves every changed field as one undoable step,
Cancel leaves everything as it was), the Add (+) dialog and page with the kind's fields, both
without JavaScript too, and `POST /api/edit/update/PATH` / `/api/edit/add/PATH` with typed and
text values. Every value is read and checked by the core's FieldForm; the pages show its refusal
next to the field it names."""
import json
import re
import shutil

import pytest
import yaml
from playwright.sync_api import expect

from conftest import ROOT, SCREENSHOTS, Server
from webclient import Session

CONFIG = """{
  "name": "demo",
  "server": {
    "host": "localhost",
    "port": 8080,
    "debug": false
  }
}
"""

# The example: a song's fields.
SONG_FIELDS = """
    fields:
      - { key: name, label: Name, required: true }
      - { key: length, type: duration }
      - { key: composer }
      - { key: genre, choices: [Rock, Jazz, Metal, Blues] }
      - { key: rating, type: integer, min: 0, max: 5 }
"""


@pytest.fixture
def config(tmp_path):
    """A generic JSON config (no schema) served --editable; `server/port` is at 1.1."""
    path = tmp_path / "config.json"
    path.write_text(CONFIG)
    server = Server(path, "--editable")
    server.data = path
    yield server
    server.stop()


def serve_music(folder):
    for name in ("library.yaml", "schema.yaml"):
        shutil.copy(ROOT / "Examples" / "Music" / name, folder / name)
    schema = (folder / "schema.yaml").read_text()
    song = re.search(r"^  song:\n", schema, re.M)
    assert song, "the music schema has no song kind"
    (folder / "schema.yaml").write_text(schema[:song.end()] + SONG_FIELDS.lstrip("\n") + schema[song.end():])
    server = Server(folder / "library.yaml", "--schema", folder / "schema.yaml", "--editable")
    server.data = folder / "library.yaml"
    return server


@pytest.fixture
def music(tmp_path):
    """A copy of the bundled music library with the issue's song fields, served --editable."""
    server = serve_music(tmp_path)
    yield server
    server.stop()


def songs(server, album=(0, 0)):
    artist, index = album
    return yaml.safe_load(server.data.read_text())["Rows"][artist]["albums"][index]["songs"]


def changed_lines(before, after):
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new), (before, after)
    return [(a, b) for a, b in zip(old, new) if a != b]


def live(page):
    expect(page.locator("body[data-live='1']")).to_have_count(1)


# ---- The detail's Edit mode ---------------------------------------------------------------

def test_edit_a_scalar_value_done_saves_one_line_and_a_second_tab_sees_it(page, config):
    page.goto(config.url + "d/server/port")
    expect(page).to_have_url(re.compile(r"/d/1\.1$"))
    expect(page.locator("#value")).to_have_text("8080")
    other = page.context.new_page()
    other.goto(config.url + "d/1.1")
    live(other)
    page.click("#fields-edit")
    expect(page).to_have_url(re.compile(r"/d/1\.1\?edit=1$"))
    value = page.get_by_label("port")
    expect(value).to_have_value("8080")
    value.fill("9090")
    page.click("#fields-done")
    expect(page).to_have_url(re.compile(r"/d/1\.1$"))
    expect(page.locator("#value")).to_have_text("9090")
    assert changed_lines(CONFIG, config.data.read_text()) == [('    "port": 8080,', '    "port": 9090,')]
    expect(other.locator("#value")).to_have_text("9090")
    # Back leads to the level, not to the Edit form: Edit and Done replaced the history entry.
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"edit=1"))


def test_cancel_leaves_everything_as_it_was(page, config):
    page.goto(config.url + "d/1.1")
    page.click("#fields-edit")
    page.get_by_label("port").fill("1234")
    page.click("#fields-cancel")
    expect(page).to_have_url(re.compile(r"/d/1\.1$"))
    expect(page.locator("#value")).to_have_text("8080")
    assert config.data.read_text() == CONFIG


def test_an_invalid_integer_is_refused_next_to_its_field_and_nothing_is_written(page, config):
    page.goto(config.url + "d/1.1?edit=1")
    page.get_by_label("port").fill("80 80")
    page.click("#fields-done")
    error = page.locator(".field-row[data-key='value'] .field-error")
    expect(error).to_contain_text("'port' takes an integer, not '80 80'")
    expect(page.get_by_label("port")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("port")).to_be_focused()
    expect(page).to_have_url(re.compile(r"edit=1"))
    assert config.data.read_text() == CONFIG
    # Corrected, it saves; a boolean is a checkbox.
    page.get_by_label("port").fill("8081")
    page.click("#fields-done")
    expect(page.locator("#value")).to_have_text("8081")
    page.goto(config.url + "d/1.2?edit=1")
    page.get_by_label("debug").check()
    page.click("#fields-done")
    expect(page.locator("#value")).to_have_text("true")
    assert json.loads(config.data.read_text())["server"] == {"host": "localhost", "port": 8081, "debug": True}


def test_a_songs_fields_are_edited_as_one_undoable_step(page, music, shot):
    page.goto(music.url + "d/0.0.2")
    page.click("#fields-edit")
    expect(page.get_by_label("Name")).to_have_value("Blue in Green")
    expect(page.get_by_label("Name")).to_have_attribute("required", "")
    expect(page.get_by_label("length")).to_have_value("5:37")
    expect(page.locator(".field-row[data-key='Name'] .required-mark, .field-row[data-key='name'] .required-mark")).to_be_visible()
    page.get_by_label("length").fill("5:43")
    page.get_by_label("composer").fill("Bill Evans")
    page.get_by_label("genre").select_option("Jazz")
    page.get_by_label("rating").fill("9")
    page.click("#fields-done")
    expect(page.locator(".field-row[data-key='rating'] .field-error")).to_contain_text("'rating' takes an integer from 0 to 5, not '9'")
    assert songs(music)[2] == {"name": "Blue in Green", "length": 337, "track": 3}
    page.get_by_label("rating").fill("5")
    page.click("#fields-done")
    expect(page).to_have_url(re.compile(r"/d/0\.0\.2$"))
    expect(page.locator("#fields")).to_contain_text("Bill Evans")
    song = songs(music)[2]
    assert song == {"name": "Blue in Green", "length": 343, "track": 3, "composer": "Bill Evans", "genre": "Jazz", "rating": 5}
    # One step: one Undo puts every field back.
    page.click("#undo")
    expect(page.locator("#fields")).not_to_contain_text("Bill Evans")
    assert songs(music)[2] == {"name": "Blue in Green", "length": 337, "track": 3}


# ---- Add with fields ------------------------------------------------------------------------

def test_add_shows_the_kinds_fields_required_marked_and_creates_the_row(page, music):
    page.goto(music.url + "l/0.0")
    page.click("#add-button")
    dialog = page.locator("#add-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Name")).to_be_focused()
    expect(dialog.locator(".field-row[data-key='name'] .required-mark")).to_be_visible()
    expect(dialog.locator(".field-row .field-label")).to_have_text(["Name*", "Length", "Composer", "Genre", "Rating"])
    # A missing required field is named, and the dialog stays open.
    dialog.get_by_label("length").fill("6:01")
    page.click("#add-dialog-done")
    expect(dialog.locator(".field-row[data-key='name'] .field-error")).to_contain_text("'Name' is required")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Name").fill("Nardis")
    page.click("#add-dialog-done")
    expect(dialog).to_be_hidden()
    expect(page.locator("#rows .row-title").last).to_have_text("Nardis")
    assert songs(music)[-1] == {"name": "Nardis", "length": 361}


def test_without_javascript_edit_and_add_are_form_pages(browser, config, music):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(config.url + "d/1.1")
    page.click("#fields-edit")
    page.get_by_label("port").fill("abc")
    page.click("#fields-done")
    expect(page.locator(".field-row[data-key='value'] .field-error")).to_contain_text("'port' takes an integer, not 'abc'")
    expect(page.get_by_label("port")).to_have_value("abc")
    assert config.data.read_text() == CONFIG
    page.get_by_label("port").fill("9090")
    page.click("#fields-done")
    expect(page).to_have_url(re.compile(r"/d/1\.1$"))
    expect(page.locator("#value")).to_have_text("9090")
    assert changed_lines(CONFIG, config.data.read_text()) == [('    "port": 8080,', '    "port": 9090,')]
    # Cancel is a link back.
    page.click("#fields-edit")
    page.click("#fields-cancel")
    expect(page.locator("#value")).to_have_text("9090")
    # Add: the page of the kind's fields.
    page.goto(music.url + "l/0.0")
    page.click("#add-button")
    expect(page).to_have_url(re.compile(r"/add/0\.0\?"))
    page.get_by_label("length").fill("3:43")
    page.click("#add-done")
    expect(page.locator(".field-row[data-key='name'] .field-error")).to_contain_text("'Name' is required")
    expect(page.get_by_label("length")).to_have_value("3:43")
    page.get_by_label("Name").fill("Milestones")
    page.click("#add-done")
    expect(page.locator("#rows .row-title").last).to_have_text("Milestones")
    assert songs(music)[-1] == {"name": "Milestones", "length": 223}
    context.close()


# ---- The JSON API ---------------------------------------------------------------------------

def test_api_update_and_add_with_typed_and_text_values(config, music):
    api = Session(config.url)
    # Text as typed: "9090" into an integer field is the integer 9090.
    assert api.post("/api/edit/update/server/port", {"value": "9090"})[0] == 200
    assert json.loads(config.data.read_text())["server"]["port"] == 9090
    assert changed_lines(CONFIG, config.data.read_text()) == [('    "port": 8080,', '    "port": 9090,')]
    # Typed values: a number, a boolean, null.
    assert api.post("/api/edit/update/1.1", {"value": 9091})[0] == 200
    assert api.post("/api/edit/update/1.2", {"value": True})[0] == 200
    status, answer = api.post("/api/edit/update/1.1", {"value": "eighty"})
    assert (status, answer["field"]) == (400, "value") and "'port' takes an integer, not 'eighty'" in answer["error"]
    status, answer = api.post("/api/edit/update/1.1", {"value": 1.5})
    assert (status, answer.get("field")) == (400, "value")
    assert json.loads(config.data.read_text())["server"] == {"host": "localhost", "port": 9091, "debug": True}
    assert api.post("/api/edit/update/1.0", {"value": None})[0] == 200
    assert json.loads(config.data.read_text())["server"]["host"] is None
    # Nothing to change: 200, changed false.
    status, answer = api.post("/api/edit/update/1.1", {"value": 9091})
    assert status == 200 and answer["changed"] is False

    api = Session(music.url)
    song = "/api/edit/update/0.0.2"
    status, answer = api.post(song, {"attributes": {"length": 343, "composer": "9090", "rating": "4"}, "unset": ["track"]})
    assert status == 200, answer
    # "9090" stays text only in a text field (composer); "4" into an integer field is 4.
    assert songs(music)[2] == {"name": "Blue in Green", "length": 343, "composer": "9090", "rating": 4}
    assert api.post(song, {"attributes": {"length": "5:44"}})[0] == 200
    assert songs(music)[2]["length"] == 344
    for body, field in [({"attributes": {"rating": 9}}, "rating"), ({"attributes": {"genre": "Polka"}}, "genre"),
                        ({"attributes": {"length": "5:99"}}, "length"), ({"unset": ["name"]}, "name")]:
        status, answer = api.post(song, body)
        assert (status, answer.get("field")) == (400, field), (body, answer)
    assert songs(music)[2] == {"name": "Blue in Green", "length": 344, "composer": "9090", "rating": 4}
    # One step per request: undo restores the length the last update changed.
    assert api.post("/api/edit/undo")[0] == 200
    assert songs(music)[2]["length"] == 343
    # Add with attributes: the title and typed fields; a missing required field is named.
    status, answer = api.post("/api/edit/add/0.0", {"title": "So What (live)", "attributes": {"length": "3:43", "rating": 3}})
    assert status == 200 and answer["paths"] == ["0.0.5"], answer
    assert songs(music)[5] == {"name": "So What (live)", "length": 223, "rating": 3}
    status, answer = api.post("/api/edit/add/0.0", {"attributes": {"length": 100}})
    assert (status, answer.get("field")) == (400, "name"), answer
    assert len(songs(music)) == 6


# ---- Accessibility and screenshots ------------------------------------------------------------

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def music_module(tmp_path_factory):
    server = serve_music(tmp_path_factory.mktemp("fields-a11y"))
    yield server
    server.stop()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_edit_and_add_with_fields_have_no_axe_violations(browser, music_module, scheme, size):
    """axe (WCAG 2.1 A/AA) finds nothing on the detail in Edit mode (with a refused field), the
    Add dialog with fields and the Add page, at phone width and on a desktop, light and dark;
    the screens are saved as artifacts/screenshots/fields-*.png."""
    from test_accessibility import WCAG, Axe
    axe = Axe()
    context = browser.new_context(viewport=SIZES[size], color_scheme=scheme)
    page = context.new_page()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def check(name):
        result = axe.run(page, options=WCAG)
        found = [f"{v['id']}: {' '.join(n['target'])}" for v in result.response["violations"] for n in v["nodes"]]
        assert not found, f"{name} [{size}, {scheme}]: " + "\n".join(found)
        page.screenshot(path=str(SCREENSHOTS / f"fields-{name}-{size}-{scheme}.png"))

    page.goto(music_module.url + "d/0.0.2?edit=1")
    check("edit")
    page.get_by_label("rating").fill("9")
    page.click("#fields-done")
    expect(page.locator(".field-error")).to_be_visible()
    check("edit-refused")
    page.goto(music_module.url + "l/0.0")
    page.click("#add-button")
    expect(page.locator("#add-dialog")).to_be_visible()
    check("add-dialog")
    page.goto(music_module.url + "add/0.0")
    check("add-page")
    context.close()
