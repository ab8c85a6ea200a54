#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (Fuzz/Corpus/TARGET/): the examples and the bundled example in
every format, plus small documents that use each reader's rarer features. Run from anywhere;
the output is committed, so Scripts/fuzz.sh needs no Python. Needs PyYAML."""
import datetime
import json
import pathlib
import plistlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "Fuzz" / "Corpus"

DATA = {
    "data": ROOT / "Examples" / "Data.plist",
    "music": ROOT / "Examples" / "Music" / "library.yaml",
    "planets": ROOT / "Examples" / "Planets" / "planets.json",
    "sounds": ROOT / "Examples" / "Sounds" / "sounds.plist",
    "bundled": ROOT / "Sources" / "drilldown" / "Bundled" / "Music" / "library.yaml",
}
SCHEMAS = {
    "music": ROOT / "Examples" / "Music" / "schema.yaml",
    "planets": ROOT / "Examples" / "Planets" / "schema.yaml",
    "sounds": ROOT / "Examples" / "Sounds" / "schema.yaml",
    "bundled": ROOT / "Sources" / "drilldown" / "Bundled" / "Music" / "schema.yaml",
}


def load(path: pathlib.Path):
    if path.suffix == ".plist":
        return plistlib.loads(path.read_bytes())
    if path.suffix == ".json":
        return json.loads(path.read_text())
    return yaml.safe_load(path.read_text())


def plain(value):
    """The value with what JSON lacks (dates, bytes, None for plists) turned into text."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    return "" if value is None else value


def openstep(value, indent=""):
    """OpenStep text: every scalar a quoted string, dictionaries and arrays nested."""
    inner = indent + "    "
    if isinstance(value, dict):
        body = "".join(f"{inner}{quote(k)} = {openstep(v, inner)};\n" for k, v in value.items())
        return "{\n" + body + indent + "}"
    if isinstance(value, list):
        return "(\n" + ",\n".join(inner + openstep(v, inner) for v in value) + "\n" + indent + ")"
    if isinstance(value, bool):
        return quote("YES" if value else "NO")
    return quote(str(value))


def quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


EXTRAS = {
    "json": [
        b'{"s": "\\u00e9\\uD83D\\uDE00 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t", "n": -0.5e-3, "i": 12345678901234567890,'
        b' "t": true, "f": false, "z": null, "a": [[], {}, [1, [2, [3]]]]}',
        b'\xef\xbb\xbf[1, 2.5, -3, "x"]',
        b'"a lone string"',
    ],
    "plist-xml": [
        b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN"'
        b' "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n'
        b'<!-- a comment --><key>s</key><string>&lt;&amp;&gt;&quot;&apos; &#233; &#x1F600; &#0;</string>\n'
        b'<key>c</key><string><![CDATA[<raw> & ]]></string>\n<key>i</key><integer>-0x1F</integer>\n'
        b'<key>r</key><real>-1.5e3</real>\n<key>d</key><date>2024-02-29T12:00:00Z</date>\n'
        b'<key>b</key><data>AAEC/w==</data>\n<key>t</key><true/><key>f</key><false/>\n'
        b'<key>e</key><array/><key>o</key><dict/><key>x</key><string/>\n</dict>\n</plist>\n',
        b'<plist><array><integer>1</integer><real>2</real></array></plist>',
    ],
    "openstep": [
        b'// a comment\n/* another */\n{ "s" = "\\n\\t\\"\\U00e9\\101"; d = <0fbd 7788>; \'q\' = \'x\';'
        b' a = (1, 2, (3,), {}); u = $a_b+c/d:e.f-g; }',
        b'"key" = "value";\n"shorthand";\n/* a .strings file */\n',
        b'\xff\xfe(\x00a\x00,\x00b\x00)\x00',
    ],
    "yaml": [
        b'%YAML 1.1\n---\nbase: &b { x: 1, y: [a, b] }\nuse:\n  <<: *b\n  z: !!binary AAEC\n'
        b'n: [0x1F, 0o17, 0b101, 1_000, 1:20:30, .inf, -.Inf, .nan, ~, yes, off, 2002-12-14,'
        b' 2001-12-14t21:59:43.10-05:00]\ns: |\n  literal\n  text\nf: >-\n  folded\n  text\n'
        b'q: "\\x41\\u00e9\\U0001F600"\n? complex key\n: value\n',
        b'- [a, b]\n- {c: d}\n- !!str 12\n- \'single \'\' quote\'\n',
    ],
    "schema": [
        b'{"title": "T", "root": "a", "titleKeys": ["name"], "kinds": {"a": {"title": "{name}",'
        b' "subtitle": "{n|number} {d|date} {b|bytes} {s|upper}", "image": "{art}", "children": "items",'
        b' "childKind": "b", "select": "action:play", "accessory": "detail", "match": ["name", "n"],'
        b' "formats": {"n": "number|bytes"}, "controls": [{"switch": "on"}, {"slider": "v", "min": 0, "max": 9,'
        b' "step": 0.5}, {"stepper": "s"}, {"button": "Play", "action": "play"}]}, "b": {"select": "none"}},'
        b' "actions": {"play": {"increment": "plays", "by": 2}, "ping": {"setNow": "at"}, "like": {"toggle": "f"},'
        b' "arch": {"set": "state=archived"}}, "levels": [{"table": "t", "title": "name", "key": "id",'
        b' "parent": "p", "order": "year DESC", "name": "n", "children": "c", "kind": "a"}]}',
    ],
}


def main():
    values = {name: load(path) for name, path in DATA.items() if name != "bundled" or path.read_bytes() != DATA["music"].read_bytes()}
    for target in ["json", "plist-xml", "plist-binary", "openstep", "yaml", "schema"]:
        (OUT / target).mkdir(parents=True, exist_ok=True)
    for name, value in values.items():
        p = plain(value)
        (OUT / "json" / f"{name}.json").write_text(json.dumps(p, indent=1, ensure_ascii=False) + "\n")
        (OUT / "plist-xml" / f"{name}.plist").write_bytes(plistlib.dumps(p))
        (OUT / "plist-binary" / f"{name}.bplist").write_bytes(plistlib.dumps(p, fmt=plistlib.FMT_BINARY))
        (OUT / "openstep" / f"{name}.openstep").write_text(openstep(value) + "\n")
        (OUT / "yaml" / f"{name}.yaml").write_text(yaml.safe_dump(value, allow_unicode=True, sort_keys=False))
    for name, path in SCHEMAS.items():
        if name == "bundled" and path.read_bytes() == SCHEMAS["music"].read_bytes():
            continue
        (OUT / "schema" / f"{name}.json").write_text(json.dumps(load(path), indent=1) + "\n")
    sample = {"s": "é \"q\" <&>", "i": -12, "big": 2**63 + 5, "r": 1.5, "t": True, "f": False,
              "d": datetime.datetime(2024, 2, 29, 12, 0, 0), "b": b"\x00\x01\xff", "a": [[], {}, [1, [2]]]}
    (OUT / "plist-binary" / "types.bplist").write_bytes(plistlib.dumps(sample, fmt=plistlib.FMT_BINARY))
    (OUT / "plist-binary" / "utf16.bplist").write_bytes(plistlib.dumps(["ünïcødé 😀", "ascii"], fmt=plistlib.FMT_BINARY))
    for target, docs in EXTRAS.items():
        for i, doc in enumerate(docs):
            ext = {"json": "json", "plist-xml": "plist", "openstep": "openstep", "yaml": "yaml", "schema": "json"}[target]
            (OUT / target / f"features-{i}.{ext}").write_bytes(doc)


if __name__ == "__main__":
    main()
