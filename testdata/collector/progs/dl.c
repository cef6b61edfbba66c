/* dl PLUGIN.so: dlopen, call plugin_fn twice, dlclose, then exit.  The
 * profile must still name the plugin's functions (the object is recorded
 * before it is unloaded). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	int (*fn)(int) = (int (*)(int))dlsym(h, "plugin_fn");
	int r = fn(1) + fn(2);
	dlclose(h);
	printf("%d\n", r);
	return 0;
}
