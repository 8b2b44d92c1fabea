/* present_check.h: what the presenters' tests share: a text presenter's
 * out and err caught in memory, and its text, --json line and text for
 * the model compared whole. Header-only; a test program that includes
 * it frees err_text before it ends. */
#ifndef SANDBOX_TEST_PRESENT_CHECK_H
#define SANDBOX_TEST_PRESENT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "jvb.h"
#include "present.h"
#include "results.h"
#include "tap.h"
#include "util.h"

/* What a text presenter prints on its out, into buf, and on its err,
 * into err_text (replaced each time). */
static char *err_text;
#define TEXT_OF(fn, res, buf)                                  \
	do {                                                   \
		size_t len_, elen_;                            \
		free(err_text);                                \
		FILE *f_ = open_memstream(&(buf), &len_);      \
		FILE *e_ = open_memstream(&err_text, &elen_);  \
		fn(f_, e_, res);                               \
		fclose(f_);                                    \
		fclose(e_);                                    \
	} while (0)

static inline void check_text(char *got, const char *exp, const char *title)
{
	is_str(got, exp, "%s", title);
	free(got);
}

/* The --json line a tree presenter gives. */
static inline void check_tree(struct jv *t, const char *exp, const char *title)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	present_json(f, t);
	fclose(f);
	is_str(buf, exp, "%s", title);
	free(buf);
	jvb_free(t);
}

static inline void check_model(struct sbuf *s, const char *exp, const char *title)
{
	is_str(s->buf ? s->buf : "", exp, "%s", title);
	sbuf_free(s);
}

#endif
