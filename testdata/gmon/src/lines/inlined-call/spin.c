int spin(int n)
{
	volatile int s = 0;
	for (int i = 0; i < 200000; i++)
		s += i ^ n;
	return s;
}
