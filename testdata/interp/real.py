"""A small inventory report: classes, generators (yield and resume),
comprehensions, sorting with a key, exceptions caught, recursion through
a helper, string formatting, and a module of our own."""
import itertools

from realmod import Item, parse_line

DATA = """\
apple,3,0.5
pear,0,0.75
banana,12,0.25
cherry,200,0.05
bad line
kiwi,7,0.4
plum,x,0.3
fig,5,1.2
"""


def read_items(text):
    for line in text.splitlines():
        try:
            yield parse_line(line)
        except ValueError:
            continue


def chunks(items, n):
    it = iter(items)
    while True:
        chunk = list(itertools.islice(it, n))
        if not chunk:
            return
        yield chunk


def total(items):
    return sum(i.value() for i in items)


def depth(tree):
    if not isinstance(tree, list):
        return 0
    return 1 + max([depth(t) for t in tree] or [0])


class Report:
    def __init__(self, items):
        self.items = sorted(items, key=lambda i: (-i.value(), i.name))

    def lines(self):
        for rank, item in enumerate(self.items, 1):
            yield "%2d %-8s %6.2f" % (rank, item.name, item.value())


items = list(read_items(DATA))
for line in Report(items).lines():
    print(line)
print("chunks:", [len(c) for c in chunks(items, 2)])
print("total: %.2f" % total(items))
print("depth:", depth([1, [2, [3, [4]], []], [[5]]]))
