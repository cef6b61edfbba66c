#!/usr/bin/env python3
"""png_boxes.py SHOT.png PICTURE.svg [SCALE]: checks that a browser's
screenshot of an SVG flame graph shows each box where the SVG puts it.

For every <rect> with an rgb() fill and at least 4 pixels wide, the row
through the box's middle must hold a run of that colour from the box's
left edge to its right edge (within 1.5 pixels; the 0.5 pixel stroke and
anti-aliasing blur the edges).  Prints one line per box that is not
there ("MISSING name x w"), then "boxes N checked M missing K".
Only the standard library: PNG decoding (8-bit RGB/RGBA, not interlaced,
the format Chromium writes) is done here."""
import re
import struct
import sys
import zlib


def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('not a PNG: ' + path)
    pos, idat = 8, b''
    while pos < len(data):
        n, = struct.unpack('>I', data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit('unsupported PNG layout')
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    shot, svg = sys.argv[1], sys.argv[2]
    scale = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    w, h, bpp, rows = read_png(shot)
    text = open(svg, encoding='utf-8').read()
    boxes = re.findall(r'<title>([^<]*)</title><rect x="([\d.]+)" y="([\d.]+)" '
                       r'width="([\d.]+)" height="([\d.]+)"[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', text)
    checked = missing = 0
    for name, x, y, bw, bh, r, g, b in boxes:
        x, y, bw, bh = float(x) * scale, float(y) * scale, float(bw) * scale, float(bh) * scale
        if bw < 4:
            continue
        checked += 1
        row = rows[int(y + bh / 2)]
        colour = bytes((int(r), int(g), int(b)))
        xs = [i for i in range(w) if bytes(row[i * bpp:i * bpp + 3]) == colour and x - 2 <= i <= x + bw + 2]
        if not xs or min(xs) > x + 1.5 or max(xs) < x + bw - 2.5:
            missing += 1
            print('MISSING %s %.1f %.1f' % (name, x, bw))
    print('boxes %d checked %d missing %d' % (len(boxes), checked, missing))


main()
