/* Calls made from inlined code (tests/gmon-lines-annotate.t): main's
 * only lines of its own are the loop; its call sites are in twice.h. */
#include <stdio.h>
#include "twice.h"
int main(void)
{
	long t = 0;
	for (int k = 0; k < 200; k++)
		t += twice(k);
	printf("%ld\n", t);
	return 0;
}
