volatile double sink;
void burn(long n){ double s=0; for(long i=0;i<n;i++) s+= i*0.5; sink=s; }
void a_entry(void); void b_entry(void);
static void via_ptr1(void) { burn(150000); }
static void via_ptr2(void) { burn(150000); }
void zero_time(void) { }
void _under(void) { }
static void (*const table[])(void) = { via_ptr1, via_ptr2 };
int main(void)
{
	for (int i = 0; i < 40; i++) {
		a_entry(); b_entry(); zero_time(); _under();
		if (i % 2 == 0) { table[0](); table[1](); }
	}
	return 0;
}
