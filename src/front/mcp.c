/* mcp.c: `sandbox mcp`, the ten tools as a Model Context Protocol server:
 * newline-delimited JSON-RPC 2.0 on stdin and stdout, logs on stderr.
 * A tools/call runs the same command function as the CLI, in JSON mode,
 * into a buffer: structuredContent is exactly the CLI's --json object, and
 * the text for the model is made from it. Calls are served one after the
 * other, over one persistent channel into the workspace (chan.h), from
 * one poll loop: while a call runs, the loop drives its commands (exec.h's
 * state machine) and still reads the input, for pings and cancellation. */
/* memmem: POSIX only since 2024. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "chan.h"
#include "exec.h"
#include "json.h"
#include "jsonr.h"
#include "jvb.h"
#include "mcp_result.h"
#include "opts.h"
#include "results.h"
#include "spawn.h"
#include "version.h"
#include "workspace.h"

#define MCP_LINE_MAX JV_DEFAULT_MAX_SIZE
/* Input held while a call runs (the requests after it, waiting their
 * turn): past this, stdin is not read until the call ends, and the
 * client waits. */
#define MCP_HELD_MAX (MCP_LINE_MAX + (1 << 20))
#define MCP_DEFAULT_TIMEOUT 120.0

/* JSON-RPC 2.0 error codes. */
enum { RPC_PARSE = -32700, RPC_INVALID = -32600, RPC_NO_METHOD = -32601, RPC_PARAMS = -32602 };

/* Newest first: the answer when the client asks for one we do not know. */
static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

/* The server's state: its input, the call in progress, the workspace. */
/* The client's name, as its initialize said it, for the history. */
static char client_name[64];

struct server {
	struct app *base;
	struct sbuf in;     /* bytes read and not yet taken as lines */
	size_t in_off;      /* the start of the next line in it */
	size_t scan_off;    /* how far a running call's lines were looked at */
	bool eof, skipping;
	struct sbuf call_id; /* the running call's id, as JSON */
	bool cancelled;
	struct ws pin;
	bool pinned;
	char *ref;          /* the workspace, once known (owned) */
	struct chan chan;
	char session[32];   /* exec's session when a call names none */
};

/* ---- output ---- */

static bool send_line(struct sbuf *msg)
{
	sbuf_addc(msg, '\n');
	return write_all(1, msg->buf, msg->len) == 0;
}

static void reply(const char *id, const struct sbuf *result)
{
	struct sbuf m = {0};
	sbuf_addf(&m, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%.*s}", id, (int)result->len,
		  result->buf);
	send_line(&m);
	sbuf_free(&m);
}

static void reply_error(const char *id, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void reply_error(const char *id, int code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct sbuf m = {0};
	sbuf_addf(&m, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,\"message\":",
		  id ? id : "null", code);
	json_quote(&m, msg, strlen(msg));
	sbuf_adds(&m, "}}");
	send_line(&m);
	sbuf_free(&m);
}

static void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sandbox mcp: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- input ---- */

/* One read from stdin into the buffer. */
static void fill(struct server *s)
{
	char buf[65536];
	ssize_t r = read(0, buf, sizeof(buf));
	if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
		s->eof = true;
	else if (r > 0)
		sbuf_add(&s->in, buf, (size_t)r);
}

/* The next whole line, copied into line; false when none is complete. A
 * line over MCP_LINE_MAX is skipped, and answered as such. */
static bool next_line(struct server *s, struct sbuf *line)
{
	for (;;) {
		const char *start = s->in.buf + s->in_off;
		size_t avail = s->in.len - s->in_off;
		const char *nl = avail ? memchr(start, '\n', avail) : NULL;
		if (!nl) {
			if (avail > MCP_LINE_MAX) {
				s->skipping = true;
				s->in_off = s->in.len;
			}
			if (s->in_off > 0) {
				memmove(s->in.buf, s->in.buf + s->in_off, s->in.len - s->in_off);
				s->in.len -= s->in_off;
				s->scan_off = s->scan_off > s->in_off ? s->scan_off - s->in_off : 0;
				s->in_off = 0;
			}
			return false;
		}
		size_t n = (size_t)(nl - start);
		s->in_off += n + 1;
		if (s->skipping) {
			s->skipping = false;
			reply_error(NULL, RPC_PARSE, "message over %zu bytes", (size_t)MCP_LINE_MAX);
			continue;
		}
		sbuf_reset(line);
		sbuf_add(line, start, n);
		return true;
	}
}

/* The id of a request as JSON, for the answer; false when it is not a
 * string or an integer. */
static bool id_json(const struct jv *id, struct sbuf *out)
{
	size_t len;
	const char *s = jv_strn(id, &len);
	if (s) {
		json_quote(out, s, len);
		return true;
	}
	long long i;
	if (jv_int(id, &i)) {
		sbuf_addf(out, "%lld", i);
		return true;
	}
	return false;
}

/* Is this line a cancellation of the request with this id (as JSON)? */
static bool cancels(const char *line, size_t len, const char *id)
{
	if (!memmem(line, len, "notifications/cancelled", 23))
		return false;
	struct jv *v = jv_parse(line, len, NULL, NULL, 0);
	const char *method = jv_str(jv_get(v, "method"));
	struct sbuf rid = {0};
	bool yes = method && strcmp(method, "notifications/cancelled") == 0 &&
		   id_json(jv_get(jv_get(v, "params"), "requestId"), &rid) && strcmp(rid.buf, id) == 0;
	sbuf_free(&rid);
	jv_free(v);
	return yes;
}

/* Calls fn on each whole line not yet handled, from *off on, until it
 * returns true; the line's bytes may be changed. */
static bool each_line(struct server *s, size_t *off, bool (*fn)(struct server *, char *, size_t))
{
	for (;;) {
		char *start = s->in.buf + *off;
		char *nl = memchr(start, '\n', s->in.len - *off);
		if (!nl)
			return false;
		*off += (size_t)(nl - start) + 1;
		if (fn(s, start, (size_t)(nl - start)))
			return true;
	}
}

static bool cancels_call(struct server *s, char *line, size_t len)
{
	return cancels(line, len, s->call_id.buf);
}

/* Whether a request is cancelled by a line that came after it. */
static bool cancelled_ahead(struct server *s, const char *id)
{
	sbuf_reset(&s->call_id);
	sbuf_adds(&s->call_id, id);
	size_t off = s->in_off;
	return each_line(s, &off, cancels_call);
}

static void request(struct server *s, const char *id, const char *method,
		    const struct jv *params);

/* While a call runs: a ping or a tools/list is answered at once (MCP
 * wants a ping prompt; neither depends on the call), and its line
 * blanked, so that the main loop passes over it; the call's cancellation
 * cancels it. Other lines wait their turn. */
static bool early_line(struct server *s, char *line, size_t len)
{
	if (cancels(line, len, s->call_id.buf)) {
		s->cancelled = true;
		return false;
	}
	if (!memmem(line, len, "\"ping\"", 6) && !memmem(line, len, "\"tools/list\"", 12))
		return false;
	struct jv *v = jv_parse(line, len, NULL, NULL, 0);
	const char *method = jv_str(jv_get(v, "method"));
	const char *version = jv_str(jv_get(v, "jsonrpc"));
	struct sbuf id = {0};
	if (method && (strcmp(method, "ping") == 0 || strcmp(method, "tools/list") == 0) &&
	    version && strcmp(version, "2.0") == 0 && id_json(jv_get(v, "id"), &id)) {
		request(s, id.buf, method, jv_get(v, "params"));
		memset(line, ' ', len);
	}
	sbuf_free(&id);
	jv_free(v);
	return false;
}

/* ---- the loop ---- */

/* One round of the server's only poll loop: its input, the signal fd,
 * and, while a call runs, the call's own fds (xfd, from exec_next). The
 * input is read as it comes; while a call runs, its new whole lines are
 * looked at at once (early_line): pings and tools/list answered, the
 * call's cancellation cancels it. The end of input cancels nothing:
 * what came before it is still served. */
static void serve_round(struct server *s, struct exec *x, const struct pollfd *xfd, int wait)
{
	struct pollfd pfd[EXEC_NFDS + 2];
	int n = 0;
	if (x) {
		memcpy(pfd, xfd, EXEC_NFDS * sizeof(*pfd));
		n = EXEC_NFDS;
	}
	bool watch = !s->eof && !(x && s->in.len - s->in_off >= MCP_HELD_MAX);
	pfd[n] = (struct pollfd){watch ? 0 : -1, POLLIN, 0};
	pfd[n + 1] = (struct pollfd){spawn_signal_fd(), POLLIN, 0};
	if (poll(pfd, (nfds_t)n + 2, wait) < 0)
		return; /* EINTR: the caller looks at the signal flag */
	if (pfd[n + 1].revents) {
		spawn_signal_drain();
		return; /* so does it here */
	}
	if (pfd[n].revents) {
		fill(s);
		if (x && !s->eof) {
			if (s->scan_off < s->in_off)
				s->scan_off = s->in_off;
			each_line(s, &s->scan_off, early_line);
			if (s->cancelled)
				exec_cancel(x);
		}
	}
	if (x)
		exec_step(x, pfd);
}

/* The exec_loop of a call's commands: this server's loop drives them.
 * A cancellation that came during one command of a tool also stops its
 * next ones. */
static void drive_call(void *ctx, struct exec *x)
{
	struct server *s = ctx;
	if (s->cancelled)
		exec_cancel(x);
	struct pollfd xfd[EXEC_NFDS];
	int wait;
	while (exec_next(x, xfd, &wait))
		serve_round(s, x, xfd, wait);
}

/* ---- the workspace ---- */

/* The workspace of the calls: attached (-w) or made on the first call,
 * with the server's own settings (not a call's timeout: the setup
 * command runs under the server's). Kept as s->pin, so that a call costs
 * no inspect. */
static int pin_workspace(struct server *s, struct err *e)
{
	if (s->pinned)
		return 0;
	struct app *a = s->base;
	if (a->ref) {
		if (ws_attach(a, a->ref, true, &s->pin, e) < 0)
			return -1;
	} else {
		if (ws_create(a, &s->pin, WS_BY_THE_WAY, e) < 0) {
			if (e->kind == ERR_FAILED)
				e->kind = ERR_WORKSPACE;
			return -1;
		}
		a->ref = s->ref = xstrdup(s->pin.name);
		log_msg("workspace %s (created)", s->ref);
	}
	if (!s->ref) {
		s->ref = xstrdup(s->pin.name);
		log_msg("workspace %s", s->ref);
	}
	s->pinned = true;
	a->ws_pin = &s->pin;
	return 0;
}

/* After a call that found the workspace gone or replaced: look it up by
 * name again next time. */
static void unpin_if_lost(struct server *s, const struct err *e, int rc)
{
	if (rc < 0 && e->kind == ERR_WORKSPACE && s->pinned) {
		ws_free(&s->pin);
		s->pinned = false;
		s->base->ws_pin = NULL;
	}
}

static void finish(struct server *s)
{
	chan_close(&s->chan);
	if (!s->ref)
		return;
	if (!s->base->o.mcp.rm) {
		log_msg("workspace %s kept; remove it with 'sandbox destroy %s'", s->ref, s->ref);
		return;
	}
	int outer = spawn_grace_begin();
	struct err e = {0};
	if (ws_remove(s->base, s->pinned ? s->pin.id : s->ref, &e) < 0)
		log_msg("%s; remove it with 'sandbox destroy %s'", e.msg, s->ref);
	else
		log_msg("removed workspace %s", s->ref);
	ws_forget(s->base, s->ref);
	spawn_grace_end(outer);
}

/* ---- requests ---- */

/* A call: the server's app, with options of its own and the config keys
 * a tool's arguments set (call_release frees them); the rest (engine,
 * envp) is shared, read only. -1 with e set when an argument is refused (c is still to
 * release). */
static int call_prepare(struct app *c, const struct server *s, const struct command *t,
			const struct jv *args, struct err *e)
{
	*c = *s->base;
	c->cmd = t->name;
	c->mcp = true;
	c->json = true;
	c->o = (struct opts){0};
	c->created = NULL;
	c->cfg.env = (struct strvec){0};
	strvec_push_all(&c->cfg.env, s->base->cfg.env.v, s->base->cfg.env.n);
	c->ws_name[0] = '\0';
	c->client = client_name;
	c->tool_args = args;
	if (opts_tool_apply(t, c, args, e) < 0)
		return -1;
	/* A server's calls are one terminal's: one session, unless named. */
	if (t->id == C_EXEC && !c->o.exec.session)
		c->o.exec.session = s->session;
	return 0;
}

static void call_release(struct app *c)
{
	opts_free(&c->o);
	strvec_clear(&c->cfg.env);
}

/* Where a call's answer goes (cmd_call's use: answer_result). */
struct answer {
	const struct app *call;
	struct sbuf *res;
};

/* A tool's result as the client gets it: the text for the model, and
 * the tree, both capped (mcp_result). */
static void answer_result(void *ctx, const struct result_type *t, const void *r)
{
	struct answer *an = ctx;
	struct sbuf text = {0};
	struct jv tree = {0};
	t->model(&text, r);
	t->tree(&tree, r);
	mcp_result(an->res, &text, &tree, an->call->output_limit, t->is_error(r));
	jvb_free(&tree);
	sbuf_free(&text);
}

/* Runs the call; its commands are driven by the server's loop
 * (drive_call), which serves the input meanwhile. */
static int call_run(struct server *s, const struct command *t, struct app *c,
		    struct sbuf *res, struct err *e)
{
	s->scan_off = s->in_off;
	each_line(s, &s->scan_off, early_line); /* pings that came with it */
	struct answer an = {c, res};
	return cmd_call(t, c, answer_result, &an, e);
}

static void call_tool(struct server *s, const char *id, const struct jv *params)
{
	/* Cancelled before its turn came: no work, no answer. */
	if (cancelled_ahead(s, id))
		return;
	s->cancelled = false;
	const char *name = jv_str(jv_get(params, "name"));
	const struct command *t = name ? cmd_find_tool(name) : NULL;
	if (!t) {
		reply_error(id, RPC_PARAMS, "unknown tool%s%s", name ? " " : "", name ? name : "");
		return;
	}
	const struct jv *args = jv_get(params, "arguments");
	struct jv empty = {.type = JV_OBJECT};
	struct err e = {0};
	struct sbuf res = {0};
	/* Bad arguments are the tool's error, which the model reads and can
	 * correct (MCP 2025-11-25), not the protocol's. */
	if (opts_tool_check(t, args ? args : &empty, &e) < 0) {
		mcp_error_result(&res, &e, s->ref);
	} else if (pin_workspace(s, &e) < 0) {
		mcp_error_result(&res, &e, s->ref);
	} else {
		struct app c;
		int rc = call_prepare(&c, s, t, args ? args : &empty, &e);
		if (rc == 0) {
			rc = call_run(s, t, &c, &res, &e);
			unpin_if_lost(s, &e, rc);
		}
		if (rc < 0) {
			sbuf_reset(&res);
			mcp_error_result(&res, &e, s->ref);
		}
		call_release(&c);
	}
	/* A cancelled request gets no answer (MCP: cancellation). */
	if (!s->cancelled)
		reply(id, &res);
	sbuf_free(&res);
}

static void initialize(const char *id, const struct jv *params)
{
	const char *name = jv_str(jv_get(jv_get(params, "clientInfo"), "name"));
	size_t n = 0;
	for (; name && name[n] && n + 1 < sizeof(client_name); n++)
		client_name[n] = (unsigned char)name[n] < 0x20 || name[n] == 0x7f ? '?' : name[n];
	client_name[n] = '\0';
	const char *asked = jv_str(jv_get(params, "protocolVersion"));
	const char *version = versions[0];
	for (size_t i = 0; asked && i < ARRAY_LEN(versions); i++)
		if (strcmp(asked, versions[i]) == 0)
			version = versions[i];
	struct json j = {0};
	json_obj_open(&j);
	json_key(&j, "protocolVersion");
	json_str(&j, version);
	json_key(&j, "capabilities");
	json_obj_open(&j);
	json_key(&j, "tools");
	json_obj_open(&j);
	json_key(&j, "listChanged");
	json_bool(&j, false);
	json_obj_close(&j);
	json_obj_close(&j);
	json_key(&j, "serverInfo");
	json_obj_open(&j);
	json_key(&j, "name");
	json_str(&j, "sandbox");
	json_key(&j, "version");
	json_str(&j, SANDBOX_VERSION);
	json_obj_close(&j);
	json_key(&j, "instructions");
	json_str(&j, "An isolated container to work in. exec runs shell commands; read, write, "
		     "edit, glob and grep work on its files; in a copy of a project, diff shows what "
		     "changed since the copy. Paths are container paths; relative ones start at the "
		     "workspace directory.");
	json_obj_close(&j);
	reply(id, &j.out);
	sbuf_free(&j.out);
}

static void list_tools(const char *id, double timeout)
{
	struct json j = {0};
	json_obj_open(&j);
	json_key(&j, "tools");
	opts_tools_list(&j, timeout);
	json_obj_close(&j);
	reply(id, &j.out);
	sbuf_free(&j.out);
}

static void request(struct server *s, const char *id, const char *method, const struct jv *params)
{
	if (params && !jv_is(params, JV_OBJECT)) {
		reply_error(id, RPC_PARAMS, "params must be an object");
	} else if (strcmp(method, "initialize") == 0) {
		initialize(id, params);
	} else if (strcmp(method, "ping") == 0) {
		struct sbuf empty = {0};
		sbuf_adds(&empty, "{}");
		reply(id, &empty);
		sbuf_free(&empty);
	} else if (strcmp(method, "tools/list") == 0) {
		list_tools(id, s->base->cfg.timeout);
	} else if (strcmp(method, "tools/call") == 0) {
		call_tool(s, id, params);
	} else {
		reply_error(id, RPC_NO_METHOD, "method not found: %s", method);
	}
}

static void handle(struct server *s, const struct sbuf *line)
{
	size_t i = 0;
	while (i < line->len && strchr(" \t\r", line->buf[i]))
		i++;
	if (i == line->len)
		return; /* an empty line is no message */
	char why[160];
	struct jv *msg = jv_parse(line->buf, line->len, NULL, why, sizeof(why));
	if (!msg) {
		reply_error(NULL, RPC_PARSE, "parse error: %s", why);
		return;
	}
	const struct jv *idv = jv_get(msg, "id");
	const char *method = jv_str(jv_get(msg, "method"));
	const char *version = jv_str(jv_get(msg, "jsonrpc"));
	struct sbuf id = {0};
	bool id_ok = idv && id_json(idv, &id);
	if (jv_is(msg, JV_ARRAY)) {
		reply_error(NULL, RPC_INVALID, "batches are not supported");
	} else if (!method && (jv_get(msg, "result") || jv_get(msg, "error"))) {
		/* An answer: we send no requests, so there is nothing to do. */
	} else if (!jv_is(msg, JV_OBJECT) || !version || strcmp(version, "2.0") != 0 || !method ||
		   (idv && !id_ok)) {
		reply_error(id_ok ? id.buf : NULL, RPC_INVALID,
			    "not a JSON-RPC 2.0 request: it needs \"jsonrpc\": \"2.0\", a method, and an id that is a string or an integer");
	} else if (id_ok) {
		request(s, id.buf, method, jv_get(msg, "params"));
	}
	/* Notifications (initialized, a late cancellation, ...) need nothing. */
	sbuf_free(&id);
	jv_free(msg);
}

int cmd_mcp(struct app *a, struct err *e)
{
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "mcp takes no arguments; it reads JSON-RPC on stdin");
	a->output_limit = a->o.mcp.output_limit;
	if (a->cfg.timeout == 0)
		a->cfg.timeout = MCP_DEFAULT_TIMEOUT;
	/* Each exec stream keeps under half the text's room, so that both
	 * fit with their markers and the cut of a stream is what shows. */
	a->cfg.max_output = (a->output_limit - 100) / 2;
	struct server s = {.base = a};
	memcpy(s.session, "mcp-", 4);
	if (random_hex(s.session + 4, 16) < 0)
		return err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
	s.session[20] = '\0';
	struct exec_loop loop = {drive_call, &s};
	a->chan = &s.chan;
	a->loop = &loop;
	if (isatty(0))
		log_msg("reading MCP messages (JSON-RPC) on stdin; this is for an agent's MCP config, see man sandbox");
	struct sbuf line = {0};
	while (!spawn_stopping()) {
		if (next_line(&s, &line)) {
			handle(&s, &line);
			continue;
		}
		if (s.eof)
			break;
		serve_round(&s, NULL, NULL, -1);
	}
	finish(&s);
	a->chan = NULL;
	a->loop = NULL;
	a->ws_pin = NULL;
	if (a->ref == s.ref)
		a->ref = NULL;
	if (s.pinned)
		ws_free(&s.pin);
	free(s.ref);
	sbuf_free(&line);
	sbuf_free(&s.in);
	sbuf_free(&s.call_id);
	if (spawn_interrupted)
		return err_set(e, ERR_INTERRUPTED, "interrupted");
	return 0;
}
