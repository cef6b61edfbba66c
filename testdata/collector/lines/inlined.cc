// The C++ twin of inlined.c: a member function of a class in a namespace,
// inlined into main at -O2.  DWARF names its inlined copy by the linkage
// name (_ZN5accum3Sum3hotEm), the symbol table by the demangled one
// (accum::Sum::hot(unsigned long)); the line-level profile must still put
// its ticks on its loop lines (tests/collector-lines.t).
#include <cstdio>
#include <cstdlib>

namespace accum {
struct Sum {
	unsigned long b = 1;
	__attribute__((always_inline)) inline unsigned long hot(unsigned long n)
	{
		for (unsigned long i = 0; i < n; i++)  // LOOP
			b = b * 6364136223846793005ul + i;  // LOOP
		return b;
	}
};
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 300000000ul;
	accum::Sum s;
	std::printf("%lu\n", s.hot(n));
	return 0;
}
