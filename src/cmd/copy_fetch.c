/* copy_fetch.c: a copy workspace's baseline, its copy now and DIR now,
 * for diff and apply (copy_fetch.h). The listing and the tar stream are
 * the workspace's bytes: every size they give is bounded, every path
 * checked, and a stream that disagrees with the listing stops the
 * command. DIR is only ever read through descriptors opened one
 * component at a time without following links. */
#include "copy_fetch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feed.h"
#include "hostdir.h"
#include "scripts.h"
#include "sha256.h"
#include "tar.h"
#include "tools.h"

#define READ_BUF 65536

/* ---- DIR, one component at a time ---- */

int copy_dir_state(int root, const char *rel, struct copy_entry *st, struct sbuf *keep, bool *cut)
{
	*st = (struct copy_entry){0};
	const char *leaf;
	int pfd = hostdir_parent(root, rel, false, 0, &leaf);
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

bool copy_same(const struct copy_entry *x, const struct copy_entry *y)
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

void copy_ctx_free(struct copy_ctx *c)
{
	if (c->got)
		for (size_t i = 0; i < c->now.n; i++)
			sbuf_free(&c->got[i].data);
	free(c->got);
	if (c->stage_fd >= 0) {
		close(c->stage_fd);
		hostdir_remove(c->root, c->stage_name);
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

bool copy_wanted(const struct copy_ctx *c, const char *rel)
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

bool copy_on_way(const struct copy_ctx *c, const char *rel)
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

int copy_ctx_list(struct copy_ctx *c, struct err *e)
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
	int rc = c->run(c, args.v, args.n, NULL, &out, e);
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
	return n->type == '?' || (copy_wanted(c, n->path) && must_fetch(c, n));
}

/* ---- a pass over the tar stream ---- */

struct copy_entry *copy_pass_find(const struct copy_pass *p, const char *name)
{
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	/* GNU tar ends a directory's name with '/'. */
	char path[COPY_PATH_MAX + 2];
	size_t len = strlen(name);
	if (len > COPY_PATH_MAX + 1)
		return NULL;
	memcpy(path, name, len + 1);
	if (len > 1 && path[len - 1] == '/')
		path[len - 1] = '\0';
	return copy_tree_find(&p->c->now, path);
}

struct copy_entry *copy_pass_link(const struct copy_pass *p)
{
	const char *ln = p->tr->link;
	while (ln[0] == '.' && ln[1] == '/')
		ln += 2;
	return copy_tree_find(&p->c->now, ln);
}

void copy_pass_begin(struct copy_pass *p, struct copy_entry *n)
{
	p->cur = n;
	p->g = &p->c->got[n - p->c->now.v];
	p->size = 0;
	sha256_init(&p->h);
}

int copy_pass_data(struct copy_pass *p, const char *buf, size_t n)
{
	long long max = p->c->a->cfg.max_size;
	p->read += n;
	if (max > 0 && p->read > (unsigned long long)max) {
		snprintf(p->msg, sizeof(p->msg), "the workspace's changed files come to more than max_size, "
			 "%.1f MiB; nothing was done: pass --max-size, or name PATHs", max / 1048576.0);
		p->stopped = true;
		return -1;
	}
	sha256_update(&p->h, buf, n);
	p->size += n;
	return 0;
}

struct copy_entry *copy_pass_end(struct copy_pass *p, char sha[65])
{
	unsigned char d[32];
	sha256_final(&p->h, d);
	sha256_hex(d, sha);
	struct copy_entry *n = p->cur;
	p->cur = NULL;
	return n;
}

static int pass_body(void *ctx, const char *buf, size_t n)
{
	struct copy_pass *p = ctx;
	char msg[200];
	if (tar_feed(p->tr, buf, n, msg, sizeof(msg)) < 0) {
		if (!p->msg[0])
			snprintf(p->msg, sizeof(p->msg), "the workspace's tar stream: %s", msg);
		return -1;
	}
	return 0;
}

void copy_pass_name(struct sbuf *names, const char *path)
{
	sbuf_adds(names, "./");
	sbuf_add(names, path, strlen(path) + 1);
}

int copy_pass_run(struct copy_pass *p, const struct sbuf *names, const struct tar_sink *sink,
		  struct err *e)
{
	struct copy_ctx *c = p->c;
	p->tr = xmalloc(sizeof(*p->tr));
	tar_init(p->tr, sink);
	struct feed feed;
	feed_init_buf_raw(&feed, names->buf, names->len);
	char *args[] = {"/bin/sh", "-c", (char *)SCRIPT_PACK, "sh", "."};
	/* Its stdin is raw: never on the channel, whose frames it is not. */
	struct tool_out out = {.body = pass_body, .ctx = p, .own_exec = true};
	int rc = c->run(c, args, ARRAY_LEN(args), &feed, &out, e);
	char msg[300];
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0 && p->msg[0])
		rc = err_set(e, p->stopped ? ERR_FAILED : ERR_WORKSPACE, "%s", p->msg);
	else if (rc == 0 && strcmp(head, "OK") != 0)
		rc = err_set(e, ERR_WORKSPACE, "unexpected answer from the packing script");
	else if (rc == 0 && tar_finish(p->tr, msg, sizeof(msg)) < 0)
		rc = err_set(e, ERR_WORKSPACE, "the workspace's tar stream: %s", msg);
	tool_out_free(&out);
	feed_free(&feed);
	free(p->tr);
	p->tr = NULL;
	return rc;
}

/* ---- the first pass: what each path is ---- */

/* A hard link of the stream ('1') to a file it brought before: a file
 * of its own with the same bytes (apply writes two files, as the copy
 * had them, never one linked to the other). A link to anything else is
 * not there. */
static int fetch_hardlink(struct copy_pass *p, struct copy_entry *n, struct copy_got *g)
{
	struct copy_entry *src = copy_pass_link(p);
	struct copy_got *sg = src ? &p->c->got[src - p->c->now.v] : NULL;
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
	if (p->c->keep && !sg->cut && p->c->kept + sg->data.len <= SHOW_TOTAL_MAX) {
		sbuf_add(&g->data, sg->data.buf ? sg->data.buf : "", sg->data.len);
		p->c->kept += sg->data.len;
	} else {
		g->cut = true;
		g->full = !sg->cut || sg->full;
	}
	return 0;
}

static int fetch_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct copy_pass *p = ctx;
	(void)size;
	p->cur = NULL;
	struct copy_entry *n = copy_pass_find(p, name);
	if (!n)
		return 0; /* not asked for: skipped */
	struct copy_got *g = &p->c->got[n - p->c->now.v];
	if (g->fetched || !needs(p->c, n))
		return 0;
	g->fetched = true;
	if (type == '1')
		return fetch_hardlink(p, n, g);
	char t = type == '0' || type == '\0' || type == '7' ? 'f' : type == '5' ? 'd' : type == '2' ? 'l' : 'x';
	if (t == 'l') {
		/* A target is a path: no longer than one, and counted with
		 * the listing's paths. */
		size_t tl = strlen(p->tr->link) + 1;
		if (tl > COPY_PATH_MAX + 1 || tl > p->c->room) {
			snprintf(p->msg, sizeof(p->msg), "the workspace's links' targets are %s; nothing was done",
				 tl > COPY_PATH_MAX + 1 ? "longer than a path can be" : "more than the listing may hold");
			return -1;
		}
		p->c->room -= tl;
	}
	n->type = t;
	n->mode = t == 'l' ? 0777 : p->tr->mode & 0777;
	free(n->target);
	n->target = t == 'l' ? xstrdup(p->tr->link) : NULL;
	n->sha[0] = '\0';
	n->size = 0;
	if (t == 'f')
		copy_pass_begin(p, n);
	return 0;
}

static int fetch_data(void *ctx, const char *buf, size_t n)
{
	struct copy_pass *p = ctx;
	if (!p->cur)
		return 0;
	if (copy_pass_data(p, buf, n) < 0)
		return -1;
	struct copy_got *g = p->g;
	if (!p->c->keep)
		g->cut = true;
	else if (!g->cut && g->data.len + n <= SHOW_MAX && p->c->kept + n <= SHOW_TOTAL_MAX) {
		sbuf_add(&g->data, buf, n);
		p->c->kept += n;
	} else if (!g->cut) {
		g->cut = true;
		g->full = g->data.len + n <= SHOW_MAX;
		p->c->kept -= g->data.len;
		sbuf_free(&g->data);
	}
	return 0;
}

static int fetch_end(void *ctx)
{
	struct copy_pass *p = ctx;
	if (!p->cur)
		return 0;
	unsigned long long size = p->size;
	struct copy_entry *n = copy_pass_end(p, p->cur->sha);
	n->size = size;
	return 0;
}

/* The paths of now that travel, NUL-ended; how many. */
static size_t travel_names(const struct copy_ctx *c, struct sbuf *names)
{
	size_t want = 0;
	for (size_t i = 0; i < c->now.n; i++)
		if (needs(c, &c->now.v[i])) {
			copy_pass_name(names, c->now.v[i].path);
			want++;
		}
	return want;
}

static int fetch_pass(struct copy_ctx *c, struct err *e)
{
	struct sbuf names = {0};
	int rc = 0;
	if (travel_names(c, &names)) {
		struct copy_pass p = {.c = c};
		struct tar_sink sink = {.ctx = &p, .entry = fetch_entry, .data = fetch_data, .end = fetch_end};
		rc = copy_pass_run(&p, &names, &sink, e);
	}
	sbuf_free(&names);
	return rc;
}

int copy_fetch_now(struct copy_ctx *c, struct err *e)
{
	if (fetch_pass(c, e) < 0)
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

static int run_in_ws(struct copy_ctx *c, char *const *args, size_t nargs, struct feed *feed,
		     struct tool_out *out, struct err *e)
{
	return tool_run(c->a, &c->ws, PROTO_COMMAND, args, nargs, feed, false, out, e);
}

void copy_ctx_init(struct copy_ctx *c, struct app *a)
{
	*c = (struct copy_ctx){.a = a, .stage_fd = -1, .root = -1, .only = &a->o.args, .run = run_in_ws};
}

int copy_ctx_open(struct copy_ctx *c, struct app *a, struct err *e)
{
	copy_ctx_init(c, a);
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
	return copy_ctx_list(c, e);
}

