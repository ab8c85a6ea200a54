"""End-to-end: a presentation schema with a misspelt key is refused (exit 1) with the file, the
line and column, the key and the nearest known key, and every shipped schema still loads."""
import pytest

from conftest import EXAMPLES, ROOT

SEED = EXAMPLES / "Data.plist"

BAD = """# a schema with one misspelt key per run
title: Music
kinds:
  artist:
    title: "{name}"
    {key}: x
"""


@pytest.mark.parametrize("key, hint", [
    ("titel", "did you mean 'title'?"),
    ("childKnd", "did you mean 'childKind'?"),
    ("subtitel", "did you mean 'subtitle'?"),
    ("sectoin", "did you mean 'section'?"),
    ("colour", "expected one of title, subtitle,"),
])
def test_a_misspelt_schema_key_exits_1_naming_file_line_key_and_suggestion(drilldown, tmp_path, key, hint):
    schema = tmp_path / "bad.yaml"
    schema.write_text(BAD.replace("{key}", key))
    proc = drilldown("ls", SEED, "--schema", schema)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    assert f"{schema}:6:5: schema field 'kinds.artist': unknown key '{key}' ({hint}" in proc.stderr, proc.stderr


def test_a_misspelt_key_in_a_json_schema_names_its_line(drilldown, tmp_path):
    schema = tmp_path / "bad.json"
    schema.write_text('{\n  "title": "Music",\n  "kinds": {\n    "song": { "titel": "{name}" }\n  }\n}\n')
    proc = drilldown("tree", SEED, "--schema", schema)
    assert proc.returncode == 1
    assert f"{schema}:4:15: schema field 'kinds.song': unknown key 'titel' (did you mean 'title'?)" in proc.stderr


@pytest.mark.parametrize("data, schema", [
    (EXAMPLES / "Music" / "library.yaml", EXAMPLES / "Music" / "schema.yaml"),
    (EXAMPLES / "Planets" / "planets.json", EXAMPLES / "Planets" / "schema.yaml"),
    (EXAMPLES / "Sounds" / "sounds.plist", EXAMPLES / "Sounds" / "schema.yaml"),
    (ROOT / "Sources" / "drilldown" / "Bundled" / "Music" / "library.yaml",
     ROOT / "Sources" / "drilldown" / "Bundled" / "Music" / "schema.yaml"),
])
def test_every_shipped_schema_loads(drilldown, data, schema):
    drilldown("ls", data, "--schema", schema, check=0)
