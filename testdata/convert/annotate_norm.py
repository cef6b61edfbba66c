#!/usr/bin/env python3
"""Normalise callgrind_annotate output so that two runs can be compared.

callgrind_annotate walks Perl hashes: the order of the annotated source
files, and of functions whose costs tie, changes from run to run.  This
prints the report with
  - the line naming the input file and its creator (the only line that
    must differ) left out;
  - the lines of each block between dashed rules sorted when the block is
    a function list, and the annotated source blocks sorted by file name.
Everything else (every number, every annotated line) is kept as it is.
"""
import sys

DESC = ("Profile data file",)


def blocks(lines):
    """Split at the dashed rules callgrind_annotate draws."""
    cur = []
    for line in lines:
        if line.startswith("-" * 20):
            yield cur
            cur = []
        else:
            cur.append(line)
    yield cur


def main(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\n") for l in f if not l.startswith(DESC)]
    parts = list(blocks(lines))
    out, sources = [], []
    i = 0
    while i < len(parts):
        b = parts[i]
        head = b[0] if b else ""
        if head.startswith("-- Auto-annotated source:") or head.startswith("-- User-annotated source:"):
            body = parts[i + 1] if i + 1 < len(parts) else []
            sources.append("\n".join([head] + body))
            i += 2
            continue
        # a function list follows its "file:function" column header
        prev = parts[i - 1] if i > 0 else []
        if any(l.rstrip().endswith("file:function") for l in prev):
            out.append("\n".join(sorted(b)))
        else:
            out.append("\n".join(b))
        i += 1
    print("\n=====\n".join(out))
    for s in sorted(sources):
        print("=====")
        print(s)


if __name__ == "__main__":
    main(sys.argv[1])
