/* grep.c: see grep.h. The tar reader (tar.h) calls back for each entry;
 * a file's bytes are judged binary or not on their first TOOL_PROBE,
 * then cut into lines, each matched as it ends. The output lines of a
 * file go into it while they can still be shown; the files, once whole,
 * into a list trimmed to what can be shown whenever it holds about
 * twice that, so the trimming costs a constant per line, amortized. */
#include "grep.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tool_text.h"

static int grep_entry(void *ctx, const char *name, char type, unsigned long long size);
static int grep_data(void *ctx, const char *buf, size_t n);
static int grep_end(void *ctx);

void grep_init(struct grep *g, const struct grep_spec *o)
{
	memset(g, 0, sizeof(*g));
	g->o = *o;
	/* The ring is a fixed array: context never goes beyond it. */
	if (g->o.before > GREP_CONTEXT_MAX)
		g->o.before = GREP_CONTEXT_MAX;
	if (g->o.after > GREP_CONTEXT_MAX)
		g->o.after = GREP_CONTEXT_MAX;
	if (g->o.limit == 0)
		g->o.limit = 1;
	struct tar_sink sink = {.ctx = g, .entry = grep_entry, .data = grep_data, .end = grep_end};
	tar_init(&g->tar, &sink);
}

static void grep_file_free(struct grep_file *f)
{
	for (size_t i = 0; i < f->nlines; i++)
		free(f->lines[i].text);
	free(f->lines);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

static void grep_ring_clear(struct grep *g)
{
	for (size_t i = 0; i < g->nring; i++)
		free(g->ring[(g->ring_first + i) % GREP_CONTEXT_MAX].text);
	g->nring = g->ring_first = 0;
}

void grep_free(struct grep *g)
{
	for (size_t i = 0; i < g->nfiles; i++)
		grep_file_free(&g->files[i]);
	free(g->files);
	grep_file_free(&g->cur);
	grep_ring_clear(g);
	sbuf_free(&g->probe);
	sbuf_free(&g->line);
	free(g->edge);
}

/* The bytes of s[0..n) shown: GREP_LINE_MAX characters, a character
 * being a byte that is not a UTF-8 continuation byte, or one that
 * follows three of them (no character has more): 4 bytes at most. */
static size_t grep_cut(const char *s, size_t n)
{
	size_t chars = 0, run = 0, i;
	for (i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80 && i > 0 && run < 3) {
			run++;
			continue;
		}
		if (++chars > GREP_LINE_MAX)
			break;
		run = 0;
	}
	return i;
}

static char *grep_text(const char *s, size_t n)
{
	size_t k = grep_cut(s, n);
	if (k == n)
		return xstrndup(s, n);
	return xasprintf("%.*s [... line cut]", (int)k, s);
}

/* The text of an output line of the current file, or NULL when it can
 * no longer keep lines: then only their number counts. */
static char *grep_maybe_text(struct grep *g, const char *s, size_t n)
{
	return g->cur.full ? NULL : grep_text(s, n);
}

/* What an output line counts against max_bytes: its path and text as
 * JSON writes them, which is at least what text mode prints, so that
 * the output of both stays within it. */
static size_t grep_line_bytes(const struct grep_file *f, const char *text)
{
	return f->path_bytes + (text ? json_quoted_len(text, strlen(text)) : 0);
}

/* An output line of the current file; takes text. */
static void grep_emit(struct grep *g, long no, bool match, char *text)
{
	struct grep_file *f = &g->cur;
	bool context = g->o.after || g->o.before;
	bool sep = context && g->last_shown > 0 && no > g->last_shown + 1;
	g->last_shown = no;
	f->out++;
	size_t bytes = text ? grep_line_bytes(f, text) : 0;
	if (!text || f->full || f->nlines >= g->o.limit || f->bytes + bytes > g->o.max_bytes) {
		f->full = true; /* the lines after it come after it in the output */
		free(text);
		return;
	}
	if (f->nlines == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->lines = xrealloc(f->lines, f->cap * sizeof(*f->lines));
	}
	f->lines[f->nlines++] = (struct grep_line){.no = no, .text = text, .match = match, .sep = sep};
	f->bytes += bytes;
}

static void grep_ring_push(struct grep *g, const char *s, size_t n)
{
	if (g->o.before <= 0)
		return;
	if (g->nring == (size_t)g->o.before) {
		free(g->ring[g->ring_first].text);
		g->ring_first = (g->ring_first + 1) % GREP_CONTEXT_MAX;
		g->nring--;
	}
	g->ring[(g->ring_first + g->nring++) % GREP_CONTEXT_MAX] =
		(struct grep_line){.no = g->lineno, .text = grep_maybe_text(g, s, n)};
}

/* Before a match: the lines before it that are not shown yet. */
static void grep_ring_emit(struct grep *g)
{
	for (size_t i = 0; i < g->nring; i++) {
		struct grep_line *l = &g->ring[(g->ring_first + i) % GREP_CONTEXT_MAX];
		if (l->no > g->last_shown) {
			grep_emit(g, l->no, false, l->text);
			l->text = NULL;
		}
	}
	grep_ring_clear(g);
}

/* The line in g->line is whole. */
static void grep_line(struct grep *g)
{
	static char empty[1];
	char *s = g->line.buf ? g->line.buf : empty;
	size_t n = g->line.len;
	if (!g->line_long && n && s[n - 1] == '\r')
		n--; /* a CRLF file's lines match like LF lines; shown without \r */
	bool match = rx_match(g->o.rx, s, n); /* NUL bytes and all */
	if (match) {
		g->cur.count++;
		if (g->o.mode == GREP_FILES)
			g->done = true; /* one match is enough */
		if (g->o.mode == GREP_CONTENT) {
			grep_ring_emit(g);
			grep_emit(g, g->lineno, true, grep_maybe_text(g, s, n));
			g->after_left = g->o.after;
		}
		grep_ring_clear(g);
	} else if (g->o.mode == GREP_CONTENT && g->after_left > 0) {
		grep_emit(g, g->lineno, false, grep_maybe_text(g, s, n));
		g->after_left--;
	} else if (g->o.mode == GREP_CONTENT) {
		grep_ring_push(g, s, n);
	}
	g->lineno++;
	sbuf_reset(&g->line);
	g->line_open = g->line_long = false;
}

static void grep_bytes(struct grep *g, const char *buf, size_t n)
{
	while (n && !g->done) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		/* A longer line is matched on its start. */
		size_t room = GREP_MATCH_MAX - g->line.len;
		if (take > room)
			g->line_long = true;
		sbuf_add(&g->line, buf, take < room ? take : room);
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

/* Files in the output's order: by path, and a name the stream gives
 * twice in the stream's order. */
static int grep_order(const char *path, unsigned long long seq, const char *path2,
		      unsigned long long seq2)
{
	int c = strcmp(path, path2);
	if (c)
		return c;
	return seq < seq2 ? -1 : seq > seq2;
}

static int grep_by_path(const void *x, const void *y)
{
	const struct grep_file *a = x, *b = y;
	return grep_order(a->path, a->seq, b->path, b->seq);
}

/* The output stops at the first line that is not shown: nothing of a
 * file after the file of such a line can be shown. */
static void grep_edge(struct grep *g, const struct grep_file *f)
{
	if (!g->edge || grep_order(f->path, f->seq, g->edge, g->edge_seq) < 0) {
		free(g->edge);
		g->edge = xstrdup(f->path);
		g->edge_seq = f->seq;
	}
}

static bool grep_past_edge(const struct grep *g, const struct grep_file *f)
{
	return g->edge && grep_order(f->path, f->seq, g->edge, g->edge_seq) > 0;
}

/* Keeps the output lines that sort first, as many as fit limit and
 * max_bytes: the others can never be shown, since more files can only
 * push them further down. */
static void grep_trim(struct grep *g)
{
	bool content = g->o.mode == GREP_CONTENT, cut = false;
	size_t lines = 0, bytes = 0, keep = 0;
	if (g->nfiles > 1)
		qsort(g->files, g->nfiles, sizeof(*g->files), grep_by_path);
	for (size_t i = 0; i < g->nfiles; i++) {
		struct grep_file *f = &g->files[i];
		size_t k = 0, n = content ? f->nlines : 1, fbytes = 0;
		cut = cut || grep_past_edge(g, f);
		for (; !cut && k < n; k++) {
			size_t b = grep_line_bytes(f, content ? f->lines[k].text : NULL);
			if (lines == g->o.limit || bytes + b > g->o.max_bytes)
				break;
			lines++;
			bytes += b;
			fbytes += b;
		}
		/* A file that lost lines, here or when it was read, is cut
		 * there: its next line would come next. */
		if (!cut && (content ? f->out > k : k < n)) {
			cut = true;
			grep_edge(g, f);
		}
		if (k == 0) {
			grep_file_free(f);
			continue;
		}
		for (size_t j = k; content && j < n; j++)
			free(f->lines[j].text);
		if (content)
			f->nlines = k;
		f->bytes = fbytes;
		g->files[keep++] = *f;
	}
	g->nfiles = keep;
	g->held_lines = lines;
	g->held_bytes = bytes;
}

static int grep_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct grep *g = ctx;
	(void)size;
	g->active = false;
	if (type != '0' && type != '\0')
		return 0;
	const char *rel = strncmp(name, "./", 2) == 0 ? name + 2 : name;
	/* No path under a directory is longer: a name that is, is made up. */
	if (!g->o.single && (!*rel || strlen(rel) > GREP_NAME_MAX))
		return 0;
	if (g->o.filter && !glob_match_name(g->o.filter, g->o.single ? g->o.single : rel))
		return 0;
	g->active = true;
	g->done = g->judged = g->line_open = g->line_long = false;
	g->lineno = 1;
	g->last_shown = 0;
	g->after_left = 0;
	memset(&g->cur, 0, sizeof(g->cur));
	g->cur.path = g->o.single ? xstrdup(g->o.single) : tool_join(g->o.base, rel);
	g->cur.seq = g->entries++;
	g->cur.path_bytes = json_quoted_len(g->cur.path, strlen(g->cur.path));
	g->cur.full = grep_past_edge(g, &g->cur);
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
	size_t take = TOOL_PROBE - g->probe.len < n ? TOOL_PROBE - g->probe.len : n;
	sbuf_add(&g->probe, buf, take);
	if (g->probe.len < TOOL_PROBE)
		return 0;
	grep_judge(g);
	grep_bytes(g, buf + take, n - take);
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
	grep_ring_clear(g);
	sbuf_reset(&g->line);
	g->active = false;
	struct grep_file *f = &g->cur;
	bool content = g->o.mode == GREP_CONTENT;
	if (f->count)
		g->produced += content ? f->out : 1;
	if (!content && f->count && !f->full) {
		f->bytes = grep_line_bytes(f, NULL);
		f->full = f->bytes > g->o.max_bytes;
	}
	/* A line it could not keep even on its own is not shown: the
	 * output stops there. */
	if (f->count && (content ? f->out > f->nlines : f->full))
		grep_edge(g, f);
	if (!f->count || (content ? f->nlines == 0 : f->full)) {
		grep_file_free(f);
		return 0;
	}
	if (g->nfiles == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->files = xrealloc(g->files, g->cap * sizeof(*g->files));
	}
	g->files[g->nfiles++] = *f;
	g->held_lines += content ? f->nlines : 1;
	g->held_bytes += f->bytes;
	memset(f, 0, sizeof(*f));
	if (g->held_lines > 2 * g->o.limit + 1024 || g->held_bytes > 2 * g->o.max_bytes)
		grep_trim(g);
	return 0;
}

int grep_feed(struct grep *g, const char *buf, size_t n, char *errbuf, size_t errlen)
{
	return tar_feed(&g->tar, buf, n, errbuf, errlen);
}

int grep_finish(struct grep *g, char *errbuf, size_t errlen)
{
	if (tar_finish(&g->tar, errbuf, errlen) < 0)
		return -1;
	grep_trim(g);
	return 0;
}
