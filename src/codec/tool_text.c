/* tool_text.c: see tool_text.h. */
#include "tool_text.h"

#include <string.h>

#include "utf8.h"

void tool_show_path(struct sbuf *out, const char *path, bool colon_special)
{
	bool plain = path[0] != '"' && !has_control(path) &&
		     !(colon_special && strchr(path, ':'));
	if (plain) {
		sbuf_adds(out, path);
		return;
	}
	sbuf_addc(out, '"');
	const unsigned char *p = (const unsigned char *)path;
	size_t n = strlen(path);
	for (size_t i = 0; i < n;) {
		size_t len = utf8_control(p + i, n - i);
		switch (p[i]) {
		case '"': sbuf_adds(out, "\\\""); i++; break;
		case '\\': sbuf_adds(out, "\\\\"); i++; break;
		case '\n': sbuf_adds(out, "\\n"); i++; break;
		case '\t': sbuf_adds(out, "\\t"); i++; break;
		case '\r': sbuf_adds(out, "\\r"); i++; break;
		default:
			if (len) {
				for (; len; len--)
					sbuf_addf(out, "\\%03o", p[i++]);
				break;
			}
			len = utf8_len(p + i, n - i);
			len = len ? len : 1;
			sbuf_add(out, p + i, len);
			i += len;
		}
	}
	sbuf_addc(out, '"');
}

bool tool_is_binary(const char *buf, size_t len)
{
	return buf && memchr(buf, '\0', len < TOOL_PROBE ? len : TOOL_PROBE) != NULL;
}

char *tool_join(const char *base, const char *rel)
{
	if (!base || strcmp(base, ".") == 0)
		return xstrdup(rel);
	size_t n = strlen(base);
	return xasprintf("%s%s%s", base, n && base[n - 1] == '/' ? "" : "/", rel);
}
