#!/usr/bin/env python3
"""gmontool.py OP IN OUT — derive test inputs from a real x86-64 gmon.out.

Ops (the input is a glibc GNU-format file: header, one histogram, arcs):
  bsd        old BSD format (no version word; hz comes from the system)
  bsd44      4.4BSD format (version 0x51879 and profrate in the header)
  bsd44rate  4.4BSD with profrate 1000 (incompatible with a 100 Hz file)
  v0         the same records under a version-0 header
  split      the histogram as two records covering the two halves
  reverse    arc records first, in reverse order, then the histogram
  arcs       arc records only          hist   histogram only
  header     the 20-byte header only
  bb         an extra basic-block record (version 1 layout)
  dimen      a second histogram record with another dimension name
  abbrev     a second histogram record with another dimension letter
  scale      a second histogram record with a different bin size
  overlap    a second histogram record overlapping the first
  badtag     a record with tag 7 appended
  version    version field 2
  trunc-hist-header | trunc-bins | trunc-arc   cut inside such a record
  short      the first 10 bytes
"""
import struct
import sys


def parse(data):
    assert data[:4] == b'gmon', 'not a GNU gmon file'
    pos = 20
    recs = []
    while pos < len(data):
        tag = data[pos]
        if tag == 0:
            lo, hi, n, rate = struct.unpack_from('<QQII', data, pos + 1)
            dim = data[pos + 25:pos + 41]
            bins = list(struct.unpack_from('<%dH' % n, data, pos + 41))
            recs.append(('h', lo, hi, rate, dim, bins))
            pos += 41 + 2 * n
        elif tag == 1:
            recs.append(('a',) + struct.unpack_from('<QQI', data, pos + 1))
            pos += 21
        else:
            raise SystemExit('unexpected tag %d' % tag)
    return recs


def hist(lo, hi, rate, dim, bins):
    return (b'\0' + struct.pack('<QQII', lo, hi, len(bins), rate) + dim +
            struct.pack('<%dH' % len(bins), *bins))


def arc(f, s, c):
    return b'\1' + struct.pack('<QQI', f, s, c)


def header(version=1):
    return b'gmon' + struct.pack('<I', version) + b'\0' * 12


def main():
    op, src, dst = sys.argv[1:4]
    data = open(src, 'rb').read()
    recs = parse(data)
    hs = [r for r in recs if r[0] == 'h']
    arcs = [r for r in recs if r[0] == 'a']
    h = hs[0]
    _, lo, hi, rate, dim, bins = h
    body_h = hist(lo, hi, rate, dim, bins)
    body_a = b''.join(arc(*r[1:]) for r in arcs)
    out = None
    if op in ('bsd', 'bsd44', 'bsd44rate'):
        if op == 'bsd':
            head = struct.pack('<QQI', lo, hi, 20 + 2 * len(bins))
        else:
            r = 1000 if op == 'bsd44rate' else rate
            head = struct.pack('<QQIII', lo, hi, 40 + 2 * len(bins), 0x51879, r) + b'\0' * 12
        out = head + struct.pack('<%dH' % len(bins), *bins)
        out += b''.join(struct.pack('<QQQ', *r[1:]) for r in arcs)
    elif op == 'v0':
        out = header(0) + data[20:]
    elif op == 'split':
        # two records, each a whole number of bins of the same size
        half = len(bins) // 2
        width = (hi - lo) // len(bins)
        mid = lo + half * width
        end = lo + len(bins) * width
        out = header() + hist(lo, mid, rate, dim, bins[:half]) + \
            hist(mid, end, rate, dim, bins[half:]) + body_a
    elif op == 'reverse':
        out = header() + b''.join(arc(*r[1:]) for r in reversed(arcs)) + body_h
    elif op == 'arcs':
        out = header() + body_a
    elif op == 'hist':
        out = header() + body_h
    elif op == 'header':
        out = header()
    elif op == 'bb':
        out = data + b'\2' + struct.pack('<IQQ', 1, lo + 0x10, 5)
    elif op == 'dimen':
        out = data + hist(hi + 0x1000, hi + 0x2000, rate, b'cycles'.ljust(15, b'\0') + b's',
                          [0] * ((0x1000) // ((hi - lo) // len(bins))))
    elif op == 'abbrev':
        out = data + hist(hi + 0x1000, hi + 0x2000, rate, dim[:15] + b'x',
                          [0] * ((0x1000) // ((hi - lo) // len(bins))))
    elif op == 'scale':
        out = data + hist(hi + 0x1000, hi + 0x2000, rate, dim, [0] * 16)
    elif op == 'overlap':
        out = data + hist(lo + 0x10, hi + 0x10, rate, dim, bins)
    elif op == 'badtag':
        out = data + b'\7'
    elif op == 'version':
        out = header(2) + data[20:]
    elif op == 'trunc-hist-header':
        out = header() + body_h[:20]
    elif op == 'trunc-bins':
        out = header() + body_h[:41 + len(bins)]
    elif op == 'trunc-arc':
        out = header() + body_h + body_a[:30]
    elif op == 'short':
        out = data[:10]
    else:
        raise SystemExit('unknown op ' + op)
    open(dst, 'wb').write(out)


if __name__ == '__main__':
    main()
