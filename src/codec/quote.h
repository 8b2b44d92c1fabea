/* quote.h: the one shell-quoting function, for display only (-v).
 * Nothing this project runs is ever built from quoted text. */
#ifndef SANDBOX_QUOTE_H
#define SANDBOX_QUOTE_H

#include "util.h"

/* Appends s so that a POSIX shell reads it back as one word, unchanged.
 * Words made only of safe characters are left bare. */
void sq_quote(struct sbuf *out, const char *s);
/* Appends argv as a line a user can paste into a shell. */
void sq_quote_argv(struct sbuf *out, char *const *argv);

#endif
