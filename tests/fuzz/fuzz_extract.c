/* fuzz_extract.c: a libFuzzer target for the writers under a directory
 * of the host (src/host/hostdir.c): cp's extraction of a workspace's tar
 * stream (src/host/extract.c, as cmd_cp.c drives it: staged, moved into
 * place, directory modes last) and apply's writes into DIR from a
 * workspace's listing and tar stream (src/cmd/cmd_apply.c's apply_copy, the
 * workspace forged through copy_ctx's run). Whatever the bytes, nothing
 * may be written outside the directory, nor through a link.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_extract; to run it longer:
 *   build/fuzz/fuzz_extract -max_total_time=600 build/fuzz/corpus_extract tests/fuzz/corpus_extract
 *
 * An input is a byte of flags, 4 bytes that seed the chunking, then:
 * - flags bit 0 clear, cp: a tar stream, extracted into DEST, an
 *   existing directory, as `sandbox cp WS:src DEST` (bit 1: `WS:src/.`,
 *   the contents; bit 2: src a file, one entry);
 * - bit 0 set, apply: SCRIPT_MANIFEST's answer, "=TAR=\n", then the tar
 *   stream SCRIPT_PACK sends (the same for both passes), applied to a
 *   DIR whose baseline is fixed here (bit 1: --force).
 * The seeds (tests/fuzz/corpus_extract) are made by
 * tests/fuzz/seeds_extract.py: valid streams, '..' and absolute names,
 * a symlink then a file or a directory through it, hard links out,
 * long names, one type after another at a path; for apply, listings
 * that add, change, retype and remove, through DIR's links too.
 *
 * Each input runs in a fresh directory P, which holds DEST (or DIR),
 * seeded with links out of it (to P/sentinel, relative and absolute),
 * and beside it P/sentinel, a directory holding one file. After the
 * run, besides crashes and sanitizer reports, it aborts when:
 * - P holds anything but DEST, the sentinel (and apply's state
 *   directory, its baseline's), or DEST or the sentinel was replaced;
 * - the sentinel holds anything but its file, or that file changed;
 * - DEST holds a path (walked with lstat, following no link) that no
 *   entry or listing line named, nor a directory on its way, nor the
 *   seed: a file written through a link shows up there, under the
 *   link's target, and so does a temporary or a staging directory left
 *   behind.
 * A link a write could follow out of P must not exist, for a bug would
 * then write on this machine: cp's link targets that are absolute or
 * climb with ".." become P/sentinel's absolute path (the writers never
 * read a target, only write it); an apply input with such a target,
 * other than the way to P/sentinel, is skipped. So every link points
 * below itself or at the sentinel, where the checks above look. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "copy.h"
#include "copy_fetch.h"
#include "extract.h"
#include "fuzz.h"
#include "hostdir.h"
#include "results.h"
#include "scripts.h"
#include "sha256.h"
#include "tar.h"
#include "tools.h"
#include "util.h"

#define FZ_SENTINEL "sentinel\n"

/* The run's directories and what it may leave in DEST. */
static struct fz {
	char base[64];           /* made once: each run's P goes in it */
	char p[96];              /* P */
	char dest[128];          /* P/dest: DEST, or DIR */
	char sentinel[128];      /* P/sentinel, absolute */
	ino_t dest_ino, sent_ino, keep_ino;
	struct strvec allowed;   /* paths DEST may hold, sorted at the end */
	const uint8_t *chunk_seed;
	/* apply: the workspace's two answers */
	const char *listing, *tar;
	size_t listing_len, tar_len;
} fz;

static struct tar_reader fz_tr;

/* ---- P, made and checked ---- */

static void fz_base_remove(void)
{
	rmdir(fz.base);
}

static void fz_allow(const char *path)
{
	/* The path and each directory on its way. */
	for (const char *s = path; *path && (s = strchr(s, '/')); s++)
		strvec_pushf(&fz.allowed, "%.*s", (int)(s - path), path);
	if (*path)
		strvec_push(&fz.allowed, path);
}

static void fz_file(const char *path, const char *data, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	CHECK(fd >= 0 && write_all(fd, data, strlen(data)) == 0 && close(fd) == 0);
}

static ino_t fz_ino(const char *path)
{
	struct stat st;
	CHECK(lstat(path, &st) == 0);
	return st.st_ino;
}

/* P, its sentinel, and DEST with the seed both modes start from: links
 * out of it, relative and absolute, at its top and in src. */
static void fz_make(void)
{
	if (!fz.base[0]) {
		umask(022);
		const char *tmp = getenv("TMPDIR");
		snprintf(fz.base, sizeof(fz.base), "%s/fuzz_extract.XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
		CHECK(mkdtemp(fz.base) != NULL);
		atexit(fz_base_remove);
	}
	snprintf(fz.p, sizeof(fz.p), "%s/p", fz.base);
	snprintf(fz.dest, sizeof(fz.dest), "%s/dest", fz.p);
	snprintf(fz.sentinel, sizeof(fz.sentinel), "%s/sentinel", fz.p);
	CHECK(mkdir(fz.p, 0700) == 0 && mkdir(fz.dest, 0755) == 0 && mkdir(fz.sentinel, 0755) == 0);
	char path[256];
	snprintf(path, sizeof(path), "%s/keep", fz.sentinel);
	fz_file(path, FZ_SENTINEL, 0644);
	fz.keep_ino = fz_ino(path);
	fz.dest_ino = fz_ino(fz.dest);
	fz.sent_ino = fz_ino(fz.sentinel);
	int root = open(fz.dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(root >= 0);
	CHECK(symlinkat("../sentinel", root, "l") == 0 && symlinkat(fz.sentinel, root, "abs") == 0);
	CHECK(mkdirat(root, "src", 0755) == 0 && symlinkat("../../sentinel", root, "src/l") == 0);
	CHECK(symlinkat(fz.sentinel, root, "src/abs") == 0);
	close(root);
	fz_allow("l");
	fz_allow("abs");
	fz_allow("src/l");
	fz_allow("src/abs");
}

/* The directory at rel under root, one component at a time, following
 * no link: the checks' own walk, not the one they check. */
static int fz_open(int root, const char *rel)
{
	int fd = dup(root);
	for (const char *p = rel; fd >= 0 && *p;) {
		size_t n = strcspn(p, "/");
		char *comp = xstrndup(p, n);
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		free(comp);
		close(fd);
		fd = next;
		p += n;
		p += *p == '/';
	}
	return fd;
}

/* Every path under the directory rel of root, passed to each with its
 * directory's fd, what is in a directory before it (so that each may
 * remove it). A directory is made ours to read first: a stream may have
 * left it 0000. No descriptor stays open on the way down, so that no
 * depth of tree runs out of them. */
static void fz_walk(int root, struct sbuf *rel,
		    void (*each)(int dirfd, const char *name, const char *rel, bool dir))
{
	int fd = fz_open(root, rel->buf);
	CHECK(fd >= 0);
	DIR *d = fdopendir(fd);
	CHECK(d != NULL);
	struct strvec names = {0};
	struct sbuf dirs = {0};
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		struct stat st;
		CHECK(fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0);
		bool dir = S_ISDIR(st.st_mode);
		if (dir)
			CHECK(fchmodat(dirfd(d), de->d_name, 0700, 0) == 0);
		strvec_push(&names, de->d_name);
		sbuf_addc(&dirs, dir);
	}
	closedir(d);
	size_t len = rel->len;
	for (int pass = 0; pass < 2; pass++) {
		int pfd = pass ? fz_open(root, rel->buf) : -1;
		CHECK(!pass || pfd >= 0);
		for (size_t i = 0; i < names.n; i++) {
			if (len)
				sbuf_addc(rel, '/');
			sbuf_adds(rel, names.v[i]);
			if (!pass && dirs.buf[i])
				fz_walk(root, rel, each);
			else if (pass)
				each(pfd, names.v[i], rel->buf, dirs.buf[i]);
			rel->len = len;
			rel->buf[len] = '\0';
		}
		if (pfd >= 0)
			close(pfd);
	}
	strvec_clear(&names);
	sbuf_free(&dirs);
}

static int fz_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void fz_check_one(int dirfd, const char *name, const char *rel, bool dir)
{
	(void)dirfd, (void)name, (void)dir;
	const char *key = rel;
	if (!bsearch(&key, fz.allowed.v, fz.allowed.n, sizeof(char *), fz_cmp)) {
		fprintf(stderr, "fuzz_extract: DEST holds %s, which nothing named\n", rel);
		CHECK(!"DEST holds only what was named");
	}
}

static void fz_remove_one(int dirfd, const char *name, const char *rel, bool dir)
{
	(void)rel;
	CHECK(unlinkat(dirfd, name, dir ? AT_REMOVEDIR : 0) == 0);
}

/* Walks P, following no link: only DEST, the sentinel and (apply) the
 * state directory; the sentinel whole; DEST holding only what was
 * named. */
static void fz_check(bool state)
{
	DIR *d = opendir(fz.p);
	CHECK(d != NULL);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		CHECK(!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "dest") || !strcmp(n, "sentinel") ||
		      (state && !strcmp(n, "state")));
	}
	closedir(d);
	struct stat st;
	CHECK(lstat(fz.dest, &st) == 0 && S_ISDIR(st.st_mode) && st.st_ino == fz.dest_ino);
	CHECK(lstat(fz.sentinel, &st) == 0 && S_ISDIR(st.st_mode) && st.st_ino == fz.sent_ino);
	d = opendir(fz.sentinel);
	CHECK(d != NULL);
	while ((de = readdir(d)))
		CHECK(!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, "keep"));
	closedir(d);
	char path[256], buf[64];
	snprintf(path, sizeof(path), "%s/keep", fz.sentinel);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == fz.keep_ino);
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	CHECK(n == (ssize_t)strlen(FZ_SENTINEL) && memcmp(buf, FZ_SENTINEL, (size_t)n) == 0);

	qsort(fz.allowed.v, fz.allowed.n, sizeof(char *), fz_cmp);
	CHECK(chmod(fz.dest, 0700) == 0);
	int root = open(fz.dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	CHECK(root >= 0);
	struct sbuf rel = {0};
	sbuf_adds(&rel, "");
	fz_walk(root, &rel, fz_check_one);
	close(root);
	sbuf_free(&rel);
}

static void fz_remove(void)
{
	int fd = open(fz.base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0);
	struct sbuf rel = {0};
	sbuf_adds(&rel, "");
	fz_walk(fd, &rel, fz_remove_one);
	close(fd);
	sbuf_free(&rel);
	strvec_clear(&fz.allowed);
}

/* Whether a link's target could lead a write out of P: absolute, or
 * with a ".." component. */
static bool fz_climbs(const char *target)
{
	if (target[0] == '/')
		return true;
	for (const char *p = target; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		p += *p == '/';
	}
	return false;
}

/* ---- cp: the stream extracted into DEST ---- */

struct fz_cp {
	struct extract x;
	const char *top, *top_as;
	struct err err;
};

static int fz_cp_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct fz_cp *c = ctx;
	(void)size;
	struct sbuf clean = {0}, mapped = {0};
	if (!extract_name(name, &clean) && !extract_map(clean.buf, c->top, c->top_as, &mapped))
		fz_allow(mapped.buf);
	sbuf_free(&clean);
	sbuf_free(&mapped);
	const char *link = fz_tr.link;
	if (type == '2' && fz_climbs(link))
		link = fz.sentinel;
	return extract_entry(&c->x, name, type, fz_tr.mode, fz_tr.mtime, link, &c->err);
}

static int fz_cp_data(void *ctx, const char *buf, size_t n)
{
	struct fz_cp *c = ctx;
	return extract_data(&c->x, buf, n, &c->err);
}

static int fz_cp_end(void *ctx)
{
	struct fz_cp *c = ctx;
	return extract_end(&c->x, &c->err);
}

/* As cmd_cp.c's copy_out: staged beside DEST's entries, then moved in,
 * then the directories' modes and mtimes. */
static void fz_cp(uint8_t flags, const char *tar, size_t n)
{
	bool contents = flags & 2, one = !contents && (flags & 4);
	struct fz_cp c = {.top = contents ? NULL : "src", .top_as = contents ? NULL : "src"};
	int root = open(fz.dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(root >= 0);
	char stage[40];
	CHECK(hostdir_name(stage, sizeof(stage), EXTRACT_TMP) == 0);
	int sfd = hostdir_stage(root, stage);
	CHECK(sfd >= 0);
	extract_init(&c.x, sfd, c.top, c.top_as);
	c.x.top_only = one;
	struct tar_sink sink = {.ctx = &c, .entry = fz_cp_entry, .data = fz_cp_data, .end = fz_cp_end};
	tar_init(&fz_tr, &sink);
	struct fuzz_chunks chunks;
	fuzz_chunks_init(&chunks, fz.chunk_seed);
	char msg[300];
	int rc = 0;
	for (size_t at = 0; at < n && rc == 0;) {
		size_t k = fuzz_chunk_next(&chunks, n - at);
		rc = tar_feed(&fz_tr, tar + at, k, msg, sizeof(msg));
		at += k;
	}
	if (rc == 0)
		rc = tar_finish(&fz_tr, msg, sizeof(msg));
	if (rc == 0)
		rc = hostdir_move(sfd, root, &c.err);
	c.x.root = root;
	if (rc == 0)
		rc = extract_finish(&c.x, &c.err);
	if (rc < 0 && c.err.kind != ERR_NONE)
		CHECK(c.err.msg[0] != '\0');
	extract_free(&c.x);
	close(sfd);
	hostdir_remove(root, stage);
	close(root);
}

/* ---- apply: the listing and the stream applied to DIR ---- */

/* DIR as the copy had it, and its baseline: files, a directory, links
 * out of DIR, version-control metadata; and one file made since. */
static void fz_dir_seed(struct copy_base *b)
{
	static const struct {
		const char *path;
		char type;
		unsigned mode;
		const char *data; /* a file's bytes, a link's target ("" P/sentinel) */
	} seed[] = {
		{"a", 'd', 0755, NULL},
		{"a/f", 'f', 0644, "hello\n"},
		{"a/up", 'l', 0777, "../../sentinel"},
		{"g", 'f', 0600, "x"},
		{".git", 'd', 0755, NULL},
		{".git/config", 'f', 0644, "[core]\n"},
	};
	char path[512];
	for (size_t i = 0; i < ARRAY_LEN(seed); i++) {
		snprintf(path, sizeof(path), "%s/%s", fz.dest, seed[i].path);
		struct copy_entry en = {.path = xstrdup(seed[i].path), .type = seed[i].type, .mode = seed[i].mode};
		if (seed[i].type == 'd') {
			CHECK(mkdir(path, seed[i].mode) == 0);
		} else if (seed[i].type == 'f') {
			fz_file(path, seed[i].data, seed[i].mode);
			en.size = strlen(seed[i].data);
			sha256_buf_hex(seed[i].data, en.size, en.sha);
		} else {
			CHECK(symlink(seed[i].data, path) == 0);
			en.target = xstrdup(seed[i].data);
		}
		copy_tree_add(&b->tree, &en);
		fz_allow(seed[i].path);
	}
	/* The links fz_make made. */
	const char *links[][2] = {{"l", "../sentinel"}, {"abs", fz.sentinel}, {"src", NULL},
				  {"src/l", "../../sentinel"}, {"src/abs", fz.sentinel}};
	for (size_t i = 0; i < ARRAY_LEN(links); i++) {
		struct copy_entry en = {.path = xstrdup(links[i][0]), .type = links[i][1] ? 'l' : 'd',
					.mode = links[i][1] ? 0777 : 0755};
		en.target = links[i][1] ? xstrdup(links[i][1]) : NULL;
		copy_tree_add(&b->tree, &en);
	}
	/* Made since, in DIR: a file, and a link where the copy had a
	 * directory. */
	snprintf(path, sizeof(path), "%s/a/new", fz.dest);
	fz_file(path, "made since\n", 0644);
	fz_allow("a/new");
	struct copy_entry w = {.path = xstrdup("w"), .type = 'd', .mode = 0755};
	copy_tree_add(&b->tree, &w);
	snprintf(path, sizeof(path), "%s/w", fz.dest);
	CHECK(symlink("../sentinel", path) == 0);
	fz_allow("w");
	copy_tree_sort(&b->tree);
}

/* What the workspace answers: the listing, or the stream, in chunks, as
 * tool_run would hand them to out's body. */
static int fz_run(struct copy_ctx *c, char *const *args, size_t nargs, struct feed *feed,
		  struct tool_out *out, struct err *e)
{
	(void)c, (void)feed, (void)e;
	CHECK(nargs >= 3);
	bool listing = strcmp(args[2], SCRIPT_MANIFEST) == 0;
	CHECK(listing || strcmp(args[2], SCRIPT_PACK) == 0);
	const char *buf = listing ? fz.listing : fz.tar;
	size_t n = listing ? fz.listing_len : fz.tar_len;
	sbuf_adds(&out->head, "OK");
	out->have_head = true;
	struct fuzz_chunks chunks;
	fuzz_chunks_init(&chunks, fz.chunk_seed);
	for (size_t at = 0; at < n;) {
		size_t k = fuzz_chunk_next(&chunks, n - at);
		if (out->body(out->ctx, buf + at, k) < 0) {
			out->stopped = true;
			break;
		}
		at += k;
	}
	return 0;
}

/* Whether the stream holds a link whose target could lead out of P:
 * one that climbs, but for the way from its place to P/sentinel. */
struct fz_scan {
	bool out;
};

static int fz_scan_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct fz_scan *s = ctx;
	(void)size;
	if (type != '2' || !fz_climbs(fz_tr.link) || strcmp(fz_tr.link, fz.sentinel) == 0)
		return 0;
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	struct sbuf way = {0};
	sbuf_adds(&way, "../");
	for (const char *p = name; (p = strchr(p, '/')) && p[1]; p++)
		sbuf_adds(&way, "../");
	sbuf_adds(&way, "sentinel");
	s->out |= strcmp(fz_tr.link, way.buf) != 0;
	sbuf_free(&way);
	return 0;
}

static bool fz_leads_out(const char *tar, size_t n)
{
	struct fz_scan s = {0};
	struct tar_sink sink = {.ctx = &s, .entry = fz_scan_entry};
	char msg[300];
	tar_init(&fz_tr, &sink);
	tar_feed(&fz_tr, tar, n, msg, sizeof(msg));
	return s.out;
}

static void fz_apply(uint8_t flags)
{
	static struct app a;
	a.cfg.max_size = 1 << 20;
	a.o.apply.force = flags & 2;
	struct copy_ctx c;
	copy_ctx_init(&c, &a);
	c.run = fz_run;
	c.base.dir = xstrdup(fz.dest);
	strvec_push(&c.base.excludes, "/.sandbox-apply-*/");
	fz_dir_seed(&c.base);
	char state[128];
	snprintf(state, sizeof(state), "%s/state", fz.p);
	CHECK(mkdir(state, 0700) == 0);
	c.base_path = xasprintf("%s/base", state);
	c.root = open(fz.dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(c.root >= 0);
	struct err e = {0};
	CHECK(copy_excl_init(&c.excl, &c.base.excludes, &e) == 0);
	if (copy_ctx_list(&c, &e) == 0) {
		for (size_t i = 0; i < c.now.n; i++)
			fz_allow(c.now.v[i].path);
		struct apply_result r = {.force = a.o.apply.force};
		if (apply_copy(&c, &r, &e) < 0)
			CHECK(e.msg[0] != '\0');
		apply_result_free(&r);
	} else {
		CHECK(e.msg[0] != '\0');
	}
	copy_ctx_free(&c);
}

/* Where needle first is in the n bytes at hay, or NULL. */
static const char *fz_find(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return hay + i;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	uint8_t flags = data[0];
	fz.chunk_seed = data + 1;
	const char *rest = (const char *)data + 5;
	size_t n = size - 5;
	if (flags & 1) {
		const char *at = fz_find(rest, n, "=TAR=\n");
		fz.listing = rest;
		fz.listing_len = at ? (size_t)(at - rest) : n;
		fz.tar = at ? at + 6 : rest + n;
		fz.tar_len = (size_t)(rest + n - fz.tar);
	}
	fz_make();
	if (flags & 1 && fz_leads_out(fz.tar, fz.tar_len)) {
		fz_remove();
		return 0;
	}
	if (flags & 1)
		fz_apply(flags);
	else
		fz_cp(flags, rest, n);
	fz_check(flags & 1);
	fz_remove();
	return 0;
}
