#!/usr/bin/env python3
"""Writes a C program with many functions, cycles and self-recursion for
the gprof differential tests:  gen-cycles.py N SEED > prog.c

Function i calls a few functions j > i (a random DAG), some call back to
an earlier function (closing cycles), some call themselves; a depth budget
bounds every recursion.  A few "hot" functions burn time so samples land in
many places; main calls every function once per round."""
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
calls = {i: [] for i in range(n)}
for i in range(n):
    for _ in range(rng.randint(0, 2)):
        j = rng.randint(i + 1, min(n - 1, i + 30)) if i + 1 < n else None
        if j is not None:
            calls[i].append(j)
for _ in range(n // 10):                      # back edges close cycles
    i = rng.randrange(n)
    j = i
    for _ in range(rng.randint(1, 3)):         # walk a forward path
        fwd = [k for k in calls[j] if k > j]
        if not fwd:
            break
        j = rng.choice(fwd)
    if j != i:
        calls[j].append(i)
for i in rng.sample(range(n), n // 20):       # self-recursion
    calls[i].append(i)
hot = set(rng.sample(range(n), max(1, n // 15)))
static = set(rng.sample(range(n), n // 5))

out = ["volatile double sink;"]
for i in range(n):
    out.append("%svoid f%d(int d);" % ("static " if i in static else "", i))
for i in range(n):
    body = []
    if i in hot:
        body.append("  { double s = 0; for (long k = 0; k < %d; k++) s += k * 0.5; sink = s; }"
                    % rng.randint(20000, 120000))
    # enough code per function for glibc's arc table (sized from the text)
    body.append("  sink += d * 1.5; sink -= d * 0.25; sink *= 0.5; sink += %d;" % i)
    body.append("  if (d <= 0) return;")
    for j in calls[i]:
        body.append("  f%d(d - 1);" % j)
    out.append("%svoid f%d(int d)\n{\n%s\n}" % ("static " if i in static else "", i, "\n".join(body)))
out.append("int main(void)\n{\n  for (int r = 0; r < 3; r++) {")
for i in range(n):
    out.append("    f%d(3);" % i)
out.append("  }\n  return 0;\n}")
print("\n".join(out))
