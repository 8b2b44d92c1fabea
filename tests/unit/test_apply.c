/* test_apply.c: apply's writes into DIR (apply_copy), with a workspace
 * forged through copy_ctx's run: its listing and its tar stream made
 * here. What differs from cp: files are staged, checked against the
 * first pass and only then put in place; a stream that changes between
 * the passes, or files past max_size, write nothing; a link of DIR on
 * the way is refused even with --force; no staging is left behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "copy.h"
#include "copy_fetch.h"
#include "results.h"
#include "scripts.h"
#include "sha256.h"
#include "tap.h"
#include "tar_make.h"
#include "tools.h"
#include "util.h"

static char top[] = "/tmp/test_apply.XXXXXX";

/* The workspace: its listing, and the stream of each pass. */
static struct sbuf ws_listing, ws_tar[2];
static int ws_packs;

static int fake_run(struct copy_ctx *c, char *const *args, size_t nargs, struct feed *feed,
		    struct tool_out *out, struct err *e)
{
	(void)c, (void)nargs, (void)feed, (void)e;
	struct sbuf *b = strcmp(args[2], SCRIPT_MANIFEST) == 0 ? &ws_listing : &ws_tar[ws_packs++ > 0];
	sbuf_adds(&out->head, "OK");
	out->have_head = true;
	if (b->len && out->body(out->ctx, b->buf, b->len) < 0)
		out->stopped = true;
	return 0;
}

static const char *at(const char *rel)
{
	static char path[2][600];
	static int k;
	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", top, rel);
	return path[k];
}

/* A file of DIR, or of the workspace: its path, mode and bytes. */
struct file {
	const char *path;
	char type;
	unsigned mode;
	const char *data;
};

/* SCRIPT_MANIFEST's answer for these paths (and "."). */
static void listing(const struct file *v, size_t n)
{
	struct sbuf *l = &ws_listing;
	sbuf_reset(l);
	sbuf_add(l, ".", 2);
	for (size_t i = 0; i < n; i++) {
		sbuf_addf(l, "./%s", v[i].path);
		sbuf_addc(l, '\0');
	}
	sbuf_addc(l, '\0');
	sbuf_adds(l, "41ed 4096 .\n");
	for (size_t i = 0; i < n; i++)
		sbuf_addf(l, "%x %zu ./%s\n", (v[i].type == 'd' ? 040000 : 0100000) | v[i].mode,
			  v[i].type == 'd' ? 4096 : strlen(v[i].data), v[i].path);
	sbuf_adds(l, "--\n");
	for (size_t i = 0; i < n; i++) {
		char sha[65];
		if (v[i].type != 'f')
			continue;
		sha256_buf_hex(v[i].data, strlen(v[i].data), sha);
		sbuf_addf(l, "%s  ./%s\n", sha, v[i].path);
	}
}

/* DIR made afresh as the copy had it, and a context over it: a.txt and
 * the directory w. */
static void open_copy(struct copy_ctx *c, struct app *a)
{
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s/dir 2>/dev/null; rm -rf %s/dir", top, top);
	if (system(cmd) != 0)
		diag("cannot remove %s/dir", top);
	mkdir(at("dir"), 0755);
	mkdir(at("dir/w"), 0755);
	int fd = open(at("dir/a.txt"), O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write_all(fd, "old\n", 4) < 0)
		diag("cannot write a.txt");
	close(fd);
	copy_ctx_init(c, a);
	c->run = fake_run;
	c->base.dir = xstrdup(at("dir"));
	c->base_path = xstrdup(at("state"));
	struct copy_entry en = {.path = xstrdup("a.txt"), .type = 'f', .mode = 0644, .size = 4};
	sha256_buf_hex("old\n", 4, en.sha);
	copy_tree_add(&c->base.tree, &en);
	struct copy_entry w = {.path = xstrdup("w"), .type = 'd', .mode = 0755};
	copy_tree_add(&c->base.tree, &w);
	copy_tree_sort(&c->base.tree);
	c->root = open(c->base.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct err e = {0};
	copy_excl_init(&c->excl, &c->base.excludes, &e);
	ws_packs = 0;
}

static int run_apply(struct app *a, struct apply_result *r, struct err *e)
{
	struct copy_ctx c;
	open_copy(&c, a);
	*r = (struct apply_result){.force = a->o.apply.force};
	int rc = copy_ctx_list(&c, e);
	if (rc == 0)
		rc = apply_copy(&c, r, e);
	copy_ctx_free(&c);
	return rc;
}

static bool staging_left(void)
{
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "find %s/dir -name '.sandbox-*' | grep -q .", top);
	return system(cmd) == 0;
}

static bool holds(const char *rel, const char *data, unsigned mode)
{
	char buf[64] = "";
	struct stat st;
	int fd = open(at(rel), O_RDONLY | O_NOFOLLOW);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	bool same = fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == mode && n >= 0 &&
		    strcmp(buf, data) == 0;
	if (fd >= 0)
		close(fd);
	return same;
}

/* The workspace changed a.txt and made sub/new.sh. */
static const struct file changed[] = {
	{"a.txt", 'f', 0600, "new\n"}, {"sub", 'd', 0750, NULL}, {"sub/new.sh", 'f', 0755, "#!/bin/sh\n"},
	{"w", 'd', 0755, NULL}};

static void stream_changed(struct sbuf *t, const char *a_txt)
{
	sbuf_reset(t);
	tar_make_file(t, "./a.txt", a_txt, strlen(a_txt));
	tar_make_mode(t, 0, 0600);
	size_t second = t->len;
	tar_make_file(t, "./sub/new.sh", "#!/bin/sh\n", 10);
	tar_make_mode(t, second, 0755);
	tar_make_end(t);
}

int main(void)
{
	umask(022);
	if (!mkdtemp(top))
		return 1;
	static struct app a;
	struct apply_result r;
	struct err e = {0};

	listing(changed, ARRAY_LEN(changed));
	stream_changed(&ws_tar[0], "new\n");
	stream_changed(&ws_tar[1], "new\n");
	int rc = run_apply(&a, &r, &e);
	ok(rc == 0 && r.applied && !r.error, "applied (%s)", rc < 0 ? e.msg : r.error ? r.error : "ok");
	ok(holds("dir/a.txt", "new\n", 0600) && holds("dir/sub/new.sh", "#!/bin/sh\n", 0755),
	   "each file in place with its bytes and mode");
	struct stat st;
	ok(stat(at("dir/sub"), &st) == 0 && (st.st_mode & 07777) == 0750, "a new directory gets its mode last");
	ok(!staging_left(), "no staging directory, no temporary left");
	ok(ws_packs == 2, "the files travelled twice: looked at, then staged");
	apply_result_free(&r);

	/* The second pass brings other bytes than the first hashed. */
	stream_changed(&ws_tar[1], "NEW\n");
	e.msg[0] = '\0';
	rc = run_apply(&a, &r, &e);
	ok(rc < 0 && strstr(e.msg, "changed in the workspace during the apply; nothing was written"),
	   "a stream changed between the passes is refused (%s)", e.msg);
	ok(holds("dir/a.txt", "old\n", 0644) && access(at("dir/sub"), F_OK) != 0 && !staging_left(),
	   "and nothing was written, nothing staged is left");
	apply_result_free(&r);

	/* More than max_size to write. */
	stream_changed(&ws_tar[1], "new\n");
	a.cfg.max_size = 8;
	e.msg[0] = '\0';
	rc = run_apply(&a, &r, &e);
	ok(rc < 0 && strstr(e.msg, "max_size") && holds("dir/a.txt", "old\n", 0644) && !staging_left(),
	   "past max_size, nothing is written (%s)", e.msg);
	apply_result_free(&r);
	a.cfg.max_size = 0;

	/* DIR's w became a link out since the copy; the workspace writes
	 * in w. Even --force does not go through it. */
	mkdir(at("outside"), 0755);
	static const struct file in_w[] = {{"a.txt", 'f', 0644, "old\n"}, {"w", 'd', 0755, NULL},
					   {"w/x", 'f', 0644, "x\n"}};
	listing(in_w, ARRAY_LEN(in_w));
	sbuf_reset(&ws_tar[0]);
	tar_make_file(&ws_tar[0], "./w/x", "x\n", 2);
	tar_make_end(&ws_tar[0]);
	sbuf_reset(&ws_tar[1]);
	sbuf_add(&ws_tar[1], ws_tar[0].buf, ws_tar[0].len);
	a.o.apply.force = true;
	struct copy_ctx c;
	open_copy(&c, &a);
	rmdir(at("dir/w"));
	symlink("../outside", at("dir/w"));
	r = (struct apply_result){.force = true};
	rc = copy_ctx_list(&c, &e);
	if (rc == 0)
		rc = apply_copy(&c, &r, &e);
	copy_ctx_free(&c);
	ok(rc == 0 && r.refused == 1 && r.n == 1 && r.v[0].refused && strstr(r.v[0].why, "link"),
	   "a link of DIR on the way is refused, with --force too");
	ok(access(at("outside/x"), F_OK) != 0 && !staging_left(), "nothing through it");
	apply_result_free(&r);

	sbuf_free(&ws_listing);
	sbuf_free(&ws_tar[0]);
	sbuf_free(&ws_tar[1]);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", top, top);
	if (system(cmd) != 0)
		diag("cannot remove %s", top);
	return done_testing();
}
