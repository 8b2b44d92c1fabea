/* present_jobs.c: the presenters of the background jobs (cmd_job.c):
 * jobs, logs, kill and wait, as the CLI's text, the --json tree, and
 * the text for the model of job_list, job_output and job_kill. */
#include <string.h>

#include "job.h"
#include "present.h"
#include "results.h"

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
			present_age(age, sizeof(age), r->now - j->started);
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
			present_age(age, sizeof(age), r->now - j->started);
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
		present_end_line(out);
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

bool kill_is_error(const struct kill_result *r)
{
	return strcmp(r->outcome, "alive") == 0;
}

/* ---- the result types (results.h) ---- */

TOOL_RESULT_TYPE(jobs, result_no_error);
TOOL_RESULT_TYPE(logs, result_no_error);
TOOL_RESULT_TYPE(kill, kill_is_error);
RESULT_TYPE(wait);
