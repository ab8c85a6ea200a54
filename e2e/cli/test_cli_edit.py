"""End-to-end tests of the editing commands (add, set, rm, mv, run): the real binary on copies of the examples.

Every edit is re-read through the CLI, the file keeps its format, and an invalid change exits 1 and
leaves the file byte-identical.
"""
import json
import re
import shutil

import pytest

from conftest import EXAMPLES

SEED = EXAMPLES / "Data.plist"


@pytest.fixture
def seed(tmp_path):
    """A copy of seed 000's Data.plist (XML)."""
    dst = tmp_path / "Data.plist"
    shutil.copy(SEED, dst)
    return dst


@pytest.fixture
def sounds(tmp_path):
    """A copy of the Sounds example (seed 004) with its schema."""
    for name in ["sounds.plist", "schema.yaml"]:
        shutil.copy(EXAMPLES / "Sounds" / name, tmp_path / name)
    return tmp_path / "sounds.plist", tmp_path / "schema.yaml"


def titles(drilldown, file, path=None, *extra):
    args = ["ls", file] + ([path] if path is not None else []) + list(extra) + ["--json"]
    return [r["title"] for r in json.loads(drilldown(*args, check=0).stdout)["rows"]]


def fields(drilldown, file, path, *extra):
    detail = json.loads(drilldown("show", file, path, *extra, "--json", check=0).stdout)
    return {f["key"]: f["value"] for f in detail["fields"]}


def test_add_appends_a_row_and_prints_its_path(drilldown, seed):
    out = drilldown("add", seed, "", "Item 5", check=0).stdout
    assert out.strip() == "4"
    assert titles(drilldown, seed) == ["Item 1", "Item 2", "Item 3", "Item 4", "Item 5"]
    assert seed.read_text().startswith("<?xml"), "the XML property list stays an XML property list"


def test_add_at_an_index_with_typed_attributes(drilldown, seed):
    out = drilldown("add", seed, "Item 4", "Screen G0", "--at", "0", "--attr", "plays=3", "--attr", "loud=true", "--json", check=0)
    result = json.loads(out.stdout)
    assert result["path"] == "3.0"
    assert result["titlePath"] == "Item 4/Screen G0"
    assert titles(drilldown, seed, "3") == ["Screen G0", "Screen G"]
    assert "<integer>3</integer>" in seed.read_text()
    assert "<true/>" in seed.read_text()


def test_add_under_a_leaf_creates_its_children(drilldown, seed):
    out = drilldown("add", seed, "Item 1/Screen A", "Deeper", check=0).stdout
    assert out.strip() == "0.0.0"
    assert titles(drilldown, seed, "0.0") == ["Deeper"]


def test_set_title_and_typed_attributes_in_json(drilldown, tmp_path):
    f = tmp_path / "Data.json"
    drilldown("convert", SEED, f, check=0)
    assert drilldown("set", f, "1.0", "--title", "Screen B2", "plays=2", "ratio=2.5", "on=true", "label=07", check=0).stdout.strip() == "1.0"
    drilldown("set", f, "1.0", "code=42", "--string", check=0)
    data = json.loads(f.read_text())
    row = data["Rows"][1]["Children"][0]
    assert row["Title"] == "Screen B2"
    assert row["plays"] == 2 and row["ratio"] == 2.5 and row["on"] is True and row["code"] == "42"
    assert row["label"] == "07", "a number with a leading zero stays text"
    drilldown("set", f, "1.0", "--unset", "plays", "--unset", "ratio", check=0)
    row = json.loads(f.read_text())["Rows"][1]["Children"][0]
    assert "plays" not in row and "ratio" not in row and row["on"] is True


def test_rm_deletes_a_subtree_and_yaml_stays_yaml(drilldown, tmp_path):
    f = tmp_path / "Data.yaml"
    drilldown("convert", SEED, f, check=0)
    assert drilldown("rm", f, "Item 2", check=0).stdout.strip() == "1"
    assert titles(drilldown, f) == ["Item 1", "Item 3", "Item 4"]
    text = f.read_text()
    assert not text.lstrip().startswith("{") and "Rows:" in text, "YAML stays YAML"
    assert "Screen C" not in text


def test_mv_reorders_and_reparents(drilldown, seed):
    assert drilldown("mv", seed, "3", "--up", check=0).stdout.strip() == "2"
    assert titles(drilldown, seed) == ["Item 1", "Item 2", "Item 4", "Item 3"]
    assert drilldown("mv", seed, "0", "--down", check=0).stdout.strip() == "1"
    assert titles(drilldown, seed) == ["Item 2", "Item 1", "Item 4", "Item 3"]
    # Screen G (under Item 4) into Item 1, first.
    assert drilldown("mv", seed, "Item 4/Screen G", "Item 1", "--at", "0", check=0).stdout.strip() == "1.0"
    assert titles(drilldown, seed, "1") == ["Screen G", "Screen A"]
    assert titles(drilldown, seed, "1.0.0.0") == ["Screen J"]
    assert drilldown("mv", seed, "1.0", "", check=0).stdout.strip() == "4"
    assert titles(drilldown, seed)[-1] == "Screen G"


def test_binary_plist_stays_binary(drilldown, tmp_path):
    f = tmp_path / "Data.bplist"
    drilldown("convert", SEED, f, check=0)
    drilldown("add", f, "0", "Screen A2", check=0)
    assert f.read_bytes().startswith(b"bplist00")
    assert titles(drilldown, f, "0") == ["Screen A", "Screen A2"]


def test_generic_mode_adds_keyed_members_and_array_elements(drilldown, tmp_path):
    f = tmp_path / "config.json"
    f.write_text('{"name": "demo", "tags": ["a"]}')
    assert drilldown("add", f, "", "port", "--value", "8080", "--generic", check=0).stdout.strip() == "2"
    assert drilldown("add", f, "tags", "ignored", "--value", "b", "--generic", check=0).stdout.strip() == "1.1"
    assert drilldown("set", f, "tags", "--title", "labels", "--generic", check=0).stdout.strip() == "1"
    assert "is a single value, not a row with fields: use --value" in drilldown("set", f, "name", "x=1", "--generic", check=1).stderr
    assert json.loads(f.read_text()) == {"name": "demo", "labels": ["a", "b"], "port": 8080}


def test_run_play_and_ping_on_the_sounds_example(drilldown, sounds):
    plist, schema = sounds
    assert drilldown("run", plist, "Sounds/Ringtone", "play", "--schema", schema, check=0).stdout.strip() == "0.3"
    drilldown("run", plist, "0.3", "play", "--schema", schema, check=0)
    drilldown("run", plist, "0.4", "ping", "--schema", schema, check=0)
    assert fields(drilldown, plist, "0.3", "--schema", schema)["plays"] == "2"
    pinged = fields(drilldown, plist, "0.4", "--schema", schema)
    assert any(re.match(r"\d{4}-\d\d-\d\d", v) for k, v in pinged.items() if k.lower().startswith("lastpinged") or "pinged" in k.lower())
    assert "<date>" in plist.read_text(), "setNow writes a property-list date"


def test_the_schema_keeps_control_attributes_typed(drilldown, sounds):
    plist, schema = sounds
    before = plist.read_bytes()
    proc = drilldown("set", plist, "Sounds/Vibrate on Ring", "enabled=maybe", "--schema", schema, check=1)
    assert "'enabled' takes true or false, not 'maybe'" in proc.stderr
    proc = drilldown("set", plist, "Sounds/Ringer and Alerts", "volume=150", "--schema", schema, check=1)
    assert "from 0 to 100" in proc.stderr
    assert plist.read_bytes() == before
    drilldown("set", plist, "0.2", "volume=40", "--schema", schema, check=0)
    assert fields(drilldown, plist, "0.2", "--schema", schema)["volume"] == "40"


@pytest.mark.parametrize("args, message", [
    (["add", "{f}", "9", "x"], "no node"),
    (["add", "{f}", "", "x", "--at", "9"], "out of range"),
    (["add", "{f}", "", "   "], "'Title' is required"),
    (["set", "{f}", "0", "Children=x"], "structural key"),
    (["set", "{f}", "0", "--unset", "missing"], "no attribute 'missing'"),
    (["rm", "{f}", ""], "root cannot be deleted"),
    (["rm", "{f}", "Item 9"], "no child titled"),
    (["mv", "{f}", "3", "3.0"], "its own subtree"),
    (["mv", "{f}", "0", "--up"], "already the first"),
    (["run", "{f}", "0", "play"], "no action named 'play'"),
])
def test_an_invalid_change_exits_1_and_leaves_the_file_byte_identical(drilldown, seed, args, message):
    before = seed.read_bytes()
    proc = drilldown(*[a.replace("{f}", str(seed)) for a in args])
    assert proc.returncode == 1, proc.stderr
    assert message in proc.stderr
    assert str(seed) in proc.stderr, "the message names the file"
    assert seed.read_bytes() == before


@pytest.mark.parametrize("args", [
    ["set", "{f}", "0"],
    ["set", "{f}", "0", "novalue"],
    ["mv", "{f}", "0"],
    ["mv", "{f}", "0", "1", "--up"],
    ["mv", "{f}", "0", "--up", "--down"],
    ["add", "{f}", "", "x", "--attr", "=1"],
])
def test_usage_errors_exit_2_and_leave_the_file_alone(drilldown, seed, args):
    before = seed.read_bytes()
    proc = drilldown(*[a.replace("{f}", str(seed)) for a in args])
    assert proc.returncode == 2, proc.stderr
    assert seed.read_bytes() == before
