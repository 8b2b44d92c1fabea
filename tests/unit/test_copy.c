/* test_copy.c: copy workspaces' pure parts (copy.h): the order of
 * paths, which names a tree can hold, exclude patterns and
 * .sandboxignore, the baseline's encoding (and a damaged one refused),
 * and the workspace's listing read as hostile input: forged, repeated,
 * garbled and missing lines make a path unsure, never wrong. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "tap.h"
#include "util.h"

static void test_order(void)
{
	ok(copy_path_cmp("a/b", "a.c") < 0, "a/b sorts before a.c, as diff -r walks");
	ok(copy_path_cmp("a", "a/b") < 0, "a directory before what is in it");
	ok(copy_path_cmp("a-b", "a/b") > 0, "a-b after a/b");
	ok(copy_path_cmp("x", "x") == 0, "equal");
	ok(copy_path_cmp("a\001", "a/x") > 0 && copy_path_cmp("a/x", "a\001") < 0,
	   "a byte 0x01 sorts after '/', both ways round");
}

static void test_bad(void)
{
	const char *good[] = {"a", "a/b", ".git/HEAD", "..x", "a/.b", "x..", NULL};
	const char *bad[] = {"", "/a", "a//b", "./a", "a/./b", "a/..", "..", "a/", NULL};
	for (int i = 0; good[i]; i++)
		ok(!copy_path_bad(good[i], strlen(good[i])), "'%s' is a path", good[i]);
	for (int i = 0; bad[i]; i++)
		ok(copy_path_bad(bad[i], strlen(bad[i])) != NULL, "'%s' is refused", bad[i]);
	ok(copy_path_bad("a\0b", 3) != NULL, "a NUL is refused");
}

static void test_excl(void)
{
	struct strvec p = {0};
	struct err e = {0};
	const char *text = "# comment\n*.o  \n\n/build/\ndocs/*.tmp\r\nnode_modules\n";
	ok(copy_ignore_parse(text, strlen(text), ".sandboxignore", &p, &e) == 0, "parsed");
	is_int((long long)p.n, 4, "four patterns");
	is_str(p.v[0], "*.o", "trailing spaces cut");
	is_str(p.v[2], "docs/*.tmp", "a CR cut");
	struct copy_excl x;
	ok(copy_excl_init(&x, &p, &e) == 0, "compiled");
	ok(copy_excluded(&x, "a.o", false), "*.o at the top");
	ok(copy_excluded(&x, "src/deep/a.o", false), "*.o at any depth");
	ok(copy_excluded(&x, "build", true), "/build/ the directory");
	ok(!copy_excluded(&x, "build", false), "/build/ not a file so named");
	ok(copy_excluded(&x, "build/x/y.c", false), "what is under an excluded directory");
	ok(!copy_excluded(&x, "src/build/y.c", false), "/build/ is anchored at the top");
	ok(copy_excluded(&x, "docs/a.tmp", false), "a pattern with a slash, from the top");
	ok(!copy_excluded(&x, "x/docs/a.tmp", false), "... only from the top");
	ok(copy_excluded(&x, "web/node_modules/m/index.js", false), "a name at any depth, and below it");
	ok(!copy_excluded(&x, "src/main.c", false), "the rest stays");
	ok(copy_prunable("*.o") && copy_prunable("node_modules"), "plain names are pruned in the workspace");
	ok(!copy_prunable("/build/") && !copy_prunable("docs/*.tmp") && !copy_prunable("[ab].c"),
	   "others are left to the host");
	copy_excl_free(&x);
	strvec_clear(&p);
	ok(copy_ignore_parse("!keep\n", 6, "f", &p, &e) < 0 && strstr(e.msg, "f:1:"),
	   "'!' refused, with its line: %s", e.msg);
	strvec_clear(&p);
	strvec_push(&p, "a{b");
	ok(copy_excl_init(&x, &p, &e) < 0 && strstr(e.msg, "exclude 'a{b'"), "a bad pattern: %s", e.msg);
	strvec_clear(&p);
}

static void test_base(void)
{
	struct copy_base b = {.dir = xstrdup("/src/proj")};
	strvec_push(&b.excludes, "*.o");
	struct copy_entry f = {.path = xstrdup("a/b.c"), .type = 'f', .mode = 0644, .size = 3};
	memset(f.sha, 'a', 64);
	struct copy_entry d = {.path = xstrdup("a"), .type = 'd', .mode = 0755};
	struct copy_entry l = {.path = xstrdup("lnk"), .type = 'l', .mode = 0777, .target = xstrdup("../x y")};
	copy_tree_add(&b.tree, &f);
	copy_tree_add(&b.tree, &d);
	copy_tree_add(&b.tree, &l);
	copy_tree_sort(&b.tree);
	struct sbuf enc = {0};
	copy_base_encode(&enc, &b);
	struct copy_base back;
	struct err e = {0};
	ok(copy_base_decode(enc.buf, enc.len, &back, &e) == 0, "decoded: %s", e.msg);
	is_str(back.dir, "/src/proj", "its DIR");
	is_int((long long)back.excludes.n, 1, "its pattern");
	is_int((long long)back.tree.n, 3, "its paths");
	struct copy_entry *x = copy_tree_find(&back.tree, "a/b.c");
	ok(x && x->type == 'f' && x->mode == 0644 && x->size == 3 && x->sha[0] == 'a', "a file");
	x = copy_tree_find(&back.tree, "lnk");
	ok(x && x->type == 'l' && strcmp(x->target, "../x y") == 0, "a link");
	copy_base_free(&back);
	for (size_t cut = 1; cut < enc.len; cut += 7) {
		struct copy_base c;
		if (copy_base_decode(enc.buf, cut, &c, &e) == 0) {
			/* Cut at the end of an entry is a shorter baseline. */
			ok(enc.buf[cut - 1] == '\0', "cut at %zu is at a field's end", cut);
			copy_base_free(&c);
		}
	}
	struct sbuf bad = {0};
	sbuf_add(&bad, enc.buf, enc.len);
	for (size_t i = 0; i + 5 <= bad.len; i++)
		if (memcmp(bad.buf + i, "a/b.c", 5) == 0)
			memcpy(bad.buf + i, "../..", 5);
	ok(copy_base_decode(bad.buf, bad.len, &back, &e) < 0, "a path with '..' is damage");
	sbuf_free(&bad);
	sbuf_free(&enc);
	copy_base_free(&b);
}

/* A listing as the script writes it: names, stat lines, "--", hashes. */
static const char sha_a[] = "1111111111111111111111111111111111111111111111111111111111111111";
static const char sha_b[] = "2222222222222222222222222222222222222222222222222222222222222222";

static int parse(const char *buf, size_t len, struct copy_tree *t, struct err *e)
{
	return copy_manifest_parse(buf, len, NULL, t, e);
}

static void test_manifest(void)
{
	struct sbuf m = {0};
	static const char names[] = ".\0./a\0./d\0./d/f\0./l\0./fifo\0./nl\nx\0./twice\0./twice\0./nostat\0";
	sbuf_add(&m, names, sizeof(names));
	sbuf_addf(&m, "41ed 4096 .\n81a4 3 ./a\n41ed 4096 ./d\n81ed 5 ./d/f\na1ff 4 ./l\n"
		      "11a4 0 ./fifo\n81a4 1 ./nl\nx\n81a4 1 ./twice\n81a4 1 ./twice\n"
		      "zz garbage\n81a4 9 ./not-listed\n--\n");
	sbuf_addf(&m, "%s  ./a\n%s  ./d/f\n%s  ./d/f\n\\%s  ./escaped\n%s  ./not-listed\n", sha_a, sha_a,
		  sha_b, sha_a, sha_b);
	struct copy_tree t;
	struct err e = {0};
	ok(parse(m.buf, m.len, &t, &e) == 0, "parsed: %s", e.msg);
	struct copy_entry *x = copy_tree_find(&t, "a");
	ok(x && x->type == 'f' && x->mode == 0644 && x->size == 3 && strcmp(x->sha, sha_a) == 0, "a file, sure");
	x = copy_tree_find(&t, "d");
	ok(x && x->type == 'd' && x->mode == 0755, "a directory");
	x = copy_tree_find(&t, "d/f");
	ok(x && x->type == 'f' && x->mode == 0755 && !x->sha[0], "two hashes that disagree: none");
	x = copy_tree_find(&t, "l");
	ok(x && x->type == 'l', "a link");
	ok(!copy_tree_find(&t, "fifo"), "a FIFO is left out");
	x = copy_tree_find(&t, "nl\nx");
	ok(x && x->type == '?', "a name with a newline: unsure");
	x = copy_tree_find(&t, "twice");
	ok(x && x->type == '?', "a name given twice: unsure");
	x = copy_tree_find(&t, "nostat");
	ok(x && x->type == '?', "a name without a stat line: unsure");
	ok(!copy_tree_find(&t, "not-listed") && !copy_tree_find(&t, "escaped"),
	   "lines for names not listed are ignored");
	for (size_t i = 1; i < t.n; i++)
		ok(copy_path_cmp(t.v[i - 1].path, t.v[i].path) < 0, "sorted, each once (%zu)", i);
	copy_tree_free(&t);
	sbuf_free(&m);

	const char *forged[] = {"./a/../../x", "/etc/passwd", "./a//b", "./", "x", "./a/"};
	for (size_t i = 0; i < sizeof(forged) / sizeof(*forged); i++) {
		sbuf_reset(&m);
		sbuf_add(&m, forged[i], strlen(forged[i]) + 1);
		sbuf_add(&m, "", 1);
		ok(parse(m.buf, m.len, &t, &e) < 0 && strstr(e.msg, "nothing was done"),
		   "'%s' refused: %s", forged[i], e.msg);
	}
	sbuf_reset(&m);
	sbuf_add(&m, "./a\0./b", 7);
	ok(parse(m.buf, m.len, &t, &e) < 0 && strstr(e.msg, "cut short"), "no end of the names: %s", e.msg);
	sbuf_free(&m);

	/* Patterns apply to the listing too. */
	struct strvec p = {0};
	strvec_push(&p, "*.o");
	strvec_push(&p, "/build/");
	struct copy_excl xs;
	copy_excl_init(&xs, &p, &e);
	static const char names2[] = "./a.o\0./build\0./build/x\0./keep\0";
	sbuf_add(&m, names2, sizeof(names2));
	sbuf_adds(&m, "81a4 1 ./a.o\n41ed 1 ./build\n81a4 1 ./build/x\n81a4 1 ./keep\n--\n");
	ok(copy_manifest_parse(m.buf, m.len, &xs, &t, &e) == 0 && t.n == 1 && strcmp(t.v[0].path, "keep") == 0,
	   "what the patterns leave out is not in the tree");
	copy_tree_free(&t);
	copy_excl_free(&xs);
	strvec_clear(&p);
	sbuf_free(&m);
}

/* Version-control metadata: any component, any case, the names other
 * filesystems take for it. */
static void test_vcs(void)
{
	const char *yes[] = {".git", ".git/config", "a/.git", "a/.git/modules/b/config", "sub/.GIT",
			     ".Git./x", ".git /x", "GIT~1/HEAD", ".hg/hgrc", "x/.svn/entries", ".jj/repo",
			     "_darcs/prefs", ".bzr/branch", NULL};
	const char *no[] = {".gitignore", ".gitmodules", ".gitattributes", "git", "a.git", ".github/x",
			    "x/.gitkeep", ".hgignore", "svn", "..git", NULL};
	for (int i = 0; yes[i]; i++)
		ok(copy_path_vcs(yes[i]), "'%s' is version-control metadata", yes[i]);
	for (int i = 0; no[i]; i++)
		ok(!copy_path_vcs(no[i]), "'%s' is not", no[i]);
}

/* The listing fed in pieces of every size gives the tree it gives
 * whole; past its budget, it stops, with nothing kept. */
static void test_manifest_stream(void)
{
	struct sbuf m = {0};
	static const char names[] = "./a\0./d\0./d/f\0./l\0./twice\0./twice\0";
	sbuf_add(&m, names, sizeof(names));
	sbuf_addf(&m, "81a4 3 ./a\n41ed 4096 ./d\n81ed 5 ./d/f\na1ff 4 ./l\n--\n%s  ./a\n%s  ./d/f\n",
		  sha_a, sha_b);
	struct copy_tree whole;
	struct err e = {0};
	ok(parse(m.buf, m.len, &whole, &e) == 0, "whole: %s", e.msg);
	for (size_t step = 1; step <= 17; step += 4) {
		struct copy_manifest mf;
		struct copy_tree t;
		copy_manifest_init(&mf, NULL, (size_t)1 << 20);
		int rc = 0;
		for (size_t at = 0; rc == 0 && at < m.len; at += step)
			rc = copy_manifest_feed(&mf, m.buf + at, m.len - at < step ? m.len - at : step, &e);
		rc = rc == 0 ? copy_manifest_finish(&mf, &t, &e) : rc;
		bool same = rc == 0 && t.n == whole.n;
		for (size_t i = 0; same && i < t.n; i++)
			same = strcmp(t.v[i].path, whole.v[i].path) == 0 && t.v[i].type == whole.v[i].type &&
			       t.v[i].mode == whole.v[i].mode && strcmp(t.v[i].sha, whole.v[i].sha) == 0;
		ok(same, "in pieces of %zu bytes: the same tree", step);
		if (rc == 0)
			copy_tree_free(&t);
		copy_manifest_free(&mf);
	}
	copy_tree_free(&whole);

	/* An endless list of names: stopped at the budget. */
	struct copy_manifest mf;
	copy_manifest_init(&mf, NULL, 64 << 10);
	char name[32];
	int rc = 0;
	size_t i;
	for (i = 0; rc == 0 && i < 100000; i++) {
		int n = snprintf(name, sizeof(name), "./f%zu", i);
		rc = copy_manifest_feed(&mf, name, (size_t)n + 1, &e);
	}
	ok(rc < 0 && strstr(e.msg, "more than the copy had") && i < 2000,
	   "an endless listing stops at its budget (%zu names): %s", i, e.msg);
	ok(copy_manifest_feed(&mf, "", 1, &e) < 0, "and stays stopped");
	copy_manifest_free(&mf);
	/* A name longer than a path can be: stopped before it is kept. */
	copy_manifest_init(&mf, NULL, SIZE_MAX);
	sbuf_reset(&m);
	sbuf_adds(&m, "./");
	for (int k = 0; k < COPY_PATH_MAX + 10; k++)
		sbuf_addc(&m, 'a');
	ok(copy_manifest_feed(&mf, m.buf, m.len, &e) < 0 && strstr(e.msg, "too long"), "an endless name: %s",
	   e.msg);
	copy_manifest_free(&mf);
	sbuf_free(&m);
}

static void test_review(void)
{
	struct copy_review r = {0}, back;
	memcpy(r.id, sha_a, 65);
	copy_review_add(&r, sha_b, "a/b");
	copy_review_add(&r, sha_a, "nl\nname");
	struct sbuf data = {0};
	copy_review_encode(&data, &r);
	ok(copy_review_decode(data.buf, data.len, &back) == 0 && back.n == 2 && strcmp(back.id, sha_a) == 0 &&
	   strcmp(back.v[0].path, "a/b") == 0 && strcmp(back.v[0].hash, sha_b) == 0 &&
	   strcmp(back.v[1].path, "nl\nname") == 0, "a review record, read back");
	copy_review_free(&back);
	ok(copy_review_decode(data.buf, data.len - 1, &back) < 0, "cut short: refused");
	data.buf[20] = 'X';
	ok(copy_review_decode(data.buf, data.len, &back) < 0, "a damaged ID: refused");
	copy_review_free(&r);
	sbuf_free(&data);
}

int main(void)
{
	test_order();
	test_bad();
	test_excl();
	test_base();
	test_manifest();
	test_vcs();
	test_manifest_stream();
	test_review();
	return done_testing();
}
