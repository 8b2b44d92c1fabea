/* cmd_copy.c: copy workspaces. create --copy DIR puts DIR's tree in the
 * workdir and keeps its baseline on the host (copy.h); diff shows what
 * the workspace changed since; apply writes those changes into DIR.
 *
 * What the workspace holds now comes in two calls: SCRIPT_MANIFEST lists
 * every path with its mode, size and (for files) SHA-256; the paths
 * whose hash differs from the baseline's, every link, and every path
 * the listing was unsure of, then travel whole as a tar stream
 * (SCRIPT_PACK), read with tar.h and hashed here. DIR is only ever
 * touched through descriptors opened one component at a time without
 * following links, so nothing is read or written outside it. */
/* realpath(3) is XSI. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "copy.h"
#include "diff.h"
#include "feed.h"
#include "results.h"
#include "scripts.h"
#include "sha256.h"
#include "tar.h"
#include "tools.h"
#include "workspace.h"

/* A file's bytes kept to show its diff; a larger one is "too large". */
#define SHOW_MAX ((size_t)4 << 20)
/* All the workspace's bytes kept at once to show diffs, and all the text
 * of a diff: past them, a change is named, not shown; its hash is kept. */
#define SHOW_TOTAL_MAX ((size_t)4 << 20)
#define TEXT_MAX ((size_t)8 << 20)
/* The changes one diff or apply takes, and the bytes of their names:
 * each costs memory in every form a result takes (text, --json, MCP). */
#define CHANGES_MAX 10000
#define CHANGE_NAMES_MAX ((size_t)512 << 10)
/* Bytes staged between two looks at DIR's free space. */
#define ROOM_EVERY ((unsigned long long)1 << 20)
#define READ_BUF 65536

/* ---- create --copy ---- */

/* The patterns: the config's, then DIR/.sandboxignore's. */
static int patterns(const struct cfg *c, const char *dir, struct strvec *out, struct err *e)
{
	for (size_t i = 0; i < c->excludes.n; i++)
		strvec_push(out, c->excludes.v[i]);
	char *path = xasprintf("%s/.sandboxignore", dir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	int rc = 0;
	struct stat st;
	if (fd < 0) {
		if (errno != ENOENT)
			rc = err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
	} else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > COPY_IGNORE_MAX) {
		rc = err_set(e, ERR_USAGE, "%s: not a regular file of at most 1 MiB", path);
	} else {
		char *buf = xmalloc((size_t)st.st_size + 1);
		ssize_t n = read(fd, buf, (size_t)st.st_size);
		if (n < 0)
			rc = err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
		else
			rc = copy_ignore_parse(buf, (size_t)n, path, out, e);
		free(buf);
	}
	if (fd >= 0)
		close(fd);
	free(path);
	/* Never copied: apply's staging left by a kill, and our own state,
	 * when it lies in DIR (a workspace could rewrite other copies'
	 * baselines through apply). */
	strvec_push(out, "/.sandbox-apply-*/");
	char *state = copy_state_root(), *real = state ? realpath(state, NULL) : NULL;
	size_t dl = strlen(dir);
	if (real && strncmp(real, dir, dl) == 0 && real[dl] == '/') {
		struct sbuf pat = {0};
		sbuf_addc(&pat, '/');
		for (const char *s = real + dl + 1; *s; s++) {
			if (strchr("*?[]{}\\", *s))
				sbuf_addc(&pat, '\\');
			sbuf_addc(&pat, *s);
		}
		strvec_push(out, pat.buf);
		sbuf_free(&pat);
	}
	free(real);
	free(state);
	return rc;
}

/* The child's records (copy.h's entry encoding) behind a header, as
 * one baseline. */
static int base_from_records(FILE *rec, const char *dir, const struct strvec *pats,
			     struct copy_base *b, struct err *e)
{
	struct copy_base head = {.dir = (char *)dir, .excludes = *pats};
	struct sbuf data = {0};
	copy_base_encode(&data, &head);
	char buf[READ_BUF];
	size_t n;
	rewind(rec);
	while ((n = fread(buf, 1, sizeof(buf), rec)) > 0)
		sbuf_add(&data, buf, n);
	int rc = ferror(rec) ? err_set(e, ERR_FAILED, "cannot read a temporary file")
			     : copy_base_decode(data.buf, data.len, b, e);
	sbuf_free(&data);
	return rc;
}

int copy_seed(struct app *a, struct ws *ws, struct err *e)
{
	const char *dir = a->cfg.copy;
	char *path = copy_base_path(ws->id, true);
	if (!path)
		return err_set(e, ERR_FAILED, "--copy needs HOME or XDG_STATE_HOME, to keep the copy's baseline");
	struct strvec pats = {0};
	struct copy_excl x = {0};
	struct copy_base b = {0};
	struct cp_result res = {0};
	FILE *rec = NULL;
	int rc = -1;
	if (patterns(&a->cfg, dir, &pats, e) < 0 || copy_excl_init(&x, &pats, e) < 0)
		goto out;
	if (!(rec = tmpfile())) {
		err_set(e, ERR_FAILED, "cannot make a temporary file: %s", strerror(errno));
		goto out;
	}
	if (cp_seed(a, ws, dir, ws->workdir ? ws->workdir : ".", &x, rec, &res, e) < 0)
		goto out;
	if (base_from_records(rec, dir, &pats, &b, e) < 0 || copy_base_save(path, &b, e) < 0)
		goto out;
	if (res.skipped && !a->json)
		fprintf(stderr, "sandbox: create: %llu file%s of DIR not copied (devices, FIFOs or sockets)\n",
			res.skipped, res.skipped == 1 ? "" : "s");
	rc = 0;
out:
	if (rec)
		fclose(rec);
	cp_result_free(&res);
	copy_base_free(&b);
	copy_excl_free(&x);
	strvec_clear(&pats);
	free(path);
	return rc;
}

void copy_forget(const char *id)
{
	char *path = copy_base_path(id, false);
	if (path) {
		unlink(path);
		char *review = xasprintf("%s.review", path);
		unlink(review);
		free(review);
	}
	free(path);
}

/* ---- DIR, one component at a time ---- */

/* The directory that holds rel, opened from root without following a
 * link; its last part in *leaf. -1 with errno: ENOENT (a part missing),
 * ELOOP or ENOTDIR (a link or a file on the way). mk: make missing
 * directories (0755). */
static int open_parent(int root, const char *rel, const char **leaf, bool mk)
{
	const char *slash = strrchr(rel, '/');
	*leaf = slash ? slash + 1 : rel;
	return open_dirs_at(root, rel, slash ? (size_t)(slash - rel) : 0, mk, 0755);
}

/* What DIR holds at rel now: *st->type 0 when nothing. A file's bytes
 * go into keep (at most SHOW_MAX; *cut when there were more) when keep
 * is not NULL. -1 with errno when it cannot be read; ELOOP/ENOTDIR
 * when the way to it is not plain directories. */
static int dir_state(int root, const char *rel, struct copy_entry *st, struct sbuf *keep,
		     bool *cut)
{
	*st = (struct copy_entry){0};
	const char *leaf;
	int pfd = open_parent(root, rel, &leaf, false);
	if (pfd < 0)
		return errno == ENOENT ? 0 : -1;
	struct stat sb;
	int rc = 0;
	if (fstatat(pfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = errno == ENOENT ? 0 : -1;
		goto out;
	}
	st->mode = sb.st_mode & 0777;
	if (S_ISDIR(sb.st_mode)) {
		st->type = 'd';
	} else if (S_ISLNK(sb.st_mode)) {
		char t[COPY_PATH_MAX + 1];
		ssize_t n = readlinkat(pfd, leaf, t, COPY_PATH_MAX);
		if (n < 0) {
			rc = -1;
			goto out;
		}
		t[n] = '\0';
		st->type = 'l';
		st->mode = 0777;
		st->target = xstrdup(t);
	} else if (S_ISREG(sb.st_mode)) {
		int fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0) {
			rc = -1;
			goto out;
		}
		struct sha256 h;
		sha256_init(&h);
		char buf[READ_BUF];
		ssize_t n;
		while ((n = read(fd, buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				close(fd);
				rc = -1;
				goto out;
			}
			sha256_update(&h, buf, (size_t)n);
			st->size += (unsigned long long)n;
			if (keep && keep->len + (size_t)n <= SHOW_MAX)
				sbuf_add(keep, buf, (size_t)n);
			else if (keep)
				*cut = true;
		}
		close(fd);
		unsigned char d[32];
		sha256_final(&h, d);
		sha256_hex(d, st->sha);
		st->type = 'f';
	} else {
		st->type = 'x';
	}
out:;
	int saved = errno;
	close(pfd);
	errno = saved;
	return rc;
}

static bool same(const struct copy_entry *x, const struct copy_entry *y)
{
	if (x->type != y->type)
		return false;
	switch (x->type) {
	case 'f': return x->mode == y->mode && x->size == y->size && strcmp(x->sha, y->sha) == 0;
	case 'd': return x->mode == y->mode;
	case 'l': return strcmp(x->target ? x->target : "", y->target ? y->target : "") == 0;
	default: return true;
	}
}

/* ---- the workspace now ---- */

/* What a copy command works from. */
struct copy_ctx {
	struct app *a;
	struct ws ws;
	bool have_ws;
	char *base_path;
	struct copy_base base;
	struct copy_excl excl;
	struct copy_tree now;
	/* Per path of now: what its tar entry brought. */
	struct got {
		bool fetched;
		struct sbuf data;   /* diff: the bytes kept */
		bool cut;           /* more than SHOW_MAX, or past SHOW_TOTAL_MAX */
		bool full;          /* cut for the second: the diff's room was used */
		bool want, staged;  /* apply: to stage; staged */
		char stage[24];     /* apply: its staged file's name */
	} *got;
	size_t kept;            /* bytes in every data */
	size_t text;            /* diff: bytes of every change's text */
	size_t room;            /* what is left of the listing's budget, for
				 * the links' targets the stream brings */
	int stage_fd;           /* apply: DIR/.sandbox-apply-HEX, or -1 */
	char stage_name[40];
	int root;               /* DIR, or -1 */
	const struct strvec *only; /* PATH arguments: only these, and what is under them */
	bool keep;              /* diff: keep the bytes that travel, to show them */
};

static void ctx_free(struct copy_ctx *c)
{
	if (c->got)
		for (size_t i = 0; i < c->now.n; i++)
			sbuf_free(&c->got[i].data);
	free(c->got);
	if (c->stage_fd >= 0) {
		DIR *d = fdopendir(c->stage_fd);
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				unlinkat(c->stage_fd, de->d_name, 0);
		if (d)
			closedir(d);
		else
			close(c->stage_fd);
		unlinkat(c->root, c->stage_name, AT_REMOVEDIR);
	}
	if (c->root >= 0)
		close(c->root);
	copy_tree_free(&c->now);
	copy_excl_free(&c->excl);
	copy_base_free(&c->base);
	free(c->base_path);
	if (c->have_ws)
		ws_free(&c->ws);
}

/* Whether rel is one of the PATH arguments or under one. */
static bool wanted(const struct copy_ctx *c, const char *rel)
{
	if (!c->only || !c->only->n)
		return true;
	for (size_t i = 0; i < c->only->n; i++) {
		const char *p = c->only->v[i];
		size_t n = strlen(p);
		if (strncmp(rel, p, n) == 0 && (rel[n] == '\0' || rel[n] == '/'))
			return true;
	}
	return false;
}

/* Whether rel is a directory on the way to a PATH argument: a new one
 * there is made (and shown), since what goes in it needs it; no other
 * change of it is taken. */
static bool on_way(const struct copy_ctx *c, const char *rel)
{
	size_t rl = strlen(rel);
	for (size_t i = 0; c->only && i < c->only->n; i++) {
		const char *p = c->only->v[i];
		if (rl < strlen(p) && strncmp(rel, p, rl) == 0 && p[rl] == '/')
			return true;
	}
	return false;
}

/* The PATH arguments, as paths of the tree: "./a/b/" is "a/b"; "." is
 * everything. */
static int clean_paths(struct strvec *args, struct err *e)
{
	for (size_t i = 0; i < args->n; i++) {
		char *p = args->v[i], *s = p;
		while (s[0] == '.' && s[1] == '/')
			for (s += 2; *s == '/'; s++)
				;
		size_t n = strlen(s);
		while (n > 1 && s[n - 1] == '/')
			n--;
		if (n == 1 && s[0] == '.')
			n = 0;
		const char *why = n ? copy_path_bad(s, n) : NULL;
		if (why)
			return err_set(e, ERR_USAGE, "'%s': %s; give paths relative to the copy's top", p, why);
		memmove(p, s, n);
		p[n] = '\0';
		if (n == 0) { /* everything */
			strvec_clear(args);
			return 0;
		}
	}
	return 0;
}

/* The listing, read as it comes: the workspace may name what the copy
 * had and COPY_LIST_EXTRA more, never make our memory follow it. */
struct listing {
	struct copy_manifest m;
	struct err err;
};

static int manifest_body(void *ctx, const char *buf, size_t n)
{
	struct listing *l = ctx;
	return copy_manifest_feed(&l->m, buf, n, &l->err);
}

static int list_now(struct copy_ctx *c, struct err *e)
{
	struct strvec args = {0};
	strvec_push(&args, "/bin/sh");
	strvec_push(&args, "-c");
	strvec_push(&args, SCRIPT_MANIFEST);
	strvec_push(&args, "sh");
	strvec_push(&args, ".");
	for (size_t i = 0; i < c->base.excludes.n; i++)
		if (copy_prunable(c->base.excludes.v[i]))
			strvec_push(&args, c->base.excludes.v[i]);
	struct listing l = {0};
	copy_manifest_init(&l.m, &c->excl, COPY_LIST_EXTRA + copy_tree_cost(&c->base.tree));
	struct tool_out out = {.body = manifest_body, .ctx = &l};
	int rc = tool_run(c->a, &c->ws, PROTO_COMMAND, args.v, args.n, NULL, false, &out, e);
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0 && l.m.failed)
		rc = -1, *e = l.err;
	else if (rc < 0 && l.m.failed)
		*e = l.err; /* why the body stopped */
	else if (rc == 0 && strcmp(head, "OK") != 0)
		rc = tool_refusal(head, "the workdir", e) < 0 ? -1
			: err_set(e, ERR_WORKSPACE, "unexpected answer from the listing script");
	if (rc == 0)
		rc = copy_manifest_finish(&l.m, &c->now, e);
	c->room = l.m.budget > l.m.used ? l.m.budget - l.m.used : 0;
	tool_out_free(&out);
	copy_manifest_free(&l.m);
	strvec_clear(&args);
	if (rc == 0) {
		size_t n = c->now.n ? c->now.n : 1;
		c->got = xmalloc(n * sizeof(*c->got));
		memset(c->got, 0, n * sizeof(*c->got));
	}
	return rc;
}

/* Whether a path of now must travel: its content, its target or its
 * type is not known for sure from the listing to be the baseline's. */
static bool must_fetch(const struct copy_ctx *c, const struct copy_entry *n)
{
	if (n->type == 'd')
		return false;
	if (n->type != 'f' || !n->sha[0])
		return true;
	const struct copy_entry *b = copy_tree_find(&c->base.tree, n->path);
	return !b || b->type != 'f' || strcmp(b->sha, n->sha) != 0;
}

/* Whether a path of now travels: one the command acts on that must, and
 * any the listing was unsure of (its type decides what is in a
 * directory, whatever the PATH arguments). */
static bool needs(const struct copy_ctx *c, const struct copy_entry *n)
{
	return n->type == '?' || (wanted(c, n->path) && must_fetch(c, n));
}

/* The tar stream of the paths that travel. The first pass (diff, and
 * apply's look) takes what each path is from it; apply's second pass
 * stages the files it writes, each checked against the first. */
struct fetch {
	struct copy_ctx *c;
	struct tar_reader *tr;
	struct copy_entry *cur;  /* the entry being read, or NULL: skipped */
	struct got *g;
	struct sha256 h;
	unsigned long long size;
	int fd;                  /* stage: the file being staged */
	unsigned staged;
	bool stage;
	unsigned long long written, next_look; /* stage: bytes staged */
	unsigned long long read;  /* bytes of files the stream brought */
	char msg[300];           /* why it stopped */
	bool stopped;            /* by apply (exit 1), not by a bad stream */
};

/* The workspace sent for n what the first pass did not see. */
static int stage_changed(struct fetch *f, const struct copy_entry *n)
{
	struct sbuf shown = {0};
	tool_show_path(&shown, n->path, false);
	snprintf(f->msg, sizeof(f->msg), "%s changed in the workspace during the apply; nothing was "
		 "written: run it again", shown.buf);
	sbuf_free(&shown);
	f->stopped = true;
	return -1;
}

static int stage_fail(struct fetch *f)
{
	snprintf(f->msg, sizeof(f->msg), "cannot write in %s: %s; nothing was written", f->c->base.dir,
		 strerror(errno));
	f->stopped = true;
	return -1;
}

/* n more bytes staged: DIR's filesystem must keep its reserve. */
static int stage_room(struct fetch *f, unsigned long long n)
{
	f->written += n;
	if (f->written < f->next_look)
		return 0;
	f->next_look = f->written + ROOM_EVERY;
	unsigned long long avail, reserve;
	int rc = disk_room(f->c->stage_fd, 0, &avail, &reserve);
	if (rc < 0)
		return stage_fail(f);
	if (rc == 0)
		return 0;
	snprintf(f->msg, sizeof(f->msg), "%s's filesystem fell to %llu MiB free, under the %llu MiB it "
		 "keeps free (a twentieth); nothing was written", f->c->base.dir, avail >> 20, reserve >> 20);
	f->stopped = true;
	return -1;
}

/* A hard link of the stream ('1') to a file it brought before: a file
 * of its own with the same bytes (apply writes two files, as the copy
 * had them, never one linked to the other). A link to anything else is
 * not there. */
static int fetch_hardlink(struct fetch *f, struct copy_entry *n, struct got *g)
{
	const char *ln = f->tr->link;
	while (ln[0] == '.' && ln[1] == '/')
		ln += 2;
	struct copy_entry *src = copy_tree_find(&f->c->now, ln);
	struct got *sg = src ? &f->c->got[src - f->c->now.v] : NULL;
	if (f->stage) {
		/* Its bytes, staged once more: counted again. */
		if (!src || src == n || !sg->staged || !sg->stage[0] || strcmp(src->sha, n->sha) != 0)
			return stage_changed(f, n);
		snprintf(g->stage, sizeof(g->stage), "%u", f->staged++);
		int in = openat(f->c->stage_fd, sg->stage, O_RDONLY | O_CLOEXEC);
		int out = openat(f->c->stage_fd, g->stage, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		int rc = in >= 0 && out >= 0 ? 0 : stage_fail(f);
		char buf[READ_BUF];
		ssize_t r;
		while (rc == 0 && (r = read(in, buf, sizeof(buf))) != 0)
			if ((r < 0 && errno != EINTR) || (r > 0 && write_all(out, buf, (size_t)r) < 0))
				rc = stage_fail(f);
			else if (r > 0)
				rc = stage_room(f, (unsigned long long)r);
		if (out >= 0 && rc == 0 && fchmod(out, n->mode) < 0)
			rc = stage_fail(f);
		if (out >= 0 && close(out) < 0 && rc == 0)
			rc = stage_fail(f);
		if (in >= 0)
			close(in);
		return rc;
	}
	free(n->target);
	n->target = NULL;
	if (!src || src == n || !sg->fetched || src->type != 'f') {
		n->type = 'x';
		return 0;
	}
	n->type = 'f';
	n->mode = src->mode;
	n->size = src->size;
	memcpy(n->sha, src->sha, sizeof(n->sha));
	if (f->c->keep && !sg->cut && f->c->kept + sg->data.len <= SHOW_TOTAL_MAX) {
		sbuf_add(&g->data, sg->data.buf ? sg->data.buf : "", sg->data.len);
		f->c->kept += sg->data.len;
	} else {
		g->cut = true;
		g->full = !sg->cut || sg->full;
	}
	return 0;
}

/* The second pass: only the files to write, each what the first saw. */
static int stage_entry(struct fetch *f, struct copy_entry *n, struct got *g, char type)
{
	if (!g->want || g->staged)
		return 0;
	g->staged = true;
	if (type == '1')
		return fetch_hardlink(f, n, g);
	if (type != '0' && type != '\0' && type != '7')
		return stage_changed(f, n);
	f->cur = n;
	f->g = g;
	f->size = 0;
	sha256_init(&f->h);
	snprintf(g->stage, sizeof(g->stage), "%u", f->staged++);
	f->fd = openat(f->c->stage_fd, g->stage, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	return f->fd < 0 ? stage_fail(f) : 0;
}

static int fetch_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct fetch *f = ctx;
	(void)size;
	f->cur = NULL;
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	/* GNU tar ends a directory's name with '/'. */
	char path[COPY_PATH_MAX + 2];
	size_t len = strlen(name);
	if (len > COPY_PATH_MAX + 1)
		return 0;
	memcpy(path, name, len + 1);
	if (len > 1 && path[len - 1] == '/')
		path[len - 1] = '\0';
	struct copy_entry *n = copy_tree_find(&f->c->now, path);
	if (!n)
		return 0; /* not asked for: skipped */
	struct got *g = &f->c->got[n - f->c->now.v];
	if (f->stage)
		return stage_entry(f, n, g, type);
	if (g->fetched || !needs(f->c, n))
		return 0;
	g->fetched = true;
	if (type == '1')
		return fetch_hardlink(f, n, g);
	char t = type == '0' || type == '\0' || type == '7' ? 'f' : type == '5' ? 'd' : type == '2' ? 'l' : 'x';
	if (t == 'l') {
		/* A target is a path: no longer than one, and counted with
		 * the listing's paths. */
		size_t tl = strlen(f->tr->link) + 1;
		if (tl > COPY_PATH_MAX + 1 || tl > f->c->room) {
			snprintf(f->msg, sizeof(f->msg), "the workspace's links' targets are %s; nothing was done",
				 tl > COPY_PATH_MAX + 1 ? "longer than a path can be" : "more than the listing may hold");
			return -1;
		}
		f->c->room -= tl;
	}
	n->type = t;
	n->mode = t == 'l' ? 0777 : f->tr->mode & 0777;
	free(n->target);
	n->target = t == 'l' ? xstrdup(f->tr->link) : NULL;
	n->sha[0] = '\0';
	n->size = 0;
	if (t != 'f')
		return 0;
	f->cur = n;
	f->g = g;
	f->size = 0;
	sha256_init(&f->h);
	return 0;
}

static int fetch_data(void *ctx, const char *buf, size_t n)
{
	struct fetch *f = ctx;
	if (!f->cur)
		return 0;
	long long max = f->c->a->cfg.max_size;
	f->read += n;
	if (max > 0 && f->read > (unsigned long long)max) {
		snprintf(f->msg, sizeof(f->msg), "the workspace's changed files come to more than max_size, "
			 "%.1f MiB; nothing was done: pass --max-size, or name PATHs", max / 1048576.0);
		f->stopped = true;
		return -1;
	}
	if (f->stage) {
		/* Never more than the first pass hashed. */
		if (f->size + n > f->cur->size)
			return stage_changed(f, f->cur);
		sha256_update(&f->h, buf, n);
		f->size += n;
		if (write_all(f->fd, buf, n) < 0)
			return stage_fail(f);
		return stage_room(f, n);
	}
	sha256_update(&f->h, buf, n);
	f->size += n;
	struct got *g = f->g;
	if (!f->c->keep)
		g->cut = true;
	else if (!g->cut && g->data.len + n <= SHOW_MAX && f->c->kept + n <= SHOW_TOTAL_MAX) {
		sbuf_add(&g->data, buf, n);
		f->c->kept += n;
	} else if (!g->cut) {
		g->cut = true;
		g->full = g->data.len + n <= SHOW_MAX;
		f->c->kept -= g->data.len;
		sbuf_free(&g->data);
	}
	return 0;
}

static int fetch_end(void *ctx)
{
	struct fetch *f = ctx;
	if (!f->cur)
		return 0;
	unsigned char d[32];
	char sha[65];
	sha256_final(&f->h, d);
	sha256_hex(d, sha);
	struct copy_entry *n = f->cur;
	f->cur = NULL;
	if (!f->stage) {
		memcpy(n->sha, sha, sizeof(sha));
		n->size = f->size;
		return 0;
	}
	int rc = f->size == n->size && strcmp(sha, n->sha) == 0 ? 0 : stage_changed(f, n);
	if (rc == 0 && fchmod(f->fd, n->mode) < 0)
		rc = stage_fail(f);
	if (close(f->fd) < 0 && rc == 0)
		rc = stage_fail(f);
	f->fd = -1;
	return rc;
}

static int fetch_body(void *ctx, const char *buf, size_t n)
{
	struct fetch *f = ctx;
	char msg[200];
	if (tar_feed(f->tr, buf, n, msg, sizeof(msg)) < 0) {
		if (!f->msg[0])
			snprintf(f->msg, sizeof(f->msg), "the workspace's tar stream: %s", msg);
		return -1;
	}
	return 0;
}

/* The paths of now that travel (a pass's own choice), NUL-ended. */
static size_t travel_names(const struct copy_ctx *c, bool stage, struct sbuf *names)
{
	size_t want = 0;
	for (size_t i = 0; i < c->now.n; i++) {
		const struct copy_entry *n = &c->now.v[i];
		if (stage ? !c->got[i].want : !needs(c, n))
			continue;
		sbuf_adds(names, "./");
		sbuf_add(names, n->path, strlen(n->path) + 1);
		want++;
	}
	return want;
}

/* One pass over the paths that travel. */
static int fetch_pass(struct copy_ctx *c, bool stage, struct err *e)
{
	struct sbuf names = {0};
	if (!travel_names(c, stage, &names))
		return 0;
	struct fetch f = {.c = c, .stage = stage, .fd = -1};
	f.tr = xmalloc(sizeof(*f.tr));
	struct tar_sink sink = {.ctx = &f, .entry = fetch_entry, .data = fetch_data, .end = fetch_end};
	tar_init(f.tr, &sink);
	struct feed feed;
	feed_init_buf_raw(&feed, names.buf, names.len);
	char *args[] = {"/bin/sh", "-c", (char *)SCRIPT_PACK, "sh", "."};
	/* Its stdin is raw: never on the channel, whose frames it is not. */
	struct tool_out out = {.body = fetch_body, .ctx = &f, .own_exec = true};
	int rc = tool_run(c->a, &c->ws, PROTO_COMMAND, args, ARRAY_LEN(args), &feed, false, &out, e);
	char msg[300];
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0 && f.msg[0])
		rc = err_set(e, f.stopped ? ERR_FAILED : ERR_WORKSPACE, "%s", f.msg);
	else if (rc == 0 && strcmp(head, "OK") != 0)
		rc = err_set(e, ERR_WORKSPACE, "unexpected answer from the packing script");
	else if (rc == 0 && tar_finish(f.tr, msg, sizeof(msg)) < 0)
		rc = err_set(e, ERR_WORKSPACE, "the workspace's tar stream: %s", msg);
	if (f.fd >= 0)
		close(f.fd);
	tool_out_free(&out);
	feed_free(&feed);
	free(f.tr);
	sbuf_free(&names);
	return rc;
}

/* What must travel, fetched; then what did not come (gone since the
 * listing, or of a kind left out) dropped. */
static int fetch_now(struct copy_ctx *c, struct err *e)
{
	if (fetch_pass(c, false, e) < 0)
		return -1;
	/* What had to travel and did not is an error, never a deletion: a
	 * file tar could not read, or one gone since it was listed. What
	 * came as a device, FIFO or socket is left out. */
	for (size_t i = 0; i < c->now.n; i++) {
		struct copy_entry *n = &c->now.v[i];
		if (needs(c, n) && !c->got[i].fetched) {
			struct sbuf shown = {0};
			tool_show_path(&shown, n->path, false);
			err_set(e, ERR_WORKSPACE, "the workspace listed %s but did not send it (unreadable, or "
				"gone since); nothing was done: try again", shown.buf);
			sbuf_free(&shown);
			return -1;
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < c->now.n; i++) {
		struct copy_entry *n = &c->now.v[i];
		if (n->type == 'x') {
			copy_entry_free(n);
			sbuf_free(&c->got[i].data);
			continue;
		}
		c->now.v[k] = *n;
		c->got[k++] = c->got[i];
	}
	c->now.n = k;
	/* A path lies in a directory of the listing, never under a link. */
	char up_path[COPY_PATH_MAX + 1];
	for (size_t i = 0; i < c->now.n; i++) {
		const char *p = c->now.v[i].path, *s = p;
		while ((s = strchr(s, '/'))) {
			memcpy(up_path, p, (size_t)(s - p));
			up_path[s - p] = '\0';
			const struct copy_entry *up = copy_tree_find(&c->now, up_path);
			if (!up || up->type != 'd') {
				struct sbuf shown = {0};
				tool_show_path(&shown, p, false);
				err_set(e, ERR_WORKSPACE, "the workspace's listing holds %s, which is not in a directory "
					"of it (a link or a file on its way); nothing was done", shown.buf);
				sbuf_free(&shown);
				return -1;
			}
			s++;
		}
	}
	return 0;
}

/* Opens everything a copy command needs, the workspace's listing
 * included. */
static int ctx_open(struct copy_ctx *c, struct app *a, struct err *e)
{
	*c = (struct copy_ctx){.a = a, .stage_fd = -1, .root = -1, .only = &a->o.args};
	if (clean_paths(&a->o.args, e) < 0)
		return -1;
	if (!a->ref && !a->ws_pin)
		return err_set(e, ERR_USAGE, "which workspace? give -w REF (one made with --copy DIR)");
	if (ws_select(a, &c->ws, e) < 0)
		return -1;
	c->have_ws = true;
	bool missing;
	c->base_path = copy_base_path(c->ws.id, false);
	if (!c->base_path)
		return err_set(e, ERR_FAILED, "no HOME or XDG_STATE_HOME: the copy's baseline cannot be found");
	if (copy_base_load(c->base_path, &c->base, &missing, e) < 0) {
		if (missing)
			return err_set(e, ERR_USAGE, "workspace %s is not a copy (create one with --copy DIR)",
				       c->ws.name);
		return -1;
	}
	c->root = open(c->base.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->root < 0)
		return err_set(e, ERR_FAILED, "%s, the copy's origin: %s", c->base.dir, strerror(errno));
	if (copy_excl_init(&c->excl, &c->base.excludes, e) < 0)
		return -1;
	return list_now(c, e);
}

/* ---- changes ---- */

static char kind_of(const struct copy_entry *b, const struct copy_entry *n)
{
	if (!b)
		return 'A';
	if (!n)
		return 'D';
	if (b->type != n->type)
		return 'T';
	if (b->type == 'f' && strcmp(b->sha, n->sha) != 0)
		return 'M';
	if (b->type == 'l' && strcmp(b->target ? b->target : "", n->target ? n->target : "") != 0)
		return 'M';
	if (b->type != 'l' && b->mode != n->mode)
		return 'm';
	return 0;
}

/* Every change, in the order of paths, into *v. */
static size_t changes(const struct copy_ctx *c, struct copy_change **v)
{
	size_t n = 0, cap = 0, i = 0, j = 0;
	*v = NULL;
	const struct copy_tree *B = &c->base.tree, *N = &c->now;
	while (i < B->n || j < N->n) {
		int cmp = i == B->n ? 1 : j == N->n ? -1 : copy_path_cmp(B->v[i].path, N->v[j].path);
		const struct copy_entry *b = cmp <= 0 ? &B->v[i] : NULL, *nw = cmp >= 0 ? &N->v[j] : NULL;
		size_t ni = cmp >= 0 ? j : 0;
		i += cmp <= 0;
		j += cmp >= 0;
		const char *path = b ? b->path : nw->path;
		char k = wanted(c, path) ? kind_of(b, nw)
			 : on_way(c, path) && !b && nw->type == 'd' ? 'A' : 0;
		if (!k)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			*v = xrealloc(*v, cap * sizeof(**v));
		}
		(*v)[n++] = (struct copy_change){
			.path = xstrdup(path), .kind = k, .old = b, .now = nw, .now_index = ni,
			.old_type = b ? b->type : 0, .old_mode = b ? b->mode : 0,
			.new_type = nw ? nw->type : 0, .new_mode = nw ? nw->mode : 0};
	}
	return n;
}

/* Whether the changes fit in what one review holds. */
static int changes_fit(const struct copy_change *v, size_t n, struct err *e)
{
	size_t names = 0;
	for (size_t i = 0; i < n; i++)
		names += strlen(v[i].path) + 1;
	if (n <= CHANGES_MAX && names <= CHANGE_NAMES_MAX)
		return 0;
	return err_set(e, ERR_WORKSPACE, "the workspace changed %zu paths (%zu KiB of names), more than one "
		       "review holds (%d, or %zu KiB); nothing was done: review it in parts, naming PATHs, or "
		       "leave out what it made (.sandboxignore, exclude)", n, names >> 10, CHANGES_MAX,
		       CHANGE_NAMES_MAX >> 10);
}

void copy_changes_free(struct copy_change *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		sbuf_free(&v[i].text);
	}
	free(v);
}

/* ---- diff ---- */

/* A path's mode as git writes it, but with the exact permission bits
 * (git keeps only 644 or 755): what apply writes is what is shown. */
static unsigned git_mode(char type, unsigned mode)
{
	return type == 'd' ? 040000 | mode : type == 'l' ? 0120000 : 0100000 | mode;
}

static void count_lines(struct copy_change *ch, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - s) : len;
		if (end - i >= 1 && s[i] == '+' && !(end - i >= 3 && s[i + 1] == '+' && s[i + 2] == '+' && i == 0))
			ch->insertions++;
		else if (end - i >= 1 && s[i] == '-' && !(end - i >= 3 && s[i + 1] == '-' && s[i + 2] == '-' && i == 0))
			ch->deletions++;
		i = end + 1;
	}
}

/* One side's text: a file's kept bytes, a link's target; false when it
 * cannot be shown (too large). */
struct side {
	const char *buf;
	size_t len;
	bool big;
	bool full;  /* not kept: the diff's room for the workspace's files was used */
};

/* The hunks of old against new, or "Binary files ... differ"; room:
 * the bytes of text the diff has left. */
static void content_diff(struct copy_change *ch, const char *la, const char *lb, struct side o,
			 struct side n, size_t room)
{
	struct sbuf *t = &ch->text;
	if (n.full) {
		sbuf_addf(t, "Files %s and %s differ (not shown: the diff holds %zu MiB of the workspace's "
			  "files already; diff PATH shows it)\n", la, lb, SHOW_TOTAL_MAX >> 20);
		ch->binary = true;
		return;
	}
	if (o.big || n.big) {
		sbuf_addf(t, "Files %s and %s differ (too large to show)\n", la, lb);
		ch->binary = true;
		return;
	}
	if (tool_is_binary(o.buf, o.len) || tool_is_binary(n.buf, n.len)) {
		sbuf_addf(t, "Binary files %s and %s differ\n", la, lb);
		ch->binary = true;
		return;
	}
	/* Its header is ours: the hunks go straight after what t holds. */
	size_t start = t->len;
	struct diff_limits lim = {.lines = DIFF_LINES_MAX, .bytes = room ? room : 1};
	if (diff_unified(t, la, lb, o.buf, o.len, n.buf, n.len, 3, &lim, NULL) == DIFF_OMITTED) {
		t->len = start;
		if (t->buf)
			t->buf[start] = '\0';
		sbuf_addf(t, "Files %s and %s differ (not shown: the diff passed its %zu MiB of text)\n",
			  la, lb, TEXT_MAX >> 20);
		ch->binary = true;
		return;
	}
	const char *at = t->len > start ? strstr(t->buf + start, "\n@@") : NULL;
	if (at)
		count_lines(ch, at + 1, t->len - (size_t)(at + 1 - t->buf));
}

/* The old side of a file: DIR's, which is the copy's unless check_one
 * found a conflict (then what apply --force would write over); its
 * bytes kept in keep. */
static struct side old_side(const struct copy_ctx *c, struct copy_change *ch, struct sbuf *keep)
{
	const struct copy_entry *b = ch->old;
	if (b->type == 'l')
		return (struct side){b->target, strlen(b->target), false, false};
	struct copy_entry st;
	bool cut = false;
	int rc = dir_state(c->root, b->path, &st, keep, &cut);
	bool file = rc == 0 && st.type == 'f';
	copy_entry_free(&st);
	if (!file)
		return (struct side){"", 0, false, false};
	return (struct side){keep->buf ? keep->buf : "", keep->len, cut, false};
}

static struct side new_side(const struct copy_ctx *c, const struct copy_change *ch)
{
	const struct copy_entry *n = ch->now;
	if (n->type == 'l')
		return (struct side){n->target, strlen(n->target), false, false};
	const struct got *g = &c->got[ch->now_index];
	return (struct side){g->data.buf ? g->data.buf : "", g->data.len, g->cut, g->full};
}

/* "a/PATH", in double quotes with C escapes when PATH holds a control
 * byte (as git does), so that no name can forge a line of the diff. */
static void label(struct sbuf *out, const char *side, const char *path)
{
	char *raw = xasprintf("%s/%s", side, path);
	tool_show_path(out, raw, false);
	free(raw);
}

static void diff_one(const struct copy_ctx *c, struct copy_change *ch, size_t room)
{
	struct sbuf *t = &ch->text;
	const struct copy_entry *b = ch->old, *n = ch->now;
	struct sbuf sa = {0}, sb = {0}, keep = {0};
	label(&sa, "a", ch->path);
	label(&sb, "b", ch->path);
	const char *la = sa.buf, *lb = sb.buf;
	/* A type change shows as the old path deleted, then the new one added. */
	bool del = b && (!n || ch->kind == 'T'), add = n && (!b || ch->kind == 'T');
	if (del && b->type == 'd')
		sbuf_addf(t, "diff --git %s %s\ndeleted directory mode %06o\n", la, lb, git_mode('d', b->mode));
	if (b && b->type != 'd' && (del || ch->kind == 'M')) {
		struct side o = old_side(c, ch, &keep);
		if (del && b->type != 'd') {
			sbuf_addf(t, "diff --git %s %s\ndeleted file mode %06o\n", la, lb, git_mode(b->type, b->mode));
			if (o.len || o.big)
				content_diff(ch, la, "/dev/null", o, (struct side){"", 0, false, false}, room);
		} else {
			sbuf_addf(t, "diff --git %s %s\n", la, lb);
			if (git_mode(b->type, b->mode) != git_mode(n->type, n->mode))
				sbuf_addf(t, "old mode %06o\nnew mode %06o\n", git_mode(b->type, b->mode),
					  git_mode(n->type, n->mode));
			content_diff(ch, la, lb, o, new_side(c, ch), room);
		}
	} else if (ch->kind == 'm') {
		sbuf_addf(t, "diff --git %s %s\nold mode %06o\nnew mode %06o\n", la, lb,
			  git_mode(b->type, b->mode), git_mode(n->type, n->mode));
	}
	if (add && n->type == 'd')
		sbuf_addf(t, "diff --git %s %s\nnew directory mode %06o\n", la, lb, git_mode('d', n->mode));
	if (add && n->type != 'd') {
		struct side s = new_side(c, ch);
		sbuf_addf(t, "diff --git %s %s\nnew file mode %06o\n", la, lb, git_mode(n->type, n->mode));
		if (s.len || s.big)
			content_diff(ch, "/dev/null", lb, (struct side){"", 0, false, false}, s, room);
	}
	sbuf_free(&keep);
	sbuf_free(&sa);
	sbuf_free(&sb);
}

static void check_all(const struct copy_ctx *c, struct copy_change *v, size_t n);

/* ---- the review ---- */

static void side_add(struct sbuf *s, const struct copy_entry *x)
{
	if (!x) {
		sbuf_add(s, "-", 2);
		return;
	}
	sbuf_addf(s, "%c %o %llu %s", x->type, x->mode, x->type == 'f' ? x->size : 0,
		  x->type == 'f' ? x->sha : "");
	sbuf_addc(s, '\0');
	if (x->type == 'l')
		sbuf_add(s, x->target ? x->target : "", strlen(x->target ? x->target : "") + 1);
}

/* Each change's hash (its path, kind, and both sides' type, mode, size
 * and SHA-256 or target) into rv, and the ID of them all: what a diff
 * showed, and what apply --expect holds it to. */
static void review_of(const struct copy_change *v, size_t n, struct copy_review *rv)
{
	struct sbuf all = {0}, one = {0};
	sbuf_adds(&all, "sandbox-review 1\n");
	for (size_t i = 0; i < n; i++) {
		sbuf_reset(&one);
		sbuf_add(&one, v[i].path, strlen(v[i].path) + 1);
		sbuf_addc(&one, v[i].kind);
		side_add(&one, v[i].old);
		side_add(&one, v[i].now);
		char h[65];
		sha256_buf_hex(one.buf, one.len, h);
		copy_review_add(rv, h, v[i].path);
		sbuf_add(&all, h, 64);
		sbuf_addc(&all, '\n');
	}
	sha256_buf_hex(all.buf, all.len, rv->id);
	sbuf_free(&all);
	sbuf_free(&one);
}

static char *review_path(const struct copy_ctx *c)
{
	return xasprintf("%s.review", c->base_path);
}

/* The review a diff showed, kept for apply --expect to say what
 * differs; a diff goes on without it. */
static void review_save(const struct copy_ctx *c, const struct copy_review *rv)
{
	struct sbuf data = {0};
	struct err ignored = {0};
	char *path = review_path(c);
	copy_review_encode(&data, rv);
	copy_file_write(path, data.buf, data.len, &ignored);
	free(path);
	sbuf_free(&data);
}

/* Up to three paths where the review of ID and the changes now differ,
 * and how many in all. */
static void review_differs(const struct copy_review *was, const struct copy_review *now,
			   struct sbuf *out)
{
	size_t i = 0, j = 0, count = 0;
	while (i < was->n || j < now->n) {
		int cmp = i == was->n ? 1 : j == now->n ? -1 : copy_path_cmp(was->v[i].path, now->v[j].path);
		const char *path = cmp <= 0 ? was->v[i].path : now->v[j].path;
		const char *how = cmp < 0 ? "no longer among them" : cmp > 0 ? "not reviewed"
			: strcmp(was->v[i].hash, now->v[j].hash) != 0 ? "changed since the review" : NULL;
		i += cmp <= 0;
		j += cmp >= 0;
		if (!how)
			continue;
		if (count++ < 3) {
			sbuf_adds(out, count > 1 ? ", " : "");
			tool_show_path(out, path, false);
			sbuf_addf(out, " %s", how);
		}
	}
	if (count > 3)
		sbuf_addf(out, ", and %zu more", count - 3);
}

static int expect_fail(const struct copy_ctx *c, const char *want, const struct copy_review *now,
		       struct err *e)
{
	struct sbuf data = {0}, why = {0};
	struct copy_review was = {0};
	struct err ignored = {0};
	bool missing;
	char *path = review_path(c);
	if (copy_file_read(path, COPY_BASE_FILE_MAX, &data, &missing, &ignored) == 0 &&
	    copy_review_decode(data.buf ? data.buf : "", data.len, &was) == 0 && strcmp(was.id, want) == 0)
		review_differs(&was, now, &why);
	if (why.len)
		err_set(e, ERR_FAILED, "the changes are not those of the review %.12s: %s; nothing was written: "
			"run diff again", want, why.buf);
	else
		err_set(e, ERR_FAILED, "the changes are not those of the review %.12s (they are %.12s now); "
			"nothing was written: run diff again", want, now->id);
	copy_review_free(&was);
	sbuf_free(&data);
	sbuf_free(&why);
	free(path);
	return -1;
}

/* ---- diff ---- */

int do_diff(struct app *a, struct diff_result *r, struct err *e)
{
	*r = (struct diff_result){0};
	struct copy_ctx c;
	int rc = ctx_open(&c, a, e);
	c.keep = true;
	if (rc == 0)
		rc = fetch_now(&c, e);
	if (rc == 0) {
		/* What apply would say of each, its hash, then its text; the
		 * workspace's bytes of each let go once shown. */
		r->n = changes(&c, &r->v);
		rc = changes_fit(r->v, r->n, e);
	}
	if (rc == 0) {
		check_all(&c, r->v, r->n);
		struct copy_review rv = {0};
		review_of(r->v, r->n, &rv);
		memcpy(r->id, rv.id, sizeof(r->id));
		review_save(&c, &rv);
		copy_review_free(&rv);
		for (size_t i = 0; i < r->n; i++) {
			diff_one(&c, &r->v[i], c.text < TEXT_MAX ? TEXT_MAX - c.text : 0);
			c.text += r->v[i].text.len;
			if (r->v[i].now)
				sbuf_free(&c.got[r->v[i].now_index].data);
		}
		r->workspace = a->ws_name;
		r->dir = xstrdup(c.base.dir);
		r->stat = a->o.diff.stat;
		r->name_only = a->o.diff.name_only;
	}
	/* The entries changes point into are gone with c. */
	for (size_t i = 0; i < r->n; i++)
		r->v[i].old = r->v[i].now = NULL;
	ctx_free(&c);
	if (rc < 0) {
		diff_result_free(r);
		return -1;
	}
	return r->n ? 1 : 0;
}

void diff_result_free(struct diff_result *r)
{
	copy_changes_free(r->v, r->n);
	free(r->dir);
	*r = (struct diff_result){0};
}

/* ---- apply ---- */

/* The change at path, if any (v is in the order of paths). */
static int change_cmp(const void *a, const void *b)
{
	return copy_path_cmp(((const struct copy_change *)a)->path,
			     ((const struct copy_change *)b)->path);
}

static struct copy_change *change_at(struct copy_change *v, size_t n, const char *path)
{
	struct copy_change key = {.path = (char *)path};
	return n ? bsearch(&key, v, n, sizeof(*v), change_cmp) : NULL;
}

/* Whether the directory above path is made by this apply. */
static bool parent_made(struct copy_change *v, size_t n, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	char *up = xstrndup(path, (size_t)(slash - path));
	const struct copy_change *ch = change_at(v, n, up);
	free(up);
	return ch && ch->new_type == 'd' && ch->kind != 'm';
}

/* Whether DIR's directory at rel holds only what the baseline has (so
 * that removing the baseline's paths empties it). */
static bool only_known(const struct copy_ctx *c, int dfd, struct sbuf *rel)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return false;
	}
	bool ok = true;
	size_t len = rel->len;
	struct dirent *de;
	while (ok && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		sbuf_addc(rel, '/');
		sbuf_adds(rel, de->d_name);
		const struct copy_entry *b = copy_tree_find(&c->base.tree, rel->buf);
		struct stat sb;
		if (!b || fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			ok = false;
		else if (S_ISDIR(sb.st_mode)) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			ok = sub >= 0 && only_known(c, sub, rel);
		}
		rel->len = len;
		rel->buf[len] = '\0';
	}
	closedir(d);
	return ok;
}

/* Checks one change against DIR as it is now. */
static void check_one(const struct copy_ctx *c, struct copy_change *v, size_t n,
		      struct copy_change *ch)
{
	/* DIR's path, read once. */
	struct copy_entry st;
	bool cut;
	int rc = dir_state(c->root, ch->path, &st, NULL, &cut), rc_errno = errno;
	if (rc == 0 && ((ch->now && st.type && same(&st, ch->now)) || (!ch->now && !st.type))) {
		ch->noop = true; /* DIR has it already */
		copy_entry_free(&st);
		return;
	}
	if (copy_path_vcs(ch->path)) {
		ch->refused = true;
		ch->why = "version-control metadata, which a tool on the host would obey: apply never "
			  "writes it, not even with --force (read it here; copy it by hand if you must)";
		copy_entry_free(&st);
		return;
	}
	if (ch->kind == 'T' && ch->old_type == 'd') {
		const char *leaf;
		int pfd = open_parent(c->root, ch->path, &leaf, false);
		int dfd = pfd >= 0 ? openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		struct sbuf rel = {0};
		sbuf_adds(&rel, ch->path);
		if (dfd >= 0 && !only_known(c, dfd, &rel)) {
			ch->refused = true;
			ch->why = "DIR's directory holds files the copy did not (left out, or made since): "
				  "it cannot become a file";
		}
		sbuf_free(&rel);
		if (pfd >= 0)
			close(pfd);
		if (ch->refused) {
			copy_entry_free(&st);
			return;
		}
	}
	if (rc < 0 && (rc_errno == ELOOP || rc_errno == ENOTDIR) && !parent_made(v, n, ch->path)) {
		ch->refused = true;
		ch->why = "a link or a file of DIR lies on its way";
	} else if (rc < 0 && !parent_made(v, n, ch->path)) {
		ch->conflict = true;
		ch->why = "cannot be read in DIR";
	} else if (ch->old && rc == 0 && !same(&st, ch->old)) {
		ch->conflict = true;
		ch->why = st.type ? "changed in DIR since the copy" : "gone from DIR since the copy";
	} else if (!ch->old && rc == 0 && st.type) {
		ch->conflict = true;
		ch->why = "made in DIR since the copy";
	} else if (!ch->old && rc == 0 && strchr(ch->path, '/') && !parent_made(v, n, ch->path)) {
		const char *leaf;
		int pfd = open_parent(c->root, ch->path, &leaf, false);
		if (pfd < 0) {
			ch->conflict = true;
			ch->why = "its directory is gone from DIR";
		} else {
			close(pfd);
		}
	}
	copy_entry_free(&st);
}

/* Whether dir ("" the top) holds, in the workspace, what makes git take
 * it for a bare repository: HEAD, objects/ and refs/. */
static bool bare_repo(const struct copy_ctx *c, const char *dir, size_t len)
{
	static const char *const parts[] = {"HEAD", "objects", "refs"};
	bool yes = true;
	for (size_t i = 0; yes && i < ARRAY_LEN(parts); i++) {
		char *p = len ? xasprintf("%.*s/%s", (int)len, dir, parts[i]) : xstrdup(parts[i]);
		const struct copy_entry *x = copy_tree_find(&c->now, p);
		yes = x && (i == 0 ? x->type != 'd' : x->type == 'd');
		free(p);
	}
	return yes;
}

/* Whether a directory above path is a bare repository: what is in it is
 * git's metadata as much as .git's is. */
static bool in_bare_repo(const struct copy_ctx *c, const char *path)
{
	if (bare_repo(c, "", 0))
		return true;
	for (const char *s = path; (s = strchr(s, '/')); s++)
		if (bare_repo(c, path, (size_t)(s - path)))
			return true;
	return false;
}

/* Checks every change; then a directory that goes, with a refused path
 * in it, is refused too (what is refused stays in it). */
static void check_all(const struct copy_ctx *c, struct copy_change *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_one(c, v, n, &v[i]);
	for (size_t i = 0; i < n; i++)
		if (!v[i].refused && !v[i].noop && in_bare_repo(c, v[i].path)) {
			v[i].refused = true;
			v[i].why = "in a directory the workspace made a bare git repository (HEAD, objects/, "
				   "refs/), whose config git would obey: apply never writes it, not even with "
				   "--force";
		}
	for (size_t i = n; i-- > 0;) {
		struct copy_change *ch = &v[i];
		if (ch->refused || ch->noop || ch->old_type != 'd' || (ch->kind != 'D' && ch->kind != 'T'))
			continue;
		size_t len = strlen(ch->path);
		for (size_t j = i + 1; j < n && strncmp(v[j].path, ch->path, len) == 0 &&
				       v[j].path[len] == '/'; j++)
			if (v[j].refused) {
				ch->refused = true;
				ch->why = "it holds a path apply refuses, which stays";
				break;
			}
	}
}

static int apply_fail(struct copy_change *ch, const char *dir, const char *what, struct err *e)
{
	int saved = errno;
	struct sbuf shown = {0};
	tool_show_path(&shown, ch->path, false);
	err_set(e, ERR_FAILED, "%s/%s: %s: %s; the changes before it were applied", dir, shown.buf, what,
		strerror(saved));
	sbuf_free(&shown);
	return -1;
}

/* Removes what DIR has at the change's path (its old side). */
static int apply_remove(struct copy_ctx *c, struct copy_change *ch, struct err *e)
{
	const char *leaf;
	int pfd = open_parent(c->root, ch->path, &leaf, false);
	if (pfd < 0)
		return errno == ENOENT ? 0 : apply_fail(ch, c->base.dir, "cannot reach it", e);
	struct stat sb;
	int rc = 0;
	if (fstatat(pfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		bool dir = S_ISDIR(sb.st_mode);
		if (unlinkat(pfd, leaf, dir ? AT_REMOVEDIR : 0) < 0) {
			if (dir && (errno == ENOTEMPTY || errno == EEXIST))
				ch->kept = true;
			else if (errno != ENOENT)
				rc = apply_fail(ch, c->base.dir, "cannot remove it", e);
		}
	}
	close(pfd);
	return rc;
}

/* Puts the change's new side in place. */
static int apply_put(struct copy_ctx *c, struct copy_change *ch, bool force, struct err *e)
{
	const struct copy_entry *n = ch->now;
	const char *leaf;
	int pfd = open_parent(c->root, ch->path, &leaf, force);
	if (pfd < 0)
		return apply_fail(ch, c->base.dir, "cannot reach its directory", e);
	int rc = 0;
	struct stat sb;
	if (n->type == 'd') {
		/* Its mode comes last (apply_modes): a directory the workspace
		 * made read-only must still take what goes in it. */
		if (mkdirat(pfd, leaf, 0700) < 0 && errno != EEXIST)
			rc = apply_fail(ch, c->base.dir, "cannot make it", e);
	} else if (n->type == 'f' && ch->kind == 'm') {
		if (fstatat(pfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(sb.st_mode) ||
		    fchmodat(pfd, leaf, n->mode, 0) < 0)
			rc = apply_fail(ch, c->base.dir, "cannot set its mode", e);
	} else if (n->type == 'f') {
		/* Staged with its mode (fetch_end). */
		if (renameat(c->stage_fd, c->got[ch->now_index].stage, pfd, leaf) < 0)
			rc = apply_fail(ch, c->base.dir, "cannot put it in place", e);
	} else {
		char tmp[48] = ".sandbox-link-";
		if (random_hex(tmp + strlen(tmp), 16) < 0)
			errno = EIO;
		if (!tmp[14] || symlinkat(n->target, pfd, tmp) < 0)
			rc = apply_fail(ch, c->base.dir, "cannot make the link", e);
		else if (renameat(pfd, tmp, pfd, leaf) < 0) {
			rc = apply_fail(ch, c->base.dir, "cannot put the link in place", e);
			unlinkat(pfd, tmp, 0);
		}
	}
	close(pfd);
	return rc;
}

/* The baseline after the changes done: each done path as the workspace
 * has it. */
static int rebase(struct copy_ctx *c, struct copy_change *v, size_t n, struct err *e)
{
	struct copy_tree t = {0};
	for (size_t i = 0; i < c->base.tree.n; i++) {
		const struct copy_entry *b = &c->base.tree.v[i];
		const struct copy_change *ch = change_at(v, n, b->path);
		if (ch && (ch->done || ch->removed))
			continue;
		struct copy_entry x = *b;
		x.path = xstrdup(b->path);
		x.target = b->target ? xstrdup(b->target) : NULL;
		copy_tree_add(&t, &x);
	}
	for (size_t i = 0; i < n; i++) {
		if (!v[i].done || !v[i].now)
			continue;
		struct copy_entry x = *v[i].now;
		if (v[i].kind == 'm' && v[i].old && x.type == 'f')
			x.size = v[i].old->size; /* same bytes: not the listing's word */
		x.path = xstrdup(x.path);
		x.target = x.target ? xstrdup(x.target) : NULL;
		copy_tree_add(&t, &x);
	}
	copy_tree_sort(&t);
	copy_tree_free(&c->base.tree);
	c->base.tree = t;
	return copy_base_save(c->base_path, &c->base, e);
}

static int stage_open(struct copy_ctx *c, struct err *e)
{
	char hex[17];
	if (random_hex(hex, 16) < 0)
		return err_set(e, ERR_FAILED, "cannot read /dev/urandom");
	snprintf(c->stage_name, sizeof(c->stage_name), ".sandbox-apply-%s", hex);
	if (mkdirat(c->root, c->stage_name, 0700) < 0)
		return err_set(e, ERR_FAILED, "cannot write in %s: %s", c->base.dir, strerror(errno));
	c->stage_fd = openat(c->root, c->stage_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->stage_fd < 0) {
		unlinkat(c->root, c->stage_name, AT_REMOVEDIR);
		return err_set(e, ERR_FAILED, "cannot write in %s: %s", c->base.dir, strerror(errno));
	}
	return 0;
}

static int apply_all(struct copy_ctx *c, struct apply_result *r, struct err *e)
{
	bool force = c->a->o.apply.force;
	/* What goes: deepest first. A refused path is never touched. */
	for (size_t i = r->n; i-- > 0;) {
		struct copy_change *ch = &r->v[i];
		if (ch->refused)
			continue;
		if (!ch->noop && ch->old && (ch->kind == 'D' || ch->kind == 'T')) {
			if (apply_remove(c, ch, e) < 0)
				return -1;
			ch->removed = true;
		}
		if (ch->kind == 'D')
			ch->done = true;
	}
	/* What comes: a directory before what is in it. */
	int rc = 0;
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		struct copy_change *ch = &r->v[i];
		if (ch->refused)
			continue;
		if (ch->now && !ch->noop && apply_put(c, ch, force, e) < 0)
			rc = -1;
		else
			ch->done = ch->now != NULL || ch->done;
	}
	/* Directories' modes, deepest first, once what is in them is there;
	 * after a failure too, for those made. One whose mode could not be
	 * set is not done: the baseline keeps what it was. */
	for (size_t i = r->n; i-- > 0;) {
		struct copy_change *ch = &r->v[i];
		if (!ch->now || ch->now->type != 'd' || ch->noop || !ch->done)
			continue;
		const char *leaf;
		int pfd = open_parent(c->root, ch->path, &leaf, false);
		int fd = pfd >= 0 ? openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (fd < 0 || fchmod(fd, ch->now->mode) < 0) {
			ch->done = false;
			if (rc == 0)
				rc = apply_fail(ch, c->base.dir, "cannot set its mode", e);
		}
		if (fd >= 0)
			close(fd);
		if (pfd >= 0)
			close(pfd);
	}
	return rc;
}

/* What a change of r writes as a file. */
static bool writes_file(const struct apply_result *r, const struct copy_change *ch)
{
	return ch->now && ch->now->type == 'f' && ch->kind != 'm' && !ch->noop && !ch->refused &&
	       (!ch->conflict || r->force);
}

/* Apply's second pass: the files it writes, when they fit under
 * max_size and above DIR's reserve, fetched again and staged under DIR,
 * each checked against the first pass, before anything is put in
 * place. Every stop removes what was staged (ctx_free). */
static int stage_all(struct copy_ctx *c, struct apply_result *r, struct err *e)
{
	unsigned long long total = 0, avail, reserve;
	size_t files = 0;
	for (size_t i = 0; i < r->n; i++)
		if (writes_file(r, &r->v[i])) {
			c->got[r->v[i].now_index].want = true;
			total += r->v[i].now->size;
			files++;
		}
	long long max = c->a->cfg.max_size;
	if (max > 0 && total > (unsigned long long)max)
		return err_set(e, ERR_FAILED, "the files to write come to %.1f MiB (a hard link counts in full), "
			       "more than max_size, %.1f MiB; nothing was written: pass --max-size",
			       total / 1048576.0, max / 1048576.0);
	int room = disk_room(c->root, total, &avail, &reserve);
	if (room < 0)
		return err_set(e, ERR_FAILED, "%s: %s", c->base.dir, strerror(errno));
	if (room > 0)
		return err_set(e, ERR_FAILED, "the files to write come to %.1f MiB, and %s's filesystem has "
			       "%.1f MiB free, of which it keeps %.1f MiB (a twentieth); nothing was written",
			       total / 1048576.0, c->base.dir, avail / 1048576.0, reserve / 1048576.0);
	if (!files)
		return 0;
	if (stage_open(c, e) < 0 || fetch_pass(c, true, e) < 0)
		return -1;
	for (size_t i = 0; i < c->now.n; i++)
		if (c->got[i].want && !c->got[i].staged) {
			struct sbuf shown = {0};
			tool_show_path(&shown, c->now.v[i].path, false);
			err_set(e, ERR_FAILED, "%s is gone from the workspace since it was listed; nothing was "
				"written: run it again", shown.buf);
			sbuf_free(&shown);
			return -1;
		}
	return 0;
}

int do_apply(struct app *a, struct apply_result *r, struct err *e)
{
	*r = (struct apply_result){.check = a->o.apply.check, .force = a->o.apply.force};
	const char *expect = a->o.apply.expect;
	if (expect && !sha256_hex_ok(expect))
		return err_set(e, ERR_USAGE, "--expect '%s': expected a review's ID, the 64 hex digits diff "
			       "prints", expect);
	struct copy_ctx c;
	int rc = ctx_open(&c, a, e);
	/* The first pass: what the changes are, and what is in their way,
	 * before a byte is staged. */
	if (rc == 0)
		rc = fetch_now(&c, e);
	if (rc == 0) {
		r->n = changes(&c, &r->v);
		rc = changes_fit(r->v, r->n, e);
	}
	if (rc == 0) {
		check_all(&c, r->v, r->n);
		for (size_t i = 0; i < r->n; i++) {
			r->conflicts += r->v[i].conflict;
			r->refused += r->v[i].refused;
		}
		struct copy_review rv = {0};
		review_of(r->v, r->n, &rv);
		memcpy(r->id, rv.id, sizeof(r->id));
		if (expect && strcmp(expect, rv.id) != 0)
			rc = expect_fail(&c, expect, &rv, e);
		copy_review_free(&rv);
		r->workspace = a->ws_name;
		r->dir = xstrdup(c.base.dir);
	}
	bool go = rc == 0 && !r->check && ((!r->refused && !r->conflicts) || r->force);
	if (go)
		rc = stage_all(&c, r, e);
	if (go && rc == 0) {
		/* A write that fails half-way: what was written is the result,
		 * and the baseline; the failure is its last line. */
		struct err failed = {0};
		if (apply_all(&c, r, &failed) < 0)
			r->error = xstrdup(failed.msg);
		r->applied = !r->error;
		struct err saving = {0};
		if (rebase(&c, r->v, r->n, &saving) < 0 && !r->error)
			r->error = xasprintf("%s; the changes above were written", saving.msg);
	}
	for (size_t i = 0; i < r->n; i++)
		r->v[i].old = r->v[i].now = NULL;
	ctx_free(&c);
	if (rc < 0) {
		apply_result_free(r);
		return -1;
	}
	return r->error || r->refused || (r->conflicts && !r->force) ? 1 : 0;
}

void apply_result_free(struct apply_result *r)
{
	copy_changes_free(r->v, r->n);
	free(r->dir);
	free(r->error);
	*r = (struct apply_result){0};
}
