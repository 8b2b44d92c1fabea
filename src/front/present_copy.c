/* present_copy.c: the presenters of the copies between host and
 * workspace (cmd_cp.c, cmd_diff.c, cmd_apply.c): cp, diff and apply, as
 * the CLI's text (diff's made visible on a terminal), the --json tree,
 * and diff's text for the model. */
#include <string.h>
#include <unistd.h>

#include "present.h"
#include "results.h"
#include "tools.h"

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

/* ---- the result types (results.h) ---- */

RESULT_TYPE(cp);
TOOL_RESULT_TYPE(diff, result_no_error);
RESULT_TYPE(apply);
