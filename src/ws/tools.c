/* tools.c: see tools.h. */
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

#define TOOL_ERR_MAX 2048
#define TOOL_HEAD_MAX 4096

static int tool_sink(void *ctx, int stream, const char *buf, size_t n)
{
	struct tool_out *out = ctx;
	if (stream == 2) {
		size_t room = out->err.len < TOOL_ERR_MAX ? TOOL_ERR_MAX - out->err.len : 0;
		sbuf_add(&out->err, buf, n < room ? n : room);
		return 0;
	}
	if (out->stopped)
		return -1;
	if (!out->have_head) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		if (out->head.len + take <= TOOL_HEAD_MAX)
			sbuf_add(&out->head, buf, take);
		if (!nl)
			return 0;
		out->have_head = true;
		n -= take + 1;
		buf = nl + 1;
	}
	if (n && out->body && out->body(out->ctx, buf, n) < 0) {
		out->stopped = true;
		return -1;
	}
	return 0;
}

int tool_run(struct app *a, struct ws *ws, enum proto_script script, char *const *args,
	     size_t nargs, struct feed *feed, bool direct, struct tool_out *out, struct err *e)
{
	struct exec_req rq = {
		.engine = a->engine, .envp = a->envp.v,
		.env = a->cfg.env.v, .nenv = a->cfg.env.n,
		.secrets = out->secrets ? a->secrets.v : NULL, .nsecrets = out->secrets ? a->secrets.n : 0,
		.script = script, .cmd = args, .ncmd = nargs, .cwd = out->cwd, .own_exec = out->own_exec, .lone = out->lone,
		.timeout = out->timeout > 0 ? out->timeout : ws_step_timeout(a),
		.feed = feed, .interactive = direct, .sink = {tool_sink, out},
	};
	struct exec_res res;
	int rc = ws_exec(a, ws, &rq, &res, e);
	if (rc < 0)
		return -1;
	sbuf_free(&res.engine_err);
	switch (res.outcome) {
	case EXEC_DONE:
		break;
	case EXEC_PIPE:
		if (out->stopped)
			return 0;
		return err_set(e, ERR_FAILED, "cannot write the output");
	case EXEC_TIMED_OUT:
		out->timed_out = true;
		return err_set(e, ERR_FAILED, "timed out after %gs; %s", rq.timeout,
			       exec_kill_says(res.kill));
	case EXEC_INTERRUPTED:
		return err_set(e, ERR_INTERRUPTED, "interrupted; %s", exec_kill_says(res.kill));
	case EXEC_CANCELLED:
		return err_set(e, ERR_INTERRUPTED, "cancelled; %s", exec_kill_says(res.kill));
	case EXEC_NO_CWD:
		if (out->cwd)
			return err_set(e, ERR_USAGE, "%s: no such directory in the workspace", out->cwd);
		return err_set(e, ERR_WORKSPACE, "cannot enter or create the workdir %s in the workspace",
			       ws->workdir ? ws->workdir : "");
	default:
		return err_set(e, ERR_WORKSPACE, "the workspace stopped during the call");
	}
	if (res.status != 0 || !out->have_head) {
		sbuf_rtrim(&out->err);
		for (size_t i = 0; i < out->err.len; i++)
			if (out->err.buf[i] == '\n')
				out->err.buf[i] = ' ';
		/* sh, or a utility the script needs, is missing or broken. */
		return err_set(e, ERR_WORKSPACE, "the in-container script failed (status %d)%s%s",
			       res.status, out->err.len ? ": " : "", out->err.len ? out->err.buf : "");
	}
	return 0;
}

void tool_out_free(struct tool_out *out)
{
	sbuf_free(&out->head);
	sbuf_free(&out->err);
}

static const struct {
	const char *why, *text;
} refusals[] = {
	{"notfound", "no such file or directory"},
	{"isdir", "is a directory"},
	{"notdir", "not a directory"},
	{"notfile", "not a regular file"},
	{"denied", "permission denied"},
	{"mkdir", "cannot create its directory"},
	{"nospace", "the write failed (is the disk full?); the file is unchanged"},
	{"input", "the input was cut short; the file is unchanged"},
	{"changed", "the file changed since it was read; read it again"},
	{"rename", "cannot replace it; the file is unchanged"},
	{"badlink", "a symbolic link whose target cannot be resolved; give the target's path"},
	{"nosha", "the image has no sha256sum, which edit needs to see that the file did not change"},
};

int tool_refusal(const char *head, const char *path, struct err *e)
{
	if (strncmp(head, "E ", 2) != 0)
		return 0;
	struct sbuf shown = {0};
	tool_show_path(&shown, path, false);
	/* A path of thousands of bytes would push the reason out of the
	 * message: keep its two ends. */
	if (shown.len > 300) {
		struct sbuf cut = {0};
		sbuf_add(&cut, shown.buf, 150);
		sbuf_adds(&cut, "...");
		sbuf_add(&cut, shown.buf + shown.len - 100, 100);
		sbuf_free(&shown);
		shown = cut;
	}
	const char *text = NULL;
	for (size_t i = 0; i < ARRAY_LEN(refusals); i++)
		if (strcmp(head + 2, refusals[i].why) == 0)
			text = refusals[i].text;
	err_set(e, ERR_FAILED, "%s: %s", shown.buf, text ? text : head + 2);
	sbuf_free(&shown);
	return -1;
}

char *tool_arg_path(const char *path, struct err *e)
{
	if (!*path) {
		err_set(e, ERR_USAGE, "the path is empty");
		return NULL;
	}
	return path[0] == '-' ? xasprintf("./%s", path) : xstrdup(path);
}
