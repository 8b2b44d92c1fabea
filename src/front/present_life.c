/* present_life.c: the presenters of a workspace's life (cmd_life.c,
 * pool.c, cmd_snap.c): create, start, stop, list, destroy, prune, pool,
 * snapshot, fork and snapshots, as the CLI's text and the --json tree;
 * and the note of a workspace made on first use. */
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "results.h"
#include "utf8.h"

/* ---- create, start, stop ---- */

void created_text(const char *ref)
{
	fprintf(stderr, "sandbox: created workspace %s (pass -w %s to reuse it)\n", ref, ref);
}

void ref_text(FILE *f, FILE *err, const struct ref_result *r)
{
	(void)err;
	fprintf(f, "%s\n", r->workspace);
}

void ref_tree(struct jv *t, const struct ref_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "id", r->id);
}

void ref_result_free(struct ref_result *r)
{
	free(r->workspace);
	free(r->id);
}

/* ---- list ---- */

/* When w expires: "expired", "in 59m", "idle 30m", both, or "-". */
static void format_expiry(char *buf, size_t cap, const struct ws_row *w, long long now)
{
	char t[32] = "", i[32] = "";
	if (life_expired(w, now)) {
		snprintf(buf, cap, "expired");
		return;
	}
	if (w->expires > 0)
		present_age(t, sizeof(t), w->expires - now);
	if (w->idle > 0)
		present_age(i, sizeof(i), w->idle);
	snprintf(buf, cap, "%s%s%s%s%s", *t ? "in " : "", t, *t && *i ? ", " : "",
		 *i ? "idle " : "", i);
	if (!*buf)
		snprintf(buf, cap, "-");
}

/* A RUNTIME column only when a workspace has one of its own. */
static bool any_runtime(const struct list_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].runtime && *r->rows[i].runtime)
			return true;
	return false;
}

void list_text(FILE *f, FILE *err, const struct list_result *r)
{
	(void)err;
	bool rt = any_runtime(r);
	fprintf(f, "%-24s %-10s %-32s %-5s %s%s\n", "REF", "STATE", "IMAGE", "AGE",
		rt ? "EXPIRES         " : "EXPIRES", rt ? " RUNTIME" : "");
	for (size_t i = 0; i < r->n; i++) {
		const struct ws_row *w = &r->rows[i];
		char age[32], exp[80];
		present_age(age, sizeof(age), r->now - w->created);
		format_expiry(exp, sizeof(exp), w, r->now);
		if (rt)
			fprintf(f, "%-24s %-10s %-32s %-5s %-16s %s\n", w->name, w->state, w->image, age,
				exp, w->runtime && *w->runtime ? w->runtime : "-");
		else
			fprintf(f, "%-24s %-10s %-32s %-5s %s\n", w->name, w->state, w->image, age, exp);
	}
}

void list_tree(struct jv *t, const struct list_result *r)
{
	jvb_obj(t);
	struct jv *a = jvb_put(t, "workspaces");
	jvb_arr(a);
	for (size_t i = 0; i < r->n; i++) {
		const struct ws_row *w = &r->rows[i];
		struct jv *o = jvb_push(a);
		tree_begin(o, w->name);
		put_str(o, "id", w->id);
		put_str(o, "state", w->state);
		put_str(o, "image", w->image);
		put_int(o, "created", w->created);
		put_int(o, "age_s", r->now - w->created);
		struct jv *x = jvb_put(o, "expires");
		if (w->expires > 0)
			jvb_int(x, w->expires);
		struct jv *d = jvb_put(o, "idle_s");
		if (w->idle > 0)
			jvb_int(d, w->idle);
		put_bool(o, "expired", life_expired(w, r->now));
		put_str(o, "spec", w->spec);
		struct jv *rt = jvb_put(o, "runtime");
		if (w->runtime && *w->runtime)
			jvb_str(rt, w->runtime);
	}
}

void ws_row_free(struct ws_row *w)
{
	free(w->id);
	free(w->name);
	free(w->state);
	free(w->image);
	free(w->spec);
	free(w->runtime);
	*w = (struct ws_row){0};
}

void list_result_free(struct list_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		ws_row_free(&r->rows[i]);
	free(r->rows);
	*r = (struct list_result){0};
}

/* ---- destroy, prune ---- */

void removed_result_free(struct removed_result *r)
{
	strvec_clear(&r->names);
	free(r->snapshot);
	r->snapshot = NULL;
}


void removed_text(FILE *f, FILE *err, const struct removed_result *r)
{
	(void)err;
	if (r->snapshot)
		fprintf(f, "removed snapshot %s\n", r->snapshot);
	for (size_t i = 0; i < r->names.n; i++)
		fprintf(f, "removed %s\n", r->names.v[i]);
}

void removed_tree(struct jv *t, const struct removed_result *r)
{
	jvb_obj(t);
	if (r->snapshot) {
		put_str(t, "removed_snapshot", r->snapshot);
		return;
	}
	struct jv *a = jvb_put(t, "removed");
	jvb_arr(a);
	for (size_t i = 0; i < r->names.n; i++)
		jvb_str(jvb_push(a), r->names.v[i]);
}

/* ---- pool ---- */

void pool_text(FILE *f, FILE *err, const struct pool_result *r)
{
	if (r->action == POOL_DRAIN) {
		removed_text(f, err, &r->removed);
		return;
	}
	if (r->action == POOL_FILL && r->n)
		fprintf(err, "sandbox: pool %s: %ld ready (%ld made)\n", r->rows[0].spec,
			r->rows[0].ready, r->made);
	if (r->action == POOL_FILL) {
		for (size_t i = 0; i < r->n; i++)
			fprintf(f, "%s\n", r->rows[i].spec);
		return;
	}
	fprintf(f, "%-16s %5s %7s  %s\n", "SPEC", "READY", "STOPPED", "IMAGE");
	for (size_t i = 0; i < r->n; i++)
		fprintf(f, "%-16s %5ld %7ld  %s\n", r->rows[i].spec, r->rows[i].ready,
			r->rows[i].stopped, r->rows[i].image);
}

void pool_tree(struct jv *t, const struct pool_result *r)
{
	if (r->action == POOL_DRAIN) {
		removed_tree(t, &r->removed);
		return;
	}
	jvb_obj(t);
	if (r->action == POOL_FILL)
		put_int(t, "made", r->made);
	struct jv *a = jvb_put(t, "pools");
	jvb_arr(a);
	for (size_t i = 0; i < r->n; i++) {
		struct jv *o = jvb_push(a);
		jvb_obj(o);
		put_str(o, "spec", r->rows[i].spec);
		put_str(o, "image", r->rows[i].image);
		put_int(o, "ready", r->rows[i].ready);
		put_int(o, "stopped", r->rows[i].stopped);
	}
}

void pool_result_free(struct pool_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rows[i].spec);
		free(r->rows[i].image);
	}
	free(r->rows);
	removed_result_free(&r->removed);
	*r = (struct pool_result){0};
}

/* ---- snapshot, fork, snapshots ---- */

/* s with each control character as '?' (utf8_control): a path of the
 * host's, a label. */
static void add_visible(struct sbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0, n = strlen(s), c; i < n; i += c) {
		if ((c = utf8_control(p + i, n - i))) {
			sbuf_addc(out, '?');
		} else {
			c = utf8_len(p + i, n - i);
			c = c ? c : 1;
			sbuf_add(out, p + i, c);
		}
	}
}

static void put_visible(FILE *f, const char *s)
{
	struct sbuf v = {0};
	add_visible(&v, s);
	fwrite(v.buf ? v.buf : "", 1, v.len, f);
	sbuf_free(&v);
}

void snapshot_text(FILE *f, FILE *err, const struct snapshot_result *r)
{
	for (size_t i = 0; i < r->nmounts; i++) {
		const struct snap_mount *m = &r->mounts[i];
		fprintf(err, "sandbox: %s: not in the snapshot: the %s mount ", r->cmd, m->type);
		put_visible(err, m->source);
		fprintf(err, " at ");
		put_visible(err, m->dest);
		fprintf(err, " (its files are not in the image)\n");
	}
	if (r->mounts_cut)
		fprintf(err, "sandbox: %s: not in the snapshot: more mounts than these %d\n", r->cmd,
			SNAP_MOUNTS_MAX);
	fprintf(f, "%s\n", r->workspace ? r->workspace : r->name);
}

void snapshot_tree(struct jv *t, const struct snapshot_result *r)
{
	if (r->workspace) {
		tree_begin(t, r->workspace);
		put_str(t, "id", r->id);
		put_str(t, "source", r->source);
	} else {
		tree_begin(t, r->source);
	}
	put_str(t, "snapshot", r->name);
	put_str(t, "image", r->image);
	put_str(t, "image_id", r->image_id);
	struct jv *a = jvb_put(t, "not_in_snapshot");
	jvb_arr(a);
	for (size_t i = 0; i < r->nmounts; i++) {
		struct jv *o = jvb_push(a);
		jvb_obj(o);
		put_str(o, "type", r->mounts[i].type);
		put_str(o, "source", r->mounts[i].source);
		put_str(o, "destination", r->mounts[i].dest);
	}
	if (r->mounts_cut)
		put_bool(t, "not_in_snapshot_truncated", true);
}

static void format_size(char *buf, size_t cap, long long b)
{
	if (b < 1024 * 1024)
		snprintf(buf, cap, "%lldK", (b + 1023) / 1024);
	else if (b < 1024LL * 1024 * 1024)
		snprintf(buf, cap, "%.1fM", (double)b / (1024.0 * 1024));
	else
		snprintf(buf, cap, "%.1fG", (double)b / (1024.0 * 1024 * 1024));
}

void snapshots_text(FILE *f, FILE *err, const struct snapshots_result *r)
{
	fprintf(f, "%-40s %-24s %-6s %s\n", "NAME", "WORKSPACE", "AGE", "SIZE");
	for (size_t i = 0; i < r->n; i++) {
		const struct snap_row *w = &r->rows[i];
		char age[32], size[32];
		present_age(age, sizeof(age), r->now - w->created);
		format_size(size, sizeof(size), w->size);
		/* A label, anyone's who builds an image: 63 bytes of it,
		 * whole characters, no control character (C1 neither). */
		struct sbuf of = {0};
		add_visible(&of, *w->of ? w->of : "-");
		size_t k = of.len < 63 ? of.len : 63;
		while (k > 0 && k < of.len && utf8_cont(of.buf[k]))
			k--;
		fprintf(f, "%-40s %-24.*s %-6s %s\n", w->name, (int)k, of.buf, age, size);
		sbuf_free(&of);
	}
	if (r->more)
		fprintf(err, "sandbox: snapshots: more than %d; those shown\n", SNAP_LIST_MAX);
}

void snapshots_tree(struct jv *t, const struct snapshots_result *r)
{
	jvb_obj(t);
	struct jv *a = jvb_put(t, "snapshots");
	jvb_arr(a);
	for (size_t i = 0; i < r->n; i++) {
		const struct snap_row *w = &r->rows[i];
		struct jv *o = jvb_push(a);
		jvb_obj(o);
		put_str(o, "snapshot", w->name);
		put_str(o, "image", w->image);
		put_str(o, "id", w->id);
		put_str(o, "workspace", w->of);
		put_str(o, "workdir", w->workdir);
		put_int(o, "created", w->created);
		put_int(o, "age_s", r->now - w->created);
		put_int(o, "size", w->size);
	}
	if (r->more)
		put_bool(t, "truncated", true);
}

/* ---- the result types (results.h) ---- */

RESULT_TYPE(ref);
RESULT_TYPE(list);
RESULT_TYPE(removed);
RESULT_TYPE(pool);
RESULT_TYPE(snapshot);
RESULT_TYPE(snapshots);
