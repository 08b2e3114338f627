#!/usr/bin/env python3
"""Writes a bench's Markdown table into README.md, so a table is re-measured, never edited.

    some-bench | python3 benches/readme_table.py NAME [--readme PATH]

Replaces everything between the lines `<!-- NAME:start -->` and `<!-- NAME:end -->` with
standard input (a table and the line saying how it was measured). Fails, changing nothing,
when the markers are missing or the input holds no table row.
"""

import argparse
import pathlib
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="the table's marker name, e.g. cli-bench")
    ap.add_argument("--readme", default=str(pathlib.Path(__file__).resolve().parent.parent / "README.md"))
    args = ap.parse_args()

    table = sys.stdin.read().strip("\n")
    if not any(line.startswith("|") for line in table.splitlines()):
        print(f"readme_table: no table row on standard input for {args.name}", file=sys.stderr)
        return 1
    path = pathlib.Path(args.readme)
    lines = path.read_text(encoding="utf-8").split("\n")
    start, end = f"<!-- {args.name}:start -->", f"<!-- {args.name}:end -->"
    try:
        i = lines.index(start)
        j = lines.index(end, i + 1)
    except ValueError:
        print(f"readme_table: {path} has no {start} ... {end} block", file=sys.stderr)
        return 1
    lines[i + 1 : j] = table.split("\n")
    path.write_text("\n".join(lines), encoding="utf-8")
    print(f"readme_table: wrote {args.name} into {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
