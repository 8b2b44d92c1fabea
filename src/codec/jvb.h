/* jvb.h: a value tree built in memory, to present a result into (the
 * --json object, an MCP result's structuredContent) without writing JSON
 * to read it back. The tree is jsonr.h's struct jv: strings and keys are
 * borrowed (they must outlive the tree), numbers keep their text, arrays
 * and objects grow. json_jv writes a tree whole, or capped to a number
 * of characters as structuredContent is. */
#ifndef SANDBOX_JVB_H
#define SANDBOX_JVB_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "jsonr.h"

/* Each makes *v that value, replacing what it was (v starts zeroed, as
 * JV_NULL, or from jvb_put/jvb_push). */
void jvb_obj(struct jv *v);
void jvb_arr(struct jv *v);
void jvb_str(struct jv *v, const char *s);  /* borrowed */
void jvb_strn(struct jv *v, const char *s, size_t len);
void jvb_int(struct jv *v, long long i);
void jvb_bool(struct jv *v, bool b);

/* A new member key (borrowed) of object obj, or a new element of array
 * arr, as null: the pointer is good until the next one of that parent. */
struct jv *jvb_put(struct jv *obj, const char *key);
struct jv *jvb_push(struct jv *arr);

/* Frees what the builders allocated under v (not v itself, nor any
 * borrowed string). */
void jvb_free(struct jv *v);

/* Writes v into j within room characters (SIZE_MAX: whole, as the json.h
 * calls for the same values would). Capped, each string keeps its first
 * characters and each array the elements that fit whole; the members of
 * an object share its room: the smaller ones kept whole, the larger ones
 * equal parts of the rest. A cut member NAME gets NAME_truncated: true
 * and NAME_bytes (a string's bytes) or NAME_count (an array's elements),
 * unless its object has them already. */
void json_jv(struct json *j, const struct jv *v, size_t room);

#endif
