/* feed.h: what `write` streams into a command's stdin, framed: "N\n" then
 * N bytes, as many frames as needed, and "0\n" at the end. The script
 * inside can so tell a complete stream from one cut short, and never
 * renames a truncated file over the old one. A regular file or a buffer
 * goes as one frame of its known size, read and sent in pieces; a pipe in
 * frames of up to FEED_CHUNK. Two buffers of FEED_CHUNK, allocated when
 * first used (a spliced feed needs none): the source is
 * read into one while the other is written, so that neither side of the
 * copy waits for the other (a pipe's 100 MiB: 0.68 of the plain pipe's
 * throughput with one buffer). Memory stays bounded by them. The
 * payload's length, and its SHA-256 when asked, are counted on the way. */
#ifndef SANDBOX_FEED_H
#define SANDBOX_FEED_H

#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"
#include "util.h"

#define FEED_CHUNK (4 * 1024 * 1024)

/* A tail feed (feed_init_tail) ends with TAG and the count of the bytes
 * before it, in 20 digits: FEED_TAIL_LEN bytes. */
#define FEED_TAG_LEN 16
#define FEED_TAIL_LEN (FEED_TAG_LEN + 20)

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
	char *spare;           /* the other buffer: the payload being written */
	char head[48];         /* a frame header, or a tail's end, being written */
	size_t headlen, headoff;
	const char *pay;       /* payload being written */
	size_t paylen, payoff;
	bool started, ended;
	bool raw;              /* no frames */
	bool tail;             /* no frames, an end of FEED_TAIL_LEN bytes */
	char tag[FEED_TAG_LEN + 1];
	bool src_fifo;         /* the source is a pipe */
	bool splice;           /* moved by splice(2), pipe to pipe, never copied */
	bool src_ready;        /* splice: the source said it is readable */
	unsigned long long sent;
	bool hashing;          /* keep hash; it costs a core's time per byte */
	struct sha256 hash;
};

void feed_init_fd(struct feed *f, int fd);
void feed_init_buf(struct feed *f, const char *buf, size_t len);
/* The bytes of fd as they are, no frames, until its end (or, for a
 * regular file, its size when this was called): exec's stdin. A pipe or
 * a regular file goes by splice(2), never through this process. */
void feed_init_raw(struct feed *f, int fd);
/* The bytes of fd as they are until its end, then TAG (FEED_TAG_LEN
 * characters) and their count as %020llu: write's stream from a pipe,
 * whose size is known only at its end. Without hashing, a pipe goes to
 * a pipe by splice(2): the bytes never pass through this process (a
 * copy through it cost a fifth of the plain pipe's throughput). */
void feed_init_tail(struct feed *f, int fd, const char *tag, bool hashing);
/* The bytes of buf as they are, no frames. */
void feed_init_buf_raw(struct feed *f, const char *buf, size_t len);
void feed_free(struct feed *f);
/* A buffer source starts again from its first byte, to be sent anew. */
void feed_rewind(struct feed *f);

/* True when the feed has room for the source fd's bytes (also while
 * it has bytes to write). */
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
