"""End-to-end tests of JSON held in a database column read through a schema's `levels:` (issue 33,
item 3): the column opens as a child node of its row, titled by the column's name, `ls`/`show` drill
into it with TreePaths that continue past the row, and `set`/`rm` inside it rewrite the column
(compact JSON, keys in order) in SQLite, and in PostgreSQL text and jsonb columns. Text that is not
JSON stays a plain field.
"""
import json
import os
import re
import sqlite3
import subprocess
import urllib.parse
import uuid

import pytest

CONFIG = '{"port": 8080, "tags": ["a", "b"], "inner": {"x": 1}}'
SCHEMA = """levels:
  - { table: teams, title: name, key: id }
  - { table: services, title: name, key: id, parent: team_id, order: id }
"""


def ls_json(drilldown, *args):
    return json.loads(drilldown("ls", *args, "--json", check=0).stdout)


@pytest.fixture
def services(tmp_path):
    db = tmp_path / "services.sqlite"
    with sqlite3.connect(db) as c:
        c.executescript(f"""
            CREATE TABLE teams(id INTEGER PRIMARY KEY, name TEXT NOT NULL, meta TEXT);
            CREATE TABLE services(id INTEGER PRIMARY KEY, team_id INTEGER NOT NULL REFERENCES teams(id),
                                  name TEXT NOT NULL, config TEXT, notes TEXT);
            INSERT INTO teams VALUES (1, 'core', '["on call", "ops"]');
            INSERT INTO services VALUES (1, 1, 'api', '{CONFIG}', '[not json');
            INSERT INTO services VALUES (2, 1, 'web', 'plain text', NULL);
            """)
    schema = tmp_path / "services.schema.yaml"
    schema.write_text(SCHEMA)
    return db


def column(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchone()[0]


def test_a_json_column_opens_below_its_row_and_paths_continue_into_it(drilldown, services):
    team = ls_json(drilldown, services, "0")
    assert [(r["title"], r["path"]) for r in team["rows"]] == [("api", "0.0"), ("web", "0.1"), ("meta", "0.2")]
    api = ls_json(drilldown, services, "0.0")
    assert [(r["title"], r["path"]) for r in api["rows"]] == [("config", "0.0.0")], "notes holds no JSON: no node"
    config = ls_json(drilldown, services, "core/api/config")
    assert [r["title"] for r in config["rows"]] == ["port", "tags", "inner"]
    assert [r["title"] for r in ls_json(drilldown, services, "0.0.0.1")["rows"]] == ["0", "1"]
    shown = drilldown("show", services, "0.0.0.1.1", "--json", check=0).stdout
    assert '"b"' in shown
    drills = {r["title"]: r["drills"] for r in team["rows"]}
    assert drills == {"api": True, "web": False, "meta": True}, "plain text stays a field: the row does not drill"
    assert "[not json" in drilldown("show", services, "0.0", check=0).stdout


def test_set_and_rm_inside_rewrite_the_column_compactly(drilldown, services):
    assert drilldown("set", services, "0.0.0.0", "--value", "9090", check=0).returncode == 0
    assert column(services, "SELECT config FROM services WHERE id = 1") == '{"port":9090,"tags":["a","b"],"inner":{"x":1}}'
    drilldown("set", services, "core/api/config/inner", "--title", "outer", check=0)
    drilldown("rm", services, "0.0.0.1.0", check=0)
    assert column(services, "SELECT config FROM services WHERE id = 1") == '{"port":9090,"tags":["b"],"outer":{"x":1}}'
    drilldown("set", services, "0.2.0", "--value", "on duty", check=0)
    assert column(services, "SELECT meta FROM teams WHERE id = 1") == '["on duty","ops"]'
    assert column(services, "SELECT notes FROM services WHERE id = 1") == "[not json"


def test_a_refused_edit_of_the_column_node_names_the_path_and_writes_nothing(drilldown, services):
    proc = drilldown("rm", services, "0.0.0", check=1)
    assert "0.0.0" in proc.stderr and "config" in proc.stderr
    proc = drilldown("set", services, "0.0.0.1", "--value", "1", check=1)
    assert "0.0.0.1" in proc.stderr
    assert column(services, "SELECT config FROM services WHERE id = 1") == CONFIG


def test_a_tree_table_opens_a_json_value_in_place_and_writes_it_back(drilldown, tmp_path):
    doc = tmp_path / "service.json"
    doc.write_text(json.dumps({"name": "svc", "config": CONFIG, "notes": "[not json"}))
    db = tmp_path / "service.sqlite"
    drilldown("convert", doc, db, check=0)
    assert [r["title"] for r in ls_json(drilldown, db, "config")["rows"]] == ["port", "tags", "inner"]
    assert {r["title"]: r["drills"] for r in ls_json(drilldown, db, "")["rows"]} == {"name": False, "config": True, "notes": False}
    drilldown("set", db, "1.1.0", "--value", "z", check=0)
    assert column(db, "SELECT value FROM nodes WHERE key = 'config'") == '{"port":8080,"tags":["z","b"],"inner":{"x":1}}'


PG_URL = os.environ.get("DRILLDOWN_TEST_PG_URL", "")


def psql(url, *args):
    url = re.sub(r"[?&]sslmode=[^&]*", "", url)
    return subprocess.run(["psql", url, "-qtAX", *args], capture_output=True, text=True, check=True, timeout=60).stdout.strip()


@pytest.fixture
def pg_services():
    if not PG_URL:
        pytest.skip("DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")
    name = "services_" + uuid.uuid4().hex[:8]
    psql(PG_URL, "-c", f"CREATE DATABASE {name}")
    url = urllib.parse.urlunsplit(urllib.parse.urlsplit(PG_URL)._replace(path="/" + name))
    psql(url, "-v", "ON_ERROR_STOP=1", "-c", f"""
        CREATE TABLE teams(id serial PRIMARY KEY, name text NOT NULL, meta jsonb);
        CREATE TABLE services(id serial PRIMARY KEY, team_id integer NOT NULL REFERENCES teams(id),
                              name text NOT NULL, config text, settings jsonb);
        INSERT INTO teams(name, meta) VALUES ('core', '["on call", "ops"]');
        INSERT INTO services(team_id, name, config, settings) VALUES (1, 'api', '{CONFIG}', '{{"debug": false, "level": 2}}');
        """)
    yield url
    psql(PG_URL, "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_postgres_text_and_jsonb_columns_open_and_are_written_back(drilldown, pg_services, tmp_path):
    schema = tmp_path / "schema.yaml"
    schema.write_text(SCHEMA)
    url = pg_services
    api = ls_json(drilldown, url, "0.0", "--schema", schema)
    assert [r["title"] for r in api["rows"]] == ["config", "settings"]
    assert [r["title"] for r in ls_json(drilldown, url, "0.0.1", "--schema", schema)["rows"]] == ["debug", "level"]
    assert [r["title"] for r in ls_json(drilldown, url, "0.1", "--schema", schema)["rows"]] == ["0", "1"], "a jsonb array on the team"
    drilldown("set", url, "0.0.0.0", "--value", "9090", "--schema", schema, check=0)
    assert psql(url, "-c", "SELECT config FROM services") == '{"port":9090,"tags":["a","b"],"inner":{"x":1}}'
    drilldown("set", url, "0.0.1.1", "--value", "3", "--schema", schema, check=0)
    assert psql(url, "-c", "SELECT settings->>'level', jsonb_typeof(settings->'level'), pg_typeof(settings) FROM services") == "3|number|jsonb"
    drilldown("rm", url, "0.1.0", "--schema", schema, check=0)
    assert psql(url, "-c", "SELECT meta::text FROM teams") == '["ops"]'
