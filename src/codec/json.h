/* json.h: a small JSON writer into an sbuf. Strings are written from raw
 * bytes; invalid UTF-8 becomes U+FFFD so the output is always valid JSON. */
#ifndef SANDBOX_JSON_H
#define SANDBOX_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "redact.h"
#include "util.h"

/* Tracks whether a comma is due; nesting is up to the caller. */
struct json {
	struct sbuf out;
	bool need_comma;
};

void json_obj_open(struct json *j);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j);
void json_arr_close(struct json *j);
/* Starts a member: writes "key": (with a comma when due). */
void json_key(struct json *j, const char *key);
/* The same for a key of n bytes (it may hold NUL). */
void json_keyn(struct json *j, const char *key, size_t n);
void json_str(struct json *j, const char *s);
void json_strn(struct json *j, const char *s, size_t n);
void json_int(struct json *j, long long v);
/* A finite number; NaN or an infinity as null. */
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* Prints the object and a newline on f. */
void json_print(const struct json *j, FILE *f);

struct err;
/* The error object of --json and of MCP results:
 * {"error": {"kind": K, "message": M}, "workspace": REF} (no "workspace"
 * when ref is NULL). */
void json_err(struct json *j, const struct err *e, const char *ref);

/* Appends bytes as a JSON string literal, quotes included. */
void json_quote(struct sbuf *out, const char *s, size_t n);
/* From now on, every string json_quote writes (and json_quoted_len
 * measures) has set's whole secrets replaced (redact.h); NULL: none. For
 * the process: its secrets. A text cut by a bound is the cutter's to
 * redact with edges, before: a key or a constant is never taken for a
 * piece of a secret. */
void json_redact(const struct redact_set *set);
/* The number of bytes json_quote writes for s[0..n), quotes included:
 * 1 for most, 6 for a control byte or one that is not UTF-8. */
size_t json_quoted_len(const char *s, size_t n);

#endif
