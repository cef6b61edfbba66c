#!/usr/bin/env python3
"""lines_check.py MODE ... -- gmon -> Callgrind per-line costs against
gprof -l and callgrind_annotate (tests/gmon-lines-callgrind.t).

  addr CG GPROF_L_P      every "name (file:line @ addr)" row of gprof -b -l -p
                         has the self seconds the Callgrind file has at that
                         address (us / 1e6, printed as gprof prints: %.2f),
                         and every address with 0.01 s or more is a row
  lines CG GPROF_L_P ANN callgrind_annotate --auto=yes --context=1000 per source
                         line equals the Callgrind file's sum for that line,
                         and gprof -l's rows of that line (each rounded to
                         0.01 s) add up to it within their rounding
  calls CG EXE ANN [--direct]
                         every call site of the Callgrind file is on the
                         line addr2line gives for its address, and
                         callgrind_annotate shows the call under that line;
                         with --direct (programs making only direct calls)
                         every site is also a call instruction to the callee
                         (objdump)
  folded CG FOLDED PLAIN [--per=N]
                         cgconvert -t folded --lines of CG has one frame
                         per (function, line) with CG's self cost there, and
                         per function the sums of the output without --lines
                         (--per=N: CG counts N to one folded unit, and each
                         folded count is within one unit of CG's / N)
Prints what differs and exits 1.
"""
import collections
import os
import re
import subprocess
import sys


def parse_callgrind(path):
    """self[(addr, file, line)] = us; calls = [(caller, callee, addr, file, line)]"""
    self_cost = collections.Counter()
    per_fn = collections.Counter()
    calls = []
    files, fns = {}, {}
    fl = cur = fn = None
    last_addr, last_line = 0, 0
    instr = False
    pending = None

    def name(table, v):
        m = re.match(r'\((\d+)\)(?: (.*))?$', v)
        if not m:
            return v
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table[m.group(1)]

    def pos(tok, last):
        if tok == '*':
            return last
        if tok[0] in '+-':
            return last + int(tok, 0)
        return int(tok, 0)

    for raw in open(path, encoding='utf-8', errors='replace'):
        line = raw.rstrip('\n')
        if line.startswith('positions:'):
            instr = 'instr' in line.split()
            continue
        m = re.match(r'(fl|fi|fe|fn|cfn|cfi|cfl|cob|ob)=(.*)$', line)
        if m:
            k, v = m.groups()
            if k == 'fl':
                fl = cur = name(files, v)
            elif k in ('fi', 'fe'):
                cur = name(files, v)
            elif k == 'fn':
                fn = name(fns, v)
                cur = fl
            elif k == 'cfn':
                callee = name(fns, v)
            elif k in ('cfi', 'cfl'):
                name(files, v)
            continue
        if line.startswith('calls='):
            pending = callee
            continue
        if not line or not (line[0].isdigit() or line[0] in '+-*'):
            continue
        toks = line.split()
        if instr:
            last_addr = pos(toks[0], last_addr)
            toks = toks[1:]
        last_line = pos(toks[0], last_line)
        costs = [int(t) for t in toks[1:]] or [0]
        if pending is not None:
            calls.append((fn, pending, last_addr, cur, last_line))
            pending = None
        else:
            self_cost[(last_addr, cur, last_line)] += costs[0]
            per_fn[(fn, cur if cur != fl else None, last_line)] += costs[0]
    parse_callgrind.per_fn = per_fn
    return self_cost, calls


ROW = re.compile(r'^\s*[\d.]+\s+[\d.]+\s+([\d.]+)\s.*\((\S+):(\d+) @ ([0-9a-f]+)\)$')


def gprof_rows(path):
    rows = []
    for line in open(path):
        m = ROW.match(line)
        if m:
            rows.append((int(m.group(4), 16), os.path.basename(m.group(2)), int(m.group(3)),
                         m.group(1)))
    return rows


def check_addr(cg, gp):
    self_cost, _ = parse_callgrind(cg)
    by_addr = collections.Counter()
    for (addr, _f, _l), us in self_cost.items():
        by_addr[addr] += us
    rows = gprof_rows(gp)
    bad = []
    seen = set()
    for addr, f, l, secs in rows:
        seen.add(addr)
        ours = '%.2f' % (by_addr.get(addr, 0) / 1e6)
        if ours != secs:
            bad.append('%x %s:%d gprof %s, callgrind %s' % (addr, f, l, secs, ours))
    for addr, us in by_addr.items():
        if us >= 5000 and addr not in seen:
            bad.append('%x: %d us in the Callgrind file, no gprof -l row' % (addr, us))
    if not rows:
        bad.append('no gprof -l rows')
    return bad


def annotated_lines(ann):
    """{(basename, line): us}, {(basename, line, callee)} from --context=0"""
    costs, calls = {}, set()
    src = None
    num = header = 0
    for line in open(ann, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = re.match(r'-- Auto-annotated source: (.*)$', line)
        if m:
            src = os.path.basename(m.group(1).strip())
            num = 1
            header = 3  # a rule, the events line, a blank line
            continue
        m = re.match(r'-- line (\d+) -+$', line)
        if m:
            num = int(m.group(1))
            continue
        if src is not None and line.startswith('-----') and header == 0:
            src = None
        if src is None or line.startswith('-----'):
            continue
        if header:
            header -= 1
            if header or line.strip() == '':
                continue
        m = re.match(r'^\s*([\d,]+|\.)\s+=> (.*)$', line)
        if m:
            callee = re.sub(r' \([\d,]+x\)$', '', m.group(2))
            callee = callee.split(':', 1)[1] if ':' in callee else callee
            calls.add((src, num - 1, callee))
            continue
        m = re.match(r'^\s*([\d,]+|\.)  ', line)
        if m:
            if m.group(1) != '.':
                costs[(src, num)] = costs.get((src, num), 0) + int(m.group(1).replace(',', ''))
            num += 1
    return costs, calls


def check_lines(cg, gp, ann):
    self_cost, _ = parse_callgrind(cg)
    ours = collections.Counter()
    for (_a, f, l), us in self_cost.items():
        ours[(os.path.basename(f), l)] += us
    annotated, _ = annotated_lines(ann)
    gsum, grows = collections.Counter(), collections.Counter()
    for _addr, f, l, secs in gprof_rows(gp):
        gsum[(f, l)] += float(secs)
        grows[(f, l)] += 1
    bad = []
    files = {f for f, _l in annotated}
    for key in sorted(set(ours) | set(annotated)):
        if key[0] not in files:
            continue
        a, o = annotated.get(key, 0), ours.get(key, 0)
        if a != o:
            bad.append('%s:%d callgrind_annotate %d us, Callgrind file %d us' % (key + (a, o)))
        tol = 0.005 * grows[key] + 1e-9
        if abs(a / 1e6 - gsum[key]) > tol:
            bad.append('%s:%d callgrind_annotate %.6f s, gprof -l %.2f s (%d rows)'
                       % (key + (a / 1e6, gsum[key], grows[key])))
    if not files:
        bad.append('callgrind_annotate annotated no source')
    return bad


def check_calls(cg, exe, ann, direct_only=False):
    _, calls = parse_callgrind(cg)
    _, annotated_calls = annotated_lines(ann)
    files = {f for f, _l, _c in annotated_calls}
    bad = []
    if not calls:
        return ['no call sites']
    addrs = sorted({c[2] for c in calls})
    a2l = subprocess.run(['addr2line', '-e', exe] + ['%x' % a for a in addrs],
                         capture_output=True, text=True, check=True).stdout.split('\n')
    where = {}
    for a, out in zip(addrs, a2l):
        m = re.match(r'(.*):(\d+)', out)
        where[a] = (os.path.basename(m.group(1)), int(m.group(2))) if m else None
    for caller, callee, addr, f, line in calls:
        dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-C',
                              '--start-address=0x%x' % addr, '--stop-address=0x%x' % (addr + 16),
                              exe], capture_output=True, text=True, check=True).stdout
        insn = [l for l in dis.split('\n') if re.match(r'\s*%x:' % addr, l)]
        if not insn or 'call' not in insn[0] or '<%s' % callee.split('(')[0] not in insn[0]:
            if not direct_only:
                continue  # an indirect call or a tail call: gprof's line
            bad.append('%s -> %s at %x: not a call to it: %s'
                       % (caller, callee, addr, insn[0].strip() if insn else 'no instruction'))
        if where.get(addr) != (os.path.basename(f), line):
            bad.append('%s -> %s at %x: line %s:%d, addr2line says %s'
                       % (caller, callee, addr, f, line, where.get(addr)))
        key = (os.path.basename(f), line, callee)
        if key[0] in files and key not in annotated_calls:
            bad.append('%s -> %s: callgrind_annotate shows no call at %s:%d'
                       % (caller, callee, key[0], line))
    return bad


def check_folded(cg, folded, plain, per=1):
    """folded --lines: one frame per (function, line) with the input's
    self cost at that line; per function the sums of the plain output"""
    parse_callgrind(cg)
    want = collections.Counter()
    for (fn, f, l), v in parse_callgrind.per_fn.items():
        if v:
            frame = fn if not l else '%s:%s%d' % (fn, os.path.basename(f) + ':' if f else '', l)
            want[frame] += v
    got = collections.Counter()
    for line in open(folded):
        stack, v = line.rstrip('\n').rsplit(' ', 1)
        got[stack] += int(v)
    # per > 1: CG is in a finer unit (gmon's microseconds, `per` to a
    # sample) and the folded counts are its exact shares rounded
    bad = ['%s: folded %d, input %d' % (k, got[k], want[k])
           for k in sorted(set(want) | set(got))
           if (got[k] != want[k] if per == 1 else abs(got[k] - want[k] / per) >= 1)]
    per_fn = collections.Counter()
    for stack, v in got.items():
        per_fn[re.sub(r'(:[^:;]+)?:\d+$', '', stack)] += v
    plain_fn = collections.Counter()
    for line in open(plain):
        stack, v = line.rstrip('\n').rsplit(' ', 1)
        plain_fn[stack] += int(v)
    bad += ['%s: %d with --lines, %d without' % (k, per_fn[k], plain_fn[k])
            for k in sorted(set(per_fn) | set(plain_fn)) if per_fn[k] != plain_fn[k]]
    if not any(re.search(r':\d+$', k) for k in got):
        bad.append('no frame has a line')
    return bad


def main():
    mode = sys.argv[1]
    if mode == 'addr':
        bad = check_addr(*sys.argv[2:4])
    elif mode == 'lines':
        bad = check_lines(*sys.argv[2:5])
    elif mode == 'calls':
        bad = check_calls(*sys.argv[2:5], direct_only='--direct' in sys.argv[5:])
    elif mode == 'folded':
        per = [int(a[6:]) for a in sys.argv[5:] if a.startswith('--per=')]
        bad = check_folded(*sys.argv[2:5], per=per[0] if per else 1)
    else:
        sys.exit('unknown mode ' + mode)
    for b in bad[:20]:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
