"""`drilldown user` and `drilldown token` (issue 32 item 1): the accounts file of `serve --users`.
Passwords come from standard input, never the command line, and only bcrypt hashes are stored;
a token is printed once and only its SHA-256 kept."""
import re
import subprocess

import pytest

from conftest import EXAMPLES, drilldown_bin


def run(*args, stdin=None):
    return subprocess.run([drilldown_bin(), *map(str, args)], input=stdin, capture_output=True, text=True, timeout=60)


def test_user_add_reads_the_password_from_stdin_and_stores_a_bcrypt_hash(tmp_path):
    users = tmp_path / "users.yaml"
    added = run("user", "add", users, "ana", "--role", "editor", stdin="s3cret-pass\n")
    assert added.returncode == 0, added.stderr
    text = users.read_text()
    assert "s3cret-pass" not in text
    assert re.search(r"\$2b\$10\$[./A-Za-z0-9]{53}", text)
    assert oct(users.stat().st_mode & 0o777) == "0o600"
    # No way to put the password on the command line.
    assert run("user", "add", users, "bob", "--password", "x").returncode == 2
    assert run("user", "add", users, "bob", "--role", "viewer", stdin="").returncode == 1
    assert run("user", "add", users, "bob", "--role", "viewer", stdin="pw\n").returncode == 0
    listed = run("user", "list", users)
    assert listed.returncode == 0
    assert listed.stdout.splitlines() == ["ana\teditor", "bob\tviewer"]


def test_user_passwd_and_remove(tmp_path):
    users = tmp_path / "users.yaml"
    assert run("user", "add", users, "ana", stdin="first\n").returncode == 0
    before = users.read_text()
    assert run("user", "passwd", users, "ana", stdin="second\n").returncode == 0
    after = users.read_text()
    assert before != after and "second" not in after
    assert run("token", "create", users, "ana").returncode == 0
    removed = run("user", "remove", users, "ana")
    assert removed.returncode == 0
    assert "ana" not in users.read_text()
    missing = run("user", "remove", users, "ana")
    assert missing.returncode == 1 and "no user named 'ana'" in missing.stderr


def test_bad_input_is_exit_1_with_the_reason(tmp_path):
    users = tmp_path / "users.yaml"
    bad_role = run("user", "add", users, "ana", "--role", "owner", stdin="pw\n")
    assert bad_role.returncode == 1 and "'owner' is not a role" in bad_role.stderr
    bad_name = run("user", "add", users, "a b", stdin="pw\n")
    assert bad_name.returncode == 1 and "is not a user name" in bad_name.stderr
    assert not users.exists()
    users.write_text("users:\n  - { name: ana, role: viewer, password: hunter2 }\n")
    broken = run("user", "list", users)
    assert broken.returncode == 1 and "users[0].password: not a bcrypt hash" in broken.stderr
    missing = run("serve", EXAMPLES / "Data.plist", "--users", tmp_path / "none.yaml", "--port", "0")
    assert missing.returncode == 1 and "no such users file" in missing.stderr


def test_tokens_are_printed_once_listed_and_revoked(tmp_path):
    users = tmp_path / "users.yaml"
    assert run("user", "add", users, "ana", stdin="pw\n").returncode == 0
    made = run("token", "create", users, "ana", "--expires", "30d")
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert re.fullmatch(r"ddt_([0-9a-f]{8})_[0-9a-f]{64}", token)
    token_id = token.split("_")[1]
    assert token not in users.read_text() and token.split("_")[2] not in users.read_text()
    listed = run("token", "list", users).stdout.split("\t")
    assert listed[0] == token_id and listed[1] == "ana" and listed[3].strip() != "never"
    assert run("token", "create", users, "ana", "--expires", "soon").returncode == 1
    assert run("token", "create", users, "nobody").returncode == 1
    assert run("token", "revoke", users, token_id).returncode == 0
    assert run("token", "list", users).stdout == ""
    assert run("token", "revoke", users, token_id).returncode == 1


def test_an_editable_server_on_a_public_address_without_accounts_warns(tmp_path):
    data = tmp_path / "data.yaml"
    data.write_text("a: 1\n")
    proc = subprocess.Popen([drilldown_bin(), "serve", data, "--editable", "--host", "0.0.0.0", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "anyone who reaches the port can change the data" in line
        assert "--users" in line
    finally:
        proc.terminate()
        proc.wait(timeout=10)
