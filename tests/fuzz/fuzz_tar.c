/* fuzz_tar.c: a libFuzzer target for the tar reader (src/codec/tar.c), which
 * reads the tar streams of `sandbox grep`: bytes the workspace wrote.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_tar; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_tar -max_total_time=600 build/fuzz/corpus_tar tests/fuzz/corpus_tar
 *
 * An input is 4 bytes that seed the chunking, then the archive. When
 * the first byte is odd, every 512-byte block of the archive gets its
 * checksum field set right before reading: random headers then get past
 * the checksum, to the fields behind it. The seeds
 * (tests/fuzz/corpus_tar) are archives of GNU tar in its gnu, oldgnu,
 * posix, ustar and v7 formats and of BusyBox tar, of one directory
 * (a file, an empty one, a binary one, a name of 120 bytes, a name with
 * a newline, a UTF-8 name, a symlink, a hard link, subdirectories),
 * made like this, the first 4 bytes random:
 *   (head -c 4 /dev/urandom; tar -b1 -C DIR --format=posix -cf - .) >FILE
 * and a few written with Python: pax size and path records, a base-256
 * size, a GNU long name; two archives in a row, one cut short, none.
 *
 * The archive is read three times: in one chunk, in chunks whose sizes
 * come from the seed, and in chunks again with a callback that stops the
 * reader. Besides crashes and sanitizer reports, it aborts when:
 * - the callbacks see other entries, names, sizes, contents, or another
 *   error, in pieces than in one chunk;
 * - a callback comes out of order (data or end outside an entry, an
 *   entry before the last one's end), data goes past the size its entry
 *   announced or is empty, an end comes before all of it, a name is
 *   longer than TAR_META_MAX, a link or directory announces content;
 * - data does not point into the bytes fed, in order, without overlap;
 * - a failed reader calls back again or accepts more input;
 * - an archive read cleanly leaves an entry open. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "tar.h"
#include "util.h"

/* What the callbacks saw, as one log that does not depend on how the
 * data was split: an entry line, the content bytes, an end line. */
struct fz_tar_log {
	struct sbuf log;
	bool open;
	unsigned long long size, got;
	const char *chunk;       /* the bytes being fed, for the pointer checks */
	size_t chunk_len;
	const char *last_end;    /* end of the last data, in one-chunk runs */
	unsigned long calls;     /* callbacks so far */
	unsigned long stop_at;   /* the callback that returns -1; 0: none */
	bool stopped;
	size_t body_len;         /* of log, before its result line */
};

static int fz_tar_call(struct fz_tar_log *l)
{
	CHECK(!l->stopped);
	l->calls++;
	if (l->calls == l->stop_at) {
		l->stopped = true;
		return -1;
	}
	return 0;
}

static int fz_tar_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct fz_tar_log *l = ctx;
	size_t namelen = strlen(name);
	CHECK(!l->open);
	CHECK(namelen <= TAR_META_MAX);
	if (type >= '1' && type <= '6')
		CHECK(size == 0);
	l->open = true;
	l->size = size;
	l->got = 0;
	sbuf_addf(&l->log, "entry %d %llu %zu:", type, size, namelen);
	sbuf_add(&l->log, name, namelen);
	sbuf_addc(&l->log, '\n');
	return fz_tar_call(l);
}

static int fz_tar_data(void *ctx, const char *buf, size_t n)
{
	struct fz_tar_log *l = ctx;
	CHECK(l->open);
	CHECK(n > 0);
	CHECK(n <= l->size - l->got);
	CHECK(buf >= l->chunk && n <= l->chunk_len && buf - l->chunk <= (ptrdiff_t)(l->chunk_len - n));
	if (l->last_end)
		CHECK(buf >= l->last_end);
	l->last_end = buf + n;
	l->got += n;
	sbuf_add(&l->log, buf, n);
	return fz_tar_call(l);
}

static int fz_tar_end(void *ctx)
{
	struct fz_tar_log *l = ctx;
	CHECK(l->open);
	CHECK(l->got == l->size);
	l->open = false;
	sbuf_addf(&l->log, "\nend %llu\n", l->got);
	return fz_tar_call(l);
}

/* The reader is large (about 130 KiB): one, reused. */
static struct tar_reader fz_tar_reader;

/* Reads the archive in chunks (one chunk when chunks is NULL); logs the
 * result line too. Returns 0 when it was read cleanly. */
static int fz_tar_read(struct fz_tar_log *l, const char *tar, size_t n, struct fuzz_chunks *chunks)
{
	struct tar_sink sink = {l, fz_tar_entry, fz_tar_data, fz_tar_end};
	char err[256] = "";
	int rc = 0;
	tar_init(&fz_tar_reader, &sink);
	sbuf_add(&l->log, "", 0);
	for (size_t at = 0; at < n && rc == 0;) {
		size_t k = chunks ? fuzz_chunk_next(chunks, n - at) : n;
		l->chunk = tar + at;
		l->chunk_len = k;
		rc = tar_feed(&fz_tar_reader, tar + at, k, err, sizeof(err));
		at += k;
	}
	if (rc < 0) {
		/* A failed reader stays failed, and calls nobody back. */
		unsigned long calls = l->calls;
		char err2[256] = "";
		CHECK(tar_feed(&fz_tar_reader, tar, n, err2, sizeof(err2)) < 0);
		CHECK(err2[0] != '\0');
		err2[0] = '\0';
		CHECK(tar_finish(&fz_tar_reader, err2, sizeof(err2)) < 0);
		CHECK(err2[0] != '\0');
		CHECK(l->calls == calls);
	} else {
		rc = tar_finish(&fz_tar_reader, err, sizeof(err));
	}
	if (rc < 0)
		CHECK(err[0] != '\0');
	else
		CHECK(!l->open);
	l->body_len = l->log.len;
	sbuf_addf(&l->log, "result %d: %s\n", rc, err);
	return rc;
}

/* Sets each whole block's checksum field to its unsigned sum (the
 * field read as spaces), as a writer would; zero blocks stay zero. */
static void fz_tar_fix_checksums(char *tar, size_t n)
{
	for (size_t at = 0; n - at >= 512; at += 512) {
		unsigned char *h = (unsigned char *)tar + at;
		unsigned sum = 0, any = 0;
		for (size_t i = 0; i < 512; i++) {
			sum += i >= 148 && i < 156 ? ' ' : h[i];
			any |= h[i];
		}
		if (!any)
			continue;
		snprintf((char *)h + 148, 8, "%06o", sum);
		h[155] = ' ';
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	/* Exactly the archive's bytes, with nothing after them to lean on. */
	size_t n = size - 4;
	char *tar = malloc(n ? n : 1);
	if (!tar)
		return 0;
	memcpy(tar, data + 4, n);
	if (data[0] & 1)
		fz_tar_fix_checksums(tar, n);

	struct fz_tar_log whole = {0}, split = {0}, stop = {0};
	fz_tar_read(&whole, tar, n, NULL);

	struct fuzz_chunks chunks;
	fuzz_chunks_init(&chunks, data);
	fz_tar_read(&split, tar, n, &chunks);
	CHECK(split.log.len == whole.log.len);
	CHECK(memcmp(split.log.buf, whole.log.buf, whole.log.len) == 0);

	/* Stopped by the k-th callback: what came before is the same, and
	 * the run fails there, whatever the chunking. */
	if (whole.calls > 0) {
		fuzz_chunks_init(&chunks, data);
		stop.stop_at = 1 + (data[0] | (unsigned long)data[1] << 8) % whole.calls;
		int rc = fz_tar_read(&stop, tar, n, &chunks);
		CHECK(rc < 0 && stop.stopped && stop.calls == stop.stop_at);
		static const char stopped[] = "result -1: stopped by the ";
		size_t before = stop.body_len;
		CHECK(stop.log.len - before > strlen(stopped));
		CHECK(memcmp(stop.log.buf + before, stopped, strlen(stopped)) == 0);
		CHECK(before <= whole.body_len && memcmp(stop.log.buf, whole.log.buf, before) == 0);
	}

	sbuf_free(&whole.log);
	sbuf_free(&split.log);
	sbuf_free(&stop.log);
	free(tar);
	return 0;
}
