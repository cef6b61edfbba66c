__attribute__((noinline)) static int leaf(int n) { return n + 1; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s += leaf(i); return s == 0; }
