"""`drilldown browse` shows sorted levels (issue 30 item 4): the bundled music library's artists A–Z
(schema `sort: title`, "The " ignored), in the drill-down list and the outline; selecting a row
opens that row, whose TreePath still names its place in the file."""
import shlex

from tui_driver import EXAMPLES, drilldown_bin

MUSIC, SCHEMA = EXAMPLES / "Music" / "library.yaml", EXAMPLES / "Music" / "schema.yaml"


def test_browse_lists_artists_a_to_z_and_opens_the_row_shown(tmux_factory):
    command = " ".join(shlex.quote(str(a)) for a in [drilldown_bin(), "browse", MUSIC, "--schema", SCHEMA])
    t = tmux_factory(command, width=100, height=30)
    t.wait_for("Miles Davis")
    order = ["The Dave Brubeck Quartet", "Herbie Hancock", "John Coltrane", "Miles Davis"]
    rows = [l for l in t.lines()[2:] if any(name in l for name in order)]
    assert [next(n for n in order if n in l) for l in rows] == order, t.screen()
    t.send("Enter")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Music › The Dave Brubeck Quartet", what="the first row shown opened")
    assert "Time Out" in t.screen()
    # The selected album is the Quartet's first: its TreePath names the file's order (artist 2).
    t.wait_for(lambda s: "2.0" in s.split("\n")[29], what="path 2.0 in the status bar")
    t.send("BSpace")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Music", what="back at the root")
    t.send("o")
    t.wait_for(lambda s: "Miles Davis" in s and "▸" in s or "›" in s, what="the outline")
    rows = [l for l in t.lines()[2:] if any(name in l for name in order)]
    assert [next(n for n in order if n in l) for l in rows] == order, t.screen()
