/* test_feed.c: the framing of a call's stdin (feed.h), from each kind of
 * source, written into a non-blocking pipe and read back in random
 * chunks, against a reference decoder that reads frames as the server's
 * frames() and SCRIPT_WRITE do: "N\n", N bytes, ..., "0\n". What comes
 * out must be the payload exactly, counted and hashed, ended by one end
 * frame with nothing after it; a source that fails or shrinks must never
 * get its end frame (the script then throws the partial file away). */
/* F_SETPIPE_SZ (Linux): one-page pipes cut every write short. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "feed.h"
#include "sha256.h"
#include "tap.h"
#include "util.h"

static unsigned long rnd_x = 0x2545f4914f6cdd1dUL;
static unsigned rnd(void)
{
	rnd_x ^= rnd_x << 13, rnd_x ^= rnd_x >> 7, rnd_x ^= rnd_x << 17;
	return (unsigned)(rnd_x >> 20);
}

/* The reference: frames() of the server, then SCRIPT_WRITE's loop. */
struct frames {
	struct sbuf payload;
	size_t nframes;
	bool ended, bad_header;
	size_t trailing;
};

static void decode(const char *s, size_t n, struct frames *fr)
{
	memset(fr, 0, sizeof(*fr));
	sbuf_add(&fr->payload, "", 0);
	size_t at = 0;
	while (at < n) {
		const char *nl = memchr(s + at, '\n', n - at);
		if (!nl)
			return; /* a header cut short */
		size_t len = (size_t)(nl - (s + at));
		unsigned long long v = 0;
		if (len == 0 || len > 20 || (s[at] == '0' && len > 1))
			fr->bad_header = true;
		for (size_t i = 0; i < len; i++) {
			if (s[at + i] < '0' || s[at + i] > '9')
				fr->bad_header = true;
			v = v * 10 + (unsigned)(s[at + i] - '0');
		}
		if (fr->bad_header)
			return;
		at += len + 1;
		if (v == 0) {
			fr->ended = true;
			fr->trailing = n - at;
			return;
		}
		size_t take = v < n - at ? (size_t)v : n - at;
		sbuf_add(&fr->payload, s + at, take);
		fr->nframes++;
		at += take;
	}
}

/* Drives f into a one-page non-blocking pipe and reads it back in
 * random chunks, as exec's loop does; what came out into out. False
 * when the feed stopped making progress. */
static bool drive(struct feed *f, struct sbuf *out)
{
	int p[2];
	if (pipe(p) < 0)
		return false;
#ifdef F_SETPIPE_SZ
	fcntl(p[1], F_SETPIPE_SZ, 4096);
#endif
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	sbuf_add(out, "", 0);
	int idle = 0;
	bool good = true;
	while (!feed_done(f) && !f->src_errno) {
		bool moved = false;
		if (feed_wants_src(f)) {
			struct pollfd pfd = {f->src_fd, POLLIN, 0};
			if (poll(&pfd, 1, 5000) <= 0) {
				good = false;
				break;
			}
			size_t before = f->nstage;
			feed_read_src(f);
			moved = f->nstage != before || f->src_eof || f->src_errno;
		}
		if (feed_ready(f)) {
			size_t before = f->headoff + f->payoff;
			if (!feed_write(f, p[1])) {
				good = false;
				break;
			}
			moved = moved || f->headoff + f->payoff != before;
		}
		char buf[8192];
		size_t k = 1 + rnd() % (rnd() % 2 ? 7 : sizeof(buf));
		ssize_t r = read(p[0], buf, k);
		if (r > 0) {
			sbuf_add(out, buf, (size_t)r);
			moved = true;
		}
		idle = moved ? 0 : idle + 1;
		if (idle > 100000) {
			good = false;
			break;
		}
	}
	close(p[1]);
	char buf[8192];
	ssize_t r;
	while ((r = read(p[0], buf, sizeof(buf))) > 0)
		sbuf_add(out, buf, (size_t)r);
	close(p[0]);
	return good;
}

static void fill(char *buf, size_t n)
{
	/* Bytes that look like frames, newlines, digits, and all the rest. */
	for (size_t i = 0; i < n; i++)
		buf[i] = rnd() % 4 == 0 ? "0\n12\n"[rnd() % 5] : (char)rnd();
}

/* The payload came out whole, once, with its count and hash. */
static bool check(const struct feed *f, const struct sbuf *out, const char *want, size_t n,
		  bool report, const char *what)
{
	struct frames fr;
	decode(out->buf, out->len, &fr);
	char hex[65], want_hex[65];
	struct sha256 h = f->hash;
	unsigned char digest[32];
	sha256_final(&h, digest);
	sha256_hex(digest, hex);
	sha256_buf_hex(want, n, want_hex);
	bool good = !fr.bad_header && fr.ended && fr.trailing == 0 && fr.payload.len == n &&
		    memcmp(fr.payload.buf, want, n) == 0 && f->sent == n && strcmp(hex, want_hex) == 0;
	if (!good && report)
		diag("%s of %zu bytes: %zu back in %zu frames, ended %d, trailing %zu, bad header %d, "
		     "sent %llu, hash %s", what, n, fr.payload.len, fr.nframes, fr.ended,
		     fr.trailing, fr.bad_header, f->sent, strcmp(hex, want_hex) ? "wrong" : "right");
	sbuf_free(&fr.payload);
	return good;
}

static void test_buffer(void)
{
	int bad = 0;
	for (int round = 0; round < 300; round++) {
		size_t n = round < 3 ? (size_t)round : rnd() % (round % 10 ? 5000 : 300000);
		char *data = xmalloc(n + 1);
		fill(data, n);
		struct feed f;
		feed_init_buf(&f, data, n);
		struct sbuf out = {0};
		bool good = drive(&f, &out) && check(&f, &out, data, n, bad == 0, "buffer");
		if (good && round % 7 == 0) {
			/* Sent anew for a second try (ws_exec's retry). */
			feed_rewind(&f);
			sbuf_reset(&out);
			good = drive(&f, &out) && check(&f, &out, data, n, bad == 0, "rewound buffer");
		}
		bad += !good;
		sbuf_free(&out);
		feed_free(&f);
		free(data);
	}
	is_int(bad, 0, "a buffer: one frame of its size, then the end; read back in random chunks "
	       "(300 sizes up to 300 KB, some rewound and sent again)");
}

/* A pipe source: a child writes data in random pieces. */
static pid_t writer(const char *data, size_t n, int *rfd)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		for (size_t at = 0; at < n;) {
			size_t k = 1 + rnd() % 70000;
			if (k > n - at)
				k = n - at;
			if (write_all(p[1], data + at, k) < 0)
				_exit(1);
			at += k;
		}
		_exit(0);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

static void test_pipe(void)
{
	static const size_t sizes[] = {0, 1, 4095, 65536, 200000, FEED_CHUNK - 1, FEED_CHUNK,
				       FEED_CHUNK + 1, 2 * FEED_CHUNK + 12345};
	int bad = 0;
	for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
		size_t n = sizes[i];
		char *data = xmalloc(n + 1);
		fill(data, n);
		int fd = -1;
		pid_t pid = writer(data, n, &fd);
		struct feed f;
		feed_init_fd(&f, fd);
		struct sbuf out = {0};
		bool good = drive(&f, &out) && check(&f, &out, data, n, bad == 0, "pipe");
		struct frames fr;
		decode(out.buf, out.len, &fr);
		/* Frames of up to FEED_CHUNK: memory stays bounded. */
		good = good && fr.nframes == (n + FEED_CHUNK - 1) / FEED_CHUNK;
		sbuf_free(&fr.payload);
		bad += !good;
		if (!good)
			diag("pipe of %zu bytes failed", n);
		waitpid(pid, NULL, 0);
		close(fd);
		sbuf_free(&out);
		feed_free(&f);
		free(data);
	}
	is_int(bad, 0, "a pipe: frames of up to FEED_CHUNK, whatever pieces the writer makes "
	       "(0 bytes to 2 chunks and more)");
}

/* write's stream from a pipe (feed_init_tail): the bytes, then the tag
 * and their count in 20 digits; spliced pipe to pipe without hashing,
 * copied and hashed with it. */
static void test_tail(void)
{
	static const size_t sizes[] = {0, 1, 35, 36, 4095, 65536, 200000, FEED_CHUNK + 1,
				       2 * FEED_CHUNK + 12345};
	static const char tag[] = "0123456789abcdef";
	int bad = 0;
	for (int hashing = 0; hashing < 2; hashing++)
		for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
			size_t n = sizes[i];
			char *data = xmalloc(n + 1);
			fill(data, n);
			int fd = -1;
			pid_t pid = writer(data, n, &fd);
			struct feed f;
			feed_init_tail(&f, fd, tag, hashing);
			struct sbuf out = {0};
			bool good = drive(&f, &out) && f.splice == !hashing && f.sent == n &&
				    out.len == n + FEED_TAIL_LEN && memcmp(out.buf, data, n) == 0;
			char end[FEED_TAIL_LEN + 1];
			snprintf(end, sizeof(end), "%s%020zu", tag, n);
			good = good && memcmp(out.buf + n, end, FEED_TAIL_LEN) == 0;
			if (good && hashing) {
				char hex[65], want_hex[65];
				unsigned char digest[32];
				sha256_final(&f.hash, digest);
				sha256_hex(digest, hex);
				sha256_buf_hex(data, n, want_hex);
				good = strcmp(hex, want_hex) == 0;
			}
			if (!good)
				diag("tail of %zu bytes (hashing %d): %zu out, sent %llu", n, hashing, out.len,
				     f.sent);
			bad += !good;
			waitpid(pid, NULL, 0);
			close(fd);
			sbuf_free(&out);
			feed_free(&f);
			free(data);
		}
	is_int(bad, 0, "a tail feed from a pipe: the bytes, the tag and their count; spliced, or "
	       "copied and hashed");

	/* A source that fails: no tail, so the script throws the file away. */
	int dfd = open("/tmp", O_RDONLY | O_DIRECTORY);
	struct feed f;
	feed_init_tail(&f, dfd, tag, false);
	struct sbuf out = {0};
	drive(&f, &out);
	ok(f.src_errno == EISDIR && !f.ended && out.len == 0, "a tail feed whose source fails: no tail");
	feed_free(&f);
	close(dfd);
	sbuf_free(&out);
}

static int temp_file(const char *data, size_t n)
{
	char name[] = "/tmp/test_feed.XXXXXX";
	int fd = mkstemp(name);
	if (fd < 0)
		return -1;
	unlink(name);
	if (write_all(fd, data, n) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_file(void)
{
	int bad = 0;
	for (int round = 0; round < 40; round++) {
		size_t n = round == 0 ? 0 : rnd() % (round % 8 ? 100000 : FEED_CHUNK + 50000);
		size_t from = n ? rnd() % (n + 1) : 0;
		char *data = xmalloc(n + 1);
		fill(data, n);
		int fd = temp_file(data, n);
		lseek(fd, (off_t)from, SEEK_SET);
		struct feed f;
		feed_init_fd(&f, fd);
		/* Grown after it was sized: the frame holds what was sized. */
		if (round % 5 == 1)
			(void)!pwrite(fd, "more", 4, (off_t)n);
		struct sbuf out = {0};
		bool good = drive(&f, &out) && check(&f, &out, data + from, n - from, bad == 0, "file");
		struct frames fr;
		decode(out.buf, out.len, &fr);
		good = good && fr.nframes == (n > from);
		sbuf_free(&fr.payload);
		bad += !good;
		close(fd);
		sbuf_free(&out);
		feed_free(&f);
		free(data);
	}
	is_int(bad, 0, "a regular file, from an offset: one frame of its size, also when it grows");
}

static void test_cut_short(void)
{
	/* A file that shrinks under the feed: its frame can never be whole,
	 * and no end frame may follow. */
	size_t n = 300000;
	char *data = xmalloc(n);
	fill(data, n);
	int fd = temp_file(data, n);
	lseek(fd, 0, SEEK_SET);
	struct feed f;
	feed_init_fd(&f, fd);
	(void)!ftruncate(fd, 1000);
	struct sbuf out = {0};
	drive(&f, &out);
	struct frames fr;
	decode(out.buf, out.len, &fr);
	ok(f.src_errno && !fr.ended && !feed_done(&f), "a file that shrinks: no end frame");
	sbuf_free(&fr.payload);
	sbuf_free(&out);
	feed_free(&f);
	close(fd);

	/* A read error (a directory) is a failure: no end frame. */
	int dfd = open("/tmp", O_RDONLY | O_DIRECTORY);
	feed_init_fd(&f, dfd);
	sbuf_reset(&out);
	drive(&f, &out);
	decode(out.buf, out.len, &fr);
	ok(f.src_errno == EISDIR && !fr.ended, "a source that fails to read: no end frame");
	sbuf_free(&fr.payload);
	feed_free(&f);
	close(dfd);
	sbuf_free(&out);
	free(data);
}

static void test_raw(void)
{
	/* exec's own stdin: the bytes as they are, no frames. */
	size_t n = 150000;
	char *data = xmalloc(n);
	fill(data, n);
	int fd = -1;
	pid_t pid = writer(data, n, &fd);
	struct feed f;
	feed_init_raw(&f, fd);
	struct sbuf out = {0};
	bool good = drive(&f, &out);
	ok(good && out.len == n && memcmp(out.buf, data, n) == 0 && f.sent == n,
	   "raw: the bytes as they are, no frames");
	waitpid(pid, NULL, 0);
	close(fd);
	sbuf_free(&out);
	feed_free(&f);
	free(data);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_buffer();
	test_pipe();
	test_tail();
	test_file();
	test_cut_short();
	test_raw();
	return done_testing();
}
