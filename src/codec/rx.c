/* rx.c: see rx.h. Four parts: the parser, which follows the order of
 * glibc's regcomp (same tokens, same decisions, same first error) and
 * builds a tree; the compiler, a Thompson construction into a program
 * of SET, SPLIT, JMP, ASSERT and MATCH instructions; the literal
 * prefilter; the matcher, a lazily built DFA whose states are the sets
 * of instructions waiting for the next byte, and the plain NFA
 * simulation it falls back on.
 *
 * How glibc reads a pattern (found by experiment, tests/unit/test_rx.c):
 * under REG_ICASE it folds the pattern and the subject to upper case,
 * except the character after a backslash and the name of a [:class:],
 * which it reads as written; so "[Z-a]" is then the empty range "[Z-A]"
 * and "\a" matches nothing. Here the pattern is folded the same way and
 * each set of bytes is then widened to the bytes that fold into it. */
/* memmem: POSIX only since 2024. */
#define _GNU_SOURCE
#include "rx.h"

#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define RX_DUP_MAX 32767               /* glibc's RE_DUP_MAX */
#define RX_NAME_MAX 32                 /* glibc's BRACKET_NAME_BUF_SIZE */
#define RX_INF (-1)                    /* no upper bound of a repeat */
#define RX_CACHE_MAX ((size_t)4 << 20) /* bytes of DFA states kept */
#define RX_LIT_MAX 256                 /* bytes of the prefilter's literal */

/* ---- sets of bytes ---- */

struct rx_set {
	uint64_t w[4];
};

static void rx_set_add(struct rx_set *s, unsigned c)
{
	s->w[c >> 6] |= (uint64_t)1 << (c & 63);
}

static bool rx_set_has(const struct rx_set *s, unsigned c)
{
	return s->w[c >> 6] >> (c & 63) & 1;
}

static void rx_set_not(struct rx_set *s)
{
	for (int i = 0; i < 4; i++)
		s->w[i] = ~s->w[i];
}

/* How glibc folds under REG_ICASE: to upper case, ASCII only. */
static unsigned rx_upper(unsigned c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* The classes of the C locale, which holds ASCII only. */
static bool rx_is_upper(unsigned c) { return c >= 'A' && c <= 'Z'; }
static bool rx_is_lower(unsigned c) { return c >= 'a' && c <= 'z'; }
static bool rx_is_alpha(unsigned c) { return rx_is_upper(c) || rx_is_lower(c); }
static bool rx_is_digit(unsigned c) { return c >= '0' && c <= '9'; }
static bool rx_is_alnum(unsigned c) { return rx_is_alpha(c) || rx_is_digit(c); }
static bool rx_is_blank(unsigned c) { return c == ' ' || c == '\t'; }
static bool rx_is_cntrl(unsigned c) { return c < 0x20 || c == 0x7f; }
static bool rx_is_graph(unsigned c) { return c > 0x20 && c < 0x7f; }
static bool rx_is_print(unsigned c) { return c >= 0x20 && c < 0x7f; }
static bool rx_is_punct(unsigned c) { return rx_is_graph(c) && !rx_is_alnum(c); }
static bool rx_is_space(unsigned c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static bool rx_is_xdigit(unsigned c)
{
	return rx_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static bool rx_is_word(unsigned c) { return rx_is_alnum(c) || c == '_'; }

static const struct {
	const char *name;
	bool (*is)(unsigned);
} rx_class_table[] = {
	{"alnum", rx_is_alnum}, {"alpha", rx_is_alpha}, {"blank", rx_is_blank},
	{"cntrl", rx_is_cntrl}, {"digit", rx_is_digit}, {"graph", rx_is_graph},
	{"lower", rx_is_lower}, {"print", rx_is_print}, {"punct", rx_is_punct},
	{"space", rx_is_space}, {"upper", rx_is_upper}, {"xdigit", rx_is_xdigit},
};

/* Adds the class named name; false if there is none. Under REG_ICASE
 * glibc takes upper and lower for alpha. */
static bool rx_set_class(struct rx_set *s, const char *name, bool icase)
{
	if (icase && (strcmp(name, "upper") == 0 || strcmp(name, "lower") == 0))
		name = "alpha";
	for (size_t i = 0; i < ARRAY_LEN(rx_class_table); i++) {
		if (strcmp(name, rx_class_table[i].name) != 0)
			continue;
		for (unsigned c = 0; c < 256; c++)
			if (rx_class_table[i].is(c))
				rx_set_add(s, c);
		return true;
	}
	return false;
}

/* ---- assertions ----
 * An assertion looks at the bytes on either side of a position: before
 * it the start of the subject, a word byte or another; after it the end,
 * a word byte or another. It holds on a set of those 9 pairs. */

enum { RX_BEGIN = 0, RX_WORD = 1, RX_OTHER = 2 }; /* RX_BEGIN is the end after */

#define RX_PAIR(before, after) (1u << ((before) * 3 + (after)))

static unsigned rx_assert_mask(bool (*holds)(int before, int after))
{
	unsigned m = 0;
	for (int b = 0; b < 3; b++)
		for (int a = 0; a < 3; a++)
			if (holds(b, a))
				m |= RX_PAIR(b, a);
	return m;
}

static bool rx_at_start(int b, int a) { (void)a; return b == RX_BEGIN; }
static bool rx_at_end(int b, int a) { (void)b; return a == RX_BEGIN; }
static bool rx_word_first(int b, int a) { return b != RX_WORD && a == RX_WORD; }
static bool rx_word_last(int b, int a) { return b == RX_WORD && a != RX_WORD; }
static bool rx_word_edge(int b, int a) { return rx_word_first(b, a) || rx_word_last(b, a); }
static bool rx_not_edge(int b, int a) { return (b == RX_WORD) == (a == RX_WORD); }

/* Whether mask tells word bytes from others, on either side. */
static bool rx_mask_words(unsigned mask)
{
	for (int b = 0; b < 3; b++)
		for (int a = 0; a < 3; a++) {
			int b2 = b == RX_BEGIN ? b : 3 - b, a2 = a == RX_BEGIN ? a : 3 - a;
			if (!(mask & RX_PAIR(b, a)) != !(mask & RX_PAIR(b2, a)) ||
			    !(mask & RX_PAIR(b, a)) != !(mask & RX_PAIR(b, a2)))
				return true;
		}
	return false;
}

/* ---- the tree ---- */

enum rx_kind { RX_K_SET, RX_K_ASSERT, RX_K_EMPTY, RX_K_CAT, RX_K_ALT, RX_K_REPEAT, RX_K_BACKREF };

struct rx_node {
	enum rx_kind kind;
	int lit;         /* SET: its one byte as the pattern gives it, else -1 */
	unsigned arg;    /* SET: the set; ASSERT: the mask */
	int child, last; /* CAT, ALT: first and last child; REPEAT: child */
	int next;        /* the next child of the same parent */
	int min, max;    /* REPEAT; max may be RX_INF */
	size_t size;     /* instructions, saturated above RX_PROG_MAX */
	bool asserts;    /* it holds an assertion */
};

/* ---- the parser ---- */

enum rx_tok {
	RX_T_CHAR, RX_T_ALT, RX_T_STAR, RX_T_PLUS, RX_T_QMARK, RX_T_OPEN_DUP, RX_T_CLOSE_DUP,
	RX_T_OPEN, RX_T_CLOSE, RX_T_BRACKET, RX_T_ANY, RX_T_ANCHOR, RX_T_WORD, RX_T_NOTWORD,
	RX_T_SPACE, RX_T_NOTSPACE, RX_T_BACKREF, RX_T_BACKSLASH, RX_T_END,
};

struct rx_token {
	enum rx_tok type;
	unsigned c;    /* the byte it is, as glibc reads it */
	unsigned mask; /* ANCHOR */
	int idx;       /* BACKREF: 0 for \1 */
	size_t len;
};

struct rx_parser {
	const unsigned char *p;
	size_t len, pos;
	bool icase;
	struct rx_token tok;
	struct rx_node *nodes;
	size_t nnodes, cap;
	struct rx_set *sets;
	size_t nsets, setcap;
	int char_set[256]; /* the set of each byte met, or -1 */
	unsigned nsub, completed; /* groups opened; \N that may follow */
	bool backref;
	bool copied_assert; /* see rx_copied_assert() */
	enum rx_status status;
	int regcode;
};

/* The byte at i as glibc reads it: folded under REG_ICASE. */
static unsigned rx_byte(const struct rx_parser *ps, size_t i)
{
	return ps->icase ? rx_upper(ps->p[i]) : ps->p[i];
}

static void rx_token_at(const struct rx_parser *ps, size_t i, struct rx_token *t)
{
	static const struct {
		unsigned char c;
		enum rx_tok type;
	} plain[] = {
		{'|', RX_T_ALT}, {'*', RX_T_STAR}, {'+', RX_T_PLUS}, {'?', RX_T_QMARK},
		{'{', RX_T_OPEN_DUP}, {'}', RX_T_CLOSE_DUP}, {'(', RX_T_OPEN}, {')', RX_T_CLOSE},
		{'[', RX_T_BRACKET}, {'.', RX_T_ANY}, {'^', RX_T_ANCHOR}, {'$', RX_T_ANCHOR},
	};
	static const struct {
		unsigned char c;
		enum rx_tok type;
		bool (*holds)(int, int);
	} escaped[] = {
		{'<', RX_T_ANCHOR, rx_word_first}, {'>', RX_T_ANCHOR, rx_word_last},
		{'b', RX_T_ANCHOR, rx_word_edge}, {'B', RX_T_ANCHOR, rx_not_edge},
		{'`', RX_T_ANCHOR, rx_at_start}, {'\'', RX_T_ANCHOR, rx_at_end},
		{'w', RX_T_WORD, NULL}, {'W', RX_T_NOTWORD, NULL},
		{'s', RX_T_SPACE, NULL}, {'S', RX_T_NOTSPACE, NULL},
	};
	memset(t, 0, sizeof(*t));
	if (i >= ps->len) {
		t->type = RX_T_END;
		return;
	}
	t->c = rx_byte(ps, i);
	t->type = RX_T_CHAR;
	t->len = 1;
	if (t->c == '\\') {
		if (i + 1 >= ps->len) {
			t->type = RX_T_BACKSLASH;
			return;
		}
		t->c = ps->p[i + 1]; /* as written, even under REG_ICASE */
		t->len = 2;
		if (t->c >= '1' && t->c <= '9') {
			t->type = RX_T_BACKREF;
			t->idx = (int)(t->c - '1');
		}
		for (size_t k = 0; k < ARRAY_LEN(escaped); k++)
			if (escaped[k].c == t->c) {
				t->type = escaped[k].type;
				if (escaped[k].holds)
					t->mask = rx_assert_mask(escaped[k].holds);
			}
		return;
	}
	for (size_t k = 0; k < ARRAY_LEN(plain); k++)
		if (plain[k].c == t->c)
			t->type = plain[k].type;
	if (t->type == RX_T_ANCHOR)
		t->mask = rx_assert_mask(t->c == '^' ? rx_at_start : rx_at_end);
}

static void rx_fetch(struct rx_parser *ps)
{
	ps->pos += ps->tok.len;
	rx_token_at(ps, ps->pos, &ps->tok);
}

/* Records the first error; returns -1 (no tree) for `return rx_fail()`. */
static int rx_fail(struct rx_parser *ps, enum rx_status st, int regcode)
{
	if (ps->status == RX_OK) {
		ps->status = st;
		ps->regcode = regcode;
	}
	return -1;
}

static size_t rx_sat(size_t n)
{
	return n > RX_PROG_MAX ? RX_PROG_MAX + 1 : n;
}

/* A new node; -1 when the tree grows past the cap (a pattern of more
 * than RX_PROG_MAX bytes, say), which is an error. */
static int rx_node_new(struct rx_parser *ps, enum rx_kind kind, size_t size)
{
	if (ps->nnodes >= RX_PROG_MAX || rx_sat(size) > RX_PROG_MAX)
		return rx_fail(ps, RX_EBIG, 0);
	if (ps->nnodes == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 64;
		ps->nodes = xrealloc(ps->nodes, ps->cap * sizeof(*ps->nodes));
	}
	struct rx_node *n = &ps->nodes[ps->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->lit = -1;
	n->child = n->last = n->next = -1;
	n->size = rx_sat(size);
	return (int)ps->nnodes++;
}

static unsigned rx_set_new(struct rx_parser *ps, const struct rx_set *s)
{
	if (ps->nsets == ps->setcap) {
		ps->setcap = ps->setcap ? 2 * ps->setcap : 32;
		ps->sets = xrealloc(ps->sets, ps->setcap * sizeof(*ps->sets));
	}
	ps->sets[ps->nsets] = *s;
	return (unsigned)ps->nsets++;
}

static int rx_set_node(struct rx_parser *ps, const struct rx_set *s, int lit)
{
	int n = rx_node_new(ps, RX_K_SET, 1);
	if (n < 0)
		return -1;
	ps->nodes[n].arg = rx_set_new(ps, s);
	ps->nodes[n].lit = lit;
	return n;
}

static int rx_char_node(struct rx_parser *ps, unsigned c)
{
	if (ps->char_set[c] < 0) {
		struct rx_set s = {{0}};
		rx_set_add(&s, c);
		ps->char_set[c] = (int)rx_set_new(ps, &s);
	}
	int n = rx_node_new(ps, RX_K_SET, 1);
	if (n < 0)
		return -1;
	ps->nodes[n].arg = (unsigned)ps->char_set[c];
	ps->nodes[n].lit = (int)c;
	return n;
}

/* ---- bracket expressions ---- */

enum rx_btok { RX_B_CHAR, RX_B_COLL, RX_B_EQUIV, RX_B_CLASS, RX_B_RANGE, RX_B_CLOSE, RX_B_END };

/* A token inside brackets at i: its type, byte and length. */
static enum rx_btok rx_btoken_at(const struct rx_parser *ps, size_t i, unsigned *c, size_t *len)
{
	*len = 1;
	if (i >= ps->len) {
		*len = 0;
		return RX_B_END;
	}
	*c = rx_byte(ps, i);
	if (*c == '[' && i + 1 < ps->len) {
		unsigned c2 = rx_byte(ps, i + 1);
		*len = 2;
		if (c2 == '.')
			return RX_B_COLL;
		if (c2 == '=')
			return RX_B_EQUIV;
		if (c2 == ':')
			return RX_B_CLASS;
		*len = 1;
	}
	if (*c == '-')
		return RX_B_RANGE;
	if (*c == ']')
		return RX_B_CLOSE;
	return RX_B_CHAR; /* '^' too, past the first */
}

/* An element of a bracket expression: a byte, or a [.x.], [=x=] or
 * [:name:] whose name is up to RX_NAME_MAX - 1 bytes. */
struct rx_belem {
	enum rx_btok type; /* CHAR, COLL, EQUIV or CLASS */
	unsigned c;
	char name[RX_NAME_MAX];
};

/* The name of [.x.], [=x=] or [:x:] after its opening, up to the
 * delimiter followed by ']'; as glibc reads it, a class name as written,
 * the others folded. */
static int rx_bracket_name(struct rx_parser *ps, enum rx_btok type, struct rx_belem *el)
{
	char delim = type == RX_B_COLL ? '.' : type == RX_B_EQUIV ? '=' : ':';
	if (ps->pos >= ps->len)
		return rx_fail(ps, RX_EBAD, REG_EBRACK);
	for (size_t i = 0;; i++) {
		if (i >= RX_NAME_MAX)
			return rx_fail(ps, RX_EBAD, REG_EBRACK);
		unsigned ch = type == RX_B_CLASS ? ps->p[ps->pos] : rx_byte(ps, ps->pos);
		ps->pos++;
		if (ps->pos >= ps->len)
			return rx_fail(ps, RX_EBAD, REG_EBRACK);
		if (ch == (unsigned char)delim && rx_byte(ps, ps->pos) == ']') {
			el->name[i] = '\0';
			break;
		}
		el->name[i] = (char)ch;
	}
	ps->pos++;
	el->type = type;
	return 0;
}

/* Reads the element whose token (type, c, len) is at pos. A '-' that is
 * not first must be last (right before the ']'). */
static int rx_bracket_elem(struct rx_parser *ps, enum rx_btok type, unsigned c, size_t len,
			   struct rx_belem *el, bool hyphen_ok)
{
	ps->pos += len;
	if (type == RX_B_COLL || type == RX_B_EQUIV || type == RX_B_CLASS)
		return rx_bracket_name(ps, type, el);
	if (type == RX_B_RANGE && !hyphen_ok) {
		unsigned c2;
		size_t len2;
		if (rx_btoken_at(ps, ps->pos, &c2, &len2) != RX_B_CLOSE)
			return rx_fail(ps, RX_EBAD, REG_ERANGE);
	}
	el->type = RX_B_CHAR;
	el->c = c;
	return 0;
}

/* The byte a range endpoint stands for, or -1 when it cannot be one:
 * ERANGE for a class, ECOLLATE for a name that is not one byte. */
static int rx_range_end(const struct rx_belem *el)
{
	if (el->type == RX_B_CHAR)
		return (int)el->c;
	if (el->type == RX_B_COLL && strlen(el->name) == 1)
		return (unsigned char)el->name[0];
	return -1;
}

static int rx_bracket_range(struct rx_parser *ps, struct rx_set *s, const struct rx_belem *a,
			    const struct rx_belem *b)
{
	if (a->type == RX_B_EQUIV || a->type == RX_B_CLASS || b->type == RX_B_EQUIV ||
	    b->type == RX_B_CLASS)
		return rx_fail(ps, RX_EBAD, REG_ERANGE);
	int lo = rx_range_end(a), hi = rx_range_end(b);
	if (lo < 0 || hi < 0)
		return rx_fail(ps, RX_EBAD, REG_ECOLLATE);
	if (lo > hi)
		return rx_fail(ps, RX_EBAD, REG_ERANGE);
	for (int c = lo; c <= hi; c++)
		rx_set_add(s, (unsigned)c);
	return 0;
}

static int rx_bracket_single(struct rx_parser *ps, struct rx_set *s, const struct rx_belem *el)
{
	switch (el->type) {
	case RX_B_CHAR:
		rx_set_add(s, el->c);
		return 0;
	case RX_B_CLASS:
		if (!rx_set_class(s, el->name, ps->icase))
			return rx_fail(ps, RX_EBAD, REG_ECTYPE);
		return 0;
	default: /* [.x.] and [=x=]: the C locale has one-byte ones only */
		if (strlen(el->name) != 1)
			return rx_fail(ps, RX_EBAD, REG_ECOLLATE);
		rx_set_add(s, (unsigned char)el->name[0]);
		return 0;
	}
}

/* Where a bracket expression is read: the token at pos (type, byte,
 * length) and the set so far. */
struct rx_bracket {
	enum rx_btok t;
	unsigned c;
	size_t len;
	struct rx_set set;
	int members, lit; /* lit: the byte of a lone member, else -1 */
};

/* One member, a byte, a name or a range, added to the set; on return
 * the token after it is read. */
static int rx_bracket_member(struct rx_parser *ps, struct rx_bracket *br, bool first)
{
	struct rx_belem a, b;
	bool range = false;
	if (rx_bracket_elem(ps, br->t, br->c, br->len, &a, first) < 0)
		return -1;
	br->t = rx_btoken_at(ps, ps->pos, &br->c, &br->len);
	if (a.type != RX_B_CLASS && a.type != RX_B_EQUIV) {
		if (br->t == RX_B_END)
			return rx_fail(ps, RX_EBAD, REG_EBRACK);
		if (br->t == RX_B_RANGE) {
			unsigned c2;
			size_t len2;
			enum rx_btok t2 = rx_btoken_at(ps, ps->pos + br->len, &c2, &len2);
			if (t2 == RX_B_END)
				return rx_fail(ps, RX_EBAD, REG_EBRACK);
			if (t2 == RX_B_CLOSE) {
				br->t = RX_B_CHAR; /* a '-' last is itself */
			} else {
				ps->pos += br->len;
				if (rx_bracket_elem(ps, t2, c2, len2, &b, true) < 0)
					return -1;
				br->t = rx_btoken_at(ps, ps->pos, &br->c, &br->len);
				range = true;
			}
		}
	}
	if ((range ? rx_bracket_range(ps, &br->set, &a, &b) : rx_bracket_single(ps, &br->set, &a)) < 0)
		return -1;
	br->members++;
	br->lit = !range && a.type == RX_B_CHAR ? (int)a.c : -1;
	return 0;
}

/* The bracket expression whose '[' is the current token. */
static int rx_parse_bracket(struct rx_parser *ps)
{
	struct rx_bracket br = {.lit = -1};
	bool negate = false;
	ps->pos += ps->tok.len;
	br.t = rx_btoken_at(ps, ps->pos, &br.c, &br.len);
	if (br.t == RX_B_END)
		return rx_fail(ps, RX_EBAD, REG_BADPAT);
	if (br.t == RX_B_CHAR && br.c == '^') {
		negate = true;
		ps->pos += br.len;
		br.t = rx_btoken_at(ps, ps->pos, &br.c, &br.len);
		if (br.t == RX_B_END)
			return rx_fail(ps, RX_EBAD, REG_BADPAT);
	}
	if (br.t == RX_B_CLOSE)
		br.t = RX_B_CHAR; /* a ']' first is itself */
	for (bool first = true; br.t != RX_B_CLOSE; first = false) {
		if (rx_bracket_member(ps, &br, first) < 0)
			return -1;
		if (br.t == RX_B_END)
			return rx_fail(ps, RX_EBAD, REG_EBRACK);
	}
	ps->pos += br.len;
	ps->tok.len = 0; /* pos is past it: the next fetch reads on from there */
	if (negate)
		rx_set_not(&br.set);
	/* A lone byte, "[.]" say, is a literal for the prefilter. */
	return rx_set_node(ps, &br.set, !negate && br.members == 1 ? br.lit : -1);
}

/* ---- the grammar, in glibc's order ---- */

static int rx_parse_alt(struct rx_parser *ps, int nest);

/* Appends child to parent (CAT or ALT); -1 when that makes it too big.
 * An alternative costs a SPLIT and a JMP more. */
static int rx_append(struct rx_parser *ps, int parent, int child)
{
	struct rx_node *p = &ps->nodes[parent];
	size_t extra = p->kind == RX_K_ALT && p->last >= 0 ? 2 : 0;
	if (p->last < 0)
		p->child = child;
	else
		ps->nodes[p->last].next = child;
	p->last = child;
	p->size = rx_sat(p->size + ps->nodes[child].size + extra);
	p->asserts = p->asserts || ps->nodes[child].asserts;
	return p->size > RX_PROG_MAX ? rx_fail(ps, RX_EBIG, 0) : 0;
}

/* The instructions of x{min,max}, x taking sx: the min copies, then a
 * loop (x* takes a SPLIT and a JMP; x{m,} with m > 0 ends on x+, whose
 * SPLIT jumps back), or max - min optional copies, a SPLIT each. */
static size_t rx_repeat_size(size_t sx, int min, int max)
{
	if (max == RX_INF)
		return rx_sat(min == 0 ? sx + 2 : (size_t)min * sx + 1);
	return rx_sat((size_t)min * sx + (size_t)(max - min) * (sx + 1));
}

/* ?, * and + (as {0,1}, {0,} and {1,}) of one another are one of them:
 * folded, so that "a**********" does not nest. */
static bool rx_simple(int min, int max)
{
	return min <= 1 && (max == 1 || max == RX_INF);
}

static int rx_repeat(struct rx_parser *ps, int x, int min, int max)
{
	struct rx_node *nx = &ps->nodes[x];
	if (min == 1 && max == 1)
		return x;
	/* glibc writes these out in copies of x, in which it may lose the
	 * assertions (rx_copied_assert()). */
	if (nx->asserts && !rx_simple(min, max))
		ps->copied_assert = true;
	if (nx->asserts && min == 1 && max == RX_INF)
		ps->copied_assert = true;
	if (nx->kind == RX_K_REPEAT && rx_simple(nx->min, nx->max) && rx_simple(min, max)) {
		nx->min *= min;
		nx->max = nx->max == RX_INF || max == RX_INF ? RX_INF : 1;
		nx->size = rx_repeat_size(ps->nodes[nx->child].size, nx->min, nx->max);
		return x;
	}
	int n = rx_node_new(ps, RX_K_REPEAT, rx_repeat_size(nx->size, min, max));
	if (n < 0)
		return -1;
	ps->nodes[n].child = x;
	ps->nodes[n].min = min;
	ps->nodes[n].max = max;
	ps->nodes[n].asserts = ps->nodes[x].asserts;
	return n;
}

/* The number of an interval, up to ',' or '}': -1 if there is none,
 * -2 if it is not a number or the pattern ends. */
static int rx_fetch_number(struct rx_parser *ps)
{
	int num = -1;
	for (;;) {
		rx_fetch(ps);
		unsigned c = ps->tok.c;
		if (ps->tok.type == RX_T_END)
			return -2;
		if (ps->tok.type == RX_T_CLOSE_DUP || c == ',')
			return num;
		if (ps->tok.type != RX_T_CHAR || c < '0' || c > '9' || num == -2)
			num = -2;
		else
			num = num == -1 ? (int)(c - '0') : num * 10 + (int)(c - '0');
		if (num > RX_DUP_MAX + 1)
			num = RX_DUP_MAX + 1;
	}
}

static bool rx_tok_comma(const struct rx_parser *ps)
{
	return ps->tok.type == RX_T_CHAR && ps->tok.c == ',';
}

/* The repeat operator that is the current token, applied to x (-1: the
 * empty tree, which stays empty). */
static int rx_parse_dup(struct rx_parser *ps, int x)
{
	int min, max = 0;
	if (ps->tok.type == RX_T_OPEN_DUP) {
		min = rx_fetch_number(ps);
		if (min == -1 && !rx_tok_comma(ps))
			return rx_fail(ps, RX_EBAD, REG_BADBR); /* "{}" */
		if (min == -1)
			min = 0; /* "{,n}" is "{0,n}" */
		if (min != -2)
			max = ps->tok.type == RX_T_CLOSE_DUP ? min
			      : rx_tok_comma(ps)            ? rx_fetch_number(ps)
							    : -2;
		if (min == -2 || max == -2)
			return rx_fail(ps, RX_EBAD, ps->tok.type == RX_T_END ? REG_EBRACE : REG_BADBR);
		if ((max != -1 && min > max) || ps->tok.type != RX_T_CLOSE_DUP)
			return rx_fail(ps, RX_EBAD, REG_BADBR);
		if ((max == -1 ? min : max) > RX_DUP_MAX)
			return rx_fail(ps, RX_EBAD, REG_ESIZE);
	} else {
		min = ps->tok.type == RX_T_PLUS;
		max = ps->tok.type == RX_T_QMARK ? 1 : -1;
	}
	rx_fetch(ps);
	if (x < 0 || (min == 0 && max == 0))
		return -1;
	return rx_repeat(ps, x, min, max == -1 ? RX_INF : max);
}

/* A group: its '(' is the current token; on return its ')' is. */
static int rx_parse_group(struct rx_parser *ps, int nest)
{
	if (nest > RX_DEPTH_MAX)
		return rx_fail(ps, RX_EDEEP, 0);
	unsigned sub = ps->nsub++;
	int tree = -1;
	rx_fetch(ps);
	if (ps->tok.type != RX_T_CLOSE) {
		tree = rx_parse_alt(ps, nest);
		if (ps->status == RX_OK && ps->tok.type != RX_T_CLOSE)
			rx_fail(ps, RX_EBAD, REG_EPAREN);
		if (ps->status != RX_OK)
			return -1;
	}
	if (sub < 9)
		ps->completed |= 1u << sub; /* \N may follow it from now on */
	return tree;
}

static int rx_class_node(struct rx_parser *ps, const char *name, const char *more, bool negate)
{
	struct rx_set s = {{0}};
	rx_set_class(&s, name, false);
	for (; *more; more++)
		rx_set_add(&s, (unsigned char)*more);
	if (negate)
		rx_set_not(&s);
	return rx_set_node(ps, &s, -1);
}

/* One atom and the repeat operators after it; -1 for the empty tree or
 * an error (ps->status says which). */
static int rx_parse_expr(struct rx_parser *ps, int nest)
{
	const struct rx_token *t = &ps->tok;
	struct rx_set any = {{~(uint64_t)1, ~(uint64_t)0, ~(uint64_t)0, ~(uint64_t)0}};
	int x;
	switch (t->type) {
	case RX_T_CHAR:
	case RX_T_CLOSE:     /* a ')' that closes nothing */
	case RX_T_CLOSE_DUP: /* a '}' that closes nothing */
		x = rx_char_node(ps, t->c);
		break;
	case RX_T_OPEN:
		x = rx_parse_group(ps, nest + 1);
		break;
	case RX_T_BRACKET:
		x = rx_parse_bracket(ps);
		break;
	case RX_T_BACKREF:
		if (!(ps->completed >> t->idx & 1))
			return rx_fail(ps, RX_EBAD, REG_ESUBREG);
		ps->backref = true;
		x = rx_node_new(ps, RX_K_BACKREF, 0);
		break;
	case RX_T_OPEN_DUP:
	case RX_T_STAR:
	case RX_T_PLUS:
	case RX_T_QMARK:
		return rx_fail(ps, RX_EBAD, REG_BADRPT);
	case RX_T_ANCHOR:
		/* Never repeated: "^*" is an error, as in glibc. */
		x = rx_node_new(ps, RX_K_ASSERT, 1);
		if (x >= 0) {
			ps->nodes[x].arg = t->mask;
			ps->nodes[x].asserts = true;
		}
		rx_fetch(ps);
		return x;
	case RX_T_ANY: /* any byte but NUL (RE_DOT_NOT_NULL) */
		x = rx_set_node(ps, &any, -1);
		break;
	case RX_T_WORD:
	case RX_T_NOTWORD:
		x = rx_class_node(ps, "alnum", "_", t->type == RX_T_NOTWORD);
		break;
	case RX_T_SPACE:
	case RX_T_NOTSPACE:
		x = rx_class_node(ps, "space", "", t->type == RX_T_NOTSPACE);
		break;
	case RX_T_BACKSLASH:
		return rx_fail(ps, RX_EBAD, REG_EESCAPE);
	default: /* '|' or the end: an empty branch */
		return -1;
	}
	if (ps->status != RX_OK)
		return -1;
	rx_fetch(ps);
	while (t->type == RX_T_STAR || t->type == RX_T_PLUS || t->type == RX_T_QMARK ||
	       t->type == RX_T_OPEN_DUP) {
		x = rx_parse_dup(ps, x);
		if (ps->status != RX_OK)
			return -1;
	}
	return x;
}

static bool rx_branch_goes_on(const struct rx_parser *ps, int nest)
{
	enum rx_tok t = ps->tok.type;
	return t != RX_T_ALT && t != RX_T_END && (nest == 0 || t != RX_T_CLOSE);
}

/* Atoms one after another, up to '|', the end or the group's ')'. */
static int rx_parse_branch(struct rx_parser *ps, int nest)
{
	int tree = rx_parse_expr(ps, nest), cat = -1;
	if (ps->status != RX_OK)
		return -1;
	while (rx_branch_goes_on(ps, nest)) {
		int x = rx_parse_expr(ps, nest);
		if (ps->status != RX_OK)
			return -1;
		if (x < 0)
			continue;
		if (tree < 0) {
			tree = x;
			continue;
		}
		if (cat < 0) {
			cat = rx_node_new(ps, RX_K_CAT, 0);
			if (cat < 0 || rx_append(ps, cat, tree) < 0)
				return -1;
			tree = cat;
		}
		if (rx_append(ps, cat, x) < 0)
			return -1;
	}
	return tree;
}

/* An empty alternative is an EMPTY node: it matches. */
static int rx_append_branch(struct rx_parser *ps, int alt, int branch)
{
	if (branch < 0 && (branch = rx_node_new(ps, RX_K_EMPTY, 0)) < 0)
		return -1;
	return rx_append(ps, alt, branch);
}

/* Branches separated by '|'. A \N must follow its group in the same
 * branch: "(a)|\1" is an error, as in glibc. */
static int rx_parse_alt(struct rx_parser *ps, int nest)
{
	unsigned initial = ps->completed;
	int tree = rx_parse_branch(ps, nest);
	if (ps->status != RX_OK || ps->tok.type != RX_T_ALT)
		return tree;
	int alt = rx_node_new(ps, RX_K_ALT, 0);
	if (alt < 0 || rx_append_branch(ps, alt, tree) < 0)
		return -1;
	while (ps->tok.type == RX_T_ALT) {
		int branch = -1;
		rx_fetch(ps);
		if (rx_branch_goes_on(ps, nest)) {
			unsigned seen = ps->completed;
			ps->completed = initial;
			branch = rx_parse_branch(ps, nest);
			if (ps->status != RX_OK)
				return -1;
			ps->completed |= seen;
		}
		if (rx_append_branch(ps, alt, branch) < 0)
			return -1;
	}
	return alt;
}

/* ---- the program ---- */

enum rx_op { RX_I_SET, RX_I_SPLIT, RX_I_JMP, RX_I_ASSERT, RX_I_MATCH };

/* SET takes a byte of sets[x] and goes on to the next instruction;
 * SPLIT goes on at x and at y; JMP at x; ASSERT, when the position is
 * one of the pairs of mask x, to the next instruction. */
struct rx_inst {
	enum rx_op op;
	uint32_t x, y;
};

#define RX_NONE UINT32_MAX

struct rx_state;

struct rx {
	int flags;
	struct rx_inst *prog;
	size_t n, cap;
	struct rx_set *sets;
	size_t nsets;
	bool words;            /* an assertion looks at word bytes */
	uint8_t cls[256];      /* the class of each byte: bytes no set tells apart */
	uint8_t ctx[256];      /* RX_WORD or RX_OTHER, for the assertions */
	unsigned nclasses;
	char lit[RX_LIT_MAX];  /* every match contains it */
	size_t litlen;
	bool exact;            /* and containing it is matching */
	bool fold;             /* it is looked for in either case */
	bool copied_assert;
	/* Scratch for building states, each as long as the program. */
	uint32_t *mark, *taken, *stack, *out, *cur;
	uint32_t gen;
	/* The DFA: states by their instructions, at most RX_CACHE_MAX bytes. */
	struct rx_state **table;
	size_t tsize, count, mem;
	unsigned long long epoch; /* flushes so far */
	struct rx_state *initial;
	size_t dropped;           /* the states of the cache when it was last dropped */
	size_t carried, since;    /* bytes stepped since then: in the calls before, and
				   * where in this call */
	bool thrash;              /* go on in the NFA */
	bool anchored;            /* see rx_anchored() */
	unsigned long long steps;
	/* Asked every RX_CHECK steps of the slow paths, where a byte may
	 * cost the whole program: true stops the match (rx_stopped). */
	bool (*stop)(void *ctx);
	void *stop_ctx;
	unsigned long long next_check;
	bool stopped;
};

#define RX_CHECK (1ull << 22)

/* Whether to stop now: asked at most every RX_CHECK steps. */
static bool rx_must_stop(struct rx *rx)
{
	if (rx->stopped)
		return true;
	if (!rx->stop || rx->steps < rx->next_check)
		return false;
	rx->next_check = rx->steps + RX_CHECK;
	rx->stopped = rx->stop(rx->stop_ctx);
	return rx->stopped;
}

static uint32_t rx_inst(struct rx *rx, enum rx_op op, uint32_t x, uint32_t y)
{
	if (rx->n == rx->cap)
		abort(); /* the size was counted wrong: a bug */
	rx->prog[rx->n] = (struct rx_inst){op, x, y};
	return (uint32_t)rx->n++;
}

static uint32_t rx_pc(const struct rx *rx)
{
	return (uint32_t)rx->n;
}

static void rx_emit(struct rx *rx, const struct rx_parser *ps, int node);

static void rx_emit_alt(struct rx *rx, const struct rx_parser *ps, const struct rx_node *nd)
{
	uint32_t jumps = RX_NONE; /* a list through their x */
	for (int c = nd->child; c >= 0; c = ps->nodes[c].next) {
		if (ps->nodes[c].next < 0) {
			rx_emit(rx, ps, c);
			break;
		}
		uint32_t split = rx_inst(rx, RX_I_SPLIT, rx_pc(rx) + 1, RX_NONE);
		rx_emit(rx, ps, c);
		jumps = rx_inst(rx, RX_I_JMP, jumps, 0);
		rx->prog[split].y = rx_pc(rx);
	}
	while (jumps != RX_NONE) {
		uint32_t next = rx->prog[jumps].x;
		rx->prog[jumps].x = rx_pc(rx);
		jumps = next;
	}
}

static void rx_emit_repeat(struct rx *rx, const struct rx_parser *ps, const struct rx_node *nd)
{
	if (nd->max == RX_INF && nd->min == 0) {
		uint32_t loop = rx_inst(rx, RX_I_SPLIT, rx_pc(rx) + 1, RX_NONE);
		rx_emit(rx, ps, nd->child);
		rx_inst(rx, RX_I_JMP, loop, 0);
		rx->prog[loop].y = rx_pc(rx);
		return;
	}
	if (nd->max == RX_INF) {
		for (int i = 0; i < nd->min - 1; i++)
			rx_emit(rx, ps, nd->child);
		uint32_t body = rx_pc(rx);
		rx_emit(rx, ps, nd->child);
		rx_inst(rx, RX_I_SPLIT, body, rx_pc(rx) + 1);
		return;
	}
	for (int i = 0; i < nd->min; i++)
		rx_emit(rx, ps, nd->child);
	uint32_t skips = RX_NONE; /* a list through their y */
	for (int i = nd->min; i < nd->max; i++) {
		skips = rx_inst(rx, RX_I_SPLIT, rx_pc(rx) + 1, skips);
		rx_emit(rx, ps, nd->child);
	}
	while (skips != RX_NONE) {
		uint32_t next = rx->prog[skips].y;
		rx->prog[skips].y = rx_pc(rx);
		skips = next;
	}
}

/* The recursion goes as deep as groups nest (RX_DEPTH_MAX) and repeats
 * of repeats, which at least double the size every other level. */
static void rx_emit(struct rx *rx, const struct rx_parser *ps, int node)
{
	const struct rx_node *nd = &ps->nodes[node];
	switch (nd->kind) {
	case RX_K_SET:
		rx_inst(rx, RX_I_SET, nd->arg, 0);
		break;
	case RX_K_ASSERT:
		rx_inst(rx, RX_I_ASSERT, nd->arg, 0);
		break;
	case RX_K_CAT:
		for (int c = nd->child; c >= 0; c = ps->nodes[c].next)
			rx_emit(rx, ps, c);
		break;
	case RX_K_ALT:
		rx_emit_alt(rx, ps, nd);
		break;
	case RX_K_REPEAT:
		rx_emit_repeat(rx, ps, nd);
		break;
	default: /* EMPTY; BACKREF never gets here */
		break;
	}
}

/* ---- byte classes ---- */

/* Splits the bytes into classes that every set takes whole, by
 * refining one set at a time; the word bytes too when an assertion
 * looks at them. */
static void rx_classes(struct rx *rx)
{
	struct rx_set word = {{0}};
	for (unsigned c = 0; c < 256; c++)
		if (rx_is_word(c))
			rx_set_add(&word, c);
	memset(rx->cls, 0, sizeof(rx->cls));
	for (size_t i = 0; i <= rx->nsets; i++) {
		const struct rx_set *s = i < rx->nsets ? &rx->sets[i] : &word;
		if (i == rx->nsets && !rx->words)
			break;
		int id[512];
		unsigned next = 0;
		memset(id, -1, sizeof(id));
		for (unsigned c = 0; c < 256; c++) {
			unsigned key = rx->cls[c] * 2u + rx_set_has(s, c);
			if (id[key] < 0)
				id[key] = (int)next++;
			rx->cls[c] = (uint8_t)id[key];
		}
	}
	rx->nclasses = 0;
	for (unsigned c = 0; c < 256; c++) {
		if (rx->cls[c] == rx->nclasses)
			rx->nclasses++; /* numbered in the order of their first byte */
		rx->ctx[c] = rx->words && rx_is_word(c) ? RX_WORD : RX_OTHER;
	}
}

/* Under REG_ICASE a set takes each byte whose upper case it holds. */
static void rx_fold_sets(struct rx *rx)
{
	for (size_t i = 0; i < rx->nsets; i++) {
		struct rx_set folded = {{0}};
		for (unsigned c = 0; c < 256; c++)
			if (rx_set_has(&rx->sets[i], rx_upper(c)))
				rx_set_add(&folded, c);
		rx->sets[i] = folded;
	}
}

/* ---- the prefilter ---- */

/* The longest run of bytes that follow one another in every match:
 * literal bytes of concatenations, repeated min times; assertions take
 * no byte and break nothing. Under REG_ICASE the bytes are folded to
 * upper case (a lower case one, "\a", matches nothing: it breaks the
 * run), and the run is looked for folded too (rx_find). */
struct rx_lit {
	char run[RX_LIT_MAX], best[RX_LIT_MAX];
	size_t nrun, nbest;
	bool exact; /* nothing but literal bytes so far */
};

static void rx_lit_break(struct rx_lit *l)
{
	if (l->nrun > l->nbest) {
		memcpy(l->best, l->run, l->nrun);
		l->nbest = l->nrun;
	}
	l->nrun = 0;
	l->exact = false;
}

static void rx_lit_walk(const struct rx_parser *ps, int node, struct rx_lit *l)
{
	const struct rx_node *nd = &ps->nodes[node];
	switch (nd->kind) {
	case RX_K_SET:
		if (nd->lit < 0 || (ps->icase && rx_is_lower((unsigned)nd->lit))) {
			rx_lit_break(l);
			break;
		}
		if (l->nrun == RX_LIT_MAX)
			rx_lit_break(l);
		l->run[l->nrun++] = (char)nd->lit;
		break;
	case RX_K_ASSERT:
		l->exact = false;
		break;
	case RX_K_CAT:
		for (int c = nd->child; c >= 0; c = ps->nodes[c].next)
			rx_lit_walk(ps, c, l);
		break;
	case RX_K_REPEAT:
		/* Its size bounds min times the child's. */
		for (int i = 0; i < nd->min; i++)
			rx_lit_walk(ps, nd->child, l);
		if (nd->max != nd->min)
			rx_lit_break(l);
		break;
	default:
		rx_lit_break(l);
		break;
	}
}

static void rx_prefilter(struct rx *rx, const struct rx_parser *ps, int root)
{
	struct rx_lit l = {.exact = true};
	if (root >= 0)
		rx_lit_walk(ps, root, &l);
	bool exact = l.exact;
	rx_lit_break(&l);
	memcpy(rx->lit, l.best, l.nbest);
	rx->litlen = l.nbest;
	rx->exact = exact;
	for (size_t i = 0; i < l.nbest; i++)
		rx->fold = rx->fold || (ps->icase && rx_is_upper((unsigned char)l.best[i]));
}

/* Whether s[0..n) holds lit[0..k), upper case in lit standing for
 * either case: memchr finds the first byte in each case, each search
 * going on from where it stopped, so the work is linear in n times k. */
static bool rx_find_fold(const char *s, size_t n, const char *lit, size_t k)
{
	unsigned char first[2] = {(unsigned char)lit[0], (unsigned char)lit[0]};
	size_t next[2] = {0, 0}, i = 0; /* where each case of the first byte is next */
	bool known[2] = {false, false};
	if (rx_is_upper(first[0]))
		first[1] = (unsigned char)(first[0] - 'A' + 'a');
	while (n - i >= k) {
		for (int c = 0; c < 2; c++)
			if (!known[c] || next[c] < i) {
				const char *q = memchr(s + i, first[c], n - i);
				next[c] = q ? (size_t)(q - s) : n;
				known[c] = true;
			}
		size_t at = next[0] < next[1] ? next[0] : next[1], j = 1;
		if (n - at < k)
			return false;
		while (j < k && rx_upper((unsigned char)s[at + j]) == (unsigned char)lit[j])
			j++;
		if (j == k)
			return true;
		i = at + 1;
	}
	return false;
}

const char *rx_literal(const struct rx *rx, size_t *len, bool *fold)
{
	*len = rx->litlen;
	*fold = rx->fold;
	return rx->lit;
}

static bool rx_find(const struct rx *rx, const char *s, size_t n)
{
	if (rx->fold)
		return rx_find_fold(s, n, rx->lit, rx->litlen);
	return memmem(s, n, rx->lit, rx->litlen) != NULL;
}

/* ---- matching ---- */

/* A DFA state: the instructions that wait for the next byte (the start
 * is always added: a match may begin anywhere) and what came before
 * the position. Its transitions, by class, are filled as they are met. */
struct rx_state {
	struct rx_state *chain; /* in its bucket */
	uint32_t hash, n;
	uint8_t before; /* RX_BEGIN, RX_WORD or RX_OTHER */
	int8_t end;     /* a match at the end: -1 not known yet, 0, 1 */
	struct rx_state **to;
	uint32_t pcs[];
};

/* The transitions of a byte that completes a match, and of one after
 * which there can be none. */
static struct rx_state rx_matched, rx_dead;

/* A new generation of marks, so that marking needs no clearing. */
static uint32_t rx_generation(struct rx *rx)
{
	if (++rx->gen == 0) {
		memset(rx->mark, 0, rx->n * sizeof(*rx->mark));
		memset(rx->taken, 0, (rx->n + 1) * sizeof(*rx->taken));
		rx->gen = 1;
	}
	return rx->gen;
}

/* From the start and pcs[0..n), follows every instruction that takes
 * no byte, at a position between before and after (after RX_BEGIN: the
 * end); collects in rx->out, *nout of them, the instruction after each
 * SET that takes byte c (none when c < 0). True when MATCH is reached.
 * Each instruction is visited once: at most rx->n steps. */
static bool rx_closure(struct rx *rx, const uint32_t *pcs, size_t n, int before, int after, int c,
		       size_t *nout)
{
	/* Locals, which the stores into the arrays cannot alias. */
	const uint32_t g = rx_generation(rx);
	const struct rx_inst *prog = rx->prog;
	const struct rx_set *sets = rx->sets;
	uint32_t *mark = rx->mark, *taken = rx->taken, *stack = rx->stack, *out = rx->out;
	const unsigned pair = RX_PAIR(before, after);
	size_t sp = 0, k = 0;
	unsigned long long steps = 0;
	bool matched = false;
#define RX_PUSH(pc)                               \
	do {                                      \
		uint32_t p_ = (pc);               \
		if (mark[p_] != g) {              \
			mark[p_] = g;             \
			stack[sp++] = p_;         \
		}                                 \
	} while (0)
	RX_PUSH(0);
	for (size_t i = 0; i < n; i++)
		RX_PUSH(pcs[i]);
	while (sp > 0 && !matched) {
		uint32_t pc = stack[--sp];
		const struct rx_inst *in = &prog[pc];
		steps++;
		switch (in->op) {
		case RX_I_MATCH:
			matched = true;
			break;
		case RX_I_SET:
			if (c >= 0 && rx_set_has(&sets[in->x], (unsigned)c) && taken[pc + 1] != g) {
				taken[pc + 1] = g;
				out[k++] = pc + 1;
			}
			break;
		case RX_I_SPLIT:
			RX_PUSH(in->y);
			RX_PUSH(in->x);
			break;
		case RX_I_JMP:
			RX_PUSH(in->x);
			break;
		case RX_I_ASSERT:
			if (in->x & pair)
				RX_PUSH(pc + 1);
			break;
		}
	}
#undef RX_PUSH
	rx->steps += steps;
	*nout = k;
	return matched;
}

/* The plain NFA simulation from the k instructions in rx->cur, after
 * before: a closure per byte. No state is kept, so it serves where the
 * DFA would build a new state for each byte. */
static bool rx_nfa(struct rx *rx, size_t k, int before, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t next;
		if (k == 0 && before != RX_BEGIN && rx->anchored)
			return false; /* only the start is left, and it cannot go on */
		if (rx_must_stop(rx))
			return false;
		if (rx_closure(rx, rx->cur, k, before, rx->ctx[s[i]], s[i], &next))
			return true;
		uint32_t *t = rx->cur;
		rx->cur = rx->out;
		rx->out = t;
		k = next;
		before = rx->ctx[s[i]];
	}
	return rx_closure(rx, rx->cur, k, before, RX_BEGIN, -1, &k);
}

/* A state's key is its set of instructions in any order: the hash
 * adds one of each, and equality is tested against the marks that the
 * closure which made the set left in rx->taken, without sorting. */
static uint32_t rx_hash(const uint32_t *pcs, size_t n, int before)
{
	uint32_t h = (uint32_t)before * 0x9e3779b9u;
	for (size_t i = 0; i < n; i++) {
		uint32_t x = pcs[i] * 0x85ebca6bu;
		h += x ^ (x >> 13);
	}
	return h;
}

static bool rx_state_is(const struct rx *rx, const struct rx_state *s, uint32_t h, size_t n,
			int before)
{
	if (s->hash != h || s->n != n || s->before != before)
		return false;
	for (size_t i = 0; i < n; i++)
		if (rx->taken[s->pcs[i]] != rx->gen)
			return false;
	return true;
}

static void rx_cache_flush(struct rx *rx)
{
	for (size_t i = 0; i < rx->tsize; i++)
		for (struct rx_state *s = rx->table[i], *next; s; s = next) {
			next = s->chain;
			free(s);
		}
	free(rx->table);
	rx->table = NULL;
	rx->tsize = rx->count = rx->mem = 0;
	rx->initial = NULL;
	rx->epoch++;
}

static void rx_table_grow(struct rx *rx)
{
	size_t size = rx->tsize ? 2 * rx->tsize : 256;
	struct rx_state **table = xmalloc(size * sizeof(*table));
	memset(table, 0, size * sizeof(*table));
	for (size_t i = 0; i < rx->tsize; i++)
		for (struct rx_state *s = rx->table[i], *next; s; s = next) {
			next = s->chain;
			s->chain = table[s->hash & (size - 1)];
			table[s->hash & (size - 1)] = s;
		}
	free(rx->table);
	rx->mem += (size - rx->tsize) * sizeof(*table);
	rx->table = table;
	rx->tsize = size;
}

/* The state of pcs[0..n), which the last closure marked, after before;
 * made when new, after dropping every state if the cache is full. */
static struct rx_state *rx_state_get(struct rx *rx, const uint32_t *pcs, size_t n, int before)
{
	uint32_t h = rx_hash(pcs, n, before);
	for (struct rx_state *s = rx->tsize ? rx->table[h & (rx->tsize - 1)] : NULL; s; s = s->chain)
		if (rx_state_is(rx, s, h, n, before))
			return s;
	size_t head = sizeof(struct rx_state) + n * sizeof(*pcs);
	head = (head + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *);
	size_t bytes = head + rx->nclasses * sizeof(struct rx_state *);
	if (rx->mem + bytes > RX_CACHE_MAX) {
		rx->dropped = rx->count;
		rx_cache_flush(rx);
	}
	if (rx->count >= rx->tsize)
		rx_table_grow(rx);
	struct rx_state *s = xmalloc(bytes);
	s->hash = h;
	s->n = (uint32_t)n;
	s->before = (uint8_t)before;
	s->end = -1;
	memcpy(s->pcs, pcs, n * sizeof(*pcs));
	s->to = (struct rx_state **)(void *)((char *)s + head);
	memset(s->to, 0, rx->nclasses * sizeof(*s->to));
	s->chain = rx->table[h & (rx->tsize - 1)];
	rx->table[h & (rx->tsize - 1)] = s;
	rx->count++;
	rx->mem += bytes;
	return s;
}

/* The transition of st on byte c, built; s[i] is that byte. When the
 * cache was dropped after fewer than RX_THRASH bytes per state it had
 * built, rx->thrash says to go on without it. */
#define RX_THRASH 10

static struct rx_state *rx_dfa_step(struct rx *rx, struct rx_state *st, unsigned char c, size_t i)
{
	size_t k;
	unsigned cl = rx->cls[c];
	if (rx_closure(rx, st->pcs, st->n, st->before, rx->ctx[c], c, &k))
		return st->to[cl] = &rx_matched;
	unsigned long long epoch = rx->epoch;
	struct rx_state *t = rx_state_get(rx, rx->out, k, rx->ctx[c]);
	if (rx->epoch != epoch) { /* st is gone with the cache */
		size_t bytes = rx->carried + i - rx->since;
		rx->thrash = bytes < RX_THRASH * rx->dropped;
		rx->carried = 0;
		rx->since = i;
		return t;
	}
	if (rx->anchored && k == 0 && t->before != RX_BEGIN)
		t = &rx_dead;
	return st->to[cl] = t;
}

static bool rx_dfa(struct rx *rx, const unsigned char *s, size_t n)
{
	if (!rx->initial)
		rx->initial = rx_state_get(rx, rx->out, 0, RX_BEGIN);
	struct rx_state *st = rx->initial;
	const uint8_t *cls = rx->cls;
	size_t i;
	rx->thrash = false;
	rx->since = 0;
	for (i = 0; i < n; i++) {
		struct rx_state *t = st->to[cls[s[i]]];
		if (!t) {
			if (rx_must_stop(rx))
				return false;
			t = rx_dfa_step(rx, st, s[i], i);
			if (rx->thrash) {
				/* The rest of the line in the NFA, from t. */
				memcpy(rx->cur, t->pcs, t->n * sizeof(*t->pcs));
				return rx_nfa(rx, t->n, t->before, s + i + 1, n - i - 1);
			}
		}
		if (t == &rx_matched || t == &rx_dead) {
			rx->carried += i - rx->since;
			return t == &rx_matched;
		}
		st = t;
	}
	rx->carried += n - rx->since;
	if (st->end < 0) {
		size_t k;
		st->end = rx_closure(rx, st->pcs, st->n, st->before, RX_BEGIN, -1, &k);
	}
	return st->end;
}

void rx_set_stop(struct rx *rx, bool (*stop)(void *ctx), void *ctx)
{
	rx->stop = stop;
	rx->stop_ctx = ctx;
	rx->next_check = rx->steps + RX_CHECK;
	rx->stopped = false;
}

bool rx_stopped(const struct rx *rx)
{
	return rx->stopped;
}

bool rx_match(struct rx *rx, const char *s, size_t n)
{
	if (rx->stopped)
		return false;
	if (rx->litlen && !rx_find(rx, s, n))
		return false;
	if (rx->exact)
		return true;
	rx->steps += n;
	if (rx->flags & RX_NO_CACHE)
		return rx_nfa(rx, 0, RX_BEGIN, (const unsigned char *)s, n);
	return rx_dfa(rx, (const unsigned char *)s, n);
}

/* Whether nothing can follow the start but at the start: then once the
 * start is all that is left, there is no match (as for "^foo"). */
static bool rx_anchored(struct rx *rx)
{
	for (int before = RX_WORD; before <= RX_OTHER; before++)
		for (int after = RX_BEGIN; after <= RX_OTHER; after++) {
			size_t k;
			if (rx_closure(rx, NULL, 0, before, after, -1, &k))
				return false;
			for (size_t pc = 0; pc < rx->n; pc++)
				if (rx->mark[pc] == rx->gen && rx->prog[pc].op == RX_I_SET)
					return false;
		}
	return true;
}

/* ---- compiling ---- */

static void rx_parser_free(struct rx_parser *ps)
{
	free(ps->nodes);
	free(ps->sets);
}

static enum rx_status rx_parse(struct rx_parser *ps, const char *pattern, int flags, int *root)
{
	memset(ps, 0, sizeof(*ps));
	memset(ps->char_set, -1, sizeof(ps->char_set));
	ps->p = (const unsigned char *)pattern;
	ps->len = strlen(pattern);
	ps->icase = flags & RX_ICASE;
	rx_token_at(ps, 0, &ps->tok);
	*root = rx_parse_alt(ps, 0);
	if (ps->status == RX_OK && ps->backref)
		ps->status = RX_EBACKREF;
	if (ps->status == RX_OK && *root >= 0 && ps->nodes[*root].size + 1 > RX_PROG_MAX)
		ps->status = RX_EBIG;
	return ps->status;
}

static void rx_message(const struct rx_parser *ps, char *errbuf, size_t errlen)
{
	if (!errbuf || !errlen)
		return;
	switch (ps->status) {
	case RX_EBAD:
		regerror(ps->regcode, NULL, errbuf, errlen);
		break;
	case RX_EBACKREF:
		snprintf(errbuf, errlen, "back-references (\\1 to \\9) are not supported: they "
			 "cannot be matched in time linear in the line's length");
		break;
	case RX_EBIG:
		snprintf(errbuf, errlen, "too large: more than %d instructions once its intervals "
			 "are written out; use smaller counts in {m,n}", RX_PROG_MAX);
		break;
	case RX_EDEEP:
		snprintf(errbuf, errlen, "groups nested more than %d deep", RX_DEPTH_MAX);
		break;
	default:
		errbuf[0] = '\0';
		break;
	}
}

enum rx_status rx_compile(const char *pattern, int flags, struct rx **out, int *regcode,
			  char *errbuf, size_t errlen)
{
	struct rx_parser ps;
	int root;
	*out = NULL;
	if (rx_parse(&ps, pattern, flags, &root) != RX_OK) {
		if (regcode)
			*regcode = ps.regcode;
		rx_message(&ps, errbuf, errlen);
		enum rx_status st = ps.status;
		rx_parser_free(&ps);
		return st;
	}
	struct rx *rx = xmalloc(sizeof(*rx));
	memset(rx, 0, sizeof(*rx));
	rx->flags = flags;
	rx->copied_assert = ps.copied_assert;
	rx->cap = (root >= 0 ? ps.nodes[root].size : 0) + 1;
	rx->prog = xmalloc(rx->cap * sizeof(*rx->prog));
	if (root >= 0)
		rx_emit(rx, &ps, root);
	rx_inst(rx, RX_I_MATCH, 0, 0);
	for (size_t i = 0; i < ps.nnodes; i++)
		if (ps.nodes[i].kind == RX_K_ASSERT && rx_mask_words(ps.nodes[i].arg))
			rx->words = true;
	rx->sets = ps.sets;
	rx->nsets = ps.nsets;
	ps.sets = NULL;
	if (ps.icase)
		rx_fold_sets(rx);
	rx_classes(rx);
	if (!(flags & RX_NO_PREFILTER))
		rx_prefilter(rx, &ps, root);
	rx_parser_free(&ps);
	rx->mark = xmalloc(rx->n * sizeof(*rx->mark));
	rx->taken = xmalloc((rx->n + 1) * sizeof(*rx->taken));
	rx->stack = xmalloc(rx->n * sizeof(*rx->stack));
	rx->out = xmalloc(rx->n * sizeof(*rx->out));
	rx->cur = xmalloc(rx->n * sizeof(*rx->cur));
	memset(rx->mark, 0, rx->n * sizeof(*rx->mark));
	memset(rx->taken, 0, (rx->n + 1) * sizeof(*rx->taken));
	rx->anchored = rx_anchored(rx);
	rx->steps = 0;
	*out = rx;
	return RX_OK;
}

void rx_free(struct rx *rx)
{
	if (!rx)
		return;
	rx_cache_flush(rx);
	free(rx->prog);
	free(rx->sets);
	free(rx->mark);
	free(rx->taken);
	free(rx->stack);
	free(rx->out);
	free(rx->cur);
	free(rx);
}

size_t rx_size(const struct rx *rx)
{
	return rx->n;
}

unsigned long long rx_steps(const struct rx *rx)
{
	return rx->steps;
}

bool rx_copied_assert(const struct rx *rx)
{
	return rx->copied_assert;
}
