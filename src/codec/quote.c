/* quote.c: see quote.h. */
#include "quote.h"

#include <string.h>

static bool is_safe(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-+=./:,@%^", *s))
			return false;
	return true;
}

void sq_quote(struct sbuf *out, const char *s)
{
	if (is_safe(s)) {
		sbuf_adds(out, s);
		return;
	}
	/* Inside single quotes only ' is special: close, escape it, reopen.
	 * Control bytes are kept as they are: quoted, the shell gives them
	 * back literally. */
	sbuf_addc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_adds(out, "'\\''");
		else
			sbuf_addc(out, *s);
	}
	sbuf_addc(out, '\'');
}

void sq_quote_argv(struct sbuf *out, char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sbuf_addc(out, ' ');
		sq_quote(out, argv[i]);
	}
}
