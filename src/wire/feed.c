/* feed.c: see feed.h. */
/* splice(2): Linux's, declared by glibc under _GNU_SOURCE. */
#define _GNU_SOURCE
#include "feed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void init(struct feed *f)
{
	memset(f, 0, sizeof(*f));
	f->src_fd = -1;
	f->hashing = true;
	sha256_init(&f->hash);
}

void feed_init_fd(struct feed *f, int fd)
{
	init(f);
	f->src_fd = fd;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t pos = lseek(fd, 0, SEEK_CUR);
		f->src_sized = true;
		f->src_size = f->src_left = (unsigned long long)(st.st_size - (pos > 0 ? pos : 0));
	}
	f->src_fifo = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

void feed_init_tail(struct feed *f, int fd, const char *tag, bool hashing)
{
	feed_init_fd(f, fd);
	f->src_sized = false; /* a file that grows goes to its end */
	f->tail = true;
	f->hashing = hashing;
	snprintf(f->tag, sizeof(f->tag), "%s", tag);
	f->splice = f->src_fifo && !hashing;
}

void feed_init_raw(struct feed *f, int fd)
{
	feed_init_fd(f, fd);
	f->raw = true;
	f->hashing = false;
	f->splice = f->src_fifo || f->src_sized;
}

void feed_init_buf(struct feed *f, const char *buf, size_t len)
{
	init(f);
	f->buf = buf;
	f->buflen = len;
	f->src_sized = true;
	f->src_size = f->src_left = len;
}

void feed_init_buf_raw(struct feed *f, const char *buf, size_t len)
{
	feed_init_buf(f, buf, len);
	f->raw = true;
}

void feed_rewind(struct feed *f)
{
	if (f->buf) {
		bool hashing = f->hashing, raw = f->raw;
		feed_init_buf(f, f->buf, f->buflen);
		f->hashing = hashing;
		f->raw = raw;
	}
}

void feed_free(struct feed *f)
{
	free(f->stage);
	free(f->spare);
	f->stage = f->spare = NULL;
}

static void header(struct feed *f, unsigned long long n)
{
	f->headlen = (size_t)snprintf(f->head, sizeof(f->head), "%llu\n", n);
	f->headoff = 0;
	if (n == 0)
		f->ended = true;
}

static void payload(struct feed *f, const char *data, size_t n)
{
	f->pay = data;
	f->paylen = n;
	f->payoff = 0;
	if (f->hashing)
		sha256_update(&f->hash, data, n);
	f->sent += n;
}

static bool pending(const struct feed *f)
{
	return f->headoff < f->headlen || f->payoff < f->paylen;
}

/* What stage holds becomes the payload, and stage the other buffer:
 * the source is read into one while the other is written. */
static void payload_stage(struct feed *f)
{
	char *full = f->stage;
	if (!f->spare)
		f->spare = xmalloc(FEED_CHUNK);
	f->stage = f->spare;
	f->spare = full;
	payload(f, full, f->nstage);
	f->nstage = 0;
}

bool feed_wants_src(const struct feed *f)
{
	if (f->src_fd < 0 || f->src_eof || f->src_errno)
		return false;
	if (f->splice)
		return !f->src_ready && (!f->src_sized || f->src_left > 0);
	return f->nstage < FEED_CHUNK && (!f->src_sized || f->src_left > 0);
}

bool feed_read_src(struct feed *f)
{
	if (f->splice) {
		f->src_ready = true; /* feed_write moves the bytes */
		return true;
	}
	if (!f->stage)
		f->stage = xmalloc(FEED_CHUNK); /* only when copying */
	size_t want = FEED_CHUNK - f->nstage;
	if (f->src_sized && f->src_left < want)
		want = (size_t)f->src_left;
	ssize_t r = read(f->src_fd, f->stage + f->nstage, want);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (r < 0) {
		f->src_errno = errno;
		return false;
	}
	if (r == 0) {
		f->src_eof = true;
		/* A file that shrank under us: its frame can never be whole. */
		if (f->src_sized && f->src_left)
			f->src_errno = EIO;
		return true;
	}
	f->nstage += (size_t)r;
	if (f->src_sized)
		f->src_left -= (unsigned long long)r;
	return true;
}

bool feed_ready(struct feed *f)
{
	if (pending(f))
		return true;
	if (f->ended || f->src_errno)
		return false;
	if (f->splice) {
		if (!f->src_eof && (!f->src_sized || f->src_left > 0))
			return f->src_ready;
		if (!f->tail) {
			f->ended = true;
			return false;
		}
	}
	if (f->tail) {
		if (f->nstage) {
			payload_stage(f);
		} else if (f->src_eof) {
			f->headlen = (size_t)snprintf(f->head, sizeof(f->head), "%s%020llu", f->tag, f->sent);
			f->headoff = 0;
			f->ended = true;
		}
		return pending(f);
	}
	if (f->raw) {
		if (f->buf && f->src_left) {
			payload(f, f->buf, (size_t)f->src_left);
			f->src_left = 0;
		} else if (f->nstage) {
			payload_stage(f);
		} else if (f->src_eof || (f->src_sized && !f->src_left)) {
			f->ended = true;
		}
		return pending(f);
	}
	if (!f->started && f->src_sized) {
		/* The size as sized, not what is left: the source may have
		 * been read from before this first call. */
		f->started = true;
		header(f, f->src_size);
		if (f->buf) {
			payload(f, f->buf, (size_t)f->src_left);
			f->src_left = 0;
		}
		return true;
	}
	f->started = true;
	if (f->src_sized) {
		if (f->nstage) {
			payload_stage(f);
		} else if (f->src_left == 0) {
			header(f, 0);
		}
	} else if (f->nstage == FEED_CHUNK || (f->src_eof && f->nstage)) {
		header(f, f->nstage);
		payload_stage(f);
	} else if (f->src_eof) {
		header(f, 0);
	}
	return pending(f);
}

/* Moves what the source holds into fd, as much as fits; false when fd
 * is closed. A source that splice cannot take (nothing moved yet) is
 * copied instead. */
static bool splice_some(struct feed *f, int fd)
{
	f->src_ready = false;
	size_t len = FEED_CHUNK;
	if (f->src_sized && f->src_left < len)
		len = (size_t)f->src_left;
	ssize_t r = splice(f->src_fd, NULL, fd, NULL, len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (r > 0) {
		f->sent += (unsigned long long)r;
		if (f->src_sized)
			f->src_left -= (unsigned long long)r;
	} else if (r == 0) {
		f->src_eof = true;
		/* A file that shrank under us: it never ends whole. */
		if (f->src_sized && f->src_left)
			f->src_errno = EIO;
	} else if (errno == EPIPE)
		return false;
	else if (errno == EINVAL && f->sent == 0)
		f->splice = false;
	else if (errno != EAGAIN && errno != EINTR)
		f->src_errno = errno;
	return true;
}

bool feed_write(struct feed *f, int fd)
{
	if (!write_some(fd, f->head, f->headlen, &f->headoff))
		return false;
	if (f->headoff < f->headlen)
		return true;
	if (f->splice && f->src_ready && !pending(f) && !f->src_eof)
		return splice_some(f, fd);
	return write_some(fd, f->pay, f->paylen, &f->payoff);
}

bool feed_done(const struct feed *f)
{
	return f->ended && !pending(f);
}
