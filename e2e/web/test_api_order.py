"""Every JSON answer of the API has a fixed key order (issue 30 item 5): two server processes on
the same data answer every read and every write with the same bytes. Swift seeds its hashing per
process, so without a fixed order the keys of an object came out in a different order each run."""
import json
import shutil
import urllib.request

import pytest

from conftest import ROOT, Server
from webclient import Session

READS = [
    "api/level", "api/level/0", "api/level/0.0?offset=1&limit=3", "api/node", "api/node/0.0.0", "api/node/0.0",
    "api/search?q=blue", "api/search?q=a&values=1&limit=5", "api/outline?all=1", "api/outline?open=0,0.1&focus=0.1.0",
    "api/level/9.9", "api/search?q=%20",
]


def body(url):
    try:
        with urllib.request.urlopen(url) as response:
            return response.read()
    except urllib.error.HTTPError as error:
        return error.read()


def test_two_processes_answer_every_read_with_the_same_bytes():
    servers = [Server(), Server()]
    try:
        for path in READS:
            first, second = (body(s.url + path) for s in servers)
            assert first == second, f"{path}: {first[:200]!r} != {second[:200]!r}"
            # The keys of every object are sorted: the order is the documented one, not only a shared one.
            def sorted_keys(pairs):
                keys = [k for k, _ in pairs]
                assert keys == sorted(keys, key=lambda k: k.encode()), f"{path}: keys {keys} are not sorted"
                return dict(pairs)
            json.loads(first, object_pairs_hook=sorted_keys)
    finally:
        for s in servers:
            s.stop()


def test_two_processes_answer_the_same_writes_with_the_same_bytes(tmp_path):
    servers = []
    for k in range(2):
        folder = tmp_path / f"copy{k}"
        folder.mkdir()
        for name in ("sounds.plist", "schema.yaml"):
            shutil.copy(ROOT / "Examples" / "Sounds" / name, folder / name)
        servers.append(Server(folder / "sounds.plist", "--schema", folder / "schema.yaml", "--editable"))
    writes = [
        ("/api/edit/rename/1", {"title": "Common"}),
        ("/api/edit/batch", {"changes": [{"op": "move", "paths": ["0.1", "0.3"], "to": "1", "index": 0}]}),
        ("/api/edit/batch", {"changes": [{"op": "delete", "paths": ["1.0", "0.0"]}]}),
        ("/api/edit/batch", {"changes": [{"op": "teleport", "path": "0"}]}),
        ("/api/edit/undo", None),
        ("/api/edit/delete/9", {}),
    ]
    try:
        sessions = [Session(s.url) for s in servers]
        for path, fields in writes:
            answers = [x.send("POST", path, fields)[2] for x in sessions]
            assert answers[0] == answers[1], f"{path}: {answers[0]!r} != {answers[1]!r}"
        assert b'"error"' in answers[0]
        for path in ["api/level/1", "api/outline?all=1", "api/node/1.0"]:
            assert body(servers[0].url + path) == body(servers[1].url + path), path
    finally:
        for s in servers:
            s.stop()
