"""`drilldown browse --editable`, key `e` (issue 30, item 3): a leaf's value and a row's fields are
edited in a form, typed and checked by the core's fields (as the web app and `drilldown set` do);
checked by reading the file back. Every test works on a file in a temporary folder."""
import json
import shlex

import pytest

from tui_driver import drilldown_bin, settles

HEIGHT = 30


def command(*args):
    return " ".join(shlex.quote(str(a)) for a in [drilldown_bin(), *args])


def status(t):
    return t.lines()[HEIGHT - 1]


def wait_status(t, text):
    t.wait_for(lambda s: text in s.split("\n")[HEIGHT - 1], what=f"status line with {text!r}")


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"server": {"host": "localhost", "port": 8080}, "debug": False}, indent=2) + "\n")
    return path


@pytest.fixture
def songs(tmp_path):
    data = tmp_path / "songs.json"
    data.write_text(json.dumps({"Rows": [
        {"Title": "So What", "kind": "song", "length": 562, "composer": "Miles Davis", "rating": 4},
        {"Title": "Blue in Green", "kind": "song", "length": 337, "composer": "Bill Evans", "rating": 5},
    ]}, indent=2) + "\n")
    schema = tmp_path / "schema.yaml"
    schema.write_text("kinds:\n  song:\n    fields:\n"
                      "      - { key: length, type: duration }\n"
                      "      - { key: composer }\n"
                      "      - { key: rating, type: integer, min: 0, max: 5 }\n")
    return data, schema


def test_e_on_a_leaf_sets_its_value_keeping_the_integer_and_one_changed_line(tmux_factory, config):
    before = config.read_text().split("\n")
    t = tmux_factory(command("browse", config, "--editable"))
    t.wait_for("server")
    t.send("Enter")
    t.wait_for("port")
    t.send("Down")
    t.wait_for(lambda s: "2/2" in s.split("\n")[HEIGHT - 1])
    t.send("e")
    t.wait_for("Edit the value of “port”")
    t.send("C-u")
    t.type("9090")
    t.send("Enter")
    wait_status(t, "port = 9090")
    assert settles(lambda: json.loads(config.read_text())["server"]["port"], 9090) is True
    assert type(json.loads(config.read_text())["server"]["port"]) is int
    after = config.read_text().split("\n")
    assert len(before) == len(after)
    assert [(a, b) for a, b in zip(before, after) if a != b] == [('    "port": 8080', '    "port": 9090')]

    # An invalid integer is refused naming the field; the form stays open and nothing is written.
    written = config.read_bytes()
    t.send("e")
    t.wait_for("Edit the value of “port”")
    t.send("C-u")
    t.type("90x")
    t.send("Enter")
    screen = t.wait_for("'port' takes an integer, not '90x'")
    assert "↵ save" in screen.split("\n")[HEIGHT - 1], "the form is still open"
    t.send("Escape")
    wait_status(t, "Not changed")
    assert config.read_bytes() == written
    t.send("q")


def test_e_on_a_row_edits_its_fields_in_a_form_typed_by_the_schema(tmux_factory, songs):
    data, schema = songs
    t = tmux_factory(command("browse", data, "--schema", schema, "--editable"))
    t.wait_for("So What")
    t.send("e")
    screen = t.wait_for("Edit “So What”")
    assert "9:22" in screen, "the length is shown as a duration"
    t.send("Tab")   # length
    t.send("C-u")
    t.type("9:25")
    t.send("Tab")   # composer
    t.send("C-u")
    t.type("Bill Evans")
    t.send("Enter")
    wait_status(t, "Saved “So What”")
    row = lambda: json.loads(data.read_text())["Rows"][0]
    assert settles(lambda: (row()["length"], row()["composer"]), (565, "Bill Evans")) is True
    assert row()["rating"] == 4 and row()["Title"] == "So What"

    # Out of the field's bounds: refused naming it, nothing written.
    written = data.read_bytes()
    t.send("e")
    t.wait_for("Edit “So What”")
    t.send("BTab", "BTab")   # back from the title, past kind, to rating
    t.send("C-u")
    t.type("9")
    t.send("Enter")
    t.wait_for("'rating'")
    t.send("Escape")
    wait_status(t, "Not changed")
    assert data.read_bytes() == written

    # One step: u takes back both fields.
    t.send("u")
    wait_status(t, "Undid")
    assert settles(lambda: (row()["length"], row()["composer"]), (562, "Miles Davis")) is True
    t.send("q")
