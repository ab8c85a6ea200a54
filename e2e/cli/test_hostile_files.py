"""Issue 9, items 15, 16 and 18 end to end: the real binary on files that are not what they seem
(read-only, another user's, symlinked, hard-linked, FIFOs), on titles holding terminal escape
sequences (printed to a pseudo-terminal and to a pipe), and on loose paths and actions.

Decisions these tests pin down:
- a file with no write bit (chmod 444) is refused for every user, root included: the user made it
  read-only, and a rename would silently replace it; `chmod u+w` first;
- a file the user may not write (access(W_OK)) is refused, though its folder would allow a rename;
- a symbolic link is written through: its final target is replaced, the link stays a link;
- a file with several hard links is refused (a rename would split them, writing in place is not atomic);
- the new file keeps the old one's mode, owner and group;
- FIFOs, sockets and devices are refused, when reading and when writing, without blocking.
"""
import json
import os
import pty
import select
import shutil
import stat
import subprocess
import tempfile

import pytest

from conftest import EXAMPLES, drilldown_bin

DOC = {"Title": "Root", "Rows": [{"Title": "Item 1"}, {"Title": "Item 2", "Children": [{"Title": "Inner"}]}]}


def write_doc(path, doc=DOC):
    path.write_text(json.dumps(doc))
    return path


def snapshot(path):
    st = os.lstat(path)
    return path.read_bytes(), st.st_ino, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


# --- item 15: what the file is -------------------------------------------------------------


def test_a_read_only_file_is_refused_and_left_untouched(drilldown, tmp_path):
    f = write_doc(tmp_path / "f.json")
    f.chmod(0o444)
    before = snapshot(f)
    proc = drilldown("set", f, "0", "x=1", check=1)
    assert "read-only" in proc.stderr and "chmod u+w" in proc.stderr, proc.stderr
    assert snapshot(f) == before


def test_a_symlink_is_written_through_to_its_target(drilldown, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    target = write_doc(real / "t.json")
    link = tmp_path / "link.json"
    link.symlink_to("real/t.json")
    drilldown("set", link, "0", "plays=3", check=0)
    assert link.is_symlink() and os.readlink(link) == "real/t.json", "the link stays a link"
    assert json.loads(target.read_text())["Rows"][0]["plays"] == 3, "the target holds the change"
    assert sorted(p.name for p in real.iterdir()) == ["t.json"], "no temporary file left behind"


def test_a_dangling_symlink_is_refused(drilldown, tmp_path):
    src = write_doc(tmp_path / "src.json")
    link = tmp_path / "out.json"
    link.symlink_to("missing/nowhere.json")
    proc = drilldown("convert", src, link, check=1)
    assert "symbolic link" in proc.stderr, proc.stderr
    assert link.is_symlink()


def test_hard_links_are_not_split(drilldown, tmp_path):
    f = write_doc(tmp_path / "f.json")
    g = tmp_path / "g.json"
    os.link(f, g)
    before = snapshot(f)
    proc = drilldown("set", f, "0", "x=1", check=1)
    assert "2 hard links" in proc.stderr, proc.stderr
    assert snapshot(f) == before and os.stat(g).st_ino == before[1]


def test_mode_and_owner_are_kept(drilldown, tmp_path):
    f = write_doc(tmp_path / "f.json")
    f.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(f, 65534, 65534)
    owner = os.stat(f).st_uid, os.stat(f).st_gid
    drilldown("set", f, "0", "x=1", check=0)
    st = os.stat(f)
    assert stat.S_IMODE(st.st_mode) == 0o640
    assert (st.st_uid, st.st_gid) == owner
    assert json.loads(f.read_text())["Rows"][0]["x"] == 1


@pytest.mark.parametrize("command", [["ls"], ["tree"], ["show", "0"], ["set", "0", "x=1"], ["stats"]])
def test_a_fifo_is_refused_without_blocking(drilldown, tmp_path, command):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    proc = drilldown(command[0], fifo, *command[1:], check=1, timeout=10)
    assert "FIFO" in proc.stderr and "not a regular file" in proc.stderr, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("name", ["out.json", "out.db"])
def test_convert_refuses_a_fifo_as_output(drilldown, tmp_path, name):
    src = write_doc(tmp_path / "src.json")
    fifo = tmp_path / name
    os.mkfifo(fifo)
    proc = drilldown("convert", src, fifo, check=1, timeout=10)
    assert "not a regular file" in proc.stderr, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def as_nobody():
    """A command prefix that runs as the unprivileged user `nobody`, or None when that is impossible."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


def test_another_users_file_is_refused_for_a_normal_user(tmp_path_factory):
    prefix = as_nobody()
    if prefix is None:
        pytest.skip("needs root and setpriv to act as another user")
    # A folder anyone may write (so a temp file + rename would succeed), holding root's file.
    d = tempfile.mkdtemp(prefix="dd-perm-")
    try:
        os.chmod(d, 0o777)
        f = os.path.join(d, "f.json")
        with open(f, "w") as out:
            json.dump(DOC, out)
        os.chmod(f, 0o644)
        before = open(f, "rb").read(), os.stat(f).st_ino, os.stat(f).st_uid
        proc = subprocess.run(prefix + [drilldown_bin(), "set", f, "0", "x=1"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "may not write" in proc.stderr, proc.stderr
        assert (open(f, "rb").read(), os.stat(f).st_ino, os.stat(f).st_uid) == before
        # The same user may still edit a file of its own there.
        mine = os.path.join(d, "mine.json")
        with open(mine, "w") as out:
            json.dump(DOC, out)
        os.chown(mine, 65534, 65534)
        proc = subprocess.run(prefix + [drilldown_bin(), "set", mine, "0", "x=1"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert os.stat(mine).st_uid == 65534
    finally:
        shutil.rmtree(d)


# --- item 16: file text must not drive the terminal -----------------------------------------

OSC52 = "\x1b]52;c;aGFja2Vk\x07"
CLEAR = "\x1b[2J"
CSI1 = "\u009b2J"
BIDI = "\u202e"


@pytest.fixture
def hostile(tmp_path):
    doc = {"Title": "Root", "Rows": [
        {"Title": f"Evil{OSC52}{CLEAR}", "note": f"v{CSI1}{BIDI}x"},
        {"Title": "Plain", "Children": [{"Title": "Deep\x1b[31m"}]},
    ]}
    return write_doc(tmp_path / "hostile.json", doc)


def run_in_pty(args, timeout=20):
    """Runs the binary with stdout and stderr on a pseudo-terminal; returns (exit status, output text)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([drilldown_bin(), *map(str, args)], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            proc.kill()
            raise AssertionError("no output in time")
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return proc.wait(timeout=timeout), out.decode("utf-8").replace("\r\n", "\n")


RAW = ["\x1b", "\x07", "\u009b", "\u202e"]


@pytest.mark.parametrize("command", [["ls"], ["tree"], ["show", "0"], ["find", "e"], ["ls", "Plain"]])
def test_on_a_terminal_control_characters_are_shown_not_run(hostile, command):
    status, out = run_in_pty([command[0], hostile, *command[1:]])
    assert status == 0, out
    for raw in RAW:
        assert raw not in out, f"{raw!r} reached the terminal:\n{out!r}"
    assert "␛" in out


def test_on_a_terminal_show_escapes_values_too(hostile):
    status, out = run_in_pty(["show", hostile, "0"])
    assert status == 0
    assert "Evil␛]52;c;aGFja2Vk␇␛[2J" in out
    assert "v\\u009b2J\\u202ex" in out


def test_into_a_pipe_text_stays_exact(drilldown, hostile):
    out = drilldown("ls", hostile, check=0).stdout
    assert f"Evil{OSC52}{CLEAR}" in out
    shown = drilldown("show", hostile, "0", check=0).stdout
    assert f"v{CSI1}{BIDI}x" in shown


def test_json_stays_exact_even_on_a_terminal(hostile):
    status, out = run_in_pty(["ls", hostile, "--json"])
    assert status == 0
    rows = json.loads(out)["rows"]
    assert rows[0]["title"] == f"Evil{OSC52}{CLEAR}"


def test_error_messages_quoting_titles_are_escaped_on_a_terminal(hostile):
    status, out = run_in_pty(["ls", hostile, "Plain/Deep\x1b[31m/x"])
    assert status == 1
    assert "\x1b" not in out and "␛[31m" in out


# --- item 18: loose matching -----------------------------------------------------------------


@pytest.fixture
def sounds(tmp_path):
    for name in ["sounds.plist", "schema.yaml"]:
        shutil.copy(EXAMPLES / "Sounds" / name, tmp_path / name)
    return tmp_path / "sounds.plist", tmp_path / "schema.yaml"


@pytest.mark.parametrize("path,words", [
    ("Sounds/Vibrate on Ring", ["kind 'toggle'", "offers no actions"]),
    ("", ["root"]),
    ("Sounds", ["no kind"]),
])
def test_run_refuses_an_action_the_rows_kind_does_not_offer(drilldown, sounds, path, words):
    data, schema = sounds
    before = data.read_bytes()
    proc = drilldown("run", data, path, "play", "--schema", schema, check=1)
    for w in words:
        assert w in proc.stderr, proc.stderr
    assert data.read_bytes() == before


def test_run_still_runs_an_offered_action(drilldown, sounds):
    data, schema = sounds
    drilldown("run", data, "Sounds/Ringtone", "play", "--schema", schema, check=0)
    show = json.loads(drilldown("show", data, "Sounds/Ringtone", "--schema", schema, "--json", check=0).stdout)
    assert {f["key"]: f["value"] for f in show["fields"]}["plays"] == "1"


@pytest.fixture
def dups(tmp_path):
    return write_doc(tmp_path / "dups.json", {"Title": "Root", "Rows": [
        {"Title": "Dup", "Children": [{"Title": "A"}]}, {"Title": "Other"}, {"Title": "Dup", "Children": [{"Title": "B"}]},
    ]})


@pytest.mark.parametrize("command", [["ls", "Dup"], ["show", "Dup/A"], ["tree", "Dup"], ["set", "Dup", "x=1"], ["rm", "Dup"]])
def test_a_title_path_matching_two_siblings_is_refused_with_both_paths(drilldown, dups, command):
    before = dups.read_bytes()
    proc = drilldown(command[0], dups, *command[1:], check=1)
    assert "2 children titled 'Dup'" in proc.stderr and "0, 2" in proc.stderr, proc.stderr
    assert dups.read_bytes() == before
    drilldown("ls", dups, "2", check=0)
