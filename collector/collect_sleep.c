/*
 * collect_sleep.c — sleeping calls the preload wraps, so the collector's
 * timer does not wake them.
 *
 * Our SIGPROF handler is installed with SA_RESTART, which restarts read,
 * write, wait and the like after a tick; but the kernel never restarts
 * nanosleep, clock_nanosleep, pause, poll, select, epoll_wait, sigsuspend
 * or sigtimedwait once a handler ran: they fail with EINTR (or the sleep
 * comes back early with time remaining).  In wall mode the timer runs
 * while a thread sleeps, so every sleep longer than one period would be
 * cut short; in cpu mode a tick can still land on the way into the call.
 *
 * While the calling thread has a timer, each wrapper keeps SIGPROF blocked
 * for the duration of the real call and unblocks it afterwards (the calls
 * that take a mask get SIGPROF added to a copy of theirs).  The tick stays
 * pending, the kernel counts the periods that pass as the timer's overrun,
 * and the handler charges 1 + overrun ticks when the signal is delivered
 * after the call: the whole sleep lands on the current context, the
 * function that slept.  Other signals interrupt the call exactly as they
 * would without the collector.
 *
 * glibc's sleep, usleep and thrd_sleep call nanosleep internally, not
 * through the PLT, so they have wrappers of their own.  A zero timeout
 * (poll(…, 0), a non-blocking select) is passed straight through.
 *
 * Not wrapped: the wrappers are in the preload only (libcgcollect.so); a
 * program linked with libcgcollect.a keeps the interrupted sleeps.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>
#include "collect_internal.h"

#define PRELOAD __attribute__((visibility("default"), no_instrument_function))
/* Not CGC_TEXT: the tick delivered when SIGPROF is unblocked must not
 * count as collector overhead; it is the program's sleep. */
#define SLEEP_FN __attribute__((no_instrument_function))

/* The thread has a timer that could interrupt the call, and SIGPROF goes
 * to our handler.  A handler the program sets for SIGPROF does not change
 * that (collect_signal.c records it and calls it for the SIGPROFs that are
 * not our ticks), so the wrappers stay active; only once the program's
 * default action has taken over (it is dying of a SIGPROF) do they step
 * aside. */
static inline int SLEEP_FN ticking(void)
{
	return cgc_tls.th && cgc_tls.th->has_timer && cgc_sigprof_chained;
}

/* Blocks SIGPROF; returns 1 when it was unblocked before (so hold_end must
 * unblock it), 0 when the program had it blocked already. */
static int SLEEP_FN hold_begin(void)
{
	sigset_t prof, old;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	if (pthread_sigmask(SIG_BLOCK, &prof, &old) != 0)
		return 0;
	return !sigismember(&old, SIGPROF);
}

/* Unblocks SIGPROF: the pending tick runs here, with its overrun count. */
static void SLEEP_FN hold_end(int held)
{
	if (!held)
		return;
	int saved = errno;
	sigset_t prof;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	pthread_sigmask(SIG_UNBLOCK, &prof, NULL);
	errno = saved;
}

#define RESOLVE(var, name) \
	do { if (!(var)) *(void **)&(var) = dlsym(RTLD_NEXT, name); } while (0)
/* The real function, or fail as a missing one would. */
#define REAL(var, name, fail)          \
	RESOLVE(var, name);            \
	if (!(var)) {                  \
		errno = ENOSYS;        \
		return fail;           \
	}

/* Returns `call` made with SIGPROF held: the ticks that fall due during
 * it are delivered after it, to the function that waited. */
#define HELD(type, call)                  \
	do {                              \
		int held_ = hold_begin(); \
		type rc_ = (call);        \
		hold_end(held_);          \
		return rc_;               \
	} while (0)

/* ---- the sleeps ---------------------------------------------------------- */

static int (*real_nanosleep)(const struct timespec *, struct timespec *);
static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);
static unsigned (*real_sleep)(unsigned);
static int (*real_usleep)(useconds_t);
static int (*real_thrd_sleep)(const struct timespec *, struct timespec *);
static int (*real_pause)(void);

PRELOAD int nanosleep(const struct timespec *req, struct timespec *rem)
{
	REAL(real_nanosleep, "nanosleep", -1)
	if (!ticking())
		return real_nanosleep(req, rem);
	HELD(int, real_nanosleep(req, rem));
}

PRELOAD int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
			    struct timespec *rem)
{
	REAL(real_clock_nanosleep, "clock_nanosleep", ENOSYS)
	if (!ticking())
		return real_clock_nanosleep(clock, flags, req, rem);
	HELD(int, real_clock_nanosleep(clock, flags, req, rem));
}

PRELOAD unsigned sleep(unsigned seconds)
{
	RESOLVE(real_sleep, "sleep");
	if (!real_sleep)
		return seconds;
	if (!ticking() || seconds == 0)
		return real_sleep(seconds);
	HELD(unsigned, real_sleep(seconds));
}

PRELOAD int usleep(useconds_t usec)
{
	REAL(real_usleep, "usleep", -1)
	if (!ticking() || usec == 0)
		return real_usleep(usec);
	HELD(int, real_usleep(usec));
}

PRELOAD int thrd_sleep(const struct timespec *req, struct timespec *rem)
{
	REAL(real_thrd_sleep, "thrd_sleep", -2)
	if (!ticking())
		return real_thrd_sleep(req, rem);
	HELD(int, real_thrd_sleep(req, rem));
}

PRELOAD int pause(void)
{
	REAL(real_pause, "pause", -1)
	if (!ticking())
		return real_pause();
	HELD(int, real_pause());
}

/* ---- waiting for descriptors ------------------------------------------- */

static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);

PRELOAD int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	REAL(real_poll, "poll", -1)
	if (!ticking() || timeout == 0)
		return real_poll(fds, nfds, timeout);
	HELD(int, real_poll(fds, nfds, timeout));
}

PRELOAD int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *timeout)
{
	REAL(real_select, "select", -1)
	if (!ticking() || (timeout && timeout->tv_sec == 0 && timeout->tv_usec == 0))
		return real_select(nfds, rd, wr, ex, timeout);
	HELD(int, real_select(nfds, rd, wr, ex, timeout));
}

PRELOAD int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
	REAL(real_epoll_wait, "epoll_wait", -1)
	if (!ticking() || timeout == 0)
		return real_epoll_wait(epfd, events, maxevents, timeout);
	HELD(int, real_epoll_wait(epfd, events, maxevents, timeout));
}

/* The _FORTIFY_SOURCE forms (glibc checks fdslen, then calls its own poll
 * internally, not ours). */
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
		const sigset_t *mask, size_t fdslen);
static int (*real___poll_chk)(struct pollfd *, nfds_t, int, size_t);
static int (*real___ppoll_chk)(struct pollfd *, nfds_t, const struct timespec *,
			       const sigset_t *, size_t);

PRELOAD int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen)
{
	REAL(real___poll_chk, "__poll_chk", -1)
	if (!ticking() || timeout == 0)
		return real___poll_chk(fds, nfds, timeout, fdslen);
	HELD(int, real___poll_chk(fds, nfds, timeout, fdslen));
}

/* ---- the calls that take a mask ------------------------------------------
 * The kernel installs the given mask for the call and puts the thread's
 * own back afterwards; SIGPROF added to a copy keeps the tick pending until
 * then.  Without a mask they are the calls above. */

static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
static int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
			   const sigset_t *);
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
static int (*real_sigsuspend)(const sigset_t *);

/* mask with SIGPROF added, in *copy. */
static const sigset_t *SLEEP_FN with_sigprof(const sigset_t *mask, sigset_t *copy)
{
	*copy = *mask;
	sigaddset(copy, SIGPROF);
	return copy;
}

static int SLEEP_FN zero_timespec(const struct timespec *t)
{
	return t && t->tv_sec == 0 && t->tv_nsec == 0;
}

PRELOAD int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
		  const sigset_t *mask)
{
	REAL(real_ppoll, "ppoll", -1)
	if (!ticking() || zero_timespec(timeout))
		return real_ppoll(fds, nfds, timeout, mask);
	if (mask) {
		sigset_t copy;
		return real_ppoll(fds, nfds, timeout, with_sigprof(mask, &copy));
	}
	HELD(int, real_ppoll(fds, nfds, timeout, NULL));
}

PRELOAD int pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *timeout,
		    const sigset_t *mask)
{
	REAL(real_pselect, "pselect", -1)
	if (!ticking() || zero_timespec(timeout))
		return real_pselect(nfds, rd, wr, ex, timeout, mask);
	if (mask) {
		sigset_t copy;
		return real_pselect(nfds, rd, wr, ex, timeout, with_sigprof(mask, &copy));
	}
	HELD(int, real_pselect(nfds, rd, wr, ex, timeout, NULL));
}

PRELOAD int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
			const sigset_t *mask)
{
	REAL(real_epoll_pwait, "epoll_pwait", -1)
	if (!ticking() || timeout == 0)
		return real_epoll_pwait(epfd, events, maxevents, timeout, mask);
	if (mask) {
		sigset_t copy;
		return real_epoll_pwait(epfd, events, maxevents, timeout, with_sigprof(mask, &copy));
	}
	HELD(int, real_epoll_pwait(epfd, events, maxevents, timeout, NULL));
}

PRELOAD int sigsuspend(const sigset_t *mask)
{
	REAL(real_sigsuspend, "sigsuspend", -1)
	if (!ticking())
		return real_sigsuspend(mask);
	sigset_t copy;
	return real_sigsuspend(with_sigprof(mask, &copy));
}

PRELOAD int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
			const sigset_t *mask, size_t fdslen)
{
	REAL(real___ppoll_chk, "__ppoll_chk", -1)
	if (!ticking() || zero_timespec(timeout))
		return real___ppoll_chk(fds, nfds, timeout, mask, fdslen);
	if (mask) {
		sigset_t copy;
		return real___ppoll_chk(fds, nfds, timeout, with_sigprof(mask, &copy), fdslen);
	}
	HELD(int, real___ppoll_chk(fds, nfds, timeout, NULL, fdslen));
}
