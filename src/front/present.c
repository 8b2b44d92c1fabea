/* present.c: the presenters of results.h: each result as the CLI's
 * text, as its --json tree, and as the text for an MCP client's model.
 * They only render: what a command found is decided before them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "grep.h"
#include "json.h"
#include "jvb.h"
#include "results.h"
#include "tools.h"
#include "utf8.h"

void present_json(FILE *f, const struct jv *t)
{
	struct json j = {0};
	json_jv(&j, t, SIZE_MAX);
	json_print(&j, f);
	sbuf_free(&j.out);
}

static void put_str(struct jv *obj, const char *key, const char *s)
{
	jvb_str(jvb_put(obj, key), s);
}

static void put_int(struct jv *obj, const char *key, long long i)
{
	jvb_int(jvb_put(obj, key), i);
}

static void put_bool(struct jv *obj, const char *key, bool b)
{
	jvb_bool(jvb_put(obj, key), b);
}

/* An object that starts with the workspace acted on. */
static void tree_begin(struct jv *t, const char *workspace)
{
	jvb_obj(t);
	put_str(t, "workspace", workspace);
}

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

static void format_age(char *buf, size_t cap, long long s)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, cap, "%llds", s);
	else if (s < 7200)
		snprintf(buf, cap, "%lldm", s / 60);
	else if (s < 172800)
		snprintf(buf, cap, "%lldh", s / 3600);
	else
		snprintf(buf, cap, "%lldd", s / 86400);
}

/* When w expires: "expired", "in 59m", "idle 30m", both, or "-". */
static void format_expiry(char *buf, size_t cap, const struct ws_row *w, long long now)
{
	char t[32] = "", i[32] = "";
	if (life_expired(w, now)) {
		snprintf(buf, cap, "expired");
		return;
	}
	if (w->expires > 0)
		format_age(t, sizeof(t), w->expires - now);
	if (w->idle > 0)
		format_age(i, sizeof(i), w->idle);
	snprintf(buf, cap, "%s%s%s%s%s", *t ? "in " : "", t, *t && *i ? ", " : "",
		 *i ? "idle " : "", i);
	if (!*buf)
		snprintf(buf, cap, "-");
}

void list_text(FILE *f, FILE *err, const struct list_result *r)
{
	(void)err;
	fprintf(f, "%-24s %-10s %-32s %-5s %s\n", "REF", "STATE", "IMAGE", "AGE", "EXPIRES");
	for (size_t i = 0; i < r->n; i++) {
		const struct ws_row *w = &r->rows[i];
		char age[32], exp[80];
		format_age(age, sizeof(age), r->now - w->created);
		format_expiry(exp, sizeof(exp), w, r->now);
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
	}
}

void ws_row_free(struct ws_row *w)
{
	free(w->id);
	free(w->name);
	free(w->state);
	free(w->image);
	free(w->spec);
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

/* ---- trust ---- */

void trust_text(FILE *f, FILE *err, const struct trust_result *r)
{
	(void)err;
	if (r->trusted)
		fprintf(f, "trusted %s (sha256 %s)\n", r->path, r->sha256);
	else
		fprintf(f, r->revoked ? "revoked %s\n" : "%s was not trusted\n", r->path);
}

void trust_tree(struct jv *t, const struct trust_result *r)
{
	jvb_obj(t);
	put_str(t, "path", r->path);
	if (r->trusted)
		put_str(t, "sha256", r->sha256);
	else
		put_bool(t, "revoked", r->revoked);
	put_bool(t, "trusted", r->trusted);
}

void trust_result_free(struct trust_result *r)
{
	free(r->path);
}

/* ---- exec ---- */

bool exec_is_error(const struct exec_result *r)
{
	return r->status != 0 || r->res.outcome == EXEC_TIMED_OUT;
}

void exec_text(FILE *f, FILE *err, const struct exec_result *r)
{
	if (r->job[0]) {
		fprintf(f, "%s\n", r->job);
		return;
	}
	switch (r->res.outcome) {
	case EXEC_DONE:
		if (exec_oom_killed(&r->res, r->status))
			fprintf(err, "sandbox: %s: the command was killed for lack of memory (the workspace's memory limit)\n",
				r->cmd);
		break;
	case EXEC_TIMED_OUT:
		fprintf(err, "sandbox: %s: timed out after %gs; %s\n", r->cmd, r->timeout,
			exec_kill_says(r->res.kill));
		break;
	case EXEC_INTERRUPTED:
		fprintf(err, "sandbox: %s: interrupted; %s\n", r->cmd, exec_kill_says(r->res.kill));
		break;
	default:
		break;
	}
}

void run_left(FILE *err, const struct exec_result *r)
{
	if (r->removed || !r->workspace[0])
		return;
	/* One of a pool's keeps its name, which destroy refuses. */
	if (engine_pool_name(r->workspace)) {
		const char *spec = r->workspace + strlen(POOL_NAME_PREFIX);
		fprintf(err, "sandbox: run: %s; remove it with 'sandbox pool drain --spec %.*s'\n",
			r->not_removed.msg, (int)strcspn(spec, "-"), spec);
	} else {
		fprintf(err, "sandbox: run: %s; remove it with 'sandbox destroy %s'\n",
			r->not_removed.msg, r->workspace);
	}
}

void exec_tree(struct jv *t, const struct exec_result *r)
{
	tree_begin(t, r->workspace);
	if (r->job[0]) {
		put_str(t, "job", r->job);
		return;
	}
	put_int(t, "exit_code", r->status);
	jvb_strn(jvb_put(t, "stdout"), r->out.buf ? r->out.buf : "", r->out.len);
	jvb_strn(jvb_put(t, "stderr"), r->err.buf ? r->err.buf : "", r->err.len);
	put_bool(t, "timed_out", r->res.outcome == EXEC_TIMED_OUT);
	put_bool(t, "oom_killed", exec_oom_killed(&r->res, r->status));
	if (r->res.kill == KILL_NONE)
		jvb_put(t, "kill"); /* null */
	else
		put_str(t, "kill", exec_kill_word(r->res.kill));
	put_int(t, "duration_ms", r->res.duration_ms);
	put_bool(t, "stdout_truncated", r->out_cut);
	put_bool(t, "stderr_truncated", r->err_cut);
	put_int(t, "stdout_bytes", (long long)r->out_total);
	put_int(t, "stderr_bytes", (long long)r->err_total);
}

/* A kept stream, with a marker where its middle was cut. */
static void model_stream(struct sbuf *out, const struct sbuf *s, bool cut,
			 unsigned long long total)
{
	const char *text = s->buf ? s->buf : "";
	if (!cut) {
		sbuf_add(out, text, s->len);
		return;
	}
	size_t half = s->len / 2;
	while (half < s->len && utf8_cont(text[half]))
		half++;
	sbuf_add(out, text, half);
	sbuf_addf(out, "\n[... %llu bytes cut ...]\n", total - s->len);
	sbuf_add(out, text + half, s->len - half);
}

static void end_line(struct sbuf *out)
{
	if (out->len && out->buf[out->len - 1] != '\n')
		sbuf_addc(out, '\n');
}

void exec_model(struct sbuf *out, const struct exec_result *r)
{
	if (r->job[0]) {
		sbuf_addf(out, "Started job %s in the background. job_output reads its output (and "
			  "waits for it), job_kill stops it, job_list lists the jobs.", r->job);
		return;
	}
	model_stream(out, &r->out, r->out_cut, r->out_total);
	if (r->err.len) {
		end_line(out);
		sbuf_adds(out, "[stderr]\n");
		model_stream(out, &r->err, r->err_cut, r->err_total);
	}
	end_line(out);
	if (r->res.outcome == EXEC_TIMED_OUT)
		sbuf_addf(out, "[timed out after %gs; %s]", r->timeout, exec_kill_says(r->res.kill));
	else
		sbuf_addf(out, "[exit code %d]", r->status);
}

void exec_result_free(struct exec_result *r)
{
	sbuf_free(&r->res.engine_err);
	sbuf_free(&r->out);
	sbuf_free(&r->err);
}

/* ---- read ---- */

/* The lines after those shown. */
static long read_rest(const struct read_result *r)
{
	long next = r->start_line + r->lines;
	return r->total_lines >= next ? r->total_lines - next + 1 : 0;
}

void read_text(FILE *f, FILE *err, const struct read_result *r)
{
	(void)err;
	if (r->raw)
		return; /* the bytes went out as they came */
	long rest = read_rest(r);
	if (r->total_lines == 0)
		fprintf(f, "(empty file)\n");
	fwrite(r->content.buf ? r->content.buf : "", 1, r->content.len, f);
	if (rest > 0)
		fprintf(f, "(%ld more line%s; continue with --offset %ld)\n", rest,
			rest == 1 ? "" : "s", r->start_line + r->lines);
}

void read_tree(struct jv *t, const struct read_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "path", r->path);
	jvb_strn(jvb_put(t, "content"), r->content.buf, r->content.len);
	put_int(t, "start_line", r->start_line);
	put_int(t, "lines", r->lines);
	put_int(t, "total_lines", r->total_lines);
	put_bool(t, "truncated", read_rest(r) > 0);
	put_int(t, "size", (long long)r->size);
	put_str(t, "sha256", r->sha256);
}

void read_model(struct sbuf *out, const struct read_result *r)
{
	long rest = read_rest(r);
	if (r->total_lines == 0)
		sbuf_adds(out, "(empty file)\n");
	sbuf_add(out, r->content.buf ? r->content.buf : "", r->content.len);
	if (rest > 0)
		sbuf_addf(out, "(%ld more lines; continue with offset %ld)\n", rest,
			  r->start_line + r->lines);
}

void write_result_free(struct write_result *r)
{
	(void)r;
}

void read_result_free(struct read_result *r)
{
	sbuf_free(&r->content);
}

/* ---- write ---- */

void write_text(FILE *f, FILE *err, const struct write_result *r)
{
	(void)err;
	struct sbuf shown = {0};
	tool_show_path(&shown, r->path, false);
	fprintf(f, "wrote %llu byte%s to %s%s\n", r->bytes, r->bytes == 1 ? "" : "s", shown.buf,
		r->created ? " (new file)" : "");
	sbuf_free(&shown);
}

void write_tree(struct jv *t, const struct write_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "path", r->path);
	put_int(t, "bytes", (long long)r->bytes);
	put_str(t, "sha256", r->sha256);
	put_bool(t, "created", r->created);
}

void write_model(struct sbuf *out, const struct write_result *r)
{
	sbuf_addf(out, "wrote %lld bytes to %s%s", (long long)r->bytes, r->path,
		  r->created ? " (new file)" : "");
}

/* ---- edit ---- */

static void edit_note(struct sbuf *out, const struct edit_result *r)
{
	if (r->omitted)
		edit_omitted_note(out, r->omitted_line, r->omitted_old, r->omitted_new);
}

void edit_text(FILE *f, FILE *err, const struct edit_result *r)
{
	(void)err;
	struct sbuf note = {0};
	edit_note(&note, r);
	fwrite(r->diff.buf ? r->diff.buf : "", 1, r->diff.len, f);
	fwrite(note.buf ? note.buf : "", 1, note.len, f);
	sbuf_free(&note);
}

void edit_tree(struct jv *t, const struct edit_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "path", r->path);
	put_int(t, "replacements", r->replacements);
	jvb_strn(jvb_put(t, "diff"), r->diff.buf, r->diff.len);
	if (r->omitted) {
		struct jv *o = jvb_put(t, "diff_omitted");
		jvb_obj(o);
		put_int(o, "line", r->omitted_line);
		put_int(o, "old_lines", r->omitted_old);
		put_int(o, "new_lines", r->omitted_new);
	}
	put_str(t, "sha256", r->sha256);
}

void edit_model(struct sbuf *out, const struct edit_result *r)
{
	sbuf_addf(out, "replaced %lld occurrence%s in %s\n", r->replacements,
		  r->replacements == 1 ? "" : "s", r->path);
	sbuf_add(out, r->diff.buf ? r->diff.buf : "", r->diff.len);
	edit_note(out, r);
}

void edit_result_free(struct edit_result *r)
{
	sbuf_free(&r->diff);
}

/* ---- glob ---- */

void glob_text(FILE *f, FILE *err, const struct glob_result *r)
{
	if (r->total == 0)
		fprintf(err, "sandbox: glob: no file matches\n");
	struct sbuf line = {0};
	size_t shown = r->matches.n;
	unsigned long long more = r->total - shown;
	for (size_t i = 0; i < shown; i++) {
		tool_show_path(&line, r->matches.v[i], false);
		sbuf_addc(&line, '\n');
		fwrite(line.buf, 1, line.len, f);
		sbuf_reset(&line);
	}
	if (more && shown < (size_t)r->limit)
		fprintf(f, "(%llu more match%s; the output stops at %zu MiB: narrow the pattern)\n",
			more, more == 1 ? "" : "es", r->max_bytes >> 20);
	else if (more)
		fprintf(f, "(%llu more match%s; raise --limit or narrow the pattern)\n", more,
			more == 1 ? "" : "es");
	sbuf_free(&line);
}

void glob_tree(struct jv *t, const struct glob_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "pattern", r->pattern);
	put_str(t, "path", r->path);
	struct jv *m = jvb_put(t, "matches");
	jvb_arr(m);
	for (size_t i = 0; i < r->matches.n; i++)
		jvb_str(jvb_push(m), r->matches.v[i]);
	put_int(t, "total", (long long)r->total);
	put_bool(t, "truncated", r->total > r->matches.n);
}

void glob_model(struct sbuf *out, const struct glob_result *r)
{
	for (size_t i = 0; i < r->matches.n; i++)
		sbuf_addf(out, "%s\n", r->matches.v[i]);
	if (r->matches.n == 0)
		sbuf_adds(out, "no file matches\n");
	else if (r->total > r->matches.n)
		sbuf_addf(out, "(%llu more; raise limit or narrow the search)\n",
			  r->total - r->matches.n);
}

void glob_result_free(struct glob_result *r)
{
	strvec_clear(&r->matches);
}

/* ---- grep ---- */

/* The output lines of r, each once, in order: fn(ctx, file, line), line
 * NULL but in content mode. Returns how many. */
static size_t grep_each(const struct grep_result *r,
			void (*fn)(void *ctx, const struct grep_file *f, const struct grep_line *l,
				   bool sep),
			void *ctx)
{
	const struct grep *g = r->g;
	bool context = g->o.after || g->o.before;
	size_t shown = 0;
	for (size_t i = 0; i < g->nfiles; i++) {
		const struct grep_file *f = &g->files[i];
		if (g->o.mode != GREP_CONTENT) {
			fn(ctx, f, NULL, false);
			shown++;
			continue;
		}
		for (size_t k = 0; k < f->nlines; k++, shown++)
			fn(ctx, f, &f->lines[k], f->lines[k].sep || (k == 0 && i > 0 && context));
	}
	return shown;
}

struct grep_text_ctx {
	FILE *f;
	enum grep_mode mode;
	struct sbuf line;
};

static void grep_text_line(void *ctx, const struct grep_file *f, const struct grep_line *l,
			   bool sep)
{
	struct grep_text_ctx *c = ctx;
	if (sep)
		sbuf_adds(&c->line, "--\n");
	tool_show_path(&c->line, f->path, c->mode != GREP_FILES);
	if (c->mode == GREP_COUNT)
		sbuf_addf(&c->line, ":%ld", f->count);
	else if (l)
		sbuf_addf(&c->line, "%c%ld%c%s", l->match ? ':' : '-', l->no, l->match ? ':' : '-',
			  l->text);
	sbuf_addc(&c->line, '\n');
	fwrite(c->line.buf, 1, c->line.len, c->f);
	sbuf_reset(&c->line);
}

void grep_text(FILE *f, FILE *err, const struct grep_result *r)
{
	if (r->g->nfiles == 0 && r->g->produced == 0)
		fprintf(err, "sandbox: grep: no match\n");
	struct grep_text_ctx c = {.f = f, .mode = r->g->o.mode};
	size_t shown = grep_each(r, grep_text_line, &c);
	sbuf_free(&c.line);
	unsigned long long more = r->g->produced - shown;
	if (more && shown < (size_t)r->limit)
		fprintf(f, "(%llu more line%s; the output stops at %zu MiB: narrow the search)\n",
			more, more == 1 ? "" : "s", r->max_bytes >> 20);
	else if (more)
		fprintf(f, "(%llu more line%s; raise --limit or narrow the search)\n", more,
			more == 1 ? "" : "s");
}

struct grep_tree_ctx {
	struct jv *matches;
	enum grep_mode mode;
};

static void grep_tree_line(void *ctx, const struct grep_file *f, const struct grep_line *l,
			   bool sep)
{
	(void)sep;
	struct grep_tree_ctx *c = ctx;
	struct jv *v = jvb_push(c->matches);
	if (c->mode == GREP_FILES) {
		jvb_str(v, f->path);
		return;
	}
	jvb_obj(v);
	put_str(v, "path", f->path);
	if (c->mode == GREP_COUNT) {
		put_int(v, "count", f->count);
		return;
	}
	put_int(v, "line", l->no);
	put_str(v, "text", l->text);
	put_bool(v, "match", l->match);
}

void grep_tree(struct jv *t, const struct grep_result *r)
{
	static const char *const modes[] = {"files", "content", "count"};
	tree_begin(t, r->workspace);
	put_str(t, "pattern", r->pattern);
	put_str(t, "path", r->path);
	put_str(t, "output", modes[r->g->o.mode]);
	struct grep_tree_ctx c = {jvb_put(t, "matches"), r->g->o.mode};
	jvb_arr(c.matches);
	size_t shown = grep_each(r, grep_tree_line, &c);
	put_int(t, "total_lines", (long long)r->g->produced);
	put_bool(t, "truncated", r->g->produced > shown);
}

struct grep_model_ctx {
	struct sbuf *out;
	enum grep_mode mode;
};

static void grep_model_line(void *ctx, const struct grep_file *f, const struct grep_line *l,
			    bool sep)
{
	(void)sep;
	struct grep_model_ctx *c = ctx;
	if (c->mode == GREP_COUNT)
		sbuf_addf(c->out, "%s:%ld\n", f->path, f->count);
	else if (l)
		sbuf_addf(c->out, "%s%c%ld%c%s\n", f->path, l->match ? ':' : '-', l->no,
			  l->match ? ':' : '-', l->text);
	else
		sbuf_addf(c->out, "%s\n", f->path);
}

void grep_model(struct sbuf *out, const struct grep_result *r)
{
	struct grep_model_ctx c = {out, r->g->o.mode};
	size_t shown = grep_each(r, grep_model_line, &c);
	if (shown == 0)
		sbuf_adds(out, "no match\n");
	else if (r->g->produced > shown)
		sbuf_addf(out, "(%llu more; raise limit or narrow the search)\n",
			  r->g->produced - shown);
}

void grep_result_free(struct grep_result *r)
{
	if (r->g)
		grep_free(r->g);
	free(r->g);
	r->g = NULL;
}

/* ---- jobs ---- */

/* A job's state: its phase, the status wait would exit with, its signal. */
static void put_state(struct jv *o, const struct job_state *st)
{
	put_str(o, "state", job_phase_name(st->phase));
	if (st->phase == JOB_EXITED || st->phase == JOB_KILLED)
		put_int(o, "exit_code", job_exit_status(st));
	else
		jvb_put(o, "exit_code"); /* null */
	const char *sig = st->phase == JOB_KILLED ? job_signal_name(st->code) : NULL;
	if (sig)
		put_str(o, "signal", sig);
	else if (st->phase == JOB_KILLED)
		put_int(o, "signal", st->code);
	else
		jvb_put(o, "signal");
}

void jobs_text(FILE *f, FILE *err, const struct jobs_result *r)
{
	(void)err;
	fprintf(f, "%-9s %-14s %-5s %s\n", "JOB", "STATE", "AGE", "COMMAND");
	for (size_t i = 0; i < r->n; i++) {
		const struct job_row *j = &r->rows[i];
		struct sbuf st = {0};
		job_state_text(&st, &j->st);
		char age[32] = "-";
		if (j->started >= 0)
			format_age(age, sizeof(age), r->now - j->started);
		fprintf(f, "%-9s %-14s %-5s %s\n", j->id, st.buf, age, j->command);
		sbuf_free(&st);
	}
	if (r->more)
		fprintf(err, "sandbox: jobs: more than %zu jobs; the others are not shown\n", r->n);
}

void jobs_tree(struct jv *t, const struct jobs_result *r)
{
	tree_begin(t, r->workspace);
	struct jv *a = jvb_put(t, "jobs");
	jvb_arr(a);
	for (size_t i = 0; i < r->n; i++) {
		const struct job_row *j = &r->rows[i];
		struct jv *o = jvb_push(a);
		jvb_obj(o);
		put_str(o, "job", j->id);
		put_state(o, &j->st);
		if (j->started >= 0) {
			put_int(o, "started", j->started);
			put_int(o, "age_s", r->now - j->started);
		}
		put_str(o, "command", j->command);
	}
	put_bool(t, "more", r->more);
}

void jobs_model(struct sbuf *out, const struct jobs_result *r)
{
	if (!r->n)
		sbuf_adds(out, "No jobs.\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct job_row *j = &r->rows[i];
		char age[32] = "?";
		if (j->started >= 0)
			format_age(age, sizeof(age), r->now - j->started);
		sbuf_addf(out, "job %s: ", j->id);
		job_state_text(out, &j->st);
		sbuf_addf(out, " (started %s ago): %s\n", age, j->command);
	}
}

/* ---- logs ---- */

void logs_text(FILE *f, FILE *err, const struct logs_result *r)
{
	(void)f;
	if (r->follow && r->st.phase == JOB_LOST)
		fprintf(err, "sandbox: logs: job %s was lost: the workspace stopped or restarted while it ran\n",
			r->job);
}

/* The tree borrows its keys: they are constants. With one stream (the
 * command line's), "output" and its offsets; with both (MCP), each
 * stream's own. */
static const struct {
	const char *name, *start, *next, *cut;
} stream_keys[2] = {
	{"stdout", "stdout_start", "next_offset", "stdout_truncated"},
	{"stderr", "stderr_start", "next_stderr_offset", "stderr_truncated"},
};

void logs_tree(struct jv *t, const struct logs_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "job", r->job);
	put_state(t, &r->st);
	bool both = r->s[0].asked && r->s[1].asked;
	for (int i = 0; i < 2; i++) {
		const struct logs_stream *s = &r->s[i];
		if (!s->asked)
			continue;
		if (!both)
			put_str(t, "stream", stream_keys[i].name);
		jvb_strn(jvb_put(t, both ? stream_keys[i].name : "output"),
			 s->data.buf ? s->data.buf : "", s->data.len);
		put_int(t, both ? stream_keys[i].start : "start", (long long)s->start);
		put_int(t, both ? stream_keys[i].next : "next_offset", (long long)s->next);
		put_bool(t, both ? stream_keys[i].cut : "truncated", s->cut);
	}
	/* false: this is all the output the job will ever have had. */
	put_bool(t, "more", r->more || !job_ended(&r->st) || !r->st.done);
}

void logs_model(struct sbuf *out, const struct logs_result *r)
{
	for (int i = 0; i < 2; i++) {
		const struct logs_stream *s = &r->s[i];
		if (!s->asked || !s->data.len)
			continue;
		if (i)
			sbuf_adds(out, "[stderr]\n");
		if (s->start > s->offset)
			sbuf_addf(out, "[... %llu bytes before these were not kept ...]\n",
				  s->start - s->offset);
		sbuf_add(out, s->data.buf, s->data.len);
		end_line(out);
	}
	sbuf_addf(out, "[job %s ", r->job);
	job_state_text(out, &r->st);
	if (r->more || !job_ended(&r->st) || !r->st.done)
		sbuf_addf(out, "; for what follows, call job_output with offset=%llu and stderr_offset=%llu",
			  r->s[0].next, r->s[1].next);
	else
		sbuf_adds(out, "; that is all of its output");
	sbuf_adds(out, "]");
}

/* ---- kill, wait ---- */

void kill_text(FILE *f, FILE *err, const struct kill_result *r)
{
	struct sbuf st = {0};
	job_state_text(&st, &r->st);
	if (strcmp(r->outcome, "alive") == 0)
		fprintf(err, "sandbox: kill: job %s is still alive after KILL\n", r->job);
	else if (strcmp(r->outcome, "sent") == 0)
		fprintf(f, "job %s: sent %s; %s\n", r->job,
			job_signal_name(r->signal) ? job_signal_name(r->signal) : "the signal", st.buf);
	else if (strcmp(r->outcome, "ended") == 0)
		fprintf(f, "job %s: had already ended: %s\n", r->job, st.buf);
	else
		fprintf(f, "job %s: %s\n", r->job, st.buf);
	sbuf_free(&st);
}

void kill_tree(struct jv *t, const struct kill_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "job", r->job);
	put_str(t, "outcome", r->outcome);
	put_state(t, &r->st);
}

void kill_model(struct sbuf *out, const struct kill_result *r)
{
	sbuf_addf(out, "job %s: ", r->job);
	if (strcmp(r->outcome, "alive") == 0)
		sbuf_adds(out, "still alive after KILL; ");
	else if (strcmp(r->outcome, "ended") == 0)
		sbuf_adds(out, "had already ended; ");
	else if (strcmp(r->outcome, "sent") == 0)
		sbuf_adds(out, "signal sent; ");
	job_state_text(out, &r->st);
}

void wait_text(FILE *f, FILE *err, const struct wait_result *r)
{
	struct sbuf st = {0};
	job_state_text(&st, &r->st);
	if (r->timed_out)
		fprintf(err, "sandbox: wait: job %s is still running\n", r->job);
	else if (r->st.phase == JOB_LOST)
		fprintf(err, "sandbox: wait: job %s was lost: the workspace stopped or restarted while it ran\n",
			r->job);
	else
		fprintf(f, "job %s: %s\n", r->job, st.buf);
	sbuf_free(&st);
}

void wait_tree(struct jv *t, const struct wait_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "job", r->job);
	put_state(t, &r->st);
	put_bool(t, "timed_out", r->timed_out);
}

/* ---- cp ---- */

static void cp_count(FILE *f, unsigned long long n, const char *one, const char *many, bool *first)
{
	if (!n)
		return;
	fprintf(f, "%s%llu %s", *first ? "" : ", ", n, n == 1 ? one : many);
	*first = false;
}

void cp_text(FILE *f, FILE *err, const struct cp_result *r)
{
	if (r->skipped)
		fprintf(err, "sandbox: cp: skipped %llu device%s, FIFO%s or socket%s (the first: %s): cp copies "
			"files, directories and links only\n", r->skipped, r->skipped == 1 ? "" : "s",
			r->skipped == 1 ? "" : "s", r->skipped == 1 ? "" : "s",
			r->first_skipped ? r->first_skipped : "?");
	if (r->stream)
		return;
	struct sbuf shown = {0};
	tool_show_path(&shown, r->dest, false);
	bool first = true;
	fprintf(f, "copied ");
	cp_count(f, r->files, "file", "files", &first);
	cp_count(f, r->dirs, "directory", "directories", &first);
	cp_count(f, r->links, "link", "links", &first);
	if (first)
		fprintf(f, "nothing");
	fprintf(f, " (%llu byte%s) to %s\n", r->bytes, r->bytes == 1 ? "" : "s", shown.buf);
	sbuf_free(&shown);
}

void cp_tree(struct jv *t, const struct cp_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "direction", r->out ? "out" : "in");
	put_str(t, "destination", r->dest);
	put_int(t, "files", (long long)r->files);
	put_int(t, "directories", (long long)r->dirs);
	put_int(t, "links", (long long)r->links);
	put_int(t, "bytes", (long long)r->bytes);
	put_int(t, "skipped", (long long)r->skipped);
}

/* ---- diff, apply ---- */

static const char *kind_name(char k)
{
	switch (k) {
	case 'A': return "added";
	case 'D': return "deleted";
	case 'M': return "modified";
	case 'm': return "mode";
	default: return "type";
	}
}

static const char *type_name(char t)
{
	return t == 'd' ? "directory" : t == 'l' ? "symlink" : "file";
}

/* The letter of a change in apply's lines and diff --name-only's: A, D,
 * M (content or mode), T (type). */
static char change_letter(const struct copy_change *c)
{
	return c->kind == 'm' ? 'M' : c->kind;
}

static void stat_line(FILE *f, const struct copy_change *c, size_t width)
{
	struct sbuf p = {0};
	tool_show_path(&p, c->path, false);
	if (c->new_type == 'd' || (c->old_type == 'd' && !c->new_type))
		sbuf_addc(&p, '/');
	fprintf(f, " %-*s | ", (int)width, p.buf);
	if (c->binary)
		fprintf(f, "Bin\n");
	else if (c->insertions + c->deletions == 0)
		fprintf(f, "%s\n", kind_name(c->kind));
	else {
		long long total = c->insertions + c->deletions, plus = c->insertions, minus = c->deletions;
		if (total > 50) {
			plus = plus * 50 / total;
			minus = minus * 50 / total;
		}
		fprintf(f, "%lld ", total);
		for (long long i = 0; i < plus; i++)
			fputc('+', f);
		for (long long i = 0; i < minus; i++)
			fputc('-', f);
		fputc('\n', f);
	}
	sbuf_free(&p);
}

static void conflict_notes(FILE *err, const char *cmd, const struct copy_change *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!v[i].conflict && !v[i].refused)
			continue;
		struct sbuf p = {0};
		tool_show_path(&p, v[i].path, false);
		fprintf(err, "sandbox: %s: %s: %s%s\n", cmd, p.buf,
			v[i].why ? v[i].why : "changed in DIR since the copy",
			strcmp(cmd, "diff") == 0 && v[i].conflict ? " (apply needs --force)" : "");
		sbuf_free(&p);
	}
}

/* The diff for a terminal: a control character that is not a newline
 * or a tab shows as ^X, a C1 one (UTF-8) as <U+00XX>, so that no file
 * can hide a line from the person reading it, or move the cursor. */
static void write_visible(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)
			fprintf(f, "<U+%04X>", (unsigned char)s[++i]);
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			fprintf(f, "^%c", c == 0x7f ? '?' : c + 0x40);
		else
			fputc(c, f);
	}
}

void diff_text(FILE *f, FILE *err, const struct diff_result *r)
{
	bool tty = isatty(fileno(f));
	size_t width = 0;
	long long ins = 0, del = 0;
	for (size_t i = 0; i < r->n; i++) {
		size_t w = strlen(r->v[i].path) + 1;
		width = w > width ? (w > 60 ? 60 : w) : width;
		ins += r->v[i].insertions;
		del += r->v[i].deletions;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct copy_change *c = &r->v[i];
		if (r->name_only) {
			struct sbuf p = {0};
			tool_show_path(&p, c->path, false);
			fprintf(f, "%s\n", p.buf);
			sbuf_free(&p);
		} else if (r->stat) {
			stat_line(f, c, width);
		} else if (tty) {
			write_visible(f, c->text.buf ? c->text.buf : "", c->text.len);
		} else {
			fwrite(c->text.buf ? c->text.buf : "", 1, c->text.len, f);
		}
	}
	if (r->stat && r->n)
		fprintf(f, " %zu path%s changed, %lld insertion%s(+), %lld deletion%s(-)\n", r->n,
			r->n == 1 ? "" : "s", ins, ins == 1 ? "" : "s", del, del == 1 ? "" : "s");
	conflict_notes(err, "diff", r->v, r->n);
	if (r->n)
		fprintf(err, "sandbox: diff: review %s: to write exactly these changes, "
			"sandbox apply -w %s --expect %s\n", r->id, r->workspace ? r->workspace : "REF", r->id);
}

static void change_tree(struct jv *o, const struct copy_change *c, bool with_text)
{
	jvb_obj(o);
	put_str(o, "path", c->path);
	put_str(o, "kind", kind_name(c->kind));
	put_str(o, "type", type_name(c->new_type ? c->new_type : c->old_type));
	if (c->old_type)
		put_int(o, "old_mode", (long long)c->old_mode);
	if (c->new_type)
		put_int(o, "new_mode", (long long)c->new_mode);
	put_bool(o, "conflict", c->conflict);
	put_bool(o, "refused", c->refused);
	if (c->conflict || c->refused)
		put_str(o, "why", c->why ? c->why : "changed in DIR since the copy");
	if (with_text) {
		put_bool(o, "binary", c->binary);
		put_int(o, "insertions", c->insertions);
		put_int(o, "deletions", c->deletions);
		jvb_strn(jvb_put(o, "diff"), c->text.buf ? c->text.buf : "", c->text.len);
	}
}

void diff_tree(struct jv *t, const struct diff_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "dir", r->dir);
	put_bool(t, "changed", r->n > 0);
	put_str(t, "id", r->id);
	struct jv *a = jvb_put(t, "changes");
	jvb_arr(a);
	for (size_t i = 0; i < r->n; i++)
		change_tree(jvb_push(a), &r->v[i], true);
}

void diff_model(struct sbuf *out, const struct diff_result *r)
{
	if (!r->n) {
		sbuf_adds(out, "No changes since the copy.\n");
		return;
	}
	for (size_t i = 0; i < r->n; i++)
		sbuf_add(out, r->v[i].text.buf ? r->v[i].text.buf : "", r->v[i].text.len);
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].refused || r->v[i].conflict) {
			sbuf_addf(out, "apply: %s: ", r->v[i].refused ? "refused" : "conflict");
			tool_show_path(out, r->v[i].path, false);
			sbuf_addf(out, ": %s\n", r->v[i].why ? r->v[i].why : "changed in DIR since the copy");
		}
	sbuf_addf(out, "Review ID: %s\n", r->id);
}

void apply_text(FILE *f, FILE *err, const struct apply_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct copy_change *c = &r->v[i];
		if (c->refused || (c->conflict && !r->force) || (r->error && !c->done) ||
		    (!r->check && !r->applied && !r->error) || c->noop)
			continue;
		struct sbuf p = {0};
		tool_show_path(&p, c->path, false);
		fprintf(f, "%c %s%s\n", change_letter(c), p.buf,
			c->kept ? " (a directory kept: it holds other files in DIR)" : "");
		sbuf_free(&p);
		n++;
	}
	conflict_notes(err, "apply", r->v, r->n);
	struct sbuf d = {0};
	tool_show_path(&d, r->dir, false);
	if (r->error)
		fprintf(err, "sandbox: apply: %s\n", r->error);
	else if (r->refused && !r->force)
		fprintf(err, "sandbox: apply: %zu path%s refused: %s to %s; --force writes the rest, "
			"never %s\n", r->refused, r->refused == 1 ? "" : "s",
			r->check ? "nothing would be written" : "nothing was written", d.buf,
			r->refused == 1 ? "it" : "them");
	else if (r->conflicts && !r->force)
		fprintf(err, "sandbox: apply: %zu conflict%s: %s to %s; --force writes over them\n",
			r->conflicts, r->conflicts == 1 ? "" : "s",
			r->check ? "nothing would be written" : "nothing was written", d.buf);
	else if (!n)
		fprintf(err, "sandbox: apply: nothing to apply\n");
	else if (r->check)
		fprintf(err, "sandbox: apply: %zu change%s would be written to %s%s\n", n, n == 1 ? "" : "s",
			d.buf, r->refused ? "; the refused never" : "");
	else
		fprintf(err, "sandbox: apply: %zu change%s written to %s%s\n", n, n == 1 ? "" : "s", d.buf,
			r->refused ? "; the refused were not" : "");
	sbuf_free(&d);
}

void apply_tree(struct jv *t, const struct apply_result *r)
{
	tree_begin(t, r->workspace);
	put_str(t, "dir", r->dir);
	put_bool(t, "check", r->check);
	put_bool(t, "applied", r->applied);
	put_str(t, "id", r->id);
	if (r->error)
		put_str(t, "error", r->error);
	struct jv *a = jvb_put(t, "changes"), *c = NULL;
	jvb_arr(a);
	for (size_t i = 0; i < r->n; i++) {
		const struct copy_change *ch = &r->v[i];
		if (ch->refused || (ch->conflict && !r->force) || (r->error && !ch->done) || ch->noop)
			continue;
		change_tree(jvb_push(a), ch, false);
	}
	c = jvb_put(t, "conflicts");
	jvb_arr(c);
	for (size_t i = 0; i < r->n; i++) {
		const struct copy_change *ch = &r->v[i];
		if (!ch->refused && !ch->conflict)
			continue;
		struct jv *o = jvb_push(c);
		jvb_obj(o);
		put_str(o, "path", ch->path);
		put_str(o, "why", ch->why ? ch->why : "changed in DIR since the copy");
		put_bool(o, "refused", ch->refused);
	}
}

/* ---- doctor ---- */

static const char *doctor_word(enum doctor_state s)
{
	return s == DOCTOR_OK ? "ok" : s == DOCTOR_FAIL ? "FAIL" : "skip";
}

void doctor_text(FILE *f, FILE *err, const struct doctor_result *r)
{
	(void)err;
	for (size_t i = 0; i < r->n; i++) {
		const struct doctor_check *c = &r->v[i];
		fprintf(f, "%-6s%s: %s%s%s\n", doctor_word(c->state), c->check, c->detail,
			c->fix ? "; " : "", c->fix ? c->fix : "");
	}
}

void doctor_tree(struct jv *t, const struct doctor_result *r)
{
	bool ok = true;
	jvb_obj(t);
	struct jv *a = jvb_put(t, "checks");
	jvb_arr(a);
	for (size_t i = 0; i < r->n; i++) {
		const struct doctor_check *c = &r->v[i];
		struct jv *o = jvb_push(a);
		jvb_obj(o);
		put_str(o, "check", c->check);
		put_bool(o, "ok", c->state == DOCTOR_OK);
		put_bool(o, "skipped", c->state == DOCTOR_SKIP);
		put_str(o, "detail", c->detail);
		if (c->fix)
			put_str(o, "fix", c->fix);
		else
			jvb_put(o, "fix"); /* null */
		ok = ok && c->state == DOCTOR_OK;
	}
	put_bool(t, "ok", ok);
}

void doctor_result_free(struct doctor_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].detail);
		free(r->v[i].fix);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
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
		format_age(age, sizeof(age), r->now - w->created);
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
