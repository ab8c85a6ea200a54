"""`drilldown browse` filters a level (issue 33 item 1 in the terminal UI): `f` takes the CLI's
`--where` syntax, typed by the schema's fields (a song's length as m:ss), the status line says
how many rows match and by what, a bad expression is refused with its column while the prompt
stays open, and `F` shows every row again."""
import shlex

from tui_driver import EXAMPLES, drilldown_bin

MUSIC, SCHEMA = EXAMPLES / "Music" / "library.yaml", EXAMPLES / "Music" / "schema.yaml"
SONGS = ["So What", "Freddie Freeloader", "Blue in Green", "All Blues", "Flamenco Sketches"]


def shown(t, names):
    body = "\n".join(t.lines()[2:-1])
    return [n for n in names if n in body]


def test_f_filters_a_level_by_a_typed_field(tmux_factory):
    command = " ".join(shlex.quote(str(a)) for a in [drilldown_bin(), "browse", MUSIC, "--schema", SCHEMA])
    t = tmux_factory(command, width=100, height=30)
    t.wait_for("Miles Davis")
    # At the root: artists whose name contains "davis", then open the one row left.
    t.send("f")
    t.wait_for(lambda s: "Filter (" in s.split("\n")[29], what="the filter prompt")
    t.type("title~DAVIS")
    t.send("Enter")
    t.wait_for(lambda s: "1 of 4 rows where title~DAVIS" in s, what="the filter's note")
    assert "John Coltrane" not in t.screen()
    t.send("Enter")
    t.wait_for(lambda s: s.split("\n")[1].strip() == "Music › Miles Davis", what="Miles Davis opened")
    t.send("Enter")
    t.wait_for(lambda s: "So What" in s, what="Kind of Blue's songs")
    # Songs over ten minutes, the duration written as the schema formats it.
    t.send("f")
    t.type("length>10:00")
    t.send("Enter")
    t.wait_for(lambda s: "1 of 5 rows where length>10:00" in s, what="the songs filtered")
    assert shown(t, SONGS) == ["All Blues"], t.screen()
    # The TreePath still names the song's place in the album: the fourth song.
    t.wait_for(lambda s: "0.0.3" in s.split("\n")[29], what="the data path")
    # A misspelt field: refused at its column, the prompt still open with the text.
    t.send("f")
    t.send("C-u")
    t.type("lenght>10:00")
    t.send("Enter")
    t.wait_for(lambda s: "column 1" in s and "lenght" in s.split("\n")[28], what="the error above the prompt")
    assert "Filter" in t.lines()[29]
    t.send("Escape")
    t.wait_for(lambda s: "where length>10:00" in s.split("\n")[29], what="the filter kept")
    # F: every song again.
    t.send("F")
    t.wait_for(lambda s: "Every row shown" in s, what="the filter cleared")
    assert shown(t, SONGS) == SONGS, t.screen()
