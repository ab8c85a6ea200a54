"""Hostile documents (issue 9, items 7-13) against the real binary: `drilldown stats` on each must
finish within 5 s and 600 MB, and either read it (exit 0) or refuse it with a clear message
(exit 1) — never a signal, a hang or a blow-up."""
import math
import os
import struct
import subprocess
import threading

import pytest

from conftest import drilldown_bin

TIME_LIMIT = 5.0
WALL_LIMIT = 60.0
MEMORY_LIMIT_KB = 600 * 1024


def yaml_alias_chain(levels):
    """Each line nests the previous one 1,000 levels deeper: 18,000 levels from 36 KB."""
    text = "a0: &a0 " + "[" * 1000 + "x" + "]" * 1000 + "\n"
    return text + "".join(f"a{i}: &a{i} " + "[" * 1000 + f"*a{i - 1}" + "]" * 1000 + "\n" for i in range(1, levels))


def yaml_merge_fan_out(levels, width):
    text = "a0: &a0 {k0: 0}\n"
    for i in range(1, levels):
        text += f"a{i}: &a{i} {{k{i}: {i}, <<: [" + ", ".join([f"*a{i - 1}"] * width) + "]}\n"
    return text


def yaml_alias_key(levels):
    text = "a0: &a0 [x, x, x, x, x, x, x, x]\n"
    for i in range(1, levels + 1):
        text += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 8) + "]\n"
    return text + f"? *a{levels}\n: v\n"


def yaml_text_bomb():
    text = "s: &s " + "x" * 8000 + "\nl0: &l0 [" + ", ".join(["*s"] * 10) + "]\n"
    for i in range(1, 7):
        text += f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]\n"
    return text


def yaml_node_bomb():
    text = "a0: &a0 [" + ", ".join(["x"] * 10) + "]\n"
    for i in range(1, 10):
        text += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n"
    return text


def bplist(objects, ref_size=1):
    """A bplist00 of already-encoded objects, top object 0, 2-byte offsets."""
    out = bytearray(b"bplist00")
    offsets = []
    for obj in objects:
        offsets.append(len(out))
        out += obj
    table = len(out)
    for o in offsets:
        out += struct.pack(">H", o)
    out += bytes([0, 0, 0, 0, 0, 0, 2, ref_size]) + struct.pack(">QQQ", len(objects), 0, table)
    return bytes(out)


def bplist_string_bomb():
    # Objects 0-4: arrays of ten references to the next; object 5: a 1,800-byte string (2 KB in all).
    arrays = [bytes([0xAA]) + bytes([i + 1] * 10) for i in range(5)]
    return bplist(arrays + [bytes([0x5F, 0x11]) + struct.pack(">H", 1800) + b"x" * 1800])


def bplist_node_bomb():
    return bplist([bytes([0xAA]) + bytes([i + 1] * 10) for i in range(9)] + [bytes([0x09])])


def bplist_date(seconds):
    return bplist([bytes([0x33]) + struct.pack(">d", seconds)])


# name, file name, content, expected exit status, text the message must hold
CASES = [
    ("base60-int", "big.yaml", "n: 1:0:0:0:0:0:0:0:0:0:0:0\nh: 0x10000000000000000\n", 0, "nodes"),
    ("alias-chain-18000", "chain.yaml", yaml_alias_chain(18), 1, "aliases nest deeper than 10000 levels"),
    ("flow-nesting-20000", "deep.yaml", "[" * 20_000 + "]" * 20_000, 1, "nesting deeper than 10000 levels"),
    ("merge-fan-out", "merge.yaml", yaml_merge_fan_out(12, 12), 0, "nodes"),
    ("alias-key", "key.yaml", yaml_alias_key(5), 1, "mapping keys must be scalars"),
    ("alias-bomb-key", "bomb-key.yaml", yaml_alias_key(8), 1, "aliases expand to more than 1000000 nodes"),
    ("yaml-text-bomb", "text.yaml", yaml_text_bomb(), 1, "bytes of text"),
    ("yaml-node-bomb", "nodes.yaml", yaml_node_bomb(), 1, "aliases expand to more than 1000000 nodes"),
    ("bplist-string-bomb", "strings.plist", bplist_string_bomb(), 1, "shared references expand to more than 67108864 bytes of text"),
    ("bplist-node-bomb", "nodes.plist", bplist_node_bomb(), 1, "shared references expand to more than 1000000 nodes"),
    ("bplist-date-10000", "late.plist", bplist_date(3e11), 1, "outside the years 0001 to 9999"),
    ("bplist-date-nan", "nan.plist", bplist_date(math.nan), 1, "outside the years 0001 to 9999"),
    ("openstep-in-json", "o.json", '{"a" = "b";}', 1, "o.json:1:6: error: expected ':'"),
    ("short-unicode-escape", "u.json", b'["\\u\xe5"]', 1, "found byte 0xE5"),
]


def run_measured(args, tmp_path, timeout):
    """Runs `args` (killed after `timeout` s of wall time); returns (exit status or -signal, stdout,
    stderr, CPU seconds, peak RSS in KB). CPU time rather than wall time is what is bounded, so a
    busy machine does not fail the test; the wall-time kill still catches a hang."""
    with open(tmp_path / "stdout", "wb") as out, open(tmp_path / "stderr", "wb") as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err, env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    read = lambda name: (tmp_path / name).read_bytes().decode(errors="replace")  # noqa: E731
    return proc.returncode, read("stdout"), read("stderr"), usage.ru_utime + usage.ru_stime, usage.ru_maxrss


@pytest.mark.parametrize("name,file,content,status,message", CASES, ids=[c[0] for c in CASES])
def test_hostile_input(tmp_path, name, file, content, status, message):
    path = tmp_path / file
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    assert path.stat().st_size < 100_000
    code, out, err, seconds, peak = run_measured([drilldown_bin(), "stats", str(path)], tmp_path, WALL_LIMIT)
    assert code == status, f"{name}: exit {code} (negative = signal)\n{err[-2000:]}"
    assert seconds < TIME_LIMIT, f"{name}: took {seconds:.1f} s of CPU"
    assert peak < MEMORY_LIMIT_KB, f"{name}: peak RSS {peak // 1024} MB"
    assert message in (out if status == 0 else err), f"{name}: {out[-500:]}{err[-2000:]}"
    if status == 1:
        assert err.startswith(f"drilldown: {path}"), err


def test_expansion_limit_flag_raises_the_limit(tmp_path):
    """The error names --expansion-limit, and the flag lets a document that needs it through."""
    path = tmp_path / "many.yaml"
    # 80 MB of text from 9 KB: above the default limit (64 MiB), below a raised one.
    path.write_text("s: &s " + "x" * 8000 + "\nl0: &l0 [" + ", ".join(["*s"] * 100) + "]\n"
                    + "l1: &l1 [" + ", ".join(["*l0"] * 100) + "]\n", encoding="utf-8")
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    refused = subprocess.run([drilldown_bin(), "stats", str(path)], capture_output=True, text=True, timeout=20, env=env)
    assert refused.returncode == 1 and "raise it with --expansion-limit" in refused.stderr, refused.stderr
    raised = subprocess.run([drilldown_bin(), "stats", str(path), "--expansion-limit", "100000"], capture_output=True, text=True,
                            timeout=20, env=env)
    assert raised.returncode == 0, raised.stderr
    converted = subprocess.run([drilldown_bin(), "convert", str(path), str(tmp_path / "many.json"), "--expansion-limit", "100000"],
                               capture_output=True, text=True, timeout=20, env=env)
    assert converted.returncode == 0, converted.stderr


@pytest.mark.parametrize("command", [["find", "x", "--values"], ["tree"]], ids=["find", "tree"])
def test_lazy_index_refuses_nesting_past_the_limit(tmp_path, command):
    """A file opened lazily (--index lazy, as files from 256 MiB are) checks nesting as the full
    read does: 20 000 nested arrays are the full read's error, at its bracket, not a walk of
    20 000 levels (before, `find` on 200 000 levels did not finish in a minute)."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 20_000 + "]" * 20_000)
    code, out, err, seconds, _ = run_measured(
        [drilldown_bin(), command[0], str(path), *command[1:], "--index", "lazy"], tmp_path, WALL_LIMIT)
    assert code == 1, f"exit {code}\n{out[-500:]}{err[-2000:]}"
    assert f"{path}:1:10001: error: nesting deeper than 10000 levels" in err, err[-2000:]
    assert seconds < TIME_LIMIT, f"took {seconds:.1f} s of CPU"


def test_lazy_search_reads_a_deep_file_once(tmp_path):
    """A valid file 9 999 levels deep around 5 MB of numbers: the lazy search reads it once
    (before it rescanned the numbers for every enclosing level: 8.3 s in a release build)."""
    path = tmp_path / "deep-wide.json"
    path.write_text("[" * 9_999 + ",".join(["1"] * 2_500_000) + "]" * 9_999)
    code, out, err, seconds, _ = run_measured(
        [drilldown_bin(), "find", str(path), "x", "--values", "--index", "lazy"], tmp_path, WALL_LIMIT)
    assert code == 0, f"exit {code}\n{err[-2000:]}"
    assert "0 matches" in out + err
    assert seconds < TIME_LIMIT, f"took {seconds:.1f} s of CPU"
