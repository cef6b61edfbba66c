/* Inlined into vgprog.c's functions: Callgrind marks its lines with fi=/fe=. */
static inline __attribute__((always_inline)) long mix(long x, long i)
{
	return (x * 31 + i) ^ (x >> 3);
}
