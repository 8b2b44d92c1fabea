/* cmd_search.c: `glob` and `grep`. The workspace lists or streams the
 * files (constant scripts: find, stat, tar); the matching happens here,
 * with the same code on every image, so BusyBox and GNU userlands give
 * the same answers, and no pattern ever reaches a shell. What the
 * workspace sends is read as it comes (listing.h, grep.h) and only what
 * can be shown is kept: the host's memory does not grow with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "glob.h"
#include "grep.h"
#include "opt_id.h"
#include "results.h"
#include "listing.h"
#include "rx.h"
#include "scripts.h"
#include "tools.h"

/* The bytes of the results shown (--limit is at most APP_SEARCH_MAX). */
#define SEARCH_SHOWN_MAX ((size_t)4 << 20)

/* --path, or the workdir. */
static const char *base_dir(const char *path)
{
	return path ? path : ".";
}

static int one_pattern(struct app *a, const char **pat, struct err *e)
{
	if (a->o.args.n != 1)
		return err_set(e, ERR_USAGE, a->o.args.n ? "give one pattern (quote it, so that your shell does not expand it)"
						       : "which pattern?");
	*pat = a->o.args.v[0];
	return 0;
}

/* An answer line that is none of those the script writes: the
 * workspace is not what it should be. Shown cut, and escaped. */
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

/* ---- glob ---- */

struct glob_run {
	const struct tool_out *out;
	const struct glob_pat *gp;
	struct listing listing;
	struct listing_newest newest;
	bool started, bad_answer;
};

static void glob_entry(void *ctx, const char *rel, size_t len, long long mtime)
{
	struct glob_run *r = ctx;
	if (glob_match(r->gp, rel))
		listing_newest_add(&r->newest, rel, len, mtime);
}

static int glob_body(void *ctx, const char *buf, size_t n)
{
	struct glob_run *r = ctx;
	if (!r->started) {
		r->started = true;
		r->bad_answer = strcmp(r->out->head.buf ? r->out->head.buf : "", "OK") != 0;
	}
	if (r->bad_answer)
		return -1; /* not a listing: stop it */
	listing_feed(&r->listing, buf, n);
	return 0;
}

/* The names kept, joined to the base directory, into res. */
static void glob_fill(struct app *a, const char *pattern, const struct listing_newest *t,
		      struct glob_result *res)
{
	for (size_t i = 0; i < t->n; i++) {
		char *p = tool_join(base_dir(a->o.glob.path), t->v[i].rel);
		strvec_push(&res->matches, p);
		free(p);
	}
	res->pattern = pattern;
	res->path = base_dir(a->o.glob.path);
	res->total = t->total;
	res->limit = a->o.glob.limit;
	res->max_bytes = SEARCH_SHOWN_MAX;
}

/* The bytes that end every path the pattern matches, for the workspace
 * to list only names that end with them (SCRIPT_LIST): the run of
 * printable ASCII at the pattern's end up to the first character that
 * means something to a glob, find's -name, or braces. Empty when the
 * pattern ends with one. */
static void glob_suffix(const char *pattern, char *out, size_t cap)
{
	size_t n = strlen(pattern), i = n;
	while (i > 0) {
		unsigned char c = (unsigned char)pattern[i - 1];
		if (c < 0x20 || c >= 0x7f || strchr("*?[]{}\\/,!^", c))
			break;
		i--;
	}
	if (n - i >= cap)
		i = n;
	memcpy(out, pattern + i, n - i);
	out[n - i] = '\0';
}

int do_glob(struct app *a, struct glob_result *res, struct err *e)
{
	*res = (struct glob_result){0};
	const char *pattern = NULL;
	if (one_pattern(a, &pattern, e) < 0)
		return -1;
	char msg[200];
	struct glob_pat *gp = glob_compile(pattern, msg, sizeof(msg));
	if (!gp)
		return err_set(e, ERR_USAGE, "pattern '%s': %s", pattern, msg);
	char *arg = tool_arg_path(base_dir(a->o.glob.path), e);
	struct ws ws;
	if (!arg || ws_select(a, &ws, e) < 0) {
		free(arg);
		glob_free(gp);
		return -1;
	}
	struct tool_out out = {.body = glob_body};
	struct glob_run r = {.out = &out, .gp = gp};
	out.ctx = &r;
	listing_init(&r.listing, glob_entry, &r);
	listing_newest_init(&r.newest, (size_t)a->o.glob.limit, SEARCH_SHOWN_MAX);
	char end[256];
	glob_suffix(pattern, end, sizeof(end));
	char *args[] = {arg, end};
	int rc = tool_run(a, &ws, PROTO_LIST, args, ARRAY_LEN(args), NULL, false, &out, e);
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0)
		rc = tool_refusal(head, base_dir(a->o.glob.path), e);
	if (rc == 0 && strcmp(head, "OK") != 0)
		rc = search_bad_answer(head, e);
	if (rc == 0) {
		listing_finish(&r.listing);
		listing_newest_sort(&r.newest);
		glob_fill(a, pattern, &r.newest, res);
		res->workspace = a->ws_name;
		if (r.newest.total == 0)
			rc = 1;
	}
	listing_newest_free(&r.newest);
	tool_out_free(&out);
	free(arg);
	ws_free(&ws);
	glob_free(gp);
	return rc;
}

/* ---- grep ---- */

/* What grep compiles from its arguments. */
struct grep_args {
	struct grep_spec o;
	struct rx *rx;
	struct glob_pat *filter;
};

static int grep_mode_of(const char *mode, enum grep_mode *out, struct err *e)
{
	static const char *const names[] = {"files", "content", "count"};
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		if (strcmp(mode, names[i]) == 0) {
			*out = (enum grep_mode)i;
			return 0;
		}
	return err_set(e, ERR_USAGE, "--output '%s': expected files, content or count", mode);
}

static int grep_args_setup(struct app *a, struct grep_args *ga, const char *pattern, struct err *e)
{
	memset(ga, 0, sizeof(*ga));
	struct grep_spec *o = &ga->o;
	if (grep_mode_of(a->o.grep.output ? a->o.grep.output : "files", &o->mode, e) < 0)
		return -1;
	if ((a->o.grep.after || a->o.grep.before) && o->mode != GREP_CONTENT)
		return err_set(e, ERR_USAGE, a->mcp ? "%s goes with %s content"
					     : "-A, -B and %s go with %s content",
			       opt_say(a, O_CONTEXT), opt_say(a, O_OUTPUT));
	struct sbuf re = {0};
	for (const char *p = pattern; *p; p++) {
		/* -F: every character that means something in an ERE, escaped. */
		if (a->o.grep.fixed && strchr(".[]()*+?{}|^$\\", *p))
			sbuf_addc(&re, '\\');
		sbuf_addc(&re, *p);
	}
	/* glibc's regcomp is not asked, not even for its message: it is
	 * exponential in repeats of repeats ("a+++...+"). rx gives the
	 * REG_* code it would and regerror's message for it (rx.h). */
	char msg[200];
	enum rx_status st = rx_compile(re.buf ? re.buf : "", a->o.grep.icase ? RX_ICASE : 0, &ga->rx, NULL,
				       msg, sizeof(msg));
	sbuf_free(&re);
	if (st != RX_OK)
		return err_set(e, ERR_USAGE, "regex '%s': %s", pattern, msg);
	if (a->o.grep.glob) {
		ga->filter = glob_compile(a->o.grep.glob, msg, sizeof(msg));
		if (!ga->filter) {
			rx_free(ga->rx);
			return err_set(e, ERR_USAGE, "%s '%s': %s", opt_say(a, O_GLOB), a->o.grep.glob, msg);
		}
	}
	o->rx = ga->rx;
	o->filter = ga->filter;
	o->before = a->o.grep.before;
	o->after = a->o.grep.after;
	o->limit = (size_t)a->o.grep.limit;
	o->max_bytes = SEARCH_SHOWN_MAX;
	o->base = base_dir(a->o.grep.path);
	return 0;
}

static void grep_args_free(struct grep_args *ga)
{
	rx_free(ga->rx);
	glob_free(ga->filter);
}

struct grep_stream {
	struct app *a;
	struct grep_args *ga;
	struct grep *g;
	const struct tool_out *out;
	bool started, bad_answer;
	int failed;
	char msg[200];
	long long deadline; /* of the matching too: now_ms() */
};

/* A line can take long to match (rx.h): a signal or the step's deadline
 * stops the matching, as they stop the script. */
static bool grep_stop(void *ctx)
{
	const struct grep_stream *s = ctx;
	return spawn_stopping() || now_ms() >= s->deadline;
}

/* The answer line: a file ("OK F", only for a --path: the workdir is a
 * directory) or a directory ("OK D"); then the stream is read. */
static void grep_start(struct grep_stream *s)
{
	const char *head = s->out->head.buf ? s->out->head.buf : "";
	s->started = true;
	s->ga->o.single = NULL;
	if (strcmp(head, "OK F") == 0 && s->a->o.grep.path)
		s->ga->o.single = s->a->o.grep.path;
	else if (strcmp(head, "OK D") != 0)
		s->bad_answer = true;
	grep_init(s->g, &s->ga->o);
}

static int grep_body(void *ctx, const char *buf, size_t n)
{
	struct grep_stream *s = ctx;
	if (!s->started)
		grep_start(s);
	if (s->bad_answer)
		return -1; /* not what was asked for: stop it */
	if (!s->failed && grep_feed(s->g, buf, n, s->msg, sizeof(s->msg)) < 0)
		s->failed = 1;
	return rx_stopped(s->ga->rx) ? -1 : 0; /* stopped: stop the script too */
}

/* After the script: its refusal, an answer it never writes, or a
 * stream that did not read as one. */
static int grep_outcome(struct app *a, struct grep_stream *s, struct err *e)
{
	const char *head = s->out->head.buf ? s->out->head.buf : "";
	if (tool_refusal(head, base_dir(a->o.grep.path), e) < 0)
		return -1;
	if (!s->started)
		grep_start(s);
	if (s->bad_answer)
		return search_bad_answer(head, e);
	if (rx_stopped(s->ga->rx) && spawn_stopping())
		return err_set(e, ERR_INTERRUPTED, "interrupted while matching the lines");
	if (rx_stopped(s->ga->rx))
		return err_set(e, ERR_FAILED, "timed out after %gs matching the lines; narrow the pattern or the path",
			       ws_step_timeout(a));
	if (!s->failed && grep_finish(s->g, s->msg, sizeof(s->msg)) < 0)
		s->failed = 1;
	if (s->failed)
		return err_set(e, ERR_WORKSPACE, "reading the files: %s", s->msg);
	return 0;
}

/* The longest run of printable ASCII in the bytes every match holds,
 * for the workspace's grep -F to pick the files worth sending (SCRIPT_TAR):
 * those bytes mean the same to every grep in any locale. Shorter than
 * GREP_LIT_MIN, nearly every file holds it: reading them all twice
 * would cost more than it saves. */
#define GREP_LIT_MIN 3

static void grep_literal(const struct rx *rx, char *out, size_t cap, bool *fold)
{
	size_t n, best = 0, best_at = 0;
	const char *lit = rx_literal(rx, &n, fold);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && lit[j] >= 0x20 && lit[j] < 0x7f)
			j++;
		if (j - i > best) {
			best = j - i;
			best_at = i;
		}
		i = j + 1;
	}
	if (best < GREP_LIT_MIN || best >= cap)
		best = 0;
	memcpy(out, lit + best_at, best);
	out[best] = '\0';
}

int do_grep(struct app *a, struct grep_result *res, struct err *e)
{
	*res = (struct grep_result){0};
	const char *pattern = NULL;
	struct grep_args ga;
	if (one_pattern(a, &pattern, e) < 0 ||
	    grep_args_setup(a, &ga, pattern, e) < 0)
		return -1;
	char *arg = tool_arg_path(base_dir(a->o.grep.path), e);
	struct ws ws;
	if (!arg || ws_select(a, &ws, e) < 0) {
		free(arg);
		grep_args_free(&ga);
		return -1;
	}
	/* Large (the tar reader's buffers), and in one place from here on. */
	struct grep *g = xmalloc(sizeof(*g));
	struct tool_out out = {.body = grep_body};
	struct grep_stream s = {.a = a, .ga = &ga, .g = g, .out = &out,
				.deadline = now_ms() + (long long)(ws_step_timeout(a) * 1000)};
	out.ctx = &s;
	rx_set_stop(ga.rx, grep_stop, &s);
	char lit[300];
	bool fold = false;
	grep_literal(ga.rx, lit, sizeof(lit), &fold);
	char *args[] = {arg, lit, (char *)(fold ? "i" : "")};
	int rc = tool_run(a, &ws, PROTO_TAR, args, ARRAY_LEN(args), NULL, false, &out, e);
	if (rc == 0)
		rc = grep_outcome(a, &s, e);
	if (rc == 0) {
		*res = (struct grep_result){
			.workspace = a->ws_name, .pattern = pattern, .path = base_dir(a->o.grep.path), .g = g,
			.limit = a->o.grep.limit, .max_bytes = SEARCH_SHOWN_MAX,
		};
		g->o.rx = NULL; /* ga goes now; what is left matches nothing more */
		g->o.filter = NULL;
		rc = g->nfiles == 0 && g->produced == 0 ? 1 : 0;
	} else {
		if (s.started)
			grep_free(g);
		free(g);
	}
	tool_out_free(&out);
	free(arg);
	ws_free(&ws);
	grep_args_free(&ga);
	return rc;
}
