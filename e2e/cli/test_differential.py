"""Differential tests of every DrillDown writer against the reference readers.

Random documents (fixed seed: unicode with edge code points, numbers at the edges, dates, data,
nesting) are converted by `drilldown convert` into every format. Each output must read back equal
in the reference reader (Python's json, plistlib, PyYAML) and in DrillDown itself (converting the
output to the same format again reproduces it byte for byte), or, where the format cannot hold a
value, the write is refused with exit status 1 and a message naming the node's TreePath.
"""
import base64
import datetime
import json
import math
import plistlib
import random

import pytest
import yaml

SEED = 20_250_923
DOCUMENTS = 14

EDGE_CHARS = [
    "\x00", "\x01", "\x07", "\t", "\n", "\r", "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\xa0", "é", "ß",
    "\u2028", "\u2029", "\ud7ff", "\ue000", "\ufeff", "\ufffd", "\ufffe", "\uffff", "東", "\U0001f600", "\U0010ffff",
    '"', "'", "\\", "#", ":", "-", "?", "&", "*", "!", "|", ">", "%", "@", "`", "{", "}", "[", "]", ",", "<", "=", ";",
    " ", "a", "Z", "0", "9", ".", "_", "/",
]
TRICKY_STRINGS = [
    "", "yes", "No", "on", "OFF", "y", "n", "null", "~", "true", "False", "1e5", "1.0", ".inf", "-.nan", "0x1F", "0o17",
    "017", "0b101", "1:30", "1_000", "2001-01-01", "2001-12-14T21:59:43Z", "<<", "=", "-", "? x", "- y", "a: b", "# c",
    " lead", "trail ", "\ufefflead", "x\ufffey", "\uffff", "multi\nline\n", "\r\n", "tab\tend", "\x00nul",
]
# Characters XML 1.0 cannot hold at all (not even as &#...;).
NOT_XML = {chr(c) for c in range(0x20) if chr(c) not in "\t\n\r"} | {"\ufffe", "\uffff"}

INTS = [0, 1, -1, 2**31 - 1, -(2**31), 2**53 + 1, 2**63 - 1, -(2**63), 10**15, -(10**15)]
BIG_INTS = [2**64, -(2**64) - 1, 10**30, 60**11]
FLOATS = [0.0, -0.0, 1.5, -2.25, 0.1, 1e5, 1e-7, 1e300, -1e300, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
          123456.789, 1e16, 3.0]


def random_string(rng, edge):
    if rng.random() < 0.3:
        return rng.choice(TRICKY_STRINGS)
    pool = EDGE_CHARS if edge else [c for c in EDGE_CHARS if c not in NOT_XML]
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))


def random_scalar(rng, family, edge):
    roll = rng.random()
    if roll < 0.35:
        return random_string(rng, edge)
    if roll < 0.5:
        return rng.choice(INTS + (BIG_INTS if family == "json" else [])) if rng.random() < 0.5 else rng.randint(-(10**12), 10**12)
    if roll < 0.65:
        return rng.choice(FLOATS) if rng.random() < 0.5 else rng.uniform(-1e6, 1e6)
    if roll < 0.75:
        return rng.random() < 0.5
    if family == "json":
        return None if roll < 0.85 else random_string(rng, edge)
    if roll < 0.88:
        seconds = rng.randint(0, 315_537_897_599)  # 0001-01-01 ... 9999-12-31T23:59:59
        return datetime.datetime(1, 1, 1) + datetime.timedelta(seconds=seconds)
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))


def random_value(rng, family, edge, depth=0):
    roll = rng.random()
    if depth >= 5 or (depth > 0 and roll < 0.55):
        return random_scalar(rng, family, edge)
    if roll < 0.78:
        return {random_string(rng, edge): random_value(rng, family, edge, depth + 1) for _ in range(rng.randint(0, 7))}
    return [random_value(rng, family, edge, depth + 1) for _ in range(rng.randint(0, 7))]


def documents():
    rng = random.Random(SEED)
    docs = []
    for i in range(DOCUMENTS):
        family = "json" if i % 2 == 0 else "plist"
        edge = i % 4 != 1  # plist documents 1, 5, 9, 13 hold only XML-safe text
        root = {f"k{j}": random_value(rng, family, edge, 1) for j in range(12)}
        docs.append((i, family, root))
    return docs


def contains(value, predicate):
    if predicate(value):
        return True
    if isinstance(value, dict):
        return any(contains(k, predicate) or contains(v, predicate) for k, v in value.items())
    if isinstance(value, list):
        return any(contains(v, predicate) for v in value)
    return False


def as_json(value):
    """The document as DrillDown's JSON keeps it: dates and data become strings."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    if isinstance(value, datetime.datetime):
        v = value
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}Z"
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


def utc(value):
    """PyYAML's timestamps as naive UTC datetimes."""
    if isinstance(value, dict):
        return {k: utc(v) for k, v in value.items()}
    if isinstance(value, list):
        return [utc(v) for v in value]
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def same(a, b, path="root"):
    """Deep equality that tells bool from int, keeps key order and compares floats by value."""
    assert type(a) is type(b), f"{path}: {a!r} ({type(a).__name__}) != {b!r} ({type(b).__name__})"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)!r} != {list(b)!r}"
        for k in a:
            same(a[k], b[k], f"{path}/{k!r}")
    elif isinstance(a, list):
        assert len(a) == len(b), f"{path}: {len(a)} != {len(b)} elements"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}/{i}")
    elif isinstance(a, float):
        assert a == b or (math.isnan(a) and math.isnan(b)), f"{path}: {a!r} != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def reference_read(fmt, path):
    data = path.read_bytes()
    if fmt == "json":
        return json.loads(data)
    if fmt == "yaml":
        return utc(yaml.load(data.decode("utf-8"), Loader=yaml.SafeLoader))
    if fmt in ("plist", "bplist"):
        return plistlib.loads(data)
    return None  # OpenStep: no reference reader


EXTENSIONS = {"json": "json", "yaml": "yaml", "plist": "plist", "bplist": "bplist", "openstep": "strings"}


@pytest.mark.parametrize("index,family,root", documents(), ids=lambda v: str(v) if isinstance(v, int) else None)
def test_every_writer_reads_back_equal(drilldown, tmp_path, index, family, root):
    source = tmp_path / ("source.json" if family == "json" else "source.plist")
    if family == "json":
        source.write_text(json.dumps(root, ensure_ascii=False), encoding="utf-8")
    else:
        source.write_bytes(plistlib.dumps(root, fmt=plistlib.FMT_BINARY, sort_keys=False))
    every_writer_reads_back_equal(drilldown, tmp_path, index, family, root, source)


def every_writer_reads_back_equal(drilldown, tmp_path, index, family, root, source):
    has_null = contains(root, lambda v: v is None)
    has_big = contains(root, lambda v: isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63)
    not_xml = contains(root, lambda v: isinstance(v, str) and any(c in NOT_XML for c in v))
    for fmt, ext in EXTENSIONS.items():
        out = tmp_path / f"out{index}.{ext}"
        proc = drilldown("convert", source, out, "--to", fmt, timeout=20)
        refused = {
            "plist": has_null or not_xml, "bplist": has_null or has_big, "openstep": has_null,
        }.get(fmt, False)
        if refused:
            assert proc.returncode == 1, f"{fmt}: expected a refusal\n{proc.stderr}"
            assert "TreePath" in proc.stderr, proc.stderr
            assert not out.exists()
            continue
        assert proc.returncode == 0, f"{fmt}: {proc.stderr}"
        # DrillDown reads its own output back to the same tree: writing it again gives the same bytes.
        again = tmp_path / f"again{index}.{ext}"
        drilldown("convert", out, again, "--to", fmt, check=0, timeout=20)
        assert again.read_bytes() == out.read_bytes(), f"{fmt}: DrillDown does not read its own output back equal"
        expected = as_json(root) if fmt == "json" else root
        read = reference_read(fmt, out)
        if read is not None:
            same(expected, read, f"{fmt}")


# Duplicate keys (issue 28, item 6). The reference readers keep the last value of a repeated key
# silently (at the first one's place); DrillDown's rule is to refuse the document, naming the key
# and where it is, so no writer is ever handed a tree that some reader would read differently
# (before, a JSON or binary plist with a duplicate key converted to YAML could not be read back).
DUPLICATES = 6
FIRST, SECOND = "DUPKEY1", "DUPKEY2"  # no random string can hold these (see EDGE_CHARS)


def objects_of(value, found):
    if isinstance(value, dict):
        found.append(value)
        for v in value.values():
            objects_of(v, found)
    elif isinstance(value, list):
        for v in value:
            objects_of(v, found)
    return found


def documents_with_duplicates():
    """Random documents in which one object (the root or a nested one) holds FIRST and SECOND;
    the source file then names both FIRST (SECOND's bytes are rewritten)."""
    rng = random.Random(SEED + 1)
    docs = []
    for i in range(DUPLICATES):
        family = "json" if i % 2 == 0 else "plist"
        root = {f"k{j}": random_value(rng, family, i % 4 != 1, 1) for j in range(6)}
        target = rng.choice(objects_of(root, []))
        items = list(target.items())
        p = rng.randint(0, len(items))
        q = rng.randint(p, len(items))
        items.insert(q, (SECOND, random_scalar(rng, family, False)))
        items.insert(p, (FIRST, random_scalar(rng, family, False)))
        target.clear()
        target.update(items)
        docs.append((i, family, root))
    return docs


@pytest.mark.parametrize("index,family,root", documents_with_duplicates(), ids=lambda v: str(v) if isinstance(v, int) else None)
def test_duplicate_keys_are_refused_by_every_conversion_and_the_reference_reading_converts(drilldown, tmp_path, index, family, root):
    source = tmp_path / ("dup.json" if family == "json" else "dup.plist")
    if family == "json":
        text = json.dumps(root, ensure_ascii=False)
        assert text.count(f'"{SECOND}"') == 1
        text = text.replace(f'"{SECOND}"', f'"{FIRST}"')
        source.write_text(text, encoding="utf-8")
        reference = json.loads(text)
        first, second = text.index(f'"{FIRST}"'), text.rindex(f'"{FIRST}"')
        where = [f"{source}:1:{second + 1}: error: duplicate key '{FIRST}' in object (first at 1:{first + 1})"]
    else:
        data = plistlib.dumps(root, fmt=plistlib.FMT_BINARY, sort_keys=False)
        assert data.count(SECOND.encode()) == 1
        data = data.replace(SECOND.encode(), FIRST.encode())
        source.write_bytes(data)
        reference = plistlib.loads(data)
        members = [k for k in objects_of(root, []) if SECOND in k][0]
        keys = list(members)
        where = [f"{source}: error: duplicate key '{FIRST}' in the dictionary at byte offset",
                 f"(its members {keys.index(FIRST)} and {keys.index(SECOND)})"]
    # The reference readers take it, keeping one value: the document means different things to
    # different readers, so DrillDown refuses it, whatever the output format.
    assert FIRST in json.dumps(reference, default=str) and SECOND not in json.dumps(reference, default=str)
    for fmt, ext in EXTENSIONS.items():
        out = tmp_path / f"out.{ext}"
        proc = drilldown("convert", source, out, "--to", fmt, timeout=20)
        assert proc.returncode == 1, f"{fmt}: a duplicate key was converted\n{proc.stderr}"
        for part in where:
            assert part in proc.stderr, proc.stderr
        assert not out.exists()
    # What the reference readers read (the last value kept) is a document without duplicates:
    # every writer writes it and it reads back equal everywhere.
    clean = tmp_path / ("clean.json" if family == "json" else "clean.plist")
    if family == "json":
        clean.write_text(json.dumps(reference, ensure_ascii=False), encoding="utf-8")
    else:
        clean.write_bytes(plistlib.dumps(reference, fmt=plistlib.FMT_BINARY, sort_keys=False))
    every_writer_reads_back_equal(drilldown, tmp_path, index, family, reference, clean)


def test_a_table_with_a_duplicate_key_is_refused_by_every_writer(drilldown, tmp_path):
    """An SQLite tree table can hold two members with one key (written before the rule, or by hand):
    every document writer refuses it, naming both TreePaths, and writes nothing (before, YAML was
    written and could not be read back)."""
    import sqlite3

    source = tmp_path / "source.json"
    source.write_text(json.dumps({"x": {"a": 1, "b": 2}}))
    table = tmp_path / "t.sqlite"
    drilldown("convert", source, table, check=0)
    with sqlite3.connect(table) as db:
        db.execute("UPDATE nodes SET key = 'a' WHERE key = 'b'")
    for fmt, ext in EXTENSIONS.items():
        out = tmp_path / f"out.{ext}"
        proc = drilldown("convert", table, out, "--to", fmt, check=1)
        assert "duplicate key 'a' at TreePath 0.1 (x/a) (also at TreePath 0.0 (x/a))" in proc.stderr, proc.stderr
        assert not out.exists()
