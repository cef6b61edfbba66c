"""Compares the Python binding with cProfile.

  pyprof.py cprofile DIR STATS   from a cProfile stats file (-o STATS)
  pyprof.py cgtree DIR CGTREE    from a calls-mode cgtree of cgrun

Both print the same normalised lines, for the functions defined in files
under DIR (the script and its modules; library internals are left out, as
their caches differ between a plain run and one under cProfile):

  total FILE:LINE:NAME N        calls of the function, resumptions included
  arc CALLER -> CALLEE N        calls from a function under DIR to any other

Python functions are FILE:LINE:NAME (NAME the last part of the qualified
name), built-ins MODULE.NAME or TYPE.NAME, the way the binding names them.
"""
import os
import re
import sys
from collections import defaultdict


def unesc(s):
    if s == "-":
        return None
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s)


def from_cprofile(path):
    import pstats
    st = pstats.Stats(path).stats

    def key(k):
        file, line, name = k
        if file == "~":
            m = re.match(r"<built-in method (\S+)>$", name)
            if m:
                return None, m.group(1)
            m = re.match(r"<method '(\S+)' of '(\S+)' objects>$", name)
            if m:
                return None, m.group(2) + "." + m.group(1)
            return None, name
        return os.path.abspath(file), "%s:%d:%s" % (os.path.abspath(file), line, name)

    total, arcs = {}, defaultdict(int)
    for k, (cc, nc, tt, ct, callers) in st.items():
        file, name = key(k)
        total[name] = (file, nc)
        for c, v in callers.items():
            cfile, cname = key(c)
            arcs[(cfile, cname, name)] += v[0]
    return total, arcs


def from_cgtree(path):
    funcs, nodes = {}, {}
    total, arcs = defaultdict(int), defaultdict(int)
    files = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "func" and w[2] == "name":
                name, file, ln = unesc(w[3]), unesc(w[4]), int(w[5])
                if file:
                    file = os.path.abspath(file)
                    name = "%s:%d:%s" % (file, ln, name.split(".")[-1])
                funcs[w[1]] = name
                files[name] = file
            elif w[0] == "thread":
                nodes = {"0": None}
            elif w[0] == "node":
                nid, parent, fn = w[1], w[2], funcs[w[3]]
                calls, redos, rec = int(w[4]), int(w[5]), int(w[6])
                nodes[nid] = fn
                total[fn] += calls + redos + rec
                if rec:
                    arcs[(files[fn], fn, fn)] += rec
                if nodes[parent] is not None:
                    arcs[(files[nodes[parent]], nodes[parent], fn)] += calls + redos
            elif w[0] == "link":
                fn, parent, calls = funcs[w[3]], w[2], int(w[4])
                total[fn] += calls
                arcs[(files[nodes[parent]], nodes[parent], fn)] += calls
    return {k: (files[k], v) for k, v in total.items()}, arcs


def main():
    kind, top, path = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    total, arcs = (from_cprofile if kind == "cprofile" else from_cgtree)(path)
    under = lambda f: f is not None and f.startswith(top + os.sep)
    out = ["total %s %d" % (n, c) for n, (f, c) in total.items() if under(f)]
    out += ["arc %s -> %s %d" % (a, b, c) for (f, a, b), c in arcs.items() if under(f) and c]
    print("\n".join(sorted(out)))


main()
