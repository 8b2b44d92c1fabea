/* present.h: what the presenters share (present_common.c). Each family
 * of commands keeps its presenters beside it, in its present_NAME.c:
 * its results (results.h) as the CLI's text, the --json tree and the
 * text for an MCP client's model. They only render: what a command
 * found is decided before them. */
#ifndef SANDBOX_PRESENT_H
#define SANDBOX_PRESENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jsonr.h"
#include "jvb.h"
#include "util.h"

/* Prints a --json object: t whole, and a newline. */
void present_json(FILE *f, const struct jv *t);

/* An age for a column: "59s", "15m", "3h", "2d" (0 if negative). */
void present_age(char *buf, size_t cap, long long seconds);

/* Ends out with a newline unless it is empty or ends with one. */
void present_end_line(struct sbuf *out);

/* A member of a tree's object obj (jvb_obj): the tree borrows s. */
static inline void put_str(struct jv *obj, const char *key, const char *s)
{
	jvb_str(jvb_put(obj, key), s);
}

static inline void put_int(struct jv *obj, const char *key, long long i)
{
	jvb_int(jvb_put(obj, key), i);
}

static inline void put_bool(struct jv *obj, const char *key, bool b)
{
	jvb_bool(jvb_put(obj, key), b);
}

/* An object that starts with the workspace acted on. */
static inline void tree_begin(struct jv *t, const char *workspace)
{
	jvb_obj(t);
	put_str(t, "workspace", workspace);
}

#endif
