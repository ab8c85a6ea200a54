"""`drilldown browse music.sqlite --editable` (issue 10, item 3): adding and renaming rows in the
terminal UI writes the relational music example's tables, row by row."""
import shlex
import shutil
import sqlite3

import pytest

from tui_driver import EXAMPLES, drilldown_bin, settles

HEIGHT = 30


@pytest.fixture
def music(tmp_path):
    for name in ("music.sqlite", "music.schema.yaml"):
        shutil.copy(EXAMPLES / "Music" / name, tmp_path / name)
    return tmp_path / "music.sqlite"


def query(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


def test_add_and_rename_write_the_tables(tmux_factory, music):
    t = tmux_factory(" ".join(shlex.quote(str(a)) for a in [drilldown_bin(), "browse", music, "--editable"]))
    t.wait_for("Herbie Hancock")
    t.send("Enter")
    t.wait_for("Sketches of Spain")
    t.send("Enter")
    t.wait_for("Flamenco Sketches")
    # Add after the first song: lands at track 2, the songs after it renumbered.
    t.send("a")
    t.wait_for("New row title:")
    t.type("Nardis")
    t.send("Enter")
    t.wait_for(lambda s: "Added “Nardis”" in s.split("\n")[HEIGHT - 1])
    songs = "SELECT name, track FROM songs WHERE album_id = 1 ORDER BY track"
    assert settles(lambda: query(music, songs)[:3], [("So What", 1), ("Nardis", 2), ("Freddie Freeloader", 3)]) is True
    assert query(music, "SELECT length, plays FROM songs WHERE name = 'Nardis'") == [(0, 0)], "the schema's defaults"
    # Rename it, then the album above.
    t.send("r")
    t.wait_for("Rename to: Nardis")
    t.send("C-u")
    t.type("Nardis (take 2)")
    t.send("Enter")
    t.wait_for(lambda s: "Renamed to “Nardis (take 2)”" in s.split("\n")[HEIGHT - 1])
    assert settles(lambda: query(music, "SELECT track FROM songs WHERE name = 'Nardis (take 2)'"), [(2,)]) is True
    t.send("BSpace")
    t.wait_for("Sketches of Spain")
    t.send("r")
    t.wait_for("Rename to: Kind of Blue")
    t.send("C-u")
    t.type("Kind of Blue (Legacy)")
    t.send("Enter")
    t.wait_for(lambda s: "Renamed to “Kind of Blue (Legacy)”" in s.split("\n")[HEIGHT - 1])
    assert settles(lambda: query(music, "SELECT title FROM albums WHERE id = 1"), [("Kind of Blue (Legacy)",)]) is True
    # Undo takes the rename back in the table.
    t.send("u")
    t.wait_for("Undid")
    assert settles(lambda: query(music, "SELECT title FROM albums WHERE id = 1"), [("Kind of Blue",)]) is True
    t.send("q")


def test_e_edits_a_songs_columns_and_a_not_null_refusal_names_the_column(tmux_factory, music):
    t = tmux_factory(" ".join(shlex.quote(str(a)) for a in [drilldown_bin(), "browse", music, "--editable"]))
    t.wait_for("Herbie Hancock")
    t.send("Enter")
    t.wait_for("Sketches of Spain")
    t.send("Enter")
    t.wait_for("Flamenco Sketches")
    t.send("e")
    screen = t.wait_for("Edit “So What”")
    assert "9:22" in screen and "duration" in screen, "the length column is a duration field"
    lines = screen.split("\n")
    length = next(i for i, l in enumerate(lines) if l.startswith(" Length"))
    plays = next(i for i, l in enumerate(lines) if l.startswith(" Plays"))
    title = next(i for i, l in enumerate(lines) if l.startswith(" Name"))  # the title column's field, labelled by it
    t.send(*["Tab"] * (length - title))
    t.send("C-u")
    t.type("9:30")
    t.send("Enter")
    t.wait_for(lambda s: "Saved “So What”" in s.split("\n")[HEIGHT - 1])
    assert settles(lambda: query(music, "SELECT length FROM songs WHERE name = 'So What'"), [(570,)]) is True
    # Clearing a NOT NULL column: the store refuses naming it, and the form stays open on it.
    t.send("e")
    t.wait_for("Edit “So What”")
    t.send(*["Tab"] * (plays - title))
    t.send("C-u", "Enter")
    t.wait_for("column 'plays'")
    t.wait_for(lambda s: "↵ save" in s.split("\n")[HEIGHT - 1], what="the form still open")
    t.send("Escape")
    assert query(music, "SELECT plays FROM songs WHERE name = 'So What'") == [(0,)]

