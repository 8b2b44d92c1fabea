/* capture.c: see capture.h. */
#include "capture.h"

#include <stdlib.h>
#include <string.h>

void capture_init(struct capture *c, size_t max)
{
	memset(c, 0, sizeof(*c));
	c->max = max;
	c->tailcap = max - max / 2;
	/* The tail ring is allocated when output first outgrows the head,
	 * so memory follows the output, not the bound. */
	c->tail = NULL;
}

void capture_add(struct capture *c, const char *buf, size_t n)
{
	c->total += n;
	size_t headroom = c->max / 2 - c->head.len;
	size_t take = n < headroom ? n : headroom;
	sbuf_add(&c->head, buf, take);
	buf += take;
	n -= take;
	if (c->tailcap == 0 || n == 0)
		return;
	if (!c->tail)
		c->tail = xmalloc(c->tailcap);
	if (n > c->tailcap) {
		buf += n - c->tailcap;
		n = c->tailcap;
	}
	c->taillen = c->taillen + n > c->tailcap ? c->tailcap : c->taillen + n;
	while (n) {
		size_t run = c->tailcap - c->tailpos < n ? c->tailcap - c->tailpos : n;
		memcpy(c->tail + c->tailpos, buf, run);
		c->tailpos = (c->tailpos + run) % c->tailcap;
		buf += run;
		n -= run;
	}
}

bool capture_get(const struct capture *c, struct sbuf *out)
{
	sbuf_add(out, c->head.buf ? c->head.buf : "", c->head.len);
	size_t first = (c->tailpos + c->tailcap - c->taillen) % (c->tailcap ? c->tailcap : 1);
	for (size_t i = 0; i < c->taillen; i++)
		sbuf_addc(out, c->tail[(first + i) % c->tailcap]);
	return c->total > c->head.len + c->taillen;
}

void capture_free(struct capture *c)
{
	sbuf_free(&c->head);
	free(c->tail);
	c->tail = NULL;
}
