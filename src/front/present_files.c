/* present_files.c: the presenters of the file tools (cmd_file.c,
 * cmd_edit.c, cmd_search.c): read, write, edit, glob and grep, as the
 * CLI's text, the --json tree and the text for the model. */
#include <stdlib.h>

#include "grep.h"
#include "present.h"
#include "results.h"
#include "tools.h"

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

/* ---- the result types (results.h) ---- */

TOOL_RESULT_TYPE(read, result_no_error);
TOOL_RESULT_TYPE(write, result_no_error);
TOOL_RESULT_TYPE(edit, result_no_error);
TOOL_RESULT_TYPE(glob, result_no_error);
TOOL_RESULT_TYPE(grep, result_no_error);
