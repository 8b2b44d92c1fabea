/* cmd_job.c: background jobs. exec --background starts one (job_start);
 * jobs lists them, logs shows their output, kill stops them and wait
 * waits for their end. Each is one of the job scripts (scripts.h) run
 * in the workspace, its answer checked as hostile input (job.h): the
 * workspace can write anything into a job's files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "capture.h"
#include "job.h"
#include "opt_id.h"
#include "results.h"
#include "scripts.h"
#include "spawn.h"
#include "tools.h"
#include "utf8.h"
#include "workspace.h"

#define JOBS_MAX 10000        /* jobs listed at most: the newest */
#define JOB_LINE_MAX 4096     /* of a line of the list, the bytes read */
#define JOB_READ_MAX (1 << 20) /* bytes of a stream a poll brings at most */
#define JOB_POLL_S 5          /* seconds a poll of follow or wait waits */

/* Jobs live in a workspace that exists: none is made for them. */
static int job_ws(struct app *a, struct ws *ws, struct err *e)
{
	if (!a->ws_pin && !a->ref)
		return err_set(e, ERR_USAGE, "which workspace? give -w REF or set SANDBOX_WORKSPACE");
	return ws_select(a, ws, e);
}

static int job_arg(struct app *a, const char **job, struct err *e)
{
	if (a->o.args.n != 1)
		return err_set(e, ERR_USAGE, a->o.args.n ? "give one job" :
			       "which job? give its number (sandbox jobs lists them)");
	*job = a->o.args.v[0];
	if (job_id_ok(*job))
		return 0;
	if (strlen(*job) > 40 || has_control(*job))
		return err_set(e, ERR_USAGE, "not a job: give its number, as exec --background printed it");
	return err_set(e, ERR_USAGE, "job '%s': not a job; give its number, as exec --background printed it",
		       *job);
}

static const struct {
	const char *why, *text;
} refusals[] = {
	{"nosetsid", "the image has no setsid, which background jobs need"},
	{"nomkfifo", "the image has no mkfifo, which background jobs need"},
	{"nodd", "the image has no dd, which background jobs need"},
	{"nostat", "the image has no stat, which background jobs need"},
	{"mkdir", "cannot make the job's directory under /tmp/.sandbox-jobs in the workspace"},
	{"norunner", "the job did not start (its runner never said so)"},
};

/* "E WHY" of a job script, as a message; job NULL for a start. */
static int job_refusal(const char *head, const char *job, const char *ws, struct err *e)
{
	if (strncmp(head, "E ", 2) != 0)
		return 0;
	if (strcmp(head + 2, "nojob") == 0)
		return err_set(e, ERR_FAILED, "job %s: no such job in workspace %s (sandbox jobs lists them)",
			       job, ws);
	for (size_t i = 0; i < ARRAY_LEN(refusals); i++)
		if (strcmp(head + 2, refusals[i].why) == 0)
			return err_set(e, ERR_WORKSPACE, "%s", refusals[i].text);
	return err_set(e, ERR_WORKSPACE, "unexpected answer from the job script");
}

/* Runs one of the job scripts with its arguments in ws: sh -c SCRIPT sh
 * ARGS..., allowed wait seconds more than an engine call of ours, or
 * out->timeout seconds when that is set and less. */
static int job_script(struct app *a, struct ws *ws, const char *script, char *const *args,
		      size_t n, double wait, struct tool_out *out, struct err *e)
{
	double limit = out->timeout;
	struct strvec argv = {0};
	strvec_push(&argv, "sh");
	strvec_push(&argv, "-c");
	strvec_push(&argv, script);
	strvec_push(&argv, "sh");
	strvec_push_all(&argv, args, n);
	out->timeout = wait + a->cfg.engine_timeout;
	if (limit > 0 && limit < out->timeout)
		out->timeout = limit;
	int rc = tool_run(a, ws, PROTO_COMMAND, argv.v, argv.n, NULL, false, out, e);
	strvec_clear(&argv);
	return rc;
}

/* ---- exec --background ---- */

int job_start(struct app *a, struct ws *ws, char *const *cmd, size_t n, const char *shown,
	      char id[JOB_ID_LEN + 1], struct err *e)
{
	struct strvec args = {0};
	strvec_push(&args, SCRIPT_JOB_RUN);
	strvec_push(&args, SCRIPT_JOB_CMD);
	strvec_pushf(&args, "%lld", (long long)time(NULL));
	strvec_push(&args, shown);
	strvec_push_all(&args, cmd, n);
	/* Not on the channel: a job must not start with SIGINT ignored. */
	struct tool_out out = {.cwd = a->o.exec.cwd, .own_exec = true, .secrets = true};
	int rc = job_script(a, ws, SCRIPT_JOB_START, args.v, args.n, 0, &out, e);
	strvec_clear(&args);
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0)
		rc = job_refusal(head, NULL, ws->name, e);
	if (rc == 0 && (strncmp(head, "J ", 2) != 0 || !job_id_ok(head + 2)))
		rc = err_set(e, ERR_WORKSPACE, "unexpected answer from the job script");
	if (rc == 0)
		snprintf(id, JOB_ID_LEN + 1, "%s", head + 2);
	tool_out_free(&out);
	return rc;
}

/* ---- jobs ---- */

struct list_ctx {
	struct jobs_result *r;
	struct sbuf line;   /* its first JOB_LINE_MAX bytes: the rest is the
			     * command's, which is cut anyway */
};

static int by_number(const void *x, const void *y)
{
	long a = strtol(((const struct job_row *)x)->id, NULL, 10);
	long b = strtol(((const struct job_row *)y)->id, NULL, 10);
	return (a > b) - (a < b);
}

/* The newest JOBS_MAX: past twice that, the lower half goes. */
static void keep_newest(struct jobs_result *r, size_t keep)
{
	if (r->n <= keep)
		return;
	qsort(r->rows, r->n, sizeof(*r->rows), by_number);
	size_t drop = r->n - keep;
	for (size_t i = 0; i < drop; i++)
		free(r->rows[i].command);
	memmove(r->rows, r->rows + drop, keep * sizeof(*r->rows));
	r->n = keep;
	r->more = true;
}

static void list_line(struct list_ctx *c)
{
	struct jobs_result *r = c->r;
	struct job_row row;
	if (job_row_parse(c->line.buf ? c->line.buf : "", c->line.len, &row) < 0)
		return; /* not one of ours: the workspace wrote it */
	if (r->n == 2 * JOBS_MAX)
		keep_newest(r, JOBS_MAX);
	r->rows = xrealloc(r->rows, (r->n + 1) * sizeof(*r->rows));
	r->rows[r->n++] = row;
}

static int list_body(void *ctx, const char *buf, size_t n)
{
	struct list_ctx *c = ctx;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			list_line(c);
			sbuf_reset(&c->line);
		} else if (c->line.len < JOB_LINE_MAX) {
			sbuf_addc(&c->line, buf[i]);
		}
	}
	return 0;
}


int do_jobs(struct app *a, struct jobs_result *r, struct err *e)
{
	*r = (struct jobs_result){.workspace = a->ws_name};
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "jobs takes no arguments");
	struct ws ws;
	if (job_ws(a, &ws, e) < 0)
		return -1;
	struct list_ctx c = {.r = r};
	struct tool_out out = {.body = list_body, .ctx = &c};
	int rc = job_script(a, &ws, SCRIPT_JOBS, NULL, 0, 0, &out, e);
	if (rc == 0 && strcmp(out.head.buf ? out.head.buf : "", "OK") != 0)
		rc = err_set(e, ERR_WORKSPACE, "unexpected answer from the job script");
	r->now = (long long)time(NULL);
	sbuf_free(&c.line);
	tool_out_free(&out);
	ws_free(&ws);
	if (rc < 0) {
		jobs_result_free(r);
		return -1;
	}
	keep_newest(r, JOBS_MAX);
	qsort(r->rows, r->n, sizeof(*r->rows), by_number);
	return 0;
}

void jobs_result_free(struct jobs_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->rows[i].command);
	free(r->rows);
	r->rows = NULL;
	r->n = 0;
}

/* ---- a poll: the state, and output past the offsets ---- */

struct poll {
	const char *job;
	int wait;                      /* seconds */
	double limit;                  /* seconds the call may take; 0: wait's */
	bool until_end;                /* wait for the end only */
	unsigned long long off[2], max[2];
	struct job_state st;
	struct job_reader rd;
	bool timed_out;                /* the call ran out of its limit */
};

static int poll_body(void *ctx, const char *buf, size_t n)
{
	struct poll *p = ctx;
	job_reader_feed(&p->rd, buf, n);
	return p->rd.bad || p->rd.stopped ? -1 : 0;
}

static int job_poll(struct app *a, struct ws *ws, struct poll *p,
		    int (*data)(void *, int, const char *, size_t), void *ctx, struct err *e)
{
	struct strvec args = {0};
	strvec_push(&args, p->job);
	strvec_pushf(&args, "%d", p->wait);
	strvec_push(&args, p->until_end ? "end" : "out");
	for (int i = 0; i < 2; i++) {
		strvec_pushf(&args, "%llu", p->off[i]);
		strvec_pushf(&args, "%llu", p->max[i]);
	}
	job_reader_init(&p->rd, p->max[0], p->max[1]);
	p->rd.data = data;
	p->rd.ctx = ctx;
	struct tool_out out = {.body = poll_body, .ctx = p, .timeout = p->limit};
	int rc = job_script(a, ws, SCRIPT_JOB_POLL, args.v, args.n, p->wait, &out, e);
	strvec_clear(&args);
	p->timed_out = out.timed_out;
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0 && p->rd.stopped)
		rc = 1; /* our stdout is closed */
	if (rc == 0)
		rc = job_refusal(head, p->job, ws->name, e);
	if (rc == 0 && (job_state_parse(head, &p->st) < 0 || !job_reader_complete(&p->rd)))
		rc = err_set(e, ERR_WORKSPACE, "job %s: unexpected answer from the job script "
			     "(its files in the workspace are not as the job left them)", p->job);
	tool_out_free(&out);
	return rc;
}

/* ---- logs ---- */

struct logs_sink {
	struct logs_result *r;
	struct capture cap[2];
	bool live;                     /* the CLI's text: out as it comes */
	int werr;                      /* why writing it failed: an errno */
};

static int logs_data(void *ctx, int stream, const char *buf, size_t n)
{
	struct logs_sink *k = ctx;
	if (k->live) {
		errno = 0;
		if (spawn_write_out(1, buf, n) == 0)
			return 0;
		k->werr = errno;
		return -1;
	}
	capture_add(&k->cap[stream - 1], buf, n);
	return 0;
}

/* Bytes of a stream that were not kept, between what was read and what
 * comes now: said as it happens on the command line. */
static void logs_gap(struct logs_sink *k, const char *job, unsigned long long n)
{
	if (k->live)
		fprintf(stderr, "sandbox: logs: %llu bytes of job %s's output were not kept here "
			"(a job keeps the first and the last MiB of each stream)\n", n, job);
}

/* One poll; moves each stream's next offset; *more: output is waiting;
 * *got: bytes came. 1: our stdout is closed. */
static int logs_step(struct app *a, struct ws *ws, struct poll *p, struct logs_sink *k,
		     bool *more, bool *got, struct err *e)
{
	struct logs_result *r = k->r;
	for (int i = 0; i < 2; i++)
		p->off[i] = r->s[i].next;
	int rc = job_poll(a, ws, p, logs_data, k, e);
	if (rc != 0)
		return rc;
	*more = *got = false;
	for (int i = 0; i < 2; i++) {
		const struct job_stream *f = &p->rd.s[i];
		struct logs_stream *s = &r->s[i];
		if (!s->asked)
			continue;
		if (f->start < s->next)
			return err_set(e, ERR_WORKSPACE, "job %s: unexpected answer from the job script", r->job);
		if (f->start > s->next)
			logs_gap(k, r->job, f->start - s->next);
		if (!s->seen)
			s->start = f->start;
		s->seen = true;
		s->next = f->start + f->len;
		*more = *more || f->more;
		*got = *got || f->len;
	}
	r->st = p->st;
	r->more = *more;
	return 0;
}

/* Whether a stream asked for has not reached ends[]. */
static bool short_of(const struct logs_result *r, const unsigned long long ends[2])
{
	for (int i = 0; i < 2; i++)
		if (r->s[i].asked && r->s[i].next < ends[i])
			return true;
	return false;
}

/* Without --follow: the output up to its end as the first poll saw it
 * (a job that writes on does not keep logs going). Polls that bring
 * nothing (a chunk went while it was read) are tried again, 3 times. */
static int logs_loop(struct app *a, struct ws *ws, struct logs_sink *k, struct err *e)
{
	struct logs_result *r = k->r;
	const struct logs_opts *o = &a->o.logs;
	size_t per = a->mcp ? (size_t)a->output_limit / 2 + 1 : JOB_READ_MAX;
	struct poll p = {.job = r->job, .wait = a->mcp ? (int)o->wait : 0};
	for (int i = 0; i < 2; i++)
		p.max[i] = r->s[i].asked ? per : 0;
	unsigned long long ends[2] = {0, 0};
	/* Plain logs: an honest stream keeps at most 6 MiB: polls enough for
	 * that, twice over, and no more whatever the workspace answers. */
	long budget = 8 + 2 * (long)((7UL << 20) / per + 1);
	int quiet = 0, idle = 0;
	for (bool first = true;; first = false) {
		bool more, got;
		int rc = logs_step(a, ws, &p, k, &more, &got, e);
		if (rc != 0)
			return rc;
		/* An MCP call reads a page; the model asks for the next. */
		if (a->mcp)
			return 0;
		if (first)
			for (int i = 0; i < 2; i++)
				ends[i] = p.rd.s[i].end;
		p.wait = 0;
		idle = got ? 0 : idle + 1;
		if (!r->follow) {
			if (!more || !short_of(r, ends) || idle > 3 || --budget <= 0)
				return 0;
			continue;
		}
		if (more && idle <= 3)
			continue;
		idle = 0;
		/* Followed to the end: all of its output kept, or its runner
		 * gone, or nothing new for a poll (a process it left holds
		 * the output open). */
		if (job_ended(&r->st) && (r->st.done || !r->st.alive || (!got && quiet++)))
			return 0;
		p.wait = JOB_POLL_S;
	}
}

int do_logs(struct app *a, struct logs_result *r, struct err *e)
{
	*r = (struct logs_result){.workspace = a->ws_name};
	const struct logs_opts *o = &a->o.logs;
	if (job_arg(a, &r->job, e) < 0)
		return -1;
	r->follow = o->follow;
	r->s[0].asked = a->mcp || !o->stderr_only;
	r->s[1].asked = a->mcp || o->stderr_only;
	r->s[0].offset = (unsigned long long)o->offset;
	r->s[1].offset = (unsigned long long)(a->mcp ? o->err_offset : o->offset);
	for (int i = 0; i < 2; i++)
		r->s[i].start = r->s[i].next = r->s[i].offset;
	struct ws ws;
	if (job_ws(a, &ws, e) < 0)
		return -1;
	struct logs_sink k = {.r = r, .live = !a->json};
	size_t keep = a->mcp ? (size_t)a->output_limit + 8 : (size_t)a->cfg.max_output;
	capture_init(&k.cap[0], keep);
	capture_init(&k.cap[1], keep);
	int rc = logs_loop(a, &ws, &k, e);
	/* Our stdout closed: quietly, as a pipe's reader that went away. */
	bool closed = rc == 1 && k.werr == EPIPE;
	if (rc == 1 && !closed)
		rc = spawn_interrupted ? err_set(e, ERR_INTERRUPTED, "interrupted; job %s goes on", r->job)
				       : err_set(e, ERR_FAILED, "cannot write the output: %s",
						 strerror(k.werr ? k.werr : EIO));
	if (closed)
		rc = 0;
	for (int i = 0; i < 2 && rc == 0; i++) {
		r->s[i].cut = capture_get(&k.cap[i], &r->s[i].data);
		/* A piece read by offset may end in the first part of a secret
		 * that the next read begins with: the edges too. */
		if (!redact_empty(&a->redact) && r->s[i].data.len) {
			struct sbuf red = {0};
			redact_buf(&a->redact, r->s[i].data.buf, r->s[i].data.len, true, &red);
			sbuf_free(&r->s[i].data);
			r->s[i].data = red;
		}
	}
	capture_free(&k.cap[0]);
	capture_free(&k.cap[1]);
	ws_free(&ws);
	if (rc < 0) {
		logs_result_free(r);
		return -1;
	}
	if (closed)
		return spawn_signal_status(SIGPIPE);
	return r->follow ? job_exit_status(&r->st) : 0;
}

void logs_result_free(struct logs_result *r)
{
	sbuf_free(&r->s[0].data);
	sbuf_free(&r->s[1].data);
}

/* ---- kill ---- */

/* The rest of a short answer: a line or two, kept to 256 bytes. */
static int small_body(void *ctx, const char *buf, size_t n)
{
	struct sbuf *b = ctx;
	size_t room = b->len < 256 ? 256 - b->len : 0;
	sbuf_add(b, buf, n < room ? n : room);
	return 0;
}

/* "K OUTCOME" and the state after it. */
static int kill_answer(const char *head, struct sbuf *body, struct kill_result *r)
{
	static const char *const outcomes[] = {"gone", "alive", "sent", "ended"};
	for (size_t i = 0; i < ARRAY_LEN(outcomes); i++)
		if (strncmp(head, "K ", 2) == 0 && strcmp(head + 2, outcomes[i]) == 0)
			r->outcome = outcomes[i];
	sbuf_rtrim(body);
	if (!r->outcome || !body->buf || strchr(body->buf, '\n') ||
	    job_state_parse(body->buf, &r->st) < 0)
		return -1;
	return 0;
}

int do_kill(struct app *a, struct kill_result *r, struct err *e)
{
	*r = (struct kill_result){.workspace = a->ws_name};
	if (job_arg(a, &r->job, e) < 0)
		return -1;
	const char *name = a->o.kill.signal;
	if (name && (r->signal = job_signal_number(name)) < 0)
		return err_set(e, ERR_USAGE, "%s '%.40s': not a signal; give a name (TERM, INT, KILL, ...) "
			       "or a number from 1 to 64", opt_say(a, O_SIGNAL), name);
	struct ws ws;
	if (job_ws(a, &ws, e) < 0)
		return -1;
	char sig[8] = "";
	if (r->signal)
		snprintf(sig, sizeof(sig), "%d", r->signal);
	char *args[] = {(char *)r->job, sig};
	struct sbuf body = {0};
	struct tool_out out = {.body = small_body, .ctx = &body};
	/* Its waits: for the pid (2 s), TERM's grace and KILL's (1 s each),
	 * for the runner to see the end (1 s). */
	int rc = job_script(a, &ws, SCRIPT_JOB_KILL, args, 2, 5, &out, e);
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0)
		rc = job_refusal(head, r->job, ws.name, e);
	if (rc == 0 && kill_answer(head, &body, r) < 0)
		rc = err_set(e, ERR_WORKSPACE, "job %s: unexpected answer from the job script", r->job);
	sbuf_free(&body);
	tool_out_free(&out);
	ws_free(&ws);
	if (rc < 0)
		return -1;
	return strcmp(r->outcome, "alive") == 0 ? 1 : 0;
}

void kill_result_free(struct kill_result *r)
{
	(void)r;
}

/* ---- wait ---- */

static void nap_ms(long long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (!spawn_interrupted && nanosleep(&ts, &ts) < 0)
		;
}

int do_wait(struct app *a, struct wait_result *r, struct err *e)
{
	*r = (struct wait_result){.workspace = a->ws_name};
	if (job_arg(a, &r->job, e) < 0)
		return -1;
	double limit = -1;
	const char *t = a->o.wait.timeout;
	if (t && !parse_seconds(t, &limit))
		return err_set(e, ERR_USAGE, "--timeout '%.40s': expected seconds, like 30 or 1.5", t);
	struct ws ws;
	if (job_ws(a, &ws, e) < 0)
		return -1;
	long long deadline = limit >= 0 ? now_ms() + (long long)(limit * 1000) : -1;
	struct poll p = {.job = r->job, .until_end = true};
	int rc = 0;
	bool polled = false;   /* a poll answered: the job's state is known */
	for (;;) {
		long long left = deadline < 0 ? JOB_POLL_S * 1000LL : deadline - now_ms();
		p.wait = left >= JOB_POLL_S * 1000LL ? JOB_POLL_S : left > 0 ? (int)(left / 1000) : 0;
		/* With --timeout, a poll the workspace holds up ends by then
		 * too, give or take the second a kill takes. */
		p.limit = deadline < 0 ? 0 : (double)(left > 0 ? left : 0) / 1000 + 3;
		if ((rc = job_poll(a, &ws, &p, NULL, NULL, e)) != 0) {
			if (p.timed_out && polled && deadline >= 0 && now_ms() >= deadline) {
				rc = 0;
				r->timed_out = true;
			}
			break;
		}
		r->st = p.st;
		polled = true;
		if (job_ended(&r->st))
			break;
		left = deadline < 0 ? 1 : deadline - now_ms();
		if (left <= 0) {
			r->timed_out = true;
			break;
		}
		/* Less than a poll's second left: the rest here. */
		if (left < 1000)
			nap_ms(left);
		if (spawn_interrupted) {
			rc = err_set(e, ERR_INTERRUPTED, "interrupted; job %s goes on", r->job);
			break;
		}
	}
	ws_free(&ws);
	if (rc < 0)
		return -1;
	return r->timed_out ? 124 : job_exit_status(&r->st);
}

void wait_result_free(struct wait_result *r)
{
	(void)r;
}
