/* A caller tree with a hot leaf: the basic flat profile and call graph. */
volatile double sink;
void burn(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; sink = s; }
void leaf_a(void) { burn(1000000); }
void leaf_b(void) { burn(350000); }
void mid(int k) { for (int i = 0; i < k; i++) leaf_a(); leaf_b(); }
static void unused_static(void) { burn(10); }
void never_called(void) { burn(10); }
int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < 20; i++) mid(3);
	for (int i = 0; i < 10; i++) leaf_b();
	if (argc > 5) unused_static();
	return 0;
}
