/* hooks_empty.c — -finstrument-functions hooks that do nothing: the floor
 * any hook-based collector pays.  Built without instrumentation; with
 * -DHOOK_TEXT the hooks go to their own section, for sampler.c. */
#ifdef HOOK_TEXT
#define HOOK __attribute__((section("hook_text")))
#else
#define HOOK
#endif
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);
void HOOK __cyg_profile_func_enter(void *fn, void *site) { (void)fn; (void)site; }
void HOOK __cyg_profile_func_exit(void *fn, void *site) { (void)fn; (void)site; }
