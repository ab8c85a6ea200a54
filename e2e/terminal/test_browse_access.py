"""`drilldown browse --user NAME --users FILE` (issue 32, item 2) in a real terminal (tmux): a grant on one
subtree allows edits there and refuses them elsewhere, and a subtree hidden from the user is not listed,
counted, searched, shown in the outline or reached by Go to. Users are made with the real
`drilldown user add`; edits are checked by reading the file back."""
import shlex
import subprocess

import pytest

from tui_driver import drilldown_bin, settles

WIDTH, HEIGHT = 100, 30
DATA = """\
Rock:
  Queen: Bohemian Rhapsody
  Muse: Uprising
Jazz:
  Miles: So What
  Coltrane: Giant Steps
Pop:
  Abba: Waterloo
"""


def run(*args, stdin=None):
    proc = subprocess.run([drilldown_bin(), *map(str, args)], input=stdin, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture
def files(tmp_path):
    (tmp_path / "data.yaml").write_text(DATA)
    users = tmp_path / "users.yaml"
    run("user", "add", users, "rocky", "--role", "viewer", stdin="pw-rocky-correct\n")
    run("user", "add", users, "nojazz", "--role", "editor", stdin="pw-nojazz-correct\n")
    text = users.read_text()
    users.write_text(text.replace("grants: []", 'grants:\n  - { user: rocky, path: "Rock", role: editor }\n'
                                  '  - { user: nojazz, path: "Jazz", role: none }'))
    return tmp_path


def command(files, user):
    args = [drilldown_bin(), "browse", files / "data.yaml", "--editable", "--user", user, "--users", files / "users.yaml"]
    return " ".join(shlex.quote(str(a)) for a in args)


def titles(files, at):
    out = run("ls", files / "data.yaml", at)
    return [line.split("  ")[2].strip().rstrip("›").strip() for line in out.splitlines()[2:]]


def status(t):
    return t.lines()[HEIGHT - 1]


def test_a_grant_on_one_subtree_allows_edits_there_and_refuses_them_elsewhere(tmux_factory, files):
    t = tmux_factory(command(files, "rocky"), width=WIDTH, height=HEIGHT)
    t.wait_for("Jazz")
    t.send("Enter")                       # into Rock
    t.wait_for("Queen")
    t.send("r")
    t.wait_for(lambda s: "Rename to: Queen" in s.split("\n")[HEIGHT - 1])
    t.send("C-u")
    t.type("Queen II")
    t.send("Enter")
    t.wait_for(lambda s: "Renamed to “Queen II”" in s.split("\n")[HEIGHT - 1])
    assert settles(lambda: titles(files, "Rock"), ["Queen II", "Muse"]) is True
    t.send("BSpace")
    t.wait_for(lambda s: "1/3" in s.split("\n")[HEIGHT - 1])
    t.send("Down", "Enter")               # into Jazz
    t.wait_for("Coltrane")
    t.send("r")
    t.wait_for(lambda s: "Rename to: Miles" in s.split("\n")[HEIGHT - 1])
    t.send("C-u")
    t.type("Stolen")
    t.send("Enter")
    t.wait_for(lambda s: "rocky is a viewer at 'Jazz/Miles'" in s.split("\n")[HEIGHT - 1])
    assert settles(lambda: titles(files, "Jazz"), ["Miles", "Coltrane"]) is True
    t.send("q")


def test_a_hidden_subtree_is_not_listed_counted_searched_outlined_or_reached(tmux_factory, files):
    t = tmux_factory(command(files, "nojazz"), width=WIDTH, height=HEIGHT)
    s = t.wait_for("Pop")
    assert "Jazz" not in s and "1/2" in s.split("\n")[HEIGHT - 1]
    t.send("/")
    t.type("miles")
    t.wait_for("no match")
    t.send("C-u")
    t.type("queen")
    t.wait_for("1 match")
    t.send("Escape")
    t.wait_for(lambda s: "match" not in s.split("\n")[HEIGHT - 1])
    t.send(":")
    t.type("1.0")
    t.send("Enter")
    t.wait_for("nothing at '1.0' that nojazz may see")
    t.send(":")
    t.type("Jazz")
    t.send("Enter")
    t.wait_for("nothing at 'Jazz' that nojazz may see")
    t.send("o")
    t.wait_for("[outline]")
    t.send("E")
    s = t.wait_for("Abba")
    assert "Queen" in s and "Muse" in s and "Jazz" not in s and "Miles" not in s and "Coltrane" not in s
    t.send("End")
    t.wait_for(lambda s: "5/5" in s.split("\n")[HEIGHT - 1])
    t.send("q")
