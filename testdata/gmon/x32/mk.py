# Hand-made profiles for the 32-bit program x.s (no 32-bit libc needed):
# GNU format with a histogram and arcs, old BSD and 4.4BSD (profrate 1000).
# Usage: mk.py (writes gmon.out, bsd.out, bsd44.out in the current directory)
import struct, sys
lo, hi = 0x08049000, 0x0804906c
nb = (hi - lo) // 4
bins = [0] * nb
for a, c in ((0x0804902a, 7), (0x08049040, 30), (0x08049060, 12), (0x08049018, 3), (0x0804900d, 2)):
    bins[(a - lo) // 4] += c
out = b'gmon' + struct.pack('<I', 1) + b'\0' * 12
out += b'\0' + struct.pack('<IIII', lo, hi, nb, 100) + b'seconds'.ljust(15, b'\0') + b's'
out += struct.pack('<%dH' % nb, *bins)
for f, s, c in ((0x08049011, 0x08049018, 5), (0x08049016, 0x08049020, 3), (0x08049023, 0x0804902b, 4),
                (0x0804901c, 0x0804902b, 8), (0x08049028, 0x08049018, 2), (0x08049005, 0x0804900d, 1)):
    out += b'\1' + struct.pack('<III', f, s, c)
open('gmon.out', 'wb').write(out)
bsd = struct.pack('<III', lo, hi, 12 + 2 * nb) + struct.pack('<%dH' % nb, *bins)
for f, s, c in ((0x08049011, 0x08049018, 5), (0x08049023, 0x0804902b, 4)):
    bsd += struct.pack('<III', f, s, c)
open('bsd.out', 'wb').write(bsd)
bsd44 = struct.pack('<IIIII', lo, hi, 32 + 2 * nb, 0x51879, 1000) + b'\0' * 12 + struct.pack('<%dH' % nb, *bins)
open('bsd44.out', 'wb').write(bsd44)
