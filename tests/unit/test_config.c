/* test_config.c: cfg_set's check of every key, and cfg_load of real
 * files: sections, file:line errors, permissions, missing files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "tap.h"
#include "util.h"

static void good(const char *key, const char *value)
{
	struct cfg c;
	cfg_init(&c);
	struct err e = {0};
	int rc = cfg_set(&c, key, value, &e);
	ok(rc == 0 && e.kind == ERR_NONE, "%s = '%s' is accepted", key, value);
	if (rc != 0)
		diag("error: %s", e.msg);
	cfg_free(&c);
}

/* A bad value: a usage error whose message names the key, and the
 * setting keeps its previous value. */
static void bad(const char *key, const char *value)
{
	struct cfg c;
	cfg_init(&c);
	struct err e = {0};
	int rc = cfg_set(&c, key, value, &e);
	bool named = strncmp(e.msg, key, strlen(key)) == 0;
	ok(rc == -1 && e.kind == ERR_USAGE && named,
	   "%s = '%s' is refused with a message naming the key", key, value);
	if (rc != -1 || !named)
		diag("rc %d kind %d message: %s", rc, (int)e.kind, e.msg);
	cfg_free(&c);
}

static void test_defaults(void)
{
	struct cfg c;
	cfg_init(&c);
	is_str(c.engine, "docker", "default engine is docker");
	is_str(c.workdir, "/workspace", "default workdir is /workspace");
	is_str(c.network, "none", "default network is none");
	is_int(c.pids_limit, 2048, "default pids_limit is 2048");
	is_int(c.max_output, 1048576, "default max_output is 1 MiB");
	ok(c.snapshot_max == 4LL << 30, "default snapshot_max is 4 GiB");
	ok(c.timeout == 0, "default timeout is none");
	ok(!c.image && !c.memory && !c.cpus && !c.user && !c.setup && !c.name &&
	   c.nmounts == 0 && c.env.n == 0, "no image, limits, user, setup, name, mounts or env by default");
	cfg_free(&c);
}

static void test_keys(void)
{
	good("engine", "docker");
	good("engine", "podman");
	good("engine", "/usr/local/bin/docker");
	bad("engine", "");
	bad("engine", "bin/docker");
	bad("engine", "./docker");
	bad("engine", "/usr/bin/doc\nker");

	good("image", "sandbox-test/busybox:1");
	good("image", "ghcr.io/a/b@sha256:0123abcd");
	bad("image", "-x");
	bad("image", "");
	bad("image", "a b");
	bad("image", "a\tb");

	good("workdir", "/");
	good("workdir", "/src/x y");
	bad("workdir", "relative");
	bad("workdir", "./src");
	bad("workdir", "");
	bad("workdir", "/a,b");
	bad("workdir", "/a\nb");

	good("network", "none");
	good("network", "bridge");
	good("network", "my_net.1-x");
	bad("network", "-x");
	bad("network", "");
	bad("network", "a b");
	bad("network", "container:x");
	bad("network", "a/b");

	good("mount", "/tmp");
	good("mount", "/tmp:/data");
	good("mount", "/tmp:/data:ro");
	good("mount", "/tmp::ro");
	good("mount", ".");
	bad("mount", "");
	bad("mount", ":/data");
	bad("mount", "/tmp:data");
	bad("mount", "/tmp:/data:rw");
	bad("mount", "/tmp:/data:ro:x");
	bad("mount", "/a,b:/data");
	bad("mount", "/tmp:/da,ta");
	bad("mount", "/tmp\n");
	bad("mount", "no-such-dir-here-4711");

	good("memory", "512m");
	good("memory", "2g");
	good("memory", "2G");
	good("memory", "1048576");
	good("memory", "64k");
	good("memory", "100b");
	bad("memory", "12x");
	bad("memory", "");
	bad("memory", "m");
	bad("memory", "G");
	bad("memory", "1.5g");
	bad("memory", "-1");
	bad("memory", "1 g");
	bad("memory", "12mb");
	bad("memory", "123456789012345678901");

	good("cpus", "1");
	good("cpus", "1.5");
	good("cpus", "0.25");
	bad("cpus", "0");
	bad("cpus", "0.0");
	bad("cpus", "-1");
	bad("cpus", "abc");
	bad("cpus", "");
	bad("cpus", "1e3");

	good("pids_limit", "1");
	good("pids_limit", "-1");
	good("pids_limit", "4194304");
	bad("pids_limit", "0");
	bad("pids_limit", "-2");
	bad("pids_limit", "abc");
	bad("pids_limit", "");
	bad("pids_limit", "10x");
	bad("pids_limit", "+5");
	bad("pids_limit", " 5");
	bad("pids_limit", "4194305");
	bad("pids_limit", "99999999999999999999");

	good("user", "root");
	good("user", "1000");
	good("user", "1000:1000");
	good("user", "www-data");
	bad("user", "-u");
	bad("user", "");
	bad("user", "a b");
	bad("user", "a/b");

	good("env", "A=1");
	good("env", "_x=");
	good("env", "A=b=c");
	good("env", "A=-x y");
	bad("env", "1BAD=x");
	bad("env", "A-B=x");
	bad("env", "=x");
	bad("env", "NOEQUALS");
	bad("env", "A B=x");

	good("setup", "apk add git");
	bad("setup", "");

	good("name", "a");
	good("name", "my.box_1-x");
	good("name", "0abc");
	bad("name", "a/b");
	bad("name", "-x");
	bad("name", "_x");
	bad("name", ".x");
	bad("name", "");
	bad("name", "a b");
	char longname[130];
	memset(longname, 'a', 128);
	longname[128] = '\0';
	good("name", longname);
	longname[128] = 'a';
	longname[129] = '\0';
	bad("name", longname);

	good("timeout", "0");
	good("timeout", "30");
	good("timeout", "1.5");
	good("timeout", ".5");
	bad("timeout", "-1");
	bad("timeout", "abc");
	bad("timeout", "");
	bad("timeout", "1e3");
	bad("timeout", "inf");
	bad("timeout", "nan");
	bad("timeout", "1.2.3");
	bad("timeout", "5s");

	good("max_output", "1");
	good("max_output", "1048576");
	bad("max_output", "0");
	bad("max_output", "-1");
	bad("max_output", "1k");
	bad("max_output", "");

	good("snapshot_max", "0");
	good("snapshot_max", "4g");
	good("snapshot_max", "100M");
	good("snapshot_max", "1t");
	good("snapshot_max", "12345");
	bad("snapshot_max", "");
	bad("snapshot_max", "-1");
	bad("snapshot_max", "1x");
	bad("snapshot_max", "1gb");
	bad("snapshot_max", "k");
	bad("snapshot_max", "2000t");
	bad("snapshot_max", "99999999999999999999");
}

static void test_values(void)
{
	struct cfg c;
	cfg_init(&c);
	struct err e = {0};
	cfg_set(&c, "timeout", "1.5", &e);
	ok(c.timeout == 1.5, "timeout 1.5 is 1.5 seconds");
	cfg_set(&c, "timeout", "abc", &e);
	ok(c.timeout == 1.5, "a refused timeout keeps the previous one");
	cfg_set(&c, "pids_limit", "-1", &e);
	is_int(c.pids_limit, -1, "pids_limit -1 is stored");
	cfg_set(&c, "pids_limit", "0", &e);
	is_int(c.pids_limit, -1, "a refused pids_limit keeps the previous one");
	cfg_set(&c, "max_output", "4096", &e);
	is_int(c.max_output, 4096, "max_output is stored");
	cfg_set(&c, "snapshot_max", "3m", &e);
	ok(c.snapshot_max == 3 << 20, "snapshot_max 3m is 3 MiB");
	cfg_set(&c, "snapshot_max", "1t", &e);
	ok(c.snapshot_max == 1LL << 40, "snapshot_max 1t is 1 TiB");
	cfg_set(&c, "snapshot_max", "1q", &e);
	ok(c.snapshot_max == 1LL << 40, "a refused snapshot_max keeps the previous one");
	cfg_set(&c, "image", "a:1", &e);
	cfg_set(&c, "image", "b:2", &e);
	is_str(c.image, "b:2", "the last image wins");
	cfg_set(&c, "image", "-x", &e);
	is_str(c.image, "b:2", "a refused image keeps the previous one");

	cfg_set(&c, "mount", "/h:/c:ro", &e);
	cfg_set(&c, "mount", "/h2", &e);
	cfg_set(&c, "mount", "/h3::ro", &e);
	is_int((long long)c.nmounts, 3, "mounts accumulate");
	ok(c.nmounts == 3 && strcmp(c.mounts[0].host, "/h") == 0 &&
	   strcmp(c.mounts[0].ctr, "/c") == 0 && c.mounts[0].ro,
	   "mount /h:/c:ro: host, container dir, read-only");
	ok(c.nmounts == 3 && strcmp(c.mounts[1].host, "/h2") == 0 &&
	   c.mounts[1].ctr == NULL && !c.mounts[1].ro,
	   "mount /h2: container dir left to the workdir, read-write");
	ok(c.nmounts == 3 && strcmp(c.mounts[2].host, "/h3") == 0 &&
	   c.mounts[2].ctr == NULL && c.mounts[2].ro,
	   "mount /h3::ro: container dir left to the workdir, read-only");
	cfg_set(&c, "mount", "/tmp:x", &e);
	is_int((long long)c.nmounts, 3, "a refused mount is not added");

	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	cfg_set(&c, "mount", ".:/w", &e);
	ok(c.nmounts == 4 && strcmp(c.mounts[3].host, cwd) == 0,
	   "a relative host dir is resolved against the current directory");

	is_int(cfg_set(&c, "bogus", "1", &e), -1, "an unknown key is refused");
	is_int(e.kind, ERR_CONFIG, "an unknown key is a config error");
	is_str(e.msg, "unknown key 'bogus'", "an unknown key's message names it");
	is_int(cfg_set(&c, "pids-limit", "5", &e), -1,
	       "keys are spelled with _ (pids-limit is unknown)");
	cfg_free(&c);
}

static void test_env(void)
{
	struct cfg c;
	cfg_init(&c);
	struct err e = {0};
	cfg_set(&c, "env", "A=1", &e);
	cfg_set(&c, "env", "AB=2", &e);
	cfg_set(&c, "env", "B=3", &e);
	cfg_set(&c, "env", "A=4", &e);
	is_int((long long)c.env.n, 3, "env: a name set twice is kept once");
	ok(c.env.n == 3 && strcmp(c.env.v[0], "A=4") == 0,
	   "env: a later value replaces the earlier one in place");
	ok(c.env.n == 3 && strcmp(c.env.v[1], "AB=2") == 0 &&
	   strcmp(c.env.v[2], "B=3") == 0, "env: a name that extends another is its own");
	is_int(cfg_set_env(&c, "B", "x=y", &e), 0, "cfg_set_env: accepted");
	ok(c.env.n == 3 && strcmp(c.env.v[2], "B=x=y") == 0, "cfg_set_env replaces by name");
	is_int(cfg_set_env(&c, "1BAD", "x", &e), -1, "cfg_set_env: 1BAD refused");
	is_int(cfg_set_env(&c, "A-B", "x", &e), -1, "cfg_set_env: A-B refused");
	is_int(cfg_set_env(&c, "", "x", &e), -1, "cfg_set_env: empty name refused");
	is_int((long long)c.env.n, 3, "env: refused names are not added");
	ok(c.env.v[c.env.n] == NULL, "env: the list stays NULL-terminated");

	ok(cfg_valid_env_name("_", 1), "env name _ is valid");
	ok(cfg_valid_env_name("a1", 2), "env name a1 is valid");
	ok(!cfg_valid_env_name("ABC", 0), "env name of length 0 is invalid");
	ok(cfg_valid_env_name("AB-C", 2), "env name validity looks only at the first n bytes");
	ok(cfg_valid_container_name("a-b") && !cfg_valid_container_name("-a"),
	   "container names cannot start with -");
	cfg_free(&c);
}

/* Writes text to a fresh file in dir with the given mode; returns its path. */
static char *write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		diag("cannot write %s", path);
		return path;
	}
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

/* Loads text as a config file; returns cfg_load's result. */
static int load_text(struct cfg *c, const char *dir, const char *text, mode_t mode,
		     struct err *e, char **path_out)
{
	char *path = write_file(dir, "sandbox.ini", text, mode);
	int rc = cfg_load(c, path, true, e);
	unlink(path);
	if (path_out)
		*path_out = path;
	else
		free(path);
	return rc;
}

/* The message must be the file's path followed by want. */
static void load_fails(const char *dir, const char *text, const char *want,
		       const char *title)
{
	struct cfg c;
	cfg_init(&c);
	struct err e = {0};
	char *path;
	int rc = load_text(&c, dir, text, 0644, &e, &path);
	ok(rc == -1 && e.kind == ERR_CONFIG, "load: %s: a config error", title);
	char *full = xasprintf("%s%s", path, want);
	bool has = strncmp(e.msg, full, strlen(full)) == 0;
	ok(has, "load: %s: message starts with 'FILE%s'", title, want);
	if (!has)
		diag("message: %s", e.msg);
	free(full);
	free(path);
	cfg_free(&c);
}

static void test_load(const char *dir)
{
	struct cfg c;
	cfg_init(&c);
	struct err e = {0};
	int rc = load_text(&c, dir,
			   "; a comment\n"
			   "# another\n"
			   "[sandbox]\n"
			   "engine = podman\n"
			   "image = sandbox-test/busybox:1\n"
			   "workdir = /src\n"
			   "network = bridge\n"
			   "mount = /h:/c:ro\n"
			   "mount = /h2\n"
			   "memory = 256m\n"
			   "cpus = 2\n"
			   "pids_limit = -1\n"
			   "user = 1000:1000\n"
			   "setup = echo hi there\n"
			   "name = box1\n"
			   "timeout = 2.5\n"
			   "max_output = 100\n"
			   "\n"
			   "[env]\n"
			   "FOO = bar baz\n"
			   "EMPTY =\n"
			   "FOO = again\n"
			   "lower_1 = x=y\n",
			   0644, &e, NULL);
	is_int(rc, 0, "load: a full file loads");
	if (rc)
		diag("error: %s", e.msg);
	is_str(c.engine, "podman", "load: engine");
	is_str(c.image, "sandbox-test/busybox:1", "load: image");
	is_str(c.workdir, "/src", "load: workdir");
	is_str(c.network, "bridge", "load: network");
	ok(c.nmounts == 2 && strcmp(c.mounts[0].host, "/h") == 0 && c.mounts[0].ro &&
	   strcmp(c.mounts[1].host, "/h2") == 0 && !c.mounts[1].ro,
	   "load: mount is repeatable");
	is_str(c.memory, "256m", "load: memory");
	is_str(c.cpus, "2", "load: cpus");
	is_int(c.pids_limit, -1, "load: pids_limit");
	is_str(c.user, "1000:1000", "load: user");
	is_str(c.setup, "echo hi there", "load: setup keeps inner spaces");
	is_str(c.name, "box1", "load: name");
	ok(c.timeout == 2.5, "load: timeout");
	is_int(c.max_output, 100, "load: max_output");
	is_int((long long)c.env.n, 3, "load: [env] holds three names");
	ok(c.env.n == 3 && strcmp(c.env.v[0], "FOO=again") == 0 &&
	   strcmp(c.env.v[1], "EMPTY=") == 0 && strcmp(c.env.v[2], "lower_1=x=y") == 0,
	   "load: [env] values, a repeated name replaced, an empty value kept");
	cfg_free(&c);

	/* The file's values go through the same checks as the command line. */
	load_fails(dir, "[sandbox]\nimage = x\nbogus = 1\n",
		   ":3: unknown key 'bogus'", "unknown key");
	load_fails(dir, "[sandbox]\n\n\npids_limit = 0\n",
		   ":4: pids_limit '0'", "bad value");
	load_fails(dir, "[sandbox]\nworkdir = rel\n",
		   ":2: workdir 'rel'", "relative workdir");
	load_fails(dir, "[other]\nx = 1\n",
		   ":2: unknown section [other]", "unknown section");
	load_fails(dir, "image = x\n",
		   ":1: unknown section []", "key before any section");
	load_fails(dir, "[env]\n1BAD = x\n",
		   ":2: env: '1BAD'", "bad env name");
	load_fails(dir, "[env]\nA-B = x\n",
		   ":2: env: 'A-B'", "env name with a dash");
	load_fails(dir, "[sandbox]\nenv = A=1\n",
		   ":2: put variables in the [env] section", "env in [sandbox]");
	load_fails(dir, "[sandbox]\nimage x\n",
		   ":2: syntax error", "a line without =");

	/* A line longer than inih's buffer (200 bytes in Debian's build) must
	 * load whole or fail on its own line, never be cut in two. */
	cfg_init(&c);
	struct sbuf text = {0};
	sbuf_adds(&text, "[sandbox]\nsetup = ");
	for (int i = 0; i < 300; i++)
		sbuf_addc(&text, 'x');
	sbuf_adds(&text, "\nimage = y\n");
	rc = load_text(&c, dir, text.buf, 0644, &e, NULL);
	ok((rc == 0 && c.setup && strlen(c.setup) == 300) ||
	   (rc == -1 && strstr(e.msg, ":2:") != NULL),
	   "load: a 300-byte setup line loads whole, or is an error on its line");
	if (rc == 0)
		diag("setup kept %zu of 300 bytes", c.setup ? strlen(c.setup) : 0);
	else
		diag("message: %s", e.msg);
	cfg_free(&c);

	cfg_init(&c);
	sbuf_reset(&text);
	sbuf_adds(&text, "[sandbox]\nimage = good\nsetup = ");
	for (int i = 0; i < 191; i++)
		sbuf_addc(&text, 'x');
	sbuf_adds(&text, "image = evil\n");
	rc = load_text(&c, dir, text.buf, 0644, &e, NULL);
	ok(!(c.image && strcmp(c.image, "evil") == 0),
	   "load: the end of a long setup value is never read as a key of its own");
	if (c.image && strcmp(c.image, "evil") == 0)
		diag("rc %d: image became '%s' from the tail of the setup line", rc, c.image);
	cfg_free(&c);
	sbuf_free(&text);

	/* Nothing after the first error is applied. */
	cfg_init(&c);
	rc = load_text(&c, dir, "[sandbox]\nimage = first\nbogus = 1\nimage = later\n",
		       0644, &e, NULL);
	is_int(rc, -1, "load: error in the middle fails");
	is_str(c.image, "first", "load: lines after the first error are not applied");
	ok(strstr(e.msg, ":3:") != NULL, "load: the first error's line is reported");
	cfg_free(&c);

	/* Permissions and existence. */
	cfg_init(&c);
	char *path;
	rc = load_text(&c, dir, "[sandbox]\nimage = x\n", 0666, &e, &path);
	ok(rc == -1 && e.kind == ERR_CONFIG, "load: a world-writable file is refused");
	ok(strstr(e.msg, path) && strstr(e.msg, "writable by everyone"),
	   "load: world-writable: message names the file and the problem");
	ok(c.image == NULL, "load: world-writable: nothing is applied");
	free(path);
	rc = load_text(&c, dir, "[sandbox]\nimage = x\n", 0664, &e, NULL);
	ok(rc == 0, "load: a group-writable file is accepted");
	rc = load_text(&c, dir, "[sandbox]\nimage = y\n", 0600, &e, NULL);
	ok(rc == 0 && strcmp(c.image, "y") == 0, "load: a later file overrides an earlier one");
	cfg_free(&c);

	cfg_init(&c);
	char *missing = xasprintf("%s/no-such.ini", dir);
	e = (struct err){0};
	is_int(cfg_load(&c, missing, false, &e), 0, "load: a missing optional file is fine");
	is_int(e.kind, ERR_NONE, "load: a missing optional file sets no error");
	is_int(cfg_load(&c, missing, true, &e), -1, "load: a missing required file is an error");
	ok(e.kind == ERR_CONFIG && strstr(e.msg, missing) != NULL,
	   "load: missing required file: config error naming the file");
	free(missing);
	is_int(cfg_load(&c, dir, true, &e), -1, "load: a directory is refused");
	ok(strstr(e.msg, "not a regular file") != NULL, "load: a directory: not a regular file");
	is_int(cfg_load(&c, dir, false, &e), -1, "load: a directory is refused even when optional");
	cfg_free(&c);

	cfg_init(&c);
	rc = load_text(&c, dir, "", 0644, &e, NULL);
	ok(rc == 0 && c.image == NULL, "load: an empty file is fine");
	cfg_free(&c);
}

int main(void)
{
	char tmpl[] = "/tmp/sandbox-test-config.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!dir) {
		diag("mkdtemp failed");
		return 1;
	}
	test_defaults();
	test_keys();
	test_values();
	test_env();
	test_load(dir);
	rmdir(dir);
	return done_testing();
}
