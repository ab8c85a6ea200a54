"""`drilldown browse` on a text value that holds JSON (issue 33, item 3): its row drills (›), its
members are rows, and `e` on a value inside rewrites the text value as compact JSON."""
import json
import shlex

from tui_driver import drilldown_bin, settles

HEIGHT = 30


def command(*args):
    return " ".join(shlex.quote(str(a)) for a in [drilldown_bin(), *args])


def test_a_json_text_value_drills_and_a_value_inside_is_edited(tmux_factory, tmp_path):
    path = tmp_path / "service.json"
    path.write_text(json.dumps({"name": "svc", "config": json.dumps({"port": 8080, "tags": ["a"]}), "notes": "[x"}, indent=2) + "\n")
    t = tmux_factory(command("browse", path, "--editable"))
    screen = t.wait_for("config")
    config = next(line for line in screen.split("\n") if line.startswith(" config"))
    notes = next(line for line in screen.split("\n") if line.startswith(" notes"))
    assert config.rstrip().endswith("›") and not notes.rstrip().endswith("›")
    t.send("Down")
    t.wait_for(lambda s: "2/3" in s.split("\n")[HEIGHT - 1], what="the config row selected")
    t.send("Enter")
    t.wait_for("port")
    t.wait_for("tags")
    t.send("e")
    t.wait_for("Edit the value of “port”")
    t.send("C-u")
    t.type("9090")
    t.send("Enter")
    assert settles(lambda: json.loads(path.read_text())["config"], '{"port":9090,"tags":["a"]}') is True
    t.send("q")
