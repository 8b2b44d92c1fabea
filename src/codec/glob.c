/* glob.c: see glob.h. Compiling expands braces into alternatives, splits
 * each at '/' and turns every component into tokens. Matching runs the
 * classic greedy wildcard algorithm twice over: characters against the
 * tokens of a component (with '*' as the wildcard), and components
 * against the components of an alternative (with "**" as the wildcard).
 * Backtracking only ever resumes at the last wildcard, so the time is
 * at most the product of the lengths, never exponential. */
#include "glob.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "util.h"

#define GLOB_MAX_ALTS 1024
#define GLOB_MAX_BYTES ((size_t)4 << 20)
#define GLOB_MAX_DEPTH 64
/* A byte that is not valid UTF-8 decodes to GLOB_BAD + byte, above every
 * real code point, so it equals only the same invalid byte. */
#define GLOB_BAD 0x110000u
#define GLOB_NONE SIZE_MAX

enum glob_tok_kind { GLOB_TOK_CHAR, GLOB_TOK_ANY, GLOB_TOK_STAR, GLOB_TOK_SET };

enum glob_class {
	GLOB_CL_ALNUM = 1 << 0, GLOB_CL_ALPHA = 1 << 1, GLOB_CL_BLANK = 1 << 2,
	GLOB_CL_CNTRL = 1 << 3, GLOB_CL_DIGIT = 1 << 4, GLOB_CL_GRAPH = 1 << 5,
	GLOB_CL_LOWER = 1 << 6, GLOB_CL_PRINT = 1 << 7, GLOB_CL_PUNCT = 1 << 8,
	GLOB_CL_SPACE = 1 << 9, GLOB_CL_UPPER = 1 << 10, GLOB_CL_XDIGIT = 1 << 11,
};

struct glob_range {
	uint32_t lo, hi;
};

struct glob_set {
	bool negate;
	unsigned classes;
	struct glob_range *ranges;
	size_t n, cap;
};

struct glob_tok {
	enum glob_tok_kind kind;
	uint32_t cp;          /* GLOB_TOK_CHAR */
	struct glob_set *set; /* GLOB_TOK_SET, owned */
};

struct glob_comp {
	bool globstar;
	struct glob_tok *toks;
	size_t n, cap;
};

struct glob_alt {
	struct glob_comp *comps;
	size_t n, cap;
	bool has_slash;
};

struct glob_pat {
	struct glob_alt *alts;
	size_t n;
};

__attribute__((format(printf, 3, 4)))
static void glob_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
	if (!errbuf || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

/* ---- bracket expressions ---- */

static unsigned glob_class_bit(const char *name, size_t n)
{
	static const struct {
		const char *name;
		unsigned bit;
	} classes[] = {
		{"alnum", GLOB_CL_ALNUM}, {"alpha", GLOB_CL_ALPHA}, {"blank", GLOB_CL_BLANK},
		{"cntrl", GLOB_CL_CNTRL}, {"digit", GLOB_CL_DIGIT}, {"graph", GLOB_CL_GRAPH},
		{"lower", GLOB_CL_LOWER}, {"print", GLOB_CL_PRINT}, {"punct", GLOB_CL_PUNCT},
		{"space", GLOB_CL_SPACE}, {"upper", GLOB_CL_UPPER}, {"xdigit", GLOB_CL_XDIGIT},
	};
	for (size_t i = 0; i < ARRAY_LEN(classes); i++)
		if (strlen(classes[i].name) == n && memcmp(classes[i].name, name, n) == 0)
			return classes[i].bit;
	return 0;
}

/* The classes of a code point; ASCII only, as in the C locale, so the
 * result never depends on the process's locale. */
static unsigned glob_classes_of(uint32_t c)
{
	unsigned m = 0;
	bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
	bool digit = c >= '0' && c <= '9';
	bool print = c >= 0x20 && c < 0x7f;
	if (lower)
		m |= GLOB_CL_LOWER;
	if (upper)
		m |= GLOB_CL_UPPER;
	if (digit)
		m |= GLOB_CL_DIGIT;
	if (lower || upper)
		m |= GLOB_CL_ALPHA;
	if (lower || upper || digit)
		m |= GLOB_CL_ALNUM;
	if (digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
		m |= GLOB_CL_XDIGIT;
	if (c == ' ' || c == '\t')
		m |= GLOB_CL_BLANK;
	if (c == ' ' || (c >= '\t' && c <= '\r'))
		m |= GLOB_CL_SPACE;
	if (c < 0x20 || c == 0x7f)
		m |= GLOB_CL_CNTRL;
	if (print)
		m |= GLOB_CL_PRINT;
	if (print && c != ' ')
		m |= GLOB_CL_GRAPH;
	if (print && c != ' ' && !lower && !upper && !digit)
		m |= GLOB_CL_PUNCT;
	return m;
}

static void glob_set_add(struct glob_set *set, uint32_t lo, uint32_t hi)
{
	if (!set)
		return;
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 4;
		set->ranges = xrealloc(set->ranges, set->cap * sizeof(*set->ranges));
	}
	set->ranges[set->n].lo = lo;
	set->ranges[set->n].hi = hi;
	set->n++;
}

/* Reads one member character at *j, '\' escapes included. False at the
 * end of the text or at a '/', which no bracket expression spans. */
static bool glob_bracket_char(const char *p, size_t len, size_t *j, uint32_t *cp)
{
	if (*j < len && p[*j] == '\\')
		(*j)++;
	if (*j >= len || p[*j] == '/')
		return false;
	*j += utf8_decode((const unsigned char *)p + *j, len - *j, cp, GLOB_BAD);
	return true;
}

/* A "[:name:]" class at j: its bit, and *j moved past it; 0 if none. */
static unsigned glob_bracket_class(const char *p, size_t len, size_t *j)
{
	if (*j + 1 >= len || p[*j] != '[' || p[*j + 1] != ':')
		return 0;
	size_t k = *j + 2;
	while (k < len && p[k] >= 'a' && p[k] <= 'z')
		k++;
	if (k + 1 >= len || p[k] != ':' || p[k + 1] != ']')
		return 0;
	unsigned bit = glob_class_bit(p + *j + 2, k - (*j + 2));
	if (bit)
		*j = k + 2;
	return bit;
}

/* Moves *j past one member at *j: a class, a character, or a range of
 * two. False at the end of the text or at a '/'. A ']' here is a
 * character: the caller decides when one ends the expression. */
static bool glob_bracket_member(const char *p, size_t len, size_t *j, struct glob_set *set)
{
	unsigned bit = glob_bracket_class(p, len, j);
	if (bit) {
		if (set)
			set->classes |= bit;
		return true;
	}
	uint32_t lo, hi;
	if (!glob_bracket_char(p, len, j, &lo))
		return false;
	hi = lo;
	if (*j + 1 < len && p[*j] == '-' && p[*j + 1] != ']') {
		(*j)++;
		if (!glob_bracket_char(p, len, j, &hi))
			return false;
	}
	glob_set_add(set, lo, hi);
	return true;
}

/* Where the bracket expressions of one text close. Whether the '[' at i
 * closes depends on reading its members from i on; read afresh from
 * each '[', a text like "[[[[" or "[[:alpha:][[:alpha:]" costs time
 * quadratic in its length. But once two readings stand at the same
 * position after a member, they go on alike: end[q] remembers where a
 * reading that stands at q ends, so each position is read once. */
struct glob_brackets {
	const char *p;
	size_t len;
	size_t *end; /* per position: GLOB_UNSEEN, the index of the ']', or GLOB_NONE */
};

#define GLOB_UNSEEN (SIZE_MAX - 1)

static void glob_brackets_init(struct glob_brackets *b, const char *p, size_t len)
{
	b->p = p;
	b->len = len;
	b->end = NULL;
}

static void glob_brackets_free(struct glob_brackets *b)
{
	free(b->end);
	b->end = NULL;
}

/* The ']' that ends members read from q on, or GLOB_NONE. */
static size_t glob_brackets_close(struct glob_brackets *b, size_t q)
{
	if (!b->end) {
		b->end = xmalloc((b->len + 1) * sizeof(*b->end));
		for (size_t k = 0; k <= b->len; k++)
			b->end[k] = GLOB_UNSEEN;
	}
	size_t r = q, at = q;
	while (r < b->len && b->end[r] == GLOB_UNSEEN && b->p[r] != ']')
		if (!glob_bracket_member(b->p, b->len, &r, NULL))
			r = b->len;
	r = r >= b->len ? GLOB_NONE : b->end[r] != GLOB_UNSEEN ? b->end[r] : r;
	/* Again, to remember the answer at every position on the way. */
	while (at < b->len && b->end[at] == GLOB_UNSEEN && b->p[at] != ']') {
		b->end[at] = r;
		if (!glob_bracket_member(b->p, b->len, &at, NULL))
			break;
	}
	return r;
}

/* Parses the bracket expression that opens at p[i] == '[' into set (when
 * not NULL). Returns the index just past its ']', or 0 when it does not
 * close before the end of the text or a '/': then the '[' is literal. */
static size_t glob_bracket_parse(struct glob_brackets *b, size_t i, struct glob_set *set)
{
	const char *p = b->p;
	size_t len = b->len, j = i + 1;
	if (j < len && (p[j] == '!' || p[j] == '^'))
		j++;
	/* The first member may be a ']'. */
	size_t first = j;
	if (!glob_bracket_member(p, len, &first, NULL))
		return 0;
	size_t close = glob_brackets_close(b, first);
	if (close == GLOB_NONE)
		return 0;
	if (set) {
		set->negate = j > i + 1;
		while (j < close)
			glob_bracket_member(p, len, &j, set);
	}
	return close + 1;
}

static bool glob_set_match(const struct glob_set *set, uint32_t cp)
{
	bool in = cp < 0x80 && (glob_classes_of(cp) & set->classes);
	for (size_t i = 0; !in && i < set->n; i++)
		in = cp >= set->ranges[i].lo && cp <= set->ranges[i].hi;
	return in != set->negate;
}

/* ---- brace expansion ---- */

/* What one pass over the whole pattern found: close[i] is the index of
 * the '}' that ends a group with a comma opening at i (0: none, as no
 * group ends at 0), sep[i] says the ',' at i separates alternatives. */
struct glob_braces {
	const char *p;
	size_t *close;
	bool *sep;
	size_t bytes; /* of all expansions made so far, against the cap */
};

static int glob_braces_scan(struct glob_braces *b, size_t len, char *errbuf, size_t errlen)
{
	const char *p = b->p;
	size_t *stack = xmalloc((len + 1) * sizeof(*stack));
	bool *comma = xmalloc((len + 1) * sizeof(*comma));
	size_t sp = 0;
	int rc = 0;
	struct glob_brackets br;
	glob_brackets_init(&br, p, len);
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\\') {
			if (++i < len)
				continue;
			glob_err(errbuf, errlen, "the pattern ends with a lone '\\'");
			rc = -1;
			break;
		}
		size_t end;
		if (p[i] == '[' && (end = glob_bracket_parse(&br, i, NULL)) != 0) {
			i = end - 1;
		} else if (p[i] == '{') {
			comma[sp] = false;
			stack[sp++] = i;
		} else if (p[i] == ',' && sp) {
			comma[sp - 1] = true;
			b->sep[i] = true;
		} else if (p[i] == '}' && sp) {
			sp--;
			if (comma[sp])
				b->close[stack[sp]] = i;
		}
	}
	if (rc == 0 && sp) {
		glob_err(errbuf, errlen, "unbalanced '{' at byte %zu: close it with '}' or write '\\{'",
			 stack[0] + 1);
		rc = -1;
	}
	free(stack);
	free(comma);
	glob_brackets_free(&br);
	return rc;
}

static int glob_expand(struct glob_braces *b, size_t lo, size_t hi, int depth,
		       struct strvec *out, char *errbuf, size_t errlen);

/* The alternatives of the group opening at g, each expanded, into alts. */
static int glob_expand_group(struct glob_braces *b, size_t g, int depth,
			     struct strvec *alts, char *errbuf, size_t errlen)
{
	size_t start = g + 1, end = b->close[g];
	for (size_t k = start; k <= end; k++) {
		if (k < end && b->close[k]) {
			k = b->close[k];
			continue;
		}
		if (k < end && !b->sep[k])
			continue;
		struct strvec sub = {0};
		if (glob_expand(b, start, k, depth + 1, &sub, errbuf, errlen) < 0) {
			strvec_clear(&sub);
			return -1;
		}
		strvec_push_all(alts, sub.v, sub.n);
		strvec_clear(&sub);
		if (alts->n > GLOB_MAX_ALTS) {
			glob_err(errbuf, errlen, "the braces expand to more than %d patterns", GLOB_MAX_ALTS);
			return -1;
		}
		start = k + 1;
	}
	return 0;
}

static int glob_bytes_add(struct glob_braces *b, size_t n, char *errbuf, size_t errlen)
{
	b->bytes += n;
	if (b->bytes <= GLOB_MAX_BYTES)
		return 0;
	glob_err(errbuf, errlen, "the braces expand to more than %zu bytes", GLOB_MAX_BYTES);
	return -1;
}

/* Appends lit (n bytes) to every string of list. */
static int glob_list_append(struct glob_braces *b, struct strvec *list, const char *lit, size_t n,
			    char *errbuf, size_t errlen)
{
	if (n == 0)
		return 0;
	if (glob_bytes_add(b, n * list->n, errbuf, errlen) < 0)
		return -1;
	for (size_t i = 0; i < list->n; i++) {
		size_t have = strlen(list->v[i]);
		list->v[i] = xrealloc(list->v[i], have + n + 1);
		memcpy(list->v[i] + have, lit, n);
		list->v[i][have + n] = '\0';
	}
	return 0;
}

/* list := every string of list followed by every string of alts. */
static int glob_list_product(struct glob_braces *b, struct strvec *list, const struct strvec *alts,
			     char *errbuf, size_t errlen)
{
	if (list->n * alts->n > GLOB_MAX_ALTS) {
		glob_err(errbuf, errlen, "the braces expand to more than %d patterns", GLOB_MAX_ALTS);
		return -1;
	}
	size_t bytes = 0;
	for (size_t i = 0; i < list->n; i++)
		for (size_t j = 0; j < alts->n; j++)
			bytes += strlen(list->v[i]) + strlen(alts->v[j]) + 1;
	if (glob_bytes_add(b, bytes, errbuf, errlen) < 0)
		return -1;
	struct strvec next = {0};
	for (size_t i = 0; i < list->n; i++) {
		for (size_t j = 0; j < alts->n; j++) {
			char *s = xasprintf("%s%s", list->v[i], alts->v[j]);
			strvec_push(&next, s);
			free(s);
		}
	}
	strvec_clear(list);
	*list = next;
	return 0;
}

/* Expands p[lo, hi) into out. Left to right, so that a long run of
 * groups fails on the count cap before it is deep in recursion; only
 * nesting recurses, and that is capped. */
static int glob_expand(struct glob_braces *b, size_t lo, size_t hi, int depth,
		       struct strvec *out, char *errbuf, size_t errlen)
{
	if (depth > GLOB_MAX_DEPTH) {
		glob_err(errbuf, errlen, "braces are nested more than %d deep", GLOB_MAX_DEPTH);
		return -1;
	}
	strvec_push(out, "");
	size_t lit = lo;
	for (size_t i = lo; i < hi; i++) {
		if (!b->close[i])
			continue;
		if (glob_list_append(b, out, b->p + lit, i - lit, errbuf, errlen) < 0)
			return -1;
		struct strvec alts = {0};
		int rc = glob_expand_group(b, i, depth, &alts, errbuf, errlen);
		if (rc == 0)
			rc = glob_list_product(b, out, &alts, errbuf, errlen);
		strvec_clear(&alts);
		if (rc < 0)
			return -1;
		i = b->close[i];
		lit = i + 1;
	}
	return glob_list_append(b, out, b->p + lit, hi - lit, errbuf, errlen);
}

/* ---- compiling one expansion ---- */

static void glob_comp_push(struct glob_comp *c, enum glob_tok_kind kind, uint32_t cp,
			   struct glob_set *set)
{
	/* Runs of '*' are one '*': fewer tokens, same meaning. */
	if (kind == GLOB_TOK_STAR && c->n && c->toks[c->n - 1].kind == GLOB_TOK_STAR)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->toks = xrealloc(c->toks, c->cap * sizeof(*c->toks));
	}
	c->toks[c->n].kind = kind;
	c->toks[c->n].cp = cp;
	c->toks[c->n].set = set;
	c->n++;
}

static void glob_comp_free(struct glob_comp *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->toks[i].set) {
			free(c->toks[i].set->ranges);
			free(c->toks[i].set);
		}
	}
	free(c->toks);
}

static void glob_comp_compile(struct glob_comp *c, const char *p, size_t len)
{
	memset(c, 0, sizeof(*c));
	if (len == 2 && p[0] == '*' && p[1] == '*') {
		c->globstar = true;
		return;
	}
	struct glob_brackets br;
	glob_brackets_init(&br, p, len);
	for (size_t j = 0; j < len;) {
		uint32_t cp;
		if (p[j] == '*' || p[j] == '?') {
			glob_comp_push(c, p[j] == '*' ? GLOB_TOK_STAR : GLOB_TOK_ANY, 0, NULL);
			j++;
		} else if (p[j] == '[') {
			struct glob_set *set = xmalloc(sizeof(*set));
			memset(set, 0, sizeof(*set));
			size_t end = glob_bracket_parse(&br, j, set);
			if (end) {
				glob_comp_push(c, GLOB_TOK_SET, 0, set);
				j = end;
				continue;
			}
			free(set->ranges);
			free(set);
			glob_comp_push(c, GLOB_TOK_CHAR, '[', NULL);
			j++;
		} else {
			if (p[j] == '\\' && j + 1 < len)
				j++;
			j += utf8_decode((const unsigned char *)p + j, len - j, &cp, GLOB_BAD);
			glob_comp_push(c, GLOB_TOK_CHAR, cp, NULL);
		}
	}
	glob_brackets_free(&br);
}

static void glob_alt_push(struct glob_alt *a, const char *p, size_t len)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 4;
		a->comps = xrealloc(a->comps, a->cap * sizeof(*a->comps));
	}
	struct glob_comp c;
	glob_comp_compile(&c, p, len);
	/* "**" twice in a row means no more than "**" once. */
	if (c.globstar && a->n && a->comps[a->n - 1].globstar)
		return;
	a->comps[a->n++] = c;
}

/* Splits one expansion at each '/' (and "\/", as a component never holds
 * a '/'); no bracket expression spans a '/', so none hides one. */
static void glob_alt_compile(struct glob_alt *a, const char *p)
{
	size_t len = strlen(p), start = 0;
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i <= len; i++) {
		size_t sep = 0;
		if (i == len || p[i] == '/')
			sep = 1;
		else if (p[i] == '\\' && i + 1 < len && p[i + 1] == '/')
			sep = 2;
		else if (p[i] == '\\')
			i++;
		if (!sep)
			continue;
		glob_alt_push(a, p + start, i - start);
		if (i < len)
			a->has_slash = true;
		i += sep - 1;
		start = i + 1;
	}
	/* A final "**" matches one or more components: as "**" then "*". */
	if (a->comps[a->n - 1].globstar)
		glob_alt_push(a, "*", 1);
}

struct glob_pat *glob_compile(const char *pattern, char *errbuf, size_t errlen)
{
	size_t len = strlen(pattern);
	if (len == 0) {
		glob_err(errbuf, errlen, "empty pattern: use '*' to match every name");
		return NULL;
	}
	struct glob_braces b = {pattern, NULL, NULL, 0};
	b.close = xmalloc(len * sizeof(*b.close));
	b.sep = xmalloc(len * sizeof(*b.sep));
	memset(b.close, 0, len * sizeof(*b.close));
	memset(b.sep, 0, len * sizeof(*b.sep));
	struct strvec exp = {0};
	int rc = glob_braces_scan(&b, len, errbuf, errlen);
	if (rc == 0)
		rc = glob_expand(&b, 0, len, 0, &exp, errbuf, errlen);
	free(b.close);
	free(b.sep);
	if (rc < 0) {
		strvec_clear(&exp);
		return NULL;
	}
	struct glob_pat *pat = xmalloc(sizeof(*pat));
	pat->n = exp.n;
	pat->alts = xmalloc(exp.n * sizeof(*pat->alts));
	for (size_t i = 0; i < exp.n; i++)
		glob_alt_compile(&pat->alts[i], exp.v[i]);
	strvec_clear(&exp);
	return pat;
}

void glob_free(struct glob_pat *pat)
{
	if (!pat)
		return;
	for (size_t i = 0; i < pat->n; i++) {
		for (size_t j = 0; j < pat->alts[i].n; j++)
			glob_comp_free(&pat->alts[i].comps[j]);
		free(pat->alts[i].comps);
	}
	free(pat->alts);
	free(pat);
}

/* ---- matching ---- */

static bool glob_tok_match(const struct glob_tok *t, uint32_t cp)
{
	switch (t->kind) {
	case GLOB_TOK_CHAR:
		return t->cp == cp;
	case GLOB_TOK_ANY:
		return true;
	case GLOB_TOK_SET:
		return glob_set_match(t->set, cp);
	case GLOB_TOK_STAR:
		break;
	}
	return false;
}

/* One component against name[0, n): greedy, and on a mismatch the last
 * '*' takes one more character. */
static bool glob_comp_match(const struct glob_comp *c, const char *name, size_t n)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t ti = 0, si = 0, star_ti = GLOB_NONE, star_si = 0;
	while (si < n) {
		uint32_t cp;
		size_t step;
		if (ti < c->n && c->toks[ti].kind == GLOB_TOK_STAR) {
			star_ti = ti++;
			star_si = si;
			continue;
		}
		step = utf8_decode(s + si, n - si, &cp, GLOB_BAD);
		if (ti < c->n && glob_tok_match(&c->toks[ti], cp)) {
			ti++;
			si += step;
			continue;
		}
		if (star_ti == GLOB_NONE)
			return false;
		ti = star_ti + 1;
		star_si += utf8_decode(s + star_si, n - star_si, &cp, GLOB_BAD);
		si = star_si;
	}
	while (ti < c->n && c->toks[ti].kind == GLOB_TOK_STAR)
		ti++;
	return ti == c->n;
}

/* The end of the component of path[0, len) that starts at s. */
static size_t glob_comp_end(const char *path, size_t len, size_t s)
{
	const char *slash = memchr(path + s, '/', len - s);
	return slash ? (size_t)(slash - path) : len;
}

/* The same greedy walk, over components, with "**" as the wildcard. */
static bool glob_alt_match(const struct glob_alt *a, const char *path, size_t len)
{
	size_t pi = 0, s = 0, star_pi = GLOB_NONE, star_s = 0;
	while (s <= len) {
		size_t e = glob_comp_end(path, len, s);
		if (pi < a->n && a->comps[pi].globstar) {
			star_pi = pi++;
			star_s = s;
			continue;
		}
		if (pi < a->n && glob_comp_match(&a->comps[pi], path + s, e - s)) {
			pi++;
			s = e + 1;
			continue;
		}
		if (star_pi == GLOB_NONE)
			return false;
		pi = star_pi + 1;
		star_s = glob_comp_end(path, len, star_s) + 1;
		s = star_s;
	}
	while (pi < a->n && a->comps[pi].globstar)
		pi++;
	return pi == a->n;
}

bool glob_match(const struct glob_pat *pat, const char *path)
{
	size_t len = strlen(path);
	for (size_t i = 0; i < pat->n; i++)
		if (glob_alt_match(&pat->alts[i], path, len))
			return true;
	return false;
}

bool glob_match_name(const struct glob_pat *pat, const char *path)
{
	size_t len = strlen(path);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	for (size_t i = 0; i < pat->n; i++) {
		const struct glob_alt *a = &pat->alts[i];
		bool hit = a->has_slash ? glob_alt_match(a, path, len)
					: glob_alt_match(a, base, len - (size_t)(base - path));
		if (hit)
			return true;
	}
	return false;
}
