"""Requests an attacker sends to `drilldown serve`, with the real binary on loopback: file names
that used to end the process, foreign Host names (DNS rebinding), writes from other origins and
made-up CSRF pairs, half-sent requests, slowloris and idle sockets, too many event streams, and
writes to a read-only server."""
import http.client
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse

import pytest

from conftest import ROOT, Server, drilldown_binary
from webclient import Events, Session

SOUNDS = ROOT / "Examples" / "Sounds"
PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])


def address(server):
    parts = urllib.parse.urlsplit(server.url)
    return parts.hostname, parts.port


def get(server, path, headers=None, method="GET", body=None):
    """(status, headers, body) of one request on a fresh connection."""
    conn = http.client.HTTPConnection(*address(server), timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def sounds_server(tmp_path, *args):
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(SOUNDS / name, tmp_path / name)
    return Server(tmp_path / "sounds.plist", "--schema", tmp_path / "schema.yaml", "--editable", *args)


def closed_within(sock, seconds, trickle=None):
    """Seconds until the server closes `sock` (reads EOF or a reset), sending `trickle` bytes one at
    a time every 0.5 s meanwhile; `None` when still open after `seconds`."""
    start = time.monotonic()
    sock.settimeout(0.5)
    sent = 0
    while time.monotonic() - start < seconds:
        try:
            if sock.recv(4096) == b"":
                return time.monotonic() - start
        except socket.timeout:
            pass
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - start
        if trickle is not None:
            try:
                sock.send(trickle[sent % len(trickle):][:1])
                sent += 1
            except (ConnectionResetError, BrokenPipeError):
                return time.monotonic() - start
    return None


@pytest.fixture
def files_server(tmp_path):
    """A data folder with an image, symlinks inside and out, a symlink to a text file, `x.png.`."""
    folder = tmp_path / "data"
    (folder / "art").mkdir(parents=True)
    (folder / "art" / "kind.png").write_bytes(PNG)
    (folder / "notes.txt").write_text("not an image")
    (tmp_path / "secret.png").write_bytes(PNG)
    os.symlink("notes.txt", folder / "link.png")
    os.symlink("art/kind.png", folder / "inside.png")
    os.symlink(tmp_path / "secret.png", folder / "outside.png")
    (folder / "x.png.").write_bytes(PNG)
    (folder / "data.json").write_text(json.dumps({"Rows": [{"Title": "Album", "image": "art/kind.png"}]}))
    server = Server(folder / "data.json")
    yield server
    server.stop()


def test_no_file_name_ends_the_process(files_server):
    for path in ["/files/link.png", "/files/x.png.", "/files/x.png%2E", "/files/notes.txt"]:
        status, _, _ = get(files_server, path)
        assert status == 404, path
        assert files_server.proc.poll() is None, f"GET {path} ended the server"
    status, headers, body = get(files_server, "/files/inside.png")
    assert (status, headers["Content-Type"], body) == (200, "image/png", PNG)
    assert get(files_server, "/files/outside.png")[0] == 403
    assert get(files_server, "/files/art/kind.png")[0] == 200


def test_a_foreign_host_gets_421_and_allowed_names_are_served(tmp_path):
    server = sounds_server(tmp_path, "--allow-host", "drill.example.com", "--allow-host", "other.example")
    try:
        port = address(server)[1]
        for host in ["rebind.attacker.example", f"rebind.attacker.example:{port}", "localhost.attacker.example"]:
            status, headers, body = get(server, "/", {"Host": host})
            assert status == 421, host
            assert headers["Content-Type"].startswith("text/plain")
            assert b"csrf" not in body and b"Vibrate" not in body
            assert get(server, "/api/level/0", {"Host": host})[0] == 421
        for host in ["127.0.0.1", f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "drill.example.com",
                     "other.example:443"]:
            assert get(server, "/", {"Host": host})[0] == 200, host
    finally:
        server.stop()


def test_instances_sharing_a_session_secret_accept_each_others_sessions_and_others_do_not(tmp_path):
    """Behind one reverse proxy a browser's next request may reach another instance: with one
    --session-secret-file they all accept its session; without, each refuses the others' tokens."""
    secret = tmp_path / "secret"
    secret.write_text("9f1c2b7a5e3d4c6b8a0f1e2d3c4b5a69\n")
    copies = []
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        for file in ("sounds.plist", "schema.yaml"):
            shutil.copy(SOUNDS / file, tmp_path / name / file)
        copies.append(tmp_path / name)
    a = Server(copies[0] / "sounds.plist", "--schema", copies[0] / "schema.yaml", "--editable", "--session-secret-file", secret)
    b = Server(copies[1] / "sounds.plist", "--schema", copies[1] / "schema.yaml", "--editable", "--session-secret-file", secret)
    c = Server(copies[2] / "sounds.plist", "--schema", copies[2] / "schema.yaml", "--editable")
    try:
        session = Session(a.url)  # the cookie and token a page of instance A gave
        headers = {"Content-Type": "application/json", "Cookie": session.cookie, "X-CSRF-Token": session.token}
        status, _, answer = get(b, "/api/edit/add/0", headers, "POST", json.dumps({"title": "Through B"}))
        assert status == 200, answer
        assert "Through B" in [row["title"] for row in json.loads(get(b, "/api/level/0")[2])["rows"]]
        status, _, _ = get(c, "/api/edit/add/0", headers, "POST", json.dumps({"title": "Through C"}))
        assert status == 403
        session.close()
    finally:
        for server in (a, b, c):
            server.stop()
    # A secret too short to sign with, or a file that is not there: a clear error and exit 1.
    (tmp_path / "short").write_text("abc")
    for bad, expected in ((tmp_path / "short", "at least 16"), (tmp_path / "missing", "cannot read")):
        result = subprocess.run([drilldown_binary(), "serve", copies[0] / "sounds.plist", "--port", "0",
                                 "--session-secret-file", bad], capture_output=True, text=True, timeout=30)
        assert result.returncode == 1 and expected in result.stderr, result.stderr


def test_writes_from_other_origins_and_made_up_tokens_are_refused(tmp_path):
    server = sounds_server(tmp_path)
    try:
        host, port = address(server)
        session = Session(server.url)
        body = json.dumps({"title": "Injected"})
        base = {"Content-Type": "application/json", "Cookie": session.cookie, "X-CSRF-Token": session.token}
        for extra in [{"Origin": f"http://localhost:{port + 1}"}, {"Origin": "null"},
                      {"Origin": "http://rebind.attacker.example"}, {"Sec-Fetch-Site": "cross-site"},
                      {"Sec-Fetch-Site": "same-site"}]:
            status, _, answer = get(server, "/api/edit/add/0", {**base, **extra}, "POST", body)
            assert status == 403, extra
            assert "refused" in json.loads(answer)["error"]
        made_up = "0123456789abcdef" * 2
        for cookie in [f"dd_session={made_up}", f"dd_csrf={made_up}"]:
            status, _, _ = get(server, "/api/edit/add/0", {"Content-Type": "application/json", "Cookie": cookie,
                                                           "X-CSRF-Token": made_up}, "POST", body)
            assert status == 403, cookie
            status, _, _ = get(server, "/edit/add/0", {"Content-Type": "application/x-www-form-urlencoded",
                                                       "Cookie": cookie}, "POST", f"title=Injected&csrf={made_up}")
            assert status == 403, cookie
        level = json.loads(get(server, "/api/level/0")[2])
        assert "Injected" not in [row["title"] for row in level["rows"]]
        status, _ = session.post("/api/edit/add/0", {"title": "Mine"})
        assert status == 200
        own = {**base, "Origin": f"http://{host}:{port}", "Sec-Fetch-Site": "same-origin"}
        assert get(server, "/api/edit/add/0", own, "POST", json.dumps({"title": "Also mine"}))[0] == 200
        session.close()
    finally:
        server.stop()


def test_a_read_only_server_answers_writes_with_405_and_allow(files_server):
    for method in ["POST", "PUT", "DELETE"]:
        status, headers, _ = get(files_server, "/api/edit/add/0", {"Content-Type": "application/json"}, method, "{}")
        assert status == 405, method
        assert headers["Allow"] == "GET, HEAD"


def test_half_sent_slowloris_and_idle_connections_are_closed(tmp_path):
    server = sounds_server(tmp_path, "--header-timeout", "2", "--idle-timeout", "3")
    try:
        half = socket.create_connection(address(server))
        half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        slow = socket.create_connection(address(server))
        idle = socket.create_connection(address(server))
        idle.sendall(b"GET /api/level/0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert idle.recv(65536).startswith(b"HTTP/1.1 200")
        waited = closed_within(half, 10)
        assert waited is not None and waited < 4, f"half-sent request still open after {waited}"
        print(f"\nhalf-sent request closed after {waited:.1f} s")
        waited = closed_within(slow, 10, trickle=b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000)
        assert waited is not None and waited < 4, "a slowloris (a byte every 0.5 s) was never dropped"
        print(f"\nslowloris closed after {waited:.1f} s of trickling (header timeout 2 s)")
        waited = closed_within(idle, 10)
        assert waited is not None and waited < 5, "an idle keep-alive socket was never closed"
        assert get(server, "/api/level/0")[0] == 200
        for sock in (half, slow, idle):
            sock.close()
    finally:
        server.stop()


def test_a_request_works_while_200_half_sent_connections_are_open(tmp_path):
    server = sounds_server(tmp_path)
    held = []
    try:
        for _ in range(200):
            sock = socket.create_connection(address(server))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
            held.append(sock)
        start = time.monotonic()
        status, _, _ = get(server, "/api/level/0")
        assert status == 200
        print(f"\na request with 200 half-sent connections open took {(time.monotonic() - start) * 1000:.0f} ms")
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_event_streams_past_the_cap_get_503(tmp_path):
    server = sounds_server(tmp_path, "--max-event-streams", "3")
    try:
        streams = [Events(server.url) for _ in range(3)]
        status, headers, body = get(server, "/events", {"Accept": "text/event-stream"})
        assert status == 503
        assert "Retry-After" in headers
        assert b"--max-event-streams" in body
        streams.pop().close()
        deadline = time.monotonic() + 15
        while True:  # the slot frees as soon as the server sees the connection close
            try:
                streams.append(Events(server.url))
                break
            except AssertionError:
                assert time.monotonic() < deadline, "a closed stream's slot was never freed"
                time.sleep(0.1)
        for stream in streams:
            stream.close()
    finally:
        server.stop()
