/* jsonr.c: see jsonr.h. One pass over the input and no recursion: open
 * containers sit on an explicit stack, so a generous depth limit cannot
 * overflow the C stack. The values of open containers wait in a pending
 * vector and move, contiguous, into the arena when their container
 * closes; everything the tree holds lives in that arena, so jv_free is a
 * walk over a few blocks whatever the shape of the tree. */
#include "jsonr.h"

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "util.h"

/* --- the arena --- */

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

#define ARENA_FIRST ((size_t)4 << 10)
#define ARENA_MAX ((size_t)1 << 20)

/* What jv_parse hands out: the root comes first, so that a pointer to it
 * is a pointer to the whole document (C17 6.7.2.1p15). */
struct doc {
	struct jv root;
	struct arena_block *blocks; /* the newest, still filling, first */
};

static struct arena_block *block_new(size_t cap)
{
	if (cap > SIZE_MAX - sizeof(struct arena_block))
		cap = SIZE_MAX - sizeof(struct arena_block); /* xmalloc then fails */
	struct arena_block *b = xmalloc(sizeof(*b) + cap);
	b->next = NULL;
	b->used = 0;
	b->cap = cap;
	return b;
}

/* n bytes aligned to align (a power of two, at most that of max_align_t). */
static void *arena_alloc(struct doc *d, size_t n, size_t align)
{
	struct arena_block *b = d->blocks;
	if (b) {
		size_t at = (b->used + align - 1) & ~(align - 1);
		if (at <= b->cap && n <= b->cap - at) {
			b->used = at + n;
			return (unsigned char *)b->data + at;
		}
	}
	size_t cap = b ? b->cap * 2 : ARENA_FIRST;
	if (cap > ARENA_MAX)
		cap = ARENA_MAX;
	if (b && n > cap / 2) {
		/* A big array or string gets a block of its own, behind the
		 * one still filling, so that block's free space is not lost. */
		struct arena_block *big = block_new(n);
		big->used = n;
		big->next = b->next;
		b->next = big;
		return big->data;
	}
	if (cap < n)
		cap = n;
	struct arena_block *nb = block_new(cap);
	nb->used = n;
	nb->next = b;
	d->blocks = nb;
	return nb->data;
}

static void doc_free(struct doc *d)
{
	struct arena_block *b = d->blocks;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	free(d);
}

/* --- the parser --- */

/* A value read but not yet placed: an element or member of the innermost
 * open container, or an open container itself. */
struct pend {
	struct jv_member m; /* key NULL in arrays and at the top */
	size_t off;         /* where the key (or else the value) starts */
};

struct parser {
	const unsigned char *t;
	size_t len, pos;
	struct jv_limits lim;
	struct doc *doc;
	struct pend *pend;
	size_t npend, cap_pend;
	size_t *open; /* index in pend of each open container, outermost first */
	size_t nopen, cap_open;
	struct sbuf scratch; /* the string being unescaped */
	char *errbuf;
	size_t errlen;
	char what[32]; /* describe()'s answer */
};

__attribute__((format(printf, 3, 4)))
static int fail(struct parser *ps, size_t off, const char *fmt, ...)
{
	if (!ps->errbuf || ps->errlen == 0)
		return -1;
	int n = snprintf(ps->errbuf, ps->errlen, "at byte %zu: ", off);
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->errbuf + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The byte at pos for a message: 'x', byte 0x07, or the end of the input.
 * Never the raw byte when it is not printable ASCII. */
static const char *describe(struct parser *ps, size_t pos)
{
	if (pos >= ps->len)
		return "the end of the input";
	unsigned char c = ps->t[pos];
	if (c == ' ')
		return "a space";
	if (c == '\'')
		return "a single quote";
	if (c > 0x20 && c < 0x7f)
		snprintf(ps->what, sizeof(ps->what), "'%c'", c);
	else
		snprintf(ps->what, sizeof(ps->what), "byte 0x%02x", c);
	return ps->what;
}

static int peek(const struct parser *ps)
{
	return ps->pos < ps->len ? ps->t[ps->pos] : -1;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void skip_ws(struct parser *ps)
{
	while (ps->pos < ps->len) {
		unsigned char c = ps->t[ps->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		ps->pos++;
	}
}


/* The four hex digits at pos, if there are four. */
static bool hex4(const struct parser *ps, size_t pos, unsigned long *out)
{
	if (pos > ps->len || ps->len - pos < 4)
		return false;
	unsigned long v = 0;
	for (size_t i = pos; i < pos + 4; i++) {
		unsigned char c = ps->t[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

/* The escape whose backslash is at ps->pos, appended unescaped. */
static int escape(struct parser *ps)
{
	size_t at = ps->pos;
	if (at + 1 >= ps->len)
		return fail(ps, ps->len, "unterminated string: the input ends in an escape");
	unsigned char c = ps->t[at + 1];
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = c ? strchr(from, c) : NULL;
	if (k) {
		sbuf_addc(&ps->scratch, to[k - from]);
		ps->pos = at + 2;
		return 0;
	}
	if (c != 'u') {
		if (c > 0x20 && c < 0x7f)
			return fail(ps, at, "invalid escape '\\%c' in a string; "
				    "the escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", c);
		return fail(ps, at, "invalid escape: a backslash followed by %s in a string",
			    describe(ps, at + 1));
	}
	unsigned long cp, lo;
	if (!hex4(ps, at + 2, &cp))
		return fail(ps, at, "expected 4 hex digits after \\u");
	ps->pos = at + 6;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(ps, at, "lone low surrogate \\u%04lX: it must follow a high "
			    "surrogate (\\uD800 to \\uDBFF)", cp);
	if (cp >= 0xd800 && cp <= 0xdbff) {
		size_t p = ps->pos;
		if (p + 1 >= ps->len || ps->t[p] != '\\' || ps->t[p + 1] != 'u' ||
		    !hex4(ps, p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return fail(ps, at, "lone high surrogate \\u%04lX: a low surrogate "
				    "(\\uDC00 to \\uDFFF) must follow it at once", cp);
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		ps->pos = p + 6;
	}
	utf8_put(&ps->scratch, cp);
	return 0;
}

/* The string whose quote is at ps->pos, unescaped into the arena. */
static int string(struct parser *ps, const char **out, size_t *out_len)
{
	size_t start = ps->pos;
	const unsigned char *t = ps->t;
	ps->pos++;
	sbuf_reset(&ps->scratch);
	for (;;) {
		size_t run = ps->pos;
		while (ps->pos < ps->len && t[ps->pos] >= 0x20 && t[ps->pos] < 0x80 &&
		       t[ps->pos] != '"' && t[ps->pos] != '\\')
			ps->pos++;
		sbuf_add(&ps->scratch, t + run, ps->pos - run);
		if (ps->scratch.len > ps->lim.max_string)
			return fail(ps, start, "string longer than the limit of %zu bytes",
				    ps->lim.max_string);
		if (ps->pos >= ps->len)
			return fail(ps, ps->len, "unterminated string: the input ends before "
				    "the quote that closes the string at byte %zu", start);
		unsigned char c = t[ps->pos];
		if (c == '"') {
			ps->pos++;
			break;
		}
		if (c == '\\') {
			if (escape(ps) < 0)
				return -1;
		} else if (c < 0x20) {
			return fail(ps, ps->pos, "raw control character 0x%02x in a string: "
				    "write it as an escape (\\u%04x)", c, c);
		} else {
			size_t n = utf8_len(t + ps->pos, ps->len - ps->pos);
			if (n == 0)
				return fail(ps, ps->pos, "invalid UTF-8 in a string (byte 0x%02x)", c);
			sbuf_add(&ps->scratch, t + ps->pos, n);
			ps->pos += n;
		}
	}
	if (ps->scratch.len > ps->lim.max_string)
		return fail(ps, start, "string longer than the limit of %zu bytes",
			    ps->lim.max_string);
	size_t n = ps->scratch.len;
	char *s = arena_alloc(ps->doc, n + 1, 1);
	if (n)
		memcpy(s, ps->scratch.buf, n);
	s[n] = '\0';
	*out = s;
	*out_len = n;
	return 0;
}

/* Whether the number t (n bytes, already checked against the grammar) is
 * exactly an integer in the range of long long, whatever its notation:
 * its digits D and exponent E give D * 10^E, and that is an integer when
 * E >= 0 once the trailing zeros of D are moved into E. */
static bool exact_int(const char *t, size_t n, long long *out)
{
	size_t i = 0;
	bool neg = t[0] == '-';
	if (neg)
		i++;
	const char *ip = t + i;
	size_t il = 0;
	while (i < n && is_digit(t[i]))
		i++, il++;
	const char *fp = "";
	size_t fl = 0;
	if (i < n && t[i] == '.') {
		fp = t + ++i;
		while (i < n && is_digit(t[i]))
			i++, fl++;
	}
	long long e = 0;
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		bool eneg = false;
		i++;
		if (t[i] == '-' || t[i] == '+') {
			eneg = t[i] == '-';
			i++;
		}
		for (; i < n; i++)
			if (e < 1000000000) /* far past any long long; saturate */
				e = e * 10 + (t[i] - '0');
		if (eneg)
			e = -e;
	}
	/* Digit k of D, int part then fraction. */
	size_t total = il + fl, lo = 0, hi = total;
#define DIGIT(k) ((k) < il ? ip[(k)] : fp[(k) - il])
	while (lo < total && DIGIT(lo) == '0')
		lo++;
	if (lo == total) {
		*out = 0; /* 0, -0, 0.000e99 */
		return true;
	}
	while (DIGIT(hi - 1) == '0')
		hi--;
	/* Now D is the digits [lo, hi), and the exponent grows by the
	 * trailing zeros dropped and shrinks by the fraction's length. */
	long long scale = e - (long long)fl + (long long)(total - hi);
	size_t nd = hi - lo;
	if (scale < 0 || nd > 19 || scale > 19 - (long long)nd)
		return false;
	unsigned long long u = 0;
	for (size_t k = lo; k < hi; k++)
		u = u * 10 + (unsigned long long)(DIGIT(k) - '0');
#undef DIGIT
	for (long long s = 0; s < scale; s++) {
		if (u > ULLONG_MAX / 10)
			return false;
		u *= 10;
	}
	if (neg) {
		if (u > (unsigned long long)LLONG_MAX + 1)
			return false;
		*out = u == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)u;
	} else {
		if (u > (unsigned long long)LLONG_MAX)
			return false;
		*out = (long long)u;
	}
	return true;
}

/* strtod reads the locale's decimal point; JSON's is '.'. */
static bool to_double(const char *s, size_t n, double *out)
{
	char *end;
	*out = strtod(s, &end);
	if (end == s + n)
		return true;
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c == (locale_t)0)
		return false;
	locale_t old = uselocale(c);
	*out = strtod(s, &end);
	uselocale(old);
	freelocale(c);
	return end == s + n;
}

static int number(struct parser *ps, struct jv *v)
{
	size_t start = ps->pos;
	if (peek(ps) == '-')
		ps->pos++;
	if (peek(ps) == '0') {
		ps->pos++;
		if (is_digit(peek(ps)))
			return fail(ps, start, "a number cannot start with a 0 followed by a digit");
	} else if (is_digit(peek(ps))) {
		while (is_digit(peek(ps)))
			ps->pos++;
	} else {
		return fail(ps, ps->pos, "expected a digit after '-', found %s",
			    describe(ps, ps->pos));
	}
	if (peek(ps) == '.') {
		ps->pos++;
		if (!is_digit(peek(ps)))
			return fail(ps, ps->pos, "expected a digit after the decimal point, found %s",
				    describe(ps, ps->pos));
		while (is_digit(peek(ps)))
			ps->pos++;
	}
	if (peek(ps) == 'e' || peek(ps) == 'E') {
		ps->pos++;
		if (peek(ps) == '+' || peek(ps) == '-')
			ps->pos++;
		if (!is_digit(peek(ps)))
			return fail(ps, ps->pos, "expected a digit in the exponent, found %s",
				    describe(ps, ps->pos));
		while (is_digit(peek(ps)))
			ps->pos++;
	}
	size_t n = ps->pos - start;
	char *text = arena_alloc(ps->doc, n + 1, 1);
	memcpy(text, ps->t + start, n);
	text[n] = '\0';
	v->type = JV_NUMBER;
	v->num.text = text;
	v->num.text_len = n;
	if (!to_double(text, n, &v->num.d))
		return fail(ps, start, "cannot convert the number to a double");
	if (isinf(v->num.d))
		return fail(ps, start, "number out of the range of a double");
	v->num.is_int = exact_int(text, n, &v->num.i);
	if (!v->num.is_int)
		v->num.i = 0;
	return 0;
}

static int literal(struct parser *ps, const char *word, size_t n)
{
	for (size_t i = 0; i < n; i++, ps->pos++)
		if (ps->pos >= ps->len || ps->t[ps->pos] != (unsigned char)word[i])
			return fail(ps, ps->pos, "expected '%s', found %s", word,
				    describe(ps, ps->pos));
	return 0;
}

/* A string, number, true, false or null at ps->pos. */
static int scalar(struct parser *ps, struct jv *v)
{
	int c = peek(ps);
	if (c == '"') {
		v->type = JV_STRING;
		return string(ps, &v->str.s, &v->str.len);
	}
	if (c == '-' || is_digit(c))
		return number(ps, v);
	if (c == 't' || c == 'f') {
		v->type = JV_BOOL;
		v->b = c == 't';
		return c == 't' ? literal(ps, "true", 4) : literal(ps, "false", 5);
	}
	if (c == 'n') {
		v->type = JV_NULL;
		return literal(ps, "null", 4);
	}
	return fail(ps, ps->pos, "expected a value, found %s", describe(ps, ps->pos));
}

static const char *member_word(const struct parser *ps)
{
	return ps->pend[ps->open[ps->nopen - 1]].m.value.type == JV_OBJECT
		       ? "members in an object" : "elements in an array";
}

/* A new pending value at ps->pos, with the key of its member (if any). */
static struct pend *push(struct parser *ps, const char *key, size_t key_len, size_t key_off)
{
	if (ps->nopen > 0 &&
	    ps->npend - ps->open[ps->nopen - 1] - 1 >= ps->lim.max_members) {
		fail(ps, key ? key_off : ps->pos, "more than the limit of %zu %s",
		     ps->lim.max_members, member_word(ps));
		return NULL;
	}
	if (ps->npend == ps->cap_pend) {
		ps->cap_pend = ps->cap_pend ? ps->cap_pend * 2 : 16;
		if (ps->cap_pend > SIZE_MAX / sizeof(*ps->pend))
			ps->cap_pend = SIZE_MAX / sizeof(*ps->pend); /* xrealloc fails */
		ps->pend = xrealloc(ps->pend, ps->cap_pend * sizeof(*ps->pend));
	}
	struct pend *e = &ps->pend[ps->npend++];
	memset(e, 0, sizeof(*e));
	e->m.key = key;
	e->m.key_len = key_len;
	e->off = key ? key_off : ps->pos;
	return e;
}

static int key_cmp(const void *a, const void *b)
{
	const struct pend *x = *(const struct pend *const *)a;
	const struct pend *y = *(const struct pend *const *)b;
	if (x->m.key_len != y->m.key_len)
		return x->m.key_len < y->m.key_len ? -1 : 1;
	int c = memcmp(x->m.key, y->m.key, x->m.key_len);
	if (c)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

static bool same_key(const struct pend *x, const struct pend *y)
{
	return x->m.key_len == y->m.key_len && memcmp(x->m.key, y->m.key, x->m.key_len) == 0;
}

/* Refuses two equal keys among the n members at m; names the second. */
static int check_dups(struct parser *ps, const struct pend *m, size_t n)
{
	const struct pend *dup = NULL;
	if (n < 2)
		return 0;
	if (n <= 16) {
		for (size_t i = 1; i < n && !dup; i++)
			for (size_t j = 0; j < i && !dup; j++)
				if (same_key(&m[i], &m[j]))
					dup = &m[i];
	} else {
		const struct pend **by = xmalloc(n * sizeof(*by));
		for (size_t i = 0; i < n; i++)
			by[i] = &m[i];
		qsort(by, n, sizeof(*by), key_cmp);
		for (size_t i = 1; i < n; i++)
			if (same_key(by[i], by[i - 1]) && (!dup || by[i]->off < dup->off))
				dup = by[i];
		free(by);
	}
	if (!dup)
		return 0;
	struct sbuf q = {0};
	size_t shown = dup->m.key_len < 40 ? dup->m.key_len : 40;
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)dup->m.key[i];
		if (c == '"' || c == '\\')
			sbuf_addf(&q, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			sbuf_addf(&q, "\\x%02x", c);
		else
			sbuf_addc(&q, (char)c);
	}
	fail(ps, dup->off, "duplicate key \"%s\"%s in an object", q.buf ? q.buf : "",
	     shown < dup->m.key_len ? "..." : "");
	sbuf_free(&q);
	return -1;
}

/* Closes the innermost container: its pending values move to the arena. */
static int close_container(struct parser *ps)
{
	size_t at = ps->open[--ps->nopen];
	struct jv *c = &ps->pend[at].m.value;
	const struct pend *first = &ps->pend[at + 1];
	size_t n = ps->npend - at - 1;
	if (c->type == JV_OBJECT) {
		if (check_dups(ps, first, n) < 0)
			return -1;
		struct jv_member *m = NULL;
		if (n) {
			m = arena_alloc(ps->doc, n * sizeof(*m), _Alignof(struct jv_member));
			for (size_t i = 0; i < n; i++)
				m[i] = first[i].m;
		}
		c->obj.members = m;
		c->obj.count = n;
	} else {
		struct jv *items = NULL;
		if (n) {
			items = arena_alloc(ps->doc, n * sizeof(*items), _Alignof(struct jv));
			for (size_t i = 0; i < n; i++)
				items[i] = first[i].m.value;
		}
		c->arr.items = items;
		c->arr.count = n;
	}
	ps->npend = at + 1;
	return 0;
}

static int open_container(struct parser *ps, struct pend *e, enum jv_type type)
{
	if (ps->nopen >= ps->lim.max_depth)
		return fail(ps, ps->pos, "arrays and objects nested deeper than the limit of %zu",
			    ps->lim.max_depth);
	if (ps->nopen == ps->cap_open) {
		ps->cap_open = ps->cap_open ? ps->cap_open * 2 : 16;
		ps->open = xrealloc(ps->open, ps->cap_open * sizeof(*ps->open));
	}
	e->m.value.type = type;
	ps->open[ps->nopen++] = (size_t)(e - ps->pend);
	ps->pos++;
	return 0;
}

enum want { WANT_VALUE, WANT_KEY, WANT_AFTER };

static int parse(struct parser *ps)
{
	enum want want = WANT_VALUE;
	const char *key = NULL;
	size_t key_len = 0, key_off = 0;
	for (;;) {
		skip_ws(ps);
		int c = peek(ps);
		if (want == WANT_VALUE) {
			struct pend *e = push(ps, key, key_len, key_off);
			key = NULL;
			if (!e)
				return -1;
			if (c == '[' || c == '{') {
				int close = c == '[' ? ']' : '}';
				if (open_container(ps, e, c == '[' ? JV_ARRAY : JV_OBJECT) < 0)
					return -1;
				skip_ws(ps);
				if (peek(ps) == close) {
					ps->pos++;
					if (close_container(ps) < 0)
						return -1;
					want = WANT_AFTER;
				} else {
					want = c == '[' ? WANT_VALUE : WANT_KEY;
				}
			} else {
				if (scalar(ps, &e->m.value) < 0)
					return -1;
				want = WANT_AFTER;
			}
		} else if (want == WANT_KEY) {
			if (c != '"')
				return fail(ps, ps->pos, "expected a string to start an object key, "
					    "found %s", describe(ps, ps->pos));
			key_off = ps->pos;
			if (string(ps, &key, &key_len) < 0)
				return -1;
			skip_ws(ps);
			if (peek(ps) != ':')
				return fail(ps, ps->pos, "expected ':' after an object key, found %s",
					    describe(ps, ps->pos));
			ps->pos++;
			want = WANT_VALUE;
		} else if (ps->nopen == 0) {
			if (c != -1)
				return fail(ps, ps->pos, "expected the end of the input after "
					    "the value, found %s", describe(ps, ps->pos));
			return 0;
		} else {
			bool obj = ps->pend[ps->open[ps->nopen - 1]].m.value.type == JV_OBJECT;
			if (c == ',') {
				ps->pos++;
				want = obj ? WANT_KEY : WANT_VALUE;
			} else if (c == (obj ? '}' : ']')) {
				ps->pos++;
				if (close_container(ps) < 0)
					return -1;
			} else {
				return fail(ps, ps->pos, obj
					    ? "expected ',' or '}' after an object member, found %s"
					    : "expected ',' or ']' after an array element, found %s",
					    describe(ps, ps->pos));
			}
		}
	}
}

struct jv *jv_parse(const char *text, size_t len, const struct jv_limits *lim,
		    char *errbuf, size_t errlen)
{
	struct parser ps = {0};
	ps.t = (const unsigned char *)(text ? text : "");
	ps.len = text ? len : 0;
	ps.errbuf = errbuf;
	ps.errlen = errlen;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (lim)
		ps.lim = *lim;
	if (!ps.lim.max_depth)
		ps.lim.max_depth = JV_DEFAULT_MAX_DEPTH;
	if (!ps.lim.max_size)
		ps.lim.max_size = JV_DEFAULT_MAX_SIZE;
	if (!ps.lim.max_string)
		ps.lim.max_string = ps.lim.max_size;
	if (!ps.lim.max_members)
		ps.lim.max_members = JV_DEFAULT_MAX_MEMBERS;
	if (len > ps.lim.max_size) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "input of %zu bytes is larger than the limit of %zu bytes",
				 len, ps.lim.max_size);
		return NULL;
	}
	ps.doc = xmalloc(sizeof(*ps.doc));
	memset(ps.doc, 0, sizeof(*ps.doc));
	int r = parse(&ps);
	if (r == 0)
		ps.doc->root = ps.pend[0].m.value;
	free(ps.pend);
	free(ps.open);
	sbuf_free(&ps.scratch);
	if (r < 0) {
		doc_free(ps.doc);
		return NULL;
	}
	return &ps.doc->root;
}

void jv_free(struct jv *root)
{
	if (root)
		doc_free((struct doc *)root);
}

/* --- accessors --- */

bool jv_is(const struct jv *v, enum jv_type type)
{
	return v && v->type == type;
}

const char *jv_type_name(enum jv_type type)
{
	switch (type) {
	case JV_NULL: return "null";
	case JV_BOOL: return "boolean";
	case JV_NUMBER: return "number";
	case JV_STRING: return "string";
	case JV_ARRAY: return "array";
	case JV_OBJECT: return "object";
	}
	return "unknown";
}

const struct jv *jv_getn(const struct jv *v, const char *key, size_t key_len)
{
	if (!jv_is(v, JV_OBJECT) || !key)
		return NULL;
	for (size_t i = 0; i < v->obj.count; i++) {
		const struct jv_member *m = &v->obj.members[i];
		if (m->key_len == key_len && memcmp(m->key, key, key_len) == 0)
			return &m->value;
	}
	return NULL;
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	return key ? jv_getn(v, key, strlen(key)) : NULL;
}

size_t jv_count(const struct jv *v)
{
	if (jv_is(v, JV_ARRAY))
		return v->arr.count;
	if (jv_is(v, JV_OBJECT))
		return v->obj.count;
	return 0;
}

const struct jv *jv_at(const struct jv *v, size_t i)
{
	return jv_is(v, JV_ARRAY) && i < v->arr.count ? &v->arr.items[i] : NULL;
}

const char *jv_strn(const struct jv *v, size_t *len)
{
	if (!jv_is(v, JV_STRING))
		return NULL;
	if (len)
		*len = v->str.len;
	return v->str.s;
}

const char *jv_str(const struct jv *v)
{
	if (!jv_is(v, JV_STRING) || memchr(v->str.s, '\0', v->str.len))
		return NULL;
	return v->str.s;
}

bool jv_int(const struct jv *v, long long *out)
{
	if (!jv_is(v, JV_NUMBER) || !v->num.is_int)
		return false;
	*out = v->num.i;
	return true;
}

bool jv_double(const struct jv *v, double *out)
{
	if (!jv_is(v, JV_NUMBER))
		return false;
	*out = v->num.d;
	return true;
}

bool jv_bool(const struct jv *v, bool *out)
{
	if (!jv_is(v, JV_BOOL))
		return false;
	*out = v->b;
	return true;
}
