"""End-to-end tests of the audit history of a document file: `drilldown history` and `drilldown revert`,
the edit commands recording who changed what in FILE.drilldown-history, and a SIGKILL between the
document write and its journal entry losing neither."""
import json
import os
import shutil
import signal
import subprocess

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
