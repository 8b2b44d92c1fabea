/* rx.h: the regular expressions of `sandbox grep`, matched in time
 * linear in the subject's length (for a given pattern), whatever the
 * subject: the lines come from the workspace, which may be hostile.
 *
 * The syntax is exactly that of glibc's regcomp(3) with REG_EXTENDED in
 * the C locale, GNU extensions included (\w \W \s \S \b \B \< \> \` \'),
 * and so are the answers: bytes, '.' any byte but NUL, REG_ICASE folding
 * ASCII letters only, with glibc's own quirks (under it, an escaped
 * lowercase letter such as "\a" matches nothing, since glibc folds to
 * upper case but leaves escaped characters alone), but not its bug of
 * losing assertions in repeated groups (rx_copied_assert()). Error
 * codes too: REG_* as regcomp returns them. tests/unit/test_rx.c and
 * tests/fuzz/fuzz_rx.c hold it to glibc's regcomp and regexec.
 *
 * What glibc's regexec cannot do in linear time is refused: back-
 * references (\1 to \9). So are patterns whose program, their intervals
 * written out, has more than RX_PROG_MAX instructions (the time per
 * byte grows with it), and groups nested more than RX_DEPTH_MAX deep
 * (the parser recurses; glibc's own overflows the stack at some
 * 60000).
 *
 * Matching only answers whether a line contains a match: a literal that
 * every match contains is looked for first (memmem, or memchr and a
 * compare folding case); then a lazily built DFA, at most O(pattern)
 * work per byte when a state is new and one table lookup when it is
 * not, whose cache is bounded and dropped when full; where it would
 * build a state for nearly every byte, the plain NFA simulation. */
#ifndef SANDBOX_RX_H
#define SANDBOX_RX_H

#include <stdbool.h>
#include <stddef.h>

#define RX_PROG_MAX 10000 /* instructions of a compiled pattern */
#define RX_DEPTH_MAX 256  /* groups nested in one another */

enum rx_flag {
	RX_ICASE = 1,        /* REG_ICASE */
	RX_NO_PREFILTER = 2, /* tests: no memmem before the automaton */
	RX_NO_CACHE = 4,     /* tests: no DFA, the plain NFA simulation */
};

/* What rx_compile says. */
enum rx_status {
	RX_OK = 0,
	RX_EBAD,     /* not a pattern glibc takes; *regcode is its REG_* code */
	RX_EBACKREF, /* a valid pattern with a back-reference */
	RX_EBIG,     /* more than RX_PROG_MAX instructions */
	RX_EDEEP,    /* groups nested more than RX_DEPTH_MAX deep */
};

struct rx;

/* Compiles pattern, a C string, with RX_* flags into *out, to be freed
 * with rx_free(). Otherwise returns the status, *out NULL and a message
 * in errbuf: for RX_EBAD the one regerror(3) gives for the code glibc's
 * regcomp returns, which goes to *regcode when regcode is not NULL.
 * The work and memory are linear in the pattern's length, bounded by
 * the caps above: the parse stops at the first error, as glibc's does. */
enum rx_status rx_compile(const char *pattern, int flags, struct rx **out, int *regcode,
			  char *errbuf, size_t errlen);

/* True if s[0..n), which may hold NUL bytes, contains a match: what
 * glibc's regexec with REG_STARTEND says on the same bytes. Not const:
 * it caches DFA states in rx, so one rx serves one thread. */
bool rx_match(struct rx *rx, const char *s, size_t n);

/* A match can take long where the program is large (up to about
 * RX_PROG_MAX steps a byte): stop(ctx) is asked every few million steps
 * of work, and true stops it. rx_match then answers false, and so does
 * every later call, and rx_stopped() says so. */
void rx_set_stop(struct rx *rx, bool (*stop)(void *ctx), void *ctx);
bool rx_stopped(const struct rx *rx);

void rx_free(struct rx *rx);

/* The bytes that every match contains, one after the other (the
 * prefilter's literal), *len of them, 0 when there are none; with *fold,
 * an upper case letter in them stands for either case. */
const char *rx_literal(const struct rx *rx, size_t *len, bool *fold);

/* For tests: the instructions of the program, and the work rx_match
 * has done so far: bytes stepped plus instructions visited while
 * building states. A call on n bytes adds at most (n + 1) * (size + 1):
 * a state is built by one visit of each instruction at most. */
size_t rx_size(const struct rx *rx);
unsigned long long rx_steps(const struct rx *rx);

/* For tests: whether an assertion sits in a repeat that glibc writes
 * out in copies of what it repeats (x+, x{m,} with m > 0, x{m,n} with
 * n > 1). glibc then may ignore the assertion and match more, a bug:
 * when the node after an assertion comes from such a copy, the flag
 * "duplicated" that the copy carries stops calc_eclosure_iter() from
 * giving the assertion's constraint to what follows it. "(a$|b){2}"
 * matches "ab" in glibc and "(^a|b){2}" matches "ba"; here, as in GNU
 * grep and POSIX, neither does. */
bool rx_copied_assert(const struct rx *rx);

#endif
