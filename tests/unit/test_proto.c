/* test_proto.c: the wire (proto.h). The words and what each one does to
 * a call's reply; the reply read from both streams cut into random
 * chunks, against a reference written here; the requests, golden, and
 * read back by the real scripts: SCRIPT_SERVE decoding requests in dash,
 * BusyBox sh and bash (in a UTF-8 locale), and SCRIPT_EXEC decoding an
 * engine exec's encoded arguments, with every byte value in them. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "feed.h"
#include "proto.h"
#include "scripts.h"
#include "spawn.h"
#include "tap.h"
#include "util.h"

#define TAG "0123456789abcdef"
#define M(word) "\036" TAG ":" word "\036"

/* $K, or ${K} past 9. */
static void add_param(struct sbuf *sb, int k)
{
	sbuf_addf(sb, k <= 9 ? "$%d" : "${%d}", k);
}

/* The server takes as many slots as the host sends (embed-sh writes its
 * lines from PROTO_NSLOTS): each one's variable from its argument, and
 * its "@N" in the request's case. */
static void test_serve_slots(void)
{
	struct sbuf vars = {0}, cases = {0};
	sbuf_adds(&vars, "\nT=$1 ");
	sbuf_adds(&cases, "\n    =*) a=${a#=} ;;\n    ");
	for (int i = 0; i < PROTO_NSLOTS; i++) {
		sbuf_addf(&vars, "S%d=", i);
		add_param(&vars, i + 2);
		sbuf_adds(&vars, " ");
		sbuf_addf(&cases, "%s@%d) a=$S%d ;;", i ? " " : "", i, i);
	}
	sbuf_adds(&vars, "z=\n");
	sbuf_adds(&cases, "\n    *) ");
	ok(strstr(SCRIPT_SERVE, vars.buf) != NULL, "the server names its %d slots from its arguments",
	   PROTO_NSLOTS);
	ok(strstr(SCRIPT_SERVE, cases.buf) != NULL, "the server reads @0..@%d, no other",
	   PROTO_NSLOTS - 1);
	sbuf_free(&vars);
	sbuf_free(&cases);
}

static void test_slots(void)
{
	ok(proto_slot_text(PROTO_SLOT_WRAPPER) == SCRIPT_EXEC &&
	   proto_slot_text(PROTO_READ) == SCRIPT_READ && proto_slot_text(PROTO_WRITE) == SCRIPT_WRITE &&
	   proto_slot_text(PROTO_LIST) == SCRIPT_LIST && proto_slot_text(PROTO_TAR) == SCRIPT_TAR,
	   "slots: the wrapper is 0, each script at its enum's number");
	bool all = true;
	for (int i = 0; i < PROTO_NSLOTS; i++)
		all = all && proto_slot_text(i);
	ok(all && !proto_slot_text(-1) && !proto_slot_text(PROTO_NSLOTS),
	   "slots: a script in each of 0..PROTO_NSLOTS-1, none outside");
	struct strvec sv = {0};
	proto_serve_argv(&sv, TAG, false);
	bool same = sv.n == 5 + PROTO_NSLOTS && strcmp(sv.v[0], "/bin/sh") == 0 &&
		    strcmp(sv.v[2], SCRIPT_SERVE) == 0;
	for (int i = 0; same && i < PROTO_NSLOTS; i++)
		same = strcmp(sv.v[5 + i], proto_slot_text(i)) == 0;
	ok(same && strcmp(sv.v[4], TAG) == 0, "the server gets its tag, then S0..S4 in slot order");
	strvec_clear(&sv);
	test_serve_slots();
	proto_kill_argv(&sv, 1234, false);
	ok(sv.n == 5 && strcmp(sv.v[2], SCRIPT_KILL) == 0 && strcmp(sv.v[3], "sandbox-kill") == 0 &&
	   strcmp(sv.v[4], "1234") == 0, "the kill: /bin/sh -c SCRIPT_KILL sandbox-kill PGID");
	strvec_clear(&sv);
	proto_kill_argv(&sv, 1234, true);
	ok(sv.n == 6 && strcmp(sv.v[4], "1234") == 0 && strcmp(sv.v[5], "p") == 0,
	   "the kill of a lone call: PID p");
	strvec_clear(&sv);
	ok(proto_kill_gone("k\ngone\n", 7), "kill answer: gone");
	ok(!proto_kill_gone("k\nalive\n", 8) && !proto_kill_gone("k\ngone", 6) &&
	   !proto_kill_gone("gone\n", 5) && !proto_kill_gone("k\ngone\ngone\n", 12) &&
	   !proto_kill_gone("", 0),
	   "kill answer: alive, cut short, repeated or empty is not gone");
}

static void word_is(const char *word, enum proto_word_kind kind, long num)
{
	struct proto_word w = proto_word_parse(word);
	bool good = w.kind == kind && (kind == PROTO_W_UNKNOWN || w.num == num);
	ok(good, "word '%s'", word);
	if (!good)
		diag("kind %d num %ld, expected %d %ld", w.kind, w.num, kind, num);
}

static void test_words(void)
{
	word_is("ok", PROTO_W_OK, 0);
	word_is("nosetsid", PROTO_W_NOSETSID, 0);
	word_is("ready", PROTO_W_READY, 0);
	word_is("nocwd", PROTO_W_NOCWD, 0);
	word_is("oom", PROTO_W_OOM, 0);
	word_is("begin", PROTO_W_BEGIN, 0);
	word_is("done:0", PROTO_W_DONE, 0);
	word_is("done:255", PROTO_W_DONE, 255);
	word_is("end:7", PROTO_W_END, 7);
	word_is("pid:2", PROTO_W_PID, 2);
	word_is("pid:1073741824", PROTO_W_PID, 1L << 30);
	word_is("proc:2", PROTO_W_PROC, 2);
	static const char *const unknown[] = {
		"", "done", "done:", "done:256", "done:-1", "done:1x", "done:01:", "done:99999999999999999999",
		"end:", "end:300", "pid:", "pid:0", "pid:1", "pid:-5", "pid:1073741825",
		"proc:", "proc:1", "proc", "procs:5",
		"readyy", "read", "ok:", "begin:1", "doneX:1", "nocwd:", "oom:1", "xyz",
	};
	for (size_t i = 0; i < ARRAY_LEN(unknown); i++)
		word_is(unknown[i], PROTO_W_UNKNOWN, 0);
}

/* Where each word counts. */
static void test_reply_rules(void)
{
	struct proto_reply r;
	proto_reply_init(&r, false);
	ok(proto_reply_data(&r, 1) == PROTO_DATA_OUT && proto_reply_data(&r, 2) == PROTO_DATA_ENGINE,
	   "engine exec: stdout is output at once; stderr is the engine's until ready");
	proto_reply_word(&r, 1, "ready");
	proto_reply_word(&r, 1, "nocwd");
	proto_reply_word(&r, 1, "oom");
	proto_reply_word(&r, 1, "pid:77");
	ok(!r.ready && !r.nocwd && !r.oom && !r.pgid, "ready, nocwd, oom and pid count on stderr only");
	proto_reply_word(&r, 2, "begin");
	proto_reply_word(&r, 2, "end:3");
	ok(!r.s[1].begun && !r.s[1].ended, "begin and end count on a channel only");
	proto_reply_word(&r, 2, "pid:77");
	proto_reply_word(&r, 2, "pid:88");
	is_int(r.pgid, 77, "the first pid counts, a later one does not");
	proto_reply_word(&r, 2, "ready");
	ok(proto_reply_data(&r, 2) == PROTO_DATA_OUT, "after ready, stderr is output");
	proto_reply_word(&r, 1, "done:4");
	ok(!proto_reply_done(&r) && proto_reply_data(&r, 1) == PROTO_DATA_NONE &&
	   proto_reply_data(&r, 2) == PROTO_DATA_OUT, "after a stream's done, its bytes are nobody's");
	proto_reply_word(&r, 2, "done:5");
	ok(proto_reply_done(&r) && r.s[1].status == 5, "both done: the status is stderr's");
	ok(!proto_reply_ended(&r), "an engine exec never ends as a channel's call");

	proto_reply_init(&r, true);
	ok(proto_reply_data(&r, 1) == PROTO_DATA_NONE && proto_reply_data(&r, 2) == PROTO_DATA_NONE,
	   "channel: bytes before begin are nobody's");
	proto_reply_word(&r, 2, "end:0");
	ok(!r.s[1].ended, "channel: an end before begin does not count");
	proto_reply_word(&r, 1, "begin");
	proto_reply_word(&r, 2, "begin");
	ok(proto_reply_data(&r, 1) == PROTO_DATA_OUT && proto_reply_data(&r, 2) == PROTO_DATA_ENGINE,
	   "channel: after begin, as an engine exec");
	proto_reply_word(&r, 1, "end:9");
	proto_reply_word(&r, 2, "end:9");
	ok(proto_reply_ended(&r) && r.s[1].end_status == 9 && !proto_reply_done(&r),
	   "channel: both ends; the call never said done");
	ok(!r.lone, "channel: pid says a group");

	proto_reply_init(&r, false);
	proto_reply_word(&r, 2, "proc:55");
	ok(!r.pgid && !r.lone, "engine exec: proc does not count (no lone call there)");
	proto_reply_init(&r, true);
	proto_reply_word(&r, 1, "proc:55");
	ok(!r.pgid && !r.lone, "channel: proc counts on stderr only");
	proto_reply_word(&r, 2, "proc:55");
	proto_reply_word(&r, 2, "pid:66");
	ok(r.pgid == 55 && r.lone, "channel: proc says a lone process, and a later pid does not count");
}

/* ---- the reply in random chunks, against a reference ---- */

static unsigned long rnd_x = 0x9e3779b97f4a7c15UL;
static unsigned rnd(void)
{
	rnd_x ^= rnd_x << 13, rnd_x ^= rnd_x >> 7, rnd_x ^= rnd_x << 17;
	return (unsigned)(rnd_x >> 20);
}

struct got {
	struct sbuf bytes[2][3]; /* per stream, per proto_data */
};

static void got_data(void *ctx, int stream, enum proto_data whose, const char *buf, size_t n)
{
	struct got *g = ctx;
	sbuf_add(&g->bytes[stream - 1][whose], buf, n);
}

/* The reference: what each word does, as the header says it. */
struct ref {
	bool on_chan, ready, nocwd, oom;
	long pgid;
	bool done[2], begun[2], ended[2];
	int status[2], end_status[2];
	struct sbuf bytes[2][3];
};

static void ref_word(struct ref *f, int i, const char *w)
{
	long v;
	char *end;
	if (i == 1 && strcmp(w, "ready") == 0)
		f->ready = true;
	else if (i == 1 && strcmp(w, "nocwd") == 0)
		f->nocwd = true;
	else if (i == 1 && strcmp(w, "oom") == 0)
		f->oom = true;
	else if (f->on_chan && strcmp(w, "begin") == 0)
		f->begun[i] = true;
	else if (sscanf(w, "done:%ld", &v) == 1 && (end = strchr(w, ':') + 1) &&
		 strspn(end, "0123456789") == strlen(end) && v <= 255)
		f->done[i] = true, f->status[i] = (int)v;
	else if (f->on_chan && f->begun[i] && sscanf(w, "end:%ld", &v) == 1 &&
		 (end = strchr(w, ':') + 1) && strspn(end, "0123456789") == strlen(end) && v <= 255)
		f->ended[i] = true, f->end_status[i] = (int)v;
	else if (i == 1 && !f->pgid && sscanf(w, "pid:%ld", &v) == 1 &&
		 (end = strchr(w, ':') + 1) && strspn(end, "0123456789") == strlen(end) && v >= 2 &&
		 v <= 1L << 30)
		f->pgid = v;
}

static void ref_data(struct ref *f, int i, const char *buf, size_t n)
{
	int whose = f->done[i] || (f->on_chan && !f->begun[i]) ? PROTO_DATA_NONE
		    : i == 1 && !f->ready ? PROTO_DATA_ENGINE : PROTO_DATA_OUT;
	sbuf_add(&f->bytes[i][whose], buf, n);
}

static const char *const some_words[] = {
	"ready", "nocwd", "oom", "begin", "done:0", "done:7", "done:255", "end:0", "end:3",
	"pid:2", "pid:4242", "pid:99", "done:256", "pid:1", "end:", "ok", "xyz", "done:1:2",
};

static bool one_reply(bool on_chan, bool report)
{
	struct sbuf in[2] = {{0}, {0}};
	struct ref f = {.on_chan = on_chan};
	for (int i = 0; i < 2; i++) {
		int parts = (int)(rnd() % 24);
		for (int p = 0; p < parts; p++) {
			if (rnd() % 3 == 0) {
				const char *w = some_words[rnd() % ARRAY_LEN(some_words)];
				sbuf_addf(&in[i], "\036" TAG ":%s\036", w);
				ref_word(&f, i, w);
				continue;
			}
			/* Data, with \036 and pieces of the tag, never a whole
			 * prefix; a part ends in a newline, so that no half
			 * marker joins the next part. */
			static const char pool[] = "\036" TAG ":xyz\n\0\377";
			char d[48];
			size_t len = rnd() % 40;
			for (size_t k = 0; k < len; k++)
				d[k] = pool[rnd() % (sizeof(pool) - 1)];
			d[len++] = '\n';
			sbuf_add(&in[i], d, len);
			ref_data(&f, i, d, len);
		}
	}
	struct got g = {0};
	struct proto_reader rd;
	proto_reader_init(&rd, TAG, on_chan, got_data, &g);
	size_t at[2] = {0, 0};
	while (at[0] < in[0].len || at[1] < in[1].len) {
		int i = at[0] == in[0].len ? 1 : at[1] == in[1].len ? 0 : (int)(rnd() % 2);
		size_t left = in[i].len - at[i];
		size_t k = rnd() % 4 == 0 ? left : 1 + rnd() % 9;
		if (k > left)
			k = left;
		proto_reader_feed(&rd, i + 1, in[i].buf + at[i], k);
		at[i] += k;
	}
	proto_reader_flush(&rd);
	const struct proto_reply *r = &rd.reply;
	bool good = r->ready == f.ready && r->nocwd == f.nocwd && r->oom == f.oom &&
		    r->pgid == f.pgid;
	for (int i = 0; i < 2; i++) {
		good = good && r->s[i].done == f.done[i] && r->s[i].begun == f.begun[i] &&
		       r->s[i].ended == f.ended[i] && (!f.done[i] || r->s[i].status == f.status[i]) &&
		       (!f.ended[i] || r->s[i].end_status == f.end_status[i]);
		for (int w = 0; w < 3; w++) {
			struct sbuf *a = &g.bytes[i][w], *b = &f.bytes[i][w];
			if (a->len != b->len || (a->len && memcmp(a->buf, b->buf, a->len) != 0)) {
				if (report)
					diag("stream %d, data kind %d: %zu bytes, expected %zu", i + 1, w,
					     a->len, b->len);
				good = false;
			}
		}
	}
	if (!good && report)
		diag("reply: ready %d/%d nocwd %d/%d oom %d/%d pgid %ld/%ld", r->ready, f.ready,
		     r->nocwd, f.nocwd, r->oom, f.oom, r->pgid, f.pgid);
	for (int i = 0; i < 2; i++) {
		sbuf_free(&in[i]);
		for (int w = 0; w < 3; w++) {
			sbuf_free(&g.bytes[i][w]);
			sbuf_free(&f.bytes[i][w]);
		}
	}
	return good;
}

static void test_reply_random(void)
{
	for (int chan = 0; chan < 2; chan++) {
		int bad = 0;
		for (int round = 0; round < 2000; round++)
			if (!one_reply(chan, bad == 0))
				bad++;
		is_int(bad, 0, "%s: 2000 random replies on two streams, in random chunks, "
		       "read as the reference does", chan ? "channel" : "engine exec");
	}
}

/* ---- requests ---- */

static void test_request_golden(void)
{
	char *cmd[] = {"echo", "a\nb", "x\303"};
	struct proto_call c = {.workdir = "/w", .cwd = "-d", .args = cmd, .nargs = 3};
	struct sbuf req = {0};
	proto_request(&req, TAG, &c);
	is_str(req.buf, TAG "\n0\n11\n=/bin/sh\n=-c\n@0\n=sh\n=/w\n=./-d\n=2\n=0\n=echo\n"
	       "\\a\\0012b\n\\x\\0303\n", "request: a command (mode 2), a newline and a "
	       "trailing high byte %%b-encoded, a cwd with '-'");
	sbuf_reset(&req);
	char *args[] = {"f"};
	c = (struct proto_call){.script = PROTO_READ, .args = args, .nargs = 1, .input = true};
	proto_request(&req, TAG, &c);
	is_str(req.buf, TAG "\n1\n10\n=/bin/sh\n=-c\n@0\n=sh\n=\n=\n=3\n=1\n@1\n=f\n",
	       "request: a script by its slot (mode 3), with stdin");
	sbuf_reset(&req);
	char *env[] = {"A=1", "B=\n"};
	c = (struct proto_call){.script = PROTO_TAR, .args = args, .nargs = 1, .env = env, .nenv = 2};
	proto_request(&req, TAG, &c);
	is_str(req.buf, TAG "\n0\n16\n=/bin/sh\n=-c\n@0\n=sh\n=\n=\n=2\n=0\n=env\n=A=1\n\\B=\\0012\n"
	       "=/bin/sh\n=-c\n@4\n=sh\n=f\n",
	       "request: a script with an environment goes through env(1), still by slot");
	sbuf_reset(&req);
	c = (struct proto_call){.workdir = "/w", .cwd = "-d", .script = PROTO_READ, .args = args,
				.nargs = 1, .env = env, .nenv = 2, .lone = true};
	proto_request(&req, TAG, &c);
	is_str(req.buf, TAG "\nr\n3\n=/w\n=./-d\n=f\n",
	       "request: a lone read, WORKDIR CWD PATH, no environment");
	sbuf_reset(&req);
	c.input = true;
	proto_request(&req, TAG, &c);
	ok(strncmp(req.buf, TAG "\n1\n", strlen(TAG) + 3) == 0, "request: a read with input is never lone");
	sbuf_reset(&req);
	c = (struct proto_call){.script = PROTO_TAR, .args = args, .nargs = 1, .lone = true};
	proto_request(&req, TAG, &c);
	ok(strncmp(req.buf, TAG "\n0\n", strlen(TAG) + 3) == 0, "request: only a read goes lone");
	sbuf_free(&req);
}

static void test_exec_argv(void)
{
	char *cmd[] = {"ls", "-l"};
	struct proto_call c = {.workdir = "/w", .cwd = "sub", .args = cmd, .nargs = 2, .input = true};
	struct strvec sv = {0};
	proto_exec_argv(&sv, &c);
	ok(sv.n == 10 && strcmp(sv.v[0], "/bin/sh") == 0 && strcmp(sv.v[2], SCRIPT_EXEC) == 0 &&
	   strcmp(sv.v[4], "/w") == 0 && strcmp(sv.v[5], "sub") == 0 &&
	   strcmp(sv.v[6], "0") == 0 && strcmp(sv.v[7], "1") == 0 && strcmp(sv.v[8], "ls") == 0,
	   "engine exec: WORKDIR CWD MODE 0 INPUT 1 and the command as it is");
	strvec_clear(&sv);
	char *args[] = {"p\377"};
	c = (struct proto_call){.script = PROTO_WRITE, .args = args, .nargs = 1};
	proto_exec_argv(&sv, &c);
	ok(sv.n == 13 && strcmp(sv.v[4], "") == 0 && strcmp(sv.v[6], "1") == 0 &&
	   strcmp(sv.v[7], "0") == 0 && strcmp(sv.v[8], "/bin/sh") == 0 &&
	   strcmp(sv.v[12], "p\\0377") == 0,
	   "engine exec: a script spelt out; bytes that are not UTF-8 make it mode 1, encoded");
	strvec_clear(&sv);
}

/* Runs argv with in on its stdin; its stdout and stderr into out. */
static int run_io(char *const *argv, char *const *envp, const char *in, size_t inlen,
		  struct sbuf out[2])
{
	struct proc p;
	struct err e = {0};
	if (proc_spawn(&p, argv, envp, IO_PIPE, IO_PIPE, IO_PIPE, &e) < 0) {
		diag("spawn: %s", e.msg);
		return -1;
	}
	fcntl(p.in, F_SETFL, fcntl(p.in, F_GETFL) | O_NONBLOCK);
	size_t off = 0;
	int fds[2] = {p.out, p.err};
	long long end = now_ms() + 30000;
	while ((fds[0] >= 0 || fds[1] >= 0) && now_ms() < end) {
		if (p.in >= 0 && off == inlen) {
			close(p.in);
			p.in = -1;
		}
		struct pollfd pfd[3] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}, {p.in, POLLOUT, 0}};
		if (poll(pfd, 3, 1000) < 0)
			continue;
		if (pfd[2].revents && !write_some(p.in, in, inlen, &off)) {
			close(p.in);
			p.in = -1;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i] < 0 || !pfd[i].revents)
				continue;
			char buf[65536];
			ssize_t r = read(fds[i], buf, sizeof(buf));
			if (r > 0)
				sbuf_add(&out[i], buf, (size_t)r);
			else if (r == 0 || errno != EINTR)
				fds[i] = -1;
		}
	}
	return proc_wait_for(&p, 1000);
}

/* Every byte value, in values of every shape the encoding treats apart. */
static void some_values(struct strvec *v)
{
	char all[256];
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	strvec_push(v, all);
	for (int i = 1; i < 256; i++) {
		char one[4] = {(char)i, '\0'}, two[4] = {'a', (char)i, '\n', '\0'};
		strvec_push(v, one);
		strvec_push(v, two);
	}
	static const char *const odd[] = {
		"", "=", "=x", "@0", "@1", "@9", "\\", "\\n", "\\0101", "\\c", "-n", "-e", "a\303",
		"\303", "x\n", "\n", "\n\n", "%b", "%s", "a b", "*", "$HOME", "`id`", "\342\202\254",
	};
	for (size_t i = 0; i < ARRAY_LEN(odd); i++)
		strvec_push(v, odd[i]);
}

/* What the reply of a call with tag said: its output per stream and how
 * it ended. */
struct call_seen {
	struct sbuf out[2];
	struct proto_reply reply;
};

static void seen_data(void *ctx, int stream, enum proto_data whose, const char *buf, size_t n)
{
	struct call_seen *c = ctx;
	if (whose == PROTO_DATA_OUT)
		sbuf_add(&c->out[stream - 1], buf, n);
}

static void read_call(const struct sbuf io[2], const char *tag, bool on_chan, struct call_seen *c)
{
	memset(c, 0, sizeof(*c));
	struct proto_reader rd;
	proto_reader_init(&rd, tag, on_chan, seen_data, c);
	for (int i = 0; i < 2; i++)
		proto_reader_feed(&rd, i + 1, io[i].buf ? io[i].buf : "", io[i].len);
	proto_reader_flush(&rd);
	c->reply = rd.reply;
}

static void seen_free(struct call_seen *c)
{
	sbuf_free(&c->out[0]);
	sbuf_free(&c->out[1]);
}

static void joined(struct sbuf *out, const struct strvec *v)
{
	sbuf_add(out, "", 0);
	for (size_t i = 0; i < v->n; i++) {
		sbuf_adds(out, v->v[i]);
		sbuf_addc(out, '\0');
	}
}

/* The frames feed.c makes of buf, as bytes. */
static void framed(struct sbuf *out, const char *buf, size_t n)
{
	int p[2];
	if (pipe(p) < 0)
		return;
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	struct feed f;
	feed_init_buf(&f, buf, n);
	while (!feed_done(&f)) {
		if (feed_ready(&f))
			feed_write(&f, p[1]);
		char tmp[4096];
		ssize_t r;
		while ((r = read(p[0], tmp, sizeof(tmp))) > 0)
			sbuf_add(out, tmp, (size_t)r);
	}
	close(p[1]);
	char tmp[4096];
	ssize_t r;
	while ((r = read(p[0], tmp, sizeof(tmp))) > 0)
		sbuf_add(out, tmp, (size_t)r);
	close(p[0]);
	feed_free(&f);
}

static const char print_args[] = "printf '%s\\0' \"$@\"";

/* Several calls in one stream of requests, read by the server running
 * under shell (a command line: its first words replace "/bin/sh"). */
static void server_round_trip(const char *const *shell, size_t nshell, char *const *envp,
			      const char *title, const char *dir)
{
	struct strvec argv = {0}, serve = {0}, vals = {0};
	for (size_t i = 0; i < nshell; i++)
		strvec_push(&argv, shell[i]);
	proto_serve_argv(&serve, TAG, false);
	strvec_push_all(&argv, serve.v + 1, serve.n - 1);
	strvec_clear(&serve);
	some_values(&vals);

	struct sbuf req = {0};
	/* A: a command line with every value. */
	struct strvec cmd = {0};
	strvec_push(&cmd, "/bin/sh");
	strvec_push(&cmd, "-c");
	strvec_push(&cmd, print_args);
	strvec_push(&cmd, "sh");
	strvec_push_all(&cmd, vals.v, vals.n);
	struct proto_call a = {.args = cmd.v, .nargs = cmd.n};
	proto_request(&req, "aaaaaaaaaaaaaaaa", &a);
	/* B: read, by slot, a file whose name holds a newline. */
	char *path = xasprintf("%s/a b\nc\303", dir);
	char *args[] = {path};
	struct proto_call b = {.script = PROTO_READ, .args = args, .nargs = 1};
	proto_request(&req, "bbbbbbbbbbbbbbbb", &b);
	/* C: cat, its stdin in frames: every byte value, and a body that
	 * looks like frames. */
	struct sbuf body = {0};
	for (int round = 0; round < 40; round++)
		for (int i = 0; i < 256; i++)
			sbuf_addc(&body, (char)i);
	sbuf_adds(&body, "0\n3\nabc0\n");
	char *cat[] = {"cat"};
	struct proto_call cc = {.args = cat, .nargs = 1, .input = true};
	proto_request(&req, "cccccccccccccccc", &cc);
	struct sbuf frames = {0};
	framed(&frames, body.buf, body.len);
	sbuf_add(&req, frames.buf, frames.len);
	/* D: read again, with an environment: through env(1). */
	char *env[] = {"SANDBOX_T=1"};
	struct proto_call d = {.script = PROTO_READ, .args = args, .nargs = 1, .env = env, .nenv = 1};
	proto_request(&req, "dddddddddddddddd", &d);
	/* E: a status, and stderr. */
	char *fail[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 7"};
	struct proto_call e = {.args = fail, .nargs = 3};
	proto_request(&req, "eeeeeeeeeeeeeeee", &e);
	/* F: a cwd that is not there. */
	char *t[] = {"true"};
	struct proto_call f = {.workdir = dir, .cwd = "nonesuch", .args = t, .nargs = 1};
	proto_request(&req, "ffffffffffffffff", &f);
	/* G: the read of B, lone, by its name under the workdir; H: lone, a
	 * cwd that is not there; I: lone, a directory. */
	char *base[] = {strrchr(path, '/') + 1};
	struct proto_call g = {.workdir = dir, .script = PROTO_READ, .args = base, .nargs = 1,
			       .lone = true};
	proto_request(&req, "gggggggggggggggg", &g);
	struct proto_call h = g;
	h.cwd = "nonesuch";
	proto_request(&req, "hhhhhhhhhhhhhhhh", &h);
	char *slash[] = {"/"};
	struct proto_call i = {.script = PROTO_READ, .args = slash, .nargs = 1, .lone = true};
	proto_request(&req, "iiiiiiiiiiiiiiii", &i);
	/* J: after them, a command still runs as ever. */
	proto_request(&req, "jjjjjjjjjjjjjjjj", &e);

	struct sbuf io[2] = {{0}, {0}};
	int status = run_io(argv.v, envp, req.buf, req.len, io);
	is_int(status, 0, "%s: the server reads every request and ends at the end of input", title);

	struct call_seen c;
	struct sbuf want = {0};
	read_call(io, "aaaaaaaaaaaaaaaa", true, &c);
	joined(&want, &vals);
	ok(proto_reply_ended(&c.reply) && c.reply.s[1].end_status == 0 && proto_reply_done(&c.reply),
	   "%s: a command: begin, done, end", title);
	is_mem(c.out[0].buf, c.out[0].len, want.buf, want.len,
	       "%s: %zu values, every byte value, back as they went", title, vals.n);
	seen_free(&c);

	sbuf_reset(&want);
	sbuf_adds(&want, "S 9\nhello\n\036x\n");
	read_call(io, "bbbbbbbbbbbbbbbb", true, &c);
	is_mem(c.out[0].buf, c.out[0].len, want.buf, want.len, "%s: a script by its slot", title);
	ok(c.reply.ready && c.reply.pgid >= 2 && c.reply.s[1].end_status == 0,
	   "%s: ready, its process group, end:0", title);
	seen_free(&c);
	read_call(io, "dddddddddddddddd", true, &c);
	is_mem(c.out[0].buf, c.out[0].len, want.buf, want.len,
	       "%s: a script with an environment", title);
	seen_free(&c);

	read_call(io, "cccccccccccccccc", true, &c);
	/* The server passes the frames on whole (SCRIPT_WRITE reads them),
	 * and the request after them is read where it starts. */
	is_mem(c.out[0].buf, c.out[0].len, frames.buf, frames.len,
	       "%s: framed stdin, frame for frame, up to the end frame", title);
	seen_free(&c);

	read_call(io, "eeeeeeeeeeeeeeee", true, &c);
	if (!ok(c.reply.s[1].status == 7 && c.reply.s[1].end_status == 7 && c.out[0].len == 4 &&
		memcmp(c.out[0].buf, "out\n", 4) == 0 && c.out[1].len == 4 &&
		memcmp(c.out[1].buf, "err\n", 4) == 0, "%s: the status, stdout, stderr", title))
		diag("done %d/%d, end %d/%d, stdout %zu bytes '%.*s', stderr %zu bytes '%.*s'; "
		     "the server's stderr, all of it: '%.*s'",
		     c.reply.s[0].status, c.reply.s[1].status, c.reply.s[0].end_status,
		     c.reply.s[1].end_status, c.out[0].len, (int)c.out[0].len,
		     c.out[0].buf ? c.out[0].buf : "", c.out[1].len, (int)c.out[1].len,
		     c.out[1].buf ? c.out[1].buf : "", (int)(io[1].len < 3000 ? io[1].len : 3000),
		     io[1].buf ? io[1].buf : "");
	seen_free(&c);

	read_call(io, "ffffffffffffffff", true, &c);
	ok(c.reply.nocwd && !c.reply.ready && !proto_reply_done(&c.reply) &&
	   c.reply.s[1].end_status == 1, "%s: a missing cwd says nocwd, ends 1", title);
	seen_free(&c);

	sbuf_reset(&want);
	sbuf_adds(&want, "S -\nhello\n\036x\n");
	read_call(io, "gggggggggggggggg", true, &c);
	is_mem(c.out[0].buf, c.out[0].len, want.buf, want.len, "%s: a lone read: S -, the bytes",
	       title);
	ok(c.reply.ready && c.reply.lone && c.reply.pgid >= 2 && proto_reply_done(&c.reply) &&
	   c.reply.s[1].status == 0 && c.reply.s[1].end_status == 0 && c.out[1].len == 0,
	   "%s: a lone read: ready, proc, done:0, end:0, no stderr", title);
	seen_free(&c);
	read_call(io, "hhhhhhhhhhhhhhhh", true, &c);
	ok(c.reply.nocwd && !c.reply.ready && c.out[0].len == 0,
	   "%s: a lone read in a missing cwd says nocwd", title);
	seen_free(&c);
	read_call(io, "iiiiiiiiiiiiiiii", true, &c);
	is_mem(c.out[0].buf, c.out[0].len, "E isdir\n", 8, "%s: a lone read of a directory: E isdir",
	       title);
	seen_free(&c);
	read_call(io, "jjjjjjjjjjjjjjjj", true, &c);
	ok(c.reply.s[1].status == 7 && !c.reply.lone && c.reply.pgid >= 2,
	   "%s: a command after lone reads: its status, its group", title);
	seen_free(&c);

	sbuf_free(&want);
	sbuf_free(&io[0]);
	sbuf_free(&io[1]);
	sbuf_free(&body);
	sbuf_free(&frames);
	sbuf_free(&req);
	free(path);
	strvec_clear(&cmd);
	strvec_clear(&vals);
	strvec_clear(&argv);
}

/* An engine exec's arguments that are not UTF-8 go encoded (mode 1),
 * and the wrapper, under shell, decodes them. */
static void exec_round_trip(const char *const *shell, size_t nshell, char *const *envp,
			    const char *title, const char *dir)
{
	struct strvec vals = {0}, cmd = {0}, wrapper = {0}, argv = {0};
	some_values(&vals);
	strvec_push(&cmd, "/bin/sh");
	strvec_push(&cmd, "-c");
	strvec_push(&cmd, print_args);
	strvec_push(&cmd, "sh");
	strvec_push_all(&cmd, vals.v, vals.n);
	char *cwd = xasprintf("%s/a b\nc\303", dir);
	char *sub = strrchr(cwd, '/') + 1;
	struct proto_call c = {.workdir = dir, .cwd = sub, .args = cmd.v, .nargs = cmd.n};
	proto_exec_argv(&wrapper, &c);
	for (size_t i = 0; i < nshell; i++)
		strvec_push(&argv, shell[i]);
	strvec_push_all(&argv, wrapper.v + 1, wrapper.n - 1);
	ok(strcmp(wrapper.v[6], "1") == 0, "%s: the values make it mode 1", title);
	struct sbuf io[2] = {{0}, {0}};
	int status = run_io(argv.v, envp, TAG "\n", strlen(TAG) + 1, io);
	struct call_seen seen;
	read_call(io, TAG, false, &seen);
	struct sbuf want = {0};
	joined(&want, &vals);
	ok(status == 0 && proto_reply_done(&seen.reply) && seen.reply.ready &&
	   seen.reply.pgid >= 2 && !seen.reply.nocwd,
	   "%s: pid, ready, done:0; the wrapper entered the encoded cwd", title);
	is_mem(seen.out[0].buf, seen.out[0].len, want.buf, want.len,
	       "%s: every byte value decoded back as it went", title);
	seen_free(&seen);
	sbuf_free(&want);
	sbuf_free(&io[0]);
	sbuf_free(&io[1]);
	free(cwd);
	strvec_clear(&vals);
	strvec_clear(&cmd);
	strvec_clear(&wrapper);
	strvec_clear(&argv);
}

static void test_round_trips(void)
{
	char dir[] = "/tmp/test_proto.XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	char *file = xasprintf("%s/a b\nc\303", dir);
	/* The read's file; a directory of the same name for the cwd would
	 * clash, so exec's cwd is the same name under sub/. */
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ok(fd >= 0 && write(fd, "hello\n\036x\n", 9) == 9, "a file to read");
	if (fd >= 0)
		close(fd);
	char *sub = xasprintf("%s/sub", dir);
	char *subcwd = xasprintf("%s/sub/a b\nc\303", dir);
	mkdir(sub, 0755);
	mkdir(subcwd, 0755);
	static char *env_c[] = {"PATH=/usr/bin:/bin", NULL};
	static char *env_utf8[] = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", NULL};
	static const char *const dash[] = {"/bin/sh"};
	static const char *const busybox[] = {"/usr/bin/busybox", "sh"};
	static const char *const bash[] = {"/usr/bin/bash"};
	server_round_trip(dash, 1, env_c, "server in /bin/sh", dir);
	exec_round_trip(dash, 1, env_c, "wrapper in /bin/sh", sub);
	if (access(busybox[0], X_OK) == 0) {
		server_round_trip(busybox, 2, env_c, "server in busybox sh", dir);
		exec_round_trip(busybox, 2, env_c, "wrapper in busybox sh", sub);
	} else {
		skip("no %s here", busybox[0]);
	}
	if (access(bash[0], X_OK) == 0) {
		server_round_trip(bash, 1, env_utf8, "server in bash, LC_ALL=C.UTF-8", dir);
		exec_round_trip(bash, 1, env_utf8, "wrapper in bash, LC_ALL=C.UTF-8", sub);
	} else {
		skip("no %s here", bash[0]);
	}
	unlink(file);
	rmdir(subcwd);
	rmdir(sub);
	rmdir(dir);
	free(file);
	free(sub);
	free(subcwd);
}

int main(void)
{
	test_slots();
	test_words();
	test_reply_rules();
	test_reply_random();
	test_request_golden();
	test_exec_argv();
	test_round_trips();
	return done_testing();
}
