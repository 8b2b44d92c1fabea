/* engine.c: see engine.h. */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scripts.h"
#include "sha256.h"
#include "version.h"

static bool is_flag(const char *arg, const char *flag)
{
	size_t n = strlen(flag);
	return strncmp(arg, flag, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* True if a short-option cluster ("-dl x", "-itl") holds the letter c
 * before an option that takes a value swallows the rest. Only -d, -i, -t,
 * -P and -q are boolean in docker and podman run. */
static bool short_cluster_has(const char *arg, char c)
{
	if (arg[0] != '-' || arg[1] == '-' || arg[1] == '\0')
		return false;
	for (const char *p = arg + 1; *p; p++) {
		if (*p == c)
			return true;
		if (!strchr("ditPq", *p))
			return false;
	}
	return false;
}

struct extra_scan {
	bool network, pids_limit;
};

static int scan_extra(char *const *extra, size_t n, struct extra_scan *sc,
		      struct err *e)
{
	static const char *const owned[] = {"--name", "--label", "--label-file",
					    "--entrypoint"};
	memset(sc, 0, sizeof(*sc));
	for (size_t i = 0; i < n; i++) {
		const char *a = extra[i];
		if (strcmp(a, "--") == 0)
			return err_set(e, ERR_USAGE, "engine run arguments cannot hold '--': the image comes from --image");
		for (size_t k = 0; k < ARRAY_LEN(owned); k++)
			if (is_flag(a, owned[k]))
				return err_set(e, ERR_USAGE, "engine run argument '%s' is not allowed: sandbox sets the name, labels and entrypoint (use --name for the name)", owned[k]);
		if (short_cluster_has(a, 'l'))
			return err_set(e, ERR_USAGE, "engine run argument '%s' is not allowed: sandbox sets the labels", a);
		if (is_flag(a, "--runtime"))
			return err_set(e, ERR_USAGE, "engine run argument '--runtime' is not allowed: use sandbox's --runtime, which the workspace records");
		if (is_flag(a, "--network") || is_flag(a, "--net"))
			sc->network = true;
		if (is_flag(a, "--pids-limit"))
			sc->pids_limit = true;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

bool engine_is_podman(const char *engine)
{
	return strncmp(base_name(engine), "podman", 6) == 0;
}

bool engine_runtime_is_runsc(const char *runtime)
{
	return runtime && strcmp(base_name(runtime), "runsc") == 0;
}

void engine_runtime_args(struct strvec *out, const char *engine, const char *runtime,
			 const char *network, bool global)
{
	if (!runtime || engine_is_podman(engine) != global)
		return;
	strvec_pushf(out, "--runtime=%s", runtime);
	/* gVisor's own network stack would need a network namespace the
	 * engine does not give it with network none: it must be told.
	 * Docker takes runtime flags only from its daemon's configuration
	 * (runtimeArgs), which doctor says how to set. */
	if (global && engine_runtime_is_runsc(runtime) && network &&
	    strcmp(network, "none") == 0)
		strvec_push(out, "--runtime-flag=network=none");
}

/* The proxy of network = allow, in every form tools read; the user's
 * own env, after these, wins. */
static void proxy_env(struct strvec *out)
{
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", ENGINE_PROXY_PORT);
	static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
					    "http_proxy", "https_proxy", "all_proxy"};
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		strvec_pushf(out, "--env=%s=%s", names[i], url);
	strvec_push(out, "--env=NO_PROXY=localhost,127.0.0.1,::1");
	strvec_push(out, "--env=no_proxy=localhost,127.0.0.1,::1");
	strvec_push(out, "--env=NODE_USE_ENV_PROXY=1");
	strvec_pushf(out, "--env=JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=%d "
		     "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=%d "
		     "-Dhttp.nonProxyHosts=localhost|127.0.0.1", ENGINE_PROXY_PORT, ENGINE_PROXY_PORT);
}

int engine_run_argv(struct strvec *out, const char *engine, const struct cfg *cfg,
		    const struct run_ids *ids, char *const *extra, size_t nextra,
		    struct err *e)
{
	struct extra_scan sc;
	if (scan_extra(extra, nextra, &sc, e) < 0)
		return -1;
	if (sc.network && strcmp(cfg->network, CFG_DEFAULT_NETWORK) != 0)
		return err_set(e, ERR_USAGE, "--network %s conflicts with a --network in the engine run arguments; give only one", cfg->network);
	bool allow = cfg_network_allow(cfg);
	if (allow && cfg->allow.n == 0)
		return err_set(e, ERR_USAGE, "network = allow lets nothing through without a pattern: add "
			       "allow = HOST (or create --allow HOST), as pypi.org or *.npmjs.org");
	/* The workspace itself has loopback alone: its proxy is on this side. */
	const char *network = allow ? "none" : cfg->network;
	if (!cfg->image && !cfg->from)
		return err_set(e, ERR_USAGE, "no image: pass --image IMG or set image in sandbox.ini");

	strvec_push(out, engine);
	engine_runtime_args(out, engine, cfg->runtime, sc.network ? NULL : network, true);
	strvec_push(out, "run");
	engine_runtime_args(out, engine, cfg->runtime, NULL, false);
	strvec_push(out, "--detach");
	strvec_pushf(out, "--name=%s", ids->name);
	strvec_pushf(out, "--label=%s=true", LABEL_WORKSPACE);
	strvec_pushf(out, "--label=%s=%lld", LABEL_CREATED, ids->created);
	strvec_pushf(out, "--label=%s=%s", LABEL_VERSION, SANDBOX_VERSION);
	strvec_pushf(out, "--label=%s=%s", LABEL_NONCE, ids->nonce);
	/* Every label sandbox reads is set, 0 for none: a label of the image
	 * of the same name never shows through. */
	strvec_pushf(out, "--label=%s=%s", LABEL_SPEC, ids->spec);
	strvec_pushf(out, "--label=%s=%lld", LABEL_EXPIRES, ids->expires);
	strvec_pushf(out, "--label=%s=%ld", LABEL_IDLE, ids->idle);
	strvec_pushf(out, "--label=%s=%s", LABEL_RUNTIME, cfg->runtime ? cfg->runtime : "");
	char *patterns = allow ? cfg_allow_label_new(cfg) : NULL;
	char seal[ENGINE_SEAL_LEN + 1];
	if (patterns) {
		engine_allow_seal(ids->nonce, patterns, seal);
		strvec_pushf(out, "--label=%s=%s %s", LABEL_ALLOW, seal, patterns);
	} else {
		strvec_pushf(out, "--label=%s=", LABEL_ALLOW);
	}
	free(patterns);
	strvec_push(out, "--init");
	strvec_push(out, "--entrypoint=sh");
	if (!sc.network)
		strvec_pushf(out, "--network=%s", network);
	if (!sc.pids_limit)
		strvec_pushf(out, "--pids-limit=%ld", cfg->pids_limit);
	/* Not --workdir: podman refuses one the image lacks. The label tells
	 * every exec where to start (and to create it when missing). */
	strvec_pushf(out, "--label=%s=%s", LABEL_WORKDIR, cfg->workdir);
	if (cfg->memory)
		strvec_pushf(out, "--memory=%s", cfg->memory);
	if (cfg->cpus)
		strvec_pushf(out, "--cpus=%s", cfg->cpus);
	if (cfg->user)
		strvec_pushf(out, "--user=%s", cfg->user);
	if (allow)
		proxy_env(out);
	for (size_t i = 0; i < cfg->env.n; i++)
		strvec_pushf(out, "--env=%s", cfg->env.v[i]);
	for (size_t i = 0; i < cfg->nmounts; i++) {
		const struct cfg_mount *m = &cfg->mounts[i];
		strvec_pushf(out, "--mount=type=bind,source=%s,target=%s%s", m->host,
			     m->ctr ? m->ctr : cfg->workdir, m->ro ? ",readonly" : "");
	}
	/* A snapshot is local: a missing one is never fetched from a
	 * registry under its name. */
	if (cfg->from)
		strvec_push(out, "--pull=never");
	strvec_push_all(out, extra, nextra);
	strvec_push(out, "--");
	if (cfg->from)
		strvec_pushf(out, "%s:%s", engine_snap_repo(engine), cfg->from);
	else
		strvec_push(out, cfg->image);
	strvec_push(out, "-c");
	strvec_push(out, SCRIPT_KEEPALIVE);
	if (ids->expires > 0 || ids->idle > 0) {
		strvec_push(out, "keepalive");
		strvec_pushf(out, "%lld", ids->expires);
		strvec_pushf(out, "%ld", ids->idle);
		strvec_push(out, ids->pooled ? "1" : "0");
	}
	return 0;
}

void engine_exec_argv(struct strvec *out, const char *engine, const char *ctr,
		      char *const *env, size_t nenv, bool interactive,
		      char *const *cmd, size_t ncmd)
{
	strvec_push(out, engine);
	strvec_push(out, "exec");
	if (interactive)
		strvec_push(out, "--interactive");
	for (size_t i = 0; i < nenv; i++)
		strvec_pushf(out, "--env=%s", env[i]);
	strvec_push(out, "--");
	strvec_push(out, ctr);
	strvec_push_all(out, cmd, ncmd);
}

void engine_exec_tty_argv(struct strvec *out, const char *engine, const char *ctr,
			  char *const *env, size_t nenv, char *const *cmd, size_t ncmd)
{
	strvec_push(out, engine);
	strvec_push(out, "exec");
	strvec_push(out, "--interactive");
	strvec_push(out, "--tty");
	for (size_t i = 0; i < nenv; i++)
		strvec_pushf(out, "--env=%s", env[i]);
	strvec_push(out, "--");
	strvec_push(out, ctr);
	strvec_push_all(out, cmd, ncmd);
}

bool engine_pool_name(const char *name)
{
	name += name[0] == '/';
	return strncmp(name, POOL_NAME_PREFIX, strlen(POOL_NAME_PREFIX)) == 0;
}

void engine_inspect_argv(struct strvec *out, const char *engine, const char *ctr)
{
	strvec_push(out, engine);
	strvec_push(out, "inspect");
	strvec_push(out, "--type=container");
	strvec_push(out, "--format={{.Id}}\t{{.State.Running}}\t{{index .Config.Labels \""
			 LABEL_WORKSPACE "\"}}\t{{index .Config.Labels \"" LABEL_WORKDIR "\"}}\t"
			 "{{index .Config.Labels \"" LABEL_NONCE "\"}}\t"
			 "{{index .Config.Labels \"" LABEL_EXPIRES "\"}}\t{{.Name}}\t"
			 "{{index .Config.Labels \"" LABEL_RUNTIME "\"}}\t{{.HostConfig.NetworkMode}}\t"
			 "{{index .Config.Labels \"" LABEL_ALLOW "\"}}");
	strvec_push(out, "--");
	strvec_push(out, ctr);
}

void engine_describe_argv(struct strvec *out, const char *engine,
			  char *const *ids, size_t n)
{
	strvec_push(out, engine);
	strvec_push(out, "inspect");
	strvec_push(out, "--type=container");
	strvec_push(out, "--format={{.Id}}\t{{.Name}}\t{{.State.Status}}\t{{json .Config.Image}}\t"
			 "{{json (index .Config.Labels \"" LABEL_CREATED "\")}}\t{{.State.ExitCode}}\t"
			 "{{json (index .Config.Labels \"" LABEL_EXPIRES "\")}}\t"
			 "{{json (index .Config.Labels \"" LABEL_IDLE "\")}}\t"
			 "{{json (index .Config.Labels \"" LABEL_SPEC "\")}}\t"
			 "{{json (index .Config.Labels \"" LABEL_RUNTIME "\")}}");
	strvec_push(out, "--");
	strvec_push_all(out, ids, n);
}

void engine_check_argv(struct strvec *out, const char *engine,
		       char *const *refs, size_t n)
{
	strvec_push(out, engine);
	strvec_push(out, "inspect");
	strvec_push(out, "--type=container");
	strvec_push(out, "--format={{.Id}}\t{{.Name}}\t{{.State.Status}}\t{{json (index .Config.Labels \""
			 LABEL_WORKSPACE "\")}}");
	strvec_push(out, "--");
	strvec_push_all(out, refs, n);
}

void engine_ps_argv(struct strvec *out, const char *engine)
{
	strvec_push(out, engine);
	strvec_push(out, "ps");
	strvec_push(out, "--all");
	strvec_push(out, "--quiet");
	strvec_push(out, "--no-trunc");
	strvec_push(out, "--filter=label=" LABEL_WORKSPACE "=true");
}

void engine_pool_ps_argv(struct strvec *out, const char *engine, const char *spec)
{
	strvec_push(out, engine);
	strvec_push(out, "ps");
	strvec_push(out, "--all"); /* Podman's ps leaves out paused ones without it */
	strvec_push(out, "--no-trunc");
	strvec_push(out, "--filter=label=" LABEL_WORKSPACE "=true");
	strvec_pushf(out, "--filter=label=" LABEL_SPEC "=%s", spec);
	strvec_push(out, "--filter=status=paused");
	strvec_push(out, "--format={{.ID}}\t{{.Names}}");
}

void engine_pause_argv(struct strvec *out, const char *engine, const char *ctr, bool pause)
{
	strvec_push(out, engine);
	strvec_push(out, pause ? "pause" : "unpause");
	strvec_push(out, "--");
	strvec_push(out, ctr);
}

void engine_rename_argv(struct strvec *out, const char *engine, const char *from,
			const char *to)
{
	strvec_push(out, engine);
	strvec_push(out, "rename");
	strvec_push(out, "--");
	strvec_push(out, from);
	strvec_push(out, to);
}

void engine_start_argv(struct strvec *out, const char *engine, const char *ctr,
		       const char *runtime, const char *network)
{
	strvec_push(out, engine);
	engine_runtime_args(out, engine, runtime, network, true);
	strvec_push(out, "start");
	strvec_push(out, "--");
	strvec_push(out, ctr);
}

void engine_stop_argv(struct strvec *out, const char *engine, const char *ctr)
{
	/* The keep-alive stops at once on SIGTERM; -t 1 bounds the wait
	 * should anything in the container hold it up. */
	strvec_push(out, engine);
	strvec_push(out, "stop");
	strvec_push(out, "-t");
	strvec_push(out, "1");
	strvec_push(out, "--");
	strvec_push(out, ctr);
}

void engine_rm_argv(struct strvec *out, const char *engine, char *const *ids,
		    size_t n)
{
	strvec_push(out, engine);
	strvec_push(out, "rm");
	strvec_push(out, "--force");
	strvec_push(out, "--volumes");
	strvec_push(out, "--");
	strvec_push_all(out, ids, n);
}

void engine_unpause_all_argv(struct strvec *out, const char *engine, char *const *ids,
			     size_t n)
{
	strvec_push(out, engine);
	strvec_push(out, "unpause");
	strvec_push(out, "--");
	strvec_push_all(out, ids, n);
}

void engine_version_argv(struct strvec *out, const char *engine)
{
	strvec_push(out, engine);
	strvec_push(out, "--version");
}

void engine_info_argv(struct strvec *out, const char *engine)
{
	strvec_push(out, engine);
	strvec_push(out, "info");
	strvec_push(out, "--format={{json .}}");
}

void engine_context_argv(struct strvec *out, const char *engine)
{
	strvec_push(out, engine);
	strvec_push(out, "context");
	strvec_push(out, "inspect");
	strvec_push(out, "--format={{.Name}}\t{{.Endpoints.docker.Host}}");
}

void engine_image_argv(struct strvec *out, const char *engine, const char *image)
{
	strvec_push(out, engine);
	strvec_push(out, "image");
	strvec_push(out, "inspect");
	strvec_push(out, "--format={{.Id}}");
	strvec_push(out, "--");
	strvec_push(out, image);
}

const char *engine_snap_repo(const char *engine)
{
	const char *base = strrchr(engine, '/');
	base = base ? base + 1 : engine;
	return strncmp(base, "podman", 6) == 0 ? "localhost/" SNAPSHOT_REPO : SNAPSHOT_REPO;
}

void engine_commit_argv(struct strvec *out, const char *engine, const char *ctr,
			const char *ref, const char *of, long long created)
{
	strvec_push(out, engine);
	strvec_push(out, "commit");
	/* Paused by us already (engine_pause_argv): the engine leaves it so.
	 * Should anyone have unpaused it since, the engine pauses it again. */
	strvec_push(out, "--pause=true");
	/* One key a LABEL: Podman takes the rest of the line as the value.
	 * The values are names and digits, which need no quoting. */
	strvec_push(out, "--change=LABEL " LABEL_WORKSPACE "=\"\"");
	strvec_push(out, "--change=LABEL " LABEL_NONCE "=\"\"");
	strvec_push(out, "--change=LABEL " LABEL_CREATED "=\"\"");
	strvec_push(out, "--change=LABEL " LABEL_SNAPSHOT "=true");
	strvec_pushf(out, "--change=LABEL " LABEL_SNAPSHOT_OF "=%s", of);
	strvec_pushf(out, "--change=LABEL " LABEL_SNAPSHOT_CREATED "=%lld", created);
	/* Docker cannot empty an entrypoint by commit: one that runs its
	 * arguments is as good as none. */
	strvec_push(out, "--change=ENTRYPOINT [\"sh\", \"-c\", \"exec \\\"$@\\\"\", \"sh\"]");
	strvec_push(out, "--change=CMD [\"sh\"]");
	strvec_push(out, "--");
	strvec_push(out, ctr);
	strvec_push(out, ref);
}

void engine_tag_argv(struct strvec *out, const char *engine, const char *image, const char *ref)
{
	strvec_push(out, engine);
	strvec_push(out, "tag");
	strvec_push(out, "--");
	strvec_push(out, image);
	strvec_push(out, ref);
}

void engine_snap_size_argv(struct strvec *out, const char *engine, const char *ctr)
{
	strvec_push(out, engine);
	strvec_push(out, "inspect");
	strvec_push(out, "--type=container");
	strvec_push(out, "--size");
	strvec_push(out, "--format={{.Id}}\t{{.State.Status}}\t{{.SizeRw}}");
	strvec_push(out, "--");
	strvec_push(out, ctr);
}

void engine_snap_ctr_argv(struct strvec *out, const char *engine, const char *ctr)
{
	strvec_push(out, engine);
	strvec_push(out, "inspect");
	strvec_push(out, "--type=container");
	strvec_push(out, "--format={{.Id}}\t{{index .Config.Labels \"" LABEL_WORKSPACE "\"}}\t"
			 "{{.State.Status}}\t{{.Name}}{{range .Mounts}}\n{{.Type}}\t{{.Source}}\t{{.Destination}}{{end}}");
	strvec_push(out, "--");
	strvec_push(out, ctr);
}

void engine_snap_image_argv(struct strvec *out, const char *engine, char *const *refs,
			    size_t n)
{
	strvec_push(out, engine);
	strvec_push(out, "image");
	strvec_push(out, "inspect");
	/* Docker's index of an image without labels is an error: with. The
	 * names hold no tab or space: a reference cannot. */
	strvec_push(out, "--format={{.Id}}\t{{range .RepoTags}} {{.}}{{end}}\t{{with .Config.Labels}}{{index . \"" LABEL_SNAPSHOT "\"}}\t"
			 "{{index . \"" LABEL_WORKDIR "\"}}\t{{index . \"" LABEL_SNAPSHOT_OF "\"}}\t"
			 "{{index . \"" LABEL_SNAPSHOT_CREATED "\"}}{{else}}\t\t\t{{end}}\t{{.Size}}");
	strvec_push(out, "--");
	strvec_push_all(out, refs, n);
}

void engine_snap_list_argv(struct strvec *out, const char *engine)
{
	strvec_push(out, engine);
	strvec_push(out, "images");
	strvec_push(out, "--no-trunc");
	strvec_push(out, "--filter=label=" LABEL_SNAPSHOT "=true");
	strvec_push(out, "--format={{.ID}}\t{{.Repository}}\t{{.Tag}}");
}

void engine_image_rm_argv(struct strvec *out, const char *engine, const char *ref)
{
	strvec_push(out, engine);
	strvec_push(out, "image");
	strvec_push(out, "rm");
	strvec_push(out, "--");
	strvec_push(out, ref);
}

void engine_allow_seal(const char *nonce, const char *patterns, char out[ENGINE_SEAL_LEN + 1])
{
	struct sha256 h;
	unsigned char d[32];
	char hex[65];
	sha256_init(&h);
	sha256_update(&h, "sandbox-allow-1", 16);
	sha256_update(&h, nonce, strlen(nonce) + 1);
	sha256_update(&h, patterns, strlen(patterns));
	sha256_final(&h, d);
	sha256_hex(d, hex);
	memcpy(out, hex, ENGINE_SEAL_LEN);
	out[ENGINE_SEAL_LEN] = '\0';
}

const char *engine_allow_open(const char *nonce, const char *label)
{
	char seal[ENGINE_SEAL_LEN + 1];
	size_t n = strlen(label);
	if (!nonce || n < ENGINE_SEAL_LEN + 2 || label[ENGINE_SEAL_LEN] != ' ')
		return NULL;
	engine_allow_seal(nonce, label + ENGINE_SEAL_LEN + 1, seal);
	return memcmp(seal, label, ENGINE_SEAL_LEN) == 0 ? label + ENGINE_SEAL_LEN + 1 : NULL;
}

static void spec_put(struct sha256 *h, const char *key, const char *value)
{
	sha256_update(h, key, strlen(key) + 1);
	sha256_update(h, value ? "=" : "-", 1);
	if (value)
		sha256_update(h, value, strlen(value) + 1);
}

void engine_spec(const struct cfg *cfg, char *const *extra, size_t nextra, long idle,
		 char out[ENGINE_SPEC_LEN + 1])
{
	struct sha256 h;
	char num[64];
	sha256_init(&h);
	spec_put(&h, "sandbox-spec-1", NULL);
	spec_put(&h, "version", SANDBOX_VERSION);
	spec_put(&h, "image", cfg->image);
	spec_put(&h, "workdir", cfg->workdir);
	spec_put(&h, "network", cfg->network);
	for (size_t i = 0; cfg_network_allow(cfg) && i < cfg->allow.n; i++)
		spec_put(&h, "allow", cfg->allow.v[i]);
	snprintf(num, sizeof(num), "%ld", cfg->pids_limit);
	spec_put(&h, "pids_limit", num);
	spec_put(&h, "memory", cfg->memory);
	spec_put(&h, "cpus", cfg->cpus);
	spec_put(&h, "user", cfg->user);
	if (cfg->runtime)
		spec_put(&h, "runtime", cfg->runtime);
	for (size_t i = 0; i < cfg->env.n; i++)
		spec_put(&h, "env", cfg->env.v[i]);
	for (size_t i = 0; i < cfg->nmounts; i++) {
		spec_put(&h, "mount", cfg->mounts[i].host);
		spec_put(&h, "to", cfg->mounts[i].ctr);
		spec_put(&h, "ro", cfg->mounts[i].ro ? "1" : "0");
	}
	spec_put(&h, "setup", cfg->setup);
	for (size_t i = 0; i < nextra; i++)
		spec_put(&h, "extra", extra[i]);
	snprintf(num, sizeof(num), "%ld", idle);
	spec_put(&h, "idle", num);
	unsigned char d[32];
	char hex[65];
	sha256_final(&h, d);
	sha256_hex(d, hex);
	memcpy(out, hex, ENGINE_SPEC_LEN);
	out[ENGINE_SPEC_LEN] = '\0';
}
