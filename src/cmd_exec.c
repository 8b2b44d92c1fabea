/* cmd_exec.c: `exec` (a command in a workspace, created on first use when
 * none is named) and `run` (create, exec, destroy, whatever happens). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "capture.h"
#include "exec.h"
#include "opts.h"
#include "results.h"
#include "scripts.h"
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

/* The status exec exits with, for the outcomes that are not the
 * command's own. */
static int outcome_status(const struct exec_res *res)
{
	switch (res->outcome) {
	case EXEC_DONE:
		return res->status;
	case EXEC_TIMED_OUT:
		return 124;
	case EXEC_INTERRUPTED:
		return spawn_interrupted_status();
	case EXEC_PIPE:
		return spawn_signal_status(SIGPIPE);
	default:
		return 255;
	}
}

/* A session's call: SCRIPT_SESSION restores the session, exports the
 * call's own variables over it, runs the command and saves the session.
 * A background job's (KIND b) only starts from it: its shell text goes
 * as sh -c TEXT. */
static void session_command(const struct app *a, struct strvec *cmd)
{
	const struct exec_opts *o = &a->o.exec;
	strvec_push(cmd, "sh");
	strvec_push(cmd, "-c");
	strvec_push(cmd, SCRIPT_SESSION);
	strvec_push(cmd, "sh"); /* $0, as its messages say it, as sh -c's would */
	strvec_push(cmd, o->reset ? "1" : "0");
	strvec_push(cmd, o->cwd ? "0" : "1");
	strvec_push(cmd, o->background ? "b" : o->shell ? "c" : "a");
	strvec_push(cmd, o->session);
	strvec_pushf(cmd, "%zu", a->cfg.env.n);
	strvec_push_all(cmd, a->cfg.env.v, a->cfg.env.n);
	if (o->shell && o->background) {
		strvec_push(cmd, "sh");
		strvec_push(cmd, "-c");
	}
	if (o->shell)
		strvec_push(cmd, o->shell);
	else
		strvec_push_all(cmd, a->o.args.v, a->o.args.n);
}

/* Builds the request from the options and runs it in ws: r is filled
 * when it returns 0. */
static int exec_in(struct app *a, struct ws *ws, struct exec_result *r, struct err *e)
{
	struct strvec cmd = {0};
	if (a->o.exec.session) {
		session_command(a, &cmd);
	} else if (a->o.exec.shell) {
		strvec_push(&cmd, "sh");
		strvec_push(&cmd, "-c");
		strvec_push(&cmd, a->o.exec.shell);
	} else {
		strvec_push_all(&cmd, a->o.args.v, a->o.args.n);
	}
	struct captures cap;
	capture_init(&cap.out, (size_t)a->cfg.max_output);
	capture_init(&cap.err, (size_t)a->cfg.max_output);
	struct exec_req rq = {
		.engine = a->engine, .envp = a->envp.v,
		.env = a->cfg.env.v, .nenv = a->cfg.env.n,
		.cwd = a->o.exec.cwd, .cmd = cmd.v, .ncmd = cmd.n,
		.interactive = a->o.exec.interactive, .timeout = a->cfg.timeout,
		.sink = a->json ? (struct exec_sink){write_captured, &cap}
				: (struct exec_sink){write_live, NULL},
	};
	int rc = ws_exec(a, ws, &rq, &r->res, e);
	if (rc == 0 && r->res.outcome == EXEC_CANCELLED)
		rc = err_set(e, ERR_INTERRUPTED, "cancelled; %s", exec_kill_says(r->res.kill));
	else if (rc == 0 && r->res.outcome == EXEC_NO_CWD)
		rc = a->o.exec.cwd ? err_set(e, ERR_USAGE, "%s %s: no such directory in the workspace",
				      opt_say(a, O_CWD), a->o.exec.cwd)
			    : err_set(e, ERR_WORKSPACE, "cannot enter or create the workdir %s in the workspace",
				      ws->workdir ? ws->workdir : "");
	if (rc == 0) {
		r->status = outcome_status(&r->res);
		r->out_cut = capture_get(&cap.out, &r->out);
		r->err_cut = capture_get(&cap.err, &r->err);
		r->out_total = cap.out.total;
		r->err_total = cap.err.total;
	} else {
		sbuf_free(&r->res.engine_err);
		/* A failure of the workspace is never a command's status. */
		if (e->kind == ERR_FAILED)
			e->kind = ERR_WORKSPACE;
	}
	capture_free(&cap.out);
	capture_free(&cap.err);
	strvec_clear(&cmd);
	return rc;
}

/* exec --background: the job's id is the result. */
static int background_in(struct app *a, struct ws *ws, struct exec_result *r, struct err *e)
{
	const struct exec_opts *o = &a->o.exec;
	struct strvec cmd = {0};
	if (o->session) {
		session_command(a, &cmd);
	} else if (o->shell) {
		strvec_push(&cmd, "sh");
		strvec_push(&cmd, "-c");
		strvec_push(&cmd, o->shell);
	} else {
		strvec_push_all(&cmd, a->o.args.v, a->o.args.n);
	}
	struct sbuf shown = {0};
	char *text[] = {(char *)o->shell};
	if (o->shell)
		job_command_line(&shown, text, 1);
	else
		job_command_line(&shown, a->o.args.v, a->o.args.n);
	int rc = job_start(a, ws, cmd.v, cmd.n, shown.buf ? shown.buf : "", r->job, e);
	sbuf_free(&shown);
	strvec_clear(&cmd);
	return rc;
}

static int check_command(struct app *a, struct err *e)
{
	if (a->o.exec.background && a->o.exec.interactive)
		return err_set(e, ERR_USAGE, "a background job reads no input: --background does not go with -i");
	if (a->o.exec.reset && !a->o.exec.session)
		return err_set(e, ERR_USAGE, "--reset goes with --session NAME");
	/* The session's script keeps its own variables under this prefix. */
	for (size_t i = 0; a->o.exec.session && i < a->cfg.env.n; i++)
		if (strncmp(a->cfg.env.v[i], "_sandbox_", 9) == 0)
			return err_set(e, ERR_USAGE, "variable %.*s: a name that starts with _sandbox_ "
				       "is the session's own; choose another",
				       (int)strcspn(a->cfg.env.v[i], "="), a->cfg.env.v[i]);
	if (a->o.exec.shell && a->o.args.n)
		return err_set(e, ERR_USAGE, "give either -c TEXT or a command after --, not both");
	if (!a->o.exec.shell && !a->o.args.n)
		return err_set(e, ERR_USAGE, "no command: give one after --, or shell text with -c");
	return 0;
}

static void result_begin(struct app *a, struct exec_result *r)
{
	*r = (struct exec_result){.cmd = a->cmd, .workspace = a->ws_name,
				  .timeout = a->cfg.timeout};
}

int do_exec(struct app *a, struct exec_result *r, struct err *e)
{
	result_begin(a, r);
	if (check_command(a, e) < 0)
		return -1;
	struct ws ws;
	if (ws_select(a, &ws, e) < 0)
		return -1;
	int rc = a->o.exec.background ? background_in(a, &ws, r, e) : exec_in(a, &ws, r, e);
	ws_free(&ws);
	return rc < 0 ? -1 : r->status;
}

int do_run(struct app *a, struct exec_result *r, struct err *e)
{
	result_begin(a, r);
	if (check_command(a, e) < 0)
		return -1;
	struct ws ws;
	if (ws_create(a, &ws, e) < 0) {
		if (e->kind == ERR_FAILED)
			e->kind = ERR_WORKSPACE;
		return -1;
	}
	snprintf(a->ws_name, sizeof(a->ws_name), "%s", ws.name);
	r->removed = true;
	int rc = -1;
	if (spawn_interrupted)
		err_set(e, ERR_INTERRUPTED, "interrupted; the workspace is removed");
	else
		rc = exec_in(a, &ws, r, e);
	/* Whatever happened, nothing is left behind: a signal that arrived
	 * meanwhile must not stop the removal. */
	int outer = spawn_grace_begin();
	if (ws_remove(a, ws.id, &r->not_removed) < 0)
		r->removed = false;
	ws_forget(a, ws.name);
	spawn_grace_end(outer);
	ws_free(&ws);
	return rc < 0 ? -1 : r->status;
}
