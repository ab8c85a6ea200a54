"""The lazy JSON index in the web app: a generated outline (Scripts/gen-outline.py, 300 x 200 rows,
~2.9 MB, never committed) served with `--index lazy` (forced, so the file stays small and CI fast):
the first screen, drilling down, the JSON API and search; a syntax error in a level that is only
read when visited answers 503 with its line and column, and the other levels still answer."""
import json
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server, drilldown_binary


@pytest.fixture(scope="module")
def outline(tmp_path_factory):
    path = tmp_path_factory.mktemp("lazy") / "outline.json"
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-outline.py"), "--groups", "300", "--rows", "200", str(path)],
                   check=True, capture_output=True)
    return path


@pytest.fixture(scope="module")
def lazy_server(outline):
    server = Server(outline, "--index", "lazy")
    yield server
    server.stop()


def get(url):
    """(status, body text) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_first_screen_and_drill_down_in_the_browser(page, lazy_server):
    page.goto(lazy_server.url)
    expect(page.get_by_role("link", name="Group 0", exact=True)).to_be_visible()
    page.get_by_role("link", name="Group 7", exact=True).click()
    expect(page.get_by_role("link", name="Row 7.0", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Row 7.199", exact=True)).to_have_count(1)


def test_api_levels_match_the_full_read(outline, lazy_server):
    full = Server(outline, "--index", "full")
    try:
        for path in ["", "0", "299", "5", "5.199"]:
            lazy_status, lazy_body = get(lazy_server.url + f"api/level/{path}")
            full_status, full_body = get(full.url + f"api/level/{path}")
            assert lazy_status == full_status == 200, (path, lazy_body)
            assert json.loads(lazy_body) == json.loads(full_body), path
        status, body = get(lazy_server.url + "api/level/")
        assert json.loads(body)["total"] == 300
        status, body = get(lazy_server.url + "api/node/12.34")
        assert status == 200 and "Row 12.34" in body and str(12 * 200 + 34) in body
        lazy_hits = json.loads(get(lazy_server.url + "api/search?q=row%2042.19")[1])
        full_hits = json.loads(get(full.url + "api/search?q=row%2042.19")[1])
        assert lazy_hits == full_hits and lazy_hits["total"] >= 1
    finally:
        full.stop()


def test_a_syntax_error_in_a_level_read_late_answers_503_with_line_and_column(tmp_path):
    good = ",\n".join(f'  {{"Title": "Row {i}", "Children": [{{"Title": "Leaf {i}"}}]}}' for i in range(50))
    bad = '  {"Title": "Bad", "Children": [\n    {"Title": "One"},\n    {"Title": tru}\n  ]}'
    path = tmp_path / "damaged.json"
    path.write_text('{"Rows": [\n' + good + ",\n" + bad + "\n]}\n")
    server = Server(path, "--index", "lazy")
    try:
        status, body = get(server.url + "api/level/")
        assert status == 200 and json.loads(body)["total"] == 51
        status, body = get(server.url + "api/level/50")
        assert status == 503, body
        assert "damaged.json:54:15" in body and "invalid literal" in body
        # Every visit fails again; the other levels and the process are fine.
        assert get(server.url + "api/level/50")[0] == 503
        assert get(server.url + "l/50")[0] == 503
        status, body = get(server.url + "api/level/3")
        assert status == 200 and "Leaf 3" in body
        assert server.proc.poll() is None
    finally:
        server.stop()


def test_editing_a_lazily_indexed_file_is_refused(outline):
    proc = subprocess.run([drilldown_binary(), "serve", str(outline), "--index", "lazy", "--editable", "--port", "0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "indexed lazily" in proc.stderr and "read-only" in proc.stderr and "--index full" in proc.stderr
