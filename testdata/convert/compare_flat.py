#!/usr/bin/env python3
"""compare_flat.py FLAT ANNOTATE CALLGRIND

Checks that callgrind_annotate's view of a Callgrind file written by
cgconvert from gmon.out agrees with cgprof's flat profile (-b -p) of the
same gmon.out: the program total and every function's self time, at the
precision gprof prints (two decimals of a second).  The seconds per
Callgrind unit come from the file's `event:` line ("[1 = X s]").
Prints one line per disagreement; exit 1 if any."""
import re
import sys

flat_path, ann_path, cg_path = sys.argv[1:4]

unit = None
for line in open(cg_path, encoding="utf-8", errors="replace"):
    m = re.match(r"event: \S+ : .*\[1 = (\S+) s\]$", line.rstrip("\n"))
    if m:
        unit = float(m.group(1))
        break
    if line.startswith("events:"):
        break
if unit is None:
    print("no unit stated on the event: line")
    sys.exit(1)

flat = {}
flat_total = 0.0
row = re.compile(r"^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(?:(\d+)\s+([\d.]+)\s+([\d.]+)\s+)?(\S.*)$")
started = False
for line in open(flat_path, encoding="utf-8", errors="replace"):
    if line.lstrip().startswith("time"):
        started = True
        continue
    if not started:
        continue
    m = row.match(line.rstrip("\n"))
    if not m:
        continue
    name = re.sub(r" <cycle \d+>$", "", m.group(7)).strip()
    flat[name] = flat.get(name, 0.0) + float(m.group(3))
    flat_total = float(m.group(2))

ann = {}
ann_total = None
arow = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$")
section = None
for line in open(ann_path, encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if "PROGRAM TOTALS" in line:
        ann_total = int(line.split()[0].replace(",", ""))
        continue
    if line.rstrip().endswith("file:function"):
        section = "fn"
        continue
    if section == "fn":
        if line.startswith("---") and ann:
            break
        m = arow.match(line)
        if not m:
            continue
        key = re.sub(r" \[[^\]]*\]$", "", m.group(2))
        name = key.split(":", 1)[1] if ":" in key else key
        ann[name] = ann.get(name, 0) + int(m.group(1).replace(",", ""))

bad = 0
if ann_total is None:
    print("callgrind_annotate printed no PROGRAM TOTALS")
    bad += 1
elif abs(ann_total * unit - flat_total) > 0.005 + 1e-9:
    print("total: callgrind %.6f s, cgprof %.2f s" % (ann_total * unit, flat_total))
    bad += 1
for name in sorted(set(flat) | set(ann)):
    a = ann.get(name, 0) * unit
    f = flat.get(name, 0.0)
    if abs(a - f) > 0.005 + 1e-9:
        print("%s: callgrind %.6f s, cgprof %.2f s" % (name, a, f))
        bad += 1
print("# compared %d functions, total %.2f s" % (len(set(flat) | set(ann)), flat_total))
sys.exit(1 if bad else 0)
