"""The caps on `/events` with the real binary on loopback: one browser session or one client
address past its share gets 429 while other clients still get streams, a dropped stream's slot
is free at once, and a page refused a stream asks again later instead of giving up or hammering."""
import http.client
import shutil
import time
import urllib.parse

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server

SOUNDS = ROOT / "Examples" / "Sounds"


def sounds_server(tmp_path, *args):
    for name in ("sounds.plist", "schema.yaml"):
        shutil.copy(SOUNDS / name, tmp_path / name)
    return Server(tmp_path / "sounds.plist", "--schema", tmp_path / "schema.yaml", "--editable", *args)


class Stream:
    """`GET /events` on a connection of its own, from `source` (a loopback address) with `cookie`."""

    def __init__(self, url, cookie=None, source="127.0.0.1", headers=None):
        parts = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10, source_address=(source, 0))
        sent = {"Accept": "text/event-stream", **(headers or {})}
        if cookie:
            sent["Cookie"] = f"dd_session={cookie}"
        self.conn.request("GET", "/events", headers=sent)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        if self.status == 200:
            assert self.response.readline().startswith(b"retry:")  # the hello event follows
        else:
            self.body = self.response.read()
            self.conn.close()

    def close(self):
        self.conn.close()


def session(n):
    return f"{n:032x}"


def test_one_client_past_its_share_is_refused_while_other_clients_get_streams(tmp_path):
    server = sounds_server(tmp_path, "--max-event-streams-per-session", "2", "--max-event-streams-per-client", "3")
    streams = []
    try:
        # A browser session past its share: 429, naming the option.
        streams += [Stream(server.url, session(1)) for _ in range(2)]
        assert [s.status for s in streams] == [200, 200]
        refused = Stream(server.url, session(1))
        assert refused.status == 429
        assert refused.response.getheader("Retry-After")
        assert b"--max-event-streams-per-session" in refused.body
        # Another session from the same address is served until the address holds its share;
        # then every session from it is refused, and so is a client without a cookie.
        streams.append(Stream(server.url, session(2)))
        assert streams[-1].status == 200
        for cookie in (session(3), None):
            refused = Stream(server.url, cookie)
            assert refused.status == 429
            assert b"--max-event-streams-per-client" in refused.body
        # A made-up peer header does not make the client someone else.
        assert Stream(server.url, session(4), headers={"X-DrillDown-Peer": "192.0.2.9"}).status == 429
        # Another client (another loopback address) still gets streams.
        streams.append(Stream(server.url, session(5), source="127.0.0.2"))
        streams.append(Stream(server.url, None, source="127.0.0.2"))
        assert [s.status for s in streams[-2:]] == [200, 200]
    finally:
        for stream in streams:
            stream.close()
        server.stop()


def test_the_default_shares_are_4_per_session_and_8_per_address(tmp_path):
    server = sounds_server(tmp_path)
    streams = []
    try:
        streams += [Stream(server.url, session(1)) for _ in range(4)]
        assert Stream(server.url, session(1)).status == 429
        streams += [Stream(server.url, session(2)) for _ in range(4)]
        assert [s.status for s in streams] == [200] * 8
        assert Stream(server.url, session(3)).status == 429
        assert Stream(server.url, session(3), source="127.0.0.2").status == 200
    finally:
        for stream in streams:
            stream.close()
        server.stop()


@pytest.mark.parametrize("cap", [["--max-event-streams-per-session", "2"], ["--max-event-streams", "2"]])
def test_a_dropped_stream_frees_its_slot_within_100_ms(tmp_path, cap):
    server = sounds_server(tmp_path, *cap)
    streams = []
    try:
        streams += [Stream(server.url, session(1)) for _ in range(2)]
        assert [s.status for s in streams] == [200, 200]
        assert Stream(server.url, session(1)).status in (429, 503)
        streams.pop().close()
        dropped = time.monotonic()
        attempts = []
        while time.monotonic() - dropped < 0.1:  # requests sent within 100 ms of the drop
            stream = Stream(server.url, session(1))
            attempts.append(stream.status)
            if stream.status == 200:
                streams.append(stream)
                break
        assert attempts and attempts[-1] == 200, f"no stream within 100 ms of the drop: {attempts}"
    finally:
        for stream in streams:
            stream.close()
        server.stop()


@pytest.mark.parametrize("cap, status", [(["--max-event-streams-per-session", "1"], 429), (["--max-event-streams", "1"], 503)])
def test_a_page_refused_a_stream_follows_changes_once_a_slot_is_free(tmp_path, browser, cap, status):
    server = sounds_server(tmp_path, *cap)
    context = browser.new_context()
    try:
        first = context.new_page()
        first.goto(server.url)
        expect(first.locator("body")).to_have_attribute("data-live", "1")
        second = context.new_page()
        asked = []
        second.on("response", lambda r: asked.append(r.status) if urllib.parse.urlsplit(r.url).path == "/events" else None)
        with second.expect_response(lambda r: urllib.parse.urlsplit(r.url).path == "/events") as refusal:
            second.goto(server.url)
        assert refusal.value.status == status
        first.close()
        # The refused page asks again after a few seconds (not at once, not never) and follows.
        expect(second.locator("body")).to_have_attribute("data-live", "1", timeout=20_000)
        assert asked[0] == status and asked[-1] == 200 and len(asked) <= 3, asked
    finally:
        context.close()
        server.stop()
