/* Direct (fact), mutual (ping/pong, with pong also calling itself) and
 * 3-way (cyc_a -> cyc_b -> cyc_c -> cyc_a) recursion. */
volatile double sink;
void burn(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; sink = s; }
void cyc_b(int n);
void cyc_c(int n);
void pong(int n);
void cyc_a(int n) { burn(70000); if (n > 0) cyc_b(n - 1); }
void cyc_b(int n) { burn(100000); if (n > 0) cyc_c(n - 1); }
void cyc_c(int n) { burn(35000); if (n > 0) cyc_a(n - 1); }
void ping(int n) { burn(50000); if (n > 0) pong(n - 1); }
void pong(int n) { burn(50000); if (n > 2 && (n % 3) == 0) pong(n - 1); else if (n > 0) ping(n - 1); }
long fact(int n) { burn(17000); return n <= 1 ? 1 : n * fact(n - 1); }
int main(void)
{
	for (int i = 0; i < 30; i++) cyc_a(8);
	for (int i = 0; i < 20; i++) ping(10);
	for (int i = 0; i < 20; i++) fact(6);
	return 0;
}
