/* hooks_empty.c — -finstrument-functions hooks that do nothing: the floor
 * any hook-based collector pays.  Built without instrumentation. */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);
void __cyg_profile_func_enter(void *fn, void *site) { (void)fn; (void)site; }
void __cyg_profile_func_exit(void *fn, void *site) { (void)fn; (void)site; }
