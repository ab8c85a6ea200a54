"""The lazy JSON index in the terminal UI: a generated outline (Scripts/gen-outline.py, 300 x 200 rows,
never committed) browsed with `--index lazy` in tmux: the first screen, drilling down, search; a syntax
error in a level read late shows no rows and the command exits 1 with the line and column; `stats`
says the file is indexed lazily and what it counted."""
import json
import shlex
import subprocess
import sys

import pytest

from tui_driver import ROOT, drilldown_bin


@pytest.fixture(scope="module")
def outline(tmp_path_factory):
    path = tmp_path_factory.mktemp("lazy") / "outline.json"
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-outline.py"), "--groups", "300", "--rows", "200", str(path)],
                   check=True, capture_output=True)
    return path


def browse(*args):
    return " ".join(shlex.quote(str(a)) for a in [drilldown_bin(), "browse", *args])


def test_first_screen_drill_down_and_search(tmux_factory, outline):
    t = tmux_factory(browse(outline, "--index", "lazy"), width=100, height=30)
    t.wait_for("Group 0")
    # Rows end in a chevron and the scroll bar (the level has 300 rows).
    assert [l.strip().rstrip("┃│").rstrip().rstrip("›").strip() for l in t.lines()[2:5]] == ["Group 0", "Group 1", "Group 2"]
    t.send("j", "j", "Enter")
    t.wait_for("Row 2.0")
    assert "Group 2" in t.lines()[1]
    t.send("BSpace")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Root")
    t.send("/")
    t.type("Row 250.7")
    t.send("Enter")
    t.wait_for("Row 250.7", timeout=30)


def test_a_syntax_error_in_a_level_read_late_empties_it_and_exits_1(tmux_factory, tmp_path):
    path = tmp_path / "damaged.json"
    path.write_text('{"Rows": [\n  {"Title": "Good", "Children": [{"Title": "Leaf"}]},\n'
                    '  {"Title": "Bad", "Children": [\n    {"Title": tru}\n  ]}\n]}\n')
    status = tmp_path / "status"
    t = tmux_factory(f"{browse(path, '--index', 'lazy')} 2>{shlex.quote(str(tmp_path / 'err'))}; echo $? > {shlex.quote(str(status))}; sleep 30",
                     width=100, height=30)
    t.wait_for("Bad")
    t.send("j", "Enter")
    t.wait_for(lambda s: "Bad" in s.split("\n")[1])
    t.send("q")
    t.wait_for(lambda _: status.exists() and status.read_text().strip() != "", what="the exit status")
    assert status.read_text().strip() == "1"
    assert "damaged.json:4:15: error: invalid literal" in (tmp_path / "err").read_text()


def test_stats_says_lazy_and_what_it_counted(outline):
    proc = subprocess.run([drilldown_bin(), "stats", str(outline), "--index", "lazy", "--json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout)
    assert stats["indexing"] == "lazy" and stats["topLevelRows"] == 300 and stats["mode"] == "outline"
    assert stats["search"] == "walk"
    text = subprocess.run([drilldown_bin(), "stats", str(outline), "--index", "lazy"], capture_output=True, text=True, timeout=60).stdout
    assert "indexing      lazy" in text and "300 rows" in text
