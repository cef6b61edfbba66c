#!/usr/bin/env python3
"""svg_boxes.py PICTURE.svg BASE.folded NEW.folded: checks cgdiff's
differential flame graph against the folded stacks of the two profiles
(cgconvert -t folded, a separate writer).

Each box's calling context is rebuilt from the geometry alone: its row
(y) gives the depth, and its parent is the box on the row below whose
x-range holds it.  For that path the folded stacks give the new and base
inclusive cost (stacks starting with the path) and self cost (stacks
equal to it); the box's width must be its new inclusive cost's share of
the 1180 pixels between the margins, and its <title> must state all four
numbers.  Every distinct stack prefix of NEW must have its box, and a
context that only BASE has must have none.  Prints one line per problem,
then "boxes N paths M bad K"."""
import re
import sys

WIDTH = 1180.0


def read_folded(path):
    incl, self_ = {}, {}
    for line in open(path, encoding='utf-8'):
        stack, value = line.rstrip('\n').rsplit(' ', 1)
        frames, value = tuple(stack.split(';')), int(value)
        self_[frames] = self_.get(frames, 0) + value
        for i in range(1, len(frames) + 1):
            incl[frames[:i]] = incl.get(frames[:i], 0) + value
    return incl, self_


def main():
    svg, base_f, new_f = sys.argv[1:4]
    base_incl, base_self = read_folded(base_f)
    new_incl, new_self = read_folded(new_f)
    total = sum(v for k, v in new_incl.items() if len(k) == 1)
    text = open(svg, encoding='utf-8').read()
    pat = re.compile(r'<g><title>([^<:]*): inclusive (\d+) -&gt; (\d+) \w+ \([^)]*\); '
                     r'self (\d+) -&gt; (\d+) [^<]*</title><rect x="([\d.]+)" y="([\d.]+)" '
                     r'width="([\d.]+)"')
    boxes = [(m[0], int(m[1]), int(m[2]), int(m[3]), int(m[4]), float(m[5]), float(m[6]),
              float(m[7])) for m in pat.findall(text)]
    bad = 0
    if len(boxes) != text.count('<g><title>'):
        print('UNPARSED %d of %d boxes' % (text.count('<g><title>') - len(boxes), len(boxes)))
        bad += 1
    rows = sorted({b[6] for b in boxes}, reverse=True)
    path_of = {}
    seen = set()
    for depth, y in enumerate(rows):
        for b in (b for b in boxes if b[6] == y):
            name, x, w = b[0], b[5], b[7]
            if depth == 0:
                path = (name,)
            else:
                parents = [p for p in boxes if p[6] == rows[depth - 1] and
                           p[5] - 0.01 <= x and x + w <= p[5] + p[7] + 0.01]
                if len(parents) != 1:
                    print('NO PARENT %s at %.2f' % (name, x))
                    bad += 1
                    continue
                path = path_of[parents[0]] + (name,)
            path_of[b] = path
            seen.add(path)
            want = (base_incl.get(path, 0), new_incl.get(path, 0),
                    base_self.get(path, 0), new_self.get(path, 0))
            if b[1:5] != want:
                print('VALUES %s: title %s, folded %s' % (';'.join(path), b[1:5], want))
                bad += 1
            if abs(w - want[1] / total * WIDTH) > 0.006:
                print('WIDTH %s: %.2f, cost says %.4f' % (';'.join(path), w, want[1] / total * WIDTH))
                bad += 1
    for path, v in new_incl.items():
        if path not in seen and v / total * WIDTH >= 0.1:
            print('MISSING %s' % ';'.join(path))
            bad += 1
    print('boxes %d paths %d bad %d' % (len(boxes), len(seen), bad))


main()
