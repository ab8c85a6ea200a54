"""`drilldown browse --editable` records its edits in the data set's audit history (issue 32), through
the same model as the web app: a rename made in a real terminal (tmux) is listed by `drilldown history
FILE` with its author (`--user`, else the operating system's user), and `u` undoes only the user's own
changes, not a change another user made since."""
import getpass
import json
import shlex
import shutil
import subprocess

import pytest

from tui_driver import EXAMPLES, drilldown_bin, settles

WIDTH, HEIGHT = 100, 30


def run(*args, stdin=None):
    proc = subprocess.run([drilldown_bin(), *map(str, args)], input=stdin, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "Data.plist"
    shutil.copy(EXAMPLES / "Data.plist", path)
    return path


def command(*args):
    return " ".join(shlex.quote(str(a)) for a in [drilldown_bin(), *args])


def titles(path):
    return [r["title"] for r in json.loads(run("ls", path, "--json"))["rows"]]


def entries(path):
    return json.loads(run("history", path, "--json"))["entries"]


def wait_status(t, text):
    t.wait_for(lambda s: text in s.split("\n")[HEIGHT - 1], what=f"status line with {text!r}")


def rename(t, title):
    t.send("r")
    wait_status(t, "Rename to:")
    t.send("C-u")
    t.type(title)
    t.send("Enter")
    wait_status(t, f"Renamed to “{title}”")


def test_a_rename_in_the_terminal_is_in_the_history_with_its_author(tmux_factory, data):
    t = tmux_factory(command("browse", data, "--editable"), width=WIDTH, height=HEIGHT)
    t.wait_for("Item 4")
    rename(t, "Chime")
    t.send("q")
    t.wait_for(lambda _: t.pane_dead(), what="browse to quit")
    assert titles(data)[0] == "Chime"
    history = entries(data)
    assert len(history) == 1
    entry = history[0]
    assert entry["user"] == getpass.getuser()  # no --user: the operating system's user, as the CLI's edits
    assert entry["kind"] == "change"
    assert entry["differences"] == [{"path": "0", "field": "title", "old": "Item 1", "new": "Chime"}]
    assert "'Item 1' → 'Chime'" in run("history", data)


def test_undo_in_the_terminal_takes_back_only_the_users_own_change(tmux_factory, data, tmp_path):
    users = tmp_path / "users.yaml"
    run("user", "add", users, "ana", "--role", "editor", stdin="pw-ana-correct\n")
    t = tmux_factory(command("browse", data, "--editable", "--user", "ana", "--users", users), width=WIDTH, height=HEIGHT)
    t.wait_for("Item 4")
    rename(t, "Ana's")
    assert settles(lambda: [e["user"] for e in entries(data)], ["ana"]) is True
    # Another user changes another row from the command line, while the terminal is open.
    run("set", data, "2", "--title", "Bob's", "--user", "bob")
    t.wait_for("Bob's", what="the other user's change shown")
    t.send("u")
    wait_status(t, "Undid")
    assert settles(lambda: titles(data), ["Item 1", "Item 2", "Bob's", "Item 4"]) is True
    newest = entries(data)[0]
    assert newest["user"] == "ana" and newest["kind"] == "undo"
    # Nothing more of ana's to undo: bob's change stays.
    t.send("u")
    wait_status(t, "Nothing to undo")
    assert titles(data) == ["Item 1", "Item 2", "Bob's", "Item 4"]
    t.send("q")
