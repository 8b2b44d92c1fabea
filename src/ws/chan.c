/* chan.c: see chan.h. */
#include "chan.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "marker.h"
#include "proto.h"
#include "resident.h"

/* How long the server may take to greet us: a loaded Podman is slow. */
#define OPEN_TIMEOUT_MS 30000

struct greeting {
	bool seen, nosetsid;
};

static void ignore(void *ctx, const char *buf, size_t n)
{
	(void)ctx, (void)buf, (void)n;
}

static void on_word(void *ctx, const char *word)
{
	struct greeting *g = ctx;
	enum proto_word_kind k = proto_word_parse(word).kind;
	bool nosetsid = k == PROTO_W_NOSETSID;
	if (!g->seen && (k == PROTO_W_OK || nosetsid))
		*g = (struct greeting){true, nosetsid};
}

/* Reads stdout until the greeting, collecting stderr for a message. */
static int await_greeting(struct chan *c, const char *tag, struct err *e)
{
	struct marker_scan scan;
	marker_init(&scan, tag);
	struct greeting g = {0};
	struct marker_sink sink = {ignore, on_word, &g};
	struct sbuf errs = {0};
	long long end = now_ms() + OPEN_TIMEOUT_MS;
	int errfd = c->p.err; /* -1 once at its end, so poll does not spin */
	while (!g.seen && !spawn_stopping()) {
		long long left = end - now_ms();
		if (left <= 0)
			break;
		struct pollfd pfd[3] = {{c->p.out, POLLIN, 0}, {errfd, POLLIN, 0},
					{spawn_signal_fd(), POLLIN, 0}};
		if (poll(pfd, 3, (int)left) < 0)
			continue;
		if (pfd[2].revents) {
			spawn_signal_drain();
			continue;
		}
		char buf[4096];
		if (pfd[1].revents) {
			ssize_t r = read(errfd, buf, sizeof(buf));
			if (r > 0 && errs.len < 4096)
				sbuf_add(&errs, buf, (size_t)r);
			else if (r == 0 || (r < 0 && errno != EINTR))
				errfd = -1;
		}
		if (pfd[0].revents) {
			ssize_t r = read(c->p.out, buf, sizeof(buf));
			if (r == 0 || (r < 0 && errno != EINTR))
				break;
			if (r > 0)
				marker_feed(&scan, buf, (size_t)r, &sink);
		}
	}
	if (g.seen) {
		c->nosetsid = g.nosetsid;
		sbuf_free(&errs);
		return 0;
	}
	sbuf_rtrim(&errs);
	err_set(e, ERR_WORKSPACE, "cannot open a channel into the workspace%s%.*s",
		errs.len ? ": " : "", (int)(errs.len < 300 ? errs.len : 300),
		errs.buf ? errs.buf : "");
	sbuf_free(&errs);
	return -1;
}

static void stop_client(struct chan *c)
{
	if (c->p.pid > 0 && c->lender) {
		resident_kill(c);
	} else if (c->p.pid > 0) {
		kill(c->p.pid, SIGKILL);
		proc_close(&c->p);
		proc_wait(&c->p);
	}
	c->p.pid = 0;
}

int chan_open(struct chan *c, const char *engine, char *const *envp, const char *ctr,
	      struct err *e)
{
	memset(c, 0, sizeof(*c));
	char tag[MARKER_TAG_LEN + 1];
	if (random_hex(tag, MARKER_TAG_LEN) < 0)
		return err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
	struct strvec cmd = {0}, argv = {0};
	proto_serve_argv(&cmd, tag, false);
	engine_exec_argv(&argv, engine, ctr, NULL, 0, true, cmd.v, cmd.n);
	int rc = proc_spawn(&c->p, strvec_argv(&argv), envp, IO_PIPE, IO_PIPE, IO_PIPE, e);
	strvec_clear(&cmd);
	strvec_clear(&argv);
	if (rc < 0) {
		c->p.pid = 0;
		return -1;
	}
	c->ctr = xstrdup(ctr);
	return chan_greet(c, tag, e);
}

int chan_greet(struct chan *c, const char *tag, struct err *e)
{
	if (await_greeting(c, tag, e) < 0) {
		chan_close(c);
		return -1;
	}
	if (c->nosetsid)
		stop_client(c); /* c->ctr stays: that container needs no probe again */
	else
		fcntl(c->p.in, F_SETFL, fcntl(c->p.in, F_GETFL) | O_NONBLOCK);
	return 0;
}

bool chan_is_open(const struct chan *c)
{
	return c->p.pid > 0;
}

void chan_release(struct chan *c)
{
	if (c->p.pid > 0 && c->lender) {
		resident_back(c);
		free(c->ctr);
		c->ctr = NULL;
		c->nosetsid = false;
	} else {
		chan_close(c);
	}
}

void chan_close(struct chan *c)
{
	stop_client(c);
	free(c->ctr);
	c->ctr = NULL;
	c->nosetsid = false;
}
