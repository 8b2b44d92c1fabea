/* cmd_doctor.c: sandbox doctor: what sandbox needs, checked one thing at
 * a time, each with what to do when it fails: the config files (and the
 * trust of ./sandbox.ini, trust.h), the engine's client, its daemon and
 * where it is, rootless or not, cgroups and the limits the engine can
 * enforce (from its info), the image. main.c lets this command run when
 * the config files or the engine could not be had: it says so here. A
 * check that depends on one that failed is skipped and says why. Every
 * engine call is ws_engine_call's: under engine_timeout, its output
 * bounded. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "config.h"
#include "engine.h"
#include "envp.h"
#include "jsonr.h"
#include "netproxy.h"
#include "resident.h"
#include "scripts.h"
#include "results.h"
#include "trust.h"
#include "workspace.h"

/* The longest detail kept of what an engine said. */
#define DOCTOR_DETAIL_MAX 600

/* What the engine's info said, as far as doctor needs it. */
struct info {
	bool podman;
	char version[64];
	char cgroups[16];        /* "v1", "v2"; "" unknown */
	bool memory, pids, cpu;  /* limits it can enforce */
	bool rootless;
};

/* s on one line, control bytes as '?', cut at DOCTOR_DETAIL_MAX. */
static char *clean_new(const char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n > DOCTOR_DETAIL_MAX)
		n = DOCTOR_DETAIL_MAX;
	char *d = xstrndup(s, n);
	for (char *p = d; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = *p == '\n' ? ' ' : '?';
	return d;
}

static void add(struct doctor_result *r, const char *check, enum doctor_state st,
		const char *fix, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add(struct doctor_result *r, const char *check, enum doctor_state st,
		const char *fix, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->v[r->n++] = (struct doctor_check){
		.check = check,
		.state = st,
		.detail = clean_new(buf),
		.fix = fix ? clean_new(fix) : NULL,
	};
}

/* ---- the config files ---- */

static void check_user_config(struct doctor_result *r, const char *dir)
{
	if (!dir) {
		add(r, "user config", DOCTOR_OK, NULL, "none (no HOME or XDG_CONFIG_HOME)");
		return;
	}
	char *path = xasprintf("%s/" CFG_USER_FILE, dir);
	struct trust_file f;
	struct err e = {0};
	struct cfg c;
	cfg_init(&c);
	int rc = trust_file_read(path, false, &f, &e);
	if (rc > 0)
		rc = cfg_parse(&c, path, f.data, f.len, &e) < 0 ? -1 : 1;
	if (rc == 0)
		add(r, "user config", DOCTOR_OK, NULL, "none (%s does not exist)", path);
	else if (rc > 0)
		add(r, "user config", DOCTOR_OK, NULL, "%s", path);
	else
		add(r, "user config", DOCTOR_FAIL, "fix it or remove it", "%s", e.msg);
	cfg_free(&c);
	trust_file_free(&f);
	free(path);
}

/* ./sandbox.ini: present or not, trusted, untrusted or changed. */
static void check_found_config(struct doctor_result *r, const char *dir)
{
	const char *name = CFG_FOUND_FILE;
	struct trust_file f, user = {0};
	struct err e = {0};
	int rc = trust_file_read(name, false, &f, &e);
	if (rc == 0) {
		add(r, "project config", DOCTOR_OK, NULL, "none (no %s here)", name);
		trust_file_free(&f);
		return;
	}
	if (rc < 0) {
		add(r, "project config", DOCTOR_FAIL, "fix it or remove it", "%s", e.msg);
		trust_file_free(&f);
		return;
	}
	/* The user's own file, in its own directory, is no project's. */
	char *user_path = dir ? xasprintf("%s/" CFG_USER_FILE, dir) : NULL;
	struct err ue = {0};
	if (user_path && trust_file_read(user_path, false, &user, &ue) > 0 &&
	    user.dev == f.dev && user.ino == f.ino) {
		add(r, "project config", DOCTOR_OK, NULL, "%s is the user config", name);
		goto done;
	}
	if (!dir) {
		add(r, "project config", DOCTOR_FAIL, "set HOME, or name it with --config",
		    "%s is not trusted: without HOME or XDG_CONFIG_HOME there is no trust store", name);
		goto done;
	}
	switch (trust_lookup(dir, &f, &e)) {
	case TRUST_OK: {
		struct cfg c;
		cfg_init(&c);
		if (cfg_parse(&c, name, f.data, f.len, &e) < 0)
			add(r, "project config", DOCTOR_FAIL, "fix it, then run 'sandbox trust' again", "%s", e.msg);
		else
			add(r, "project config", DOCTOR_OK, NULL, "%s (trusted)", name);
		cfg_free(&c);
		break;
	}
	case TRUST_UNKNOWN:
		add(r, "project config", DOCTOR_FAIL, TRUST_FIX, "%s is not trusted", name);
		break;
	case TRUST_CHANGED:
		add(r, "project config", DOCTOR_FAIL, TRUST_FIX, "%s changed since 'sandbox trust'", name);
		break;
	default:
		add(r, "project config", DOCTOR_FAIL, "fix the trust store, or name the file with --config",
		    "%s", e.msg);
	}
done:
	trust_file_free(&user);
	free(user_path);
	trust_file_free(&f);
}

static void check_config(struct app *a, struct doctor_result *r)
{
	char *dir = trust_dir_new();
	check_user_config(r, dir);
	if (a->config) {
		const char *by = a->config_from_env ? "SANDBOX_CONFIG" : "--config";
		struct cfg c;
		struct err e = {0};
		cfg_init(&c);
		if (cfg_load(&c, a->config, true, &e) < 0) {
			char fix[128];
			snprintf(fix, sizeof(fix), "fix the file, or the name %s gives", by);
			add(r, "project config", DOCTOR_FAIL, fix, "%s", e.msg);
		} else {
			add(r, "project config", DOCTOR_OK, NULL, "%s (named by %s)", a->config, by);
		}
		cfg_free(&c);
	} else {
		check_found_config(r, dir);
	}
	free(dir);
}

/* ---- the engine ---- */

static bool is_podman(const char *engine)
{
	const char *base = strrchr(engine, '/');
	return strncmp(base ? base + 1 : engine, "podman", 6) == 0;
}

/* Runs one engine call into out; 0, or -1 with e set (the engine's words
 * after what). An interruption is the caller's to pass up. */
static int call(struct app *a, struct strvec *argv, struct sbuf *out, const char *what,
		bool *missing, struct err *e)
{
	return ws_engine_call(a, argv, out, what, ERR_FAILED, missing, e);
}

static void check_client(struct app *a, struct doctor_result *r, int *fatal, struct err *ie)
{
	if (!a->engine) {
		/* main.c's message holds a fix of its own: the detail is ours. */
		const char *fix = "install Docker (apt-get install docker.io) or Podman "
				  "(apt-get install podman), or pass --engine";
		if (a->cfg.engine[0] == '/')
			add(r, "engine", DOCTOR_FAIL, fix, "%s", a->engine_err.msg);
		else
			add(r, "engine", DOCTOR_FAIL, fix, "'%s' not found in PATH", a->cfg.engine);
		return;
	}
	struct strvec argv = {0};
	struct sbuf out = {0};
	struct err e = {0};
	engine_version_argv(&argv, a->engine);
	if (call(a, &argv, &out, "--version", NULL, &e) < 0) {
		if (e.kind == ERR_INTERRUPTED) {
			*fatal = 1;
			*ie = e;
		} else {
			/* Docker 20.10's client checks the context first. */
			add(r, "engine", DOCTOR_FAIL,
			    strstr(e.msg, "context") ? "check DOCKER_CONTEXT and docker context ls"
						     : "reinstall it, or pass --engine",
			    "%s: %s", a->engine, e.msg);
		}
	} else {
		char *nl = out.buf ? strchr(out.buf, '\n') : NULL;
		if (nl)
			*nl = '\0';
		add(r, "engine", DOCTOR_OK, NULL, "%s (%s)", a->engine,
		    out.buf && *out.buf ? out.buf : "no version given");
	}
	sbuf_free(&out);
}

/* Where the daemon is, as the caller's environment or context chose it:
 * into where; the host itself into host (Docker), when known. 0, or -1
 * with e set when the context cannot be read. */
static int daemon_where(struct app *a, bool podman, char *where, size_t n, char *host,
			size_t hn, struct err *e)
{
	char *const *env = a->envp.v;
	const char *v;
	host[0] = '\0';
	if (podman) {
		if ((v = envp_get(env, "CONTAINER_HOST")) && *v) {
			snprintf(where, n, "at %s (remote: CONTAINER_HOST)", v);
			snprintf(host, hn, "%s", v);
		} else if ((v = envp_get(env, "CONTAINER_CONNECTION")) && *v) {
			snprintf(where, n, "through the connection %s (remote: CONTAINER_CONNECTION)", v);
		} else {
			snprintf(where, n, "local (no daemon: podman runs the containers itself)");
		}
		return 0;
	}
	if ((v = envp_get(env, "DOCKER_HOST")) && *v) {
		snprintf(host, hn, "%s", v);
		snprintf(where, n, "at %s (%s: DOCKER_HOST)", v,
			 strncmp(v, "unix://", 7) == 0 ? "local" : "remote");
		return 0;
	}
	struct strvec argv = {0};
	struct sbuf out = {0};
	engine_context_argv(&argv, a->engine);
	if (call(a, &argv, &out, "context inspect", NULL, e) < 0) {
		sbuf_free(&out);
		return -1;
	}
	sbuf_rtrim(&out);
	const char *s = out.buf ? out.buf : "";
	const char *tab = strchr(s, '\t');
	const char *ctx = (v = envp_get(env, "DOCKER_CONTEXT")) && *v ? " (DOCKER_CONTEXT)" : "";
	if (tab && tab[1]) {
		snprintf(host, hn, "%s", tab + 1);
		snprintf(where, n, "at %s (%s: context %.*s%s)", tab + 1,
			 strncmp(tab + 1, "unix://", 7) == 0 ? "local" : "remote", (int)(tab - s), s, ctx);
	} else {
		snprintf(where, n, "(context %s%s)", s, ctx);
	}
	sbuf_free(&out);
	return 0;
}

static bool str_in(const struct jv *arr, const char *s)
{
	for (size_t i = 0; i < jv_count(arr); i++) {
		const char *x = jv_str(jv_at(arr, i));
		if (x && strcmp(x, s) == 0)
			return true;
	}
	return false;
}

static bool jv_true(const struct jv *v)
{
	bool b = false;
	return jv_bool(v, &b) && b;
}

/* The info object into in; NULL, or the daemon's own error (Docker's
 * newer clients exit 0 with ServerErrors when it is down). */
static const char *info_read(const struct jv *d, struct info *in)
{
	const struct jv *errs = jv_get(d, "ServerErrors");
	if (jv_count(errs) && jv_str(jv_at(errs, 0)))
		return jv_str(jv_at(errs, 0));
	const char *v;
	if (in->podman) {
		const struct jv *host = jv_get(d, "host");
		v = jv_str(jv_get(jv_get(d, "version"), "Version"));
		snprintf(in->version, sizeof(in->version), "Podman %s", v ? v : "(version unknown)");
		v = jv_str(jv_get(host, "cgroupVersion"));
		snprintf(in->cgroups, sizeof(in->cgroups), "%s", v ? v : "");
		const struct jv *ctl = jv_get(host, "cgroupControllers");
		in->memory = str_in(ctl, "memory");
		in->pids = str_in(ctl, "pids");
		in->cpu = str_in(ctl, "cpu");
		in->rootless = jv_true(jv_get(jv_get(host, "security"), "rootless"));
		return NULL;
	}
	v = jv_str(jv_get(d, "ServerVersion"));
	if (!v || !*v)
		return "the daemon gave no version";
	snprintf(in->version, sizeof(in->version), "Docker %s", v);
	v = jv_str(jv_get(d, "CgroupVersion"));
	snprintf(in->cgroups, sizeof(in->cgroups), "%s%s", v && *v ? "v" : "", v ? v : "");
	in->memory = jv_true(jv_get(d, "MemoryLimit"));
	in->pids = jv_true(jv_get(d, "PidsLimit"));
	in->cpu = jv_true(jv_get(d, "CpuCfsQuota"));
	in->rootless = str_in(jv_get(d, "SecurityOptions"), "name=rootless");
	return NULL;
}

/* What to do about a daemon that did not answer. */
static const char *daemon_fix(bool podman, const char *host, const char *msg)
{
	if (strstr(msg, "permission denied"))
		return "run as root, or as a member of the docker group (which is root-equivalent)";
	if (podman)
		return host[0] ? "start the Podman service there (podman system service), or unset CONTAINER_HOST"
			       : "see podman info's message";
	if (!host[0] || strncmp(host, "unix://", 7) == 0)
		return "start it: systemctl start docker, or as root where no service manager runs: dockerd >/var/log/dockerd.log 2>&1 &";
	return "check that the daemon there runs and can be reached, or unset DOCKER_HOST";
}

/* The daemon, then what its info says. 0 when it answered; in filled. */
static int check_daemon(struct app *a, struct doctor_result *r, struct info *in, int *fatal,
			struct err *ie)
{
	char where[1200], host[1024];
	struct err e = {0};
	in->podman = is_podman(a->engine);
	if (daemon_where(a, in->podman, where, sizeof(where), host, sizeof(host), &e) < 0) {
		if (e.kind == ERR_INTERRUPTED)
			goto interrupted;
		add(r, "daemon", DOCTOR_FAIL, "check DOCKER_CONTEXT and docker context ls", "%s", e.msg);
		return -1;
	}
	struct strvec argv = {0};
	struct sbuf out = {0};
	engine_info_argv(&argv, a->engine);
	int rc = call(a, &argv, &out, "info", NULL, &e);
	if (rc < 0) {
		sbuf_free(&out);
		if (e.kind == ERR_INTERRUPTED)
			goto interrupted;
		add(r, "daemon", DOCTOR_FAIL, daemon_fix(in->podman, host, e.msg), "no answer %s: %s",
		    where, e.msg);
		return -1;
	}
	char perr[200];
	struct jv *d = jv_parse(out.buf ? out.buf : "", out.len, NULL, perr, sizeof(perr));
	const char *bad = d ? info_read(d, in) : NULL;
	if (!d || !jv_is(d, JV_OBJECT))
		add(r, "daemon", DOCTOR_FAIL, "check that the engine works: its info --format json",
		    "info: not a JSON object: %s", d ? "another value" : perr);
	else if (bad)
		add(r, "daemon", DOCTOR_FAIL, daemon_fix(in->podman, host, bad),
		    "no answer %s: info: %s", where, bad);
	else
		add(r, "daemon", DOCTOR_OK, NULL, "%s %s", in->version, where);
	rc = d && jv_is(d, JV_OBJECT) && !bad ? 0 : -1;
	jv_free(d);
	sbuf_free(&out);
	return rc;
interrupted:
	*fatal = 1;
	*ie = e;
	return -1;
}

/* The limits the config asks for, and whether the engine can enforce
 * them: one it cannot is a failure only when it is asked for (pids_limit
 * is, by default), since the engine then drops it, at most with a
 * warning. */
static void check_limits(struct app *a, struct doctor_result *r, const struct info *in)
{
	char pids[32];
	snprintf(pids, sizeof(pids), "pids_limit %ld", a->cfg.pids_limit);
	struct {
		const char *name;
		bool can;
		const char *asked; /* the key and its value, or NULL */
		const char *fix;
	} l[] = {
		{"memory", in->memory, a->cfg.memory ? "memory" : NULL, "remove memory from the config"},
		{"pids", in->pids, a->cfg.pids_limit > 0 ? pids : NULL,
		 "set pids_limit = -1 in the config"},
		{"cpu", in->cpu, a->cfg.cpus ? "cpus" : NULL, "remove cpus from the config"},
	};
	struct sbuf can = {0}, lost = {0}, idle = {0}, fix = {0};
	for (size_t i = 0; i < ARRAY_LEN(l); i++) {
		struct sbuf *to = l[i].can ? &can : l[i].asked ? &lost : &idle;
		sbuf_addf(to, "%s%s", to->len ? ", " : "", l[i].name);
		if (!l[i].can && l[i].asked) {
			if (strcmp(l[i].name, "pids") == 0)
				sbuf_addf(&lost, " (%s)", l[i].asked);
			sbuf_addf(&fix, "%s%s", fix.len ? "; " : "", l[i].fix);
		}
	}
	const char *how = in->rootless && strcmp(in->cgroups, "v2") != 0
				  ? "rootless containers need cgroup v2, with the controllers delegated"
				  : "enable the cgroup controllers";
	if (lost.len) {
		sbuf_addf(&fix, "; or %s", how);
		add(r, "limits", DOCTOR_FAIL, fix.buf,
		    "the engine cannot enforce %s, which the config asks for%s%s", lost.buf,
		    idle.len ? ", nor " : "", idle.len ? idle.buf : "");
	} else if (idle.len) {
		add(r, "limits", DOCTOR_OK, NULL, "%s enforced; not %s, which the config does not ask for",
		    can.len ? can.buf : "none", idle.buf);
	} else {
		add(r, "limits", DOCTOR_OK, NULL, "%s enforced", can.buf);
	}
	sbuf_free(&can);
	sbuf_free(&lost);
	sbuf_free(&idle);
	sbuf_free(&fix);
}

static int check_image(struct app *a, struct doctor_result *r, const struct info *in,
		       struct err *ie)
{
	/* from: the snapshot's image (whose label create checks). */
	char *snap = a->cfg.from ? xasprintf("%s:%s", SNAPSHOT_REPO, a->cfg.from) : NULL;
	const char *img = snap ? snap : a->cfg.image;
	if (!img) {
		add(r, "image", DOCTOR_FAIL, "pass --image IMG, or set image in sandbox.ini",
		    "none configured");
		return 0;
	}
	const char *eng = in->podman ? "podman" : "docker";
	struct strvec argv = {0};
	struct sbuf out = {0};
	struct err e = {0};
	bool missing = false;
	engine_image_argv(&argv, a->engine, img);
	int rc = call(a, &argv, &out, "image inspect", &missing, &e);
	if (rc < 0 && e.kind == ERR_INTERRUPTED) {
		*ie = e;
		sbuf_free(&out);
		free(snap);
		return -1;
	}
	char fix[1200];
	if (snap)
		snprintf(fix, sizeof(fix), "'sandbox snapshots' lists the snapshots there are");
	else
		snprintf(fix, sizeof(fix), "pull it (%s pull %s), build it, or pass --image with one of %s images",
			 eng, img, eng);
	if (rc < 0 && (e.kind == ERR_ENGINE || !strstr(e.msg, "not known")))
		add(r, "image", DOCTOR_FAIL, fix, "%s: %s", img, e.msg);
	else if (rc < 0 || missing)
		add(r, "image", DOCTOR_FAIL, fix, "%s is not here (the engine would try to pull it)", img);
	else {
		sbuf_rtrim(&out);
		const char *id = out.buf ? out.buf : "";
		if (strncmp(id, "sha256:", 7) == 0)
			id += 7;
		add(r, "image", DOCTOR_OK, NULL, "%s (%.12s)", img, id);
	}
	sbuf_free(&out);
	free(snap);
	return 0;
}

/* ---- the runtime ---- */

/* The runtime asked for (runtime, --runtime), tried: a throwaway
 * container of the image with it, as a workspace would be made (network
 * none), which must answer SCRIPT_RUNTIME_PROBE: the kernel, and a second
 * line when the image's ls fails on it. Then it is gone. */
static int check_runtime(struct app *a, struct doctor_result *r, bool image_ok, struct err *ie)
{
	const char *rt = a->cfg.runtime;
	if (!rt) {
		add(r, "runtime", DOCTOR_OK, NULL, "the engine's own (runtime = NAME asks for another: runsc for gVisor)");
		return 0;
	}
	if (!image_ok) {
		add(r, "runtime", DOCTOR_SKIP, NULL, "%s: not tried: no image to try it with", rt);
		return 0;
	}
	struct strvec argv = {0};
	strvec_push(&argv, a->engine);
	engine_runtime_args(&argv, a->engine, rt, "none", true);
	strvec_push(&argv, "run");
	engine_runtime_args(&argv, a->engine, rt, NULL, false);
	strvec_push(&argv, "--rm");
	strvec_push(&argv, "--network=none");
	strvec_push(&argv, "--label=" LABEL_WORKSPACE "=false");
	strvec_push(&argv, "--entrypoint=sh");
	strvec_push(&argv, "--");
	strvec_push(&argv, a->cfg.image);
	strvec_push(&argv, "-c");
	strvec_push(&argv, SCRIPT_RUNTIME_PROBE);
	struct sbuf out = {0};
	struct err e = {0};
	int rc = call(a, &argv, &out, "a throwaway container", NULL, &e);
	if (rc < 0 && e.kind == ERR_INTERRUPTED) {
		*ie = e;
		sbuf_free(&out);
		return -1;
	}
	char fix[800];
	ws_runtime_advice(a, fix, sizeof(fix));
	sbuf_rtrim(&out);
	const char *kernel = out.buf ? out.buf : "?";
	char *ls = out.buf ? strchr(out.buf, '\n') : NULL;
	if (ls)
		*ls++ = '\0';
	const char *whose = engine_runtime_is_runsc(rt) ? ", gVisor's" : "";
	if (rc < 0)
		add(r, "runtime", DOCTOR_FAIL, fix, "%s: %s", rt, e.msg);
	else if (ls)
		add(r, "runtime", DOCTOR_FAIL,
		    "use a newer runtime (gVisor's own releases of runsc), or an image whose ls and stat do not use statx "
		    "(BusyBox): the file tools run the image's stat",
		    "%s: a throwaway container ran with it (kernel %.40s%s), but the image's tools fail on it: %.200s", rt,
		    kernel, whose, ls);
	else
		add(r, "runtime", DOCTOR_OK, NULL, "%s: a throwaway container ran with it (kernel %.40s%s)", rt, kernel,
		    whose);
	sbuf_free(&out);
	return 0;
}

/* ---- the resident process ---- */

static void check_resident(struct app *a, struct doctor_result *r)
{
	if (!a->engine) {
		add(r, "resident", DOCTOR_SKIP, NULL, "not checked: no engine to ask");
		return;
	}
	if (a->cfg.keep == 0) {
		add(r, "resident", DOCTOR_OK, NULL, "off (keep = no): every call is an engine exec");
		return;
	}
	struct resident_info i;
	struct err e = {0};
	char *endpoint = resident_endpoint_new(a->engine, a->envp.v);
	if (resident_query(a->engine, a->envp.v, &i, &e) < 0) {
		add(r, "resident", DOCTOR_FAIL,
		    "remove that directory, set SANDBOX_RUNTIME_DIR to one of mode 0700, or keep = no",
		    "%s: %s", endpoint, e.msg);
	} else if (i.running) {
		add(r, "resident", DOCTOR_OK, NULL,
		    "pid %ld for %s at %s: %ld channel%s idle, %ld in use (%s)", i.pid, endpoint,
		    i.path, i.idle, i.idle == 1 ? "" : "s", i.out, i.version ? i.version : "");
	} else {
		add(r, "resident", DOCTOR_OK, NULL,
		    "none runs for %s; the next command that needs a channel starts one at %s, for keep = %lds",
		    endpoint, i.path, a->cfg.keep);
	}
	resident_info_free(&i);
	free(endpoint);
}

/* ---- the network ---- */

/* The network mode of a new workspace, and for allow its patterns and
 * the proxies that run (their locks held, each naming its workspace). */
static void check_network(struct app *a, struct doctor_result *r)
{
	const char *net = a->cfg.network;
	if (!cfg_network_allow(&a->cfg)) {
		add(r, "network", DOCTOR_OK, NULL, "%s%s", net,
		    strcmp(net, "none") == 0 ? ": loopback alone"
		    : strcmp(net, "bridge") == 0 ? ": the engine's bridge, the internet and this host's networks"
		    : ": a network of the engine's");
		return;
	}
	if (a->cfg.allow.n == 0) {
		add(r, "network", DOCTOR_FAIL, "add allow = HOST (as pypi.org), or pick another network",
		    "allow, with no pattern: a create is refused");
		return;
	}
	struct strvec running = {0};
	struct err e = {0};
	int rc = netproxy_running(&running, &e);
	char *pats = cfg_allow_label_new(&a->cfg);
	struct sbuf names = {0};
	for (size_t i = 0; i < running.n; i++)
		sbuf_addf(&names, "%s%s", i ? ", " : "", running.v[i]);
	if (rc < 0)
		add(r, "network", DOCTOR_FAIL, "remove that directory, or set SANDBOX_RUNTIME_DIR to one of mode 0700",
		    "allow (%s): %s", pats, e.msg);
	else
		add(r, "network", DOCTOR_OK, NULL, "allow (%s): %zu prox%s running%s%s%s", pats, running.n,
		    running.n == 1 ? "y" : "ies", running.n ? " (" : "", names.buf ? names.buf : "",
		    running.n ? ")" : "");
	sbuf_free(&names);
	free(pats);
	strvec_clear(&running);
}

int do_doctor(struct app *a, struct doctor_result *r, struct err *e)
{
	*r = (struct doctor_result){0};
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->o.args.v[0]);
	int fatal = 0;
	struct info in = {0};
	check_config(a, r);
	check_client(a, r, &fatal, e);
	bool client = !fatal && r->v[r->n - 1].state == DOCTOR_OK;
	const char *why = "no engine to ask";
	if (client && check_daemon(a, r, &in, &fatal, e) == 0) {
		add(r, "rootless", DOCTOR_OK, NULL, "%s", in.rootless ? "yes" : "no");
		add(r, "cgroups", DOCTOR_OK, NULL, "%s",
		    in.cgroups[0] ? in.cgroups : "unknown (the engine does not say)");
		check_limits(a, r, &in);
		if (check_image(a, r, &in, e) < 0 ||
		    check_runtime(a, r, r->v[r->n - 1].state == DOCTOR_OK && !a->cfg.from, e) < 0)
			fatal = 1;
	} else if (!fatal) {
		/* What depends on what failed is not pretended. */
		if (client)
			why = "the daemon did not answer";
		else
			add(r, "daemon", DOCTOR_SKIP, NULL, "not checked: %s", why);
		static const char *const rest[] = {"rootless", "cgroups", "limits", "image", "runtime"};
		for (size_t i = 0; i < ARRAY_LEN(rest); i++)
			add(r, rest[i], DOCTOR_SKIP, NULL, "not checked: %s", why);
	}
	if (fatal) {
		doctor_result_free(r);
		return -1;
	}
	check_resident(a, r);
	check_network(a, r);
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].state != DOCTOR_OK)
			return 1;
	return 0;
}
