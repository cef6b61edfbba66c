#!/usr/bin/env python3
"""gen_folded.py STACKS SEED: STACKS distinct folded stacks ("a;b;c N") of
a made-up program of 3000 functions, depth 4 to 40, for the pprof
benchmark.  Each stack is a distinct call-tree leaf, so the pprof file our
writer makes from it has STACKS samples."""
import random
import sys

stacks, seed = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
names = ["pkg%d.func%d" % (i % 37, i) for i in range(3000)]
out = sys.stdout
prefix = ["main"]
seen = set()
n = 0
while n < stacks:
    # walk down from a random depth of the previous stack: shared prefixes,
    # as in real profiles
    keep = rnd.randint(1, len(prefix))
    prefix = prefix[:keep]
    for _ in range(rnd.randint(1, 6)):
        if len(prefix) < 40:
            prefix.append(names[rnd.randrange(len(names))])
    if len(prefix) < 4:
        continue
    key = ";".join(prefix)
    if key in seen:
        continue
    seen.add(key)
    out.write("%s %d\n" % (key, rnd.randint(1, 50)))
    n += 1
