/* test_engine.c: golden argument vectors for every builder in engine.h,
 * and the engine run arguments sandbox refuses. */
#include <string.h>

#include "config.h"
#include "engine.h"
#include "err.h"
#include "scripts.h"
#include "tap.h"
#include "util.h"
#include "version.h"

#define CREATED 1700000000LL
#define NAME "sandbox-0123456789ab"

/* One test: argv equals the NULL-terminated golden vector exp. */
static void is_argv(struct strvec *got, const char *const *exp, const char *title)
{
	size_t n = 0;
	while (exp[n])
		n++;
	bool same = got->n == n && strvec_argv(got)[n] == NULL;
	for (size_t i = 0; same && i < n; i++)
		same = strcmp(got->v[i], exp[i]) == 0;
	ok(same, "%s", title);
	if (same)
		return;
	for (size_t i = 0; i < got->n || i < n; i++) {
		const char *g = i < got->n ? got->v[i] : "(none)";
		const char *x = i < n ? exp[i] : "(none)";
		diag("[%zu] %s %s | %s", i, strcmp(g, x) == 0 ? "  " : "!=", g, x);
	}
}

static void cfg_with_image(struct cfg *c)
{
	cfg_init(c);
	struct err e = {0};
	if (cfg_set(c, "image", "sandbox-test/busybox:1", &e) < 0)
		diag("setup: %s", e.msg);
}

static void set(struct cfg *c, const char *key, const char *value)
{
	struct err e = {0};
	if (cfg_set(c, key, value, &e) < 0)
		diag("setup: cfg_set %s=%s: %s", key, value, e.msg);
}

#define NONCE "0123456789abcdef"
#define SPEC "00112233aabbccdd"
static const struct run_ids IDS = {.name = NAME, .created = CREATED, .nonce = NONCE, .spec = SPEC};

#define RUN_HEAD(engine)                                                      \
	engine, "run", "--detach", "--name=" NAME,                            \
		"--label=sandbox.workspace=true",                             \
		"--label=sandbox.created=1700000000",                         \
		"--label=sandbox.version=" SANDBOX_VERSION,                    \
		"--label=sandbox.nonce=" NONCE,                                \
		"--label=sandbox.spec=" SPEC,                                  \
		"--label=sandbox.expires=0", "--label=sandbox.idle=0", "--label=sandbox.runtime=", "--label=sandbox.allow=", "--init", \
		"--entrypoint=sh"
#define RUN_TAIL "--", "sandbox-test/busybox:1", "-c", SCRIPT_KEEPALIVE, NULL

static void test_run_defaults(void)
{
	struct cfg c;
	cfg_with_image(&c);
	struct strvec out = {0};
	struct err e = {0};
	int rc = engine_run_argv(&out, "/usr/bin/docker", &c, &IDS, NULL, 0, &e);
	is_int(rc, 0, "run: defaults build");
	const char *exp[] = {
		RUN_HEAD("/usr/bin/docker"),
		"--network=none",
		"--pids-limit=2048",
		"--label=sandbox.workdir=/workspace",
		RUN_TAIL,
	};
	is_argv(&out, exp, "run: defaults: detached, named, labelled, --init, sh entrypoint, no network, 2048 pids, workdir label");
	ok(strstr(SCRIPT_KEEPALIVE, "trap") != NULL, "run: keep-alive script exits on TERM");
	strvec_clear(&out);
	cfg_free(&c);
}

static void test_run_all_options(void)
{
	struct cfg c;
	cfg_with_image(&c);
	set(&c, "mount", "/h/one");             /* rw, to the workdir */
	set(&c, "mount", "/h/two::ro");         /* ro, to the workdir */
	set(&c, "mount", "/h/three:/data");     /* rw, own dir */
	set(&c, "mount", "/h/four:/opt/x:ro");  /* ro, own dir */
	set(&c, "workdir", "/src");             /* after the mounts: still used */
	set(&c, "network", "bridge");
	set(&c, "memory", "512m");
	set(&c, "cpus", "1.5");
	set(&c, "user", "1000:1000");
	set(&c, "pids_limit", "-1");
	set(&c, "env", "A=1");
	set(&c, "env", "B=two words");
	set(&c, "env", "A=3");                  /* replaces A in place */
	struct strvec out = {0};
	struct err e = {0};
	int rc = engine_run_argv(&out, "podman", &c, &IDS, NULL, 0, &e);
	is_int(rc, 0, "run: every option builds");
	const char *exp[] = {
		RUN_HEAD("podman"),
		"--network=bridge",
		"--pids-limit=-1",
		"--label=sandbox.workdir=/src",
		"--memory=512m",
		"--cpus=1.5",
		"--user=1000:1000",
		"--env=A=3",
		"--env=B=two words",
		"--mount=type=bind,source=/h/one,target=/src",
		"--mount=type=bind,source=/h/two,target=/src,readonly",
		"--mount=type=bind,source=/h/three,target=/data",
		"--mount=type=bind,source=/h/four,target=/opt/x,readonly",
		RUN_TAIL,
	};
	is_argv(&out, exp, "run: every option: network, pids -1, workdir label, memory, cpus, user, env, mounts ro/rw with and without a container dir");
	strvec_clear(&out);
	cfg_free(&c);
}

static void test_run_extra(void)
{
	struct cfg c;
	cfg_with_image(&c);
	struct strvec out = {0};
	struct err e = {0};
	char *extra[] = {"--cap-add=SYS_PTRACE", "-e", "X=1", "-it", "-d", "--tmpfs", "/tmp"};
	int rc = engine_run_argv(&out, "docker", &c, &IDS, extra, ARRAY_LEN(extra), &e);
	is_int(rc, 0, "run: extra args accepted");
	const char *exp[] = {
		RUN_HEAD("docker"),
		"--network=none",
		"--pids-limit=2048",
		"--label=sandbox.workdir=/workspace",
		"--cap-add=SYS_PTRACE", "-e", "X=1", "-it", "-d", "--tmpfs", "/tmp",
		RUN_TAIL,
	};
	is_argv(&out, exp, "run: extra args pass through unchanged, just before --");
	strvec_clear(&out);

	/* A network in the extra args replaces ours when ours is the default. */
	char *net[] = {"--network", "host"};
	rc = engine_run_argv(&out, "docker", &c, &IDS, net, 2, &e);
	is_int(rc, 0, "run: --network in extra args with the default network: accepted");
	const char *exp_net[] = {
		RUN_HEAD("docker"),
		"--pids-limit=2048",
		"--label=sandbox.workdir=/workspace",
		"--network", "host",
		RUN_TAIL,
	};
	is_argv(&out, exp_net, "run: extra --network suppresses our --network=none");
	strvec_clear(&out);

	char *net2[] = {"--net=host"};
	rc = engine_run_argv(&out, "docker", &c, &IDS, net2, 1, &e);
	const char *exp_net2[] = {
		RUN_HEAD("docker"),
		"--pids-limit=2048",
		"--label=sandbox.workdir=/workspace",
		"--net=host",
		RUN_TAIL,
	};
	ok(rc == 0, "run: --net=host in extra args with the default network: accepted");
	is_argv(&out, exp_net2, "run: extra --net=host suppresses our --network=none");
	strvec_clear(&out);

	char *pids[] = {"--pids-limit=100"};
	rc = engine_run_argv(&out, "docker", &c, &IDS, pids, 1, &e);
	const char *exp_pids[] = {
		RUN_HEAD("docker"),
		"--network=none",
		"--label=sandbox.workdir=/workspace",
		"--pids-limit=100",
		RUN_TAIL,
	};
	ok(rc == 0, "run: --pids-limit in extra args: accepted");
	is_argv(&out, exp_pids, "run: extra --pids-limit suppresses ours");
	strvec_clear(&out);

	char *pids2[] = {"--pids-limit", "5"};
	rc = engine_run_argv(&out, "docker", &c, &IDS, pids2, 2, &e);
	const char *exp_pids2[] = {
		RUN_HEAD("docker"),
		"--network=none",
		"--label=sandbox.workdir=/workspace",
		"--pids-limit", "5",
		RUN_TAIL,
	};
	ok(rc == 0, "run: --pids-limit N (two words) in extra args: accepted");
	is_argv(&out, exp_pids2, "run: extra --pids-limit N suppresses ours");
	strvec_clear(&out);

	/* Flags that merely start like ours are not ours. */
	char *similar[] = {"--labelx=1", "--networks", "-e", "l=1", "-d"};
	rc = engine_run_argv(&out, "docker", &c, &IDS, similar, ARRAY_LEN(similar), &e);
	ok(rc == 0 && out.n > 0 && strcmp(out.v[15], "--network=none") == 0,
	   "run: --labelx, --networks, -e l=1 are neither refused nor taken for --label/--network");
	strvec_clear(&out);
	cfg_free(&c);
}

static void refused(struct cfg *c, char *const *extra, size_t n, const char *want,
		    const char *title)
{
	struct strvec out = {0};
	struct err e = {0};
	int rc = engine_run_argv(&out, "docker", c, &IDS, extra, n, &e);
	ok(rc == -1 && e.kind == ERR_USAGE && out.n == 0,
	   "refused: %s (usage error, nothing built)", title);
	bool named = strstr(e.msg, want) != NULL;
	ok(named, "refused: %s: message names the argument", title);
	if (!named)
		diag("message: %s; wanted: %s", e.msg, want);
	strvec_clear(&out);
}

static void test_run_refusals(void)
{
	struct cfg c;
	cfg_with_image(&c);
	char *a1[] = {"--name", "x"};
	refused(&c, a1, 2, "--name", "--name x");
	char *a2[] = {"--name=x"};
	refused(&c, a2, 1, "--name", "--name=x");
	char *a3[] = {"--label", "a=b"};
	refused(&c, a3, 2, "--label", "--label a=b");
	char *a3b[] = {"--label=sandbox.workspace=false"};
	refused(&c, a3b, 1, "--label", "--label=sandbox.workspace=false");
	char *a4[] = {"--label-file", "/f"};
	refused(&c, a4, 2, "--label-file", "--label-file /f");
	char *a4b[] = {"--label-file=/f"};
	refused(&c, a4b, 1, "--label-file", "--label-file=/f");
	char *a5[] = {"--entrypoint", "/bin/bash"};
	refused(&c, a5, 2, "--entrypoint", "--entrypoint /bin/bash");
	char *a5b[] = {"--entrypoint="};
	refused(&c, a5b, 1, "--entrypoint", "--entrypoint=");
	char *a6[] = {"-l", "a=b"};
	refused(&c, a6, 2, "-l", "-l a=b");
	char *a7[] = {"-dl", "a=b"};
	refused(&c, a7, 2, "-dl", "-dl a=b");
	char *a8[] = {"-itl", "a=b"};
	refused(&c, a8, 2, "-itl", "-itl a=b");
	char *a8b[] = {"-la=b"};
	refused(&c, a8b, 1, "-la=b", "-la=b");
	char *a9[] = {"--", "other-image"};
	refused(&c, a9, 2, "--", "-- other-image");
	char *a10[] = {"-d", "--cap-add=X", "--name=late"};
	refused(&c, a10, 3, "--name", "--name=x after allowed args");

	/* --network conflicts only when ours is not the default. */
	set(&c, "network", "bridge");
	char *n1[] = {"--network=host"};
	refused(&c, n1, 1, "--network", "--network=host with network=bridge");
	char *n2[] = {"--network", "host"};
	refused(&c, n2, 2, "--network", "--network host with network=bridge");
	char *n3[] = {"--net=host"};
	refused(&c, n3, 1, "--network", "--net=host with network=bridge");
	char *alias[] = {"--network-alias=db"};
	struct strvec al = {0};
	struct err ae = {0};
	ok(engine_run_argv(&al, "docker", &c, &IDS, alias, 1, &ae) == 0,
	   "run: --network-alias is not a --network, even with network=bridge");
	strvec_clear(&al);
	cfg_free(&c);

	cfg_init(&c);
	struct strvec out = {0};
	struct err e = {0};
	int rc = engine_run_argv(&out, "docker", &c, &IDS, NULL, 0, &e);
	ok(rc == -1 && e.kind == ERR_USAGE && out.n == 0, "run: no image is a usage error");
	ok(strstr(e.msg, "image") != NULL, "run: no image: the message says so");
	strvec_clear(&out);
	cfg_free(&c);
}

static void test_run_expiry(void)
{
	struct cfg c;
	cfg_with_image(&c);
	struct strvec out = {0};
	struct err e = {0};
	struct run_ids ids = IDS;
	ids.expires = CREATED + 3600;
	ids.idle = 1800;
	int rc = engine_run_argv(&out, "docker", &c, &ids, NULL, 0, &e);
	is_int(rc, 0, "run: ttl and idle build");
	const char *exp[] = {
		"docker", "run", "--detach", "--name=" NAME,
		"--label=sandbox.workspace=true",
		"--label=sandbox.created=1700000000",
		"--label=sandbox.version=" SANDBOX_VERSION,
		"--label=sandbox.nonce=" NONCE,
		"--label=sandbox.spec=" SPEC,
		"--label=sandbox.expires=1700003600",
		"--label=sandbox.idle=1800", "--label=sandbox.runtime=", "--label=sandbox.allow=",
		"--init", "--entrypoint=sh",
		"--network=none", "--pids-limit=2048",
		"--label=sandbox.workdir=/workspace",
		"--", "sandbox-test/busybox:1", "-c", SCRIPT_KEEPALIVE,
		"keepalive", "1700003600", "1800", "0", NULL,
	};
	is_argv(&out, exp, "run: ttl and idle: their labels, and the keep-alive gets the deadline, the idle time, not pooled");
	strvec_clear(&out);

	ids.expires = 0;
	ids.pooled = true;
	rc = engine_run_argv(&out, "podman", &c, &ids, NULL, 0, &e);
	is_int(rc, 0, "run: pooled with idle builds");
	ok(out.n >= 4 && strcmp(out.v[out.n - 4], "keepalive") == 0 &&
	   strcmp(out.v[out.n - 3], "0") == 0 && strcmp(out.v[out.n - 2], "1800") == 0 &&
	   strcmp(out.v[out.n - 1], "1") == 0,
	   "run: pooled: no deadline, the idle time, and the clock waits for a taker");
	bool zero = false;
	for (size_t i = 0; i < out.n; i++)
		zero |= strcmp(out.v[i], "--label=sandbox.expires=0") == 0;
	ok(zero, "run: no ttl: expires label 0, so that the image cannot set it");
	strvec_clear(&out);
	cfg_free(&c);
}

static void test_pool(void)
{
	struct strvec out = {0};
	engine_pool_ps_argv(&out, "docker", SPEC);
	const char *exp[] = {"docker", "ps", "--all", "--no-trunc", "--filter=label=sandbox.workspace=true",
			     "--filter=label=sandbox.spec=" SPEC, "--filter=status=paused",
			     "--format={{.ID}}\t{{.Names}}", NULL};
	is_argv(&out, exp, "pool ps: paused workspaces of the spec, full IDs and names");
	strvec_clear(&out);
	engine_pause_argv(&out, "docker", "-x", true);
	const char *p1[] = {"docker", "pause", "--", "-x", NULL};
	is_argv(&out, p1, "pause: the container after --");
	strvec_clear(&out);
	engine_pause_argv(&out, "podman", "c", false);
	const char *p2[] = {"podman", "unpause", "--", "c", NULL};
	is_argv(&out, p2, "unpause");
	strvec_clear(&out);
	char *paused[] = {"-a", "b"};
	engine_unpause_all_argv(&out, "docker", paused, 2);
	const char *p3[] = {"docker", "unpause", "--", "-a", "b", NULL};
	is_argv(&out, p3, "unpause before a removal: every paused one, after --");
	strvec_clear(&out);
	engine_rename_argv(&out, "podman", "sandbox-pool-x", "-odd");
	const char *exp2[] = {"podman", "rename", "--", "sandbox-pool-x", "-odd", NULL};
	is_argv(&out, exp2, "rename: names after --");
	strvec_clear(&out);
}

static void test_exec(void)
{
	struct strvec out = {0};
	char *env[] = {"A=1", "B=-x y"};
	char *cmd[] = {"ls", "-la", "--", "$HOME"};
	engine_exec_argv(&out, "/usr/bin/docker", "ctr1", env, 2, true, cmd, 4);
	const char *exp[] = {"/usr/bin/docker", "exec", "--interactive", "--env=A=1",
			     "--env=B=-x y", "--", "ctr1", "ls", "-la", "--", "$HOME", NULL};
	is_argv(&out, exp, "exec: interactive, env as --env=K=V, -- before the container");
	strvec_clear(&out);

	char *cmd2[] = {"true"};
	engine_exec_argv(&out, "podman", "-ctr", NULL, 0, false, cmd2, 1);
	const char *exp2[] = {"podman", "exec", "--", "-ctr", "true", NULL};
	is_argv(&out, exp2, "exec: no env, not interactive");
	strvec_clear(&out);

	engine_exec_argv(&out, "podman", "c", NULL, 0, false, NULL, 0);
	const char *exp3[] = {"podman", "exec", "--", "c", NULL};
	is_argv(&out, exp3, "exec: no command");
	strvec_clear(&out);
}

static void test_exec_tty(void)
{
	struct strvec out = {0};
	char *env[] = {"A=1", "--B=2"};
	char *cmd[] = {"/bin/sh", "-c", "-x", "--"};
	engine_exec_tty_argv(&out, "/usr/bin/docker", "ctr1", env, 2, cmd, 4);
	const char *exp[] = {"/usr/bin/docker", "exec", "--interactive", "--tty", "--env=A=1",
			     "--env=--B=2", "--", "ctr1", "/bin/sh", "-c", "-x", "--", NULL};
	is_argv(&out, exp, "exec tty: interactive and a tty, env as --env=K=V, -- before the container");
	strvec_clear(&out);

	engine_exec_tty_argv(&out, "podman", "-ctr", NULL, 0, NULL, 0);
	const char *exp2[] = {"podman", "exec", "--interactive", "--tty", "--", "-ctr", NULL};
	is_argv(&out, exp2, "exec tty: no env, no command");
	strvec_clear(&out);
}

static void test_queries(void)
{
	struct strvec out = {0};
	engine_inspect_argv(&out, "docker", "sandbox-abc");
	const char *inspect[] = {
		"docker", "inspect", "--type=container",
		"--format={{.Id}}\t{{.State.Running}}\t"
		"{{index .Config.Labels \"sandbox.workspace\"}}\t"
		"{{index .Config.Labels \"sandbox.workdir\"}}\t"
		"{{index .Config.Labels \"sandbox.nonce\"}}\t"
		"{{index .Config.Labels \"sandbox.expires\"}}\t{{.Name}}\t"
		"{{index .Config.Labels \"sandbox.runtime\"}}\t{{.HostConfig.NetworkMode}}\t"
		"{{index .Config.Labels \"sandbox.allow\"}}",
		"--", "sandbox-abc", NULL};
	is_argv(&out, inspect, "inspect: id, running, workspace label, workdir, nonce and expires labels, name, runtime label, network");
	strvec_clear(&out);

	char *ids[] = {"id1", "id2", "id3"};
	engine_describe_argv(&out, "podman", ids, 3);
	const char *describe[] = {
		"podman", "inspect", "--type=container",
		"--format={{.Id}}\t{{.Name}}\t{{.State.Status}}\t{{json .Config.Image}}\t"
		"{{json (index .Config.Labels \"sandbox.created\")}}\t{{.State.ExitCode}}\t"
		"{{json (index .Config.Labels \"sandbox.expires\")}}\t"
		"{{json (index .Config.Labels \"sandbox.idle\")}}\t"
		"{{json (index .Config.Labels \"sandbox.spec\")}}\t"
		"{{json (index .Config.Labels \"sandbox.runtime\")}}",
		"--", "id1", "id2", "id3", NULL};
	is_argv(&out, describe, "describe: id, name, status, image, created label, exit code, expires, idle, spec and runtime labels, of every id");
	strvec_clear(&out);

	char *refs[] = {"sandbox-a", "-b"};
	engine_check_argv(&out, "docker", refs, 2);
	const char *check[] = {
		"docker", "inspect", "--type=container",
		"--format={{.Id}}\t{{.Name}}\t{{.State.Status}}\t{{json (index .Config.Labels \"sandbox.workspace\")}}",
		"--", "sandbox-a", "-b", NULL};
	is_argv(&out, check, "check: id, name, workspace label as JSON, of every ref after --");
	strvec_clear(&out);

	engine_ps_argv(&out, "docker");
	const char *ps[] = {"docker", "ps", "--all", "--quiet", "--no-trunc",
			    "--filter=label=sandbox.workspace=true", NULL};
	is_argv(&out, ps, "ps: all full IDs with the workspace label");
	strvec_clear(&out);
}

static void test_lifecycle(void)
{
	struct strvec out = {0};
	engine_start_argv(&out, "docker", "sandbox-abc", NULL, NULL);
	const char *start[] = {"docker", "start", "--", "sandbox-abc", NULL};
	is_argv(&out, start, "start");
	strvec_clear(&out);
	engine_start_argv(&out, "docker", "sandbox-abc", "runsc", "none");
	is_argv(&out, start, "start of a gVisor workspace on Docker: the daemon knows its runtime");
	strvec_clear(&out);
	engine_start_argv(&out, "/usr/bin/podman", "sandbox-abc", "runsc", "none");
	const char *pstart[] = {"/usr/bin/podman", "--runtime=runsc", "--runtime-flag=network=none",
				"start", "--", "sandbox-abc", NULL};
	is_argv(&out, pstart, "on Podman: told its runtime again, and gVisor network none");
	strvec_clear(&out);
	engine_start_argv(&out, "podman", "sandbox-abc", "/usr/bin/crun", "bridge");
	const char *cstart[] = {"podman", "--runtime=/usr/bin/crun", "start", "--", "sandbox-abc", NULL};
	is_argv(&out, cstart, "another runtime: no gVisor flag");
	strvec_clear(&out);

	engine_stop_argv(&out, "docker", "sandbox-abc");
	const char *stop[] = {"docker", "stop", "-t", "1", "--", "sandbox-abc", NULL};
	is_argv(&out, stop, "stop: -t 1");
	strvec_clear(&out);

	char *ids[] = {"id1", "id2"};
	engine_rm_argv(&out, "podman", ids, 2);
	const char *rm[] = {"podman", "rm", "--force", "--volumes", "--", "id1", "id2", NULL};
	is_argv(&out, rm, "rm: --force --volumes, several ids");
	strvec_clear(&out);
}

/* doctor's questions: none needs a value of the user's but the image,
 * which goes after --. */
static void test_doctor(void)
{
	struct strvec out = {0};
	engine_version_argv(&out, "/usr/bin/docker");
	const char *version[] = {"/usr/bin/docker", "--version", NULL};
	is_argv(&out, version, "version: the client's own, no daemon");
	strvec_clear(&out);

	engine_info_argv(&out, "podman");
	const char *info[] = {"podman", "info", "--format={{json .}}", NULL};
	is_argv(&out, info, "info: one JSON object");
	strvec_clear(&out);

	engine_context_argv(&out, "docker");
	const char *ctx[] = {"docker", "context", "inspect",
			     "--format={{.Name}}\t{{.Endpoints.docker.Host}}", NULL};
	is_argv(&out, ctx, "context inspect: the current context's name and host");
	strvec_clear(&out);

	engine_image_argv(&out, "docker", "-x:1");
	const char *img[] = {"docker", "image", "inspect", "--format={{.Id}}", "--", "-x:1", NULL};
	is_argv(&out, img, "image inspect: the image after --");
	strvec_clear(&out);
}

static void test_snapshots(void)
{
	struct cfg c;
	cfg_with_image(&c);
	set(&c, "from", "snap-1");
	ok(c.image == NULL && strcmp(c.from, "snap-1") == 0, "from: replaces the image");
	struct strvec out = {0};
	struct err e = {0};
	int rc = engine_run_argv(&out, "docker", &c, &IDS, NULL, 0, &e);
	is_int(rc, 0, "run --from: builds");
	const char *exp[] = {
		RUN_HEAD("docker"),
		"--network=none",
		"--pids-limit=2048",
		"--label=sandbox.workdir=/workspace",
		"--pull=never",
		"--", "sandbox-snapshot:snap-1", "-c", SCRIPT_KEEPALIVE, NULL,
	};
	is_argv(&out, exp, "run --from: the snapshot's image, never pulled");
	strvec_clear(&out);
	rc = engine_run_argv(&out, "/usr/bin/podman", &c, &IDS, NULL, 0, &e);
	ok(rc == 0 && strcmp(out.v[out.n - 3], "localhost/sandbox-snapshot:snap-1") == 0,
	   "run --from on Podman: the name fully qualified");
	strvec_clear(&out);
	ok(strcmp(engine_snap_repo("podman"), "localhost/sandbox-snapshot") == 0 &&
	   strcmp(engine_snap_repo("/opt/bin/podman-remote"), "localhost/sandbox-snapshot") == 0 &&
	   strcmp(engine_snap_repo("/usr/bin/docker"), "sandbox-snapshot") == 0,
	   "our repository: fully qualified for Podman, as it is for Docker");
	set(&c, "image", "img:2");
	ok(c.from == NULL && strcmp(c.image, "img:2") == 0, "image after from: the later one wins");
	ok(cfg_set(&c, "from", "-x", &e) < 0 && strstr(e.msg, "from '-x'"), "from: a name, never an option");
	ok(cfg_set(&c, "from", "a:b", &e) < 0, "from: a name, no tag of its own");
	cfg_free(&c);

	engine_commit_argv(&out, "podman", "0123456789abcdef", "localhost/sandbox-snapshot:ws-1", "ws",
			   CREATED);
	const char *commit[] = {
		"podman", "commit", "--pause=true",
		"--change=LABEL sandbox.workspace=\"\"",
		"--change=LABEL sandbox.nonce=\"\"",
		"--change=LABEL sandbox.created=\"\"",
		"--change=LABEL sandbox.snapshot=true",
		"--change=LABEL sandbox.snapshot.of=ws",
		"--change=LABEL sandbox.snapshot.created=1700000000",
		"--change=ENTRYPOINT [\"sh\", \"-c\", \"exec \\\"$@\\\"\", \"sh\"]",
		"--change=CMD [\"sh\"]",
		"--", "0123456789abcdef", "localhost/sandbox-snapshot:ws-1", NULL,
	};
	is_argv(&out, commit, "commit: paused, the workspace labels emptied, ours set, no keep-alive, by ID");
	strvec_clear(&out);

	engine_snap_ctr_argv(&out, "docker", "ws");
	const char *ctr[] = {
		"docker", "inspect", "--type=container",
		"--format={{.Id}}\t{{index .Config.Labels \"sandbox.workspace\"}}\t{{.State.Status}}"
		"\t{{.Name}}{{range .Mounts}}\n{{.Type}}\t{{.Source}}\t{{.Destination}}{{end}}",
		"--", "ws", NULL,
	};
	is_argv(&out, ctr, "snapshot's inspect: ID, label, state, name, and the mounts, one a line");
	strvec_clear(&out);

	engine_snap_size_argv(&out, "docker", "0123456789abcdef");
	const char *size[] = {
		"docker", "inspect", "--type=container", "--size",
		"--format={{.Id}}\t{{.State.Status}}\t{{.SizeRw}}", "--", "0123456789abcdef", NULL,
	};
	is_argv(&out, size, "snapshot's size: the changed files' bytes, and the state");
	strvec_clear(&out);

	engine_tag_argv(&out, "podman", "0123456789abcdef", "localhost/sandbox-snapshot:a");
	const char *tag[] = {"podman", "tag", "--", "0123456789abcdef", "localhost/sandbox-snapshot:a", NULL};
	is_argv(&out, tag, "tag: the image by ID, the name, after --");
	strvec_clear(&out);


	char *refs[] = {"sandbox-snapshot:a", "sha256:0123456789ab"};
	engine_snap_image_argv(&out, "docker", refs, 2);
	const char *img[] = {
		"docker", "image", "inspect",
		"--format={{.Id}}\t{{range .RepoTags}} {{.}}{{end}}\t"
		"{{with .Config.Labels}}{{index . \"sandbox.snapshot\"}}\t"
		"{{index . \"sandbox.workdir\"}}\t{{index . \"sandbox.snapshot.of\"}}\t"
		"{{index . \"sandbox.snapshot.created\"}}{{else}}\t\t\t{{end}}\t{{.Size}}",
		"--", "sandbox-snapshot:a", "sha256:0123456789ab", NULL,
	};
	is_argv(&out, img, "image inspect: its names, the snapshot labels, an image without labels too");
	strvec_clear(&out);

	engine_snap_list_argv(&out, "podman");
	const char *list[] = {
		"podman", "images", "--no-trunc", "--filter=label=sandbox.snapshot=true",
		"--format={{.ID}}\t{{.Repository}}\t{{.Tag}}", NULL,
	};
	is_argv(&out, list, "images: those labelled snapshots, full IDs");
	strvec_clear(&out);

	engine_image_rm_argv(&out, "docker", "sandbox-snapshot:a");
	const char *rm[] = {"docker", "image", "rm", "--", "sandbox-snapshot:a", NULL};
	is_argv(&out, rm, "image rm: no --force, the name after --");
	strvec_clear(&out);
}

/* The runtime: Docker's is run's option; Podman's a global one, with
 * gVisor's network flag when the network is none; always its label. */
static void test_run_runtime(void)
{
	struct cfg c;
	cfg_with_image(&c);
	struct err e = {0};
	cfg_set(&c, "runtime", "runsc", &e);
	struct strvec out = {0};
	is_int(engine_run_argv(&out, "docker", &c, &IDS, NULL, 0, &e), 0, "run with runsc on docker builds");
	ok(out.n > 3 && strcmp(out.v[1], "run") == 0 && strcmp(out.v[2], "--runtime=runsc") == 0,
	   "docker: --runtime=runsc right after run");
	bool label = false, flag = false;
	for (size_t i = 0; i < out.n; i++) {
		label |= strcmp(out.v[i], "--label=sandbox.runtime=runsc") == 0;
		flag |= strncmp(out.v[i], "--runtime-flag", 14) == 0;
	}
	ok(label && !flag, "docker: the label, and no runtime flag (the daemon's to give)");
	strvec_clear(&out);
	is_int(engine_run_argv(&out, "/usr/bin/podman", &c, &IDS, NULL, 0, &e), 0, "on podman builds");
	ok(out.n > 4 && strcmp(out.v[1], "--runtime=runsc") == 0 &&
	   strcmp(out.v[2], "--runtime-flag=network=none") == 0 && strcmp(out.v[3], "run") == 0 &&
	   strncmp(out.v[4], "--runtime", 9) != 0,
	   "podman: --runtime and gVisor's network=none before run, none after");
	strvec_clear(&out);
	cfg_set(&c, "network", "bridge", &e);
	engine_run_argv(&out, "podman", &c, &IDS, NULL, 0, &e);
	ok(strcmp(out.v[1], "--runtime=runsc") == 0 && strcmp(out.v[2], "run") == 0,
	   "podman, network bridge: no network flag");
	strvec_clear(&out);
	char *extra[] = {"--runtime=runc"};
	ok(engine_run_argv(&out, "docker", &c, &IDS, extra, 1, &e) < 0 && e.kind == ERR_USAGE,
	   "--runtime among the engine run arguments is refused");
	strvec_clear(&out);
	ok(cfg_set(&c, "runtime", "run sc", &e) < 0 && cfg_set(&c, "runtime", "a,b", &e) < 0 &&
	   cfg_set(&c, "runtime", "/usr/local/bin/runsc", &e) == 0 && cfg_set(&c, "runtime", "crun", &e) == 0,
	   "a runtime is a name or an absolute path");
	cfg_free(&c);
}

/* network = allow: no network in the workspace, the proxy in every
 * form tools read, the patterns sealed with the nonce; refused with
 * none; an image's label of the same name opens nothing. */
static void test_run_allow(void)
{
	struct cfg c;
	cfg_with_image(&c);
	struct err e = {0};
	struct strvec out = {0};
	ok(cfg_set(&c, "network", "allow", &e) == 0 &&
	   engine_run_argv(&out, "docker", &c, &IDS, NULL, 0, &e) < 0 && e.kind == ERR_USAGE,
	   "network allow with no pattern is refused (%s)", e.msg);
	strvec_clear(&out);
	ok(cfg_set(&c, "network", "none", &e) == 0 && cfg_set(&c, "allow", "pypi.org, *.npmjs.org", &e) == 0 &&
	   cfg_set(&c, "allow", "PYPI.org github.com:22", &e) == 0 && strcmp(c.network, "allow") == 0 &&
	   c.allow.n == 3, "allow patterns: split, each once, and network allow");
	ok(cfg_set(&c, "allow", "bad/pattern", &e) < 0 && e.kind == ERR_USAGE && c.allow.n == 3,
	   "a bad pattern is refused, the list unchanged");
	is_int(engine_run_argv(&out, "docker", &c, &IDS, NULL, 0, &e), 0, "run with allow builds");
	bool none = false, proxy = false, java = false, node = false, noproxy = false;
	const char *label = NULL;
	for (size_t i = 0; i < out.n; i++) {
		none |= strcmp(out.v[i], "--network=none") == 0;
		proxy |= strcmp(out.v[i], "--env=https_proxy=http://127.0.0.1:3128") == 0;
		java |= strncmp(out.v[i], "--env=JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.1", 50) == 0;
		node |= strcmp(out.v[i], "--env=NODE_USE_ENV_PROXY=1") == 0;
		noproxy |= strncmp(out.v[i], "--env=NO_PROXY=localhost,127.0.0.1", 34) == 0;
		if (strncmp(out.v[i], "--label=sandbox.allow=", 22) == 0)
			label = out.v[i] + 22;
	}
	ok(none && proxy && java && node && noproxy, "no network; the proxy in its forms");
	const char *pats = label ? engine_allow_open(IDS.nonce, label) : NULL;
	is_str(pats ? pats : "(none)", "pypi.org *.npmjs.org github.com:22", "the label opens with the nonce");
	ok(label && !engine_allow_open("ffffffffffffffff", label), "and with no other nonce");
	ok(!engine_allow_open(IDS.nonce, "pypi.org") && !engine_allow_open(IDS.nonce, "") &&
	   !engine_allow_open(IDS.nonce, "0123456789abcdef evil.org"), "an unsealed label opens nothing");
	strvec_clear(&out);
	char spec1[ENGINE_SPEC_LEN + 1], spec2[ENGINE_SPEC_LEN + 1];
	engine_spec(&c, NULL, 0, 0, spec1);
	cfg_set(&c, "allow", "evil.org", &e);
	engine_spec(&c, NULL, 0, 0, spec2);
	ok(strcmp(spec1, spec2) != 0, "the patterns are part of the spec");
	cfg_free(&c);
}

int main(void)
{
	test_run_allow();
	test_snapshots();
	test_run_runtime();
	test_run_defaults();
	test_run_all_options();
	test_run_extra();
	test_run_refusals();
	test_run_expiry();
	test_pool();
	test_exec();
	test_exec_tty();
	test_queries();
	test_lifecycle();
	test_doctor();
	return done_testing();
}
