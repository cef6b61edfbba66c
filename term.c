#include <signal.h>
__attribute__((noinline)) static void stop(void) { raise(SIGTERM); }
int main(void) { stop(); return 0; }
