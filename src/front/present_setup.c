/* present_setup.c: the presenters of what comes before a workspace
 * (cmd_trust.c, cmd_doctor.c): a config file trusted, and doctor's
 * checks, as the CLI's text and the --json tree. */
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "results.h"

/* ---- trust ---- */

void trust_text(FILE *f, FILE *err, const struct trust_result *r)
{
	(void)err;
	if (r->trusted)
		fprintf(f, "trusted %s (sha256 %s)\n", r->path, r->sha256);
	else
		fprintf(f, r->revoked ? "revoked %s\n" : "%s was not trusted\n", r->path);
}

void trust_tree(struct jv *t, const struct trust_result *r)
{
	jvb_obj(t);
	put_str(t, "path", r->path);
	if (r->trusted)
		put_str(t, "sha256", r->sha256);
	else
		put_bool(t, "revoked", r->revoked);
	put_bool(t, "trusted", r->trusted);
}

void trust_result_free(struct trust_result *r)
{
	free(r->path);
}

/* ---- resident ---- */

void resident_text(FILE *f, FILE *err, const struct resident_result *r)
{
	(void)err;
	const struct resident_info *i = &r->info;
	if (r->serve)
		return;
	if (r->all) {
		fprintf(f, "stopped %ld resident process%s\n", r->stopped, r->stopped == 1 ? "" : "es");
	} else if (!i->running) {
		fprintf(f, "no resident process runs for %s (its socket would be %s)\n", r->endpoint,
			i->path);
	} else if (r->stop) {
		fprintf(f, "stopped the resident process %ld for %s\n", i->pid, r->endpoint);
	} else {
		fprintf(f, "resident process %ld for %s at %s: %ld channel%s idle, %ld in use, "
			"%ld other command%s connected; it ends %lds after the last command\n",
			i->pid, r->endpoint, i->path, i->idle, i->idle == 1 ? "" : "s", i->out,
			i->clients, i->clients == 1 ? "" : "s", i->keep);
	}
}

void resident_tree(struct jv *t, const struct resident_result *r)
{
	const struct resident_info *i = &r->info;
	jvb_obj(t);
	if (r->all) {
		put_int(t, "stopped", r->stopped);
		return;
	}
	put_bool(t, "running", i->running);
	put_str(t, "endpoint", r->endpoint ? r->endpoint : "");
	put_str(t, "socket", i->path ? i->path : "");
	if (i->running) {
		put_int(t, "pid", i->pid);
		put_str(t, "version", i->version ? i->version : "");
		put_int(t, "channels_idle", i->idle);
		put_int(t, "channels_in_use", i->out);
		put_int(t, "commands", i->clients);
		put_int(t, "keep", i->keep);
	}
	if (r->stop)
		put_bool(t, "stopped", i->running);
}

void resident_result_free(struct resident_result *r)
{
	resident_info_free(&r->info);
	free(r->endpoint);
}

/* ---- doctor ---- */

static const char *doctor_word(enum doctor_state s)
{
	return s == DOCTOR_OK ? "ok" : s == DOCTOR_FAIL ? "FAIL" : "skip";
}

void doctor_text(FILE *f, FILE *err, const struct doctor_result *r)
{
	(void)err;
	for (size_t i = 0; i < r->n; i++) {
		const struct doctor_check *c = &r->v[i];
		fprintf(f, "%-6s%s: %s%s%s\n", doctor_word(c->state), c->check, c->detail,
			c->fix ? "; " : "", c->fix ? c->fix : "");
	}
}

void doctor_tree(struct jv *t, const struct doctor_result *r)
{
	bool ok = true;
	jvb_obj(t);
	struct jv *a = jvb_put(t, "checks");
	jvb_arr(a);
	for (size_t i = 0; i < r->n; i++) {
		const struct doctor_check *c = &r->v[i];
		struct jv *o = jvb_push(a);
		jvb_obj(o);
		put_str(o, "check", c->check);
		put_bool(o, "ok", c->state == DOCTOR_OK);
		put_bool(o, "skipped", c->state == DOCTOR_SKIP);
		put_str(o, "detail", c->detail);
		if (c->fix)
			put_str(o, "fix", c->fix);
		else
			jvb_put(o, "fix"); /* null */
		ok = ok && c->state == DOCTOR_OK;
	}
	put_bool(t, "ok", ok);
}

void doctor_result_free(struct doctor_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].detail);
		free(r->v[i].fix);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* ---- the result types (results.h) ---- */

RESULT_TYPE(trust);
RESULT_TYPE(doctor);
RESULT_TYPE(resident);
