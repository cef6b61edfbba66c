#!/usr/bin/env python3
"""Prints the jump lines of a Callgrind profile as absolute tuples, one a
line, sorted, counts summed per jump (so a file and its conversion compare
equal however the writer orders and compresses them):
    PART FN | SOURCE-FILE SOURCE-POS -> TARGET-FN TARGET-FILE TARGET-POS KIND COUNTS
Positions are read as the format says: relative to the last position
(the target does not move it; the position line after the jump does).
An independent reading for tests (tests/callgrind-positions.t)."""
import collections
import re
import sys


def main(path):
    tables = {}
    npos = 1
    last = [0]
    part = "1"   # a file without part: lines is part 1
    fl = fi = fn = None
    jfi = jfn = None
    pending = None
    jumps = collections.Counter()

    def name(kind, value):
        m = re.match(r"^\((\d+)\)\s*(.*)$", value)
        if not m:
            return value
        table = tables.setdefault(kind, {})
        if m.group(2):
            table[m.group(1)] = m.group(2)
        return table[m.group(1)]

    def position(fields):
        out = []
        for i in range(npos):
            f = fields[i]
            if f == "*":
                out.append(last[i])
            elif f[0] in "+-":
                out.append(last[i] + int(f, 0))
            else:
                out.append(int(f, 0))
        return out

    for raw in open(path, encoding="latin-1"):
        line = raw.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^([a-z]+):\s*(.*)$", line)
        if m:
            key = m.group(1)
            if key == "positions":
                npos = len(m.group(2).split())
                last = [0] * npos
            elif key == "part":
                part = m.group(2)
                tables = {}
            continue
        m = re.match(r"^([a-z]+)=(.*)$", line)
        if m:
            key, value = m.group(1), m.group(2)
            if key == "fl":
                fl = fi = name("fl", value)
            elif key in ("fi", "fe"):
                fi = name("fl", value)
            elif key == "fn":
                fn = name("fn", value)
                fi = fl
            elif key in ("cfi", "cfl"):
                name("fl", value)
            elif key == "cfn":
                name("fn", value)
            elif key in ("ob", "cob"):
                name("ob", value)
            elif key == "jfi":
                jfi = name("fl", value)
            elif key == "jfn":
                jfn = name("fn", value)
            elif key in ("jump", "jcnd"):
                fields = value.split()
                counts = fields[0]
                target = position(fields[1:])
                pending = (key, counts, jfn or fn, jfi or fi, target)
                jfi = jfn = None
            continue
        fields = line.split()
        pos = position(fields)
        last = pos
        if pending:
            kind, counts, tfn, tfile, target = pending
            pending = None
            key = (str(part), fn, fi, tuple(pos), tfn, tfile, tuple(target), kind)
            if kind == "jcnd":
                followed, executed = counts.split("/")
                jumps[key + ("followed",)] += int(followed)
                jumps[key + ("executed",)] += int(executed)
            else:
                jumps[key + ("followed",)] += int(counts)
    for key in sorted(jumps, key=repr):
        print(" ".join(map(str, key)), jumps[key])


if __name__ == "__main__":
    main(sys.argv[1])
