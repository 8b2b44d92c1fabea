/* cmd_apply.c: the apply command: writes into DIR what a copy workspace
 * changed since create --copy DIR (copy_changes.h), once each change is
 * checked against DIR: a conflict (DIR changed too) stops it unless
 * --force, a refusal (version-control metadata, a link on the way)
 * always. The files it writes travel a second time and are staged in
 * DIR, each checked against the first pass, before anything is put in
 * place; then the baseline becomes what was written. DIR is only ever
 * written through hostdir.h, as cp writes DEST: descriptors opened one
 * component at a time without following links. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "copy.h"
#include "copy_changes.h"
#include "copy_fetch.h"
#include "hostdir.h"
#include "results.h"
#include "sha256.h"
#include "tools.h"

/* The names apply gives what it stages in DIR (cmd_copy.c's patterns
 * never copy the first), and a link's before it is in place. */
#define APPLY_STAGE ".sandbox-apply-"
#define APPLY_LINK_TMP ".sandbox-link-"
/* Bytes staged between two looks at DIR's free space. */
#define ROOM_EVERY ((unsigned long long)1 << 20)
#define READ_BUF 65536

/* ---- --expect ---- */

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
	char *path = copy_review_path(c);
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


/* ---- the writes ---- */

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
	int pfd = hostdir_parent(c->root, ch->path, false, 0, &leaf);
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
	int pfd = hostdir_parent(c->root, ch->path, force, 0755, &leaf);
	if (pfd < 0)
		return apply_fail(ch, c->base.dir, "cannot reach its directory", e);
	int rc = 0;
	enum hostdir_step step;
	if (n->type == 'd') {
		/* Its mode comes last (apply_all): a directory the workspace
		 * made read-only must still take what goes in it. */
		if (hostdir_mkdir(pfd, leaf) < 0)
			rc = apply_fail(ch, c->base.dir, "cannot make it", e);
	} else if (n->type == 'f' && ch->kind == 'm') {
		if (hostdir_chmod(pfd, leaf, n->mode) < 0)
			rc = apply_fail(ch, c->base.dir, "cannot set its mode", e);
	} else if (n->type == 'f') {
		/* Staged with its mode (stage_end). */
		if (hostdir_place(c->stage_fd, c->got[ch->now_index].stage, pfd, leaf) < 0)
			rc = apply_fail(ch, c->base.dir, "cannot put it in place", e);
	} else if (hostdir_symlink(pfd, leaf, n->target, APPLY_LINK_TMP, NULL, &step) < 0) {
		rc = apply_fail(ch, c->base.dir, step == HOSTDIR_PLACE ? "cannot put the link in place"
			       : "cannot make the link", e);
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
		const struct copy_change *ch = copy_change_at(v, n, b->path);
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
	if (hostdir_name(c->stage_name, sizeof(c->stage_name), APPLY_STAGE) < 0)
		return err_set(e, ERR_FAILED, "cannot read /dev/urandom");
	c->stage_fd = hostdir_stage(c->root, c->stage_name);
	if (c->stage_fd < 0)
		return err_set(e, ERR_FAILED, "cannot write in %s: %s", c->base.dir, strerror(errno));
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
		int pfd = hostdir_parent(c->root, ch->path, false, 0, &leaf);
		int fd = pfd >= 0 ? hostdir_opendir(pfd, leaf) : -1;
		if (fd < 0 || hostdir_meta(fd, ch->now->mode, NULL) < 0) {
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

/* ---- the second pass: the files to write, staged ---- */

/* Apply's second pass over the stream: only the files it writes, each
 * staged in DIR (c->stage_fd) and checked against what the first pass
 * saw, so that what is put in place is what the review showed. */
struct stage {
	struct copy_pass p;
	int fd;                  /* the file being staged */
	unsigned staged;
	unsigned long long written, next_look; /* bytes staged */
};

/* The workspace sent for n what the first pass did not see. */
static int stage_changed(struct stage *s, const struct copy_entry *n)
{
	struct sbuf shown = {0};
	tool_show_path(&shown, n->path, false);
	snprintf(s->p.msg, sizeof(s->p.msg), "%s changed in the workspace during the apply; nothing was "
		 "written: run it again", shown.buf);
	sbuf_free(&shown);
	s->p.stopped = true;
	return -1;
}

static int stage_fail(struct stage *s)
{
	snprintf(s->p.msg, sizeof(s->p.msg), "cannot write in %s: %s; nothing was written",
		 s->p.c->base.dir, strerror(errno));
	s->p.stopped = true;
	return -1;
}

/* n more bytes staged: DIR's filesystem must keep its reserve. */
static int stage_room(struct stage *s, unsigned long long n)
{
	s->written += n;
	if (s->written < s->next_look)
		return 0;
	s->next_look = s->written + ROOM_EVERY;
	unsigned long long avail, reserve;
	int rc = disk_room(s->p.c->stage_fd, 0, &avail, &reserve);
	if (rc < 0)
		return stage_fail(s);
	if (rc == 0)
		return 0;
	snprintf(s->p.msg, sizeof(s->p.msg), "%s's filesystem fell to %llu MiB free, under the %llu MiB "
		 "it keeps free (a twentieth); nothing was written", s->p.c->base.dir, avail >> 20,
		 reserve >> 20);
	s->p.stopped = true;
	return -1;
}

/* A hard link ('1') to a file staged before: a file of its own with the
 * same bytes, staged once more (and counted again). */
static int stage_hardlink(struct stage *s, struct copy_entry *n, struct copy_got *g)
{
	struct copy_ctx *c = s->p.c;
	struct copy_entry *src = copy_pass_link(&s->p);
	struct copy_got *sg = src ? &c->got[src - c->now.v] : NULL;
	if (!src || src == n || !sg->staged || !sg->stage[0] || strcmp(src->sha, n->sha) != 0)
		return stage_changed(s, n);
	snprintf(g->stage, sizeof(g->stage), "%u", s->staged++);
	int in = openat(c->stage_fd, sg->stage, O_RDONLY | O_CLOEXEC);
	int out = hostdir_create(c->stage_fd, g->stage);
	int rc = in >= 0 && out >= 0 ? 0 : stage_fail(s);
	char buf[READ_BUF];
	ssize_t r;
	while (rc == 0 && (r = read(in, buf, sizeof(buf))) != 0)
		if ((r < 0 && errno != EINTR) || (r > 0 && write_all(out, buf, (size_t)r) < 0))
			rc = stage_fail(s);
		else if (r > 0)
			rc = stage_room(s, (unsigned long long)r);
	if (out >= 0 && rc == 0 && hostdir_meta(out, n->mode, NULL) < 0)
		rc = stage_fail(s);
	if (out >= 0 && close(out) < 0 && rc == 0)
		rc = stage_fail(s);
	if (in >= 0)
		close(in);
	return rc;
}

static int stage_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct stage *s = ctx;
	(void)size;
	s->p.cur = NULL;
	struct copy_entry *n = copy_pass_find(&s->p, name);
	if (!n)
		return 0; /* not asked for: skipped */
	struct copy_got *g = &s->p.c->got[n - s->p.c->now.v];
	if (!g->want || g->staged)
		return 0;
	g->staged = true;
	if (type == '1')
		return stage_hardlink(s, n, g);
	if (type != '0' && type != '\0' && type != '7')
		return stage_changed(s, n);
	copy_pass_begin(&s->p, n);
	snprintf(g->stage, sizeof(g->stage), "%u", s->staged++);
	s->fd = hostdir_create(s->p.c->stage_fd, g->stage);
	return s->fd < 0 ? stage_fail(s) : 0;
}

static int stage_data(void *ctx, const char *buf, size_t n)
{
	struct stage *s = ctx;
	if (!s->p.cur)
		return 0;
	if (copy_pass_data(&s->p, buf, n) < 0)
		return -1;
	/* Never more than the first pass hashed. */
	if (s->p.size > s->p.cur->size)
		return stage_changed(s, s->p.cur);
	if (write_all(s->fd, buf, n) < 0)
		return stage_fail(s);
	return stage_room(s, n);
}

static int stage_end(void *ctx)
{
	struct stage *s = ctx;
	if (!s->p.cur)
		return 0;
	char sha[65];
	unsigned long long size = s->p.size;
	struct copy_entry *n = copy_pass_end(&s->p, sha);
	int rc = size == n->size && strcmp(sha, n->sha) == 0 ? 0 : stage_changed(s, n);
	if (rc == 0 && hostdir_meta(s->fd, n->mode, NULL) < 0)
		rc = stage_fail(s);
	if (close(s->fd) < 0 && rc == 0)
		rc = stage_fail(s);
	s->fd = -1;
	return rc;
}

/* The files of c->got marked want, fetched again and staged. */
static int stage_pass(struct copy_ctx *c, struct err *e)
{
	struct sbuf names = {0};
	for (size_t i = 0; i < c->now.n; i++)
		if (c->got[i].want)
			copy_pass_name(&names, c->now.v[i].path);
	struct stage s = {.p = {.c = c}, .fd = -1};
	struct tar_sink sink = {.ctx = &s, .entry = stage_entry, .data = stage_data, .end = stage_end};
	int rc = names.len ? copy_pass_run(&s.p, &names, &sink, e) : 0;
	if (s.fd >= 0)
		close(s.fd);
	sbuf_free(&names);
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
	if (stage_open(c, e) < 0 || stage_pass(c, e) < 0)
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

int apply_copy(struct copy_ctx *c, struct apply_result *r, struct err *e)
{
	const char *expect = c->a->o.apply.expect;
	/* The first pass: what the changes are, and what is in their way,
	 * before a byte is staged. */
	int rc = copy_fetch_now(c, e);
	if (rc == 0) {
		r->n = copy_changes_of(c, &r->v);
		rc = copy_changes_fit(r->v, r->n, e);
	}
	if (rc == 0) {
		copy_check_all(c, r->v, r->n);
		for (size_t i = 0; i < r->n; i++) {
			r->conflicts += r->v[i].conflict;
			r->refused += r->v[i].refused;
		}
		struct copy_review rv = {0};
		copy_review_of(r->v, r->n, &rv);
		memcpy(r->id, rv.id, sizeof(r->id));
		if (expect && strcmp(expect, rv.id) != 0)
			rc = expect_fail(c, expect, &rv, e);
		copy_review_free(&rv);
		r->workspace = c->a->ws_name;
		r->dir = xstrdup(c->base.dir);
	}
	bool go = rc == 0 && !r->check && ((!r->refused && !r->conflicts) || r->force);
	if (go)
		rc = stage_all(c, r, e);
	if (go && rc == 0) {
		/* A write that fails half-way: what was written is the result,
		 * and the baseline; the failure is its last line. */
		struct err failed = {0};
		if (apply_all(c, r, &failed) < 0)
			r->error = xstrdup(failed.msg);
		r->applied = !r->error;
		struct err saving = {0};
		if (rebase(c, r->v, r->n, &saving) < 0 && !r->error)
			r->error = xasprintf("%s; the changes above were written", saving.msg);
	}
	/* The entries changes point into are gone with c. */
	for (size_t i = 0; i < r->n; i++)
		r->v[i].old = r->v[i].now = NULL;
	return rc;
}

int do_apply(struct app *a, struct apply_result *r, struct err *e)
{
	*r = (struct apply_result){.check = a->o.apply.check, .force = a->o.apply.force};
	const char *expect = a->o.apply.expect;
	if (expect && !sha256_hex_ok(expect))
		return err_set(e, ERR_USAGE, "--expect '%s': expected a review's ID, the 64 hex digits diff "
			       "prints", expect);
	struct copy_ctx c;
	int rc = copy_ctx_open(&c, a, e);
	if (rc == 0)
		rc = apply_copy(&c, r, e);
	copy_ctx_free(&c);
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
