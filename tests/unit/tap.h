/* tap.h: a minimal Test Anything Protocol writer for the C unit tests.
 * Header-only: every function is static inline, so a test that uses only
 * some of them builds cleanly under -Wall -Werror. Each test program ends
 * with `return done_testing();`, which prints the plan line "1..N" last
 * (unless plan() printed it first), after the count of failures, and
 * returns non-zero if any test failed or the planned count was not met. */
#ifndef SANDBOX_TAP_H
#define SANDBOX_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct tap_state {
	int run, failed, planned; /* planned: -1 until plan() */
	int todo_failed;          /* failures of TODO tests: known bugs */
	int skipped;              /* tests that could not run here */
	const char *todo;         /* reason, while tests are marked TODO */
};

static inline struct tap_state *tap_state(void)
{
	static struct tap_state st = {0, 0, -1, 0, 0, NULL};
	return &st;
}

static inline void tap_vdiag(const char *fmt, va_list ap)
{
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* A comment line, "# ...", for what a reader needs to see on failure. */
__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

/* Declares the number of tests up front (optional: done_testing() prints
 * the plan at the end otherwise). */
static inline void plan(int n)
{
	tap_state()->planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* Tests between todo_start() and todo_end() assert behaviour that is
 * known not to work yet (a reported bug): they print "# TODO reason" and
 * a failure does not fail the run. One that passes says so, so that the
 * marker gets removed. */
static inline void todo_start(const char *reason)
{
	tap_state()->todo = reason;
}

static inline void todo_end(void)
{
	tap_state()->todo = NULL;
}

static inline bool tap_vok(bool cond, const char *fmt, va_list ap)
{
	struct tap_state *st = tap_state();
	st->run++;
	if (!cond && !st->todo)
		st->failed++;
	else if (!cond)
		st->todo_failed++;
	printf("%sok %d - ", cond ? "" : "not ", st->run);
	/* A title holds test data at times: keep it on one line. */
	char title[512];
	vsnprintf(title, sizeof(title), fmt, ap);
	for (const char *p = title; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '\n')
			fputs("\\n", stdout);
		else if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else if (c == '#')
			fputs("\\#", stdout);
		else
			fputc(c, stdout);
	}
	if (st->todo)
		printf(" # TODO %s", st->todo);
	fputc('\n', stdout);
	if (st->todo && cond)
		printf("# TODO test passed: the bug is fixed; remove its todo_start()\n");
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 2, 3)))
static inline bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

/* A test that cannot run here (a missing program, not a missing leg),
 * and why: "ok N # SKIP WHY", which TAP counts as skipped, never as
 * passed; done_testing says how many. */
__attribute__((format(printf, 1, 2)))
static inline void skip(const char *fmt, ...)
{
	struct tap_state *st = tap_state();
	st->run++;
	st->skipped++;
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (char *p = why; *p; p++)
		if (*p == '\n' || *p == '#')
			*p = ' ';
	printf("ok %d # SKIP %s\n", st->run, why);
	fflush(stdout);
}

/* Prints bytes with C escapes, so a failure shows control bytes and
 * invalid UTF-8 as they are. */
static inline void tap_print_bytes(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' || c == '"')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			fputc(c, stdout);
	}
}

static inline void tap_diag_bytes(const char *label, const char *s, size_t n)
{
	printf("#   %s: ", label);
	if (!s) {
		fputs("(null)\n", stdout);
		return;
	}
	fputc('"', stdout);
	tap_print_bytes(s, n);
	printf("\" (%zu bytes)\n", n);
}

/* Compares byte strings of known length (either may hold NULs). */
__attribute__((format(printf, 5, 6)))
static inline bool is_mem(const char *got, size_t gotn, const char *exp,
			  size_t expn, const char *fmt, ...)
{
	bool same = got && exp ? gotn == expn && memcmp(got, exp, gotn) == 0
			       : got == exp;
	va_list ap;
	va_start(ap, fmt);
	tap_vok(same, fmt, ap);
	va_end(ap);
	if (!same) {
		tap_diag_bytes("     got", got, got ? gotn : 0);
		tap_diag_bytes("expected", exp, exp ? expn : 0);
		fflush(stdout);
	}
	return same;
}

/* Compares C strings; NULL equals only NULL. */
__attribute__((format(printf, 3, 4)))
static inline bool is_str(const char *got, const char *exp, const char *fmt, ...)
{
	bool same = got && exp ? strcmp(got, exp) == 0 : got == exp;
	va_list ap;
	va_start(ap, fmt);
	tap_vok(same, fmt, ap);
	va_end(ap);
	if (!same) {
		tap_diag_bytes("     got", got, got ? strlen(got) : 0);
		tap_diag_bytes("expected", exp, exp ? strlen(exp) : 0);
		fflush(stdout);
	}
	return same;
}

__attribute__((format(printf, 3, 4)))
static inline bool is_int(long long got, long long exp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool same = tap_vok(got == exp, fmt, ap);
	va_end(ap);
	if (!same) {
		printf("#        got: %lld\n#   expected: %lld\n", got, exp);
		fflush(stdout);
	}
	return same;
}

/* Ends the run: the plan line (when not declared), a summary of failures,
 * and the exit status for main() to return. */
static inline int done_testing(void)
{
	struct tap_state *st = tap_state();
	if (st->todo_failed)
		printf("# %d TODO tests failed (known bugs)\n", st->todo_failed);
	if (st->skipped)
		printf("# skipped %d of %d tests\n", st->skipped, st->run);
	if (st->failed)
		printf("# failed %d of %d tests\n", st->failed, st->run);
	if (st->planned < 0)
		printf("1..%d\n", st->run);
	else if (st->planned != st->run)
		printf("# planned %d tests but ran %d\n", st->planned, st->run);
	fflush(stdout);
	return st->failed || (st->planned >= 0 && st->planned != st->run);
}

#endif
