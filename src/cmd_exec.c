/* cmd_exec.c: `exec` (a command in a workspace, created on first use when
 * none is named) and `run` (create, exec, destroy, whatever happens). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "capture.h"
#include "exec.h"
#include "json.h"
#include "opts.h"
#include "spawn.h"
#include "workspace.h"

/* Text mode: output goes out live, as it comes. */
static int write_live(void *ctx, int stream, const char *buf, size_t n)
{
	(void)ctx;
	return spawn_write_out(stream, buf, n);
}

struct captures {
	struct capture out, err;
};

static int write_captured(void *ctx, int stream, const char *buf, size_t n)
{
	struct captures *c = ctx;
	capture_add(stream == 1 ? &c->out : &c->err, buf, n);
	return 0;
}

static void print_exec_json(FILE *f, const char *ref, const struct exec_res *res,
			    int status, struct captures *c)
{
	struct json j = {0};
	struct sbuf out = {0}, err = {0};
	bool out_cut = capture_get(&c->out, &out);
	bool err_cut = capture_get(&c->err, &err);
	json_obj_open(&j);
	json_key(&j, "workspace");
	json_str(&j, ref);
	json_key(&j, "exit_code");
	json_int(&j, status);
	json_key(&j, "stdout");
	json_strn(&j, out.buf ? out.buf : "", out.len);
	json_key(&j, "stderr");
	json_strn(&j, err.buf ? err.buf : "", err.len);
	json_key(&j, "timed_out");
	json_bool(&j, res->outcome == EXEC_TIMED_OUT);
	json_key(&j, "oom_killed");
	json_bool(&j, exec_oom_killed(res, status));
	json_key(&j, "kill");
	if (res->kill == KILL_NONE)
		json_null(&j);
	else
		json_str(&j, exec_kill_word(res->kill));
	json_key(&j, "duration_ms");
	json_int(&j, res->duration_ms);
	json_key(&j, "stdout_truncated");
	json_bool(&j, out_cut);
	json_key(&j, "stderr_truncated");
	json_bool(&j, err_cut);
	json_key(&j, "stdout_bytes");
	json_int(&j, (long long)c->out.total);
	json_key(&j, "stderr_bytes");
	json_int(&j, (long long)c->err.total);
	json_obj_close(&j);
	json_print(&j, f);
	sbuf_free(&j.out);
	sbuf_free(&out);
	sbuf_free(&err);
}

/* The status exec exits with, and a message for the outcomes that are
 * not the command's own status. */
static int outcome_status(struct app *a, const struct exec_res *res)
{
	switch (res->outcome) {
	case EXEC_DONE:
		if (!a->json && exec_oom_killed(res, res->status))
			fprintf(stderr, "sandbox: %s: the command was killed for lack of memory (the workspace's memory limit)\n",
				a->cmd);
		return res->status;
	case EXEC_TIMED_OUT:
		if (!a->json)
			fprintf(stderr, "sandbox: %s: timed out after %gs; %s\n", a->cmd, a->cfg.timeout,
				exec_kill_says(res->kill));
		return 124;
	case EXEC_INTERRUPTED:
		if (!a->json)
			fprintf(stderr, "sandbox: %s: interrupted; %s\n", a->cmd, exec_kill_says(res->kill));
		return spawn_interrupted_status();
	case EXEC_PIPE:
		return spawn_signal_status(SIGPIPE);
	default:
		return 255;
	}
}

/* Builds the request from the options and runs it in ws. */
static int exec_in(struct app *a, struct ws *ws, struct err *e)
{
	struct strvec cmd = {0};
	if (a->shell) {
		strvec_push(&cmd, "sh");
		strvec_push(&cmd, "-c");
		strvec_push(&cmd, a->shell);
	} else {
		strvec_push_all(&cmd, a->args.v, a->args.n);
	}
	struct captures cap;
	capture_init(&cap.out, (size_t)a->cfg.max_output);
	capture_init(&cap.err, (size_t)a->cfg.max_output);
	struct exec_req rq = {
		.engine = a->engine, .envp = a->envp.v,
		.env = a->cfg.env.v, .nenv = a->cfg.env.n,
		.cwd = a->cwd, .cmd = cmd.v, .ncmd = cmd.n,
		.interactive = a->interactive, .timeout = a->cfg.timeout,
		.sink = a->json ? (struct exec_sink){write_captured, &cap}
				: (struct exec_sink){write_live, NULL},
	};
	struct exec_res res;
	int rc = ws_exec(a, ws, &rq, &res, e);
	if (rc == 0 && res.outcome == EXEC_CANCELLED)
		rc = err_set(e, ERR_INTERRUPTED, "cancelled; %s", exec_kill_says(res.kill));
	else if (rc == 0 && res.outcome == EXEC_NO_CWD)
		rc = a->cwd ? err_set(e, ERR_USAGE, "%s %s: no such directory in the workspace",
				      opt_say(a, O_CWD), a->cwd)
			    : err_set(e, ERR_WORKSPACE, "cannot enter or create the workdir %s in the workspace",
				      ws->workdir ? ws->workdir : "");
	if (rc == 0) {
		rc = outcome_status(a, &res);
		if (a->json)
			print_exec_json(a->out, ws->name, &res, rc, &cap);
	} else if (e->kind == ERR_FAILED) {
		/* A failure of the workspace is never a command's status. */
		e->kind = ERR_WORKSPACE;
	}
	sbuf_free(&res.engine_err);
	capture_free(&cap.out);
	capture_free(&cap.err);
	strvec_clear(&cmd);
	return rc;
}

static int check_command(struct app *a, struct err *e)
{
	if (a->shell && a->args.n)
		return err_set(e, ERR_USAGE, "give either -c TEXT or a command after --, not both");
	if (!a->shell && !a->args.n)
		return err_set(e, ERR_USAGE, "no command: give one after --, or shell text with -c");
	return 0;
}

int cmd_exec(struct app *a, struct err *e)
{
	if (check_command(a, e) < 0)
		return -1;
	struct ws ws;
	if (ws_select(a, &ws, e) < 0)
		return -1;
	int rc = exec_in(a, &ws, e);
	ws_free(&ws);
	return rc;
}

int cmd_run(struct app *a, struct err *e)
{
	if (check_command(a, e) < 0)
		return -1;
	struct ws ws;
	if (ws_create(a, &ws, e) < 0) {
		if (e->kind == ERR_FAILED)
			e->kind = ERR_WORKSPACE;
		return -1;
	}
	int rc = -1;
	if (spawn_interrupted)
		err_set(e, ERR_INTERRUPTED, "interrupted; the workspace is removed");
	else
		rc = exec_in(a, &ws, e);
	/* Whatever happened, nothing is left behind: a signal that arrived
	 * meanwhile must not stop the removal. */
	int outer = spawn_grace_begin();
	struct err rm_err = {0};
	if (ws_remove(a, ws.id, &rm_err) < 0)
		fprintf(stderr, "sandbox: run: %s; remove it with 'sandbox destroy %s'\n",
			rm_err.msg, ws.name);
	ws_forget(a, ws.name);
	spawn_grace_end(outer);
	ws_free(&ws);
	return rc;
}
