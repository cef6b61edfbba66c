#!/usr/bin/env python3
"""one_sample.py GMON_IN GMON_OUT EXE FUNCTION [FILE] -- a gmon.out with the
arcs of GMON_IN and one histogram sample, inside FUNCTION of EXE.

Without FILE the sample is in the middle of FUNCTION; with FILE (a base
name, e.g. a header whose code is inlined there) in the middle of the
longest stretch of FUNCTION's code that the line table gives to FILE, so
that the whole histogram bin holding it belongs to FILE's lines.  This is
what a short run may record: every sample of a function in its inlined
code (tests/gmon-lines-annotate.t).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gmontool  # noqa: E402


def function_range(exe, name):
    out = subprocess.run(['nm', '-S', exe], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == name:
            start = int(f[0], 16)
            return start, start + int(f[1], 16)
    raise SystemExit('%s: no symbol %s with a size' % (exe, name))


def line_rows(exe):
    """[(address, file base name or None at an end of sequence)], by address;
    of several rows at one address the last one counts"""
    out = subprocess.run(['objdump', '--dwarf=decodedline', exe],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r'^(\S+)\s+(\d+|-)\s+(0x[0-9a-f]+)\b', line)
        if m:
            rows[int(m.group(3), 16)] = None if m.group(2) == '-' else m.group(1)
    return sorted(rows.items())


def target_address(exe, function, file):
    lo, hi = function_range(exe, function)
    if file is None:
        return (lo + hi) // 2
    rows = line_rows(exe)
    best = None
    for (addr, name), (end, _n) in zip(rows, rows[1:]):
        if name == file and lo <= addr and end <= hi and (best is None or end - addr > best[1] - best[0]):
            best = (addr, end)
    if best is None:
        raise SystemExit('%s: no code of %s in %s' % (exe, file, function))
    return (best[0] + best[1]) // 2


def main():
    src, dst, exe, function = sys.argv[1:5]
    file = sys.argv[5] if len(sys.argv) > 5 else None
    addr = target_address(exe, function, file)
    out = gmontool.header()
    for rec in gmontool.parse(open(src, 'rb').read()):
        if rec[0] == 'h':
            _, lo, hi, rate, dim, bins = rec
            n = len(bins)
            if not lo <= addr < hi:
                raise SystemExit('%#x is outside the histogram' % addr)
            only = [0] * n
            only[(addr - lo) * n // (hi - lo)] = 1
            out += gmontool.hist(lo, hi, rate, dim, only)
        else:
            out += gmontool.arc(*rec[1:])
    open(dst, 'wb').write(out)
    print('%#x' % addr)


if __name__ == '__main__':
    main()
