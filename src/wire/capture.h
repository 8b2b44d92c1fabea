/* capture.h: an exec sink's memory for output it cannot pass on as it
 * comes (--json, MCP): the first max/2 bytes of a stream and a ring of
 * the last max - max/2, and how many there were in all. Memory follows
 * the output, not the bound. */
#ifndef SANDBOX_CAPTURE_H
#define SANDBOX_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct capture {
	struct sbuf head;
	char *tail; /* ring of tailcap bytes */
	size_t tailcap, tailpos, taillen;
	size_t max;
	unsigned long long total;
};
void capture_init(struct capture *c, size_t max);
void capture_add(struct capture *c, const char *buf, size_t n);
/* The kept bytes, head then tail, into out; true if some were cut. */
bool capture_get(const struct capture *c, struct sbuf *out);
void capture_free(struct capture *c);

#endif
