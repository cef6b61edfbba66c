/* An instrumented library that dl.c opens, calls and closes again: its
 * functions must keep their names after dlclose. */
__attribute__((noinline)) static int plugin_leaf(int x) { return x + 1; }
__attribute__((noinline)) int plugin_fn(int x)
{
	return plugin_leaf(x) + plugin_leaf(x);
}
