"""Issue 28, item 5 against the real binary: writers and readers within a memory budget.

A 40 KB JSON file of 10 000 nested arrays around 10 000 numbers writes back, indented, as 400 MB of
JSON, 200 MB of YAML or XML and 800 MB of OpenStep. Before, the writers built that in one array and
an address-space limit turned its growth into an abort (signal 6), and the YAML reader reserved a
node per two bytes of input (5 GB for a 400 MB file) and aborted too. Now `convert` refuses an output
over --max-output with its size and leaves the output file as it was, the writers stream in bounded
memory, and a reservation the system refuses is an error with exit status 1.
"""
import os

import pytest

from conftest import drilldown_bin
from test_hostile import CASES, run_measured

ADDRESS_SPACE = 1_500_000_000
WALL_LIMIT = 60.0


def deep_and_wide(depth=9_999, width=10_000):
    """About 40 KB: `depth` nested arrays around `width` numbers."""
    return "[" * depth + "0," * (width - 1) + "0" + "]" * depth


def deep_yaml(path, depth, width):
    """The same shape as block YAML the way the writer writes it: `depth` dashes on the first line,
    then a number per line indented by the depth. `depth + width` nodes."""
    with open(path, "w") as f:
        f.write("- " * depth + "0\n")
        pad = " " * (2 * (depth - 1))
        for i in range(1, width):
            f.write(f"{pad}- {i}\n")


def limited(args, address_space=ADDRESS_SPACE):
    return ["prlimit", f"--as={address_space}", drilldown_bin(), *map(str, args)]


CORPUS = [(name, file, content) for name, file, content, _, _ in CASES] + [("deep-and-wide", "wide.json", deep_and_wide())]


@pytest.mark.parametrize("name,file,content", CORPUS, ids=[c[0] for c in CORPUS])
def test_the_hostile_corpus_ends_in_an_exit_status_under_an_address_space_limit(tmp_path, name, file, content):
    """Read (`stats`) and converted to the two most expanding text formats under 1.5 GB of address
    space: exit 0, or 1 with a message, never a signal."""
    path = tmp_path / file
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    assert path.stat().st_size < 100_000
    for command in (["stats", path], ["convert", path, tmp_path / "out.json"], ["convert", path, tmp_path / "out.strings"]):
        code, out, err, _, _ = run_measured(limited(command), tmp_path, WALL_LIMIT)
        assert code in (0, 1), f"{name} {command[0]} {command[-1]}: exit {code} (negative = signal)\n{err[-2000:]}"
        if code == 1:
            assert err.startswith("drilldown: ") and ": error: " in err, err[-2000:]


def test_convert_refuses_an_output_over_the_limit_and_writes_no_file(tmp_path):
    source = tmp_path / "wide.json"
    source.write_text(deep_and_wide())
    assert source.stat().st_size < 41_000
    out = tmp_path / "out.json"
    code, _, err, _, peak = run_measured(limited(["convert", source, out]), tmp_path, WALL_LIMIT)
    assert code == 1, f"exit {code}\n{err[-2000:]}"
    assert (f"drilldown: {out}: error: not written: the JSON output would be 399989999 bytes (381 MiB), over the output "
            "limit of 256 MiB (the default: 64 × the input's 39 KiB, at least 256 MiB, at most half the memory available); "
            "raise it with --max-output, e.g. --max-output 382M") in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stderr", "stdout", "wide.json"], "no output, no temporary file left"
    assert peak < 200 * 1024, f"refusing took {peak // 1024} MB"

    # An output that exists is left as it was.
    out.write_text("{}")
    code, _, err, _, _ = run_measured(limited(["convert", source, out, "--to", "openstep"]), tmp_path, WALL_LIMIT)
    assert code == 1 and "the OpenStep property list output would be 799910003 bytes" in err, err
    assert out.read_text() == "{}"

    # An explicit limit is named; one the output fits is written, streamed (bounded memory).
    yaml_out = tmp_path / "out.yaml"
    code, _, err, _, _ = run_measured(limited(["convert", source, yaml_out, "--max-output", "100M"]), tmp_path, WALL_LIMIT)
    assert code == 1 and "over the output limit of 100 MiB (--max-output 100M)" in err, err
    assert not yaml_out.exists()
    code, _, err, _, peak = run_measured(limited(["convert", source, yaml_out, "--max-output", "300M"]), tmp_path, WALL_LIMIT)
    assert code == 0, err
    assert yaml_out.stat().st_size == 200_000_000
    assert peak < 200 * 1024, f"writing 200 MB took {peak // 1024} MB"
    yaml_out.unlink()


def test_max_output_takes_sizes_and_refuses_anything_else(drilldown, tmp_path):
    source = tmp_path / "a.json"
    source.write_text('{"k": "' + "x" * 2000 + '"}')
    for size in ["1M", "2k", "2048", "1.5G", "64KiB"]:
        drilldown("convert", source, tmp_path / "b.yaml", "--max-output", size, check=0)
    proc = drilldown("convert", source, tmp_path / "c.yaml", "--max-output", "1K", check=1)
    assert "over the output limit of 1 KiB (--max-output 1K)" in proc.stderr, proc.stderr
    for bad in ["12X", "-1G", "", "1e9"]:
        proc = drilldown("convert", source, tmp_path / "d.yaml", "--max-output", bad, check=2)
        assert "--max-output" in proc.stderr, proc.stderr


def test_a_deep_yaml_file_reads_in_what_its_nodes_need(tmp_path):
    """20 MB of deep block YAML holds 7 000 nodes. Reserving a node per two bytes of it took
    260 MB of address space, and under a 400 MB limit the reader aborted (signal 6); it now counts
    the bytes that can start a node when the size-based reservation cannot be had."""
    path = tmp_path / "deep.yaml"
    deep_yaml(path, 2_000, 5_000)
    assert 19_000_000 < path.stat().st_size < 21_000_000
    code, out, err, _, _ = run_measured(limited(["stats", path], 400_000_000), tmp_path, WALL_LIMIT)
    assert code == 0, f"exit {code} (negative = signal)\n{err[-2000:]}"
    assert "nodes         7000" in out, out
