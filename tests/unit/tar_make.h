/* tar_make.h: ustar archives made by hand in an sbuf, for the tests of
 * what reads them (grep.h) and for the fuzz targets. Header-only. */
#ifndef SANDBOX_TAR_MAKE_H
#define SANDBOX_TAR_MAKE_H

#include <stdio.h>
#include <string.h>

#include "util.h"

/* The checksum of the 512-byte header h, written into it. */
static inline void tar_make_sum(unsigned char *h)
{
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

/* A header: name (cut at 100 bytes), typeflag, size in octal. */
static inline void tar_make_header(struct sbuf *a, const char *name, char type, unsigned long long size)
{
	unsigned char h[512];
	char oct[32];
	memset(h, 0, sizeof(h));
	memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	snprintf(oct, sizeof(oct), "%011llo", size & 077777777777ULL);
	memcpy(h + 124, oct, 11);
	memcpy(h + 136, "00000000000", 11);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar\0" "00", 8);
	tar_make_sum(h);
	sbuf_add(a, h, sizeof(h));
}

/* Sets the permission bits of the header at offset at of a (one
 * tar_make_header wrote), and its checksum anew. */
static inline void tar_make_mode(struct sbuf *a, size_t at, unsigned mode)
{
	unsigned char *h = (unsigned char *)a->buf + at;
	char oct[16];
	snprintf(oct, sizeof(oct), "%07o", mode & 07777);
	memcpy(h + 100, oct, 7);
	tar_make_sum(h);
}

/* n bytes of content and the padding to a block. */
static inline void tar_make_payload(struct sbuf *a, const char *data, size_t n)
{
	sbuf_add(a, data, n);
	while (a->len % 512)
		sbuf_addc(a, '\0');
}

/* A pax header giving the next entry's path: for names of any length. */
static inline void tar_make_pax_path(struct sbuf *a, const char *path)
{
	struct sbuf rec = {0};
	size_t n = strlen(path) + 7, len = n; /* " path=", "\n" */
	while (len != n + (size_t)snprintf(NULL, 0, "%zu", len))
		len = n + (size_t)snprintf(NULL, 0, "%zu", len);
	sbuf_addf(&rec, "%zu path=%s\n", len, path);
	tar_make_header(a, "PaxHeaders/x", 'x', rec.len);
	tar_make_payload(a, rec.buf, rec.len);
	sbuf_free(&rec);
}

/* A regular file, as `tar -c` would write it. */
static inline void tar_make_file(struct sbuf *a, const char *name, const char *data, size_t n)
{
	if (strlen(name) > 100)
		tar_make_pax_path(a, name);
	tar_make_header(a, name, '0', n);
	tar_make_payload(a, data, n);
}

static inline void tar_make_end(struct sbuf *a)
{
	static const char zero[1024];
	sbuf_add(a, zero, sizeof(zero));
}

#endif
