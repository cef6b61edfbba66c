/* hooks_frame.c — -finstrument-functions hooks that keep a shadow stack
 * the way libcgcollect does (one 32-byte frame per activation: context,
 * function, machine stack pointer and call site, with the same
 * stack-full, longjmp and mismatched-exit tests on the hot path) but look
 * nothing up and count nothing.  Between fi-depth and the collector, it
 * splits the collector's cost per call into following the stack its way
 * and building the calling-context tree.  Built without instrumentation;
 * with -DHOOK_TEXT the hooks go to their own section, for sampler.c. */
#include <stdint.h>
#ifdef HOOK_TEXT
#define HOOK __attribute__((section("hook_text")))
#else
#define HOOK
#endif
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

struct frame {
	void *node;
	uintptr_t fn, sp, site;
};

/* Aligned to its size: a frame pointer with no low bits set is the end,
 * one test as in the collector.  The bench is single-threaded. */
#define FRAMES 4096
static struct frame frames[FRAMES] __attribute__((aligned(FRAMES * sizeof(struct frame))));
static _Thread_local struct frame *top __attribute__((tls_model("initial-exec")));
static char context;

static inline uintptr_t machine_sp(void)
{
	uintptr_t sp;
#if defined(__x86_64__)
	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
	__asm__ volatile("mov %0, sp" : "=r"(sp));
#else
	volatile char here;
	sp = (uintptr_t)&here;
#endif
	return sp;
}

__attribute__((constructor)) static void start(void)
{
	frames[0].node = &context;
	frames[0].sp = UINTPTR_MAX;
	top = frames + 1;
}

void HOOK __cyg_profile_func_enter(void *fn, void *site)
{
	uintptr_t now = machine_sp();
	struct frame *sp = top;
	if (__builtin_expect(((uintptr_t)sp & (sizeof frames - 1)) == 0 || sp[-1].sp < now, 0))
		return;
	sp->fn = (uintptr_t)fn;
	sp->sp = now;
	sp->site = (uintptr_t)site;
	sp->node = sp[-1].node;
	__atomic_signal_fence(__ATOMIC_RELEASE);
	top = sp + 1;
}

void HOOK __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	struct frame *f = top - 1;
	if (__builtin_expect(f->fn != (uintptr_t)fn, 0))
		return;
	top = f;
}
