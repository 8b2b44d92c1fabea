/* tool_text.h: what the file tools (tools.h) and the readers of their
 * answers (grep.h, extract.h, hostdir.h) share that is pure: a path
 * shown safely in a line of output, a path joined to its base, and what
 * counts as binary. No I/O. */
#ifndef SANDBOX_TOOL_TEXT_H
#define SANDBOX_TOOL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Appends path for a line of text output: as it is, or, when it holds a
 * control byte, a '"' first (or a ':' where colon_special), in double
 * quotes with C escapes, so that no name can forge another line or field. */
void tool_show_path(struct sbuf *out, const char *path, bool colon_special);

/* Joins a base directory (as the user gave it; "." for none) and a
 * relative name. Caller frees. */
char *tool_join(const char *base, const char *rel);

/* What counts as binary, for read, edit and grep alike: a NUL byte in
 * the first TOOL_PROBE bytes. */
#define TOOL_PROBE 8192
bool tool_is_binary(const char *buf, size_t len);

#endif
