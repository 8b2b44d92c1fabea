/* slurp.h: a whole file into memory, for tests that hold a file of the
 * tree (a golden file, the man page, a generated script) against a
 * string. */
#ifndef SANDBOX_TEST_SLURP_H
#define SANDBOX_TEST_SLURP_H

#include <stdio.h>

#include "util.h"

/* The bytes of path (NUL-ended, owned), their count in *len; NULL when
 * it cannot be opened. */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct sbuf b = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(&b, buf, n);
	fclose(f);
	*len = b.len;
	return b.buf ? b.buf : xstrdup("");
}

#endif
