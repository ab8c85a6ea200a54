#!/usr/bin/env python3
"""Generates an outline-convention JSON file of GROUPS x ROWS rows for the edit benchmarks (never
committed): a root `{"Rows": [...]}` of GROUPS groups `{"Title": "Group G", "Children": [...]}`, each
with ROWS rows `{"Title": "Row G.R", "value": N}`, one per line.

  gen-outline.py --groups 1000 --rows 1000 OUT.json   1,001,000 rows, 3,003,002 nodes, ~47.7 MB
  gen-outline.py --nodes 10000000 OUT.json           as many 1000-row groups as make ~10M nodes

Nodes count every object, key's value and array: 3 per row (object, Title, value), 3 per group
(object, Title, Children) and 2 at the root (object, Rows), so the TreePath G.R is row R of group G
(`/api/edit/rename/500.5` renames row 5 of group 500). Prints the node count and size.
"""
import argparse
import os


def write(out, groups, rows):
    with open(out, "w") as f:
        f.write('{"Rows": [\n')
        for g in range(groups):
            f.write(f'  {{"Title": "Group {g}", "Children": [\n')
            body = ",\n".join(f'     {{"Title": "Row {g}.{r}", "value": {g * rows + r}}}' for r in range(rows))
            f.write(body)
            f.write("\n  ]}" + (",\n" if g < groups - 1 else "\n"))
        f.write("]}\n")
    return 2 + 3 * groups + 3 * groups * rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--groups", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=1000, help="rows per group")
    ap.add_argument("--nodes", type=int, help="about this many nodes: groups = nodes / (3 x rows)")
    a = ap.parse_args()
    groups = max(1, round(a.nodes / (3 * a.rows))) if a.nodes else a.groups
    nodes = write(a.out, groups, a.rows)
    print(f"{a.out}: {groups} groups x {a.rows} rows, {groups * (a.rows + 1)} rows, {nodes} nodes, "
          f"{os.path.getsize(a.out) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
