"""Property-based tests of the JSON API with schemathesis (PyPI) against live `drilldown serve` processes:
a read-only server on the bundled music library (every GET of /api/openapi.json) and an `--editable`
server on a copy of the Sounds example (every write). Whatever the generated paths, queries
and bodies: no 5xx, every answer has a documented status and content type and matches its schema, and
the server still answers afterwards.

Bounded: a pinned seed and number of examples per operation, one worker, and a hard timeout per run
(schemathesis's coverage phase: boundary values of every parameter and body field; then a
pinned number of random examples per operation). Writes authenticate as the page's own script does: the
session cookie(s) and the `<meta name="csrf-token">` of a first page view, sent from the server's origin.
"""
import http.client
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import urllib.parse

import pytest

from conftest import ROOT, Server

SEED = 20261123
EXAMPLES = int(os.environ.get("DRILLDOWN_FUZZ_EXAMPLES", "20"))
TIMEOUT = 240  # seconds, per run: a guard against a hung server (a run takes ~40-90 s on 2 busy cores)
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
SCHEMATHESIS = pathlib.Path(sys.executable).parent / "schemathesis"



@pytest.fixture(autouse=True)
def need_schemathesis():
    if not SCHEMATHESIS.exists():
        pytest.fail(f"{SCHEMATHESIS} is missing: `pip install schemathesis` into this venv (Scripts/test.sh does)")


def page_session(url):
    """What a browser holds after opening the first page: its cookies and the page's CSRF token."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("GET", "/")
    response = conn.getresponse()
    html = response.read().decode()
    cookies = [h.split(";", 1)[0].strip() for k, h in response.getheaders() if k.lower() == "set-cookie"]
    conn.close()
    match = re.search(r'<meta name="csrf-token" content="([^"]+)"', html)
    assert match, "the editable page has no csrf-token meta tag"
    assert cookies, "the first page view set no session cookie"
    return "; ".join(cookies), match.group(1)


def get_json(url, path, headers=None):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", path, headers=headers or {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, json.loads(body)


def post_json(url, path, headers):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("POST", path, body="{}", headers={"Content-Type": "application/json", **headers})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, json.loads(body)


def schemathesis(server, tmp_path, *args):
    """Runs schemathesis against `server` and fails the test with its report on any failure."""
    origin = server.url.rstrip("/")
    report = tmp_path / "schemathesis.json"
    command = [str(SCHEMATHESIS), "run", f"{origin}/api/openapi.json", "--checks", CHECKS,
               "--max-examples", str(EXAMPLES), "--seed", str(SEED), "--workers", "1",
               "--phases", "coverage,fuzzing", "--request-timeout", "10", "--no-color",
               "--suppress-health-check", "all", "--report", "junit", "--report-junit-path", str(report),
               # /events is a stream that stays open (test_presence.py and test_live*.py follow it).
               "--exclude-path", "/events", *args]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
    except subprocess.TimeoutExpired as timeout:
        out = timeout.stdout.decode(errors="replace") if isinstance(timeout.stdout, bytes) else timeout.stdout
        pytest.fail(f"schemathesis ran past {TIMEOUT} s:\n{out}")
    assert server.proc.poll() is None, f"the server died during the run:\n{run.stdout[-6000:]}"
    assert run.returncode == 0, f"schemathesis found problems:\n{run.stdout[-12000:]}\n{run.stderr[-3000:]}"
    # Still answering, and still the same document.
    status, document = get_json(server.url, "/api/openapi.json")
    assert status == 200 and document["openapi"].startswith("3.")
    return run.stdout


def test_read_only_api_survives_property_based_requests(music_server, tmp_path):
    out = schemathesis(music_server, tmp_path, "--include-method", "GET")
    assert re.search(r"\b[1-9]\d* passed", out), out[-3000:]


@pytest.fixture
def editable_sounds(tmp_path):
    sounds = ROOT / "Examples" / "Sounds"
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(sounds / name, tmp_path / name)
    server = Server(tmp_path / "sounds.plist", "--schema", tmp_path / "schema.yaml", "--editable")
    server.data = tmp_path / "sounds.plist"
    yield server
    server.stop()


def test_editable_api_survives_property_based_requests(editable_sounds, tmp_path):
    cookie, token = page_session(editable_sounds.url)
    origin = editable_sounds.url.rstrip("/")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    out = schemathesis(editable_sounds, run_dir, "--include-method", "POST", "-H", f"Cookie: {cookie}", "-H", f"X-CSRF-Token: {token}",
                       "-H", f"Origin: {origin}")
    assert re.search(r"\b[1-9]\d* passed", out), out[-3000:]
    # Generated writes went through (the page's token was accepted: the revision moved), and the data still reads.
    status, result = post_json(editable_sounds.url, "/api/edit/undo", {"Cookie": cookie, "X-CSRF-Token": token, "Origin": origin})
    assert status == 200 and result["revision"] >= 5, (status, result)
    status, level = get_json(editable_sounds.url, "/api/level")
    assert status == 200 and "rows" in level


@pytest.fixture
def accounts_server(tmp_path):
    """An editable server with accounts (`--users`): an editor `ed` with an API token."""
    sounds = ROOT / "Examples" / "Sounds"
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(sounds / name, tmp_path / name)
    users = tmp_path / "users.yaml"
    binary = os.environ.get("DRILLDOWN_BIN") or str(ROOT / ".build" / "debug" / "drilldown")
    subprocess.run([binary, "user", "add", str(users), "ed", "--role", "editor"], input="pw-ed-correct\n", text=True, check=True, timeout=60)
    token = subprocess.run([binary, "token", "create", str(users), "ed"], capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    server = Server(tmp_path / "sounds.plist", "--schema", tmp_path / "schema.yaml", "--editable", "--users", users)
    server.token = token
    yield server
    server.stop()


def test_accounts_api_sign_in_and_out_survive_property_based_requests(accounts_server, tmp_path):
    """The token-authenticated JSON API (reads and writes, no cookie, no CSRF token), /signin and /signout."""
    origin = accounts_server.url.rstrip("/")
    auth = ("-H", f"Authorization: Bearer {accounts_server.token}", "-H", f"Origin: {origin}")
    run_dir = tmp_path / "api"
    run_dir.mkdir()
    out = schemathesis(accounts_server, run_dir, *auth)
    assert re.search(r"\b[1-9]\d* passed", out), out[-3000:]
    status, level = get_json(accounts_server.url, "/api/level", {"Authorization": f"Bearer {accounts_server.token}"})
    assert status == 200 and "rows" in level
    # The sign-in pages without credentials: generated names and passwords (401, then 429 as failures add up).
    run_dir = tmp_path / "signin"
    run_dir.mkdir()
    out = schemathesis(accounts_server, run_dir, "--include-path-regex", "^/sign(in|out)$", "-H", f"Origin: {origin}")
    assert re.search(r"\b[1-9]\d* passed", out), out[-3000:]
    # Without credentials the API still answers 401 and nothing else.
    status, body = get_json(accounts_server.url, "/api/level")
    assert status == 401 and "rows" not in body
