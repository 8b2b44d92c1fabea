/* test_rx.c: grep's matcher (rx.h) against glibc's regcomp and regexec,
 * which are the reference here: every construct of the syntax, the
 * quirks of glibc found by experiment, every error with its REG_* code
 * and message; then what rx refuses (back-references, sizes, depths),
 * random patterns, and that the work stays linear in the subject's
 * length, counted in steps, not timed. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rx.h"
#include "tap.h"
#include "util.h"

/* What glibc says of s[0..n), NUL bytes and all. ASan's regexec reads
 * up to a NUL whatever REG_STARTEND says: it gets a copy with one. */
static bool glibc_match(const regex_t *re, const char *s, size_t n)
{
	char *z = xstrndup(s, n);
	regmatch_t m[1] = {{0, (regoff_t)n}};
	bool r = regexec(re, z, 1, m, REG_STARTEND) == 0;
	free(z);
	return r;
}

static const int variants[] = {0, RX_NO_PREFILTER, RX_NO_PREFILTER | RX_NO_CACHE};

/* Compiles pattern with glibc and with rx (each variant); both must
 * take it or refuse it with the same code and message. Then each line
 * of subjects ('\n' between them) gets the same answer from both, the
 * lines matched in turn and then again, so that the second time the
 * DFA's states are there already. Returns whether all agreed. */
static bool agree(const char *pattern, bool icase, const char *subjects)
{
	regex_t re;
	int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
	bool good = true;
	for (size_t v = 0; v < ARRAY_LEN(variants); v++) {
		struct rx *rx;
		int code = 0;
		char msg[256] = "", want[256] = "";
		enum rx_status st = rx_compile(pattern, variants[v] | (icase ? RX_ICASE : 0), &rx, &code,
					       msg, sizeof(msg));
		if (rc != 0) {
			regerror(rc, NULL, want, sizeof(want));
			if (st != RX_EBAD || code != rc || strcmp(msg, want) != 0) {
				diag("'%s': glibc refuses it with %d (%s); rx says %d, %d (%s)", pattern,
				     rc, want, st, code, msg);
				good = false;
			}
			continue;
		}
		if (st != RX_OK) {
			diag("'%s': glibc takes it; rx says %d (%s)", pattern, st, msg);
			good = false;
			continue;
		}
		for (int round = 0; round < 2; round++)
			for (const char *s = subjects; s;) {
				const char *nl = strchr(s, '\n');
				size_t n = nl ? (size_t)(nl - s) : strlen(s);
				bool want_m = glibc_match(&re, s, n), got = rx_match(rx, s, n);
				if (got != want_m) {
					diag("'%s'%s on '%.*s': glibc says %d, rx (variant %zu) %d",
					     pattern, icase ? " (icase)" : "", (int)n, s, want_m, v, got);
					good = false;
				}
				s = nl ? nl + 1 : NULL;
			}
		rx_free(rx);
	}
	if (rc == 0)
		regfree(&re);
	return good;
}

struct rx_case {
	const char *pattern;
	bool icase;
	const char *subjects;
};

static void check_cases(const char *what, const struct rx_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ok(agree(cases[i].pattern, cases[i].icase, cases[i].subjects), "%s: '%s'%s as glibc",
		   what, cases[i].pattern, cases[i].icase ? " (icase)" : "");
}

static void test_basics(void)
{
	static const struct rx_case cases[] = {
		{"", false, "\nabc"},
		{"abc", false, "abc\nxabcx\nab\nabd\nABC"},
		{"a.c", false, "abc\nac\na\nc\naxxc"},
		{"a.*b", false, "ab\naxxxb\nba\naaaa\nb"},
		{"a+b?c*", false, "a\nab\nabbc\nbc\nxaaaccc"},
		{"colou?r", false, "color\ncolour\ncolouur"},
		{"(ab)+", false, "ab\nabab\naabb\nba"},
		{"(a|b)*c", false, "c\nabababc\nababab\nxc"},
		{"foo|bar|baz", false, "foo\nxbarx\nba\nbaz"},
		{"^abc", false, "abc\nxabc\nabcx"},
		{"abc$", false, "abc\nabcx\nxabc"},
		{"^$", false, "\na"},
		{"^a$|^b$", false, "a\nb\nab\n"},
		{"(a|aa)*c", false, "aaac\naaaa\nc"},
		{"(x+x+)+y", false, "xxxxxxxxxxxxy\nxxxxxxxxxxxxxxxxxxxx"},
		{"[0-9]+\\.[0-9]+", false, "1.5\n15\n.5\nv10.20"},
		{"\\(\\)\\{\\}\\|\\+\\?\\*\\[\\]\\.\\^\\$\\\\", false, "(){}|+?*[].^$\\\n(){}"},
		{"\\n\\t\\%\\0", false, "nt%0\n\n\t"},
		{"a)", false, "a)\na"},
		{")", false, ")\n("},
		{"}", false, "}\na"},
		{"a}", false, "a}\na"},
		{"a**", false, "\nb"},
		{"a+?", false, "b\na"},
		{"a?*+", false, "b\naaa"},
		{"(a*)*b", false, "b\naab\naa"},
		{"(a*)+b", false, "b\nab"},
		{"(a|)+b", false, "b\nab"},
		{"()", false, "\nx"},
		{"()*", false, "x"},
		{"(|a)", false, "\nb"},
		{"a||b", false, "\nc"},
		{"|", false, "\nx"},
		{"a|", false, "\nb"},
		{"((((((((((a))))))))))", false, "a\nb"},
		{"x\xff.\x80", false, "x\xff\xfe\x80\nx\xff\x80"},
	};
	check_cases("basics", cases, ARRAY_LEN(cases));
}

static void test_intervals(void)
{
	static const struct rx_case cases[] = {
		{"a{3}", false, "aa\naaa\naaaa"},
		{"^a{3}$", false, "aa\naaa\naaaa"},
		{"a{2,}", false, "a\naa\naaaaa"},
		{"^a{2,4}$", false, "a\naa\naaaa\naaaaa"},
		{"^a{,2}$", false, "\na\naa\naaa"},
		{"^a{,}$", false, "\naaaa\nb"},
		{"^a{0}$", false, "\na"},
		{"^a{0,0}b$", false, "b\nab"},
		{"^(ab){1,2}$", false, "ab\nabab\nababab"},
		{"^(a|b){2}{3}$", false, "ababab\nabababa\nabab"},
		{"a{1}{1}{1}", false, "a\nb"},
		{"^x{0}y{1}z{1,1}$", false, "yz\nxyz"},
		{"a\\{1}", false, "a{1}\na"},
		{"a{1\\}", false, ""},
		{"a{1\\,2}", false, "a\naa"},
		{"a{", false, ""},
		{"a{1", false, ""},
		{"a{1,", false, ""},
		{"a{1,2", false, ""},
		{"a{}", false, ""},
		{"a{,", false, ""},
		{"a{x}", false, ""},
		{"a{1x}", false, ""},
		{"a{ 1}", false, ""},
		{"a{1,2,3}", false, ""},
		{"a{2,1}", false, ""},
		{"a{32768}", false, ""},
		{"a{1,32768}", false, ""},
		{"a{99999999999999999999}", false, ""},
		{"a{3,99999999999999999999}", false, ""},
		{"{1}", false, ""},
		{"{", false, ""},
		{"a|{1}", false, ""},
		{"({1})", false, ""},
		{"a{1}{", false, ""},
		{"a{0}{x}", false, ""},
		{"a{[}", false, ""},
		{"a{1[]}", false, ""},
	};
	check_cases("intervals", cases, ARRAY_LEN(cases));
}

static void test_brackets(void)
{
	static const struct rx_case cases[] = {
		{"[abc]", false, "a\nb\nd\n"},
		{"[^abc]", false, "a\nd\nabc\n"},
		{"[a-c]+x", false, "abcx\ndx"},
		{"[]a]", false, "]\na\nb"},
		{"[^]a]", false, "]\na\nb"},
		{"[]-a]", false, "]\n^\na\nb"},
		{"[a-]", false, "a\n-\nb"},
		{"[-a]", false, "a\n-\nb"},
		{"[^-a]", false, "a\n-\nb"},
		{"[--/]", false, "-\n.\n/\n0"},
		{"[!--]", false, "!\n,\n-\n."},
		{"[a-z-]", false, "-\nq"},
		{"[[:alpha:]-]", false, "-\nq\n1"},
		{"[a^]", false, "^\na\nb"},
		{"[[a]", false, "[\na\nb"},
		{"[a[]", false, "[\na"},
		{"[\\]", false, "\\\na"},
		{"[\\]]", false, "\\]\n]"},
		{"[\\n]", false, "\\\nn\nx"},
		{"[.]", false, ".\na"},
		{"[*+?{|()]", false, "*\n+\n(\na"},
		{"[$^]", false, "$\n^"},
		{"[a-a]", false, "a\nb"},
		{"[\x80-\xff]", false, "\x80\n\xc3\xa9\na"},
		{"[\x01-\x7f]", false, "a\n\x80"},
		{"[[:alnum:]]", false, "a\nZ\n5\n_\n-"},
		{"[[:alpha:]]", false, "a\n5\n\xe9"},
		{"[[:blank:]]", false, " \n\t\n\x0b"},
		{"[[:cntrl:]]", false, "\x01\n\x7f\na\n\x80"},
		{"[[:digit:]]", false, "5\na"},
		{"[[:graph:]]", false, "!\n~\n \n\x80"},
		{"[[:lower:]]", false, "a\nA"},
		{"[[:print:]]", false, " \n~\n\x7f"},
		{"[[:punct:]]", false, "!\n_\na\n "},
		{"[[:space:]]", false, " \n\t\n\x0b\n\x0c\n\r\na"},
		{"[[:upper:]]", false, "A\na"},
		{"[[:xdigit:]]", false, "f\nF\ng\n9"},
		{"[[:alpha:][:digit:]]", false, "a\n1\n-"},
		{"[^[:alnum:]]", false, "a\n-"},
		{"[[:alpha:]]]", false, "a]\na\n]"},
		{"[[.a.]]", false, "a\nb"},
		{"[[.].]]", false, "]\na"},
		{"[[...]]", false, ".\na"},
		{"[[.-.]]", false, "-\na"},
		{"[[.-.]-a]", false, "-\n0\na\nb"},
		{"[[.a.]-[.c.]]", false, "b\nd"},
		{"[a-[.c.]]", false, "b\nd"},
		{"[[=a=]]", false, "a\nb"},
		{"[[=]=]]", false, "]\na"},
		{"[[:alpha:]" "x]", false, "x\na\n1"},
		{"[", false, ""},
		{"[^", false, ""},
		{"[]", false, ""},
		{"[^]", false, ""},
		{"[a", false, ""},
		{"[a-", false, ""},
		{"[a-z", false, ""},
		{"[z-a]", false, ""},
		{"[a-z-0]", false, ""},
		{"[a--]", false, ""},
		{"[[:alpha:]-z]", false, ""},
		{"[a-[:alpha:]]", false, ""},
		{"[[=a=]-z]", false, ""},
		{"[a-[=z=]]", false, ""},
		{"[a-[.-.]]", false, ""},
		{"[[:alpha:]", false, ""},
		{"[[:alpha]", false, ""},
		{"[[:alpha", false, ""},
		{"[[:", false, ""},
		{"[[:]", false, ""},
		{"[[:a]", false, ""},
		{"[[=]", false, ""},
		{"[[.]", false, ""},
		{"[[.a]", false, ""},
		{"[[.a.]", false, ""},
		{"[[:foo:]]", false, ""},
		{"[[:UPPER:]]", false, ""},
		{"[[:abcdefghijklmnopqrstuvwxyzabcd:]]", false, ""},
		{"[[:abcdefghijklmnopqrstuvwxyzabcde:]]", false, ""},
		{"[[..]]", false, ""},
		{"[[..]-a]", false, ""},
		{"[[.ab.]]", false, ""},
		{"[[.ab.]-z]", false, ""},
		{"[[==]]", false, ""},
		{"[[=ab=]]", false, ""},
		{"[[=ab=]", false, ""},
		{"[[.ab.]", false, ""},
	};
	check_cases("brackets", cases, ARRAY_LEN(cases));
}

static void test_anchors(void)
{
	static const struct rx_case cases[] = {
		{"\\bfoo\\b", false, "foo\na foo b\nfoobar\nfoo_\n_foo\n(foo)"},
		{"\\<foo\\>", false, "foo\nafoo\nfoo1\n-foo-"},
		{"\\Bo\\B", false, "foo\no\nfoo bar"},
		{"\\B", false, "\na\na b\nab\n--"},
		{"\\b", false, "\na\n-"},
		{"\\<", false, "\na\n-"},
		{"\\>", false, "\na\n-"},
		{"a\\>b", false, "ab\na b"},
		{"a\\b-", false, "a-\naa-"},
		{"\\`abc", false, "abc\nxabc"},
		{"abc\\'", false, "abc\nabcx"},
		{"\\`\\'", false, "\na"},
		{"a^b", false, "a^b\nab"},
		{"a$b", false, "a$b\nab"},
		{"$^", false, "\na"},
		{"^^a$$", false, "a\naa"},
		{"(^|x)a", false, "a\nxa\nya"},
		{"a($|x)", false, "a\nax\nay"},
		{"x(^)*y", false, "xy\nx^y"},
		{"x($)*y", false, "xy"},
		{"(^a)*b", false, "b\nab\naab"},
		{"(a$)*b", false, "b\nab"},
		{"(a|$)*", false, "\nb"},
		{"(\\<a|b)*c", false, "c\nac\nbac\nbbc"},
		{"^*", false, ""},
		{"$*", false, ""},
		{"a^*", false, ""},
		{"\\b*", false, ""},
		{"\\<+", false, ""},
		{"\\`?", false, ""},
		{"x\\'{2}", false, ""},
		{"\\w+", false, "abc\n---\n_"},
		{"\\W", false, "abc\n---\n\x80"},
		{"\\s\\S", false, " a\na \n\t\t"},
		{"\\w*\\W*\\s*\\S*", false, "\nx"},
		{"\\w{2}\\s+\\w", false, "ab  c\na b"},
	};
	check_cases("anchors and classes", cases, ARRAY_LEN(cases));
}

/* glibc folds to upper case, and leaves escaped letters and class
 * names as written: these are its answers, odd ones included. */
static void test_icase(void)
{
	static const struct rx_case cases[] = {
		{"abc", true, "ABC\nabc\naBc\nab"},
		{"ABC", true, "ABC\nabc"},
		{"[a-c]+", true, "ABC\nabc\nd"},
		{"[A-C]+", true, "ABC\nabc\nd"},
		{"[^a]", true, "a\nA\nb"},
		{"[[:upper:]]", true, "a\nA\n1"},
		{"[[:lower:]]", true, "a\nA\n1"},
		{"[^[:lower:]]", true, "a\nA\n1"},
		{"[[.a.]]", true, "a\nA"},
		{"[[=a=]]", true, "a\nA"},
		{"[a-_]", true, "a\nA\n_\n^"},
		{"[_-a]", true, ""},
		{"[Z-a]", true, ""},
		{"[Z-a]", false, "Z\n^\na\nb"},
		{"\\a", true, "a\nA"},
		{"\\A", true, "a\nA"},
		{"\\w\\W", true, "a-\nA-\naa"},
		{"\\bFOO\\b", true, "a foo\nfoobar"},
		{"x{2}Y", true, "XXy\nxy"},
		{"main\\(", true, "MAIN(\nmain ("},
		{"\xe9", true, "\xe9\n\xc9"},
		/* The literal looked for in either case first. */
		{"abc", true, "ababababababAbC\nabababababab\nxxABCxx\nab"},
		{"a-c", true, "aa-aA-A-c\na-b"},
		{"main", true, "mAmAmAmAmAiN\nMAI"},
		{"x\\ay", true, "xay\nXAY"},
		{"1\\A2", true, "1a2\n1A2"},
	};
	check_cases("REG_ICASE", cases, ARRAY_LEN(cases));
}

static void test_errors(void)
{
	static const struct rx_case cases[] = {
		{"\\", false, ""},
		{"a\\", false, ""},
		{"(", false, ""},
		{"(a", false, ""},
		{"((a)", false, ""},
		{"a(", false, ""},
		{"(a|", false, ""},
		{"*a", false, ""},
		{"+a", false, ""},
		{"?a", false, ""},
		{"a|*b", false, ""},
		{"(*a)", false, ""},
		{"(+a)", false, ""},
		{"(?a)", false, ""},
		{"\\1", false, ""},
		{"(a)\\2", false, ""},
		{"(a\\1)", false, ""},
		{"(a)|\\1", false, ""},
		{"(a)\\1(", false, ""},
		{"a++++++++(", false, ""},
	};
	check_cases("errors", cases, ARRAY_LEN(cases));
}

/* Subjects with NUL bytes, which glibc reads with REG_STARTEND. */
static void test_nul_bytes(void)
{
	static const struct {
		const char *pattern, *s;
		size_t n;
	} cases[] = {
		{"a.b", "a\0b", 3},       {"a[^x]b", "a\0b", 3},  {"a\\Wb", "a\0b", 3},
		{"b$", "a\0b", 3},        {"^a$", "a\0b", 3},     {"\\<b", "a\0b", 3},
		{"a\\>", "a\0b", 3},      {"a\\s", "a\0b", 3},    {"a.*b", "a\0\0b", 4},
		{"[[:cntrl:]]", "\0", 1}, {"^.$", "\0", 1},       {"", "\0", 1},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		regex_t re;
		struct rx *rx;
		if (regcomp(&re, cases[i].pattern, REG_EXTENDED | REG_NOSUB) != 0 ||
		    rx_compile(cases[i].pattern, 0, &rx, NULL, NULL, 0) != RX_OK) {
			ok(false, "NUL bytes: '%s' compiles", cases[i].pattern);
			continue;
		}
		bool want = glibc_match(&re, cases[i].s, cases[i].n);
		ok(rx_match(rx, cases[i].s, cases[i].n) == want, "NUL bytes: '%s' %s, as in glibc",
		   cases[i].pattern, want ? "matches" : "does not match");
		regfree(&re);
		rx_free(rx);
	}
}

/* glibc's bug (rx.h, rx_copied_assert): rx answers as POSIX and GNU
 * grep do, glibc matches more. */
static void test_glibc_bug(void)
{
	static const struct {
		const char *pattern, *s;
	} cases[] = {
		{"(a$|b){2}", "ab"}, {"(^a|b){2}", "ba"}, {"(a\\b|b){2}", "ab"}, {"(c|a$b)+d", "cabd"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		regex_t re;
		struct rx *rx;
		size_t n = strlen(cases[i].s);
		if (regcomp(&re, cases[i].pattern, REG_EXTENDED | REG_NOSUB) != 0 ||
		    rx_compile(cases[i].pattern, 0, &rx, NULL, NULL, 0) != RX_OK) {
			ok(false, "'%s' compiles", cases[i].pattern);
			continue;
		}
		ok(rx_copied_assert(rx) && !rx_match(rx, cases[i].s, n) && glibc_match(&re, cases[i].s, n),
		   "'%s' does not match '%s', though glibc says it does", cases[i].pattern, cases[i].s);
		regfree(&re);
		rx_free(rx);
	}
	struct rx *rx;
	rx_compile("^(a|b){2}$", 0, &rx, NULL, NULL, 0);
	ok(!rx_copied_assert(rx), "an assertion outside the repeat is not one glibc can lose");
	rx_free(rx);
}

static enum rx_status refusal(const char *pattern, char *msg, size_t len)
{
	struct rx *rx = NULL;
	enum rx_status st = rx_compile(pattern, 0, &rx, NULL, msg, len);
	rx_free(rx);
	return st;
}

static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
	struct sbuf s = {0};
	sbuf_adds(&s, head);
	for (size_t i = 0; i < n; i++)
		sbuf_adds(&s, unit);
	sbuf_adds(&s, tail);
	return s.buf;
}

static void test_refusals(void)
{
	char msg[256];
	ok(refusal("(a)\\1", msg, sizeof(msg)) == RX_EBACKREF &&
		   strstr(msg, "back-references (\\1 to \\9) are not supported"),
	   "a back-reference is refused: %s", msg);
	ok(refusal("((a)|b)\\2x", msg, sizeof(msg)) == RX_EBACKREF, "\\2 after its group too");
	ok(refusal("(a)\\1[", msg, sizeof(msg)) == RX_EBAD, "but a syntax error after it comes first");
	ok(refusal("a{1000}{1000}", msg, sizeof(msg)) == RX_EBIG && strstr(msg, "too large"),
	   "a{1000}{1000} is refused, not built: %s", msg);
	ok(refusal("a{9999}", msg, sizeof(msg)) == RX_OK, "a{9999} is taken: 10000 instructions");
	ok(refusal("a{10000}", msg, sizeof(msg)) == RX_EBIG, "a{10000} is not");
	ok(refusal("(a|b|c){3333}", msg, sizeof(msg)) == RX_EBIG, "nor are alternatives written out");
	char *p = repeat("", "x", RX_PROG_MAX, "");
	ok(refusal(p, msg, sizeof(msg)) == RX_EBIG, "nor a literal of %d bytes", RX_PROG_MAX);
	free(p);
	p = repeat("", "()", 100000, "");
	ok(refusal(p, msg, sizeof(msg)) == RX_OK, "100000 empty groups cost nothing");
	free(p);
	char *close = repeat("a", ")", RX_DEPTH_MAX, "");
	p = repeat("", "(", RX_DEPTH_MAX, close);
	ok(refusal(p, msg, sizeof(msg)) == RX_OK, "groups nested %d deep are taken", RX_DEPTH_MAX);
	free(p);
	free(close);
	p = repeat("", "(", RX_DEPTH_MAX + 1, "a");
	ok(refusal(p, msg, sizeof(msg)) == RX_EDEEP && strstr(msg, "nested"),
	   "%d deep are not: %s", RX_DEPTH_MAX + 1, msg);
	free(p);
	/* glibc's parser overflows the stack here: it is never asked. */
	p = repeat("", "(", 100000, "");
	ok(refusal(p, msg, sizeof(msg)) == RX_EDEEP, "nor 100000 deep, glibc's stack overflow");
	free(p);
	/* glibc takes 52 s and 12 GB for 24 of them. */
	p = repeat("a", "+", 100000, "");
	ok(refusal(p, msg, sizeof(msg)) == RX_OK, "'a' and 100000 '+' compile, as 'a+'");
	free(p);
	close = repeat("a", ")+", 200, "");
	p = repeat("", "(", 200, close);
	ok(refusal(p, msg, sizeof(msg)) == RX_OK, "and so do 200 groups in one another, each with '+'");
	free(p);
	free(close);
	ok(refusal("x{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}", msg, sizeof(msg)) == RX_EBIG,
	   "x{2} 14 times is 16384 instructions: too large");
}

/* The work of rx_match on n bytes of c then tail, counted. */
static void check_linear(const char *pattern, char c, const char *tail, bool want)
{
	size_t n = (size_t)1 << 20;
	size_t tl = strlen(tail);
	char *s = xmalloc(n + tl);
	memset(s, c, n);
	memcpy(s + n, tail, tl);
	for (size_t v = 0; v < ARRAY_LEN(variants); v++) {
		struct rx *rx;
		if (rx_compile(pattern, variants[v], &rx, NULL, NULL, 0) != RX_OK) {
			ok(false, "'%s' compiles", pattern);
			continue;
		}
		bool got = rx_match(rx, s, n + tl);
		unsigned long long steps = rx_steps(rx), bound = (n + tl + 1) * (rx_size(rx) + 1);
		ok(got == want && steps <= bound,
		   "'%s' on 1 MiB of '%c'%s%s (variant %zu): %s, in %llu steps, at most %llu", pattern,
		   c, *tail ? " then " : "", tail, v, want ? "a match" : "no match", steps, bound);
		rx_free(rx);
	}
	free(s);
}

static void test_linear(void)
{
	check_linear("a.*b", 'a', "", false);
	check_linear("a.*b", 'a', "b", true);
	check_linear("(a|aa)*c", 'a', "", false);
	check_linear("(x+x+)+y", 'x', "", false);
	check_linear("(x+x+)+y", 'x', "y", true);
	check_linear("\\<(\\w+\\s*)*$", 'w', "!", false);
	check_linear("(.*)*(.*)*z", 'q', "", false);

	/* A DFA of 2^17 states, some 20 MiB, more than its cache holds: it
	 * is dropped again and again, and the work stays within the bound. */
	size_t n = (size_t)1 << 20;
	char *s = xmalloc(n);
	unsigned x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		s[i] = (x >> 16) & 1 ? 'a' : 'b';
	}
	struct rx *rx, *nfa;
	rx_compile("(a|b)*a(a|b){16}c", RX_NO_PREFILTER, &rx, NULL, NULL, 0);
	rx_compile("(a|b)*a(a|b){16}c", RX_NO_PREFILTER | RX_NO_CACHE, &nfa, NULL, NULL, 0);
	bool got = rx_match(rx, s, n);
	ok(!got && rx_steps(rx) <= (n + 1) * (rx_size(rx) + 1),
	   "a DFA larger than the cache: no match, %llu steps for 1 MiB", rx_steps(rx));
	/* Lines cut from the same bytes: the DFA (its cache dropped at
	 * times) and the plain NFA agree; the last has a match. */
	bool same = true;
	for (size_t off = 0; off + 5000 <= n; off += 5000) {
		size_t len = 4000 + off % 1000;
		char save = s[off + len - 1];
		if (off + 10000 > n)
			s[off + len - 1] = 'c';
		same = same && rx_match(rx, s + off, len) == rx_match(nfa, s + off, len);
		s[off + len - 1] = save;
	}
	ok(same, "the DFA, whose cache is dropped when full, and the NFA agree on 209 lines");
	rx_free(rx);
	rx_free(nfa);
	free(s);
}

/* ---- random patterns ---- */

static unsigned rnd_state = 1;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) % n;
}

static void rnd_atom(struct sbuf *p, int depth);

static void rnd_seq(struct sbuf *p, int depth)
{
	unsigned n = rnd(4);
	for (unsigned i = 0; i < n; i++)
		rnd_atom(p, depth);
	if (rnd(6) == 0) {
		sbuf_addc(p, '|');
		rnd_seq(p, depth + 1);
	}
}

static void rnd_atom(struct sbuf *p, int depth)
{
	static const char *const atoms[] = {
		"a", "b", "c", "A", ".", "[ab]", "[^a]", "[a-c]", "[[:alpha:]]", "\\w", "\\W", "\\s",
		"-", " ", "\\.", "_",
	};
	static const char *const anchors[] = {"^", "$", "\\<", "\\>", "\\b", "\\B", "\\`", "\\'"};
	static const char *const ops[] = {"*", "+", "?", "{2}", "{0,2}", "{1,}", "{,1}"};
	unsigned k = rnd(10);
	if (k == 0 && depth < 3) {
		sbuf_addc(p, '(');
		rnd_seq(p, depth + 1);
		sbuf_addc(p, ')');
	} else if (k == 1) {
		sbuf_adds(p, anchors[rnd(ARRAY_LEN(anchors))]);
		return; /* an assertion takes no repeat */
	} else {
		sbuf_adds(p, atoms[rnd(ARRAY_LEN(atoms))]);
	}
	if (rnd(3) == 0)
		sbuf_adds(p, ops[rnd(ARRAY_LEN(ops))]);
}

/* 3000 random patterns, each on 20 random lines, with and without
 * REG_ICASE: the same answers as glibc, but where glibc may lose an
 * assertion, where rx must not match more. */
static void test_random(void)
{
	static const char alphabet[] = "abcAB -_.";
	int bad = 0, compared = 0;
	for (int i = 0; i < 3000; i++) {
		struct sbuf pat = {0};
		rnd_seq(&pat, 0);
		const char *pattern = pat.buf ? pat.buf : "";
		bool icase = rnd(4) == 0;
		regex_t re;
		struct rx *rx;
		if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0)) != 0) {
			sbuf_free(&pat);
			continue;
		}
		if (rx_compile(pattern, icase ? RX_ICASE : 0, &rx, NULL, NULL, 0) != RX_OK) {
			if (bad++ < 5)
				diag("'%s' does not compile", pattern);
			regfree(&re);
			sbuf_free(&pat);
			continue;
		}
		for (int k = 0; k < 20; k++) {
			char s[16];
			size_t n = rnd(sizeof(s));
			for (size_t j = 0; j < n; j++)
				s[j] = alphabet[rnd(sizeof(alphabet) - 1)];
			bool want = glibc_match(&re, s, n), got = rx_match(rx, s, n);
			compared++;
			if (rx_copied_assert(rx) ? got && !want : got != want) {
				if (bad++ < 5)
					diag("'%s'%s on '%.*s': glibc %d, rx %d", pattern,
					     icase ? " (icase)" : "", (int)n, s, want, got);
			}
		}
		regfree(&re);
		rx_free(rx);
		sbuf_free(&pat);
	}
	ok(bad == 0, "random patterns agree with glibc (%d lines compared)", compared);
}

/* A stop function that stops at its first call, and counts its calls. */
static bool stop_at_once(void *ctx)
{
	int *calls = ctx;
	return ++*calls > 0;
}

static bool never_stop(void *ctx)
{
	int *calls = ctx;
	++*calls;
	return false;
}

/* A large program on a line that thrashes the DFA: some 1000 steps a
 * byte. The stop is asked within a few million steps, and once it says
 * stop, the match (and every later one) answers at once. */
static void test_stop(void)
{
	size_t n = (size_t)1 << 20;
	char *s = xmalloc(n);
	unsigned x = 777;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		s[i] = (x >> 16) & 1 ? 'a' : 'b';
	}
	for (int cache = 0; cache < 2; cache++) {
		struct rx *rx;
		int flags = RX_NO_PREFILTER | (cache ? 0 : RX_NO_CACHE);
		rx_compile("[ab]*a[ab]{990}c", flags, &rx, NULL, NULL, 0);
		int calls = 0;
		rx_set_stop(rx, stop_at_once, &calls);
		bool got = rx_match(rx, s, n);
		unsigned long long steps = rx_steps(rx);
		ok(!got && rx_stopped(rx) && calls == 1 && steps < (5ull << 22),
		   "%s: stopped after %llu steps of some 10^9 (%d calls)", cache ? "DFA" : "NFA", steps,
		   calls);
		ok(!rx_match(rx, "ac", 2) && rx_steps(rx) == steps, "and stays stopped");
		rx_set_stop(rx, never_stop, &calls);
		calls = 0;
		char hit[993];
		memset(hit, 'a', 991);
		hit[991] = 'c';
		hit[992] = '\0';
		ok(!rx_stopped(rx) && rx_match(rx, hit, 992) && !rx_match(rx, hit, 991),
		   "a new stop function starts afresh: a match is found again");
		rx_free(rx);
	}
	free(s);
}

int main(void)
{
	test_basics();
	test_intervals();
	test_brackets();
	test_anchors();
	test_icase();
	test_errors();
	test_nul_bytes();
	test_glibc_bug();
	test_refusals();
	test_linear();
	test_random();
	test_stop();
	return done_testing();
}
