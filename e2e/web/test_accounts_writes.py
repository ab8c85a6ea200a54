"""Accounts, what a reader downloads and what a writer may move (issue 32, item 2): an OPML download
holds the rows the reader may see, leaving hidden ones out as the CSV one does; and a write is
checked at every row it changes, not only the one it names: deleting or moving a subtree needs the
editor role on all of it, and a move or an outdent needs it at the new parent too (403 naming the
place, nothing written). Real `drilldown serve` processes, users made with `drilldown user add`."""
import json

import pytest
import requests

from test_accounts import DATA, accounts_folder, sign_in, start

USERS = {"nojazz": "editor", "nomiles": "editor", "part": "editor", "rocky": "viewer", "ed": "editor"}
GRANTS = """grants:
  - { user: nojazz, path: "Jazz", role: none }
  - { user: nomiles, path: "Jazz/Miles", role: none }
  - { user: part, path: "Rock/Queen", role: viewer }
  - { user: rocky, path: "Rock", role: editor }"""


@pytest.fixture
def server(tmp_path):
    s = start(accounts_folder(tmp_path, "data.yaml", DATA, USERS, GRANTS))
    yield s
    s.stop()


def post(url, path, session, body):
    cookie, token = session
    r = requests.post(url + path, data=json.dumps(body), timeout=30,
                      headers={"Cookie": cookie, "X-CSRF-Token": token, "Content-Type": "application/json"})
    return r.status_code, r.json()


def titles(url, session, path=""):
    level = requests.get(url + "api/level" + (f"/{path}" if path else ""), headers={"Cookie": session[0]}, timeout=30).json()
    return [row["title"] for row in level["rows"]]


def test_an_opml_download_leaves_out_the_rows_hidden_from_the_reader(server):
    cookie, _ = sign_in(server.url, "nojazz")
    whole = requests.get(server.url + "export/opml", headers={"Cookie": cookie}, timeout=30)
    assert whole.status_code == 200, whole.text
    assert whole.headers["Content-Type"].startswith("text/x-opml")
    assert '<outline text="Rock"' in whole.text and '<outline text="Queen"' in whole.text and '<outline text="Pop"' in whole.text
    assert "Jazz" not in whole.text and "Miles" not in whole.text and "So What" not in whole.text
    assert requests.get(server.url + "export/opml/0", headers={"Cookie": cookie}, timeout=30).status_code == 200
    assert requests.get(server.url + "export/opml/1", headers={"Cookie": cookie}, timeout=30).status_code == 404
    # Someone who sees everything gets everything.
    cookie, _ = sign_in(server.url, "ed")
    assert '<outline text="Miles"' in requests.get(server.url + "export/opml", headers={"Cookie": cookie}, timeout=30).text


def test_moving_or_deleting_a_subtree_needs_the_editor_role_on_all_of_it(server):
    # A subtree holding rows the user may not see is refused without naming them.
    nomiles = sign_in(server.url, "nomiles")
    status, body = post(server.url, "api/edit/delete/1", nomiles, {})
    assert status == 403 and body["error"] == "'Jazz' (1) holds rows nomiles may not change: moving or deleting it needs the editor role on all of it"
    assert titles(server.url, nomiles) == ["Rock", "Jazz", "Pop"] and titles(server.url, nomiles, "1") == []
    part = sign_in(server.url, "part")
    status, body = post(server.url, "api/edit/move/0", part, {"to": "2"})
    assert status == 403 and body["error"] == "part is a viewer at 0.0 inside 'Rock' (0): moving or deleting it needs the editor role on all of it"
    status, body = post(server.url, "api/edit/delete/0", part, {})
    assert status == 403 and "0.0 inside 'Rock' (0)" in body["error"]
    status, body = post(server.url, "api/edit/batch", part, {"changes": [{"op": "indent", "path": "2"}]})
    assert status == 200, body  # Pop under Jazz: no row of Pop is out of part's reach
    assert titles(server.url, part) == ["Rock", "Jazz"] and titles(server.url, part, "1") == ["Miles", "Pop"]


def test_a_move_out_of_the_granted_subtree_is_refused_at_the_new_parent(server):
    rocky = sign_in(server.url, "rocky")
    # An outdent moves Muse to the top level, which rocky only reads.
    status, body = post(server.url, "api/edit/batch", rocky, {"changes": [{"op": "outdent", "path": "0.1"}]})
    assert status == 403 and body["error"] == "rocky is a viewer at the whole data set: changing it needs the editor role"
    status, body = post(server.url, "api/edit/move/0.1", rocky, {"direction": "up"})
    assert status == 200, body  # among its siblings, inside Rock
    assert titles(server.url, rocky) == ["Rock", "Jazz", "Pop"] and titles(server.url, rocky, "0") == ["Muse", "Queen"]
