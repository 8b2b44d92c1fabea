/* marker.h: finds the exec wrapper's markers ("\036TAG:WORD\036") in a
 * stream of arbitrary bytes, passing every other byte through unchanged,
 * whatever the chunking. Pure: unit-tested on every split. */
#ifndef SANDBOX_MARKER_H
#define SANDBOX_MARKER_H

#include <stddef.h>

#define MARKER_TAG_LEN 16
#define MARKER_WORD_MAX 24

struct marker_scan {
	char prefix[MARKER_TAG_LEN + 3]; /* "\036" TAG ":" and a NUL */
	size_t plen;
	char pend[MARKER_TAG_LEN + 3 + MARKER_WORD_MAX];
	size_t npend; /* bytes of a possible marker held back */
};

/* Called with data to pass through, and with each marker's WORD. */
struct marker_sink {
	void (*data)(void *ctx, const char *buf, size_t n);
	void (*marker)(void *ctx, const char *word);
	void *ctx;
};

void marker_init(struct marker_scan *m, const char *tag);
void marker_feed(struct marker_scan *m, const char *buf, size_t n,
		 const struct marker_sink *sink);
/* At end of stream: whatever was held back is data after all. */
void marker_flush(struct marker_scan *m, const struct marker_sink *sink);

#endif
