/* hooks_depth.c — -finstrument-functions hooks that only count the call
 * depth in thread-local storage: the least a hook that follows the call
 * stack pays (one store-to-load forwarded update per hook), a lower bound
 * for any context-tracking collector.  Built without instrumentation; with
 * -DHOOK_TEXT the hooks go to their own section, for sampler.c. */
#ifdef HOOK_TEXT
#define HOOK __attribute__((section("hook_text")))
#else
#define HOOK
#endif
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static _Thread_local unsigned long depth __attribute__((tls_model("initial-exec")));

void HOOK __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	depth++;
}

void HOOK __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	depth--;
}
