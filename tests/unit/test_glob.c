/* test_glob.c: path glob patterns: braces, brackets, escapes, "**" in
 * every position, dotfiles, odd bytes in names, errors, and patterns
 * built to make a naive matcher backtrack exponentially. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "tap.h"
#include "util.h"

struct glob_case {
	const char *pattern, *path;
	bool match;
};

static void check_cases(const struct glob_case *cases, size_t n, bool by_name, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		char err[256] = "";
		struct glob_pat *pat = glob_compile(cases[i].pattern, err, sizeof(err));
		if (!pat) {
			ok(false, "%s: '%s' compiles", what, cases[i].pattern);
			diag("error: %s", err);
			continue;
		}
		bool got = by_name ? glob_match_name(pat, cases[i].path) : glob_match(pat, cases[i].path);
		ok(got == cases[i].match, "%s: '%s' %s '%s'", what, cases[i].pattern,
		   cases[i].match ? "matches" : "does not match", cases[i].path);
		glob_free(pat);
	}
}

static void test_basics(void)
{
	static const struct glob_case cases[] = {
		{"src/a/b.c", "src/a/b.c", true},
		{"src/a/b.c", "src/a/b.h", false},
		{"src/a/b.c", "src/a/b.cc", false},
		{"src/a", "src/a/b.c", false},
		{"*.c", "a.c", true},
		{"*.c", "src/a.c", false},
		{"*", "anything", true},
		{"*", "a/b", false},
		{"*/*", "a/b", true},
		{"*/*", "a/b/c", false},
		{"src/*.c", "src/main.c", true},
		{"src/*.c", "src/sub/main.c", false},
		{"s*c/*", "src/x", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "a/c", false},
		{"???", "abc", true},
		{"???", "abcd", false},
		{"*a*b*c*", "xaxbxcx", true},
		{"*a*b*c*", "xaxcxbx", false},
		{"a*", "a", true},
		{"*a", "a", true},
		{"a**b", "axyzb", true},
		{"a**b", "ax/yb", false},
		{"x***y", "xy", true},
	};
	check_cases(cases, ARRAY_LEN(cases), false, "basic");
}

static void test_braces(void)
{
	static const struct glob_case cases[] = {
		{"{src,lib}/*.c", "src/a.c", true},
		{"{src,lib}/*.c", "lib/a.c", true},
		{"{src,lib}/*.c", "doc/a.c", false},
		{"{src,lib/{x,y}}/*.c", "src/a.c", true},
		{"{src,lib/{x,y}}/*.c", "lib/x/a.c", true},
		{"{src,lib/{x,y}}/*.c", "lib/y/a.c", true},
		{"{src,lib/{x,y}}/*.c", "lib/z/a.c", false},
		{"{src,lib/{x,y}}/*.c", "lib/a.c", false},
		{"*.{c,h}", "a.h", true},
		{"*.{c,h}", "a.o", false},
		{"a{,b}c", "ac", true},
		{"a{,b}c", "abc", true},
		{"{a,b}{c,d}", "bd", true},
		{"{a,b}{c,d}", "ba", false},
		{"{a,{b,{c,d}}}", "d", true},
		{"{a,{b,{c,d}}}", "e", false},
		{"{x}", "{x}", true},
		{"{x}", "x", false},
		{"{}", "{}", true},
		{"a{b}c", "a{b}c", true},
		{"{x{a,b}}", "{xb}", true},
		{"{x{a,b}}", "xb", false},
		{"x}", "x}", true},
		{"{a,b}}", "a}", true},
		{"\\{a,b}", "{a,b}", true},
		{"\\{a,b}", "a", false},
		{"{a\\,b,c}", "a,b", true},
		{"{a\\,b,c}", "c", true},
		{"{a\\,b,c}", "a", false},
		{"[{]a,b}", "{a,b}", true},
		{"{a,[,]}", ",", true},
		{"{a,[,]}", "a", true},
		{"a,b", "a,b", true},
		{"{*.c,src/**/*.h}", "src/x/y.h", true},
		{"{*.c,src/**/*.h}", "y.c", true},
	};
	check_cases(cases, ARRAY_LEN(cases), false, "braces");
}

static void test_brackets(void)
{
	static const struct glob_case cases[] = {
		{"[abc]", "b", true},
		{"[abc]", "d", false},
		{"[a-c]x", "bx", true},
		{"[a-c]x", "dx", false},
		{"[!a-c]x", "dx", true},
		{"[!a-c]x", "ax", false},
		{"[^a-c]x", "dx", true},
		{"[^a-c]x", "bx", false},
		{"[]]", "]", true},
		{"[]a]", "a", true},
		{"[!]]", "]", false},
		{"[!]]", "x", true},
		{"[a-]", "-", true},
		{"[-a]", "-", true},
		{"[a\\]]", "]", true},
		{"[\\!a]", "!", true},
		{"[[:digit:]]*", "7up", true},
		{"[[:digit:]]*", "up", false},
		{"[[:alpha:][:digit:]_]", "_", true},
		{"[[:upper:]]", "a", false},
		{"[[:space:]]", " ", true},
		{"[[:punct:]]", ".", true},
		{"[[:xdigit:]][[:xdigit:]]", "fF", true},
		{"[!.]*", ".x", false},
		{"[!.]*", "x.", true},
		{"[", "[", true},
		{"a[b", "a[b", true},
		{"[[[[", "[[[[", true},
		/* The first '[' never closes (its class takes the ']'); the
		 * second does: "[:alpha:]" is the set of ':', 'a', 'l', ... */
		{"[[:alpha:]", "[a", true},
		{"[[:alpha:]", "[[:alpha:]", false},
		{"[[:alpha:]", "a", false},
		{"[a[:digit:]", "[a:", true},
		{"[a[:digit:]", "[a5", false},
		{"[[a]", "a", true},
		{"[[a]", "[a", false},
		{"{[[:alpha:],b}", "[h", true},
		{"[a", "a", false},
		{"[a/b]", "[a/b]", true},
		{"[a/b]", "a", false},
		{"x[/]y", "x[/]y", true},
		{"[*]", "*", true},
		{"[*]", "a", false},
		{"[?]", "?", true},
		{"[é]", "é", true},
		{"[à-ü]", "é", true},
		{"[à-ü]", "e", false},
		{"[!é]", "e", true},
		{"[!é]", "é", false},
	};
	check_cases(cases, ARRAY_LEN(cases), false, "brackets");
}

static void test_escapes(void)
{
	static const struct glob_case cases[] = {
		{"\\*", "*", true},
		{"\\*", "a", false},
		{"\\?", "?", true},
		{"\\?", "a", false},
		{"\\[a]", "[a]", true},
		{"\\[a]", "a", false},
		{"a\\\\b", "a\\b", true},
		{"\\a\\b", "ab", true},
		{"\\*\\*/x", "**/x", true},
		{"\\*\\*/x", "a/x", false},
		{"a\\/b", "a/b", true},
		{"*\\**", "a*b", true},
		{"*\\**", "ab", false},
	};
	check_cases(cases, ARRAY_LEN(cases), false, "escapes");
}

static void test_globstar(void)
{
	static const struct glob_case cases[] = {
		{"src/**/*.c", "src/a.c", true},
		{"src/**/*.c", "src/x/y/b.c", true},
		{"src/**/*.c", "src/x/b.h", false},
		{"src/**/*.c", "lib/a.c", false},
		{"src/**/*.c", "a.c", false},
		{"**/*.c", "a.c", true},
		{"**/*.c", "d/a.c", true},
		{"**/*.c", "d/e/f/a.c", true},
		{"**/*.c", "d/a.h", false},
		{"**", "a", true},
		{"**", "a/b/c", true},
		{"**", ".git/config", true},
		{"a/**", "a/b", true},
		{"a/**", "a/b/c/d", true},
		{"a/**", "a", false},
		{"a/**", "b/a", false},
		{"a/**", "ab/c", false},
		{"**/a", "a", true},
		{"**/a", "x/y/a", true},
		{"**/a", "x/ya", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/b", true},
		{"a/**/b", "a/x/y/z/b", true},
		{"a/**/b", "a/x/y/z/c", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/1/b/2/3/c", true},
		{"a/**/b/**/c", "a/1/c/2/b", false},
		{"**/b/**", "b/x", true},
		{"**/b/**", "x/y/b/z", true},
		{"**/b/**", "x/y/b", false},
		{"**/**/x", "x", true},
		{"**/**/x", "p/q/x", true},
		{"a/**/**/b", "a/b", true},
		{"**/x/**/x/**/y", "x/x/y", true},
		{"**/x/**/x/**/y", "x/y/x/y", true},
		{"**/x/**/x/**/y", "x/y/y", false},
		{"x**", "xyz", true},
		{"x**", "x/yz", false},
		{"**x", "abx", true},
		{"**.c", "a/b.c", false},
		{"a/**b/c", "a/xb/c", true},
		{"a/**b/c", "a/x/b/c", false},
	};
	check_cases(cases, ARRAY_LEN(cases), false, "globstar");
}

static void test_names(void)
{
	static const struct glob_case cases[] = {
		{"*", ".hidden", true},
		{"*/*", ".git/HEAD", true},
		{".*", ".hidden", true},
		{"?hidden", ".hidden", true},
		{"**/*.c", ".x/.y.c", true},
		{"*.txt", "caf\xc3\xa9.txt", true},
		{"caf?.txt", "caf\xc3\xa9.txt", true},
		{"caf??.txt", "caf\xc3\xa9.txt", false},
		{"caf\xc3\xa9.*", "caf\xc3\xa9.txt", true},
		{"?", "\xe2\x82\xac", true},
		{"?", "\xf0\x9f\x98\x80", true},
		{"??", "\xf0\x9f\x98\x80", false},
		{"*", "\xff\xfe", true},
		{"??", "\xff\xfe", true},
		{"?", "\xff\xfe", false},
		{"\xff*", "\xff\xfe", true},
		{"\xfe*", "\xff\xfe", false},
		{"?", "\xc3", true},
		{"??", "\xc3(", true},
		{"a?b", "a\xed\xa0\x80" "b", false},
		{"a???b", "a\xed\xa0\x80" "b", true},
		{"[!a]", "\x80", true},
		{"*", "line\nbreak", true},
		{"line?break", "line\nbreak", true},
		{"*\n*", "a\nb", true},
		{"*\n*", "ab", false},
		{"* *", "with space", true},
		{"a\tb", "a\tb", true},
	};
	check_cases(cases, ARRAY_LEN(cases), false, "names");
}

static void test_match_name(void)
{
	static const struct glob_case cases[] = {
		{"*.c", "src/a/b.c", true},
		{"*.c", "b.c", true},
		{"*.c", "src/a.c/b.h", false},
		{"b.?", "src/b.c", true},
		{"src", "lib/src", true},
		{"src/*.c", "src/a.c", true},
		{"src/*.c", "x/src/a.c", false},
		{"{*.c,src/*.h}", "deep/x.c", true},
		{"{*.c,src/*.h}", "src/y.h", true},
		{"{*.c,src/*.h}", "lib/src/y.h", false},
		{"**", "a/b/c", true},
		{"**/*.md", "docs/x.md", true},
		{"*", ".hidden/.x", true},
	};
	check_cases(cases, ARRAY_LEN(cases), true, "glob_match_name");
}

static void check_error(const char *pattern, const char *needle, const char *title)
{
	char err[256] = "";
	struct glob_pat *pat = glob_compile(pattern, err, sizeof(err));
	ok(!pat && strstr(err, needle), "error: %s", title);
	if (pat || !strstr(err, needle))
		diag("message: '%s', wanted '%s'", err, needle);
	glob_free(pat);
}

static void test_errors(void)
{
	check_error("", "empty", "empty pattern");
	check_error("{a,b", "unbalanced '{' at byte 1", "unclosed brace");
	check_error("x{a", "unbalanced '{' at byte 2", "unclosed brace without comma");
	check_error("{a,{b}", "unbalanced", "one of two braces unclosed");
	check_error("{{a,b}", "unbalanced", "outer brace unclosed");
	check_error("a\\", "lone", "trailing backslash");
	check_error("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", "1024",
		    "2048 expansions");
	char *nest = xmalloc(401);
	size_t n = 0;
	for (int i = 0; i < 100; i++)
		nest[n++] = '{', nest[n++] = 'a', nest[n++] = ',';
	for (int i = 0; i < 100; i++)
		nest[n++] = '}';
	nest[n] = '\0';
	check_error(nest, "nested", "braces nested 100 deep");
	free(nest);

	/* 2^10 exactly is allowed. */
	char err[256] = "";
	struct glob_pat *pat =
		glob_compile("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", err, sizeof(err));
	ok(pat && glob_match(pat, "abbabaabab") && !glob_match(pat, "abbabaaba"),
	   "exactly 1024 expansions compile and match");
	glob_free(pat);
	pat = glob_compile("{", NULL, 0);
	ok(pat == NULL, "an error with no error buffer");
	pat = glob_compile("x", err, 1);
	ok(pat != NULL, "a 1-byte error buffer is fine when there is no error");
	glob_free(pat);
	pat = glob_compile("{", err, 3);
	ok(pat == NULL && strlen(err) == 2, "an error message is cut to the buffer");
}

/* Patterns that make a backtracking matcher take exponential time. Only
 * that they finish is asserted: a regression shows as a hung test. */
static void test_hostile(void)
{
	size_t n = 100000;
	char *as = xmalloc(n + 1);
	memset(as, 'a', n);
	as[n] = '\0';
	struct glob_pat *pat = glob_compile("*a*a*a*a*a*a*a*a*a*b", NULL, 0);
	ok(pat && !glob_match(pat, as), "*a*a*a*a*a*a*a*a*a*b against 100000 'a': no match, quickly");
	as[n - 1] = 'b';
	ok(pat && glob_match(pat, as), "... and a match when the name ends in b");
	glob_free(pat);

	/* A pattern with 2000 stars. */
	struct sbuf p = {0};
	for (int i = 0; i < 2000; i++)
		sbuf_adds(&p, "*a");
	sbuf_adds(&p, "*b");
	as[n - 1] = 'a';
	pat = glob_compile(p.buf, NULL, 0);
	ok(pat && !glob_match(pat, as), "2000 stars against 100000 'a'");
	glob_free(pat);

	/* Deep paths against many "**". */
	sbuf_reset(&p);
	for (int i = 0; i < 30; i++)
		sbuf_adds(&p, "**/a/");
	sbuf_adds(&p, "b");
	struct sbuf path = {0};
	for (int i = 0; i < 3000; i++)
		sbuf_adds(&path, "a/");
	sbuf_adds(&path, "c");
	pat = glob_compile(p.buf, NULL, 0);
	ok(pat && !glob_match(pat, path.buf), "30 '**' against 3001 components: no match");
	path.buf[path.len - 1] = 'b';
	ok(pat && glob_match(pat, path.buf), "... and a match");
	glob_free(pat);

	/* "**" and stars together. */
	pat = glob_compile("**/*a*a*a*a*/**/*a*a*a*b", NULL, 0);
	sbuf_reset(&path);
	for (int i = 0; i < 200; i++)
		sbuf_adds(&path, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/");
	sbuf_adds(&path, "aaaaaaaaaaaaaaaaaaaa");
	ok(pat && !glob_match(pat, path.buf), "stars inside '**' patterns on a deep path");
	glob_free(pat);

	/* Very long literal, unclosed brackets, many brace groups. */
	sbuf_reset(&p);
	for (int i = 0; i < 200000; i++)
		sbuf_addc(&p, '[');
	pat = glob_compile(p.buf, NULL, 0);
	ok(pat && glob_match(pat, p.buf) && !glob_match(pat, "["), "200000 unclosed '[' are literal");
	glob_free(pat);
	sbuf_reset(&p);
	for (int i = 0; i < 50000; i++)
		sbuf_adds(&p, "[[:alpha:]");
	sbuf_reset(&path);
	for (int i = 0; i < 50000; i++)
		sbuf_adds(&path, "[p");
	pat = glob_compile(p.buf, NULL, 0);
	ok(pat && glob_match(pat, path.buf) && !glob_match(pat, p.buf),
	   "50000 '[[:alpha:]': each second '[' closes, in linear time");
	glob_free(pat);
	sbuf_reset(&p);
	for (int i = 0; i < 50000; i++)
		sbuf_adds(&p, "{x}");
	pat = glob_compile(p.buf, NULL, 0);
	ok(pat && glob_match(pat, p.buf), "50000 literal '{x}' groups");
	glob_free(pat);
	sbuf_reset(&p);
	for (int i = 0; i < 50000; i++)
		sbuf_adds(&p, "{a,b}");
	char err[256] = "";
	pat = glob_compile(p.buf, err, sizeof(err));
	ok(!pat && strstr(err, "1024"), "50000 brace groups: an error, not a hang");
	glob_free(pat);
	sbuf_reset(&p);
	sbuf_adds(&p, "{a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,0,1,2,3,4,5}{a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,0,1,2,3,4,5}");
	for (int i = 0; i < 10000; i++)
		sbuf_adds(&p, "xxxxxxxxxx");
	pat = glob_compile(p.buf, err, sizeof(err));
	ok(!pat && strstr(err, "bytes"), "1024 expansions of 100 KB each: an error on size");
	glob_free(pat);

	sbuf_free(&p);
	sbuf_free(&path);
	free(as);
}

/* Single components of well-formed tokens, ASCII: fnmatch(3) is the
 * reference there. */
static void test_vs_fnmatch(void)
{
	static const char *const toks[] = {"a", "b", "c", "*", "?", "[ab]", "[!a]", "[a-b]", "\\*", "\\a", "."};
	unsigned long x = 0x9e3779b97f4a7c15UL;
	int bad = 0;
	for (int round = 0; round < 5000; round++) {
		char pat[64] = "", name[16];
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int ntok = 1 + (int)(x % 7);
		for (int i = 0; i < ntok; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			strcat(pat, toks[x % ARRAY_LEN(toks)]);
		}
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t len = x % 9;
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			name[i] = "abc*."[x % 5];
		}
		name[len] = '\0';
		struct glob_pat *g = glob_compile(pat, NULL, 0);
		bool want = fnmatch(pat, name, 0) == 0;
		if (!g || glob_match(g, name) != want) {
			if (bad++ < 5)
				diag("'%s' against '%s': fnmatch says %d", pat, name, want);
		}
		glob_free(g);
	}
	is_int(bad, 0, "5000 random one-component patterns agree with fnmatch(3)");
}

/* A plain recursive reference for the component level: exponential,
 * but the cases are small. Components are "a", "b", "*" or "**". */
static bool ref_match(const char *const *pc, int np, const char *const *sc, int ns)
{
	if (np == 0)
		return ns == 0;
	if (strcmp(pc[0], "**") == 0) {
		/* The last "**" takes one or more components, others zero or more. */
		for (int k = np == 1 ? 1 : 0; k <= ns; k++)
			if (ref_match(pc + 1, np - 1, sc + k, ns - k))
				return true;
		return false;
	}
	if (ns == 0)
		return false;
	bool one = strcmp(pc[0], "*") == 0 || strcmp(pc[0], sc[0]) == 0;
	return one && ref_match(pc + 1, np - 1, sc + 1, ns - 1);
}

static void test_vs_reference(void)
{
	static const char *const pcs[] = {"a", "b", "*", "**", "**"};
	static const char *const scs[] = {"a", "b"};
	unsigned long x = 0x2545f4914f6cdd1dUL;
	int bad = 0;
	for (int round = 0; round < 5000; round++) {
		const char *pc[8], *sc[8];
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int np = 1 + (int)(x % 6), ns = 1 + (int)((x >> 8) % 7);
		struct sbuf pat = {0}, path = {0};
		for (int i = 0; i < np; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			pc[i] = pcs[x % ARRAY_LEN(pcs)];
			sbuf_addf(&pat, "%s%s", i ? "/" : "", pc[i]);
		}
		for (int i = 0; i < ns; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			sc[i] = scs[x % ARRAY_LEN(scs)];
			sbuf_addf(&path, "%s%s", i ? "/" : "", sc[i]);
		}
		/* Adjacent "**" collapse to one; the reference wants that too. */
		int m = 0;
		for (int i = 0; i < np; i++)
			if (!(m && strcmp(pc[i], "**") == 0 && strcmp(pc[m - 1], "**") == 0))
				pc[m++] = pc[i];
		struct glob_pat *g = glob_compile(pat.buf, NULL, 0);
		bool want = ref_match(pc, m, sc, ns);
		if (!g || glob_match(g, path.buf) != want) {
			if (bad++ < 5)
				diag("'%s' against '%s': reference says %d", pat.buf, path.buf, want);
		}
		glob_free(g);
		sbuf_free(&pat);
		sbuf_free(&path);
	}
	is_int(bad, 0, "5000 random '**' patterns agree with a recursive reference");
}

int main(void)
{
	test_vs_reference();
	test_vs_fnmatch();
	test_basics();
	test_braces();
	test_brackets();
	test_escapes();
	test_globstar();
	test_names();
	test_match_name();
	test_errors();
	test_hostile();
	return done_testing();
}
