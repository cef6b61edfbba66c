/*
 * collect_sleep.h — the preload's sleep wrappers (collect_sleep.c).
 */
#ifndef CGCOLLECT_SLEEP_H
#define CGCOLLECT_SLEEP_H

#include <signal.h>

/* The program set a disposition for SIGPROF itself: the wrappers step
 * aside (SIGPROF is then the program's business). */
void cgc_sleep_note_sigaction(int sig, const struct sigaction *act)
	__attribute__((visibility("hidden")));

/* The collector's SIGPROF handler (collect_thread.c). */
extern void (*const cgc_tick_handler)(int, siginfo_t *, void *)
	__attribute__((visibility("hidden")));

#endif
