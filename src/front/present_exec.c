/* present_exec.c: the presenters of exec and run (cmd_exec.c): what
 * became of the command as the CLI's text (its output went out as it
 * came), the --json tree with the kept output, the text for the model;
 * and run's note of a workspace it could not remove. */
#include <string.h>

#include "engine.h"
#include "present.h"
#include "results.h"
#include "utf8.h"

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

void exec_model(struct sbuf *out, const struct exec_result *r)
{
	if (r->job[0]) {
		sbuf_addf(out, "Started job %s in the background. job_output reads its output (and "
			  "waits for it), job_kill stops it, job_list lists the jobs.", r->job);
		return;
	}
	model_stream(out, &r->out, r->out_cut, r->out_total);
	if (r->err.len) {
		present_end_line(out);
		sbuf_adds(out, "[stderr]\n");
		model_stream(out, &r->err, r->err_cut, r->err_total);
	}
	present_end_line(out);
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

void run_finish(const void *r)
{
	run_left(stderr, r);
}

TOOL_RESULT_TYPE(exec, exec_is_error);
