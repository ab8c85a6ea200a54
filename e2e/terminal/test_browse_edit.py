"""End-to-end tests of `drilldown browse --editable`: edits and controls in a real terminal (tmux),
checked by reading the file back with the CLI. Every test works on a copy of the examples."""
import json
import shlex
import shutil
import subprocess

import pytest

from tui_driver import EXAMPLES, drilldown_bin, settles

WIDTH, HEIGHT = 100, 30


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "Data.plist"
    shutil.copy(EXAMPLES / "Data.plist", path)
    return path


@pytest.fixture
def sounds(tmp_path):
    folder = tmp_path / "Sounds"
    shutil.copytree(EXAMPLES / "Sounds", folder)
    return folder


def command(*args):
    return " ".join(shlex.quote(str(a)) for a in [drilldown_bin(), *args])


def cli(*args):
    proc = subprocess.run([drilldown_bin(), *map(str, args)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def titles(path, at=None):
    """The titles of a level, read back from the file by `drilldown ls`."""
    out = cli("ls", path, *([at] if at else []))
    return [line.split("  ")[2].strip().rstrip("›").strip() for line in out.splitlines()[2:]]


def field(folder, path, key):
    detail = json.loads(cli("show", folder / "sounds.plist", "--schema", folder / "schema.yaml", path, "--json"))
    return next((f["value"] for f in detail["fields"] if f["key"] == key), None)


def status(t):
    return t.lines()[HEIGHT - 1]


def wait_status(t, text):
    t.wait_for(lambda s: text in s.split("\n")[HEIGHT - 1], what=f"status line with {text!r}")


def test_add_rename_delete_move_undo_saved_in_the_file(tmux_factory, data):
    t = tmux_factory(command("browse", data, "--editable"))
    t.wait_for("Item 4")
    t.send("a")
    wait_status(t, "New row title:")
    t.send("Escape")
    t.wait_for(lambda s: "New row title" not in s)
    t.send("a")
    t.send("Enter")
    wait_status(t, "Nothing added")
    assert settles(lambda: titles(data), ["Item 1", "Item 2", "Item 3", "Item 4"]) is True

    t.send("a")
    t.type("Item 5")
    t.send("Enter")
    wait_status(t, "Added “Item 5”")
    assert settles(lambda: titles(data), ["Item 1", "Item 5", "Item 2", "Item 3", "Item 4"]) is True
    assert "2/5" in status(t), "the new row is selected"

    t.send("r")
    wait_status(t, "Rename to: Item 5")
    t.send("C-u")
    t.type("Fresh")
    t.send("Enter")
    wait_status(t, "Renamed to “Fresh”")
    assert settles(lambda: titles(data), ["Item 1", "Fresh", "Item 2", "Item 3", "Item 4"]) is True

    t.send("J")
    wait_status(t, "Moved down")
    assert settles(lambda: titles(data), ["Item 1", "Item 2", "Fresh", "Item 3", "Item 4"]) is True
    assert "3/5" in status(t), "the selection follows the moved row"
    t.send("K", "K")
    t.wait_for(lambda s: "1/5" in s.split("\n")[HEIGHT - 1])
    assert settles(lambda: titles(data), ["Fresh", "Item 1", "Item 2", "Item 3", "Item 4"]) is True
    t.send("K")
    wait_status(t, "Already the first row")

    t.send("u")
    wait_status(t, "Undid")
    assert settles(lambda: titles(data), ["Item 1", "Fresh", "Item 2", "Item 3", "Item 4"]) is True
    t.send("U")
    wait_status(t, "Redid")
    assert settles(lambda: titles(data), ["Fresh", "Item 1", "Item 2", "Item 3", "Item 4"]) is True

    t.send("d")
    wait_status(t, "Delete “Fresh”? (y/n)")
    t.send("n")
    wait_status(t, "Not deleted")
    assert settles(lambda: titles(data)[0], "Fresh") is True
    t.send("Down", "d")
    wait_status(t, "Delete “Item 1” and everything below it? (y/n)")
    t.send("y")
    wait_status(t, "Deleted “Item 1”")
    assert settles(lambda: titles(data), ["Fresh", "Item 2", "Item 3", "Item 4"]) is True
    assert "Item 1" not in "\n".join(t.lines()[2:HEIGHT - 1])
    assert "2/4" in status(t), "the selection stays at the deleted row's place"
    t.send("q")


def test_switch_slider_and_play_button(tmux_factory, sounds):
    t = tmux_factory(command("browse", sounds / "sounds.plist", "--schema", sounds / "schema.yaml", "--editable"), cwd=sounds)
    t.wait_for("Sounds")
    t.send("Enter")
    t.wait_for("Vibrate on Ring")
    assert settles(lambda: field(sounds, "0.0", "enabled"), "true") is True
    t.send("Space")
    wait_status(t, "enabled = false")
    assert settles(lambda: field(sounds, "0.0", "enabled"), "false") is True
    assert "1/5" in status(t)

    t.send("Down", "Down")
    t.wait_for(lambda s: "3/5" in s.split("\n")[HEIGHT - 1])
    t.send("+")
    wait_status(t, "volume = 65")
    assert settles(lambda: field(sounds, "0.2", "volume"), "65") is True
    t.send("-", "-")
    wait_status(t, "volume = 55")
    assert settles(lambda: field(sounds, "0.2", "volume"), "55") is True

    t.send("Down")
    t.wait_for(lambda s: "4/5" in s.split("\n")[HEIGHT - 1])
    t.send("Enter")
    wait_status(t, "Ran Play")
    assert settles(lambda: field(sounds, "0.3", "plays"), "1") is True
    t.send("1")
    t.wait_for(lambda s: "Ran Play" in s.split("\n")[HEIGHT - 1])
    t.send("2")
    wait_status(t, "Ran Ping")
    assert settles(lambda: field(sounds, "0.3", "plays"), "2") is True
    assert settles(lambda: field(sounds, "0.3", "lastPinged") is not None, True) is True
    t.send("i")
    t.wait_for("↵/1 Play  2 Ping")
    t.send("q")


def test_external_change_appears_while_open(tmux_factory, data):
    t = tmux_factory(command("browse", data, "--editable"))
    t.wait_for("Item 4")
    t.send("End")
    t.wait_for(lambda s: "4/4" in s.split("\n")[HEIGHT - 1])
    cli("set", data, "1", "--title", "Changed Elsewhere")
    t.wait_for("Changed Elsewhere", timeout=2.5)
    assert "4/4" in status(t), "the selection is kept"
    t.send("a")
    t.type("After Reload")
    t.send("Enter")
    wait_status(t, "Added “After Reload”")
    assert settles(lambda: titles(data), ["Item 1", "Changed Elsewhere", "Item 3", "Item 4", "After Reload"]) is True


def test_external_change_appears_read_only(tmux_factory, data):
    t = tmux_factory(command("browse", data))
    t.wait_for("Item 4")
    cli("set", data, "0", "--title", "First Renamed")
    t.wait_for("First Renamed", timeout=2.5)


def test_without_editable_edit_keys_say_read_only(tmux_factory, data):
    before = data.read_bytes()
    t = tmux_factory(command("browse", data))
    t.wait_for("Item 4")
    for key in ["a", "r", "d", "J", "u"]:
        t.send(key)
        wait_status(t, "read-only: start with --editable")
        t.send("Down")
        t.wait_for(lambda s: "read-only" not in s.split("\n")[HEIGHT - 1])
    assert data.read_bytes() == before


def test_sqlite_tree_table_edits_and_external_changes(tmux_factory, data, tmp_path):
    db = tmp_path / "data.sqlite"
    cli("convert", data, db)
    t = tmux_factory(command("browse", db, "--editable"))
    t.wait_for("Item 4")
    t.send("a")
    t.type("In the Table")
    t.send("Enter")
    wait_status(t, "Added “In the Table”")
    assert settles(lambda: titles(db), ["Item 1", "In the Table", "Item 2", "Item 3", "Item 4"]) is True
    cli("set", db, "3", "--title", "Set Elsewhere", "--user", "bob")
    t.wait_for("Set Elsewhere", timeout=2.5)
    assert "2/5" in status(t)
    # Undo is per user, read from the history (as in the web app): u takes back the terminal
    # user's own add, and the other user's change stays.
    t.send("u")
    wait_status(t, "Undid Addition of In the Table")
    assert settles(lambda: titles(db), ["Item 1", "Item 2", "Set Elsewhere", "Item 4"]) is True
