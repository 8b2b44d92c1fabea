/* fuzz_glob.c: a libFuzzer target for the glob patterns (src/codec/glob.c) of
 * `sandbox glob` and `grep --glob`: the pattern is the user's, the paths
 * it is matched against are the workspace's names.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_glob; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_glob -max_total_time=600 -timeout=5 build/fuzz/corpus_glob tests/fuzz/corpus_glob
 *
 * An input is the pattern, a NUL byte, then the path (no NUL: the path
 * is empty). The seeds (tests/fuzz/corpus_glob) were written by hand
 * with printf: each construct of the man page (braces nested, empty,
 * literal and escaped; brackets with classes, ranges, negation, ']'
 * first, unclosed; "**" first, inside and last; escapes; UTF-8 and
 * invalid bytes), errors, and patterns that make a backtracking
 * matcher take exponential time.
 *
 * For a pattern and path of a few dozen bytes, a reference written here
 * from the man page (section Patterns) decides too: braces expanded by
 * recursive descent, every alternative matched by dynamic programming
 * over components and characters, no greedy shortcut. It aborts when
 * the two differ on compiling or on matching, by path or by name. For
 * any size it aborts when a path, its special characters escaped, does
 * not match itself, or when "**" does not match every path or "*" every
 * path without '/'. Time: the matcher must stay polynomial, so that
 * libFuzzer's -timeout would catch a pattern that backtracks. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "glob.h"
#include "util.h"

/* Sizes up to which the reference runs (it is quadratic and more). */
#define RG_MAX_PATTERN 64
#define RG_MAX_PATH 96
/* Above this many alternatives, it only checks that both compile. */
#define RG_MAX_MATCHED_ALTS 256
#define RG_MAX_ALTS 1024
#define RG_MAX_DEPTH 64
/* An invalid byte b is the character RG_BAD + b, above all code points. */
#define RG_BAD 0x110000u

/* ---- characters ---- */

/* The character at s (n > 0 bytes): a code point of well-formed UTF-8,
 * or RG_BAD + the byte; its length in *len. */
static uint32_t rg_char(const unsigned char *s, size_t n, size_t *len)
{
	static const struct {
		unsigned char mask, lead;
		size_t len;
		uint32_t min;
	} forms[] = {{0xe0, 0xc0, 2, 0x80}, {0xf0, 0xe0, 3, 0x800}, {0xf8, 0xf0, 4, 0x10000}};
	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	for (size_t f = 0; f < 3; f++) {
		if ((s[0] & forms[f].mask) != forms[f].lead || n < forms[f].len)
			continue;
		uint32_t cp = s[0] & (0x7f >> forms[f].len);
		size_t k = 1;
		for (; k < forms[f].len && (s[k] & 0xc0) == 0x80; k++)
			cp = cp << 6 | (s[k] & 0x3f);
		if (k < forms[f].len || cp < forms[f].min || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			break;
		*len = forms[f].len;
		return cp;
	}
	return RG_BAD + s[0];
}

/* ---- bracket expressions ---- */

struct rg_set {
	bool negate;
	int (*classes[12])(int);
	size_t nclasses;
	uint32_t lo[256], hi[256];
	size_t n;
};

static int (*rg_class(const char *name, size_t n))(int)
{
	static const struct {
		const char *name;
		int (*is)(int);
	} classes[] = {
		{"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank}, {"cntrl", iscntrl},
		{"digit", isdigit}, {"graph", isgraph}, {"lower", islower}, {"print", isprint},
		{"punct", ispunct}, {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit},
	};
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strlen(classes[i].name) == n && memcmp(classes[i].name, name, n) == 0)
			return classes[i].is;
	return NULL;
}

/* One member character at *j of c[0, m): '\' makes the next literal.
 * False at the end. */
static bool rg_member(const char *c, size_t m, size_t *j, uint32_t *cp)
{
	size_t len;
	if (*j < m && c[*j] == '\\')
		(*j)++;
	if (*j >= m)
		return false;
	*cp = rg_char((const unsigned char *)c + *j, m - *j, &len);
	*j += len;
	return true;
}

/* The bracket expression opening at c[i] == '[' in the component
 * c[0, m): the index past its ']', or 0 when it has none (then the '['
 * is a literal). Fills set when not NULL. */
static size_t rg_bracket(const char *c, size_t m, size_t i, struct rg_set *set)
{
	struct rg_set scratch;
	if (!set)
		set = &scratch;
	memset(set, 0, sizeof(*set));
	size_t j = i + 1;
	if (j < m && (c[j] == '!' || c[j] == '^')) {
		set->negate = true;
		j++;
	}
	for (bool first = true; j < m; first = false) {
		if (c[j] == ']' && !first)
			return j + 1;
		if (c[j] == '[' && j + 1 < m && c[j + 1] == ':') {
			size_t k = j + 2;
			while (k < m && c[k] >= 'a' && c[k] <= 'z')
				k++;
			int (*is)(int) = k + 1 < m && c[k] == ':' && c[k + 1] == ']'
					 ? rg_class(c + j + 2, k - (j + 2)) : NULL;
			if (is) {
				if (set->nclasses < 12)
					set->classes[set->nclasses++] = is;
				j = k + 2;
				continue;
			}
		}
		uint32_t lo, hi;
		if (!rg_member(c, m, &j, &lo))
			return 0;
		hi = lo;
		if (j + 1 < m && c[j] == '-' && c[j + 1] != ']') {
			j++;
			if (!rg_member(c, m, &j, &hi))
				return 0;
		}
		if (set->n < 256) {
			set->lo[set->n] = lo;
			set->hi[set->n++] = hi;
		}
	}
	return 0;
}

static bool rg_set_has(const struct rg_set *set, uint32_t cp)
{
	bool in = false;
	for (size_t k = 0; k < set->nclasses && !in; k++)
		in = cp < 0x80 && set->classes[k]((int)cp);
	for (size_t k = 0; k < set->n && !in; k++)
		in = cp >= set->lo[k] && cp <= set->hi[k];
	return in != set->negate;
}

/* ---- one component ---- */

enum rg_kind { RG_CHAR, RG_ANY, RG_STAR, RG_SET };

struct rg_tok {
	enum rg_kind kind;
	uint32_t cp;
	struct rg_set *set;
};

struct rg_comp {
	bool globstar;
	struct rg_tok *toks;
	size_t n;
};

static void rg_comp_parse(struct rg_comp *rc, const char *c, size_t m)
{
	memset(rc, 0, sizeof(*rc));
	if (m == 2 && c[0] == '*' && c[1] == '*') {
		rc->globstar = true;
		return;
	}
	rc->toks = xmalloc((m + 1) * sizeof(*rc->toks));
	for (size_t j = 0; j < m;) {
		struct rg_tok *t = &rc->toks[rc->n++];
		size_t len, end;
		memset(t, 0, sizeof(*t));
		if (c[j] == '*' || c[j] == '?') {
			t->kind = c[j] == '*' ? RG_STAR : RG_ANY;
			j++;
		} else if (c[j] == '[' && (end = rg_bracket(c, m, j, NULL)) != 0) {
			t->kind = RG_SET;
			t->set = xmalloc(sizeof(*t->set));
			rg_bracket(c, m, j, t->set);
			j = end;
		} else {
			if (c[j] == '\\' && j + 1 < m)
				j++;
			t->kind = RG_CHAR;
			t->cp = rg_char((const unsigned char *)c + j, m - j, &len);
			j += len;
		}
	}
}

static void rg_comp_free(struct rg_comp *rc)
{
	for (size_t i = 0; i < rc->n; i++)
		free(rc->toks[i].set);
	free(rc->toks);
}

/* Tokens against the characters of name[0, n), by dynamic programming:
 * at[t][k] says tokens t.. match characters k.. */
static bool rg_comp_match(const struct rg_comp *rc, const char *name, size_t n)
{
	uint32_t *cps = xmalloc((n + 1) * sizeof(*cps));
	size_t nc = 0, len;
	for (size_t i = 0; i < n; i += len)
		cps[nc++] = rg_char((const unsigned char *)name + i, n - i, &len);
	size_t w = nc + 1;
	bool *at = xmalloc((rc->n + 1) * w * sizeof(*at));
	for (size_t k = 0; k <= nc; k++)
		at[rc->n * w + k] = k == nc;
	for (size_t t = rc->n; t-- > 0;) {
		const struct rg_tok *tok = &rc->toks[t];
		for (size_t k = nc + 1; k-- > 0;) {
			bool m;
			if (tok->kind == RG_STAR)
				m = at[(t + 1) * w + k] || (k < nc && at[t * w + k + 1]);
			else if (k == nc)
				m = false;
			else if (tok->kind == RG_CHAR)
				m = tok->cp == cps[k] && at[(t + 1) * w + k + 1];
			else if (tok->kind == RG_ANY)
				m = at[(t + 1) * w + k + 1];
			else
				m = rg_set_has(tok->set, cps[k]) && at[(t + 1) * w + k + 1];
			at[t * w + k] = m;
		}
	}
	bool r = at[0];
	free(at);
	free(cps);
	return r;
}

/* ---- one alternative: components ---- */

struct rg_alt {
	struct rg_comp *comps;
	size_t n;
	bool has_slash;
};

/* Splits s at each '/' ("\/" too: a component never holds one). */
static void rg_alt_parse(struct rg_alt *a, const char *s)
{
	size_t len = strlen(s), start = 0;
	memset(a, 0, sizeof(*a));
	a->comps = xmalloc((len + 1) * sizeof(*a->comps));
	for (size_t i = 0;; i++) {
		if (i < len && s[i] == '\\' && i + 1 < len && s[i + 1] != '/') {
			i++; /* an escaped character */
			continue;
		}
		bool escaped_slash = i < len && s[i] == '\\' && i + 1 < len;
		if (i < len && !escaped_slash && s[i] != '/')
			continue;
		rg_comp_parse(&a->comps[a->n++], s + start, i - start);
		if (i >= len)
			break;
		a->has_slash = true;
		i += escaped_slash;
		start = i + 1;
	}
}

static void rg_alt_free(struct rg_alt *a)
{
	for (size_t i = 0; i < a->n; i++)
		rg_comp_free(&a->comps[i]);
	free(a->comps);
}

/* Components of the alternative against the path's, by dynamic
 * programming. "**" is zero or more components, but one or more as the
 * last component of the pattern. */
static bool rg_alt_match(const struct rg_alt *a, const char *path, size_t len)
{
	size_t np = 1;
	for (size_t i = 0; i < len; i++)
		np += path[i] == '/';
	size_t *from = xmalloc((np + 1) * sizeof(*from));
	for (size_t i = 0, k = 1; i < len; i++)
		if (path[i] == '/')
			from[k++] = i + 1;
	from[0] = 0;
	from[np] = len + 1;
	size_t w = np + 1;
	bool *at = xmalloc((a->n + 1) * w * sizeof(*at));
	for (size_t k = 0; k <= np; k++)
		at[a->n * w + k] = k == np;
	for (size_t t = a->n; t-- > 0;) {
		const struct rg_comp *c = &a->comps[t];
		bool last = t + 1 == a->n;
		for (size_t k = np + 1; k-- > 0;) {
			bool m;
			if (c->globstar && last)
				m = k < np;
			else if (c->globstar)
				m = at[(t + 1) * w + k] || (k < np && at[t * w + k + 1]);
			else
				m = k < np && at[(t + 1) * w + k + 1] &&
				    rg_comp_match(c, path + from[k], from[k + 1] - 1 - from[k]);
			at[t * w + k] = m;
		}
	}
	bool r = at[0];
	free(at);
	free(from);
	return r;
}

/* ---- braces ---- */

/* The pattern as a tree: a sequence of text and groups; a group with a
 * comma holds alternatives, one without is text between its braces. */
struct rg_seq;

struct rg_node {
	bool group, literal; /* literal: a group without a comma */
	char *text;          /* !group */
	struct rg_seq *alts; /* group: its alternatives (one if literal) */
	size_t nalts;
};

struct rg_seq {
	struct rg_node *nodes;
	size_t n;
};

struct rg_parser {
	const char *p;
	size_t len, i;
	bool error;
};

static void rg_seq_add_text(struct rg_seq *s, const char *t, size_t n)
{
	s->nodes = xrealloc(s->nodes, (s->n + 1) * sizeof(*s->nodes));
	memset(&s->nodes[s->n], 0, sizeof(s->nodes[s->n]));
	s->nodes[s->n++].text = xstrndup(t, n);
}

/* The end of the component that contains p[i]: the next '/'. */
static size_t rg_comp_end(const struct rg_parser *ps, size_t i)
{
	const char *slash = memchr(ps->p + i, '/', ps->len - i);
	return slash ? (size_t)(slash - ps->p) : ps->len;
}

static void rg_parse_seq(struct rg_parser *ps, struct rg_seq *s, bool in_group);

/* A group at p[i] == '{'; an error if it never closes. */
static void rg_parse_group(struct rg_parser *ps, struct rg_seq *s)
{
	struct rg_node g = {.group = true};
	ps->i++;
	for (;;) {
		g.alts = xrealloc(g.alts, (g.nalts + 1) * sizeof(*g.alts));
		memset(&g.alts[g.nalts], 0, sizeof(g.alts[g.nalts]));
		rg_parse_seq(ps, &g.alts[g.nalts++], true);
		if (ps->error || ps->i >= ps->len) {
			ps->error = true;
			break;
		}
		if (ps->p[ps->i++] == '}')
			break;
	}
	g.literal = g.nalts == 1;
	s->nodes = xrealloc(s->nodes, (s->n + 1) * sizeof(*s->nodes));
	s->nodes[s->n++] = g;
}

/* Text and groups up to the end, or in a group up to its ',' or '}'. */
static void rg_parse_seq(struct rg_parser *ps, struct rg_seq *s, bool in_group)
{
	while (ps->i < ps->len && !ps->error) {
		size_t i = ps->i, end;
		char c = ps->p[i];
		if (in_group && (c == ',' || c == '}'))
			return;
		if (c == '{') {
			rg_parse_group(ps, s);
		} else if (c == '\\') {
			if (i + 1 >= ps->len) {
				ps->error = true;
				return;
			}
			rg_seq_add_text(s, ps->p + i, 2);
			ps->i += 2;
		} else if (c == '[' && (end = rg_bracket(ps->p, rg_comp_end(ps, i), i, NULL)) != 0) {
			rg_seq_add_text(s, ps->p + i, end - i);
			ps->i = end;
		} else {
			rg_seq_add_text(s, ps->p + i, 1);
			ps->i++;
		}
	}
}

static void rg_seq_free(struct rg_seq *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->nodes[i].text);
		for (size_t k = 0; k < s->nodes[i].nalts; k++)
			rg_seq_free(&s->nodes[i].alts[k]);
		free(s->nodes[i].alts);
	}
	free(s->nodes);
}

/* How many strings s expands to (capped above RG_MAX_ALTS), and how
 * deep its groups with a comma nest. */
static size_t rg_seq_count(const struct rg_seq *s, int *depth)
{
	size_t total = 1;
	int deepest = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct rg_node *nd = &s->nodes[i];
		if (!nd->group)
			continue;
		size_t sum = 0;
		for (size_t k = 0; k < nd->nalts; k++) {
			int d = 0;
			sum += rg_seq_count(&nd->alts[k], &d);
			if (sum > RG_MAX_ALTS)
				sum = RG_MAX_ALTS + 1;
			d += !nd->literal;
			if (d > deepest)
				deepest = d;
		}
		total *= sum;
		if (total > RG_MAX_ALTS)
			total = RG_MAX_ALTS + 1;
	}
	*depth = deepest;
	return total;
}

static void rg_seq_expand(const struct rg_seq *s, struct strvec *out);

/* out := every string of out followed by every string of tails. */
static void rg_product(struct strvec *out, const struct strvec *tails)
{
	struct strvec next = {0};
	for (size_t i = 0; i < out->n; i++) {
		for (size_t k = 0; k < tails->n; k++) {
			char *s = xasprintf("%s%s", out->v[i], tails->v[k]);
			strvec_push(&next, s);
			free(s);
		}
	}
	strvec_clear(out);
	*out = next;
}

static void rg_seq_expand(const struct rg_seq *s, struct strvec *out)
{
	strvec_push(out, "");
	for (size_t i = 0; i < s->n; i++) {
		const struct rg_node *nd = &s->nodes[i];
		struct strvec tails = {0};
		if (!nd->group) {
			strvec_push(&tails, nd->text);
		} else {
			for (size_t k = 0; k < nd->nalts; k++) {
				struct strvec sub = {0};
				rg_seq_expand(&nd->alts[k], &sub);
				for (size_t j = 0; j < sub.n; j++) {
					if (!nd->literal) {
						strvec_push(&tails, sub.v[j]);
						continue;
					}
					char *t = xasprintf("{%s}", sub.v[j]);
					strvec_push(&tails, t);
					free(t);
				}
				strvec_clear(&sub);
			}
		}
		rg_product(out, &tails);
		strvec_clear(&tails);
	}
}

/* ---- the reference's pattern ---- */

struct rg_pat {
	struct rg_alt *alts;
	size_t n;
};

/* False when the man page calls the pattern an error. */
static bool rg_compile(struct rg_pat *rp, const char *pattern)
{
	memset(rp, 0, sizeof(*rp));
	struct rg_parser ps = {pattern, strlen(pattern), 0, false};
	struct rg_seq top = {0};
	if (ps.len == 0)
		return false;
	rg_parse_seq(&ps, &top, false);
	int depth = 0;
	bool ok = !ps.error && rg_seq_count(&top, &depth) <= RG_MAX_ALTS && depth <= RG_MAX_DEPTH;
	if (ok) {
		struct strvec exp = {0};
		rg_seq_expand(&top, &exp);
		rp->alts = xmalloc(exp.n * sizeof(*rp->alts));
		for (size_t i = 0; i < exp.n; i++)
			rg_alt_parse(&rp->alts[rp->n++], exp.v[i]);
		strvec_clear(&exp);
	}
	rg_seq_free(&top);
	return ok;
}

static void rg_free(struct rg_pat *rp)
{
	for (size_t i = 0; i < rp->n; i++)
		rg_alt_free(&rp->alts[i]);
	free(rp->alts);
}

static bool rg_match(const struct rg_pat *rp, const char *path, bool by_name)
{
	const char *slash = strrchr(path, '/');
	const char *base = by_name && slash ? slash + 1 : path;
	for (size_t i = 0; i < rp->n; i++) {
		const char *s = rp->alts[i].has_slash ? path : base;
		if (rg_alt_match(&rp->alts[i], s, strlen(s)))
			return true;
	}
	return false;
}

/* ---- the checks ---- */

/* The pattern that matches exactly path: every special character, and
 * every byte of a brace, escaped. */
static char *fz_glob_literal(const char *path)
{
	struct sbuf s = {0};
	sbuf_add(&s, "", 0);
	for (const char *p = path; *p; p++) {
		if (strchr("*?[]\\{},", *p))
			sbuf_addc(&s, '\\');
		sbuf_addc(&s, *p);
	}
	return s.buf;
}

static void fz_glob_invariants(const char *path)
{
	static struct glob_pat *star, *globstar;
	if (!star) {
		star = glob_compile("*", NULL, 0);
		globstar = glob_compile("**", NULL, 0);
		CHECK(star && globstar);
	}
	CHECK(glob_match(globstar, path));
	CHECK(glob_match(star, path) == !strchr(path, '/'));
	if (!*path)
		return;
	char err[256] = "";
	char *lit = fz_glob_literal(path);
	struct glob_pat *pat = glob_compile(lit, err, sizeof(err));
	CHECK(pat != NULL);
	CHECK(glob_match(pat, path));
	glob_free(pat);
	free(lit);
}

static void fz_glob_against_reference(const char *pattern, const struct glob_pat *pat,
				      const char *err, const char *path)
{
	struct rg_pat rp;
	bool ok = rg_compile(&rp, pattern);
	if (ok != (pat != NULL)) {
		fprintf(stderr, "the reference %s what glob_compile %s (%s)\n",
			ok ? "compiles" : "refuses", pat ? "compiles" : "refuses", err);
		abort();
	}
	if (ok && rp.n <= RG_MAX_MATCHED_ALTS) {
		bool by_path = rg_match(&rp, path, false), by_name = rg_match(&rp, path, true);
		if (by_path != glob_match(pat, path) || by_name != glob_match_name(pat, path)) {
			fprintf(stderr, "the reference says %d (by name %d), glob.c %d (%d)\n", by_path,
				by_name, glob_match(pat, path), glob_match_name(pat, path));
			abort();
		}
	}
	rg_free(&rp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The pattern, then after a NUL the path: C strings, as in use. */
	const uint8_t *nul = memchr(data, 0, size);
	size_t plen = nul ? (size_t)(nul - data) : size;
	char *pattern = xstrndup((const char *)data, plen);
	char *path = nul ? xstrndup((const char *)nul + 1, size - plen - 1) : xstrdup("");

	char err[256] = "";
	struct glob_pat *pat = glob_compile(pattern, err, sizeof(err));
	if (!pat)
		CHECK(err[0] != '\0');
	else
		glob_match_name(pat, path);
	if (strlen(pattern) <= RG_MAX_PATTERN && strlen(path) <= RG_MAX_PATH)
		fz_glob_against_reference(pattern, pat, err, path);
	else if (pat)
		glob_match(pat, path);
	fz_glob_invariants(path);

	glob_free(pat);
	free(pattern);
	free(path);
	return 0;
}
