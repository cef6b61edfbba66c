/* Static functions called through a table of function pointers, functions
 * that take no time, a name starting with '_'; helper() lives twice, as a
 * static function in a.c and in b.c. */
volatile double sink;
void burn(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; sink = s; }
void a_entry(int);
void b_entry(int);
static void via_ptr1(void) { burn(200000); }
static void via_ptr2(void) { burn(200000); }
void zero_time(void) { }
void _under(void) { }
static void (*const table[])(void) = { via_ptr1, via_ptr2 };
int main(void)
{
	for (int i = 0; i < 40; i++) {
		a_entry(i);
		b_entry(i);
		table[i % 2]();
		zero_time();
		_under();
	}
	return 0;
}
