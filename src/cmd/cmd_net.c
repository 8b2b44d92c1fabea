/* cmd_net.c: net, the connections of network = allow as its proxies
 * recorded them (records.h's table, or --json); and net serve, the
 * proxy itself (proxy.h), as netproxy.h starts it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history.h"
#include "proxy.h"
#include "records.h"
#include "results.h"

static const char *str_or(const struct jv *v, const char *dflt)
{
	const char *s = jv_str(v);
	return s ? s : dflt;
}

static long long int_or(const struct jv *v)
{
	return jv_is(v, JV_NUMBER) && v->num.is_int ? v->num.i : -1;
}

static void row(struct sbuf *out, const struct jv *rec)
{
	char when[32], where[300];
	records_when(when, rec);
	const char *host = str_or(jv_get(rec, "host"), "");
	long long port = int_or(jv_get(rec, "port"));
	if (*host)
		snprintf(where, sizeof(where), "%s%s%s:%lld", strchr(host, ':') ? "[" : "", host,
			 strchr(host, ':') ? "]" : "", port);
	else
		snprintf(where, sizeof(where), "-");
	sbuf_addf(out, "%-19s  ", when);
	records_cell(out, str_or(jv_get(rec, "workspace"), "?"), 24, 26);
	records_cell(out, str_or(jv_get(rec, "verdict"), "?"), 8, 9);
	records_cell(out, str_or(jv_get(rec, "method"), "?"), 8, 9);
	records_cell(out, where, 40, 42);
	sbuf_addf(out, "%10lld %10lld %8lldms  ", int_or(jv_get(rec, "sent")),
		  int_or(jv_get(rec, "received")), int_or(jv_get(rec, "ms")));
	records_cell(out, str_or(jv_get(rec, "why"), ""), 100, 0);
	out->len--;      /* the cell's padding */
	out->buf[out->len] = '\0';
	sbuf_addc(out, '\n');
}

static const struct records_view net_view = {
	.what = "net",
	.header = "TIME                 WORKSPACE                 VERDICT  METHOD   "
		  "HOST                                            SENT   RECEIVED  DURATION  WHY\n",
	.row = row,
	.none = "no connections on record",
};

/* net serve ENGINE ID NAME TIMEOUT LOCK LOGDIR RESOLVE PATTERNS, with
 * the pipe to the command that started it as fd 3: never typed. */
static int serve(struct app *a, struct err *e)
{
	const struct strvec *v = &a->o.args;
	double timeout;
	if (v->n != 9 || v->v[1][0] != '/' || !parse_seconds(v->v[4], &timeout) || v->v[5][0] != '/' ||
	    v->v[6][0] != '/' || !v->v[8][0] || fcntl(3, F_SETFD, FD_CLOEXEC) < 0)
		return err_set(e, ERR_USAGE, "net serve is how sandbox starts a proxy; run 'sandbox net' instead");
	free(a->engine);
	a->engine = xstrdup(v->v[1]);
	a->cfg.engine_timeout = timeout;
	struct ws ws = {.id = v->v[2], .name = v->v[3]};
	struct strvec pats = {0};
	for (const char *p = v->v[8]; *p;) {
		size_t n = strcspn(p, " ");
		if (n)
			strvec_pushf(&pats, "%.*s", (int)n, p);
		p += n + (p[n] == ' ');
	}
	struct proxy_conf pc = {
		.a = a, .ws = &ws, .lock = v->v[5], .logdir = v->v[6],
		.resolve = strcmp(v->v[7], "-") ? v->v[7] : NULL,
		.patterns = pats.v, .npatterns = pats.n, .report = 3,
	};
	int rc = proxy_serve(&pc, e);
	strvec_clear(&pats);
	return rc;
}

int cmd_net(struct app *a, struct err *e)
{
	if (a->o.args.n && strcmp(a->o.args.v[0], "serve") == 0)
		return serve(a, e);
	if (a->o.args.n > 1)
		return err_set(e, ERR_USAGE, "expected 'sandbox net [REF]'");
	const char *ref = a->o.args.n ? a->o.args.v[0] : a->ref;
	if (ref && !history_name_ok(ref))
		return err_set(e, ERR_USAGE, "'%s' is not a workspace's name; sandbox list shows them", ref);
	return records_show(a, &net_view, ref, e);
}
