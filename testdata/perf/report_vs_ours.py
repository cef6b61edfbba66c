#!/usr/bin/env python3
"""report_vs_ours.py REPORT FOLDED [TOLERANCE]: compares the per-symbol
overhead of `perf report --no-children --stdio -g none --sort sym` with
the self share of each function in our folded stacks (cgconvert -t folded
of the same perf script), in percentage points.  Symbols perf could not
name (printed as addresses) are compared in sum with our [unknown].
Prints one line per difference beyond TOLERANCE (default 0.1) and exits 1
if there is any; prints the number of symbols compared otherwise."""
import re
import sys

report, folded = sys.argv[1], sys.argv[2]
tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1

theirs = {}
for line in open(report, encoding="utf-8", errors="replace"):
    m = re.match(r"\s*([0-9.]+)%\s+\[.\]\s+(.*\S)\s*$", line)
    if not m:
        continue
    name = m.group(2)
    if re.fullmatch(r"0x[0-9a-f]+", name):
        name = "[unknown]"
    theirs[name] = theirs.get(name, 0.0) + float(m.group(1))

ours, total = {}, 0
for line in open(folded, encoding="utf-8", errors="replace"):
    stack, _, value = line.rstrip("\n").rpartition(" ")
    leaf = stack.split(";")[-1]
    ours[leaf] = ours.get(leaf, 0) + int(value)
    total += int(value)
if not total or not theirs:
    sys.exit("nothing to compare (%d of ours, %d of perf's)" % (total, len(theirs)))

bad = 0
for name in sorted(set(theirs) | set(ours)):
    mine = 100.0 * ours.get(name, 0) / total
    their = theirs.get(name, 0.0)
    if abs(mine - their) > tolerance:
        print("%s: ours %.3f%%, perf report %.2f%%" % (name, mine, their))
        bad += 1
if bad:
    sys.exit(1)
print("%d symbols within %.2f percentage points" % (len(theirs), tolerance))
