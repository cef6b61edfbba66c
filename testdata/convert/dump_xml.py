#!/usr/bin/env python3
"""dump_xml.py PROFILE.xml — prints the model as written by cgconvert -t xml
in a compact, sorted form for exact checks in tests:
    self NAME COSTS            (nonzero self costs, summed over parts)
    arc CALLER > CALLEE count=N [incl=COSTS]
    transparent NAME           (functions flagged transparent)"""
import sys
import xml.etree.ElementTree as ET

NS = "{urn:x-callgraph:profile:1}"
root = ET.parse(sys.argv[1]).getroot()
funcs = root.findall(NS + "function")
names = [f.get("name") for f in funcs]
lines = []
for f in funcs:
    if "transparent" in (f.get("flags") or "").split():
        lines.append("transparent %s" % f.get("name"))
for part in root.findall(NS + "part"):
    for s in part.findall(NS + "self"):
        if any(int(x) for x in s.get("costs").split()):
            lines.append("self %s %s" % (names[int(s.get("fn"))], s.get("costs")))
    for a in part.findall(NS + "arc"):
        if a.get("count") == "0" and not any(int(x) for x in (a.get("inclusive") or "0").split()):
            continue
        incl = a.get("inclusive")
        lines.append("arc %s > %s count=%s%s" % (names[int(a.get("caller"))], names[int(a.get("callee"))],
                                                 a.get("count"), " incl=" + incl if incl is not None else ""))
print("\n".join(sorted(lines)))
