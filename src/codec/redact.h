/* redact.h: keeping secrets out of output. A set holds each secret's
 * forms (the value, its base64 at each of the three alignments it can
 * take inside a longer encoding, and its URL-encoded form); text that
 * holds one has it replaced by "[secret NAME]". Whole buffers (a JSON
 * string, a record) go through redact_buf; a stream (a command's live
 * output) through a redact_stream, which holds back only the bytes at
 * the end that may be the start of a form, so a secret split across
 * reads is still found, and output that is no such start is passed on
 * at once. Time is linear in the text for a given set; what is held
 * back is under the longest form. Pure: no I/O. */
#ifndef SANDBOX_REDACT_H
#define SANDBOX_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* The shortest secret a set takes: a shorter one would be found in
 * ordinary text, and hiding it there tells as much as showing it. */
#define REDACT_MIN_LEN 8
/* The longest: a secret is a token or a key, not a file to ship. */
#define REDACT_MAX_LEN 16384
/* At the edges of a whole buffer (redact_buf with edges), a piece of a
 * form at least this long is taken for a cut secret and replaced too. */
#define REDACT_EDGE_MIN 4

struct redact_form {
	char *bytes;
	size_t len;
	size_t name;  /* index into the set's names */
	size_t *fail; /* its KMP table */
	char *rev;    /* its bytes reversed, and their table */
	size_t *rfail;
};

struct redact_set {
	struct redact_form *forms;
	size_t nforms;
	struct strvec names;
	char **marks;  /* "[secret NAME]", one a name */
	size_t maxlen; /* the longest form */
};

void redact_set_free(struct redact_set *s);
/* Adds a secret's forms under name; false (nothing added) when value is
 * shorter than REDACT_MIN_LEN or longer than REDACT_MAX_LEN. */
bool redact_add(struct redact_set *s, const char *name, const char *value, size_t n);
bool redact_empty(const struct redact_set *s);

/* The forms of value at base64 alignment k (0, 1, 2): the characters
 * of value's bytes that do not depend on its neighbours, appended to
 * out; used by redact_add and the tests. */
void redact_base64_form(struct sbuf *out, const unsigned char *value, size_t n, int k);
/* Its URL-encoding (RFC 3986: all but unreserved bytes as %XX). */
void redact_url_form(struct sbuf *out, const unsigned char *value, size_t n);

/* Whether in[0, n) holds a form anywhere. */
bool redact_found(const struct redact_set *s, const char *in, size_t n);
/* in[0, n) with every form replaced, appended to out. With edges, also a
 * piece of at least REDACT_EDGE_MIN bytes of a form's end at its start,
 * and of a form's start at its end (a secret cut by a bound or a
 * chunk's edge). */
void redact_buf(const struct redact_set *s, const char *in, size_t n, bool edges,
		struct sbuf *out);

struct redact_stream {
	const struct redact_set *set;
	struct sbuf held;
};
/* Takes n more bytes; what can be passed on is appended to out. */
void redact_stream_feed(struct redact_stream *st, const char *in, size_t n, struct sbuf *out);
/* At the end: what was held back, which was no whole form: as it is,
 * or replaced when it is a piece of at least REDACT_EDGE_MIN bytes (a
 * secret cut short by the stream's end). */
void redact_stream_end(struct redact_stream *st, struct sbuf *out);

#endif
