/* jsonr.h: a strict JSON reader (RFC 8259) into a tree of values, for
 * messages that come from another program (JSON-RPC over stdio). The
 * writer is json.h; this module only reads.
 *
 * What is accepted is exactly RFC 8259 and nothing more: one value with
 * optional whitespace (space, tab, LF, CR) around it; no comments, no
 * trailing commas, no single quotes, no NaN or Infinity, no byte order
 * mark, no leading zeros, no "+1", ".5" or "1."; a string holds no raw
 * byte below 0x20, only the escapes \" \\ \/ \b \f \n \r \t \uXXXX, and
 * well-formed UTF-8 (no overlongs, no encoded surrogates, nothing above
 * U+10FFFF); a \u escape of a surrogate must be a high one followed at
 * once by a low one, and the pair becomes one UTF-8 sequence. A number
 * too large for a double (1e400) is refused rather than read as infinity.
 *
 * Duplicate keys: RFC 8259 says the names in an object SHOULD be unique
 * and leaves duplicates to the implementation; readers differ (first
 * wins, last wins, error). We refuse an object with two equal keys
 * (compared byte for byte after unescaping, so "a" and "\u0061" are
 * equal), so that no two readers of one message can see different
 * values in it. */
#ifndef SANDBOX_JSONR_H
#define SANDBOX_JSONR_H

#include <stdbool.h>
#include <stddef.h>

enum jv_type {
	JV_NULL,
	JV_BOOL,
	JV_NUMBER,
	JV_STRING,
	JV_ARRAY,
	JV_OBJECT,
};

struct jv_member;

/* A value. All memory belongs to the tree that jv_parse returned, and
 * lives until jv_free of that tree; read the fields directly or through
 * the accessors below, which also accept NULL. */
struct jv {
	enum jv_type type;
	union {
		bool b; /* JV_BOOL */
		struct {
			/* The bytes after unescaping, followed by a NUL that is
			 * not counted in len. \u0000 puts a NUL inside. */
			const char *s;
			size_t len;
		} str; /* JV_STRING */
		struct {
			const char *text; /* as written, NUL-terminated */
			size_t text_len;
			double d; /* nearest double; never infinite */
			/* The value is an integer in the range of long long,
			 * exactly, however written: 42, -0, 4.2e1, 420e-1 all
			 * are; 1.5, 1e-400 and 9223372036854775808 are not. */
			bool is_int;
			long long i; /* when is_int */
		} num; /* JV_NUMBER */
		struct {
			struct jv *items;
			size_t count;
		} arr; /* JV_ARRAY */
		struct {
			struct jv_member *members; /* in document order */
			size_t count;
		} obj; /* JV_OBJECT */
	};
};

struct jv_member {
	const char *key; /* unescaped, NUL-terminated after key_len bytes */
	size_t key_len;
	struct jv value;
};

/* Limits on what jv_parse accepts; a field left 0 takes its default.
 * Past a limit the parse fails with a message that names the limit.
 * Memory: a value takes 48 bytes in the tree (plus its text), and 72 more
 * while its container is open; at the peak, an input made of one-digit
 * numbers takes about 60 times its size. Lower max_size where that is
 * too much. */
struct jv_limits {
	size_t max_depth;   /* arrays and objects nested; default 64 */
	size_t max_size;    /* bytes of input; default 16 MiB */
	size_t max_string;  /* bytes of one string or key, unescaped; default max_size */
	size_t max_members; /* elements of one array, members of one object; default 1 Mi */
};

#define JV_DEFAULT_MAX_DEPTH 64
#define JV_DEFAULT_MAX_SIZE ((size_t)16 << 20)
#define JV_DEFAULT_MAX_MEMBERS ((size_t)1 << 20)

/* Reads the len bytes at text (no NUL needed) as one JSON value. lim may
 * be NULL for the defaults. Returns the tree, to be freed with jv_free,
 * or NULL with a one-line message in errbuf (when errlen > 0), such as
 * "at byte 17: expected ':' after an object key"; byte offsets count
 * from 0. Exits only on out-of-memory, like xmalloc. */
struct jv *jv_parse(const char *text, size_t len, const struct jv_limits *lim,
		    char *errbuf, size_t errlen);

/* Frees the whole tree. Takes only a pointer jv_parse returned (or
 * NULL), never a value inside the tree. */
void jv_free(struct jv *root);

/* Type checks; false for NULL. */
bool jv_is(const struct jv *v, enum jv_type type);
const char *jv_type_name(enum jv_type type);

/* The member value of key in an object; NULL when v is not an object or
 * has no such key. jv_getn finds keys holding a NUL too. */
const struct jv *jv_get(const struct jv *v, const char *key);
const struct jv *jv_getn(const struct jv *v, const char *key, size_t key_len);

/* Elements of an array or members of an object: their count (0 for any
 * other value) and the element at index i of an array (NULL when out of
 * range or not an array). */
size_t jv_count(const struct jv *v);
const struct jv *jv_at(const struct jv *v, size_t i);

/* The bytes of a string, NUL-terminated; NULL when v is not a string, or
 * when the string holds a NUL (from \u0000), so that a caller cannot cut
 * it short without noticing: use jv_strn for those. */
const char *jv_str(const struct jv *v);
/* The bytes of any string, and their count in *len (if len is not NULL);
 * NULL when v is not a string. */
const char *jv_strn(const struct jv *v, size_t *len);

/* True, with the value in *out, when v is a number that is exactly an
 * integer in range (see is_int). */
bool jv_int(const struct jv *v, long long *out);
/* True, with the value in *out, when v is any number. */
bool jv_double(const struct jv *v, double *out);
/* True, with the value in *out, when v is true or false. */
bool jv_bool(const struct jv *v, bool *out);

#endif
