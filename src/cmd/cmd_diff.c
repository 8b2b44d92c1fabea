/* cmd_diff.c: the diff command: what a copy workspace changed since
 * create --copy DIR (copy_changes.h), as git diff shows it, each change
 * checked as apply would check it, with the review's ID that apply
 * --expect takes. The workspace's side is its bytes as they travelled;
 * DIR's side is read from DIR without following a link. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "copy.h"
#include "copy_changes.h"
#include "copy_fetch.h"
#include "diff.h"
#include "results.h"
#include "tools.h"

/* All the text of a diff: past it, a change is named, not shown. */
#define TEXT_MAX ((size_t)8 << 20)

/* ---- a change's text ---- */

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
	int rc = copy_dir_state(c->root, b->path, &st, keep, &cut);
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
	const struct copy_got *g = &c->got[ch->now_index];
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

/* ---- the review ---- */

/* The review a diff showed, kept for apply --expect to say what
 * differs; a diff goes on without it. */
static void review_save(const struct copy_ctx *c, const struct copy_review *rv)
{
	struct sbuf data = {0};
	struct err ignored = {0};
	char *path = copy_review_path(c);
	copy_review_encode(&data, rv);
	copy_file_write(path, data.buf, data.len, &ignored);
	free(path);
	sbuf_free(&data);
}


/* ---- the command ---- */

int do_diff(struct app *a, struct diff_result *r, struct err *e)
{
	*r = (struct diff_result){0};
	struct copy_ctx c;
	int rc = copy_ctx_open(&c, a, e);
	c.keep = true;
	if (rc == 0)
		rc = copy_fetch_now(&c, e);
	if (rc == 0) {
		/* What apply would say of each, its hash, then its text; the
		 * workspace's bytes of each let go once shown. */
		r->n = copy_changes_of(&c, &r->v);
		rc = copy_changes_fit(r->v, r->n, e);
	}
	if (rc == 0) {
		copy_check_all(&c, r->v, r->n);
		struct copy_review rv = {0};
		copy_review_of(r->v, r->n, &rv);
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
	copy_ctx_free(&c);
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

