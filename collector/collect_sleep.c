/*
 * collect_sleep.c — sleeping and waiting calls the preload wraps, so the
 * collector's timer does not wake them.
 *
 * Our SIGPROF handler is installed with SA_RESTART, which restarts read,
 * write, wait and the like after a tick; but the kernel never restarts
 * (signal(7)) nanosleep, clock_nanosleep, pause, poll, select, epoll_wait,
 * sigsuspend, sigtimedwait, sigwaitinfo, msgrcv, msgsnd, semop or
 * semtimedop once a handler ran: they fail with EINTR (or the sleep comes
 * back early with time remaining).  In wall mode the timer runs while a
 * thread sleeps, so every sleep longer than one period would be cut
 * short; in cpu mode a tick can still land on the way into the call.
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
 * The calls that wait for signals take a set to wait for, not a mask; a
 * set holding SIGPROF would be handed our ticks, so there the wrapper
 * takes them out (see "waiting for signals" below).
 *
 * glibc's sleep, usleep and thrd_sleep call nanosleep internally, not
 * through the PLT, so they have wrappers of their own; so do sigwaitinfo
 * and sigwait (sigtimedwait) and semop (semtimedop).  A zero timeout
 * (poll(…, 0), a non-blocking select, IPC_NOWAIT) is passed straight
 * through.
 *
 * Not wrapped: the wrappers are in the preload only (libcgcollect.so); a
 * program linked with libcgcollect.a keeps the interrupted sleeps.  Of
 * signal(7)'s list, socket calls on a socket with SO_RCVTIMEO/SO_SNDTIMEO
 * (that would mean wrapping every socket call and asking the socket for
 * its timeouts) and io_getevents (libaio's, not libc's) still see EINTR.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/types.h>
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

/* Returns `call` with SIGPROF kept pending: with the program's mask, the
 * call gets a copy with SIGPROF added; without one, SIGPROF is held
 * around it.  `call` passes mask_ where the mask goes. */
#define MASKED(type, mask, call)                                \
	do {                                                    \
		sigset_t copy_;                                 \
		const sigset_t *mask_ = NULL;                   \
		if (mask) {                                     \
			mask_ = with_sigprof(mask, &copy_);     \
			return (call);                          \
		}                                               \
		HELD(type, call);                               \
	} while (0)

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
	MASKED(int, mask, real_ppoll(fds, nfds, timeout, mask_));
}

PRELOAD int pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *timeout,
		    const sigset_t *mask)
{
	REAL(real_pselect, "pselect", -1)
	if (!ticking() || zero_timespec(timeout))
		return real_pselect(nfds, rd, wr, ex, timeout, mask);
	MASKED(int, mask, real_pselect(nfds, rd, wr, ex, timeout, mask_));
}

PRELOAD int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
			const sigset_t *mask)
{
	REAL(real_epoll_pwait, "epoll_pwait", -1)
	if (!ticking() || timeout == 0)
		return real_epoll_pwait(epfd, events, maxevents, timeout, mask);
	MASKED(int, mask, real_epoll_pwait(epfd, events, maxevents, timeout, mask_));
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
	MASKED(int, mask, real___ppoll_chk(fds, nfds, timeout, mask_, fdslen));
}

/* epoll_pwait2 (glibc 2.35, Linux 5.11) is epoll_pwait with a timespec;
 * looked up at run time, so the preload also loads where libc lacks it. */
int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents,
		 const struct timespec *timeout, const sigset_t *mask);
static int (*real_epoll_pwait2)(int, struct epoll_event *, int, const struct timespec *,
				const sigset_t *);

PRELOAD int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents,
			 const struct timespec *timeout, const sigset_t *mask)
{
	REAL(real_epoll_pwait2, "epoll_pwait2", -1)
	if (!ticking() || zero_timespec(timeout))
		return real_epoll_pwait2(epfd, events, maxevents, timeout, mask);
	MASKED(int, mask, real_epoll_pwait2(epfd, events, maxevents, timeout, mask_));
}

/* ---- waiting for signals -------------------------------------------------
 * The set is what the call waits for, not a mask: the kernel unblocks its
 * members for the wait and nothing else changes, so SIGPROF held blocked
 * stays blocked.  The set itself is passed on untouched.
 *
 * A set with SIGPROF in it (a thread that waits for every signal, or for
 * the program's own SIGPROF) would be handed our ticks: the kernel
 * unblocks the set's members for the wait, so holding SIGPROF changes
 * nothing, and it returns the tick to the waiter instead of running our
 * handler.  Taking SIGPROF out of a copy of the set would keep the ticks
 * away, but also the program's own SIGPROFs, which it asked for.  So the
 * wrapper waits with the program's set and looks at each SIGPROF that
 * comes back, in a siginfo of its own when the program passed none: one
 * of our ticks (our timer's tag) is charged, with its overrun, to the
 * function that waited, and the wait goes on for what is left of the
 * timeout (CLOCK_MONOTONIC, as the kernel measures it); any other SIGPROF
 * (kill, raise, setitimer, the program's own timers) is returned as
 * without the collector.  The thread then still wakes once per tick, as
 * it did, but the program never sees one.  SIGPROF is held between the
 * waits, so no tick runs our handler half-way.  The filter applies to a
 * zero timeout too: a tick pending at the call is taken out and the poll
 * repeated.
 *
 * glibc's sigwaitinfo and sigwait call its sigtimedwait internally, not
 * through the PLT, so each has a wrapper.  sigwait retries on EINTR
 * itself, so a tick never made it fail; held, it no longer wakes the
 * thread once per period, and with SIGPROF in the set it is built on
 * sigtimedwait here (it returns no siginfo to tell ticks apart). */

static int (*real_sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
static int (*real_sigwaitinfo)(const sigset_t *, siginfo_t *);
static int (*real_sigwait)(const sigset_t *, int *);

/* a - b, at least zero. */
static struct timespec SLEEP_FN time_left(struct timespec a, struct timespec b)
{
	struct timespec d = { a.tv_sec - b.tv_sec, a.tv_nsec - b.tv_nsec };
	if (d.tv_nsec < 0) {
		d.tv_nsec += 1000000000L;
		d.tv_sec--;
	}
	if (d.tv_sec < 0)
		d.tv_sec = d.tv_nsec = 0;
	return d;
}

/* sigtimedwait for a set that holds SIGPROF (timeout NULL: no limit),
 * with our ticks taken out; site is the program's call. */
static int SLEEP_FN wait_without_ticks(const sigset_t *set, siginfo_t *info,
				       const struct timespec *timeout, uintptr_t site)
{
	struct timespec deadline = { 0, 0 }, left = { 0, 0 };
	/* Longer than any run (a program's "for ever"): the deadline is not
	 * computed, which could overflow, and each wait gets it whole. */
	int endless = 0;
	if (timeout) {
		if (timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000L || timeout->tv_sec < 0)
			return real_sigtimedwait(set, info, timeout);  /* its EINVAL */
		endless = timeout->tv_sec > ((time_t)1 << 40);
		left = *timeout;
	}
	if (timeout && !endless) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout->tv_sec;
		deadline.tv_nsec += timeout->tv_nsec;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_nsec -= 1000000000L;
			deadline.tv_sec++;
		}
	}
	int held = hold_begin();
	siginfo_t got;
	int rc;
	for (;;) {
		rc = real_sigtimedwait(set, &got, timeout ? &left : NULL);
		if (rc != SIGPROF || !cgc_tick_taken(&got, site))
			break;
		if (timeout && !endless) {
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			left = time_left(deadline, now);
		}
	}
	if (rc > 0 && info)
		*info = got;
	hold_end(held);
	return rc;
}

PRELOAD int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	REAL(real_sigtimedwait, "sigtimedwait", -1)
	if (!ticking())
		return real_sigtimedwait(set, info, timeout);
	if (sigismember(set, SIGPROF) == 1)
		return wait_without_ticks(set, info, timeout,
					  (uintptr_t)__builtin_return_address(0));
	if (zero_timespec(timeout))
		return real_sigtimedwait(set, info, timeout);
	HELD(int, real_sigtimedwait(set, info, timeout));
}

PRELOAD int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	REAL(real_sigwaitinfo, "sigwaitinfo", -1)
	if (!ticking())
		return real_sigwaitinfo(set, info);
	if (sigismember(set, SIGPROF) == 1) {
		REAL(real_sigtimedwait, "sigtimedwait", -1)
		return wait_without_ticks(set, info, NULL, (uintptr_t)__builtin_return_address(0));
	}
	HELD(int, real_sigwaitinfo(set, info));
}

PRELOAD int sigwait(const sigset_t *set, int *sig)
{
	REAL(real_sigwait, "sigwait", ENOSYS)
	if (!ticking())
		return real_sigwait(set, sig);
	if (sigismember(set, SIGPROF) == 1) {
		REAL(real_sigtimedwait, "sigtimedwait", ENOSYS)
		uintptr_t site = (uintptr_t)__builtin_return_address(0);
		int rc;
		do {
			rc = wait_without_ticks(set, NULL, NULL, site);
		} while (rc < 0 && errno == EINTR);  /* as glibc's sigwait */
		if (rc < 0)
			return errno;
		*sig = rc;
		return 0;
	}
	HELD(int, real_sigwait(set, sig));
}

/* ---- System V IPC ---------------------------------------------------------
 * IPC_NOWAIT never blocks and is passed straight through; so is a semop
 * whose every operation either adds (never waits) or has IPC_NOWAIT.
 * glibc's semop calls its semtimedop internally, so each has a wrapper. */

static ssize_t (*real_msgrcv)(int, void *, size_t, long, int);
static int (*real_msgsnd)(int, const void *, size_t, int);
static int (*real_semop)(int, struct sembuf *, size_t);
static int (*real_semtimedop)(int, struct sembuf *, size_t, const struct timespec *);

PRELOAD ssize_t msgrcv(int id, void *msg, size_t size, long type, int flags)
{
	REAL(real_msgrcv, "msgrcv", -1)
	if (!ticking() || (flags & IPC_NOWAIT))
		return real_msgrcv(id, msg, size, type, flags);
	HELD(ssize_t, real_msgrcv(id, msg, size, type, flags));
}

PRELOAD int msgsnd(int id, const void *msg, size_t size, int flags)
{
	REAL(real_msgsnd, "msgsnd", -1)
	if (!ticking() || (flags & IPC_NOWAIT))
		return real_msgsnd(id, msg, size, flags);
	HELD(int, real_msgsnd(id, msg, size, flags));
}

/* None of the operations can wait.  More operations than the kernel
 * allows (SEMOPM, 500 by default) are not read: the call fails anyway. */
static int SLEEP_FN never_waits(const struct sembuf *ops, size_t n)
{
	if (!ops || n > 500)
		return !ops;  /* NULL: the call's EFAULT */
	for (size_t i = 0; i < n; i++)
		if (ops[i].sem_op <= 0 && !(ops[i].sem_flg & IPC_NOWAIT))
			return 0;
	return 1;
}

PRELOAD int semop(int id, struct sembuf *ops, size_t n)
{
	REAL(real_semop, "semop", -1)
	if (!ticking() || never_waits(ops, n))
		return real_semop(id, ops, n);
	HELD(int, real_semop(id, ops, n));
}

PRELOAD int semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *timeout)
{
	REAL(real_semtimedop, "semtimedop", -1)
	if (!ticking() || zero_timespec(timeout) || never_waits(ops, n))
		return real_semtimedop(id, ops, n, timeout);
	HELD(int, real_semtimedop(id, ops, n, timeout));
}
