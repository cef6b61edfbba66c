#!/usr/bin/env python3
"""compare_callgrind.py ORIG.cg OURS.cg PROFILE.xml

Checks a Callgrind file as libcallgraph read it (PROFILE.xml, written by
cgconvert from ORIG.cg) against callgrind_annotate's reading of ORIG.cg:
  - program totals of every event equal the sum of the model's self costs;
  - call counts per (caller, callee) equal those of --tree=caller;
and that callgrind_annotate reads OURS.cg (cgconvert's Callgrind output of
the same profile) with the same per-function self and inclusive costs
and the same call counts as ORIG.cg.  Functions are compared by name
(costs of inlined files summed into their function).
Prints disagreements; exit 1 if any."""
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

orig, ours, xml_path = sys.argv[1:4]
NS = "{urn:x-callgraph:profile:1}"


def annotate(path, *opts):
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no"] + list(opts) + [path],
                         capture_output=True, text=True, check=True)
    if out.stderr.strip():
        print("callgrind_annotate %s warned: %s" % (path, out.stderr.strip()[:300]))
    return out.stdout


def numbers(text):
    return [int(x.replace(",", "")) if x != "." else 0 for x in text.split()]


def totals(text):
    for line in text.splitlines():
        if "PROGRAM TOTALS" in line:
            return [int(x.replace(",", "")) if x != "." else 0
                    for x in re.findall(r"([\d,]+|\.)(?: \([^)]*\))?", line.split("PROGRAM")[0])]
    return None


cost_re = re.compile(r"^((?:\s*(?:[\d,]+(?: \(\s*[\d.]+%\))?|\.)\s+)+)(\D.*)$")


def split_costs(line):
    m = cost_re.match(line)
    if not m:
        return None, None
    vals = [int(x.replace(",", "")) if x != "." else 0 for x in re.findall(r"([\d,]+|\.)(?: \(\s*[\d.]+%\))?", m.group(1))]
    return vals, m.group(2)


def fname(key):
    key = re.sub(r" \[[^\]]*\]$", "", key.strip())
    return key.split(":", 1)[1] if ":" in key else key


def per_function(text, keys=None):
    res = {}
    section = False
    for line in text.splitlines():
        if line.rstrip().endswith("file:function"):
            section = True
            continue
        if not section:
            continue
        vals, rest = split_costs(line)
        if vals is None:
            continue
        name = fname(rest)
        if keys is not None:
            keys[name] = keys.get(name, 0) + 1
        old = res.get(name, [0] * len(vals))
        res[name] = [a + b for a, b in zip(old, vals)]
    return res


def tree_calls(text):
    calls = {}
    pending = []
    for line in text.splitlines():
        m = re.search(r"<\s+(.*) \(([\d,]+)x\)(?: \[[^\]]*\])?$", line)
        if m:
            pending.append((fname(m.group(1) + " [x]"), int(m.group(2).replace(",", ""))))
            continue
        m = re.search(r"\*\s+(.*)$", line)
        if m and pending is not None and "PROGRAM" not in line:
            callee = fname(m.group(1))
            for caller, n in pending:
                calls[(caller, callee)] = calls.get((caller, callee), 0) + n
            pending = []
        elif not line.strip():
            pending = []
    return calls


bad = 0
root = ET.parse(xml_path).getroot()
events = [e.get("name") for e in root.findall(NS + "event")]
names = [f.get("name") for f in root.findall(NS + "function")]
self_sum = [0] * len(events)
model_calls = {}
for part in root.findall(NS + "part"):
    for s in part.findall(NS + "self"):
        self_sum = [a + b for a, b in zip(self_sum, numbers(s.get("costs")))]
    for a in part.findall(NS + "arc"):
        key = (names[int(a.get("caller"))], names[int(a.get("callee"))])
        model_calls[key] = model_calls.get(key, 0) + int(a.get("count"))

o_plain = annotate(orig)
# callgrind's own summary: line may differ from the sum of its cost lines
# by a few events; the sum over callgrind_annotate's function list is
# what it read
o_tot = [0] * len(events)
for vals in per_function(o_plain).values():
    o_tot = [a + b for a, b in zip(o_tot, vals + [0] * (len(events) - len(vals)))]
if o_tot != self_sum:
    print("totals: callgrind_annotate %s, model %s" % (o_tot, self_sum))
    bad += 1
o_calls = tree_calls(annotate(orig, "--tree=caller"))
if o_calls != model_calls:
    for k in sorted(set(o_calls) | set(model_calls)):
        if o_calls.get(k) != model_calls.get(k):
            print("calls %s -> %s: callgrind_annotate %s, model %s" % (k[0], k[1], o_calls.get(k), model_calls.get(k)))
            bad += 1

n_plain = annotate(ours)
if totals(n_plain) != self_sum:
    print("totals of the rewritten file: %s, model %s" % (totals(n_plain), self_sum))
    bad += 1
for opt in ([], ["--inclusive=yes"]):
    keys = {}
    a = per_function(annotate(orig, *opt), keys)
    b = per_function(annotate(ours, *opt))
    for k in sorted(set(a) | set(b)):
        # a function with inlined code from other files is several
        # entries for callgrind_annotate, each a root with its own
        # inclusive cost: only whole functions compare
        if opt and keys.get(k, 0) > 1:
            continue
        if a.get(k) != b.get(k):
            print("%s %s: original %s, rewritten %s" % (" ".join(opt) or "self", k, a.get(k), b.get(k)))
            bad += 1
if tree_calls(annotate(ours, "--tree=caller")) != o_calls:
    print("call counts of the rewritten file differ")
    bad += 1
print("# %d events, %d functions, %d call pairs, totals %s" % (len(events), len(names), len(model_calls), o_tot))
sys.exit(1 if bad else 0)
