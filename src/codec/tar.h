/* tar.h: a streaming reader of tar archives, as GNU tar and BusyBox tar
 * write them with `tar -cf - FILES...`: ustar headers (with the prefix
 * field), GNU long names and link targets ('L', 'K'), pax extended
 * headers ('x': path, linkpath, size, mtime), base-256 numbers. Bytes go in as they arrive, in chunks of any
 * size; entries come out through callbacks. No I/O, no allocation: the
 * reader holds at most one header and one long name or pax header. */
#ifndef SANDBOX_TAR_H
#define SANDBOX_TAR_H

#include <stdbool.h>
#include <stddef.h>

/* The largest GNU long name or pax header accepted; above it is an error,
 * so the reader's memory stays bounded whatever the archive says. */
#define TAR_META_MAX 65536

/* What the reader reports, in order: entry, data (zero or more times),
 * end, for each entry. A callback returns 0 to go on or -1 to stop:
 * then tar_feed() returns -1. A NULL callback is skipped. */
struct tar_sink {
	void *ctx;
	/* name: the whole path (long name, pax path or ustar prefix joined);
	 * borrowed until the callback returns. type: the typeflag byte,
	 * '0' or '\0' a regular file, '5' a directory, '2' a symlink, ...
	 * size: the bytes of content that data will deliver (0 for links,
	 * directories, devices and FIFOs). */
	int (*entry)(void *ctx, const char *name, char type, unsigned long long size);
	int (*data)(void *ctx, const char *buf, size_t n);
	int (*end)(void *ctx);
};

enum tar_state { TAR_HEADER, TAR_PAYLOAD, TAR_PAD, TAR_FAILED };
enum tar_payload { TAR_TO_SINK, TAR_TO_LONGNAME, TAR_TO_LONGLINK, TAR_TO_PAX, TAR_TO_NOWHERE };

/* Opaque in spirit: only tar.c looks inside, but mode, mtime and link.
 * Large (about 200 KiB) for its three fixed buffers; nothing to free. */
struct tar_reader {
	struct tar_sink sink;
	enum tar_state state;
	enum tar_payload payload;
	unsigned char block[512];      /* the header being read */
	size_t fill;                   /* bytes of block read so far */
	unsigned long long entry_size; /* bytes of the current payload */
	unsigned long long remaining;  /* of them, still to come */
	size_t pad;                    /* zero bytes after the payload */
	size_t meta_len;               /* bytes of meta read so far */
	unsigned long long offset;     /* bytes of the archive consumed */
	int zero_blocks;               /* consecutive all-zero headers */
	bool have_longname, have_paxpath, have_paxsize;
	bool have_longlink, have_paxlink, have_paxmtime;
	unsigned long long pax_size;
	long long pax_mtime;
	/* The current entry's other fields, for a sink that needs them (cp):
	 * valid from its entry callback to its end. mode: the permission
	 * bits and the set-id and sticky bits (07777); mtime: seconds since
	 * the epoch (0 when the field is unreadable); link: a symlink's
	 * target or a hard link's name (ustar field, GNU 'K', pax linkpath),
	 * "" for other types. */
	unsigned mode;
	long long mtime;
	char link[TAR_META_MAX + 1];
	char name[TAR_META_MAX + 1]; /* the next or current entry's name */
	char meta[TAR_META_MAX];     /* a long name or pax header being read */
};

void tar_init(struct tar_reader *r, const struct tar_sink *sink);
/* Reads n more bytes of the archive; -1 with a message on a bad archive
 * or when a callback stopped it, and every later call fails too. */
int tar_feed(struct tar_reader *r, const char *buf, size_t n, char *errbuf, size_t errlen);
/* At the end of input: 0 if the archive ended cleanly (its end-of-archive
 * zero blocks, or a block boundary after a whole entry), -1 with a
 * message if it was cut short. */
int tar_finish(struct tar_reader *r, char *errbuf, size_t errlen);

#endif
