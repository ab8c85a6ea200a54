"""End-to-end tests of the audit history of a document file: `drilldown history` and `drilldown revert`,
the edit commands recording who changed what in FILE.drilldown-history, and a SIGKILL between the
document write and its journal entry losing neither, and two processes writing one journal in turn."""
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

from conftest import EXAMPLES, drilldown_bin


@pytest.fixture
def seed(tmp_path):
    """A copy of Examples/Data.plist (XML)."""
    dst = tmp_path / "Data.plist"
    shutil.copy(EXAMPLES / "Data.plist", dst)
    return dst


def titles(drilldown, file, path=None):
    args = ["ls", file] + ([path] if path is not None else []) + ["--json"]
    return [r["title"] for r in json.loads(drilldown(*args, check=0).stdout)["rows"]]


def history(drilldown, file, *extra):
    return json.loads(drilldown("history", file, *extra, "--json", check=0).stdout)


def test_history_lists_an_edit_with_its_user_old_and_new(drilldown, seed):
    drilldown("set", seed, "0", "--title", "First", "--user", "ana", check=0)
    drilldown("add", seed, "", "Item 5", check=0)  # recorded as the OS user
    page = history(drilldown, seed)
    assert page["total"] == 2
    newest, oldest = page["entries"]
    assert oldest["user"] == "ana"
    assert oldest["summary"] == "Rename of Item 1 to First"
    assert oldest["differences"] == [{"path": "0", "field": "title", "old": "Item 1", "new": "First"}]
    assert newest["user"] and newest["user"] != "ana"
    assert newest["id"] > oldest["id"]
    text = drilldown("history", seed, check=0).stdout
    assert "ana" in text and "'Item 1' → 'First'" in text
    assert (seed.parent / "Data.plist.drilldown-history").exists()
    # Only the changes touching a node, and paged.
    assert [e["id"] for e in history(drilldown, seed, "0")["entries"]] == [oldest["id"]]
    assert history(drilldown, seed, "--limit", "1")["entries"][0]["id"] == newest["id"]


def test_revert_of_an_old_rename_restores_it_and_is_recorded(drilldown, seed):
    drilldown("set", seed, "3", "--title", "Renamed", "--user", "ana", check=0)
    drilldown("add", seed, "", "Item 0", "--at", "0", "--user", "bob", check=0)  # moves the renamed row down
    assert titles(drilldown, seed)[4] == "Renamed"
    rename = history(drilldown, seed)["entries"][-1]
    out = drilldown("revert", seed, str(rename["id"]), "--user", "bob", check=0).stdout
    assert f"reverted #{rename['id']}" in out
    assert titles(drilldown, seed) == ["Item 0", "Item 1", "Item 2", "Item 3", "Item 4"]
    newest = history(drilldown, seed)["entries"][0]
    assert newest["kind"] == "revert" and newest["target"] == rename["id"] and newest["user"] == "bob"
    # Reverting it twice is refused.
    again = drilldown("revert", seed, str(rename["id"]), check=1)
    assert "already taken back" in again.stderr


def test_revert_is_refused_when_a_later_change_depends_on_it(drilldown, seed):
    drilldown("set", seed, "1", "--title", "Two", "--user", "ana", check=0)
    drilldown("set", seed, "1", "--title", "Deux", "--user", "bob", check=0)
    before = seed.read_bytes()
    first = history(drilldown, seed)["entries"][-1]
    refused = drilldown("revert", seed, str(first["id"]), check=1)
    assert "bob" in refused.stderr and "changed it since" in refused.stderr, refused.stderr
    assert seed.read_bytes() == before, "nothing was written"
    assert drilldown("revert", seed, "999", check=1).stderr.strip().endswith("there is no change #999 in the history")


def test_revert_of_a_delete_restores_the_subtree(drilldown, seed):
    before = titles(drilldown, seed, "3")
    drilldown("rm", seed, "3", check=0)
    delete = history(drilldown, seed)["entries"][0]
    drilldown("revert", seed, str(delete["id"]), check=0)
    assert titles(drilldown, seed)[3] == "Item 4"
    assert titles(drilldown, seed, "3") == before


@pytest.mark.parametrize("point", ["begun", "written"])
def test_sigkill_between_the_document_write_and_its_journal_entry_loses_neither(drilldown, seed, point):
    """The binary stops itself at the point (after the journal's begin line is synced, or after the
    document is written but before the commit line) and is killed there with SIGKILL."""
    before = seed.read_bytes()
    env = dict(os.environ, DRILLDOWN_JOURNAL_STOP=point)
    proc = subprocess.Popen([drilldown_bin(), "set", str(seed), "0", "--title", "Killed", "--user", "ana"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr.readline().strip() == f"drilldown: journal {point}"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    page = history(drilldown, seed)
    if point == "begun":
        # Killed before the document was written: the change was never acknowledged, and the
        # history does not claim it.
        assert seed.read_bytes() == before
        assert page["total"] == 0
    else:
        # Killed after the write: the change is in the file and its record is in the history.
        assert titles(drilldown, seed)[0] == "Killed"
        assert page["total"] == 1 and page["entries"][0]["user"] == "ana"
    # The journal goes on: the next change is recorded after it.
    drilldown("set", seed, "1", "--title", "After", "--user", "bob", check=0)
    page = history(drilldown, seed)
    assert page["entries"][0]["user"] == "bob"
    assert page["total"] == (1 if point == "begun" else 2)



def waits_for_a_lock(pid, inode):
    """Whether process `pid` is listed in /proc/locks as waiting for a lock of the file `inode`."""
    with open("/proc/locks") as locks:
        # A waiter's line: "N: -> FLOCK  ADVISORY  WRITE PID MAJOR:MINOR:INODE START END".
        waiting = [line.split()[5:7] for line in locks if line.split()[1:2] == ["->"]]
    return any(who == str(pid) and where.endswith(f":{inode}") for who, where in waiting)


def another_writer(seed, drilldown):
    """This test as a second writer of the journal: the first record (made by `drilldown set`), and
    a record of this process to add, numbered after it, and the journal's lines for it."""
    drilldown("set", seed, "0", "--title", "First", "--user", "ana", check=0)
    journal = seed.parent / "Data.plist.drilldown-history"
    begin = next(json.loads(line) for line in journal.read_text().splitlines() if '"begin"' in line)
    first = begin["record"]
    mine = dict(first, id=first["id"] + 1, user="zoe")
    st = os.stat(seed)
    stamp = {"seconds": st.st_mtime_ns // 10**9, "nanoseconds": st.st_mtime_ns % 10**9, "size": st.st_size, "inode": st.st_ino}
    host = (begin.get("writer") or f"{socket.gethostname()}:0").rsplit(":", 1)[0]
    lines = {op: json.dumps(line).encode() + b"\n" for op, line in [
        ("begin", {"op": "begin", "record": mine, "stamp": stamp, "writer": f"{host}:{os.getpid()}"}),
        ("commit", {"op": "commit", "ids": [mine["id"]]})]}
    return journal, first, lines


def append_locked(journal, line):
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def edit(seed):
    return subprocess.Popen([drilldown_bin(), "set", str(seed), "1", "--title", "Second", "--user", "bob"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def check_all_three(drilldown, seed, other, first):
    _, err = other.communicate(timeout=60)
    assert other.returncode == 0, err
    entries = history(drilldown, seed)["entries"]
    assert [(e["user"], e["id"]) for e in entries] == [("bob", first["id"] + 2), ("zoe", first["id"] + 1), ("ana", first["id"])]
    assert titles(drilldown, seed)[:2] == ["First", "Second"]


def test_two_processes_number_their_records_in_turn_under_the_journals_lock(drilldown, seed):
    """This test holds the journal's lock, about to append a record numbered after the last one;
    a `drilldown set` started meanwhile waits for the lock (it is listed in /proc/locks as waiting)
    and numbers its record after this one, instead of giving both the same number."""
    journal, first, lines = another_writer(seed, drilldown)
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        other = edit(seed)
        inode = os.fstat(fd).st_ino
        while other.poll() is None and not waits_for_a_lock(other.pid, inode):
            time.sleep(0.01)
        os.write(fd, lines["begin"])
        os.fsync(fd)
    finally:
        os.close(fd)  # releases the lock
    append_locked(journal, lines["commit"])
    check_all_three(drilldown, seed, other, first)


def test_a_record_another_live_process_is_writing_is_left_to_it(drilldown, seed):
    """This test begins a record (its line appended, the document not yet written, as a writer
    does before its document write) and is alive: a `drilldown set` opening the journal meanwhile
    leaves that record to it, instead of aborting it as one a killed writer left (the document is
    as the record's stamp says); once committed, the history has it."""
    journal, first, lines = another_writer(seed, drilldown)
    append_locked(journal, lines["begin"])
    other = edit(seed)
    other.wait(timeout=60)
    append_locked(journal, lines["commit"])
    check_all_three(drilldown, seed, other, first)
