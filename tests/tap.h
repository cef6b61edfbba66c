/*
 * tap.h — a tiny TAP producer for C unit tests (git's test-lib style).
 *
 *   TEST(test_merge_sums_self(), "merging parts sums self costs");
 *   check_int(a, ==, b);   check_str(s, "x");   check(cond);
 *   return tap_done();
 *
 * A failed check prints both values and file:line as TAP diagnostics and
 * makes the enclosing TEST fail.
 */
#ifndef CG_TAP_H
#define CG_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed, tap_current_failed;

#define check(cond) do { if (!(cond)) { tap_current_failed = 1; \
	printf("# check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define check_int(a, op, b) do { long long tap_a = (long long)(a), tap_b = (long long)(b); \
	if (!(tap_a op tap_b)) { tap_current_failed = 1; \
	printf("# check failed at %s:%d: %s %s %s\n#    left: %lld\n#   right: %lld\n", \
	       __FILE__, __LINE__, #a, #op, #b, tap_a, tap_b); } } while (0)
#define check_double(a, b) do { double tap_a = (a), tap_b = (b); \
	if (!(tap_a == tap_b)) { tap_current_failed = 1; \
	printf("# check failed at %s:%d: %s == %s\n#    left: %.17g\n#   right: %.17g\n", \
	       __FILE__, __LINE__, #a, #b, tap_a, tap_b); } } while (0)
#define check_str(a, b) do { const char *tap_a = (a), *tap_b = (b); \
	if (!tap_a || !tap_b || strcmp(tap_a, tap_b) != 0) { tap_current_failed = 1; \
	printf("# check failed at %s:%d: %s == %s\n#    left: \"%s\"\n#   right: \"%s\"\n", \
	       __FILE__, __LINE__, #a, #b, tap_a ? tap_a : "(null)", tap_b ? tap_b : "(null)"); } } while (0)

#define TEST(call, description) do { tap_current_failed = 0; call; tap_count++; \
	if (tap_current_failed) tap_failed++; \
	printf("%sok %d - %s\n", tap_current_failed ? "not " : "", tap_count, description); \
	fflush(stdout); } while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
