"""End-to-end tests of `drilldown browse`: the real binary in a real terminal (tmux)."""
import os
import shlex
import signal
import subprocess
import time

import pytest

from tui_driver import EXAMPLES, drilldown_bin

SEED = EXAMPLES / "Data.plist"


def browse_command(*args):
    return " ".join(shlex.quote(str(a)) for a in [drilldown_bin(), "browse", *args])


def title_bar(t):
    return t.lines()[0]


def breadcrumbs(t):
    return t.lines()[1].strip()


def status(t, height):
    return t.lines()[height - 1]


def test_seed_path_to_screen_j_and_back(tmux_factory):
    t = tmux_factory(browse_command(SEED), width=100, height=30)
    t.wait_for("Item 4")
    lines = t.lines()
    assert lines[0].strip() == "Root"
    assert lines[1].strip() == "Root"
    assert [l.strip().rstrip("›").strip() for l in lines[2:6]] == ["Item 1", "Item 2", "Item 3", "Item 4"]
    # The window is 100 columns wide and the program uses all of them: chevrons sit in column 99.
    assert all(len(l.rstrip()) == 99 and l[98] == "›" for l in lines[2:6])
    t.send("End")
    t.wait_for(lambda s: "4/4" in s.split("\n")[29])
    chain = ["Root"]
    for title in ["Item 4", "Screen G", "Screen H", "Screen I"]:
        t.send("Enter")
        chain.append(title)
        t.wait_for(lambda s: s.split("\n")[1].strip() == " › ".join(chain), what=" › ".join(chain))
        bar = title_bar(t)
        assert title in bar
        assert f"‹ {chain[-2]}" in bar
    assert "Screen J" in t.lines()[2]
    t.send("Enter")  # Screen J has no children: its detail view
    full = "Root › Item 4 › Screen G › Screen H › Screen I › Screen J"
    t.wait_for(lambda s: s.split("\n")[1].strip() == full, what="Screen J's detail")
    assert "Screen J" in title_bar(t) and "‹ Screen I" in title_bar(t)
    assert "3.0.0.0.0" in status(t, 30)
    for _ in range(5):
        t.send("BSpace")
        chain_now = chain.copy()
        t.wait_for(lambda s: s.split("\n")[1].strip() == " › ".join(chain_now), what=" › ".join(chain_now))
        assert chain_now[-1] in title_bar(t)
        chain.pop()
    assert breadcrumbs(t) == "Root"
    assert title_bar(t).strip() == "Root"
    assert "4/4" in status(t, 30)  # the selection on Item 4 was restored


def test_arrow_and_vi_keys(tmux_factory):
    t = tmux_factory(browse_command(SEED), width=60, height=12)
    t.wait_for("Item 4")
    t.send("j", "j", "l")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Root › Item 3")
    t.send("Left", "Down", "Right")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Root › Item 4")
    t.send("h", "G")
    t.wait_for(lambda s: "4/4" in s.split("\n")[11])
    t.send("g")
    t.wait_for(lambda s: "1/4" in s.split("\n")[11])


def test_outline_expand_and_collapse(tmux_factory):
    t = tmux_factory(browse_command(SEED), width=80, height=24)
    t.wait_for("Item 4")
    t.send("o")
    t.wait_for("[outline]")
    t.wait_for("▸ Item 1")
    t.send("End", "Space")
    s = t.wait_for("▾ Item 4")
    assert "  ▸ Screen G" in s.split("\n")[6]
    t.send("Down", "Right")
    s = t.wait_for("▸ Screen H")
    assert s.split("\n")[7].startswith("     ▸ Screen H")
    t.send("E")
    s = t.wait_for("Screen J")
    assert "Screen A" in s and "Screen F" in s
    assert "14/14" not in s  # the cursor stayed on Screen G
    t.send("End")
    t.wait_for(lambda s: "14/14" in s and "3.0.0.0.0" in s)
    t.send("C")
    s = t.wait_for(lambda s: "Screen J" not in s and "▸ Item 4" in s)
    assert "4/4" in s.split("\n")[23]
    t.send("Left")  # collapsing a collapsed top-level row keeps it where it is
    t.send("o")
    t.wait_for(lambda s: "[outline]" not in s)


def test_search_as_you_type_and_jump(tmux_factory):
    t = tmux_factory(browse_command(SEED), width=80, height=24)
    t.wait_for("Item 4")
    t.send("/")
    t.type("screen")
    s = t.wait_for("10 matches")
    assert "/screen" in s.split("\n")[23]
    assert "Screen A" in s and "Item 1" in s
    t.type(" j")
    t.wait_for("1 match")
    t.send("Enter")
    t.wait_for(lambda s: s.split("\n")[1].strip().endswith("Screen I › Screen J"))
    t.send("/")
    t.type("item")
    t.wait_for("4 matches")
    t.send("Down", "Enter")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Root › Item 2")
    t.send("n")
    t.wait_for("Match 3/4")
    assert t.lines()[1].strip() == "Root"
    t.send("/")
    t.type("nothing like this")
    t.wait_for("no match")
    t.send("Escape")
    t.wait_for(lambda s: "no match" not in s and "Match" not in s)


def test_go_to_path_and_copy(tmux_factory):
    t = tmux_factory(browse_command(SEED), width=90, height=20)
    t.wait_for("Item 4")
    t.send(":")
    t.type("3.0.0")
    t.send("Enter")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Root › Item 4 › Screen G › Screen H")
    t.send(":")
    t.type("Item 2/Screen B")
    t.send("Enter")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Root › Item 2 › Screen B")
    t.send("y")
    t.wait_for("Path 1.0.0 · Item 2/Screen B/Screen C")
    t.send(":")
    t.type("7.7")
    t.send("Enter")
    t.wait_for("no node at TreePath 7.7")


def test_columns_mode(tmux_factory):
    t = tmux_factory(browse_command(SEED), width=120, height=20)
    t.wait_for("Item 4")
    t.send("End", "Enter", "c")
    s = t.wait_for("[columns]")
    row = s.split("\n")[2]
    assert "Item 1" in row and "Screen G" in row and "Screen H" in row
    assert row.count("│") == 2


def test_resize_redraws(tmux_factory):
    t = tmux_factory(browse_command(SEED), width=100, height=30)
    t.wait_for("Item 4")
    t.send("End")
    t.wait_for("4/4")
    t.resize(40, 10)
    s = t.wait_for(lambda s: len(s.split("\n")) >= 10 and "4/4" in s.split("\n")[9] and s.split("\n")[0].strip() == "Root",
                   what="a 40x10 frame")
    lines = s.split("\n")
    assert lines[0].strip() == "Root"
    assert lines[5].rstrip().endswith("›") and len(lines[5]) <= 40
    t.resize(300, 100)
    s = t.wait_for(lambda s: len(s.split("\n")) >= 100 and "4/4" in s.split("\n")[99] and len(s.split("\n")[2]) > 290,
                   what="a 300x100 frame")
    assert s.split("\n")[2][298] == "›"


def test_unicode_titles_line_up(tmux_factory):
    t = tmux_factory(browse_command(EXAMPLES / "Planets" / "planets.json"), width=70, height=16)
    t.wait_for("Earth")
    t.send("/")
    t.type("tokyo")
    t.wait_for("1 match")
    t.send("Enter")
    s = t.wait_for("東京 Tokyo")
    t.send("BSpace")
    s = t.wait_for(lambda s: "大阪 Osaka" in s and "‹" in s.split("\n")[0])
    rows = [l for l in s.split("\n")[2:] if "Tokyo" in l or "Osaka" in l]
    assert len(rows) == 2
    # Wide characters take two cells, so both rows end at the same column (tmux shows them as one char).
    assert len({len(r.rstrip()) for r in rows}) == 1


def test_no_color_is_honoured(tmux_factory):
    for no_color, expect_red in [("1", False), (None, True)]:
        env = {"NO_COLOR": no_color} if no_color else {}
        t = tmux_factory(browse_command(SEED), width=80, height=12, env=env)
        if not no_color:
            t.tmux("set-environment", "-t", "app", "-u", "NO_COLOR", check=False)
        t.wait_for("Item 4")
        t.send(":")
        t.type("9")
        t.send("Enter")
        t.wait_for("no node")
        colored = "\x1b[31m" in t.screen(escapes=True) or ";31m" in t.screen(escapes=True)
        assert colored == expect_red


def shell_session(tmux_factory, width=80, height=20):
    t = tmux_factory("env PS1='READY$ ' bash --norc --noprofile", width=width, height=height)
    t.wait_for("READY$")
    return t


def assert_terminal_restored(t, tmp_path):
    t.wait_for(lambda s: s.rstrip().endswith("READY$"), what="the shell prompt")
    assert "Item 4" not in t.screen(), "the alternate screen was left"
    modes = tmp_path / "stty.txt"
    t.type(f"stty -a > {modes}")
    t.send("Enter")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (modes.exists() and modes.read_text().strip()):
        time.sleep(0.05)
    words = modes.read_text().replace(";", " ").split()
    assert "icanon" in words and "echo" in words and "isig" in words and "icrnl" in words
    assert "-icanon" not in words and "-echo" not in words


@pytest.mark.parametrize("how", ["q", "C-c"])
def test_quitting_restores_the_terminal(tmux_factory, how, tmp_path):
    t = shell_session(tmux_factory)
    t.type(browse_command(SEED))
    t.send("Enter")
    t.wait_for("Item 4")
    t.send(how)
    assert_terminal_restored(t, tmp_path)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGSEGV, signal.SIGABRT])
def test_signals_and_crashes_restore_the_terminal(tmux_factory, tmp_path, sig):
    t = shell_session(tmux_factory)
    t.type(browse_command(SEED))
    t.send("Enter")
    t.wait_for("Item 4")
    shell = t.pane_pid()
    children = subprocess.run(["pgrep", "-P", str(shell)], capture_output=True, text=True).stdout.split()
    assert len(children) == 1
    os.kill(int(children[0]), sig)
    assert_terminal_restored(t, tmp_path)


def test_needs_a_terminal():
    proc = subprocess.run([drilldown_bin(), "browse", str(SEED)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "needs a terminal" in proc.stderr and "drilldown tree" in proc.stderr


def test_ctrl_z_suspends_and_fg_resumes(tmux_factory, tmp_path):
    t = shell_session(tmux_factory)
    t.type(browse_command(SEED))
    t.send("Enter")
    t.wait_for("Item 4")
    t.send("End")
    t.wait_for("4/4")
    t.send("C-z")
    t.wait_for("Stopped")
    t.wait_for(lambda s: s.rstrip().endswith("READY$"), what="the shell prompt")
    t.type("fg")
    t.send("Enter")
    t.wait_for(lambda s: "4/4" in s and s.split("\n")[0].strip() == "Root", what="the browser redrawn with its selection")
    t.send("q")
    assert_terminal_restored(t, tmp_path)
