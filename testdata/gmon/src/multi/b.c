void burn(long n);
static void helper(int i) { burn(100000 - i); }
void b_entry(int i) { helper(i); }
