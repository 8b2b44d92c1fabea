/* workspace.c: see workspace.h. */
#include "workspace.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "netproxy.h"
#include "resident.h"
#include "scripts.h"
#include "spawn.h"

void ws_free(struct ws *ws)
{
	free(ws->name);
	free(ws->id);
	free(ws->workdir);
	free(ws->nonce);
	free(ws->runtime);
	free(ws->network);
	free(ws->allow);
	memset(ws, 0, sizeof(*ws));
}

int ws_refuse_pool(const char *ref, struct err *e)
{
	return err_set(e, ERR_USAGE, "%s is a pool's workspace: create one from the pool, or remove the pool with 'sandbox pool drain'", ref);
}

int ws_check_ref(const char *ref, struct err *e)
{
	if (!cfg_valid_container_name(ref))
		return err_set(e, ERR_USAGE, "'%s' is not a workspace ref: expected a container name like sandbox-0123456789ab", ref);
	/* A pool's workspace waits for a taker: nobody's yet. */
	if (strncmp(ref, "sandbox-pool", 12) == 0)
		return ws_refuse_pool(ref, e);
	return 0;
}

const char *ws_engine_name(const struct app *a)
{
	const char *base = strrchr(a->engine, '/');
	return base ? base + 1 : a->engine;
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] && tolower((unsigned char)hay[i]) == needle[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/* The engine's message, made one line and free of control bytes. */
static void one_line(char *dst, size_t cap, const struct sbuf *sb)
{
	size_t j = 0;
	const char *s = sb && sb->buf ? sb->buf : "";
	for (size_t i = 0; s[i] && j + 1 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[j++] = (c == '\n' || c == '\t') ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	while (j && dst[j - 1] == ' ')
		j--;
	dst[j] = '\0';
}

int ws_engine_error(const char *what, const struct sbuf *engine_err,
		    enum err_kind kind, struct err *e)
{
	char msg[700];
	one_line(msg, sizeof(msg), engine_err);
	const char *s = msg;
	if (contains_nocase(s, "cannot connect") || contains_nocase(s, "unable to connect") ||
	    contains_nocase(s, "is the docker daemon running") ||
	    contains_nocase(s, "connection refused"))
		kind = ERR_ENGINE;
	return err_set(e, kind, "%s: %s", what, *s ? s : "the engine gave no reason");
}

static char *cache_path(struct app *a, const char *name)
{
	if (!a->cache_dir)
		return NULL;
	return xasprintf("%s/%s-%s", a->cache_dir, ws_engine_name(a), name);
}

/* The cache file holds the full ID, the workdir and, when there is one,
 * the ttl's deadline (else 0 when a runtime follows) and the runtime: a
 * line each. */
static bool cache_get(struct app *a, const char *name, struct ws *ws)
{
	char *path = cache_path(a, name);
	if (!path)
		return false;
	char buf[5400]; /* an ID, a workdir, a deadline and a runtime */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	char *nl = strchr(buf, '\n');
	char *end = nl ? strchr(nl + 1, '\n') : NULL;
	if (!end || nl - buf < 12 || (size_t)(nl - buf) != strspn(buf, "0123456789abcdef"))
		return false;
	*end = '\0';
	ws->id = xstrndup(buf, (size_t)(nl - buf));
	ws->workdir = nl[1] ? xstrdup(nl + 1) : NULL;
	char *rest = end + 1;
	ws->expires = strtoll(rest, &rest, 10);
	char *rt_end = *rest == '\n' ? strchr(rest + 1, '\n') : NULL;
	if (rt_end) {
		*rt_end = '\0';
		if (cfg_valid_runtime(rest + 1))
			ws->runtime = xstrdup(rest + 1);
	}
	return true;
}

bool ws_cached(struct app *a, const char *name, struct ws *ws)
{
	memset(ws, 0, sizeof(*ws));
	if (!cache_get(a, name, ws))
		return false;
	ws->name = xstrdup(name);
	ws->cached = true;
	return true;
}

/* Best effort: without a cache every call just inspects first. */
static void cache_put(struct app *a, const char *name, const struct ws *ws)
{
	char *path = cache_path(a, name);
	if (!path || make_dirs(a->cache_dir) < 0) {
		free(path);
		return;
	}
	char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0) {
		char *line = ws->runtime
			     ? xasprintf("%s\n%s\n%lld\n%s\n", ws->id, ws->workdir ? ws->workdir : "",
					 ws->expires, ws->runtime)
			     : ws->expires > 0
			     ? xasprintf("%s\n%s\n%lld\n", ws->id, ws->workdir ? ws->workdir : "", ws->expires)
			     : xasprintf("%s\n%s\n", ws->id, ws->workdir ? ws->workdir : "");
		bool ok = write_all(fd, line, strlen(line)) == 0;
		free(line);
		if (close(fd) == 0 && ok && rename(tmp, path) == 0)
			tmp[0] = '\0';
	}
	if (tmp[0])
		unlink(tmp);
	free(tmp);
	free(path);
}

void ws_forget(struct app *a, const char *name)
{
	char *path = cache_path(a, name);
	if (path)
		unlink(path);
	free(path);
}

double ws_step_timeout(const struct app *a)
{
	return a->cfg.timeout > 0 ? a->cfg.timeout : WS_STEP_TIMEOUT;
}

int ws_engine_call(const struct app *a, struct strvec *argv, struct sbuf *out,
		   const char *what, enum err_kind kind, bool *missing, struct err *e)
{
	return ws_engine_call_within(a, argv, out, what, kind, missing, a->cfg.engine_timeout, e);
}

int ws_engine_call_within(const struct app *a, struct strvec *argv, struct sbuf *out,
			  const char *what, enum err_kind kind, bool *missing, double seconds,
			  struct err *e)
{
	struct sbuf errout = {0};
	int status = proc_run(strvec_argv(argv), a->envp.v, out, &errout,
			      (long)(seconds * 1000), e);
	strvec_clear(argv);
	int rc = status == 0 ? 0 : -1;
	/* Docker says "No such container/image", Podman "no such container"
	 * but "image not known". */
	const char *said = errout.buf ? errout.buf : "";
	if (status > 0 && missing &&
	    (contains_nocase(said, "no such") || contains_nocase(said, "image not known"))) {
		*missing = true;
		rc = 0;
	} else if (status > 0) {
		ws_engine_error(what, &errout, kind, e);
	}
	sbuf_free(&errout);
	return rc;
}

int ws_inspect(struct app *a, const char *ref, enum ws_state *state, struct ws *ws,
	       struct err *e)
{
	struct strvec argv = {0};
	struct sbuf out = {0};
	bool missing = false;
	engine_inspect_argv(&argv, a->engine, ref);
	int rc = ws_engine_call(a, &argv, &out, "inspect", ERR_ENGINE, &missing, e);
	if (rc == 0 && missing)
		*state = WS_MISSING;
	if (rc < 0 || missing)
		goto done;
	rc = -1;
	/* Only the line end: Podman prints a missing label as an empty field
	 * (Docker as "<no value>"), so trailing tabs are fields. */
	while (out.len && (out.buf[out.len - 1] == '\n' || out.buf[out.len - 1] == '\r'))
		out.buf[--out.len] = '\0';
	/* ID, running, label, workdir, nonce, expires, name: tab-separated;
	 * the workdir has no control characters (checked at create). */
	char *f[10] = {out.buf ? out.buf : ""};
	for (int i = 1; i < 10 && f[i - 1]; i++) {
		f[i] = strchr(f[i - 1], '\t');
		if (f[i])
			*f[i]++ = '\0';
	}
	if (!f[5] || strchr(f[0], '\n') || strspn(f[0], "0123456789abcdef") < 12) {
		err_set(e, ERR_ENGINE, "inspect %s: unexpected answer from the engine", ref);
		goto done;
	}
	/* A pool's, by its ID: as nobody's as by its name (ws_check_ref). */
	if (strcmp(f[2], "true") == 0 && f[6] && engine_pool_name(f[6])) {
		ws_refuse_pool(ref, e);
		goto done;
	}
	if (strcmp(f[2], "true") != 0)
		*state = WS_FOREIGN;
	else
		*state = strcmp(f[1], "true") == 0 ? WS_RUNNING : WS_STOPPED;
	if (ws) {
		ws->id = xstrdup(f[0]);
		ws->workdir = f[3][0] == '/' ? xstrdup(f[3]) : NULL;
		ws->nonce = xstrdup(f[4]);
		ws->expires = strtoll(f[5], NULL, 10);
		/* Docker says "<no value>" for a label that is not there. */
		ws->runtime = f[7] && cfg_valid_runtime(f[7]) && strcmp(f[7], "<no value>") != 0
			      ? xstrdup(f[7]) : NULL;
		ws->network = f[8] && cfg_valid_runtime(f[8]) ? xstrdup(f[8]) : NULL;
		const char *allow = f[9] ? engine_allow_open(ws->nonce, f[9]) : NULL;
		ws->allow = allow ? xstrdup(allow) : NULL;
	}
	rc = 0;
done:
	sbuf_free(&out);
	return rc;
}

static int start_container(struct app *a, const struct ws *ws, struct err *e)
{
	struct strvec argv = {0};
	engine_start_argv(&argv, a->engine, ws->id, ws->runtime, ws->network);
	return ws_engine_call(a, &argv, NULL, "cannot start the workspace", ERR_WORKSPACE, NULL, e);
}

static bool ws_expired(const struct ws *ws)
{
	return ws->expires > 0 && (long long)time(NULL) >= ws->expires;
}

int ws_attach(struct app *a, const char *ref, bool trust_cache, struct ws *ws,
	      struct err *e)
{
	memset(ws, 0, sizeof(*ws));
	if (ws_check_ref(ref, e) < 0)
		return -1;
	ws->name = xstrdup(ref);
	if (trust_cache && cache_get(a, ref, ws)) {
		ws->cached = true;
		if (ws_expired(ws)) {
			err_set(e, ERR_WORKSPACE, "workspace %s expired (its ttl ran out); remove it with 'sandbox prune --expired' and create another", ref);
			goto fail;
		}
		/* A proxy that was killed is started again: that takes the
		 * workspace as the engine says it is. */
		if (!netproxy_lost(ws->id))
			return 0;
		ws_free(ws);
		ws->name = xstrdup(ref);
	}
	enum ws_state state;
	if (ws_inspect(a, ref, &state, ws, e) < 0)
		goto fail;
	if (state != WS_MISSING && state != WS_FOREIGN && ws_expired(ws)) {
		err_set(e, ERR_WORKSPACE, "workspace %s expired (its ttl ran out); remove it with 'sandbox prune --expired' and create another", ref);
		goto fail;
	}
	switch (state) {
	case WS_MISSING:
		err_set(e, ERR_WORKSPACE, "workspace %s does not exist (destroyed?); create one with 'sandbox create'", ref);
		goto fail;
	case WS_FOREIGN:
		err_set(e, ERR_WORKSPACE, "container %s has no label sandbox.workspace=true; refusing to touch it", ref);
		goto fail;
	case WS_STOPPED:
		/* A proxy of its last run may still be ending. */
		if (ws->allow)
			netproxy_gone(ws->id, false);
		if (start_container(a, ws, e) < 0)
			goto fail;
		break;
	case WS_RUNNING:
		break;
	}
	/* Its proxy ends when it stops: a start, or a start by the engine,
	 * needs a new one. One that does not start costs the workspace its
	 * network, not its commands (start says why: do_start). */
	struct err why = {0};
	if (netproxy_start(a, ws, &why) < 0 && (why.kind == ERR_INTERRUPTED || spawn_verbose))
		fprintf(stderr, "sandbox: %s\n", why.msg);
	if (why.kind == ERR_INTERRUPTED) {
		*e = why;
		goto fail;
	}
	cache_put(a, ref, ws);
	return 0;
fail:
	ws_forget(a, ref);
	ws_free(ws);
	return -1;
}

static bool full_id(const char *id);

int ws_remove(struct app *a, const char *ref, struct err *e)
{
	struct strvec argv = {0};
	char *ids[] = {(char *)ref};
	bool gone = false; /* already: no error */
	engine_rm_argv(&argv, a->engine, ids, 1);
	if (ws_engine_call(a, &argv, NULL, "cannot remove the workspace", ERR_FAILED, &gone, e) < 0)
		return -1;
	copy_forget(ref); /* a copy's baseline, when ref is its ID */
	if (full_id(ref))
		netproxy_gone(ref, true);
	return 0;
}

/* Detached removals (run's, from a pool), in the cache directory: the
 * file removing-ENGINE, which each holds a shared flock on while it
 * works (flock: the lock goes with the open file into the child, and
 * stays while it lives); and a file removing-ENGINE-ID for each, made
 * before and removed after its removal worked, so that one whose
 * process died or failed is found later. */
static char *removals_path(const struct app *a, const char *id)
{
	return id ? xasprintf("%s/removing-%s-%s", a->cache_dir, ws_engine_name(a), id)
		  : xasprintf("%s/removing-%s", a->cache_dir, ws_engine_name(a));
}

static bool full_id(const char *id)
{
	return strlen(id) == 64 && strspn(id, "0123456789abcdef") == 64;
}

int ws_remove_detached(struct app *a, const char *id)
{
	if (!a->cache_dir || !full_id(id))
		return -1;
	make_dirs(a->cache_dir);
	char *path = removals_path(a, NULL);
	int lock = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(path);
	if (lock >= 0 && flock(lock, LOCK_SH | LOCK_NB) < 0) {
		close(lock); /* a drain or a prune works: the caller removes it */
		lock = -1;
	}
	if (lock < 0)
		return -1;
	char *note = removals_path(a, id);
	int fd = open(note, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	pid_t pid = fd < 0 ? -1 : spawn_fork_detached(lock);
	if (pid == 0) {
		int rc = ws_remove(a, id, NULL);
		if (rc == 0)
			unlink(note);
		_exit(rc < 0 ? 1 : 0);
	}
	if (fd >= 0)
		close(fd);
	if (pid < 0)
		unlink(note);
	free(note);
	close(lock); /* the child's copy holds it */
	return pid < 0 ? -1 : 0;
}

/* The records of removals whose process is gone (we hold the lock): their
 * workspaces are removed now, and said so. */
static void removals_left(struct app *a)
{
	char *prefix = xasprintf("removing-%s-", ws_engine_name(a));
	size_t n = strlen(prefix);
	struct strvec ids = {0};
	DIR *d = opendir(a->cache_dir);
	for (struct dirent *de; d && (de = readdir(d));)
		if (strncmp(de->d_name, prefix, n) == 0 && full_id(de->d_name + n))
			strvec_push(&ids, de->d_name + n);
	if (d)
		closedir(d);
	for (size_t i = 0; i < ids.n; i++) {
		if (ws_remove(a, ids.v[i], NULL) < 0)
			continue;
		char *note = removals_path(a, ids.v[i]);
		unlink(note);
		free(note);
		fprintf(stderr, "sandbox: removed %.12s, a run's workspace whose removal in the background did not finish\n",
			ids.v[i]);
	}
	strvec_clear(&ids);
	free(prefix);
}

int ws_removals_hold(struct app *a)
{
	if (!a->cache_dir)
		return -1;
	char *path = removals_path(a, NULL);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return -1; /* none was ever started here */
	int secs = a->cfg.engine_timeout + 5;
	long long until = now_ms() + (long long)secs * 1000;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		bool busy = errno == EWOULDBLOCK || errno == EINTR;
		if (!busy || spawn_stopping() || now_ms() >= until) {
			if (busy && !spawn_stopping())
				fprintf(stderr, "sandbox: a run's workspace is still being removed in the background after %ds; going on without waiting\n",
					secs);
			close(fd);
			return -1;
		}
		nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
	}
	removals_left(a);
	return fd;
}

static int setup_to_stderr(void *ctx, int stream, const char *buf, size_t n)
{
	(void)ctx;
	(void)stream;
	spawn_write_out(2, buf, n);
	return 0;
}

static int run_setup(struct app *a, struct ws *ws, struct err *e)
{
	char *cmd[] = {"sh", "-c", a->cfg.setup};
	struct exec_req rq = {
		.engine = a->engine, .envp = a->envp.v,
		.env = a->cfg.env.v, .nenv = a->cfg.env.n,
		.secrets = a->secrets.v, .nsecrets = a->secrets.n,
		.cmd = cmd, .ncmd = ARRAY_LEN(cmd), .timeout = ws_step_timeout(a),
		.sink = {setup_to_stderr, NULL},
	};
	struct exec_res res;
	int rc = ws_exec(a, ws, &rq, &res, e);
	if (rc == 0 && res.outcome == EXEC_TIMED_OUT)
		rc = err_set(e, ERR_FAILED, "the setup command timed out after %gs", rq.timeout);
	else if (rc == 0 && res.outcome == EXEC_INTERRUPTED)
		rc = err_set(e, ERR_INTERRUPTED, "interrupted during the setup command; the workspace is removed");
	else if (rc == 0 && res.outcome != EXEC_DONE)
		rc = err_set(e, ERR_FAILED, "the setup command did not finish");
	else if (rc == 0 && res.status != 0)
		rc = err_set(e, ERR_FAILED, "the setup command failed with status %d", res.status);
	sbuf_free(&res.engine_err);
	return rc;
}

int ws_runtime_advice(const struct app *a, char *buf, size_t cap)
{
	const char *rt = a->cfg.runtime;
	const char *slash = strrchr(rt, '/');
	const char *name = slash ? slash + 1 : rt;
	if (engine_is_podman(a->engine))
		return snprintf(buf, cap, "install it, or give its path (runtime = /usr/bin/%s); "
				"sandbox doctor --runtime %s checks it", name, rt);
	/* gVisor needs its network flag, which only daemon.json can give. */
	if (engine_runtime_is_runsc(rt))
		return snprintf(buf, cap, "register it with the daemon: \"runtimes\": {\"%s\": {\"path\": \"%s%s\", "
				"\"runtimeArgs\": [\"--network=none\"]}} in /etc/docker/daemon.json, then kill -HUP "
				"the daemon's pid; sandbox doctor --runtime %s checks it",
				name, slash ? "" : "/usr/bin/", rt, rt);
	return snprintf(buf, cap, "register it with the daemon: \"runtimes\": {\"%s\": {\"path\": \"%s%s\"}} "
			"in /etc/docker/daemon.json, then kill -HUP the daemon's pid (or dockerd "
			"--add-runtime %s=%s%s); sandbox doctor --runtime %s checks it",
			name, slash ? "" : "/usr/bin/", rt, name, slash ? "" : "/usr/bin/", rt, rt);
}

/* A create that failed with a runtime asked for: the engine's words and
 * what to do, as an engine error (status 255). */
static void runtime_advice(const struct app *a, struct err *e)
{
	char said[sizeof(e->msg)], advice[600];
	snprintf(said, sizeof(said), "%s", e->msg);
	ws_runtime_advice(a, advice, sizeof(advice));
	err_set(e, ERR_ENGINE, "runtime %s: %.400s; %s", a->cfg.runtime, said, advice);
}

/* After a failed or interrupted create: the engine may have made the
 * container all the same (created, then not started; or the client was
 * stopped half-way). It goes only when its nonce is this create's: a
 * container of that name made by anybody else stays. Runs even when we
 * were interrupted, which is when it matters most. */
static void remove_if_ours(struct app *a, const char *ref, const char *nonce)
{
	int outer = spawn_grace_begin();
	enum ws_state state;
	struct ws found = {0};
	if (ws_inspect(a, ref, &state, &found, NULL) == 0 && state != WS_MISSING &&
	    state != WS_FOREIGN && found.nonce && strcmp(found.nonce, nonce) == 0)
		ws_remove(a, found.id, NULL);
	ws_free(&found);
	spawn_grace_end(outer);
}

long ws_idle(const struct app *a, bool by_the_way)
{
	if (a->cfg.idle >= 0)
		return a->cfg.idle;
	return by_the_way ? CFG_DEFAULT_IDLE : 0;
}

int ws_make(struct app *a, struct ws *ws, const char *name, long idle, bool pooled,
	    struct err *e)
{
	memset(ws, 0, sizeof(*ws));
	ws->name = xstrdup(name);
	char nonce[17], spec[ENGINE_SPEC_LEN + 1];
	if (random_hex(nonce, 16) < 0) {
		ws_free(ws);
		return err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
	}
	engine_spec(&a->cfg, a->o.extra.v, a->o.extra.n, idle, spec);
	long long now = (long long)time(NULL);
	struct run_ids ids = {
		.name = name, .created = now, .nonce = nonce, .spec = spec,
		.expires = a->cfg.ttl > 0 ? now + a->cfg.ttl : 0,
		.idle = idle, .pooled = pooled,
	};
	if (pooled && cfg_network_allow(&a->cfg)) {
		ws_free(ws);
		return err_set(e, ERR_USAGE, "a pool holds no workspace of network allow: its proxy "
			       "would wait with it; create them as they are needed");
	}
	/* create --from, for one: the snapshot checked, its workdir taken. */
	if (a->origin && a->origin->prepare && a->origin->prepare(a, e) < 0) {
		ws_free(ws);
		return -1;
	}
	struct strvec argv = {0};
	if (engine_run_argv(&argv, a->engine, &a->cfg, &ids, a->o.extra.v, a->o.extra.n, e) < 0) {
		strvec_clear(&argv);
		ws_free(ws);
		return -1;
	}
	struct sbuf out = {0};
	int rc = -1;
	if (ws_engine_call(a, &argv, &out, "cannot create the workspace", ERR_FAILED, NULL, e) < 0) {
		remove_if_ours(a, ws->name, nonce);
		if (a->cfg.runtime && e->kind != ERR_INTERRUPTED && strstr(e->msg, "runtime"))
			runtime_advice(a, e);
		goto done;
	}
	sbuf_rtrim(&out);
	const char *last = out.buf ? strrchr(out.buf, '\n') : NULL;
	ws->id = xstrdup(last ? last + 1 : out.buf ? out.buf : ws->name);
	ws->workdir = xstrdup(a->cfg.workdir);
	ws->runtime = a->cfg.runtime ? xstrdup(a->cfg.runtime) : NULL;
	ws->expires = ids.expires;
	ws->nonce = xstrdup(nonce);
	if (cfg_network_allow(&a->cfg)) {
		ws->allow = cfg_allow_label_new(&a->cfg);
		if (netproxy_start(a, ws, e) < 0) {
			remove_if_ours(a, ws->id, nonce);
			goto done;
		}
	}
	if (a->cfg.copy && copy_seed(a, ws, e) < 0) {
		remove_if_ours(a, ws->id, nonce);
		goto done;
	}
	if (a->cfg.setup && run_setup(a, ws, e) < 0) {
		copy_forget(ws->id);
		remove_if_ours(a, ws->id, nonce);
		goto done;
	}
	cache_put(a, ws->name, ws);
	rc = 0;
done:
	if (rc < 0)
		ws_free(ws);
	sbuf_free(&out);
	return rc;
}

int ws_script(struct app *a, struct ws *ws, const char *script, struct err *e)
{
	char *cmd[] = {"sh", "-c", (char *)script};
	struct exec_req rq = {
		.engine = a->engine, .envp = a->envp.v,
		.cmd = cmd, .ncmd = ARRAY_LEN(cmd), .timeout = ws_step_timeout(a),
		.sink = {setup_to_stderr, NULL},
	};
	struct exec_res res;
	int rc = ws_exec(a, ws, &rq, &res, e);
	if (rc == 0 && res.outcome != EXEC_DONE)
		rc = err_set(e, ERR_WORKSPACE, "a step of ours in the workspace did not finish");
	sbuf_free(&res.engine_err);
	return rc < 0 ? -1 : res.status;
}

int ws_create(struct app *a, struct ws *ws, enum ws_use use, struct err *e)
{
	memset(ws, 0, sizeof(*ws));
	char name[160];
	if (a->cfg.name) {
		snprintf(name, sizeof(name), "%s", a->cfg.name);
	} else {
		char hex[13];
		if (random_hex(hex, 12) < 0)
			return err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
		snprintf(name, sizeof(name), "sandbox-%s", hex);
	}
	long idle = ws_idle(a, use == WS_BY_THE_WAY);
	if (!a->cfg.copy && a->cfg.ttl == 0 && !a->cfg.from) {
		bool brief = use == WS_BRIEF && !a->cfg.name && idle == 0;
		if (a->origin && a->origin->take && a->origin->take(a, idle, brief, ws) > 0) {
			if (brief)
				return 0; /* a pool's name is nobody's ref: not cached */
			struct err ignored = {0};
			if (idle == 0 || ws_script(a, ws, SCRIPT_ARM, &ignored) == 0) {
				cache_put(a, ws->name, ws);
				return 0;
			}
			/* Not usable after all: it goes, and a new one comes. */
			ws_remove(a, ws->id, NULL);
			ws_free(ws);
		}
	}
	return ws_make(a, ws, name, idle, false, e);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* A copy to own; "cached", so that a failed exec in it still sends us
 * back to a full check. */
static void ws_copy(struct ws *dst, const struct ws *src)
{
	*dst = (struct ws){.name = xstrdup(src->name), .id = xstrdup(src->id),
			   .workdir = dup_or_null(src->workdir), .nonce = dup_or_null(src->nonce),
			   .runtime = dup_or_null(src->runtime), .expires = src->expires, .cached = true};
}

int ws_select(struct app *a, struct ws *ws, struct err *e)
{
	if (a->ws_pin && netproxy_lost(a->ws_pin->id)) {
		/* Its proxy was killed: started again, and the pin renewed. */
		struct ws fresh;
		if (ws_attach(a, a->ws_pin->name, false, &fresh, e) < 0)
			return -1;
		ws_free(a->ws_pin);
		ws_copy(a->ws_pin, &fresh);
		ws_free(&fresh);
	}
	if (a->ws_pin) {
		/* Known already: no cache read, no inspect. */
		ws_copy(ws, a->ws_pin);
		snprintf(a->ws_name, sizeof(a->ws_name), "%s", ws->name);
		return 0;
	}
	if (a->ref) {
		if (ws_attach(a, a->ref, true, ws, e) < 0)
			return -1;
		snprintf(a->ws_name, sizeof(a->ws_name), "%s", ws->name);
		return 0;
	}
	if (ws_create(a, ws, WS_BY_THE_WAY, e) < 0) {
		/* Not the command's status: the workspace failed. */
		if (e->kind == ERR_FAILED)
			e->kind = ERR_WORKSPACE;
		return -1;
	}
	snprintf(a->ws_name, sizeof(a->ws_name), "%s", ws->name);
	a->ws_created = true;
	if (a->created)
		a->created(ws->name);
	return 0;
}

/* The open channel for a call in ws (opened on first use, or lent by the
 * resident; anew when it died or serves another container), or NULL: the
 * call goes as an engine exec of its own, which also says best what is
 * wrong when the channel cannot open. A call with secrets never goes on
 * a channel: the server would give them to the command through a
 * command line (env, the wrapper's arguments), which is a process of
 * the host's and shown by its ps; the engine sets them in the
 * environment itself (exec.h). */
static struct chan *channel_for(struct app *a, const struct ws *ws,
				const struct exec_req *rq)
{
	struct chan *c = a->chan;
	if (!c || rq->interactive || rq->own_exec || rq->nsecrets || (rq->feed && !rq->feed->buf))
		return NULL;
	/* Docker does not end an exec's streams when a gVisor container
	 * stops: a channel held across a stop would wait for ever, and none
	 * can tell. Each call is an engine exec of its own there, for any
	 * runtime but Docker's own (another name may be gVisor's). */
	if (ws->runtime && *ws->runtime && strcmp(ws->runtime, "runc") != 0 &&
	    !engine_is_podman(a->engine))
		return NULL;
	if (chan_is_open(c) && strcmp(c->ctr, ws->id) == 0)
		return c;
	if (c->nosetsid && c->ctr && strcmp(c->ctr, ws->id) == 0)
		return NULL;
	chan_release(c);
	struct err why = {0};
	if (a->resident ? resident_take(a->resident, ws->id, c, &why) < 0
			: chan_open(c, a->engine, a->envp.v, ws->id, &why) < 0) {
		if (a->resident)
			resident_say(a->resident, &why);
		return NULL;
	}
	return chan_is_open(c) ? c : NULL;
}

static int run_in(struct app *a, struct ws *ws, struct exec_req *rq,
		  struct exec_res *res, struct err *e)
{
	rq->ctr = ws->id;
	rq->workdir = ws->workdir;
	rq->engine_ms = (long)(a->cfg.engine_timeout * 1000);
	rq->chan = channel_for(a, ws, rq);
	rq->loop = a->loop;
	if (rq->feed)
		feed_rewind(rq->feed);
	return exec_run(rq, res, e);
}

int ws_exec(struct app *a, struct ws *ws, struct exec_req *rq,
	    struct exec_res *res, struct err *e)
{
	if (run_in(a, ws, rq, res, e) < 0)
		return -1;
	if (res->outcome == EXEC_NOT_STARTED && res->chan_lost) {
		/* The channel died before the call began: once more, on a
		 * new channel (or an engine exec of its own). */
		sbuf_free(&res->engine_err);
		if (run_in(a, ws, rq, res, e) < 0)
			return -1;
	}
	if (res->outcome == EXEC_NOT_STARTED && ws->cached) {
		/* Replaced, stopped or gone since we cached it: check again. */
		struct ws fresh;
		ws_forget(a, ws->name);
		if (ws_attach(a, ws->name, false, &fresh, e) < 0) {
			sbuf_free(&res->engine_err);
			return -1;
		}
		ws_free(ws);
		*ws = fresh;
		if (a->ws_pin && strcmp(a->ws_pin->name, ws->name) == 0) {
			ws_free(a->ws_pin);
			ws_copy(a->ws_pin, ws);
		}
		sbuf_free(&res->engine_err);
		if (run_in(a, ws, rq, res, e) < 0)
			return -1;
	}
	if (res->outcome == EXEC_NOT_STARTED) {
		ws_engine_error("the command could not start in the workspace",
				&res->engine_err, ERR_WORKSPACE, e);
		sbuf_free(&res->engine_err);
		return -1;
	}
	if (res->outcome == EXEC_LOST)
		return err_set(e, ERR_WORKSPACE, "the workspace stopped while the command ran");
	if (res->outcome == EXEC_START_LATE)
		return err_set(e, ERR_ENGINE, "the engine did not start the command within %gs (engine_timeout); %s",
			       a->cfg.engine_timeout, exec_kill_says(res->kill));
	if (res->outcome == EXEC_UNTRUSTED && res->engine_status < 0)
		return err_set(e, ERR_WORKSPACE,
			       "the result cannot be trusted: the workspace reported status %d, and the call never ended; something in the workspace forged it",
			       res->status);
	if (res->outcome == EXEC_UNTRUSTED)
		return err_set(e, ERR_WORKSPACE,
			       "the result cannot be trusted: the workspace reported status %d, the engine %d; something in the workspace forged it",
			       res->status, res->engine_status);
	return 0;
}
