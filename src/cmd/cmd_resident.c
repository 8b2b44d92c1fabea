/* cmd_resident.c: the resident command: what runs for this engine
 * endpoint (resident.h), stopping it, and, started by sandbox itself,
 * being it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "resident.h"
#include "results.h"

/* sandbox resident serve ENGINE KEEP SOCKET, with the listening socket
 * as fd 3: how a command starts it (resident.c), never typed. */
static int serve(struct app *a, struct resident_result *r, struct err *e)
{
	const struct strvec *v = &a->o.args;
	long keep;
	if (v->n != 4 || v->v[1][0] != '/' || !parse_long(v->v[2], 1, CFG_KEEP_MAX, &keep) ||
	    v->v[3][0] != '/')
		return err_set(e, ERR_USAGE, "resident serve is how sandbox starts it; run 'sandbox resident' instead");
	r->serve = true;
	return resident_serve(3, v->v[3], v->v[1], a->envp.v, keep) == 0
		       ? 0 : err_set(e, ERR_ENGINE, "the resident process could not serve at %s", v->v[3]);
}

int do_resident(struct app *a, struct resident_result *r, struct err *e)
{
	*r = (struct resident_result){0};
	const struct strvec *v = &a->o.args;
	const char *what = v->n ? v->v[0] : "status";
	if (strcmp(what, "serve") == 0)
		return serve(a, r, e);
	if (v->n > 1 || (strcmp(what, "status") != 0 && strcmp(what, "stop") != 0))
		return err_set(e, ERR_USAGE, "expected 'sandbox resident' or 'sandbox resident stop'");
	r->stop = strcmp(what, "stop") == 0;
	r->all = a->o.life.all;
	if (r->all && !r->stop)
		return err_set(e, ERR_USAGE, "--all goes with stop: sandbox resident stop --all");
	if (r->all)
		return resident_stop_all(&r->stopped, e);
	if (!a->engine)
		return err_set(e, a->engine_err.kind, "%s", a->engine_err.msg);
	r->endpoint = resident_endpoint_new(a->engine, a->envp.v);
	return r->stop ? resident_stop(a->engine, a->envp.v, &r->info, e)
		       : resident_query(a->engine, a->envp.v, &r->info, e);
}
