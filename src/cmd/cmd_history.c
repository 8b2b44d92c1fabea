/* cmd_history.c: history, the record of every call (history.h): shown
 * as a table or as its records (--json, one a line), followed as it
 * grows, pruned of workspaces that are gone. The user's, not the
 * agent's: no MCP tool shows it. timegm is glibc's and the BSDs', under
 * _DEFAULT_SOURCE. */
#define _DEFAULT_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"
#include "json.h"
#include "jsonr.h"
#include "jvb.h"
#include "opt_id.h"
#include "records.h"
#include "results.h"
#include "spawn.h"
#include "tool_text.h"
#include "utf8.h"
#include "workspace.h"

/* How often --follow looks for more. */
#define FOLLOW_MS 200

/* A record's time in ms since the epoch, from its "time" (our format,
 * UTC); -1 when it has none. */
static long long record_ms(const struct jv *rec)
{
	const char *t = jv_str(jv_get(rec, "time"));
	struct tm tm = {0};
	int ms = 0;
	if (!t || sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm) * 1000 + ms;
}

static const char *str_or(const struct jv *v, const char *dflt)
{
	const char *s = jv_str(v);
	return s ? s : dflt;
}

/* What was asked, as one line: the words after the command's name (the
 * command line's), or the tool's arguments as JSON. */
static void asked_line(struct sbuf *out, const struct jv *rec)
{
	const struct jv *argv = jv_get(rec, "argv");
	const char *cmd = jv_str(jv_get(rec, "command"));
	bool after = false;
	for (size_t i = 0; jv_is(argv, JV_ARRAY) && i < jv_count(argv); i++) {
		const char *w = jv_str(jv_at(argv, i));
		if (!w)
			continue;
		if (!after) {
			after = cmd && strcmp(w, cmd) == 0;
			continue;
		}
		if (out->len)
			sbuf_addc(out, ' ');
		sbuf_adds(out, w);
	}
	const struct jv *args = jv_get(rec, "arguments");
	if (args) {
		struct json j = {0};
		json_jv(&j, args, 200);
		sbuf_add(out, j.out.buf, j.out.len);
		sbuf_free(&j.out);
	}
}

/* The outcome in a word or two: the command's status, a timeout, a
 * kill, or the error's kind. */
static void outcome_word(char *buf, size_t n, const struct jv *rec)
{
	const struct jv *code = jv_get(rec, "exit_code");
	const struct jv *err = jv_get(rec, "error");
	if (jv_is(jv_get(rec, "timed_out"), JV_BOOL) && jv_get(rec, "timed_out")->b)
		snprintf(buf, n, "timeout");
	else if (jv_is(jv_get(rec, "oom_killed"), JV_BOOL) && jv_get(rec, "oom_killed")->b)
		snprintf(buf, n, "oom");
	else if (jv_is(code, JV_NUMBER) && code->num.is_int)
		snprintf(buf, n, "%lld", code->num.i);
	else if (jv_str(err))
		snprintf(buf, n, "%s", jv_str(err));
	else
		snprintf(buf, n, "ok");
}

/* A text cut to width characters, control characters shown as '?'. */
static void cell(struct sbuf *out, const char *s, size_t width)
{
	size_t len = strlen(s);
	size_t keep = utf8_prefix(s, len, width);
	for (size_t i = 0; i < keep; i++)
		sbuf_addc(out, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i]);
	if (keep < len)
		sbuf_adds(out, "...");
}

void records_when(char when[32], const struct jv *rec)
{
	long long ms = record_ms(rec);
	snprintf(when, 32, "?");
	if (ms >= 0) {
		time_t t = (time_t)(ms / 1000);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(when, 32, "%Y-%m-%d %H:%M:%S", &tm);
	}
}

void records_cell(struct sbuf *out, const char *s, size_t width, size_t column)
{
	size_t at = out->len;
	cell(out, s, width);
	size_t used = out->len - at;
	sbuf_addf(out, "%*s", (int)(column > used ? column - used : 1), "");
}

static void row_text(struct sbuf *out, const struct jv *rec)
{
	char when[32], word[48];
	records_when(when, rec);
	outcome_word(word, sizeof(word), rec);
	const struct jv *dur = jv_get(rec, "duration_ms");
	struct sbuf asked = {0};
	asked_line(&asked, rec);
	char via[80];
	const char *client = jv_str(jv_get(rec, "client"));
	snprintf(via, sizeof(via), "%s%s%.40s", str_or(jv_get(rec, "via"), "?"), client ? ":" : "",
		 client ? client : "");
	sbuf_addf(out, "%-19s  ", when);
	size_t at = out->len;
	cell(out, str_or(jv_get(rec, "workspace"), "?"), 24);
	sbuf_addf(out, "%*s", (int)(26 - (out->len - at) > 0 ? 26 - (out->len - at) : 1), "");
	at = out->len;
	cell(out, via, 16);
	sbuf_addf(out, "%*s", (int)(18 - (out->len - at) > 0 ? 18 - (out->len - at) : 1), "");
	at = out->len;
	cell(out, str_or(jv_get(rec, "command"), "?"), 10);
	sbuf_addf(out, "%*s", (int)(12 - (out->len - at) > 0 ? 12 - (out->len - at) : 1), "");
	sbuf_addf(out, "%-10s %8lldms  ", word,
		  jv_is(dur, JV_NUMBER) && dur->num.is_int ? dur->num.i : -1);
	cell(out, asked.buf ? asked.buf : "", 80);
	sbuf_addc(out, '\n');
	sbuf_free(&asked);
}

struct shown {
	struct app *a;
	const struct records_view *v;
	long long since; /* ms since the epoch; 0: all */
	size_t rows;
};

/* One record's line, as --json or the table shows it; a line that is no
 * record of ours (a file's torn end, another's edit) is left out. */
static void show_line(struct shown *sh, const char *line)
{
	struct jv *rec = jv_parse(line, strlen(line), NULL, NULL, 0);
	if (!jv_is(rec, JV_OBJECT) || (sh->since && record_ms(rec) < sh->since)) {
		jv_free(rec);
		return;
	}
	struct sbuf out = {0};
	if (sh->a->json) {
		sbuf_adds(&out, line);
		sbuf_addc(&out, '\n');
	} else {
		if (sh->rows == 0)
			sbuf_adds(&out, sh->v->header);
		sh->v->row(&out, rec);
	}
	sh->rows++;
	spawn_write_out(1, out.buf, out.len);
	sbuf_free(&out);
	jv_free(rec);
}

static int by_time(const void *x, const void *y)
{
	/* Lines start {"time":"..." : the text orders them. */
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int prune(struct app *a, const char *dir, struct err *e)
{
	if (!a->engine)
		return err_set(e, ERR_ENGINE, "history --prune asks the engine which workspaces are gone: %s",
			       a->engine_err.msg[0] ? a->engine_err.msg : "no engine");
	struct strvec names = {0};
	int rc = history_names(dir, &names, e);
	long removed = 0;
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		enum ws_state st;
		if (ws_inspect(a, names.v[i], &st, NULL, e) < 0) {
			rc = -1;
			break;
		}
		if (st != WS_MISSING)
			continue;
		rc = history_remove(dir, names.v[i], e);
		removed += rc == 0;
	}
	strvec_clear(&names);
	if (rc == 0 && !a->json)
		printf("removed the history of %ld workspace%s that %s gone\n", removed,
		       removed == 1 ? "" : "s", removed == 1 ? "is" : "are");
	else if (rc == 0)
		printf("{\"removed\":%ld}\n", removed);
	return rc;
}

static const struct records_view history_view = {
	.what = "history",
	.header = "TIME                 WORKSPACE                 VIA               COMMAND     "
		  "OUTCOME    DURATION  ASKED\n",
	.row = row_text,
	.none = "no calls on record",
};

int cmd_history(struct app *a, struct err *e)
{
	const char *ref = a->o.args.n ? a->o.args.v[0] : a->ref;
	if (ref && !history_name_ok(ref))
		return err_set(e, ERR_USAGE, "'%s' is not a workspace's name; sandbox list shows them", ref);
	if (a->o.history.prune) {
		char *dir = history_dir_new(e);
		if (!dir)
			return -1;
		int rc = ref ? err_set(e, ERR_USAGE, "--prune removes the histories of every workspace that is gone; name none")
			     : prune(a, dir, e);
		free(dir);
		return rc;
	}
	return records_show(a, &history_view, ref, e);
}

int records_show(struct app *a, const struct records_view *v, const char *ref, struct err *e)
{
	char *dir = history_dir_of_new(v->what, e);
	if (!dir)
		return -1;
	struct shown sh = {.a = a, .v = v};
	if (a->o.history.since > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		sh.since = ((long long)ts.tv_sec - a->o.history.since) * 1000;
	}
	struct strvec names = {0}, lines = {0};
	long long *sizes = NULL;
	int rc = 0;
	if (ref)
		strvec_push(&names, ref);
	else
		rc = history_names(dir, &names, e);
	if (rc == 0) {
		sizes = xmalloc((names.n ? names.n : 1) * sizeof(*sizes));
		memset(sizes, 0, (names.n ? names.n : 1) * sizeof(*sizes));
	}
	for (size_t i = 0; rc == 0 && i < names.n; i++)
		rc = history_lines(dir, names.v[i], &lines, &sizes[i], e);
	if (rc == 0 && lines.n)
		qsort(lines.v, lines.n, sizeof(*lines.v), by_time);
	for (size_t i = 0; rc == 0 && i < lines.n; i++)
		show_line(&sh, lines.v[i]);
	if (rc == 0 && !a->o.history.follow && sh.rows == 0 && !a->json)
		fprintf(stderr, "%s%s%s\n", v->none, ref ? " for " : "", ref ? ref : "");
	/* --follow: what comes, as it comes, until a signal. New workspaces'
	 * files are seen when ref is none. */
	while (rc == 0 && a->o.history.follow && !spawn_stopping()) {
		fflush(stdout);
		struct pollfd pfd = {spawn_signal_fd(), POLLIN, 0};
		if (poll(&pfd, 1, FOLLOW_MS) > 0)
			spawn_signal_drain();
		struct strvec now = {0};
		if (!ref && history_names(dir, &now, e) == 0 && now.n != names.n) {
			long long *grown = xmalloc(now.n * sizeof(*grown));
			memset(grown, 0, now.n * sizeof(*grown));
			for (size_t i = 0; i < now.n; i++)
				for (size_t k = 0; k < names.n; k++)
					if (strcmp(now.v[i], names.v[k]) == 0)
						grown[i] = sizes[k];
			strvec_clear(&names);
			names = now;
			free(sizes);
			sizes = grown;
		} else {
			strvec_clear(&now);
		}
		for (size_t i = 0; i < names.n; i++) {
			struct strvec more = {0};
			if (history_more(dir, names.v[i], &more, &sizes[i], e) == 0)
				for (size_t k = 0; k < more.n; k++)
					show_line(&sh, more.v[k]);
			strvec_clear(&more);
		}
	}
	strvec_clear(&lines);
	strvec_clear(&names);
	free(sizes);
	free(dir);
	return rc;
}
