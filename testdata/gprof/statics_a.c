void burn(long n);
static void helper(int k) { for (int i = 0; i < k; i++) burn(200000); }
void a_entry(void) { helper(1); }
