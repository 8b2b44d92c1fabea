/* cmd_exec.c: `exec` (a command in a workspace, created on first use when
 * none is named) and `run` (create, exec, destroy, whatever happens);
 * with a terminal, `exec -t` and `shell`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "capture.h"
#include "engine.h"
#include "exec.h"
#include "opt_id.h"
#include "results.h"
#include "scripts.h"
#include "spawn.h"
#include "utf8.h"
#include "workspace.h"

/* Text mode: output goes out live, as it comes. */
static int write_live(void *ctx, int stream, const char *buf, size_t n)
{
	(void)ctx;
	return spawn_write_out(stream, buf, n);
}

/* --json: each stream kept, head and tail; with secrets, redacted as it
 * comes (redact.h), before the cut can split one. */
struct captures {
	struct capture out, err;
	struct redact_stream rs[2];
};

static int write_captured(void *ctx, int stream, const char *buf, size_t n)
{
	struct captures *c = ctx;
	struct capture *to = stream == 1 ? &c->out : &c->err;
	if (!c->rs[stream - 1].set) {
		capture_add(to, buf, n);
		return 0;
	}
	struct sbuf red = {0};
	redact_stream_feed(&c->rs[stream - 1], buf, n, &red);
	if (red.len)
		capture_add(to, red.buf, red.len);
	sbuf_free(&red);
	return 0;
}

static void captures_end(struct captures *c)
{
	for (int i = 0; i < 2; i++) {
		if (!c->rs[i].set)
			continue;
		struct sbuf red = {0};
		redact_stream_end(&c->rs[i], &red);
		if (red.len)
			capture_add(i == 0 ? &c->out : &c->err, red.buf, red.len);
		sbuf_free(&red);
	}
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

/* SCRIPT_SESSION and its arguments up to the command, which the
 * caller pushes: KIND as scripts.h says it. */
static void session_head(const struct app *a, const char *kind, struct strvec *cmd)
{
	const struct exec_opts *o = &a->o.exec;
	strvec_push(cmd, "sh");
	strvec_push(cmd, "-c");
	strvec_push(cmd, SCRIPT_SESSION);
	strvec_push(cmd, "sh"); /* $0, as its messages say it, as sh -c's would */
	strvec_push(cmd, o->reset ? "1" : "0");
	strvec_push(cmd, o->cwd ? "0" : "1");
	strvec_push(cmd, kind);
	strvec_push(cmd, o->session);
	strvec_pushf(cmd, "%zu", a->cfg.env.n);
	strvec_push_all(cmd, a->cfg.env.v, a->cfg.env.n);
}

/* A session's call: SCRIPT_SESSION restores the session, exports the
 * call's own variables over it, runs the command and saves the session.
 * A background job's (KIND b) only starts from it: its shell text goes
 * as sh -c TEXT. */
static void session_command(const struct app *a, struct strvec *cmd)
{
	const struct exec_opts *o = &a->o.exec;
	session_head(a, o->background ? "b" : o->shell ? "c" : "a", cmd);
	if (o->shell && o->background) {
		strvec_push(cmd, "sh");
		strvec_push(cmd, "-c");
	}
	if (o->shell)
		strvec_push(cmd, o->shell);
	else
		strvec_push_all(cmd, a->o.args.v, a->o.args.n);
}

/* The command an exec runs: a session's, sh -c TEXT, or the arguments. */
static void command_of(const struct app *a, struct strvec *cmd)
{
	if (a->o.exec.session) {
		session_command(a, cmd);
	} else if (a->o.exec.shell) {
		strvec_push(cmd, "sh");
		strvec_push(cmd, "-c");
		strvec_push(cmd, a->o.exec.shell);
	} else {
		strvec_push_all(cmd, a->o.args.v, a->o.args.n);
	}
}

/* The wrapper found no --cwd, or could not make the workdir. */
static int no_cwd(const struct app *a, const struct ws *ws, struct err *e)
{
	if (a->o.exec.cwd)
		return err_set(e, ERR_USAGE, "%s %s: no such directory in the workspace",
			       opt_say(a, O_CWD), a->o.exec.cwd);
	return err_set(e, ERR_WORKSPACE, "cannot enter or create the workdir %s in the workspace",
		       ws->workdir ? ws->workdir : "");
}

/* Builds the request from the options and runs it in ws: r is filled
 * when it returns 0. */
static int exec_in(struct app *a, struct ws *ws, struct exec_result *r, struct err *e)
{
	struct strvec cmd = {0};
	command_of(a, &cmd);
	struct captures cap = {0};
	capture_init(&cap.out, (size_t)a->cfg.max_output);
	capture_init(&cap.err, (size_t)a->cfg.max_output);
	if (!redact_empty(&a->redact))
		cap.rs[0].set = cap.rs[1].set = &a->redact;
	struct exec_req rq = {
		.engine = a->engine, .envp = a->envp.v,
		.env = a->cfg.env.v, .nenv = a->cfg.env.n,
		.secrets = a->secrets.v, .nsecrets = a->secrets.n,
		.cwd = a->o.exec.cwd, .cmd = cmd.v, .ncmd = cmd.n,
		.interactive = a->o.exec.interactive, .timeout = a->cfg.timeout,
		.sink = a->json ? (struct exec_sink){write_captured, &cap}
				: (struct exec_sink){write_live, NULL},
	};
	int rc = ws_exec(a, ws, &rq, &r->res, e);
	captures_end(&cap);
	if (rc == 0 && r->res.outcome == EXEC_CANCELLED)
		rc = err_set(e, ERR_INTERRUPTED, "cancelled; %s", exec_kill_says(r->res.kill));
	else if (rc == 0 && r->res.outcome == EXEC_NO_CWD)
		rc = no_cwd(a, ws, e);
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
	command_of(a, &cmd);
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

/* The session's script keeps its own variables under this prefix. */
static int check_session_env(const struct app *a, struct err *e)
{
	for (size_t i = 0; a->o.exec.session && i < a->cfg.env.n; i++)
		if (strncmp(a->cfg.env.v[i], "_sandbox_", 9) == 0)
			return err_set(e, ERR_USAGE, "variable %.*s: a name that starts with _sandbox_ "
				       "is the session's own; choose another",
				       (int)strcspn(a->cfg.env.v[i], "="), a->cfg.env.v[i]);
	return 0;
}

static int check_command(struct app *a, struct err *e)
{
	if (a->o.exec.background && a->o.exec.interactive)
		return err_set(e, ERR_USAGE, "a background job reads no input: --background does not go with -i");
	if (a->o.exec.reset && !a->o.exec.session)
		return err_set(e, ERR_USAGE, "--reset goes with --session NAME");
	if (check_session_env(a, e) < 0)
		return -1;
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

static int exec_tty(struct app *a, struct err *e);

int do_exec(struct app *a, struct exec_result *r, struct err *e)
{
	result_begin(a, r);
	/* -t: the terminal showed it all; the status is the result. */
	if (a->o.exec.tty) {
		r->status = exec_tty(a, e);
		return r->status;
	}
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
	if (ws_create(a, &ws, WS_BRIEF, e) < 0) {
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
	 * meanwhile must not stop the removal. One from a pool whose command
	 * ended goes in the background: its status is known, and the caller
	 * need not wait for the kill and the removal. */
	int outer = spawn_grace_begin();
	bool later = ws.pooled && rc >= 0 && ws_remove_detached(a, ws.id) == 0;
	if (!later && ws_remove(a, ws.id, &r->not_removed) < 0)
		r->removed = false;
	ws_forget(a, ws.name);
	spawn_grace_end(outer);
	ws_free(&ws);
	return rc < 0 ? -1 : r->status;
}

/* ---- With a terminal: exec -t and shell ----
 * The engine client gets our terminal as it is (stdin, stdout and
 * stderr inherited): the engine makes a terminal in the container, joins
 * it to ours, sizes it and follows the window's changes itself. Nothing
 * goes through us, so there are no markers to read (a terminal would
 * mangle them): the status is the client's, which docker and podman exec
 * make the command's (126, 127 when it could not run). Before the
 * terminal is handed over, a plain call of `true` finds the workspace
 * (started, or checked again when the cache was stale) and --cwd, so
 * that those failures are said as exec says them. No timeout: a person
 * is there, with Ctrl-C. */

static int discard(void *ctx, int stream, const char *buf, size_t n)
{
	(void)ctx, (void)stream, (void)buf, (void)n;
	return 0;
}

static int tty_probe(struct app *a, struct ws *ws, struct err *e)
{
	char *cmd[] = {"true"};
	struct exec_res res;
	struct exec_req rq = {
		.engine = a->engine, .envp = a->envp.v,
		.cwd = a->o.exec.cwd, .cmd = cmd, .ncmd = 1,
		.timeout = a->cfg.engine_timeout, .sink = {discard, NULL},
	};
	int rc = ws_exec(a, ws, &rq, &res, e);
	if (rc < 0)
		return -1;
	sbuf_free(&res.engine_err);
	switch (res.outcome) {
	case EXEC_DONE:
		if (res.status == 0)
			return 0;
		return err_set(e, ERR_WORKSPACE, "the workspace does not run commands (true exited %d)",
			       res.status);
	case EXEC_NO_CWD: return no_cwd(a, ws, e);
	case EXEC_INTERRUPTED: return err_set(e, ERR_INTERRUPTED, "interrupted");
	case EXEC_TIMED_OUT:
		return err_set(e, ERR_WORKSPACE, "the workspace did not answer within %gs (engine_timeout)",
			       a->cfg.engine_timeout);
	default: return err_set(e, ERR_WORKSPACE, "the workspace could not run a command");
	}
}

/* The engine carries the command line as JSON: only UTF-8 gets there
 * whole, and with no wrapper of ours to decode it, nothing else goes.
 * SANDBOX_TTY is the terminal's tag (SCRIPT_TTY). */
static int check_values(const struct app *a, struct err *e)
{
	const struct exec_opts *o = &a->o.exec;
	bool ok = (!o->cwd || utf8_valid(o->cwd)) && (!o->shell || utf8_valid(o->shell));
	for (size_t i = 0; ok && i < a->o.args.n; i++)
		ok = utf8_valid(a->o.args.v[i]);
	for (size_t i = 0; ok && i < a->cfg.env.n; i++)
		ok = utf8_valid(a->cfg.env.v[i]);
	if (!ok)
		return err_set(e, ERR_USAGE, "with a terminal, the command line, --cwd and the "
			       "variables must be UTF-8 text; run it without one");
	for (size_t i = 0; i < a->cfg.env.n; i++)
		if (strncmp(a->cfg.env.v[i], "SANDBOX_TTY=", 12) == 0)
			return err_set(e, ERR_USAGE, "variable SANDBOX_TTY: with a terminal, it is "
				       "sandbox's own; choose another name");
	return 0;
}

/* Last of the checks, so that nothing has started when it refuses. */
static int check_terminal(const struct app *a, struct err *e)
{
	if (isatty(0))
		return 0;
	if (a->o.exec.tty)
		return err_set(e, ERR_USAGE, "-t needs a terminal on stdin, and stdin is not one; "
			       "run it from a terminal, or without -t");
	return err_set(e, ERR_USAGE, "stdin is not a terminal; run sandbox shell from one, "
		       "or give the commands to sandbox exec");
}

/* sandbox was stopped while the client ran: what it started is stopped
 * in the workspace too, by its tag (the engines leave it running), even
 * though we are interrupted. Best effort: the message says so. */
static int tty_kill(struct app *a, const struct ws *ws, const char *tag)
{
	int outer = spawn_grace_begin();
	struct strvec argv = {0};
	struct err ignored = {0};
	char *cmd[] = {"/bin/sh", "-c", (char *)SCRIPT_TTY_KILL, "sh", (char *)tag};
	engine_exec_argv(&argv, a->engine, ws->id, NULL, 0, false, cmd, ARRAY_LEN(cmd));
	int rc = ws_engine_call(a, &argv, NULL, "kill", ERR_WORKSPACE, NULL, &ignored);
	spawn_grace_end(outer);
	return rc;
}

/* Runs inner in ws, from the workdir or --cwd, on our terminal. */
static int tty_run(struct app *a, const struct ws *ws, const struct strvec *inner,
		   struct err *e)
{
	const char *cwd = a->o.exec.cwd;
	/* A Ctrl-C during the check must not be lost: what follows ignores it. */
	if (spawn_stopping())
		return err_set(e, ERR_INTERRUPTED, "interrupted");
	char tag[17];
	if (random_hex(tag, 16) < 0)
		return err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
	tag[16] = '\0';
	struct strvec cmd = {0}, argv = {0};
	strvec_push(&cmd, "/bin/sh");
	strvec_push(&cmd, "-c");
	strvec_push(&cmd, SCRIPT_TTY);
	strvec_push(&cmd, "sh");
	strvec_push(&cmd, ws->workdir ? ws->workdir : "");
	/* A leading '-' would make cd read an option. */
	strvec_pushf(&cmd, "%s%s", cwd && cwd[0] == '-' ? "./" : "", cwd ? cwd : "");
	strvec_push(&cmd, tag);
	strvec_push_all(&cmd, inner->v, inner->n);
	/* The secrets by name: the engine takes their values from its own
	 * environment, and no argument vector holds them. */
	struct strvec env = {0}, envp = {0};
	strvec_push_all(&env, a->cfg.env.v, a->cfg.env.n);
	exec_secrets_by_name(strvec_argv(&a->envp), a->secrets.v, a->secrets.n, &env, &envp);
	engine_exec_tty_argv(&argv, a->engine, ws->id, env.v, env.n, cmd.v, cmd.n);
	int stopped_by = 0;
	int status = proc_run_tty(strvec_argv(&argv), strvec_argv(&envp), &stopped_by, e);
	strvec_clear(&env);
	strvec_clear(&envp);
	if (stopped_by)
		status = err_set(e, ERR_INTERRUPTED, "interrupted; %s",
				 tty_kill(a, ws, tag) == 0
				 ? "what the terminal ran in the workspace was stopped"
				 : "what the terminal ran may still run in the workspace");
	strvec_clear(&argv);
	strvec_clear(&cmd);
	return status;
}

static int tty_in_workspace(struct app *a, const struct strvec *inner, struct err *e)
{
	struct ws ws;
	if (ws_select(a, &ws, e) < 0)
		return -1;
	int rc = tty_probe(a, &ws, e);
	if (rc == 0)
		rc = tty_run(a, &ws, inner, e);
	ws_free(&ws);
	return rc;
}

/* exec -t: the command as exec runs it (from its session, which it
 * saves), with a terminal: its status, the result's; there is nothing
 * else to show, the terminal showed it all. */
static int exec_tty(struct app *a, struct err *e)
{
	const struct exec_opts *o = &a->o.exec;
	if (a->json)
		return err_set(e, ERR_USAGE, "-t does not go with --json: a command with a terminal "
			       "has no result but what the terminal shows");
	if (o->background)
		return err_set(e, ERR_USAGE, "-t does not go with --background: a background job has no terminal");
	if (a->o.timeout_given)
		return err_set(e, ERR_USAGE, "-t does not go with --timeout: a command with a terminal "
			       "runs until it ends; run timeout(1) in the workspace for a limit");
	if (check_command(a, e) < 0 || check_values(a, e) < 0 || check_terminal(a, e) < 0)
		return -1;
	struct strvec inner = {0};
	command_of(a, &inner);
	int rc = tty_in_workspace(a, &inner, e);
	strvec_clear(&inner);
	return rc;
}

/* shell: bash, else sh, from the session when one is named. The shell
 * is the command there (KIND b: started from the session, which it
 * replaces): what it changes is its own, and the session keeps nothing
 * of it. */
int cmd_shell(struct app *a, struct err *e)
{
	if (a->json)
		return err_set(e, ERR_USAGE, "a shell has no JSON result: drop --json");
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "the shell takes no command; run one with sandbox exec -t");
	if (check_session_env(a, e) < 0 || check_values(a, e) < 0 || check_terminal(a, e) < 0)
		return -1;
	struct strvec inner = {0};
	if (a->o.exec.session)
		session_head(a, "b", &inner);
	strvec_push(&inner, "/bin/sh");
	strvec_push(&inner, "-c");
	strvec_push(&inner, SCRIPT_SHELL);
	strvec_push(&inner, "sh");
	int rc = tty_in_workspace(a, &inner, e);
	strvec_clear(&inner);
	return rc;
}
