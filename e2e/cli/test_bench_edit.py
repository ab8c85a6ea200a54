"""Smoke test of the edit benchmark (Scripts/bench-edit.py): a `--quick` run on tiny generated inputs
with the binary under test measures every section, checks its renames reached the files, and prints
the targets table; bad options are refused. Numbers are not checked here (a debug build on a shared
machine), only that every measure ran.
"""
import subprocess
import sys

from conftest import ROOT, drilldown_bin

SCRIPT = ROOT / "Scripts" / "bench-edit.py"


def run_bench(*args, timeout=120):
    return subprocess.run([sys.executable, str(SCRIPT), "--bin", drilldown_bin(), *args],
                          capture_output=True, text=True, timeout=timeout)


def test_a_quick_run_measures_every_section_and_prints_the_table(tmp_path):
    result = run_bench("--quick", "--timeout", "100", "--data", str(tmp_path / "data"), "--json-out", str(tmp_path / "out.json"))
    out = result.stdout
    assert result.returncode == 0, f"exit {result.returncode}\n{out[-3000:]}\n{result.stderr[-2000:]}"
    assert "FAILED" not in out and "TIMED OUT" not in out, out[-3000:]
    table = out[out.index("measure "):]
    for row in ["one rename via HTTP, JSON file", "one rename via HTTP, SQLite tree table",
                "one rename via HTTP, relational music database", "throughput, JSON file", "server start, JSON file",
                "server memory, JSON file", "server memory, SQLite tree table", "open to first page, SQLite tree table",
                "change → 20 event streams", "a change in the core"]:
        assert row in table, f"no row {row!r} in\n{table}"
    # The renames it timed were acknowledged and are in the files afterwards.
    assert "saved in the file: True" in out and "saved in the table: True" in out, out
    assert (tmp_path / "out.json").exists()
    assert not list((tmp_path / "data").glob("work-*")), "scratch copies are removed"


def test_an_unknown_section_is_refused():
    result = run_bench("--only", "json,nonsense", timeout=30)
    assert result.returncode == 2
    assert "unknown section(s) nonsense" in result.stderr
