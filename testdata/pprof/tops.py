#!/usr/bin/env python3
"""tops.py MODE FILE: per-function flat and cumulative values, one
"name flat cum" line per function, sorted by name, so the tests can compare
what go tool pprof says with what we say.

  top FILE     FILE is the output of `go tool pprof -top` (counts, or
               times with -unit=ns)
  folded FILE  FILE is folded stacks ("a;b;c 42"): flat is the value of
               stacks ending in the function, cum the value of stacks that
               contain it (once per stack, as pprof counts recursion)
  gprof FILE   FILE is a gprof flat profile (cgprof/gprof -b -p): the
               self seconds, divided by --period seconds (default 0.01)
               into samples; cum is left out (printed as -)
"""
import re
import sys


def number(text):
    m = re.fullmatch(r"(-?[0-9.]+)(ns)?", text)
    if not m:
        raise SystemExit("tops.py: cannot read the value %r" % text)
    v = float(m.group(1))
    return int(v) if v == int(v) else v


def top(path):
    rows = {}
    started = False
    for line in open(path, encoding="utf-8", errors="replace"):
        if re.match(r"\s+flat\s+flat%", line):
            started = True
            continue
        if not started or not line.strip():
            continue
        parts = line.split(None, 5)
        if len(parts) < 6:
            continue
        name = parts[5].rstrip("\n")
        flat, cum = number(parts[0]), number(parts[3])
        f0, c0 = rows.get(name, (0, 0))
        rows[name] = (f0 + flat, c0 + cum)
    return rows


def folded(path):
    rows = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, _, value = line.rpartition(" ")
        value = int(value)
        frames = stack.split(";")
        for name in set(frames):
            f0, c0 = rows.get(name, (0, 0))
            rows[name] = (f0, c0 + value)
        f0, c0 = rows[frames[-1]]
        rows[frames[-1]] = (f0 + value, c0)
    return rows


def gprof(path, period):
    rows = {}
    started = False
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.lstrip().startswith("time   seconds"):
            started = True
            continue
        if not started:
            continue
        if not line.strip():
            break
        parts = line.split()
        # %time cumulative self [calls self/call total/call] name
        numeric = 0
        while numeric < len(parts) and re.fullmatch(r"[0-9.]+", parts[numeric]):
            numeric += 1
        name = " ".join(parts[numeric:])
        rows[name] = (round(float(parts[2]) / period), "-")
    return rows


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "top":
        rows = top(path)
    elif mode == "folded":
        rows = folded(path)
    elif mode == "gprof":
        period = float(sys.argv[3]) if len(sys.argv) > 3 else 0.01
        rows = gprof(path, period)
    else:
        raise SystemExit(__doc__)
    cum_wanted = mode != "gprof" and "--flat" not in sys.argv
    for name in sorted(rows):
        flat, cum = rows[name]
        if flat == 0 and (cum == 0 or cum == "-"):
            continue
        print(name, flat, cum) if cum_wanted else print(name, flat)


main()
