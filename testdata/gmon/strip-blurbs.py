#!/usr/bin/env python3
"""strip-blurbs.py < REPORT > STRIPPED

Removes the explanatory texts ("blurbs") from a normal-style gprof or
cgprof report, leaving what `-b` prints: the flat-profile explanation
after the flat rows, the call-graph explanation after the last entry, and
the "(explanation follows)" call-graph title becomes the -b title.  Both
tools put their (different) texts in the same places, so two reports are
"equal once the blurbs are removed" when their stripped forms are equal.
"""
import sys

DASHES = '-' * 47
GRAPH_FULL = '\t\t     Call graph (explanation follows)'
GRAPH_BRIEF = '\t\t\tCall graph'


def strip(lines):
    out = []
    i = 0
    n = len(lines)
    graph_at = lines.index(GRAPH_FULL) if GRAPH_FULL in lines else None
    index_at = None
    for k in range(n - 1, 0, -1):
        if lines[k] == 'Index by function name' and lines[k - 1] == '\f':
            index_at = k - 1
            break
    while i < n:
        line = lines[i]
        out.append(line)
        i += 1
        if line.startswith(' time ') and 'name' in line and (graph_at is None or i < graph_at):
            # flat rows, then the flat explanation up to the next section
            while i < n and lines[i] not in ('', '\f'):
                out.append(lines[i])
                i += 1
            if graph_at is not None:
                i = max(i, graph_at - 1)
            elif index_at is not None:
                i = max(i, index_at)
            else:
                i = n - 1  # keep the final empty string: the text ends with a newline
                out.append('')
                break
        elif line == GRAPH_FULL:
            out[-1] = GRAPH_BRIEF
        elif line == DASHES and index_at is not None and i <= index_at:
            if DASHES not in lines[i:index_at]:
                i = index_at
    return out


def main():
    data = sys.stdin.read()
    lines = data.split('\n')
    sys.stdout.write('\n'.join(strip(lines)))


main()
