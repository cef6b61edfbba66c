/* The control API on a C program linked with libcgcollect.a:
 * cgc_dump mid-run, cgc_reset, cgc_disable/cgc_enable, cgc_noprofile_name
 * for a static function, and registered functions mixed with C ones. */
#include <stdio.h>
#include "cgcollect.h"

static volatile int sink;

__attribute__((noinline)) static void leaf(void) { sink++; }
__attribute__((noinline)) static void hidden(void) { leaf(); }
__attribute__((noinline)) static void phase(int n)
{
	for (int i = 0; i < n; i++)
		leaf();
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	phase(2);
	if (cgc_dump(argv[1]) != 0)            /* holds phase(2) only */
		return 1;
	cgc_reset();
	phase(3);                              /* counted */
	cgc_disable();
	phase(100);                            /* not counted */
	cgc_enable();
	if (cgc_noprofile_name("hidden") != 0 || cgc_noprofile_name("no_such_function") != -1)
		return 1;
	hidden();                              /* leaf appears under main */
	cgc_func *script = cgc_register("script", "x.scm", 7);
	cgc_node *caller = cgc_current();
	cgc_call(script);
	leaf();                                /* a C call inside a registered one */
	cgc_exit(caller);
	printf("%d\n", sink);
	return 0;
}
