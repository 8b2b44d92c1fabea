/* fuzz_feed.c: a libFuzzer target for the framing of `write`'s input
 * (src/wire/feed.c): "N\n" then N bytes, as many frames as needed, "0\n" at
 * the end, which SCRIPT_WRITE reads with the server's frames() loop.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_feed; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_feed -max_total_time=600 build/fuzz/corpus_feed tests/fuzz/corpus_feed
 *
 * An input is 4 bytes that seed how much is read back at a time, a mode
 * byte, then the payload. The mode's low bits pick the source: a buffer
 * (as `write --content` and `edit`), a pipe (stdin from a pipe), or a
 * regular file (stdin from a file) read from an offset, which may grow
 * or shrink once the feed has sized it. The feed writes into a
 * non-blocking pipe (of one page, so that writes are cut short) that is
 * read back in pieces. The seeds (tests/fuzz/corpus_feed) were written
 * by hand with printf: each source, empty and not, a payload that looks
 * like frames itself, binary bytes, a file that shrinks and one that
 * grows.
 *
 * It aborts when the frames read back, by a decoder written here that
 * does what frames() does (a line, "0" ends, else that many bytes), are
 * not the payload exactly (the file's bytes as sized, from the offset),
 * when a header is not a plain decimal, when bytes follow the end frame,
 * when a source that shrank still gets its end frame, when the bytes
 * counted or the SHA-256 of the payload are wrong, when a rewound buffer
 * sends other bytes, or when the feed stops making progress.
 *
 * Not covered: frames of FEED_CHUNK (4 MiB) and more, beyond what a
 * fuzzer input holds, and read errors of the source. */
/* For F_SETPIPE_SZ (Linux): without it, pipes of the default size. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feed.h"
#include "fuzz.h"
#include "sha256.h"
#include "util.h"

enum fz_feed_source { FZ_BUF, FZ_PIPE, FZ_FILE };

/* What frames() would make of a stream. */
struct fz_frames {
	struct sbuf payload;
	bool ended;      /* "0\n" came */
	size_t trailing; /* bytes after it */
};

/* Decodes out[0, n) as frames() reads them; aborts on a header that is
 * not a plain decimal number, as the shell's `[ "$n" = 0 ]` and dd would
 * then read something else than what was meant. */
static void fz_feed_decode(const char *out, size_t n, struct fz_frames *fr)
{
	memset(fr, 0, sizeof(*fr));
	sbuf_add(&fr->payload, "", 0);
	size_t at = 0;
	while (at < n) {
		const char *nl = memchr(out + at, '\n', n - at);
		if (!nl)
			break; /* a header cut short: incomplete */
		size_t len = (size_t)(nl - (out + at));
		CHECK(len >= 1 && len <= 20);
		CHECK(out[at] != '0' || len == 1);
		unsigned long long v = 0;
		for (size_t i = 0; i < len; i++) {
			CHECK(out[at + i] >= '0' && out[at + i] <= '9');
			v = v * 10 + (unsigned)(out[at + i] - '0');
		}
		at += len + 1;
		if (v == 0) {
			fr->ended = true;
			fr->trailing = n - at;
			return;
		}
		size_t take = v < n - at ? (size_t)v : n - at;
		sbuf_add(&fr->payload, out + at, take);
		at += take;
	}
}

/* A file for the regular-file source: one, truncated for each input. */
static int fz_feed_file(void)
{
	static int fd = -1;
	if (fd < 0) {
		const char *dir = getenv("TMPDIR");
		char path[4096];
		snprintf(path, sizeof(path), "%s/fuzz_feed.XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkstemp(path);
		CHECK(fd >= 0);
		unlink(path);
	}
	return fd;
}

struct fz_feed_run {
	struct feed f;
	int out[2];          /* the feed writes into out[1] */
	int src[2];          /* the pipe source: we write into src[1] */
	const char *src_data;
	size_t src_len, src_off;
	struct fuzz_chunks chunks;
	struct sbuf got;     /* all the feed wrote */
};

static void fz_feed_nonblock(int fd)
{
	CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0);
}

static bool fz_feed_read(struct fz_feed_run *r)
{
	if (!feed_wants_src(&r->f))
		return false;
	size_t before = r->f.nstage;
	CHECK(feed_read_src(&r->f));
	return r->f.nstage != before || r->f.src_eof;
}

/* One round of what exec.c's loop does, each step at most once, then a
 * read of the pipe in a piece whose size comes from the seed. */
static bool fz_feed_round(struct fz_feed_run *r)
{
	bool moved = false;
	if (r->src[1] >= 0) {
		size_t off = r->src_off;
		CHECK(write_some(r->src[1], r->src_data, r->src_len, &r->src_off));
		moved |= r->src_off != off;
		if (r->src_off == r->src_len) {
			close(r->src[1]);
			r->src[1] = -1;
			moved = true;
		}
	}
	/* Either order: exec.c asks feed_ready first, but the source may
	 * as well be read before the first frame is made. */
	bool read_first = r->chunks.x & 8;
	if (read_first)
		moved |= fz_feed_read(r);
	if (feed_ready(&r->f)) {
		size_t h = r->f.headoff, p = r->f.payoff;
		CHECK(feed_write(&r->f, r->out[1]));
		moved |= h != r->f.headoff || p != r->f.payoff;
	}
	if (!read_first)
		moved |= fz_feed_read(r);
	char buf[8192];
	size_t want = fuzz_chunk_next(&r->chunks, sizeof(buf));
	ssize_t n = read(r->out[0], buf, want);
	if (n > 0) {
		sbuf_add(&r->got, buf, (size_t)n);
		moved = true;
	} else {
		CHECK(n < 0 && errno == EAGAIN);
	}
	return moved;
}

/* Runs the feed to its end (or its failure), reading everything back. */
static void fz_feed_run(struct fz_feed_run *r)
{
	sbuf_add(&r->got, "", 0);
	/* Rounds in a row without a byte moved: the feed is stuck. */
	for (int idle = 0; idle < 1000;) {
		bool moved = fz_feed_round(r);
		if ((feed_done(&r->f) || r->f.src_errno) && !moved)
			return;
		idle = moved ? 0 : idle + 1;
	}
	fprintf(stderr, "the feed stopped making progress\n");
	abort();
}

static void fz_feed_check_hash(const struct feed *f, const char *want, size_t n)
{
	struct sha256 copy = f->hash;
	unsigned char a[32], b[32];
	sha256_final(&copy, a);
	sha256_init(&copy);
	sha256_update(&copy, want, n);
	sha256_final(&copy, b);
	CHECK(memcmp(a, b, 32) == 0);
}

/* Sets up the source; returns the payload the frames must carry, and
 * whether the source shrinks (then no end frame may come). */
static void fz_feed_source(struct fz_feed_run *r, uint8_t mode, const char *p, size_t n,
			   const char **want, size_t *want_len, bool *shrinks)
{
	*want = p;
	*want_len = n;
	*shrinks = false;
	switch ((enum fz_feed_source)(mode % 3)) {
	case FZ_BUF:
		feed_init_buf(&r->f, p, n);
		break;
	case FZ_PIPE:
		CHECK(pipe(r->src) == 0);
		fz_feed_nonblock(r->src[0]);
		fz_feed_nonblock(r->src[1]);
		r->src_data = p;
		r->src_len = n;
		feed_init_fd(&r->f, r->src[0]);
		break;
	case FZ_FILE: {
		int fd = fz_feed_file();
		size_t off = n ? (mode >> 2) % (n + 1) : 0;
		CHECK(ftruncate(fd, 0) == 0);
		CHECK(pwrite(fd, p, n, 0) == (ssize_t)n);
		CHECK(lseek(fd, (off_t)off, SEEK_SET) == (off_t)off);
		feed_init_fd(&r->f, fd);
		*want = p + off;
		*want_len = n - off;
		/* Changed after the feed sized it: grown, it sends what it
		 * sized; shrunk, it must not end the stream. */
		if (mode & 0x80) {
			CHECK(pwrite(fd, "grown", 5, (off_t)n) == 5);
		} else if ((mode & 0x40) && n - off > 0) {
			CHECK(ftruncate(fd, (off_t)(off + (n - off) / 2)) == 0);
			*shrinks = true;
		}
		break;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	size_t n = size - 5;
	char *p = malloc(n ? n : 1);
	if (!p)
		return 0;
	memcpy(p, data + 5, n);

	struct fz_feed_run r;
	memset(&r, 0, sizeof(r));
	r.src[0] = r.src[1] = -1;
	const char *want;
	size_t want_len;
	bool shrinks;
	fz_feed_source(&r, data[4], p, n, &want, &want_len, &shrinks);
	CHECK(pipe(r.out) == 0);
	fz_feed_nonblock(r.out[0]);
	fz_feed_nonblock(r.out[1]);
#ifdef F_SETPIPE_SZ
	/* A pipe of one page: writes are cut short, in headers too. */
	fcntl(r.out[1], F_SETPIPE_SZ, 4096);
#endif
	fuzz_chunks_init(&r.chunks, data);
	fz_feed_run(&r);

	struct fz_frames fr;
	fz_feed_decode(r.got.buf, r.got.len, &fr);
	if (shrinks) {
		CHECK(!fr.ended);
		CHECK(r.f.src_errno != 0);
	} else {
		CHECK(r.f.src_errno == 0);
		CHECK(fr.ended && fr.trailing == 0);
		CHECK(fr.payload.len == want_len);
		CHECK(memcmp(fr.payload.buf, want, want_len) == 0);
		CHECK(r.f.sent == want_len);
		fz_feed_check_hash(&r.f, want, want_len);
		if (data[4] % 3 == FZ_BUF) {
			/* Rewound, a buffer sends the same bytes again. */
			struct sbuf first = r.got;
			memset(&r.got, 0, sizeof(r.got));
			feed_rewind(&r.f);
			fz_feed_run(&r);
			CHECK(r.got.len == first.len && memcmp(r.got.buf, first.buf, first.len) == 0);
			sbuf_free(&first);
		}
	}

	sbuf_free(&fr.payload);
	sbuf_free(&r.got);
	feed_free(&r.f);
	close(r.out[0]);
	close(r.out[1]);
	if (r.src[0] >= 0)
		close(r.src[0]);
	if (r.src[1] >= 0)
		close(r.src[1]);
	free(p);
	return 0;
}
