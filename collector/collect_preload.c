/*
 * collect_preload.c — libc functions the preloaded collector wraps, so the
 * endings that run no exit handlers still leave a profile, and so the
 * program's own signal handling keeps working.  Only in libcgcollect.so:
 * in a static link these definitions would clash with libc.a.
 *
 *   _exit, _Exit       write the profile, then exit
 *   exec*              write the profile (the image is about to vanish);
 *                      tell the next image which file we wrote, so an
 *                      instrumented successor does not overwrite it
 *   sigaction, signal  the program's handlers are recorded and called
 *                      from ours (collect_signal.c)
 *   vfork              becomes fork: a vfork child shares the parent's
 *                      memory, so its calls would land in the parent's tree
 *   dlclose            the object list is refreshed first, so the functions
 *                      of the library keep their names in the file
 *   nanosleep, sleep,  keep SIGPROF pending while they block, so a tick
 *   poll, select,      does not cut them short; a wait for a set holding
 *   sigtimedwait,      SIGPROF gets the program's SIGPROFs, never our
 *   msgrcv, semop ...  ticks (collect_sleep.c)
 *
 * dlopen is deliberately not wrapped: glibc resolves $ORIGIN and the
 * search path from the caller's object, which a wrapper would change.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "collect_internal.h"

#define PRELOAD __attribute__((visibility("default"), no_instrument_function))

extern char **environ;
void cgc_preload_init(void) CGC_HIDDEN;

static void (*real__exit)(int) __attribute__((noreturn));
static void (*real__Exit)(int) __attribute__((noreturn));
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);
static int (*real_dlclose)(void *);

#define RESOLVE(var, name) \
	do { if (!(var)) *(void **)&(var) = dlsym(RTLD_NEXT, name); } while (0)

void CGC_TEXT cgc_preload_init(void)
{
	RESOLVE(cgc_real_sigaction, "sigaction");
	RESOLVE(real__exit, "_exit");
	RESOLVE(real__Exit, "_Exit");
	RESOLVE(real_execve, "execve");
	RESOLVE(real_execvpe, "execvpe");
	RESOLVE(real_fexecve, "fexecve");
	RESOLVE(real_dlclose, "dlclose");
}

/* Runs before the program's constructors use any of the wrappers. */
__attribute__((constructor, no_instrument_function)) static void preload_ctor(void)
{
	cgc_preload_init();
}

/* ---- _exit ------------------------------------------------------------------- */

PRELOAD void _exit(int status)
{
	struct cgc_ending e = { CGC_END__EXIT, status, NULL };
	cgc_final_dump(&e);
	RESOLVE(real__exit, "_exit");
	if (real__exit)
		real__exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

PRELOAD void _Exit(int status)
{
	struct cgc_ending e = { CGC_END__EXIT, status, NULL };
	cgc_final_dump(&e);
	RESOLVE(real__Exit, "_Exit");
	if (real__Exit)
		real__Exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

/* ---- exec ------------------------------------------------------------------------ */

#define EXEC_VAR "CGCOLLECT_EXEC_FROM="
static char g_exec_var[sizeof EXEC_VAR + 32 + PATH_MAX_CGC];

/* Writes the profile of the image about to be replaced, and fills
 * g_exec_var with "CGCOLLECT_EXEC_FROM=PID:WROTE:PATH" for the next one.
 * Returns 1 when the variable should be passed on. */
static int CGC_TEXT before_exec(const char *prog)
{
	if (!g_initialised)
		return 0;
	int saved = errno;
	char path[PATH_MAX_CGC];
	cgc_output_path(path, sizeof path);
	struct cgc_ending e = { CGC_END_EXEC, 0, prog };
	int wrote = cgc_final_dump(&e) == 0;
	size_t n = sizeof EXEC_VAR - 1;
	memcpy(g_exec_var, EXEC_VAR, n);
	char digits[24];
	int i = sizeof digits;
	unsigned long v = (unsigned long)getpid();
	do {
		digits[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(g_exec_var + n, digits + i, sizeof digits - (size_t)i);
	n += sizeof digits - (size_t)i;
	g_exec_var[n++] = ':';
	g_exec_var[n++] = wrote ? '1' : '0';
	g_exec_var[n++] = ':';
	size_t plen = strlen(path);
	if (n + plen + 1 > sizeof g_exec_var) {
		errno = saved;
		return 0;
	}
	memcpy(g_exec_var + n, path, plen + 1);
	errno = saved;
	return 1;
}

static size_t CGC_TEXT env_count(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	return n;
}

/* envp without any inherited CGCOLLECT_EXEC_FROM, plus ours. */
static void CGC_TEXT env_with_var(char *const envp[], char **out)
{
	size_t k = 0;
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], EXEC_VAR, sizeof EXEC_VAR - 1) != 0)
			out[k++] = envp[i];
	out[k++] = g_exec_var;
	out[k] = NULL;
}

PRELOAD int execve(const char *path, char *const argv[], char *const envp[])
{
	RESOLVE(real_execve, "execve");
	if (!before_exec(path))
		return real_execve(path, argv, envp);
	char *env[env_count(envp) + 2];
	env_with_var(envp, env);
	return real_execve(path, argv, env);
}

PRELOAD int execvpe(const char *file, char *const argv[], char *const envp[])
{
	RESOLVE(real_execvpe, "execvpe");
	if (!before_exec(file))
		return real_execvpe(file, argv, envp);
	char *env[env_count(envp) + 2];
	env_with_var(envp, env);
	return real_execvpe(file, argv, env);
}

PRELOAD int fexecve(int fd, char *const argv[], char *const envp[])
{
	RESOLVE(real_fexecve, "fexecve");
	if (!before_exec("-"))
		return real_fexecve(fd, argv, envp);
	char *env[env_count(envp) + 2];
	env_with_var(envp, env);
	return real_fexecve(fd, argv, env);
}

PRELOAD int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

PRELOAD int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The list forms: gather the arguments, then as above. */
#define GATHER(first, ap, argv)                                             \
	size_t argc_ = 1;                                                    \
	va_start(ap, first);                                                 \
	while (va_arg(ap, char *))                                           \
		argc_++;                                                     \
	va_end(ap);                                                          \
	char *argv[argc_ + 1];                                               \
	argv[0] = (char *)(first);                                           \
	va_start(ap, first);                                                 \
	for (size_t i_ = 1; i_ <= argc_; i_++)                               \
		argv[i_] = va_arg(ap, char *);

PRELOAD int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	GATHER(arg, ap, argv)
	va_end(ap);
	return execve(path, argv, environ);
}

PRELOAD int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	GATHER(arg, ap, argv)
	va_end(ap);
	return execvpe(file, argv, environ);
}

PRELOAD int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	GATHER(arg, ap, argv)
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* ---- signals ------------------------------------------------------------------ */

PRELOAD int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	RESOLVE(cgc_real_sigaction, "sigaction");
	return cgc_program_sigaction(sig, act, old);
}

/* glibc's signal(): BSD semantics (SA_RESTART, handler stays installed). */
PRELOAD sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < NSIG)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* ---- processes and objects ---------------------------------------------------- */

PRELOAD pid_t vfork(void)
{
	/* POSIX allows vfork to be fork; a real vfork child would record its
	 * calls into the parent's tree (the memory is shared). */
	return fork();
}

PRELOAD int dlclose(void *handle)
{
	RESOLVE(real_dlclose, "dlclose");
	if (g_initialised)
		cgc_objects_refresh();
	return real_dlclose(handle);
}

/* ---- ucontext: one shadow stack per context -------------------------------------
 *
 * A coroutine runs on its own machine stack; its calls must go on its own
 * shadow stack, or the stack-pointer checks of the hooks would take the
 * switch for a longjmp and pop the frames of the other context.  Each
 * ucontext_t the program switches through gets a saved shadow state
 * (current node, frames); swapcontext saves the running state under the
 * context it leaves and loads the one it enters.  A context we have never
 * seen (makecontext'd, or new) starts a fresh shadow stack whose calls hang
 * under the node that first switched to it.  When a coroutine's function
 * returns, glibc resumes uc_link without going through any wrapper, so
 * swapcontext also reloads its own state when it returns: whoever resumed
 * it, the shadow state is the one it left.  Contexts are followed within a
 * thread; a context resumed on another thread keeps the first thread's
 * tree (not supported).
 */
#include <ucontext.h>
#include <sys/mman.h>

#define CTX_MAX 4096
#define CTX_FRAMES (1u << 16)

struct ctx_state {
	const ucontext_t *uc;       /* key; NULL: free slot */
	struct cgc_node *cur;       /* NULL: fresh, starts under the switcher */
	struct cgc_frame *sp, *end, *base;
	struct cgc_frame *own;      /* frames we allocated for it, reused */
};

static struct ctx_state *g_ctx;
static pthread_mutex_t g_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local struct cgc_frame *t_base;  /* frames of the running state; NULL: the thread's own */

static int (*real_swapcontext)(ucontext_t *, const ucontext_t *);
static int (*real_setcontext)(const ucontext_t *);
static void (*real_makecontext)(ucontext_t *, void (*)(void), int, ...);

static struct ctx_state *CGC_TEXT ctx_find(const ucontext_t *uc, int create)
{
	if (!g_ctx) {
		g_ctx = cgc_map_zeroed(CTX_MAX * sizeof *g_ctx);
		if (!g_ctx)
			return NULL;
	}
	size_t h = ((uintptr_t)uc >> 4) * 0x9E3779B97F4A7C15ull >> 40;
	struct ctx_state *tomb = NULL;
	for (size_t i = 0; i < CTX_MAX; i++) {
		struct ctx_state *c = &g_ctx[(h + i) & (CTX_MAX - 1)];
		if (c->uc == uc)
			return c;
		if (!c->uc) {
			tomb = c;
			break;
		}
	}
	if (!create || !tomb)
		return NULL;
	tomb->uc = uc;
	tomb->cur = NULL;
	return tomb;
}

static void CGC_TEXT ctx_save(const ucontext_t *uc)
{
	struct ctx_state *c = ctx_find(uc, 1);
	if (!c)
		return;
	c->cur = cgc_current_node();
	c->sp = cgc_tls.sp;
	c->end = cgc_tls.end;
	c->base = t_base;
}

static void CGC_TEXT ctx_load(const ucontext_t *uc)
{
	struct ctx_state *c = ctx_find(uc, 1);
	if (!c)
		return;
	if (!c->cur) {
		/* Fresh: an empty shadow stack under the current node. */
		if (!c->own)
			c->own = cgc_map_stack(CTX_FRAMES);
		if (!c->own)
			return;
		c->own[0] = cgc_sentinel[0];
		c->own[0].node = cgc_current_node();
		c->cur = c->own[0].node;
		c->base = c->own;
		c->sp = c->own + 1;
		c->end = c->own + CTX_FRAMES;
	}
	cgc_tls.sp = c->sp;
	cgc_tls.end = c->end;
	t_base = c->base;
}

/* Only for threads the collector is following (started and not stopped). */
static int CGC_TEXT following(void)
{
	return cgc_tls.th && cgc_current_node();
}

PRELOAD int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	RESOLVE(real_swapcontext, "swapcontext");
	if (!following())
		return real_swapcontext(oucp, ucp);
	pthread_mutex_lock(&g_ctx_lock);
	ctx_save(oucp);
	ctx_load(ucp);
	pthread_mutex_unlock(&g_ctx_lock);
	int rc = real_swapcontext(oucp, ucp);
	/* Resumed (by a wrapper, or by glibc through uc_link): we are oucp. */
	if (cgc_tls.th) {
		pthread_mutex_lock(&g_ctx_lock);
		ctx_load(oucp);
		pthread_mutex_unlock(&g_ctx_lock);
	}
	return rc;
}

PRELOAD int setcontext(const ucontext_t *ucp)
{
	RESOLVE(real_setcontext, "setcontext");
	if (following()) {
		pthread_mutex_lock(&g_ctx_lock);
		struct ctx_state *c = ctx_find(ucp, 0);
		/* A context saved by swapcontext or made by makecontext has a
		 * shadow state; one from getcontext on this stack is a
		 * longjmp, which the hooks resynchronise by themselves. */
		if (c)
			ctx_load(ucp);
		pthread_mutex_unlock(&g_ctx_lock);
	}
	return real_setcontext(ucp);
}

PRELOAD void makecontext(ucontext_t *ucp, void (*func)(void), int argc, ...)
{
	RESOLVE(real_makecontext, "makecontext");
	/* A new coroutine in this ucontext_t: its shadow stack starts empty. */
	pthread_mutex_lock(&g_ctx_lock);
	struct ctx_state *c = ctx_find(ucp, 1);
	if (c)
		c->cur = NULL;
	pthread_mutex_unlock(&g_ctx_lock);
	/* glibc reads the arguments as 64-bit words; pass on up to 8 (more
	 * is beyond what we can forward without knowing their types). */
	long a[8] = { 0 };
	va_list ap;
	va_start(ap, argc);
	for (int i = 0; i < argc && i < 8; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	real_makecontext(ucp, func, argc > 8 ? 8 : argc, a[0], a[1], a[2], a[3], a[4], a[5], a[6],
			 a[7]);
}
