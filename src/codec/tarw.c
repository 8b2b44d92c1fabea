/* tarw.c: see tarw.h. */
#include "tarw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char zeros[2 * TARW_BLOCK];

void tarw_init(struct tarw *w, int (*out)(void *ctx, const char *buf, size_t n), void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->ctx = ctx;
}

static int emit(struct tarw *w, const void *buf, size_t n)
{
	if (w->failed)
		return -1;
	if (n && w->out(w->ctx, buf, n) < 0) {
		w->failed = true;
		return -1;
	}
	return 0;
}

/* An octal field of len bytes (len - 1 digits and a NUL); a value too
 * large for them goes in base-256 (top bit set, big-endian). */
static void put_number(unsigned char *f, size_t len, unsigned long long v)
{
	unsigned long long max = 1ULL << (3 * (len - 1));
	if (v < max) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%0*llo", (int)(len - 1), v);
		memcpy(f, buf, len - 1);
		f[len - 1] = '\0';
		return;
	}
	memset(f, 0, len);
	for (size_t i = len; i-- > 1 && v; v >>= 8)
		f[i] = (unsigned char)(v & 0xff);
	f[0] = 0x80;
}

void tarw_header(unsigned char h[TARW_BLOCK], const char *name, char type, unsigned mode,
		 long long mtime, unsigned long long size, const char *link)
{
	memset(h, 0, TARW_BLOCK);
	size_t n = strlen(name);
	memcpy(h, name, n < 100 ? n : 100);
	put_number(h + 100, 8, mode & 07777);
	put_number(h + 108, 8, 0);
	put_number(h + 116, 8, 0);
	put_number(h + 124, 12, size);
	put_number(h + 136, 12, mtime > 0 ? (unsigned long long)mtime : 0);
	h[156] = (unsigned char)type;
	if (link) {
		n = strlen(link);
		memcpy(h + 157, link, n < 100 ? n : 100);
	}
	/* GNU's own magic: its readers take 'L' and 'K' with it, and no
	 * reader joins a prefix field it does not have. */
	memcpy(h + 257, "ustar  ", 8);
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (size_t i = 0; i < TARW_BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

/* A GNU long name ('L') or link target ('K'): a header, then the
 * string with its NUL, padded. */
static int long_field(struct tarw *w, char type, const char *s)
{
	unsigned char h[TARW_BLOCK];
	size_t n = strlen(s) + 1;
	tarw_header(h, "././@LongLink", type, 0644, 0, n, NULL);
	if (emit(w, h, sizeof(h)) < 0 || emit(w, s, n) < 0)
		return -1;
	return emit(w, zeros, (TARW_BLOCK - n % TARW_BLOCK) % TARW_BLOCK);
}

int tarw_entry(struct tarw *w, const char *name, char type, unsigned mode, long long mtime,
	       unsigned long long size, const char *link)
{
	if (w->left || w->failed)
		return -1;
	char dirname[TARW_BLOCK];
	const char *nm = name;
	size_t n = strlen(name);
	/* The directory's '/': GNU tar and BusyBox tar write one. A long
	 * name has it added in its own copy. */
	char *own = NULL;
	if (type == '5' && (n == 0 || name[n - 1] != '/')) {
		if (n + 2 <= sizeof(dirname)) {
			memcpy(dirname, name, n);
			memcpy(dirname + n, "/", 2);
			nm = dirname;
		} else {
			own = xmalloc(n + 2);
			memcpy(own, name, n);
			memcpy(own + n, "/", 2);
			nm = own;
		}
		n++;
	}
	if (type != '0')
		size = 0;
	int rc = 0;
	if (n > 100)
		rc = long_field(w, 'L', nm);
	if (rc == 0 && link && strlen(link) > 100)
		rc = long_field(w, 'K', link);
	unsigned char h[TARW_BLOCK];
	if (rc == 0) {
		tarw_header(h, nm, type, mode, mtime, size, link);
		rc = emit(w, h, sizeof(h));
	}
	free(own);
	if (rc < 0)
		return -1;
	w->left = size;
	w->pad = (size_t)((TARW_BLOCK - size % TARW_BLOCK) % TARW_BLOCK);
	return 0;
}

int tarw_data(struct tarw *w, const char *buf, size_t n)
{
	if (n > w->left || emit(w, buf, n) < 0)
		return -1;
	w->left -= n;
	if (w->left == 0 && w->pad) {
		size_t pad = w->pad;
		w->pad = 0;
		return emit(w, zeros, pad);
	}
	return 0;
}

int tarw_finish(struct tarw *w)
{
	if (w->left)
		return -1;
	return emit(w, zeros, sizeof(zeros));
}
