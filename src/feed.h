/* feed.h: what `write` streams into a command's stdin, framed: "N\n" then
 * N bytes, as many frames as needed, and "0\n" at the end. The script
 * inside can so tell a complete stream from one cut short, and never
 * renames a truncated file over the old one. A regular file or a buffer
 * goes as one frame of its known size, read and sent in pieces; a pipe in
 * frames of up to FEED_CHUNK. Memory stays bounded by FEED_CHUNK. The
 * payload's length, and its SHA-256 when asked, are counted on the way. */
#ifndef SANDBOX_FEED_H
#define SANDBOX_FEED_H

#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"
#include "util.h"

#define FEED_CHUNK (4 * 1024 * 1024)

struct feed {
	int src_fd;            /* the source, or -1 for buf */
	bool src_sized;        /* buf, or a regular file: one frame */
	unsigned long long src_size; /* the bytes of that frame */
	unsigned long long src_left; /* of them, still to read */
	bool src_eof;
	int src_errno;         /* the source failed, or shrank: no end frame */
	const char *buf;       /* a buffer source */
	size_t buflen;
	char *stage;           /* bytes read from src_fd */
	size_t nstage;
	char head[32];         /* a frame header being written */
	size_t headlen, headoff;
	const char *pay;       /* payload being written */
	size_t paylen, payoff;
	bool started, ended;
	bool raw;              /* no frames */
	unsigned long long sent;
	bool hashing;          /* keep hash; it costs a core's time per byte */
	struct sha256 hash;
};

void feed_init_fd(struct feed *f, int fd);
void feed_init_buf(struct feed *f, const char *buf, size_t len);
/* The bytes of fd as they are, no frames, until its end (or, for a
 * regular file, its size when this was called): exec's stdin. */
void feed_init_raw(struct feed *f, int fd);
/* The bytes of buf as they are, no frames. */
void feed_init_buf_raw(struct feed *f, const char *buf, size_t len);
void feed_free(struct feed *f);
/* A buffer source starts again from its first byte, to be sent anew. */
void feed_rewind(struct feed *f);

/* True when the feed needs the source fd to be readable to go on. */
bool feed_wants_src(const struct feed *f);
/* Reads once from the source fd; false on a read error. */
bool feed_read_src(struct feed *f);
/* Prepares what is ready; true when there are bytes to write. */
bool feed_ready(struct feed *f);
/* Writes what it can to fd (non-blocking); false when fd is closed. */
bool feed_write(struct feed *f, int fd);
/* Everything, the end frame too, is written. */
bool feed_done(const struct feed *f);

#endif
