"""A small loopback HTTP client for the editable server: a session (cookie + CSRF token) and JSON posts."""
import http.client
import json
import re
import urllib.parse


class Session:
    """One keep-alive connection with its own CSRF session."""

    def __init__(self, url, timeout=30, credentials=None):
        """`credentials`: another session's (cookie, token) to use on this server instead of asking
        for new ones (instances that share a --session-secret-file accept each other's)."""
        parts = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        if credentials:
            self.cookie, self.token = credentials
            return
        self.conn.request("GET", "/")
        response = self.conn.getresponse()
        response.read()
        cookie = response.getheader("Set-Cookie") or ""
        match = re.match(r"dd_session=([0-9a-f]{32})", cookie)
        assert match, f"no session cookie in {cookie!r}"
        self.cookie = match.group(0)
        # The token is the server's HMAC of the session id: taken from the page, never made up.
        self.token = response.getheader("X-CSRF-Token") or ""
        assert re.fullmatch(r"[0-9a-f]{64}", self.token), f"no CSRF token header: {self.token!r}"

    def post(self, path, fields=None):
        """POSTs JSON to `path`; returns (status, decoded JSON)."""
        body = json.dumps(fields or {})
        self.conn.request("POST", path, body=body, headers={
            "Content-Type": "application/json", "Cookie": self.cookie, "X-CSRF-Token": self.token})
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    @property
    def credentials(self):
        return self.cookie, self.token

    def send(self, method, path, fields=None, headers=None):
        """One request with this session's cookie and token (a JSON body when `fields` is given);
        returns (status, headers with lower-case names, body bytes). Any failure (a timeout, a
        reset) closes the connection before it is raised, so the next call starts a new one."""
        body = None if fields is None else json.dumps(fields)
        sent = {"Cookie": self.cookie, "X-CSRF-Token": self.token}
        if body is not None:
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        try:
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            raise
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data

    def close(self):
        self.conn.close()


class Events:
    """A reader of `GET /events` (server-sent events) on its own connection."""

    def __init__(self, url, timeout=10, path="/events", cookie=None):
        parts = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        headers = {"Accept": "text/event-stream", **({"Cookie": cookie} if cookie else {})}
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        name, self.hello = self.next_event()
        assert name == "hello"

    def next_event(self):
        """The next event as (name, data dict)."""
        name, data = "message", ""
        while True:
            line = self.response.fp.readline().decode()
            if line in ("\n", "\r\n", ""):
                if data:
                    return name, json.loads(data)
                if line == "":
                    raise EOFError("the event stream ended")
                continue
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()

    def close(self):
        self.conn.close()
