"""The inventory report's items (a module of the real.py test script)."""


class Item:
    __slots__ = ("name", "count", "price")

    def __init__(self, name, count, price):
        self.name, self.count, self.price = name, count, price

    def value(self):
        return self.count * self.price


def parse_line(line):
    fields = line.split(",")
    if len(fields) != 3:
        raise ValueError("expected 3 fields: %r" % line)
    name, count, price = fields
    return Item(name.strip(), int(count), float(price))
