"""End-to-end tests of JSON held inside a text value (issue 33, item 3): `ls` and `show` drill into it
with TreePaths that continue past the value, and `set`/`rm`/`add` inside it rewrite the value's text
(compact JSON, keys in order) in JSON and YAML files. Text that is not JSON stays text.
"""
import json

import pytest

INNER = {"port": 8080, "tags": ["a", "b"], "inner": {"x": 1}}
DOC = {"name": "svc", "config": json.dumps(INNER), "notes": "[not json"}


@pytest.fixture
def doc(tmp_path):
    path = tmp_path / "service.json"
    path.write_text(json.dumps(DOC, indent=2) + "\n")
    return path


def ls_json(drilldown, file, path):
    return json.loads(drilldown("ls", file, path, "--json", check=0).stdout)


def inner(file):
    return json.loads(json.loads(file.read_text())["config"])


def test_ls_and_show_drill_into_the_json_of_a_value(drilldown, doc):
    root = ls_json(drilldown, doc, "")
    config = next(r for r in root["rows"] if r["title"] == "config")
    assert config["drills"] and config["path"] == "1"
    notes = next(r for r in root["rows"] if r["title"] == "notes")
    assert not notes["drills"]
    level = ls_json(drilldown, doc, "1")
    assert [(r["title"], r["path"]) for r in level["rows"]] == [("port", "1.0"), ("tags", "1.1"), ("inner", "1.2")]
    assert [r["title"] for r in ls_json(drilldown, doc, "config/tags")["rows"]] == ["0", "1"]
    shown = json.loads(drilldown("show", doc, "1.1.1", "--json", check=0).stdout)
    assert "b" in json.dumps(shown)
    proc = drilldown("ls", doc, "1.5", check=1)
    assert "1.5" in proc.stderr


def test_edits_inside_rewrite_the_text_compactly(drilldown, doc):
    drilldown("set", doc, "1.0", "--value", "9090", check=0)
    data = json.loads(doc.read_text())
    assert data["config"] == '{"port":9090,"tags":["a","b"],"inner":{"x":1}}'
    assert data["name"] == "svc" and data["notes"] == "[not json"
    drilldown("set", doc, "1.2", "--title", "outer", "--generic", check=0)
    assert list(inner(doc)) == ["port", "tags", "outer"]
    drilldown("rm", doc, "1.1.0", check=0)
    assert inner(doc)["tags"] == ["b"]
    drilldown("add", doc, "config", "debug", "--value", "true", "--generic", check=0)
    assert inner(doc) == {"port": 9090, "tags": ["b"], "outer": {"x": 1}, "debug": True}


def test_a_refused_edit_inside_changes_nothing(drilldown, doc):
    before = doc.read_text()
    proc = drilldown("rm", doc, "1.7", check=1)
    assert "1.7" in proc.stderr
    proc = drilldown("mv", doc, "1.0", "", check=1)
    assert "JSON inside a text value" in proc.stderr
    assert doc.read_text() == before


def test_yaml_value_holding_json_drills_and_is_rewritten(drilldown, tmp_path):
    path = tmp_path / "service.yaml"
    path.write_text("# settings\nname: svc\nconfig: '{\"port\": 8080, \"hosts\": [\"a\"]}'\n")
    assert [r["title"] for r in ls_json(drilldown, path, "config")["rows"]] == ["port", "hosts"]
    drilldown("set", path, "config/port", "--value", "1", check=0)
    text = path.read_text()
    assert text.startswith("# settings\nname: svc\n")
    import yaml  # PyYAML is in the e2e venv
    assert json.loads(yaml.safe_load(text)["config"]) == {"port": 1, "hosts": ["a"]}


def test_history_names_the_change_inside_and_revert_takes_it_back(drilldown, doc):
    drilldown("set", doc, "1.0", "--value", "9090", check=0)
    drilldown("rm", doc, "1.1.0", check=0)
    history = drilldown("history", doc, check=0).stdout
    assert "Change of port" in history and "1.0 value: '8080' → '9090'" in history
    drilldown("revert", doc, "1", check=0)
    assert inner(doc) == {"port": 8080, "tags": ["b"], "inner": {"x": 1}}


def test_the_value_itself_is_still_set_as_text(drilldown, doc):
    drilldown("set", doc, "1", "--value", '{"a": [1]}', check=0)
    assert json.loads(doc.read_text())["config"] == '{"a": [1]}'
    assert [r["title"] for r in ls_json(drilldown, doc, "1.0")["rows"]] == ["0"]


def test_a_lazily_indexed_file_drills_into_json_values_read_only(drilldown, tmp_path):
    """A file indexed level by level (`--index lazy`, as JSON files from 64 MiB are) opens a text
    value holding JSON as a read-only subtree: TreePaths and title paths continue into it, levels
    visited after it get ids of their own, and an edit inside is refused like any edit of the file."""
    path = tmp_path / "big.json"
    data = dict(DOC, items=[{"id": i, "spec": json.dumps({"n": i})} for i in range(3)])
    path.write_text(json.dumps(data, indent=2) + "\n")

    def ls(where):
        return json.loads(drilldown("ls", path, where, "--json", "--index", "lazy", check=0).stdout)

    root = ls("")
    rows = {r["title"]: r for r in root["rows"]}
    assert rows["config"]["drills"] and not rows["notes"]["drills"]
    assert [(r["title"], r["path"]) for r in ls("1")["rows"]] == [("port", "1.0"), ("tags", "1.1"), ("inner", "1.2")]
    assert [r["title"] for r in ls("config/tags")["rows"]] == ["0", "1"]
    assert [r["title"] for r in ls("config/inner")["rows"]] == ["x"]
    shown = json.loads(drilldown("show", path, "1.1.1", "--json", "--index", "lazy", check=0).stdout)
    assert "b" in json.dumps(shown)
    # Levels of the file visited after a value opened, and values deeper in it.
    assert [r["title"] for r in ls("items")["rows"]] == ["0", "1", "2"]
    assert [(r["title"], r["subtitle"]) for r in ls("items/2/spec")["rows"]] == [("n", "2")]
    proc = drilldown("ls", path, "1.5", "--index", "lazy", check=1)
    assert "1.5" in proc.stderr

    before = path.read_text()
    proc = drilldown("set", path, "1.0", "--value", "9090", "--index", "lazy", check=1)
    assert "indexed lazily" in proc.stderr and "read-only" in proc.stderr
    assert path.read_text() == before
    # The lazy statistics still answer (nothing walked).
    assert "indexing      lazy" in drilldown("stats", path, "--index", "lazy", check=0).stdout
