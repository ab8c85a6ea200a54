#!/usr/bin/env python3
"""Writes a large SQLite tree table (layout version 2) straight with sqlite3, for tests and
benchmarks (never committed): the outline convention, shaped like Examples/Sounds so its schema's
`play` action works on every item.

  gen-tree-table.py OUT.sqlite --nodes 1000000 [--groups 1000]

  {Title: Big, Rows: [{Title: "Group g", Children: [{Title: "Item g.i", kind: sound, plays: 0}, …]}, …]}

Item g.i is at TreePath g.i; about 4 nodes per item.
"""
import argparse
import os
import sqlite3

GAP = 1 << 20


def generate(out, nodes, groups):
    if os.path.exists(out):
        os.remove(out)
    items = max(1, (nodes // groups - 3) // 4)
    db = sqlite3.connect(out)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("""CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER, position INTEGER NOT NULL,
                  kind INTEGER NOT NULL, key TEXT, value TEXT, nchildren INTEGER NOT NULL DEFAULT 0)""")
    rows = [(0, None, 0, 0, None, None, 2), (1, 0, 0, 2, "Title", "Big", 0), (2, 0, GAP, 1, "Rows", None, groups)]
    next_id = 3

    def flush():
        db.executemany("INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        rows.clear()

    for g in range(groups):
        group = next_id
        children = group + 2
        rows.append((group, 2, g * GAP, 0, None, None, 2))
        rows.append((group + 1, group, 0, 2, "Title", f"Group {g}", 0))
        rows.append((children, group, GAP, 1, "Children", None, items))
        next_id += 3
        for i in range(items):
            item = next_id
            rows.append((item, children, i * GAP, 0, None, None, 3))
            rows.append((item + 1, item, 0, 2, "Title", f"Item {g}.{i}", 0))
            rows.append((item + 2, item, GAP, 2, "kind", "sound", 0))
            rows.append((item + 3, item, 2 * GAP, 3, "plays", "0", 0))
            next_id += 4
        if len(rows) > 200_000:
            flush()
    flush()
    db.executescript(f"""
        CREATE INDEX nodes_by_parent ON nodes(parent, position);
        CREATE TRIGGER nodes_count_insert AFTER INSERT ON nodes WHEN NEW.parent IS NOT NULL
        BEGIN UPDATE nodes SET nchildren = nchildren + 1 WHERE id = NEW.parent; END;
        CREATE TRIGGER nodes_count_delete AFTER DELETE ON nodes WHEN OLD.parent IS NOT NULL
        BEGIN UPDATE nodes SET nchildren = nchildren - 1 WHERE id = OLD.parent; END;
        CREATE TRIGGER nodes_count_move AFTER UPDATE OF parent ON nodes WHEN OLD.parent IS NOT NEW.parent
        BEGIN
            UPDATE nodes SET nchildren = nchildren - 1 WHERE id = OLD.parent;
            UPDATE nodes SET nchildren = nchildren + 1 WHERE id = NEW.parent;
        END;
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('format', 'drilldown-tree'), ('version', '2'), ('outline', '1'), ('documentFormat', 'json');
    """)
    db.commit()
    db.close()
    return next_id


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--groups", type=int, default=1000)
    a = ap.parse_args()
    n = generate(a.out, a.nodes, a.groups)
    print(f"wrote {a.out}: {n} nodes")


if __name__ == "__main__":
    main()
