/* cmd_search.c: `glob` and `grep`. The workspace lists or streams the
 * files (constant scripts: find, stat, tar); the matching happens here,
 * with the same code on every image, so BusyBox and GNU userlands give
 * the same answers, and no pattern ever reaches a shell. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "glob.h"
#include "json.h"
#include "tar.h"
#include "scripts.h"
#include "tools.h"

#define GREP_LINE_MAX 2000

struct found {
	char *rel;   /* relative to --path */
	long long mtime;
};

static int collect(void *ctx, const char *buf, size_t n)
{
	sbuf_add(ctx, buf, n);
	return 0;
}

/* The listing of SCRIPT_LIST: names ("./x\0"), an empty name, then
 * "MTIME ./x\n" lines in the same order. The names are known, so each
 * stat line is read against the name it must carry: a name holding a
 * newline cannot shift the others. A file gone in between keeps 0. */
static size_t parse_listing(const struct sbuf *sb, struct found **out)
{
	const char *p = sb->buf ? sb->buf : "", *end = p + sb->len;
	size_t n = 0, cap = 0;
	*out = NULL;
	while (p < end && *p) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		if (!z)
			break;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[n].rel = xstrdup(strncmp(p, "./", 2) == 0 ? p + 2 : p);
		(*out)[n].mtime = 0;
		n++;
		p = z + 1;
	}
	if (p < end)
		p++; /* the empty name */
	for (size_t i = 0; i < n && p < end; i++) {
		char *num_end;
		long long t = strtoll(p, &num_end, 10);
		size_t len = strlen((*out)[i].rel);
		if (num_end == p || (size_t)(end - num_end) < len + 4 || strncmp(num_end, " ./", 3) != 0 ||
		    memcmp(num_end + 3, (*out)[i].rel, len) != 0 || num_end[3 + len] != '\n')
			continue;
		(*out)[i].mtime = t;
		p = num_end + 4 + len;
	}
	return n;
}

static int by_mtime(const void *x, const void *y)
{
	const struct found *a = x, *b = y;
	if (a->mtime != b->mtime)
		return a->mtime > b->mtime ? -1 : 1;
	return strcmp(a->rel, b->rel);
}

static const char *base_dir(const struct app *a)
{
	return a->path ? a->path : ".";
}

static int one_pattern(struct app *a, const char **pat, struct err *e)
{
	if (a->args.n != 1)
		return err_set(e, ERR_USAGE, a->args.n ? "give one pattern (quote it, so that your shell does not expand it)"
						       : "which pattern?");
	*pat = a->args.v[0];
	return 0;
}

static void print_glob(struct app *a, const char *pattern, struct found *f, size_t n)
{
	size_t shown = n < (size_t)a->limit ? n : (size_t)a->limit;
	if (a->json) {
		struct json j = {0};
		tool_json_begin(&j, a);
		json_key(&j, "pattern");
		json_str(&j, pattern);
		json_key(&j, "path");
		json_str(&j, base_dir(a));
		json_key(&j, "matches");
		json_arr_open(&j);
		for (size_t i = 0; i < shown; i++) {
			char *p = tool_join(base_dir(a), f[i].rel);
			json_str(&j, p);
			free(p);
		}
		json_arr_close(&j);
		json_key(&j, "total");
		json_int(&j, (long long)n);
		json_key(&j, "truncated");
		json_bool(&j, shown < n);
		tool_json_end(&j, a);
		return;
	}
	struct sbuf out = {0};
	for (size_t i = 0; i < shown; i++) {
		char *p = tool_join(base_dir(a), f[i].rel);
		tool_show_path(&out, p, false);
		sbuf_addc(&out, '\n');
		free(p);
	}
	if (shown < n)
		sbuf_addf(&out, "(%zu more match%s; raise --limit or narrow the pattern)\n", n - shown,
			  n - shown == 1 ? "" : "es");
	fwrite(out.buf ? out.buf : "", 1, out.len, stdout);
	sbuf_free(&out);
}

int cmd_glob(struct app *a, struct err *e)
{
	const char *pattern = NULL;
	if (one_pattern(a, &pattern, e) < 0)
		return -1;
	char msg[200];
	struct glob_pat *gp = glob_compile(pattern, msg, sizeof(msg));
	if (!gp)
		return err_set(e, ERR_USAGE, "pattern '%s': %s", pattern, msg);
	char *arg = tool_arg_path(base_dir(a), e);
	struct ws ws;
	if (!arg || ws_select(a, &ws, e) < 0) {
		free(arg);
		glob_free(gp);
		return -1;
	}
	struct sbuf listing = {0};
	struct tool_out out = {.body = collect, .ctx = &listing};
	int rc = tool_run(a, &ws, SCRIPT_LIST, &arg, 1, NULL, false, &out, e);
	if (rc == 0)
		rc = tool_refusal(out.head.buf ? out.head.buf : "", base_dir(a), e);
	if (rc == 0) {
		struct found *all;
		size_t n = parse_listing(&listing, &all), k = 0;
		for (size_t i = 0; i < n; i++) {
			if (glob_match(gp, all[i].rel))
				all[k++] = all[i];
			else
				free(all[i].rel);
		}
		if (k > 1) /* qsort's pointer must not be NULL, even for 0 */
			qsort(all, k, sizeof(*all), by_mtime);
		print_glob(a, pattern, all, k);
		if (k == 0) {
			if (!a->json)
				fprintf(stderr, "sandbox: glob: no file matches\n");
			rc = 1;
		}
		for (size_t i = 0; i < k; i++)
			free(all[i].rel);
		free(all);
	}
	tool_out_free(&out);
	sbuf_free(&listing);
	free(arg);
	ws_free(&ws);
	glob_free(gp);
	return rc;
}

/* One line of grep's output. */
struct gline {
	long no;
	char *text;
	bool match;
	bool sep; /* a "--" goes before it */
};

struct gfile {
	char *path; /* as shown */
	long count; /* matching lines */
	struct gline *lines;
	size_t nlines;
};

enum grep_mode { GREP_FILES, GREP_CONTENT, GREP_COUNT };

struct grep {
	struct app *a;
	enum grep_mode mode;
	regex_t re;
	struct glob_pat *filter;
	bool single;        /* --path is one file */
	/* The file being read. */
	bool active, done;
	struct gfile cur;
	struct sbuf probe;
	bool judged;
	struct sbuf line;
	bool line_open;
	long lineno, last_shown, after_left;
	struct gline *ring; /* the last -B lines, oldest first */
	size_t nring;
	/* What was found. */
	struct gfile *files;
	size_t nfiles;
	size_t stored;        /* output lines held in files */
	unsigned long long produced; /* output lines found, held or not */
};

static void gfile_free(struct gfile *f)
{
	for (size_t i = 0; i < f->nlines; i++)
		free(f->lines[i].text);
	free(f->lines);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* A line's text as shown: cut after GREP_LINE_MAX characters. */
static char *shown_text(const char *s, size_t n)
{
	size_t chars = 0, i;
	for (i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++chars > GREP_LINE_MAX)
			break;
	}
	if (i == n)
		return xstrndup(s, n);
	return xasprintf("%.*s [... line cut]", (int)i, s);
}

static void emit(struct grep *g, long no, const char *text, bool match)
{
	struct gfile *f = &g->cur;
	f->lines = xrealloc(f->lines, (f->nlines + 1) * sizeof(*f->lines));
	bool context = g->a->after || g->a->before;
	f->lines[f->nlines++] = (struct gline){
		.no = no, .text = xstrdup(text), .match = match,
		.sep = context && g->last_shown > 0 && no > g->last_shown + 1,
	};
	g->last_shown = no;
}

static void ring_push(struct grep *g, const char *s, size_t n)
{
	if (g->a->before <= 0)
		return;
	if (g->nring == (size_t)g->a->before) {
		free(g->ring[0].text);
		memmove(g->ring, g->ring + 1, (g->nring - 1) * sizeof(*g->ring));
		g->nring--;
	}
	g->ring[g->nring++] = (struct gline){.no = g->lineno, .text = shown_text(s, n)};
}

static void ring_clear(struct grep *g)
{
	for (size_t i = 0; i < g->nring; i++)
		free(g->ring[i].text);
	g->nring = 0;
}

static void grep_line(struct grep *g)
{
	const char *s = g->line.buf ? g->line.buf : "";
	size_t n = g->line.len;
	if (n && s[n - 1] == '\r')
		n--; /* a CRLF file's lines match like LF lines; shown without \r */
	char *text = xstrndup(s, n);
	bool match = regexec(&g->re, text, 0, NULL, 0) == 0;
	free(text);
	if (match) {
		g->cur.count++;
		if (g->mode == GREP_FILES)
			g->done = true; /* one match is enough */
		if (g->mode == GREP_CONTENT) {
			for (size_t i = 0; i < g->nring; i++)
				if (g->ring[i].no > g->last_shown)
					emit(g, g->ring[i].no, g->ring[i].text, false);
			char *t = shown_text(s, n);
			emit(g, g->lineno, t, true);
			free(t);
			g->after_left = g->a->after;
		}
		ring_clear(g);
	} else if (g->mode == GREP_CONTENT && g->after_left > 0) {
		char *t = shown_text(s, n);
		emit(g, g->lineno, t, false);
		free(t);
		g->after_left--;
	} else if (g->mode == GREP_CONTENT) {
		ring_push(g, s, n);
	}
	g->lineno++;
	sbuf_reset(&g->line);
	g->line_open = false;
}

static void grep_bytes(struct grep *g, const char *buf, size_t n)
{
	while (n && !g->done) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		/* A line longer than a mebibyte is matched on its start. */
		if (g->line.len < 1024 * 1024)
			sbuf_add(&g->line, buf, take);
		g->line_open = true;
		if (!nl)
			return;
		grep_line(g);
		buf = nl + 1;
		n -= take + 1;
	}
}

static void grep_judge(struct grep *g)
{
	g->judged = true;
	if (tool_is_binary(g->probe.buf, g->probe.len))
		g->done = true; /* binary: skipped */
	else
		grep_bytes(g, g->probe.buf ? g->probe.buf : "", g->probe.len);
	sbuf_free(&g->probe);
}

static int by_path(const void *x, const void *y)
{
	return strcmp(((const struct gfile *)x)->path, ((const struct gfile *)y)->path);
}

static size_t out_lines(const struct grep *g, const struct gfile *f)
{
	return g->mode == GREP_CONTENT ? f->nlines : 1;
}

/* Bounds memory: once far more is held than can be shown, keep the files
 * that sort first and enough of them to fill --limit; the others could
 * never be shown. */
static void grep_trim(struct grep *g)
{
	if (g->stored <= 4 * (size_t)g->a->limit + 1024)
		return;
	if (g->nfiles > 1)
		qsort(g->files, g->nfiles, sizeof(*g->files), by_path);
	size_t keep = 0, lines = 0;
	while (keep < g->nfiles && lines < (size_t)g->a->limit)
		lines += out_lines(g, &g->files[keep++]);
	for (size_t i = keep; i < g->nfiles; i++)
		gfile_free(&g->files[i]);
	g->nfiles = keep;
	g->stored = lines;
}

static int grep_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct grep *g = ctx;
	(void)size;
	g->active = false;
	if (type != '0' && type != '\0')
		return 0;
	const char *rel = strncmp(name, "./", 2) == 0 ? name + 2 : name;
	const char *shown = g->single ? g->a->path : rel;
	if (g->filter && !glob_match_name(g->filter, g->single ? shown : rel))
		return 0;
	g->active = true;
	g->done = g->judged = g->line_open = false;
	g->lineno = 1;
	g->last_shown = 0;
	g->after_left = 0;
	memset(&g->cur, 0, sizeof(g->cur));
	g->cur.path = g->single ? xstrdup(shown) : tool_join(base_dir(g->a), rel);
	return 0;
}

static int grep_data(void *ctx, const char *buf, size_t n)
{
	struct grep *g = ctx;
	if (!g->active || g->done)
		return 0;
	if (g->judged) {
		grep_bytes(g, buf, n);
		return 0;
	}
	sbuf_add(&g->probe, buf, n);
	if (g->probe.len >= TOOL_PROBE)
		grep_judge(g);
	return 0;
}

static int grep_end(void *ctx)
{
	struct grep *g = ctx;
	if (!g->active)
		return 0;
	if (!g->judged)
		grep_judge(g);
	if (g->line_open && !g->done)
		grep_line(g);
	ring_clear(g);
	sbuf_reset(&g->line);
	g->active = false;
	if (g->cur.count == 0) {
		gfile_free(&g->cur);
		return 0;
	}
	g->files = xrealloc(g->files, (g->nfiles + 1) * sizeof(*g->files));
	g->files[g->nfiles++] = g->cur;
	memset(&g->cur, 0, sizeof(g->cur));
	size_t lines = out_lines(g, &g->files[g->nfiles - 1]);
	g->stored += lines;
	g->produced += lines;
	grep_trim(g);
	return 0;
}

struct grep_stream {
	struct grep *g;
	const struct tool_out *out;
	bool started, bad_answer;
	struct tar_reader tar;
	int failed;
	char msg[200];
};

/* The answer line: a file ("OK F", only for a --path: the workdir is a
 * directory) or a directory ("OK D"). Anything else is not what the
 * script writes: the workspace is not to be believed. */
static void grep_answer(struct grep_stream *s)
{
	const char *head = s->out->head.buf ? s->out->head.buf : "";
	s->started = true;
	s->g->single = strcmp(head, "OK F") == 0 && s->g->a->path;
	s->bad_answer = !s->g->single && strcmp(head, "OK D") != 0;
}

static int grep_body(void *ctx, const char *buf, size_t n)
{
	struct grep_stream *s = ctx;
	if (!s->started)
		grep_answer(s);
	if (s->bad_answer)
		return -1; /* stop it */
	if (s->failed)
		return 0;
	if (tar_feed(&s->tar, buf, n, s->msg, sizeof(s->msg)) < 0)
		s->failed = 1;
	return 0;
}

/* An answer line that is none of those expected: shown cut, escaped. */
static int search_bad_answer(const char *head, struct err *e)
{
	char cut[61];
	struct sbuf shown = {0};
	snprintf(cut, sizeof(cut), "%s", head);
	tool_show_path(&shown, cut, false);
	err_set(e, ERR_WORKSPACE, "unexpected answer from the workspace: %s%s", shown.buf,
		strlen(head) >= sizeof(cut) ? "..." : "");
	sbuf_free(&shown);
	return -1;
}

static void print_grep_text(struct grep *g, size_t limit)
{
	struct sbuf out = {0};
	size_t shown = 0;
	bool context = g->a->after || g->a->before;
	for (size_t i = 0; i < g->nfiles && shown < limit; i++) {
		struct gfile *f = &g->files[i];
		if (g->mode != GREP_CONTENT) {
			tool_show_path(&out, f->path, g->mode == GREP_COUNT);
			if (g->mode == GREP_COUNT)
				sbuf_addf(&out, ":%ld", f->count);
			sbuf_addc(&out, '\n');
			shown++;
			continue;
		}
		for (size_t k = 0; k < f->nlines && shown < limit; k++) {
			const struct gline *l = &f->lines[k];
			if (l->sep || (k == 0 && i > 0 && context))
				sbuf_adds(&out, "--\n");
			tool_show_path(&out, f->path, true);
			sbuf_addf(&out, "%c%ld%c%s\n", l->match ? ':' : '-', l->no,
				  l->match ? ':' : '-', l->text);
			shown++;
		}
	}
	if (g->produced > shown)
		sbuf_addf(&out, "(%llu more line%s; raise --limit or narrow the search)\n",
			  g->produced - shown, g->produced - shown == 1 ? "" : "s");
	fwrite(out.buf ? out.buf : "", 1, out.len, stdout);
	sbuf_free(&out);
}

static void print_grep_json(struct grep *g, const char *pattern, size_t limit)
{
	static const char *const modes[] = {"files", "content", "count"};
	struct json j = {0};
	size_t shown = 0;
	tool_json_begin(&j, g->a);
	json_key(&j, "pattern");
	json_str(&j, pattern);
	json_key(&j, "path");
	json_str(&j, base_dir(g->a));
	json_key(&j, "output");
	json_str(&j, modes[g->mode]);
	json_key(&j, "matches");
	json_arr_open(&j);
	for (size_t i = 0; i < g->nfiles && shown < limit; i++) {
		struct gfile *f = &g->files[i];
		if (g->mode == GREP_FILES) {
			json_str(&j, f->path);
			shown++;
		} else if (g->mode == GREP_COUNT) {
			json_obj_open(&j);
			json_key(&j, "path");
			json_str(&j, f->path);
			json_key(&j, "count");
			json_int(&j, f->count);
			json_obj_close(&j);
			shown++;
		}
		for (size_t k = 0; g->mode == GREP_CONTENT && k < f->nlines && shown < limit; k++) {
			json_obj_open(&j);
			json_key(&j, "path");
			json_str(&j, f->path);
			json_key(&j, "line");
			json_int(&j, f->lines[k].no);
			json_key(&j, "text");
			json_str(&j, f->lines[k].text);
			json_key(&j, "match");
			json_bool(&j, f->lines[k].match);
			json_obj_close(&j);
			shown++;
		}
	}
	json_arr_close(&j);
	json_key(&j, "total_lines");
	json_int(&j, (long long)g->produced);
	json_key(&j, "truncated");
	json_bool(&j, g->produced > shown);
	tool_json_end(&j, g->a);
}

static int grep_setup(struct app *a, struct grep *g, const char *pattern, struct err *e)
{
	memset(g, 0, sizeof(*g));
	g->a = a;
	const char *mode = a->output ? a->output : "files";
	if (strcmp(mode, "files") == 0)
		g->mode = GREP_FILES;
	else if (strcmp(mode, "content") == 0)
		g->mode = GREP_CONTENT;
	else if (strcmp(mode, "count") == 0)
		g->mode = GREP_COUNT;
	else
		return err_set(e, ERR_USAGE, "--output '%s': expected files, content or count", mode);
	if ((a->after || a->before) && g->mode != GREP_CONTENT)
		return err_set(e, ERR_USAGE, "-A, -B and -C go with --output content");
	struct sbuf re = {0};
	for (const char *p = pattern; *p; p++) {
		/* -F: every character that means something in an ERE, escaped. */
		if (a->fixed && strchr(".[]()*+?{}|^$\\", *p))
			sbuf_addc(&re, '\\');
		sbuf_addc(&re, *p);
	}
	int rc = regcomp(&g->re, re.buf ? re.buf : "",
			 REG_EXTENDED | REG_NOSUB | (a->icase ? REG_ICASE : 0));
	sbuf_free(&re);
	if (rc != 0) {
		char msg[200];
		regerror(rc, NULL, msg, sizeof(msg));
		return err_set(e, ERR_USAGE, "regex '%s': %s", pattern, msg);
	}
	if (a->glob) {
		char msg[200];
		g->filter = glob_compile(a->glob, msg, sizeof(msg));
		if (!g->filter) {
			regfree(&g->re);
			return err_set(e, ERR_USAGE, "--glob '%s': %s", a->glob, msg);
		}
	}
	g->ring = xmalloc(((size_t)a->before + 1) * sizeof(*g->ring));
	return 0;
}

static void grep_free(struct grep *g)
{
	regfree(&g->re);
	glob_free(g->filter);
	for (size_t i = 0; i < g->nfiles; i++)
		gfile_free(&g->files[i]);
	free(g->files);
	gfile_free(&g->cur);
	ring_clear(g);
	free(g->ring);
	sbuf_free(&g->probe);
	sbuf_free(&g->line);
}

int cmd_grep(struct app *a, struct err *e)
{
	const char *pattern = NULL;
	struct grep g;
	if (one_pattern(a, &pattern, e) < 0 || grep_setup(a, &g, pattern, e) < 0)
		return -1;
	char *arg = tool_arg_path(base_dir(a), e);
	struct ws ws;
	if (!arg || ws_select(a, &ws, e) < 0) {
		free(arg);
		grep_free(&g);
		return -1;
	}
	struct tool_out out = {.body = grep_body};
	struct grep_stream s = {.g = &g, .out = &out};
	out.ctx = &s;
	struct tar_sink sink = {.ctx = &g, .entry = grep_entry, .data = grep_data, .end = grep_end};
	tar_init(&s.tar, &sink);
	int rc = tool_run(a, &ws, SCRIPT_TAR, &arg, 1, NULL, false, &out, e);
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0)
		rc = tool_refusal(head, base_dir(a), e);
	if (rc == 0 && !s.started)
		grep_answer(&s);
	if (rc == 0 && s.bad_answer)
		rc = search_bad_answer(head, e);
	if (rc == 0) {
		if (!s.failed && tar_finish(&s.tar, s.msg, sizeof(s.msg)) < 0)
			s.failed = 1;
		if (s.failed)
			rc = err_set(e, ERR_WORKSPACE, "reading the files: %s", s.msg);
	}
	if (rc == 0) {
		if (g.nfiles > 1)
			qsort(g.files, g.nfiles, sizeof(*g.files), by_path);
		if (a->json)
			print_grep_json(&g, pattern, (size_t)a->limit);
		else
			print_grep_text(&g, (size_t)a->limit);
		if (g.nfiles == 0) {
			if (!a->json)
				fprintf(stderr, "sandbox: grep: no match\n");
			rc = 1;
		}
	}
	tool_out_free(&out);
	free(arg);
	ws_free(&ws);
	grep_free(&g);
	return rc;
}
