/* fuzz_manifest.c: a libFuzzer target for what diff and apply read from
 * a workspace: SCRIPT_MANIFEST's answer, parsed by copy_manifest_parse
 * (src/host/copy.c), and the baseline's own encoding read back.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_manifest; to run it longer:
 *   build/fuzz/fuzz_manifest -max_total_time=600 build/fuzz/corpus_manifest tests/fuzz/corpus_manifest
 *
 * The seeds (tests/fuzz/corpus_manifest) are real answers of BusyBox
 * and Debian workspaces, and some with names holding newlines, names
 * given twice and lines that disagree. The input is parsed with and
 * without exclude patterns. Besides crashes and sanitizer reports, it
 * aborts when a parse that succeeds gives:
 * - a path that is no path of a tree (copy_path_bad), or one out of
 *   order or given twice;
 * - a type other than f, d, l or ?, a mode past 0777, a hash that is not
 *   64 lowercase hex digits (or empty), or a hash on what is no file;
 * - a path the patterns leave out;
 * - a tree that does not come back the same through the baseline's
 *   encoding;
 * - the answer fed in pieces parsing otherwise than whole. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "copy.h"
#include "fuzz.h"
#include "util.h"

static void check_tree(const struct copy_tree *t, const struct copy_excl *x)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct copy_entry *en = &t->v[i];
		CHECK(!copy_path_bad(en->path, strlen(en->path)));
		CHECK(i == 0 || copy_path_cmp(t->v[i - 1].path, en->path) < 0);
		CHECK(en->type && strchr("fdl?", en->type));
		CHECK(en->mode <= 0777);
		size_t n = strlen(en->sha);
		CHECK(n == 0 || (n == 64 && en->type == 'f' && strspn(en->sha, "0123456789abcdef") == 64));
		CHECK(!x || !copy_excluded(x, en->path, en->type == 'd'));
	}
}

/* The sure paths through the baseline's encoding and back. */
static void check_round_trip(const struct copy_tree *t)
{
	struct copy_base b = {.dir = xstrdup("/d")};
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].type == '?')
			continue;
		struct copy_entry e = t->v[i];
		e.path = xstrdup(e.path);
		e.target = e.type == 'l' ? xstrdup("t") : NULL;
		copy_tree_add(&b.tree, &e);
	}
	struct sbuf enc = {0};
	copy_base_encode(&enc, &b);
	struct copy_base back;
	CHECK(copy_base_decode(enc.buf, enc.len, &back, NULL) == 0);
	CHECK(back.tree.n == b.tree.n);
	for (size_t i = 0; i < b.tree.n; i++) {
		CHECK(strcmp(back.tree.v[i].path, b.tree.v[i].path) == 0);
		CHECK(back.tree.v[i].type == b.tree.v[i].type);
		CHECK(back.tree.v[i].mode == b.tree.v[i].mode);
		CHECK(back.tree.v[i].size == b.tree.v[i].size);
		CHECK(strcmp(back.tree.v[i].sha, b.tree.v[i].sha) == 0);
	}
	copy_base_free(&back);
	copy_base_free(&b);
	sbuf_free(&enc);
}

/* The same answer fed in pieces (their size from its first byte), as it
 * comes from the workspace: it parses exactly when whole it does, to
 * the same tree. */
static void check_pieces(const char *buf, size_t size, const struct copy_tree *whole, bool ok)
{
	size_t step = size ? (unsigned char)buf[0] % 13 + 1 : 1;
	struct copy_manifest m;
	struct copy_tree t;
	copy_manifest_init(&m, NULL, SIZE_MAX);
	int rc = 0;
	for (size_t at = 0; rc == 0 && at < size; at += step)
		rc = copy_manifest_feed(&m, buf + at, size - at < step ? size - at : step, NULL);
	if (rc == 0)
		rc = copy_manifest_finish(&m, &t, NULL);
	copy_manifest_free(&m);
	CHECK((rc == 0) == ok);
	if (rc != 0)
		return;
	CHECK(t.n == whole->n);
	for (size_t i = 0; i < t.n; i++) {
		CHECK(strcmp(t.v[i].path, whole->v[i].path) == 0);
		CHECK(t.v[i].type == whole->v[i].type && t.v[i].mode == whole->v[i].mode);
		CHECK(t.v[i].size == whole->v[i].size && strcmp(t.v[i].sha, whole->v[i].sha) == 0);
	}
	copy_tree_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct copy_tree t = {0};
	bool parsed = copy_manifest_parse(buf, size, NULL, &t, NULL) == 0;
	check_pieces(buf, size, &t, parsed);
	if (parsed) {
		check_tree(&t, NULL);
		check_round_trip(&t);
		copy_tree_free(&t);
	}
	struct strvec p = {0};
	strvec_push(&p, "*.o");
	strvec_push(&p, "/b/");
	strvec_push(&p, "a/**/c");
	struct copy_excl x;
	CHECK(copy_excl_init(&x, &p, NULL) == 0);
	if (copy_manifest_parse(buf, size, &x, &t, NULL) == 0) {
		check_tree(&t, &x);
		copy_tree_free(&t);
	}
	copy_excl_free(&x);
	strvec_clear(&p);
	/* The same bytes as a baseline: refused or sound. */
	struct copy_base b;
	if (copy_base_decode(buf, size, &b, NULL) == 0) {
		check_tree(&b.tree, NULL);
		copy_base_free(&b);
	}
	return 0;
}
