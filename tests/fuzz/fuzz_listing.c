/* fuzz_listing.c: a libFuzzer target for what glob and grep read from a
 * workspace: glob's listing parser and its newest-N heap (src/codec/listing.c),
 * and grep's reading of a tar stream (src/codec/grep.c), each fed in chunks of
 * sizes drawn from the input.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_listing; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_listing -max_total_time=120 build/fuzz/corpus_listing tests/fuzz/corpus_listing
 *
 * The input is read four ways: as a listing; as the names of a tree,
 * written as a listing; as the files of a tar archive made from it
 * (options in its first 4 bytes, then records "NAME\x01CONTENT\x02");
 * and as a raw stream for grep. Besides crashes and sanitizer reports,
 * it aborts when:
 * - a listing's entries differ with the chunking, or one is empty, too
 *   long or not NUL-ended at its length;
 * - the listing parser holds more than its bounds (the bytes between two
 *   cuts, the start of a record);
 * - the names of a tree, written as find and stat write them, are not
 *   read back as they are, each once, in their order, and nothing else;
 * - the newest-N heap keeps other names than the first of a full sort
 *   that fit its bounds, or more;
 * - grep's output differs with the chunking, holds more than its bounds
 *   while reading, or is not the output of an unbounded run cut at the
 *   limit and max_bytes. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "grep.h"
#include "json.h"
#include "listing.h"
#include "tool_text.h"
#include "util.h"
#include "../unit/tar_make.h"



/* Chunk sizes: a small generator seeded from the input. */
static uint32_t rng_state;

static size_t next_chunk(size_t max)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (size_t)((rng_state >> 8) % max) + 1;
}

static uint32_t seed_of(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h;
}

/* ---- the listing ---- */

struct entries {
	struct sbuf log;          /* "MTIME LEN NAME\n" each */
	struct listing_found *all; /* copies, for the heap's check */
	size_t n, cap;
};

static void on_entry(void *ctx, const char *rel, size_t len, long long mtime)
{
	struct entries *e = ctx;
	CHECK(len > 0 && len <= LISTING_NAME_MAX);
	CHECK(strlen(rel) == len);
	sbuf_addf(&e->log, "%lld %zu ", mtime, len);
	sbuf_add(&e->log, rel, len);
	sbuf_addc(&e->log, '\n');
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 16;
		e->all = xrealloc(e->all, e->cap * sizeof(*e->all));
	}
	e->all[e->n++] = (struct listing_found){.rel = xstrndup(rel, len), .mtime = mtime};
}

static void entries_free(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->all[i].rel);
	free(e->all);
	sbuf_free(&e->log);
}

static void listing_bounds(const struct listing *l)
{
	CHECK(l->seg_len <= LISTING_NAME_MAX + 1 && l->head_len <= LISTING_HEAD_MAX);
	CHECK(l->name_len <= LISTING_NAME_MAX);
}

/* chunk 0: sizes from the generator, up to max_chunk. */
static void parse_listing(const uint8_t *data, size_t size, size_t chunk, size_t max_chunk,
			  struct entries *e)
{
	struct listing *l = xmalloc(sizeof(*l));
	memset(e, 0, sizeof(*e));
	listing_init(l, on_entry, e);
	for (size_t off = 0; off < size;) {
		size_t k = chunk ? chunk : next_chunk(max_chunk);
		if (k > size - off)
			k = size - off;
		listing_feed(l, (const char *)data + off, k);
		listing_bounds(l);
		off += k;
	}
	listing_finish(l);
	free(l);
}

static size_t quoted(const char *s)
{
	return json_quoted_len(s, strlen(s));
}

static int found_order(const void *x, const void *y)
{
	const struct listing_found *a = x, *b = y;
	if (a->mtime != b->mtime)
		return a->mtime > b->mtime ? -1 : 1;
	return strcmp(a->rel, b->rel);
}

static void check_newest(struct entries *e, size_t max, size_t max_bytes)
{
	struct listing_newest t;
	listing_newest_init(&t, max, max_bytes);
	for (size_t i = 0; i < e->n; i++)
		listing_newest_add(&t, e->all[i].rel, strlen(e->all[i].rel), e->all[i].mtime);
	listing_newest_sort(&t);
	if (e->n > 1)
		qsort(e->all, e->n, sizeof(*e->all), found_order);
	size_t want = 0, bytes = 0;
	while (want < e->n && want < max && bytes + quoted(e->all[want].rel) <= max_bytes)
		bytes += quoted(e->all[want++].rel);
	CHECK(t.total == e->n);
	CHECK(t.n == want && t.bytes == bytes);
	for (size_t i = 0; i < want; i++)
		CHECK(t.v[i].mtime == e->all[i].mtime && strcmp(t.v[i].rel, e->all[i].rel) == 0);
	listing_newest_free(&t);
}

/* The input as the names of a tree, NUL between two, each made a path
 * as find gives it (no empty component: '/'s at its ends and runs of
 * them dropped), written as find and stat write them: each must come
 * back as it is, in its order, and nothing else. */
static void fuzz_forge(const uint8_t *data, size_t size)
{
	struct sbuf in = {0}, want = {0}, name = {0};
	long long t = (long long)(size % 7) - 3;
	for (size_t i = 0; i <= size; i++) {
		if (i < size && data[i] != '\0') {
			char c = (char)data[i];
			if (c != '/' || (name.len > 0 && name.buf[name.len - 1] != '/'))
				sbuf_addc(&name, c);
			continue;
		}
		if (name.len > 0 && name.buf[name.len - 1] == '/')
			name.buf[--name.len] = '\0';
		if (name.len > 0) {
			sbuf_addf(&in, "%lld .//", t);
			sbuf_add(&in, name.buf, name.len);
			sbuf_addc(&in, '\n');
			if (name.len <= LISTING_NAME_MAX) {
				sbuf_addf(&want, "%lld %zu ", t, name.len);
				sbuf_add(&want, name.buf, name.len);
				sbuf_addc(&want, '\n');
			}
			t = t * 3 + 1;
			t %= 1000000007;
		}
		sbuf_reset(&name);
	}
	sbuf_adds(&in, "//");
	struct entries got;
	parse_listing((const uint8_t *)in.buf, in.len, 0, 300, &got);
	CHECK(got.log.len == want.len);
	CHECK(want.len == 0 || memcmp(got.log.buf, want.buf, want.len) == 0);
	entries_free(&got);
	sbuf_free(&in);
	sbuf_free(&want);
	sbuf_free(&name);
}

static void fuzz_listing(const uint8_t *data, size_t size)
{
	struct entries whole, bytes, chunks;
	parse_listing(data, size, size ? size : 1, 0, &whole);
	parse_listing(data, size, 1, 0, &bytes);
	parse_listing(data, size, 0, 300, &chunks);
	CHECK(whole.log.len == bytes.log.len && whole.log.len == chunks.log.len);
	CHECK(whole.log.len == 0 || (memcmp(whole.log.buf, bytes.log.buf, whole.log.len) == 0 &&
				     memcmp(whole.log.buf, chunks.log.buf, whole.log.len) == 0));
	size_t max = size ? (size_t)(data[0] % 8) + 1 : 1;
	size_t max_bytes = size > 1 ? (size_t)(data[1] % 64) + 2 : 1000;
	check_newest(&whole, max, max_bytes);
	entries_free(&whole);
	entries_free(&bytes);
	entries_free(&chunks);
	fuzz_forge(data, size);
}

/* ---- grep ---- */

static const char *const patterns[] = {"a", "^a", "a$", "b|c", "", "x.*y", "[[:digit:]]"};
static struct rx *res[ARRAY_LEN(patterns)];

static void grep_bounds(const struct grep *g)
{
	const struct grep_spec *o = &g->o;
	CHECK(g->held_lines <= 2 * o->limit + 1024 && g->held_bytes <= 2 * o->max_bytes);
	CHECK(g->cur.nlines <= o->limit && g->cur.bytes <= o->max_bytes);
	CHECK(g->line.len <= GREP_MATCH_MAX && g->probe.len <= TOOL_PROBE);
	CHECK(g->nring <= GREP_CONTEXT_MAX);
	for (size_t i = 0; i < g->cur.nlines; i++)
		CHECK(strlen(g->cur.lines[i].text) <= 4 * GREP_LINE_MAX + 20);
}

/* Runs grep over the stream; the grep is left for the caller to free.
 * chunk 0: sizes from the generator. */
static int run_grep(struct grep *g, const struct grep_spec *o, const char *buf, size_t n, size_t chunk)
{
	char err[200];
	int rc = 0;
	grep_init(g, o);
	for (size_t off = 0; off < n && rc == 0;) {
		size_t k = chunk ? chunk : next_chunk(1500);
		if (k > n - off)
			k = n - off;
		rc = grep_feed(g, buf + off, k, err, sizeof(err));
		grep_bounds(g);
		off += k;
	}
	if (rc == 0)
		rc = grep_finish(g, err, sizeof(err));
	return rc;
}

static bool same_line(const struct grep_line *a, const struct grep_line *b)
{
	return a->no == b->no && a->match == b->match && a->sep == b->sep && strcmp(a->text, b->text) == 0;
}

/* b shows what a shows (the same files, lines, counts). */
static void same_output(const struct grep *a, const struct grep *b)
{
	CHECK(a->nfiles == b->nfiles && a->produced == b->produced && a->held_lines == b->held_lines);
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct grep_file *x = &a->files[i], *y = &b->files[i];
		CHECK(strcmp(x->path, y->path) == 0 && x->count == y->count && x->nlines == y->nlines);
		for (size_t k = 0; k < x->nlines; k++)
			CHECK(same_line(&x->lines[k], &y->lines[k]));
	}
}

/* bounded shows the unbounded run's output cut at its limit and
 * max_bytes: the same lines up to the first that does not fit. */
static void cut_output(const struct grep *all, const struct grep *bounded)
{
	const struct grep_spec *o = &bounded->o;
	bool content = o->mode == GREP_CONTENT;
	size_t lines = 0, bytes = 0, fi = 0;
	CHECK(all->produced == bounded->produced);
	for (size_t i = 0; i < all->nfiles; i++) {
		const struct grep_file *f = &all->files[i];
		size_t n = content ? f->nlines : 1, k = 0;
		for (; k < n; k++) {
			size_t b = quoted(f->path) + (content ? quoted(f->lines[k].text) : 0);
			if (lines == o->limit || bytes + b > o->max_bytes)
				break;
			lines++;
			bytes += b;
		}
		if (k == 0)
			break;
		CHECK(fi < bounded->nfiles);
		const struct grep_file *g = &bounded->files[fi++];
		CHECK(strcmp(g->path, f->path) == 0 && g->count == f->count);
		if (content) {
			CHECK(g->nlines == k);
			for (size_t j = 0; j < k; j++)
				CHECK(same_line(&g->lines[j], &f->lines[j]));
		}
		if (k < n)
			break;
	}
	CHECK(fi == bounded->nfiles && lines == bounded->held_lines);
}

/* The archive of the records "NAME\x01CONTENT\x02" in data. */
static void make_archive(const uint8_t *data, size_t size, struct sbuf *a)
{
	size_t i = 0;
	while (i < size) {
		struct sbuf name = {0};
		for (; i < size && data[i] != 1; i++)
			sbuf_addc(&name, data[i] ? (char)data[i] : 'x');
		i++;
		size_t start = i;
		while (i < size && data[i] != 2)
			i++;
		size_t end = i < size ? i : size;
		i++;
		tar_make_file(a, name.buf ? name.buf : "", start < size ? (const char *)data + start : "",
			      end > start ? end - start : 0);
		sbuf_free(&name);
	}
	tar_make_end(a);
}

static void fuzz_grep(const uint8_t *data, size_t size)
{
	if (size < 4)
		return;
	struct grep_spec o = {
		.mode = (enum grep_mode)(data[0] % 3),
		.rx = res[(data[0] >> 2) % ARRAY_LEN(patterns)],
		.limit = (size_t)(data[2] % 20) + 1,
		.max_bytes = data[3] & 1 ? (size_t)data[3] * 4 + 16 : (size_t)1 << 20,
		.base = data[3] & 2 ? "." : "dir/",
		.single = data[1] & 0x80 ? "one" : NULL,
	};
	if (o.mode == GREP_CONTENT) {
		o.before = data[1] % 4;
		o.after = (data[1] >> 2) % 4;
	}
	struct sbuf a = {0};
	make_archive(data + 4, size - 4, &a);

	struct grep *whole = xmalloc(sizeof(*whole)), *chunks = xmalloc(sizeof(*chunks));
	struct grep *all = xmalloc(sizeof(*all));
	struct grep_spec unbounded = o;
	unbounded.limit = (size_t)1 << 30;
	unbounded.max_bytes = (size_t)1 << 40;
	int rc1 = run_grep(whole, &o, a.buf, a.len, a.len);
	int rc2 = run_grep(chunks, &o, a.buf, a.len, 0);
	int rc3 = run_grep(all, &unbounded, a.buf, a.len, 0);
	CHECK(rc1 == rc2 && rc1 == rc3);
	if (rc1 == 0) {
		same_output(whole, chunks);
		cut_output(all, whole);
	}
	grep_free(whole);
	grep_free(chunks);
	grep_free(all);

	/* The input itself as the stream: whatever it holds. */
	run_grep(whole, &o, (const char *)data, size, 0);
	grep_free(whole);
	free(whole);
	free(chunks);
	free(all);
	sbuf_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool compiled;
	if (!compiled) {
		for (size_t i = 0; i < ARRAY_LEN(patterns); i++)
			if (rx_compile(patterns[i], 0, &res[i], NULL, NULL, 0) != RX_OK)
				abort();
		compiled = true;
	}
	rng_state = seed_of(data, size);
	fuzz_listing(data, size);
	fuzz_grep(data, size);
	return 0;
}
