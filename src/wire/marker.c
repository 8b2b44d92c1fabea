/* marker.c: see marker.h. The prefix starts with \036, which occurs
 * nowhere else in it, so a mismatch never hides the start of a marker
 * inside the held bytes: no backtracking is needed beyond re-reading the
 * byte that broke the match. */
#include "marker.h"

#include <string.h>

void marker_init(struct marker_scan *m, const char *tag)
{
	memset(m, 0, sizeof(*m));
	m->prefix[0] = '\036';
	memcpy(m->prefix + 1, tag, MARKER_TAG_LEN);
	m->prefix[MARKER_TAG_LEN + 1] = ':';
	m->plen = MARKER_TAG_LEN + 2;
}

void marker_flush(struct marker_scan *m, const struct marker_sink *sink)
{
	if (m->npend)
		sink->data(sink->ctx, m->pend, m->npend);
	m->npend = 0;
}

static int word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ':';
}

void marker_feed(struct marker_scan *m, const char *buf, size_t n,
		 const struct marker_sink *sink)
{
	size_t i = 0;
	while (i < n) {
		if (m->npend == 0) {
			/* Fast path: pass everything up to the next \036. */
			const char *hit = memchr(buf + i, '\036', n - i);
			size_t run = hit ? (size_t)(hit - (buf + i)) : n - i;
			if (run)
				sink->data(sink->ctx, buf + i, run);
			i += run;
			if (!hit)
				break;
			m->pend[m->npend++] = buf[i++];
			continue;
		}
		char c = buf[i];
		if (m->npend < m->plen) {
			if (c == m->prefix[m->npend]) {
				m->pend[m->npend++] = c;
				i++;
				continue;
			}
		} else if (c == '\036') {
			m->pend[m->npend] = '\0';
			m->npend = 0;
			sink->marker(sink->ctx, m->pend + m->plen);
			i++;
			continue;
		} else if (word_char(c) && m->npend - m->plen < MARKER_WORD_MAX - 1) {
			m->pend[m->npend++] = c;
			i++;
			continue;
		}
		/* Not a marker: the held bytes are data; look at c afresh. */
		marker_flush(m, sink);
	}
}
