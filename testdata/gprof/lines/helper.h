static inline int helper(int v)
{
	if (v & 1)
		return v / 3;
	return v * 5 % 11;
}
int other(int n);
