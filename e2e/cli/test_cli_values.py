"""End-to-end tests of editing values and fields from the command line: `set --value`, `--type`,
typed key=value, `add --attr` filling a table's required columns.

A value keeps its type and the file its form (one changed line, comments kept); a refused value
exits 1 naming the field and leaves the file byte-identical.
"""
import json
import plistlib
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT

CONFIG_JSON = """{
    "server": {
        "host": "localhost",
        "port": 8080,
        "debug": false
    },
    "ratio": 0.5
}
"""

CONFIG_YAML = """# service settings
server:
  host: localhost   # where it listens
  port: 8080        # the port
  debug: false
ratio: 0.5
"""


def changed_lines(before, after):
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b), f"line count changed:\n{after}"
    return [y for x, y in zip(a, b) if x != y]


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(CONFIG_JSON)
    return path


def test_set_value_keeps_an_integer_and_changes_one_line(drilldown, config):
    out = json.loads(drilldown("set", config, "server/port", "--value", "9090", "--json", check=0).stdout)
    assert out["value"] == {"key": "value", "kind": "integer", "value": "9090"}
    assert changed_lines(CONFIG_JSON, config.read_text()) == ['        "port": 9090,']
    assert json.loads(config.read_text())["server"]["port"] == 9090


def test_set_value_types_follow_the_field(drilldown, config):
    drilldown("set", config, "server/debug", "--value", "yes", check=0)
    drilldown("set", config, "server/host", "--value", "9090", check=0)
    drilldown("set", config, "ratio", "--value", "2", check=0)
    data = json.loads(config.read_text())
    assert data["server"]["debug"] is True
    assert data["server"]["host"] == "9090", "a text field keeps text"
    assert data["ratio"] == 2.0 and isinstance(data["ratio"], float), "a real stays a real"


def test_type_forces_a_type_and_null_writes_null(drilldown, config):
    drilldown("set", config, "server/port", "--value", "9090", "--type", "text", check=0)
    assert json.loads(config.read_text())["server"]["port"] == "9090"
    drilldown("set", config, "server/host", "--type", "null", check=0)
    assert json.loads(config.read_text())["server"]["host"] is None


def test_an_invalid_value_is_refused_naming_the_field_and_nothing_is_written(drilldown, config):
    before = config.read_bytes()
    proc = drilldown("set", config, "server/port", "--value", "90x", check=1)
    assert "'port' takes an integer, not '90x'" in proc.stderr
    proc = drilldown("set", config, "server", "--value", "1", check=1)
    assert "has fields, not a single value" in proc.stderr
    proc = drilldown("set", config, "server/port", "port=1", check=1)
    assert "is a single value" in proc.stderr
    assert config.read_bytes() == before


def test_yaml_value_keeps_comments_and_its_line(drilldown, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG_YAML)
    drilldown("set", path, "server/port", "--value", "9090", check=0)
    lines = changed_lines(CONFIG_YAML, path.read_text())
    assert len(lines) == 1 and lines[0].startswith("  port: 9090") and "# the port" in lines[0]
    assert path.read_text().startswith("# service settings")


@pytest.mark.parametrize("fmt", [plistlib.FMT_XML, plistlib.FMT_BINARY])
def test_plist_values_keep_their_types(drilldown, tmp_path, fmt):
    import datetime
    path = tmp_path / "settings.plist"
    original = {"when": datetime.datetime(2024, 5, 1, 10, 30), "blob": b"\x00\x01", "ratio": 0.5, "count": 3, "on": False}
    path.write_bytes(plistlib.dumps(original, fmt=fmt))
    for key, value in [("when", "2025-01-02T08:00:00Z"), ("blob", "AAECAw=="), ("ratio", "3"), ("count", "4"), ("on", "true")]:
        drilldown("set", path, key, "--value", value, check=0)
    data = plistlib.loads(path.read_bytes())
    assert data == {"when": datetime.datetime(2025, 1, 2, 8, 0), "blob": b"\x00\x01\x02\x03", "ratio": 3.0, "count": 4, "on": True}
    assert isinstance(data["ratio"], float) and isinstance(data["count"], int)
    assert path.read_bytes().startswith(b"<?xml" if fmt == plistlib.FMT_XML else b"bplist00")
    proc = drilldown("set", path, "count", "--value", "many", check=1)
    assert "'count' takes an integer" in proc.stderr


def test_openstep_values_keep_their_form(drilldown, tmp_path):
    path = tmp_path / "settings.strings"
    path.write_text('{\n    name = "Old";\n    count = 3;\n}\n')
    drilldown("set", path, "count", "--value", "4", check=0)
    drilldown("set", path, "name", "--value", "New", check=0)
    text = path.read_text()
    assert "count = 4;" in text and 'name = New;' in text or 'name = "New";' in text
    assert text.startswith("{")


def test_fields_are_typed_by_the_schema_formats(drilldown, tmp_path):
    """The music library shows a song's length as m:ss, so length=3:43 is a duration: 223 seconds."""
    for name in ["library.yaml", "schema.yaml"]:
        (tmp_path / name).write_text((ROOT / "Examples" / "Music" / name).read_text())
    lib = tmp_path / "library.yaml"
    schema = ["--schema", tmp_path / "schema.yaml"]
    song = json.loads(drilldown("ls", lib, "0.0", *schema, "--json", check=0).stdout)["rows"][0]
    drilldown("set", lib, song["path"], "length=3:43", *schema, check=0)
    detail = json.loads(drilldown("show", lib, song["path"], *schema, "--json", check=0).stdout)
    assert {f["key"]: f["value"] for f in detail["fields"]}["length"] == "3:43"
    proc = drilldown("set", lib, song["path"], "length=long", *schema, check=1)
    assert "'length' takes a duration" in proc.stderr


@pytest.fixture
def chinook(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make-chinook.py"), str(tmp_path)], check=True, capture_output=True)
    return tmp_path / "chinook.sqlite"


def test_add_fills_a_tables_required_columns(drilldown, chinook):
    proc = drilldown("add", chinook, "0.0", "Without Length", check=1)
    assert "'length' is required" in proc.stderr
    out = json.loads(drilldown("add", chinook, "0.0", "Blue Seven", "--attr", "length=3:43", "--attr", "composer=Sonny", "--json", check=0).stdout)
    assert out["title"] == "Blue Seven"
    db = sqlite3.connect(chinook)
    assert db.execute("SELECT length, composer FROM songs WHERE name = 'Blue Seven'").fetchall() == [(223, "Sonny")]
    proc = drilldown("add", chinook, "0.0", "Bad", "--attr", "length=soon", check=1)
    assert "'length' takes a duration" in proc.stderr
    assert db.execute("SELECT count(*) FROM songs WHERE name = 'Bad'").fetchone() == (0,)
