/* tarw.h: a small tar writer, for what cp sends into a workspace and
 * writes to stdout: ustar headers, with GNU's long names and link
 * targets ('L', 'K') for longer ones and GNU's base-256 for sizes past
 * 8 GiB, which GNU tar and BusyBox tar both read. Owner root (0:0), no
 * device numbers. Bytes go out through a callback; nothing is kept but
 * the count of the current entry's data still owed. */
#ifndef SANDBOX_TARW_H
#define SANDBOX_TARW_H

#include <stdbool.h>
#include <stddef.h>

#define TARW_BLOCK 512

struct tarw {
	/* Writes all n bytes, or returns -1 (then so does every call after). */
	int (*out)(void *ctx, const char *buf, size_t n);
	void *ctx;
	unsigned long long left; /* data bytes the current entry still needs */
	size_t pad;              /* zero bytes after them */
	bool failed;
};

void tarw_init(struct tarw *w, int (*out)(void *ctx, const char *buf, size_t n), void *ctx);

/* One entry's header (and the long-name headers it needs). type: '0' a
 * file (size bytes of data follow through tarw_data), '5' a directory
 * (name ending in '/' or not: one is added), '2' a symlink to link, '1' a
 * hard link to the entry named link. mode: the low 12 bits kept. An
 * mtime before the epoch is written as 0. */
int tarw_entry(struct tarw *w, const char *name, char type, unsigned mode, long long mtime,
	       unsigned long long size, const char *link);
/* The next n bytes of the current file; more than its size is an error. */
int tarw_data(struct tarw *w, const char *buf, size_t n);
/* The end-of-archive blocks. Fails when a file still owes data. */
int tarw_finish(struct tarw *w);

/* Pure, for the tests: the header block for name (at most 100 bytes
 * are used) and link (the same), size and mtime as they fit. */
void tarw_header(unsigned char h[TARW_BLOCK], const char *name, char type, unsigned mode,
		 long long mtime, unsigned long long size, const char *link);

#endif
