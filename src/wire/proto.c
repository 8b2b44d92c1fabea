/* proto.c: see proto.h. */
#include "proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scripts.h"
#include "utf8.h"

/* In the server's order: the slot of a script is its enum's value. */
static const char *const slots[PROTO_NSLOTS] = {
	[PROTO_SLOT_WRAPPER] = SCRIPT_EXEC,
	[PROTO_READ] = SCRIPT_READ,
	[PROTO_WRITE] = SCRIPT_WRITE,
	[PROTO_LIST] = SCRIPT_LIST,
	[PROTO_TAR] = SCRIPT_TAR,
};

const char *proto_slot_text(int slot)
{
	return slot >= 0 && slot < PROTO_NSLOTS ? slots[slot] : NULL;
}

/* ---- asking ---- */

static void push_encoded(struct strvec *sv, const char *s)
{
	struct sbuf sb = {0};
	sbuf_add_printf_b(&sb, s);
	strvec_push(sv, sb.buf ? sb.buf : "");
	sbuf_free(&sb);
}

static void push_mode(struct strvec *sv, enum proto_mode mode, bool input)
{
	char m[2] = {(char)('0' + mode), '\0'};
	strvec_push(sv, m);
	strvec_push(sv, input ? "1" : "0");
}

/* A leading '-' would make cd read an option. Caller frees. */
static char *cwd_arg(const struct proto_call *c)
{
	return xasprintf("%s%s", c->cwd && c->cwd[0] == '-' ? "./" : "", c->cwd ? c->cwd : "");
}

/* The command line of the call, a script spelt out: /bin/sh -c TEXT sh
 * ARGS. */
static void command_line(struct strvec *sv, const struct proto_call *c)
{
	if (c->script != PROTO_COMMAND) {
		strvec_push(sv, "/bin/sh");
		strvec_push(sv, "-c");
		strvec_push(sv, slots[c->script]);
		strvec_push(sv, "sh");
	}
	strvec_push_all(sv, c->args, c->nargs);
}

void proto_exec_argv(struct strvec *out, const struct proto_call *c)
{
	struct strvec cmd = {0};
	command_line(&cmd, c);
	char *cwd = cwd_arg(c);
	bool enc = !utf8_valid(cwd);
	for (size_t i = 0; i < cmd.n && !enc; i++)
		enc = !utf8_valid(cmd.v[i]);
	strvec_push(out, "/bin/sh");
	strvec_push(out, "-c");
	strvec_push(out, SCRIPT_EXEC);
	strvec_push(out, "sh");
	strvec_push(out, c->workdir ? c->workdir : "");
	if (enc) {
		push_encoded(out, cwd);
		push_mode(out, PROTO_MODE_ENCODED, c->input);
		for (size_t i = 0; i < cmd.n; i++)
			push_encoded(out, cmd.v[i]);
	} else {
		strvec_push(out, cwd);
		push_mode(out, PROTO_MODE_PLAIN, c->input);
		strvec_push_all(out, cmd.v, cmd.n);
	}
	free(cwd);
	strvec_clear(&cmd);
}

void proto_request_head(struct sbuf *out, const char *tag, bool with_stdin, size_t nvalues)
{
	sbuf_addf(out, "%s\n%d\n%zu\n", tag, with_stdin ? 1 : 0, nvalues);
}

/* Whether v can go as it is, on a line of its own: no newline, and not
 * ending in a byte over 0x7f. Bash's `read -r`, in a UTF-8 locale, takes
 * the newline after an incomplete multibyte sequence ("a\303") into the
 * value, and every line after it shifts. (Non-ASCII bytes elsewhere are
 * read as they are, and the %b path costs the server a fork.) */
static bool plain_value(const char *v)
{
	size_t n = strlen(v);
	return !strchr(v, '\n') && (n == 0 || (unsigned char)v[n - 1] < 0x80);
}

void proto_request_value(struct sbuf *out, const char *v)
{
	if (plain_value(v)) {
		sbuf_addc(out, '=');
		sbuf_adds(out, v);
		sbuf_addc(out, '\n');
		return;
	}
	/* Decoded by printf %b in the server. */
	sbuf_addc(out, '\\');
	sbuf_add_printf_b(out, v);
	sbuf_addc(out, '\n');
}

void proto_request_slot(struct sbuf *out, int slot)
{
	sbuf_addf(out, "@%d\n", slot);
}

bool proto_call_lone(const struct proto_call *c)
{
	return c->lone && c->script == PROTO_READ && c->nargs == 1 && !c->input;
}

/* A lone read (SCRIPT_SERVE): no wrapper, no env (cat needs none). */
static void lone_request(struct sbuf *out, const char *tag, const struct proto_call *c)
{
	sbuf_addf(out, "%s\nr\n3\n", tag);
	proto_request_value(out, c->workdir ? c->workdir : "");
	char *cwd = cwd_arg(c);
	proto_request_value(out, cwd);
	free(cwd);
	proto_request_value(out, c->args[0]);
}

/* On a channel: the wrapper by its slot; a script by its own, run by
 * the wrapper (no new sh) when no environment must go in front of it
 * through env(1). */
void proto_request(struct sbuf *out, const char *tag, const struct proto_call *c)
{
	if (proto_call_lone(c)) {
		lone_request(out, tag, c);
		return;
	}
	bool by_slot = c->script != PROTO_COMMAND && !c->nenv;
	size_t n = 8 + c->nargs;
	if (by_slot)
		n++;
	else if (c->script != PROTO_COMMAND)
		n += 4;
	if (c->nenv)
		n += 1 + c->nenv;
	proto_request_head(out, tag, c->input, n);
	static const char *const sh_c[] = {"/bin/sh", "-c"};
	proto_request_value(out, sh_c[0]);
	proto_request_value(out, sh_c[1]);
	proto_request_slot(out, PROTO_SLOT_WRAPPER);
	proto_request_value(out, "sh");
	proto_request_value(out, c->workdir ? c->workdir : "");
	char *cwd = cwd_arg(c);
	proto_request_value(out, cwd);
	free(cwd);
	char mode[2] = {(char)('0' + (by_slot ? PROTO_MODE_CHAN_SCRIPT : PROTO_MODE_CHAN)), '\0'};
	proto_request_value(out, mode);
	proto_request_value(out, c->input ? "1" : "0");
	if (by_slot) {
		proto_request_slot(out, c->script);
	} else {
		if (c->nenv) {
			proto_request_value(out, "env");
			for (size_t i = 0; i < c->nenv; i++)
				proto_request_value(out, c->env[i]);
		}
		if (c->script != PROTO_COMMAND) {
			proto_request_value(out, sh_c[0]);
			proto_request_value(out, sh_c[1]);
			proto_request_slot(out, c->script);
			proto_request_value(out, "sh");
		}
	}
	for (size_t i = 0; i < c->nargs; i++)
		proto_request_value(out, c->args[i]);
}

void proto_serve_argv(struct strvec *out, const char *tag, bool kept)
{
	strvec_push(out, "/bin/sh");
	strvec_push(out, "-c");
	strvec_push(out, SCRIPT_SERVE);
	strvec_push(out, kept ? "sandbox-kept" : "sandbox-chan");
	strvec_push(out, tag);
	for (int i = 0; i < PROTO_NSLOTS; i++)
		strvec_push(out, slots[i]);
}

void proto_kill_argv(struct strvec *out, long pgid, bool lone)
{
	char group[24];
	snprintf(group, sizeof(group), "%ld", pgid);
	strvec_push(out, "/bin/sh");
	strvec_push(out, "-c");
	strvec_push(out, SCRIPT_KILL);
	strvec_push(out, "sandbox-kill");
	strvec_push(out, group);
	if (lone)
		strvec_push(out, "p");
}

bool proto_kill_gone(const char *out, size_t n)
{
	return n == 7 && memcmp(out, "k\ngone\n", 7) == 0;
}

/* ---- answers ---- */

/* A word, or a word with a number after it: "done:" and 0..255. */
static bool with_num(const char *word, const char *name, long min, long max, long *v)
{
	size_t n = strlen(name);
	return strncmp(word, name, n) == 0 && word[n] == ':' && parse_long(word + n + 1, min, max, v);
}

struct proto_word proto_word_parse(const char *word)
{
	static const struct {
		const char *name;
		enum proto_word_kind kind;
	} plain[] = {
		{"ok", PROTO_W_OK}, {"nosetsid", PROTO_W_NOSETSID}, {"ready", PROTO_W_READY},
		{"nocwd", PROTO_W_NOCWD}, {"oom", PROTO_W_OOM}, {"begin", PROTO_W_BEGIN},
	};
	struct proto_word w = {PROTO_W_UNKNOWN, 0};
	for (size_t i = 0; i < ARRAY_LEN(plain); i++)
		if (strcmp(word, plain[i].name) == 0) {
			w.kind = plain[i].kind;
			return w;
		}
	if (with_num(word, "done", 0, 255, &w.num))
		w.kind = PROTO_W_DONE;
	else if (with_num(word, "end", 0, 255, &w.num))
		w.kind = PROTO_W_END;
	else if (with_num(word, "pid", 2, 1L << 30, &w.num))
		w.kind = PROTO_W_PID;
	else if (with_num(word, "proc", 2, 1L << 30, &w.num))
		w.kind = PROTO_W_PROC;
	return w;
}

void proto_reply_init(struct proto_reply *r, bool on_chan)
{
	memset(r, 0, sizeof(*r));
	r->on_chan = on_chan;
}

void proto_reply_word(struct proto_reply *r, int stream, const char *word)
{
	struct proto_word w = proto_word_parse(word);
	struct proto_reply_stream *s = &r->s[stream - 1];
	bool err = stream == 2;
	switch (w.kind) {
	case PROTO_W_READY:
		r->ready |= err;
		break;
	case PROTO_W_NOCWD:
		r->nocwd |= err;
		break;
	case PROTO_W_OOM:
		r->oom |= err;
		break;
	case PROTO_W_DONE:
		s->done = true;
		s->status = (int)w.num;
		break;
	case PROTO_W_BEGIN:
		s->begun |= r->on_chan;
		break;
	case PROTO_W_END:
		if (r->on_chan && s->begun) {
			s->ended = true;
			s->end_status = (int)w.num;
		}
		break;
	case PROTO_W_PID:
		if (err && !r->pgid)
			r->pgid = w.num;
		break;
	case PROTO_W_PROC:
		if (err && !r->pgid && r->on_chan) {
			r->pgid = w.num;
			r->lone = true;
		}
		break;
	default:
		break;
	}
}

enum proto_data proto_reply_data(const struct proto_reply *r, int stream)
{
	const struct proto_reply_stream *s = &r->s[stream - 1];
	if (s->done || (r->on_chan && !s->begun))
		return PROTO_DATA_NONE;
	if (stream == 2 && !r->ready)
		return PROTO_DATA_ENGINE;
	return PROTO_DATA_OUT;
}

bool proto_reply_done(const struct proto_reply *r)
{
	return r->s[0].done && r->s[1].done;
}

bool proto_reply_ended(const struct proto_reply *r)
{
	return r->on_chan && r->s[0].ended && r->s[1].ended;
}

static void on_data(void *ctx, const char *buf, size_t n)
{
	struct proto_side *side = ctx;
	struct proto_reader *rd = side->rd;
	rd->data(rd->ctx, side->stream, proto_reply_data(&rd->reply, side->stream), buf, n);
}

static void on_word(void *ctx, const char *word)
{
	struct proto_side *side = ctx;
	proto_reply_word(&side->rd->reply, side->stream, word);
}

void proto_reader_init(struct proto_reader *rd, const char *tag, bool on_chan,
		       void (*data)(void *ctx, int stream, enum proto_data whose,
				    const char *buf, size_t n),
		       void *ctx)
{
	proto_reply_init(&rd->reply, on_chan);
	for (int i = 0; i < 2; i++) {
		marker_init(&rd->scan[i], tag);
		rd->side[i] = (struct proto_side){rd, i + 1};
	}
	rd->data = data;
	rd->ctx = ctx;
}

void proto_reader_feed(struct proto_reader *rd, int stream, const char *buf, size_t n)
{
	struct marker_sink sink = {on_data, on_word, &rd->side[stream - 1]};
	marker_feed(&rd->scan[stream - 1], buf, n, &sink);
}

void proto_reader_flush(struct proto_reader *rd)
{
	for (int i = 0; i < 2; i++) {
		struct marker_sink sink = {on_data, on_word, &rd->side[i]};
		marker_flush(&rd->scan[i], &sink);
	}
}
