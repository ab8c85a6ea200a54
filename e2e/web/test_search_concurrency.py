"""Many users searching at once (issue 12 item 6), on a real `drilldown serve` over loopback:
16 concurrent searches each get the total a search alone gets, and clients that hang up in the
middle of a search neither hurt the others nor leave their search using the CPU."""
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest

from conftest import ROOT, Server

GROUPS, ROWS = 200, 1000  # 200 200 rows, 600 602 nodes
QUERIES = ["row 1", "row 2.", "3.14", "group 9", "row 42", "7.7", "row 100.", "5.55",
           "row 9", "8.", "row 31", "2.99", "row 6.6", "group 12", "4.4", "row 177."]


def titles():
    for g in range(GROUPS):
        yield f"Group {g}"
        for r in range(ROWS):
            yield f"Row {g}.{r}"


@pytest.fixture(scope="module")
def outline_server(tmp_path_factory):
    path = tmp_path_factory.mktemp("search-data") / "outline.json"
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "gen-outline.py"), "--groups", str(GROUPS), "--rows", str(ROWS),
                    str(path)], check=True, capture_output=True)
    server = Server(path)
    yield server
    server.stop()


def port_of(server):
    return int(server.url.rstrip("/").rsplit(":", 1)[1])


def search(server, q, values=False):
    conn = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=120)
    try:
        conn.request("GET", "/api/search?limit=5&q=" + urllib.parse.quote(q) + ("&values=1" if values else ""))
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()


def cpu_seconds(pid):
    """User + system CPU time the process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / 100.0


def test_sixteen_concurrent_searches_all_get_the_right_totals(outline_server):
    all_titles = [t.lower() for t in titles()]
    expected = {q: sum(q in t for t in all_titles) for q in QUERIES}
    assert min(expected.values()) > 0
    results, errors = {}, []
    barrier = threading.Barrier(len(QUERIES))

    def one(q):
        try:
            barrier.wait()
            results[q] = search(outline_server, q)
        except Exception as error:  # reported below with the query
            errors.append((q, repr(error)))

    for _ in range(3):
        threads = [threading.Thread(target=one, args=(q,)) for q in QUERIES]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors
        for q in QUERIES:
            status, body = results[q]
            assert status == 200, (q, body)
            assert body["total"] == expected[q], q
            assert len(body["hits"]) == min(5, expected[q])
            assert all(q in h["title"].lower() for h in body["hits"])
    # The first hits are in document order: "row 1" starts with group 1's rows.
    assert [h["title"] for h in results["row 1"][1]["hits"]][:3] == ["Row 1.0", "Row 1.1", "Row 1.2"]


def server_read(server_port, client_port):
    """How many bytes the server has read from the loopback connection coming from `client_port`:
    what its kernel received (`ss`'s bytes_received) less what still waits unread (Recv-Q)."""
    out = subprocess.run(["ss", "-tinHO", "state", "established", f"( sport = :{server_port} and dport = :{client_port} )"],
                         capture_output=True, text=True, check=True).stdout.split()
    received = next((int(w.split(":")[1]) for w in out if w.startswith("bytes_received:")), 0)
    return received - int(out[0]) if out else 0


def wait_until(check, seconds, message):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, message
        time.sleep(0.005)


def hang_up_mid_search(server, q):
    """Sends a value search and closes the socket without reading the answer, once the server has
    read the request (not after a fixed 20 ms, by which a busy server may not have read it)."""
    s = socket.create_connection(("127.0.0.1", port_of(server)))
    request = f"GET /api/search?values=1&q={urllib.parse.quote(q)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    s.sendall(request)
    client_port = s.getsockname()[1]
    wait_until(lambda: server_read(port_of(server), client_port) >= len(request), 60, "the server never read the request")
    s.close()


def wait_until_idle(pid, seconds=120):
    """Returns once the process has used under 20 ms of CPU in 200 ms: nothing is running any more."""
    deadline = time.monotonic() + seconds
    while True:
        before = cpu_seconds(pid)
        time.sleep(0.2)
        if cpu_seconds(pid) - before < 0.02:
            return
        assert time.monotonic() < deadline, f"the server still uses the CPU after {seconds} s"


def test_clients_that_hang_up_mid_search_stop_their_search_and_do_not_hurt_the_others(outline_server):
    pid = outline_server.proc.pid
    # What one whole value search costs the server (values=1 walks the tree: the slow search).
    before = cpu_seconds(pid)
    status, body = search(outline_server, "99", values=True)
    one_search = cpu_seconds(pid) - before
    assert status == 200 and body["total"] > 0
    assert one_search >= 0.05, f"a value search took only {one_search:.3f} s of CPU: too fast to tell"

    # Eight clients ask for the same search and hang up; meanwhile 16 others search titles.
    before = cpu_seconds(pid)
    hangers = [threading.Thread(target=hang_up_mid_search, args=(outline_server, "99")) for _ in range(8)]
    for t in hangers:
        t.start()
    answers, errors = {}, []

    def one(q):
        try:
            answers[q] = search(outline_server, q)
        except Exception as error:
            errors.append((q, repr(error)))

    threads = [threading.Thread(target=one, args=(q,)) for q in QUERIES]
    for t in threads:
        t.start()
    for t in threads + hangers:
        t.join(timeout=120)
    assert not errors
    all_titles = [t.lower() for t in titles()]
    for q in QUERIES:
        assert answers[q][0] == 200
        assert answers[q][1]["total"] == sum(q in t for t in all_titles), q
    # A search still running would go on using the CPU: waited out, it counts in what was spent.
    wait_until_idle(pid)
    spent = cpu_seconds(pid) - before
    # Eight whole searches would cost 8 × one_search on top of the 16 title searches.
    assert spent < 4 * one_search, f"{spent:.2f} s of CPU after hang-ups (one whole search: {one_search:.2f} s)"
    # And the server still answers.
    status, body = search(outline_server, "99", values=True)
    assert status == 200 and body["total"] > 0
