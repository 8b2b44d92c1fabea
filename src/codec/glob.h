/* glob.h: path glob patterns for `sandbox glob` and `sandbox grep --glob`.
 *
 * A path is relative ("src/a/b.c"), its components separated by '/'.
 * Braces expand first: "{a,b/{x,y}}" is three patterns; "{x}" (no comma)
 * is the literal text "{x}"; an unbalanced '{' is an error. Then, per
 * component: '*' is any run of characters and '?' one character, never a
 * '/'; "[...]" is a bracket expression ('!' or '^' negates, "a-z" ranges,
 * "[:alpha:]" classes; a '[' without its ']' in the same component is a
 * literal '['); '\' makes the next character literal. A component that is
 * exactly "**" matches zero or more whole components, except at the end of
 * the pattern, where it matches one or more: "a" then "**" is
 * everything under a, not a itself. "**" among other characters is a '*'.
 *
 * Characters are UTF-8: '?' matches one whole character; a byte that is
 * not valid UTF-8 is a character of its own. Names starting with '.' are
 * matched like any other: '*' matches ".hidden". Matching takes time
 * polynomial in the sizes, never exponential, whatever the pattern. */
#ifndef SANDBOX_GLOB_H
#define SANDBOX_GLOB_H

#include <stdbool.h>
#include <stddef.h>

struct glob_pat;

/* Compiles pattern; NULL with a message in errbuf on error (empty pattern,
 * unbalanced '{', a lone '\' at the end, braces nested more than 64
 * deep, more than 1024 expansions or more than 4 MiB of them). Free the
 * result with glob_free(). */
struct glob_pat *glob_compile(const char *pattern, char *errbuf, size_t errlen);

/* True if the whole of path matches. */
bool glob_match(const struct glob_pat *pat, const char *path);

/* As glob_match, but a pattern without '/' is matched against the last
 * component of path, as `grep --glob '*.c'` wants. Decided per brace
 * expansion: in "{*.c,lib/x.h}", "*.c" looks at the basename only. */
bool glob_match_name(const struct glob_pat *pat, const char *path);

void glob_free(struct glob_pat *pat);

#endif
