/* config.c: see config.h. */
/* realpath(3) is XSI. */
#define _XOPEN_SOURCE 700
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "egress.h"
#include "trust.h"
#include "utf8.h"

void cfg_init(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->engine = xstrdup("docker");
	c->workdir = xstrdup(CFG_DEFAULT_WORKDIR);
	c->network = xstrdup(CFG_DEFAULT_NETWORK);
	c->pids_limit = CFG_DEFAULT_PIDS_LIMIT;
	c->max_output = CFG_DEFAULT_MAX_OUTPUT;
	c->engine_timeout = CFG_DEFAULT_ENGINE_TIMEOUT;
	c->snapshot_max = CFG_DEFAULT_SNAPSHOT_MAX;
	c->max_size = CFG_DEFAULT_MAX_SIZE;
	c->idle = -1;
	c->keep = CFG_DEFAULT_KEEP;
	c->history = true;
}

void cfg_free(struct cfg *c)
{
	free(c->engine);
	free(c->image);
	free(c->from);
	free(c->workdir);
	free(c->network);
	strvec_clear(&c->allow);
	for (size_t i = 0; i < c->nmounts; i++) {
		free(c->mounts[i].host);
		free(c->mounts[i].ctr);
	}
	free(c->mounts);
	free(c->memory);
	free(c->runtime);
	free(c->cpus);
	free(c->user);
	strvec_clear(&c->env);
	strvec_clear(&c->secrets);
	free(c->copy);
	strvec_clear(&c->excludes);
	free(c->setup);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

static void replace(char **slot, const char *value);

bool cfg_network_allow(const struct cfg *c)
{
	return c->network && strcmp(c->network, CFG_NETWORK_ALLOW) == 0;
}

char *cfg_allow_label_new(const struct cfg *c)
{
	struct sbuf sb = {0};
	for (size_t i = 0; i < c->allow.n; i++) {
		if (i)
			sbuf_addc(&sb, ' ');
		sbuf_adds(&sb, c->allow.v[i]);
	}
	return sb.buf ? sb.buf : xstrdup("");
}

/* allow = PATTERN...: each, separated by spaces or commas, checked and
 * kept in its one form, once; network becomes allow. */
static int add_allow(struct cfg *c, const char *v, struct err *e)
{
	const char *p = v;
	bool any = false;
	for (;;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, " \t,");
		if (n == 0)
			break;
		char word[EGRESS_PATTERN_MAX + 2], why[200], form[EGRESS_PATTERN_MAX + 16];
		struct egress_pat pat;
		if (n > EGRESS_PATTERN_MAX)
			return err_set(e, ERR_USAGE, "allow '%.40s...': too long a pattern", p);
		memcpy(word, p, n);
		word[n] = '\0';
		if (egress_pat_parse(word, &pat, why, sizeof(why)) < 0)
			return err_set(e, ERR_USAGE, "allow '%s': %s", word, why);
		egress_pat_format(&pat, form, sizeof(form));
		bool dup = false;
		for (size_t i = 0; i < c->allow.n && !dup; i++)
			dup = strcmp(c->allow.v[i], form) == 0;
		if (!dup && c->allow.n == EGRESS_MAX_PATTERNS)
			return err_set(e, ERR_USAGE, "allow: at most %d patterns", EGRESS_MAX_PATTERNS);
		if (!dup)
			strvec_push(&c->allow, form);
		any = true;
		p += n;
	}
	if (!any)
		return err_set(e, ERR_USAGE, "allow: give a host, as pypi.org, *.npmjs.org or github.com:22");
	replace(&c->network, CFG_NETWORK_ALLOW);
	return 0;
}

static void replace(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup(value);
}

bool cfg_valid_env_name(const char *s, size_t n)
{
	if (n == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') ||
			(s[0] >= 'a' && s[0] <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* Docker's own rule for names, [a-zA-Z0-9][a-zA-Z0-9_.-]*: it cannot start
 * with '-', so a name is never read as an option. */
bool cfg_valid_runtime(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 1024 || has_control(s) || strchr(s, ',') || strchr(s, '='))
		return false;
	if (s[0] == '/')
		return true;
	if (n > 64 || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.+-", s[i]))
			return false;
	return true;
}

bool cfg_valid_container_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 128)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9');
		if (!alnum && (i == 0 || !strchr("_.-", ch)))
			return false;
	}
	return true;
}

/* A word the engine gets as a flag value: no control bytes, no leading
 * '-' (so it cannot be read as an option), not empty. */
static bool plain_word(const char *s)
{
	return *s && *s != '-' && !has_control(s) && !strchr(s, ' ');
}

static bool charset_only(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		char ch = *s;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || strchr(extra, ch)))
			return false;
	}
	return true;
}

static int set_absdir(char **slot, const char *key, const char *v, struct err *e)
{
	if (v[0] != '/' || has_control(v) || strchr(v, ','))
		return err_set(e, ERR_USAGE,
			       "%s '%s' must be an absolute path in the container, without commas or control characters",
			       key, v);
	replace(slot, v);
	return 0;
}

/* HOST_DIR[:CTR_DIR[:ro]] into the engine's --mount syntax. A relative
 * host path is resolved here, against the caller's directory. */
static int add_mount(struct cfg *c, const char *v, struct err *e)
{
	char *spec = xstrdup(v);
	char *host = spec, *ctr = NULL, *mode = NULL;
	char *colon = strchr(spec, ':');
	if (colon) {
		*colon = '\0';
		ctr = colon + 1;
		colon = strchr(ctr, ':');
		if (colon) {
			*colon = '\0';
			mode = colon + 1;
		}
	}
	int rc = -1;
	char *abs = NULL;
	if (!*host || has_control(v) || strchr(v, ','))
		err_set(e, ERR_USAGE, "mount '%s': expected HOST_DIR[:CTR_DIR[:ro]], without commas or control characters", v);
	else if (ctr && *ctr && ctr[0] != '/')
		err_set(e, ERR_USAGE, "mount '%s': the container directory must be absolute", v);
	else if (mode && strcmp(mode, "ro") != 0)
		err_set(e, ERR_USAGE, "mount '%s': the only mode is 'ro'", v);
	else if (host[0] != '/' && !(abs = realpath(host, NULL)))
		err_set(e, ERR_USAGE, "mount '%s': %s: %s", v, host, strerror(errno));
	else {
		/* No CTR_DIR means the workdir, resolved when the argv is built,
		 * since --workdir may come later. */
		c->mounts = xrealloc(c->mounts, (c->nmounts + 1) * sizeof(*c->mounts));
		c->mounts[c->nmounts++] = (struct cfg_mount){
			.host = xstrdup(abs ? abs : host),
			.ctr = ctr && *ctr ? xstrdup(ctr) : NULL,
			.ro = mode != NULL,
		};
		rc = 0;
	}
	free(abs);
	free(spec);
	return rc;
}

/* The tree create --copy copies: a directory, resolved here against the
 * caller's directory. */
static int set_copy(struct cfg *c, const char *v, struct err *e)
{
	struct stat st;
	char *abs = *v && !has_control(v) ? realpath(v, NULL) : NULL;
	if (!abs)
		return err_set(e, ERR_USAGE, "copy '%s': %s", v, *v && !has_control(v) ? strerror(errno) : "expected a directory");
	if (stat(abs, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(abs);
		return err_set(e, ERR_USAGE, "copy '%s': not a directory", v);
	}
	free(c->copy);
	c->copy = abs;
	return 0;
}

int cfg_set_env(struct cfg *c, const char *name, const char *value, struct err *e)
{
	size_t n = strlen(name);
	if (!cfg_valid_env_name(name, n))
		return err_set(e, ERR_USAGE, "env: '%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", name);
	for (size_t i = 0; i < c->env.n; i++) {
		if (strncmp(c->env.v[i], name, n) == 0 && c->env.v[i][n] == '=') {
			free(c->env.v[i]);
			c->env.v[i] = xasprintf("%s=%s", name, value);
			return 0;
		}
	}
	strvec_pushf(&c->env, "%s=%s", name, value);
	return 0;
}

/* NAME=VALUE into v, over an entry of the same name. */
static void set_pair(struct strvec *v, const char *name, const char *value)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < v->n; i++) {
		if (strncmp(v->v[i], name, n) == 0 && v->v[i][n] == '=') {
			free(v->v[i]);
			v->v[i] = xasprintf("%s=%s", name, value);
			return;
		}
	}
	strvec_pushf(v, "%s=%s", name, value);
}

int cfg_set_secret(struct cfg *c, const char *name, const char *source, struct err *e)
{
	if (!cfg_valid_env_name(name, strlen(name)))
		return err_set(e, ERR_USAGE, "secret: '%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", name);
	bool ok = false;
	if (strncmp(source, "env:", 4) == 0)
		ok = cfg_valid_env_name(source + 4, strlen(source + 4));
	else if (strncmp(source, "file:", 5) == 0)
		ok = (source[5] == '/' || strncmp(source + 5, "~/", 2) == 0) && !has_control(source);
	if (!ok)
		return err_set(e, ERR_USAGE, "secret %s = '%s': expected env:VARIABLE or file:PATH "
			       "(absolute, or ~/...); a secret's value never goes in a config", name, source);
	set_pair(&c->secrets, name, source);
	return 0;
}

/* --secret NAME=SOURCE, or NAME alone for env:NAME. */
static int set_secret_arg(struct cfg *c, const char *v, struct err *e)
{
	const char *eq = strchr(v, '=');
	if (!eq) {
		char *source = xasprintf("env:%s", v);
		int rc = cfg_set_secret(c, v, source, e);
		free(source);
		return rc;
	}
	char *name = xstrndup(v, (size_t)(eq - v));
	int rc = cfg_set_secret(c, name, eq + 1, e);
	free(name);
	return rc;
}

static int set_env_pair(struct cfg *c, const char *v, struct err *e)
{
	const char *eq = strchr(v, '=');
	if (!eq)
		return err_set(e, ERR_USAGE, "env '%s': expected NAME=VALUE", v);
	char *name = xstrndup(v, (size_t)(eq - v));
	int rc = cfg_set_env(c, name, eq + 1, e);
	free(name);
	return rc;
}

/* A size in bytes: digits, then k, m, g or t (powers of 1024) or none;
 * at most 2^50. */
static bool parse_size(const char *v, long long *out)
{
	size_t digits = strspn(v, "0123456789");
	if (digits == 0 || digits > 16)
		return false;
	int shift = 0;
	const char *suffix = v + digits;
	if (*suffix) {
		const char *at = strchr("kKmMgGtT", *suffix);
		if (!at || suffix[1])
			return false;
		shift = 10 * (int)((at - "kKmMgGtT") / 2 + 1);
	}
	long long n = strtoll(v, NULL, 10);
	if (n > (1LL << 50) >> shift)
		return false;
	*out = n << shift;
	return true;
}

int cfg_set(struct cfg *c, const char *key, const char *v, struct err *e)
{
	long n;
	if (strcmp(key, "engine") == 0) {
		if (!*v || has_control(v) || (v[0] != '/' && strchr(v, '/')))
			return err_set(e, ERR_USAGE, "engine '%s': expected docker, podman or an absolute path", v);
		replace(&c->engine, v);
	} else if (strcmp(key, "image") == 0) {
		if (!plain_word(v))
			return err_set(e, ERR_USAGE, "image '%s': an image name cannot be empty, start with '-' or hold spaces or control characters", v);
		replace(&c->image, v);
		/* image and from stand for each other: the later one wins. */
		free(c->from);
		c->from = NULL;
	} else if (strcmp(key, "from") == 0) {
		if (!cfg_valid_container_name(v))
			return err_set(e, ERR_USAGE, "from '%s': expected a snapshot's name, [a-zA-Z0-9][a-zA-Z0-9_.-]*, at most 128 characters", v);
		replace(&c->from, v);
		free(c->image);
		c->image = NULL;
	} else if (strcmp(key, "workdir") == 0) {
		if (set_absdir(&c->workdir, key, v, e) < 0)
			return -1;
		c->workdir_set = true;
	} else if (strcmp(key, "network") == 0) {
		if (*v == '-' || !charset_only(v, "_.-"))
			return err_set(e, ERR_USAGE, "network '%s': expected none, bridge, allow or a network name", v);
		replace(&c->network, v);
	} else if (strcmp(key, "allow") == 0) {
		return add_allow(c, v, e);
	} else if (strcmp(key, "mount") == 0) {
		return add_mount(c, v, e);
	} else if (strcmp(key, "memory") == 0) {
		size_t len = strlen(v);
		if (len == 0 || len > 20 || !charset_only(v, "") || !isdigit((unsigned char)v[0]) ||
		    (strspn(v, "0123456789") != len &&
		     (strspn(v, "0123456789") != len - 1 || !strchr("bkmgBKMG", v[len - 1]))))
			return err_set(e, ERR_USAGE, "memory '%s': expected a size like 512m or 2g", v);
		replace(&c->memory, v);
	} else if (strcmp(key, "cpus") == 0) {
		double d;
		if (!parse_seconds(v, &d) || d <= 0)
			return err_set(e, ERR_USAGE, "cpus '%s': expected a positive number like 1.5", v);
		replace(&c->cpus, v);
	} else if (strcmp(key, "pids_limit") == 0) {
		if (!parse_long(v, -1, 4194304, &n) || n == 0)
			return err_set(e, ERR_USAGE, "pids_limit '%s': expected a positive number, or -1 for no limit", v);
		c->pids_limit = n;
	} else if (strcmp(key, "user") == 0) {
		if (*v == '-' || !charset_only(v, "_.:-"))
			return err_set(e, ERR_USAGE, "user '%s': expected NAME, UID or UID:GID", v);
		replace(&c->user, v);
	} else if (strcmp(key, "env") == 0) {
		return set_env_pair(c, v, e);
	} else if (strcmp(key, "secret") == 0) {
		return set_secret_arg(c, v, e);
	} else if (strcmp(key, "setup") == 0) {
		if (!*v)
			return err_set(e, ERR_USAGE, "setup: the command is empty");
		replace(&c->setup, v);
	} else if (strcmp(key, "name") == 0) {
		if (!cfg_valid_container_name(v))
			return err_set(e, ERR_USAGE, "name '%s': expected [a-zA-Z0-9][a-zA-Z0-9_.-]*, at most 128 characters", v);
		if (strncmp(v, "sandbox-pool", 12) == 0)
			return err_set(e, ERR_USAGE, "name '%s': names that start with sandbox-pool are a pool's", v);
		replace(&c->name, v);
	} else if (strcmp(key, "timeout") == 0) {
		if (!parse_seconds(v, &c->timeout))
			return err_set(e, ERR_USAGE, "timeout '%s': expected seconds, like 30 or 0.5 (0: none)", v);
	} else if (strcmp(key, "max_output") == 0) {
		if (!parse_long(v, 1, 1L << 30, &n))
			return err_set(e, ERR_USAGE, "max_output '%s': expected a number of bytes from 1 to 1073741824", v);
		c->max_output = n;
	} else if (strcmp(key, "engine_timeout") == 0) {
		double d;
		if (!parse_seconds(v, &d) || d < 1 || d > 86400)
			return err_set(e, ERR_USAGE, "engine_timeout '%s': expected seconds from 1 to 86400", v);
		c->engine_timeout = d;
	} else if (strcmp(key, "copy") == 0) {
		return set_copy(c, v, e);
	} else if (strcmp(key, "snapshot_max") == 0) {
		if (!parse_size(v, &c->snapshot_max))
			return err_set(e, ERR_USAGE, "snapshot_max '%s': expected a size like 500m or 4g (0: no limit)", v);
	} else if (strcmp(key, "max_size") == 0) {
		if (!parse_size(v, &c->max_size))
			return err_set(e, ERR_USAGE, "max_size '%s': expected a size like 500m or 8g (0: no limit)", v);
	} else if (strcmp(key, "ttl") == 0 || strcmp(key, "idle") == 0) {
		if (!parse_duration(v, &n) || n > CFG_EXPIRY_MAX)
			return err_set(e, ERR_USAGE, "%s '%s': expected a duration like 90s, 15m, 2h or 7d (0: none)", key, v);
		*(key[0] == 't' ? &c->ttl : &c->idle) = n;
	} else if (strcmp(key, "runtime") == 0) {
		if (!cfg_valid_runtime(v))
			return err_set(e, ERR_USAGE, "runtime '%s': expected a runtime's name ([a-zA-Z0-9][a-zA-Z0-9_.+-]*, "
				       "as the engine knows it: runsc, crun, runc) or an absolute path", v);
		replace(&c->runtime, v);
	} else if (strcmp(key, "history") == 0) {
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
			return err_set(e, ERR_USAGE, "history '%s': expected yes or no", v);
		c->history = v[0] == 'y';
	} else if (strcmp(key, "keep") == 0) {
		if (strcmp(v, "no") == 0)
			c->keep = 0;
		else if (!parse_duration(v, &n) || n > CFG_KEEP_MAX)
			return err_set(e, ERR_USAGE, "keep '%s': expected no, or a duration like 90s, 5m or 2h (at most a day; 0: no)", v);
		else
			c->keep = n;
	} else if (strcmp(key, "exclude") == 0) {
		if (!*v || has_control(v) || v[0] == '!')
			return err_set(e, ERR_USAGE, "exclude '%s': expected a glob pattern, without control characters or a leading '!'", v);
		strvec_push(&c->excludes, v);
	} else {
		return err_set(e, ERR_CONFIG, "unknown key '%s'", key);
	}
	return 0;
}

struct load_ctx {
	struct cfg *cfg;
	struct err *err;
	int failed;
	const char *at, *end; /* what is left of the text */
	int line;
	int stop_line;        /* a line the reader refused, or 0 */
	bool stop_long;       /* refused as too long; else for a NUL */
};

/* inih reads lines into a fixed buffer and would split a longer one into
 * two entries, silently; a NUL would end a line early. This reader hands
 * inih the lines of the buffer and stops at such a line instead. */
static char *read_line(char *buf, int size, void *user)
{
	struct load_ctx *lc = user;
	if (lc->stop_line || lc->at >= lc->end)
		return NULL;
	lc->line++;
	const char *nl = memchr(lc->at, '\n', (size_t)(lc->end - lc->at));
	size_t body = nl ? (size_t)(nl - lc->at) : (size_t)(lc->end - lc->at);
	size_t n = body + (nl != NULL);
	lc->stop_long = body + 2 > (size_t)size;
	if (lc->stop_long || memchr(lc->at, '\0', body)) {
		lc->stop_line = lc->line;
		return NULL;
	}
	memcpy(buf, lc->at, n);
	buf[n] = '\0';
	lc->at += n;
	return buf;
}

static int on_ini_entry(void *user, const char *section, const char *name,
			const char *value)
{
	struct load_ctx *lc = user;
	struct err *e = lc->err;
	/* inih goes on after an error and reports the first one's line: keep
	 * that error's message, and apply nothing after it. */
	if (lc->failed || !name)
		return 1;
	int rc;
	if (strcmp(section, "sandbox") == 0 && strcmp(name, "env") == 0)
		rc = err_set(e, ERR_CONFIG, "put variables in the [env] section");
	else if (strcmp(section, "sandbox") == 0)
		rc = cfg_set(lc->cfg, name, value, e);
	else if (strcmp(section, "env") == 0)
		rc = cfg_set_env(lc->cfg, name, value, e);
	else if (strcmp(section, "secrets") == 0)
		rc = cfg_set_secret(lc->cfg, name, value, e);
	else
		rc = err_set(e, ERR_CONFIG, "unknown section [%s]; expected [sandbox], [env] or [secrets]", section);
	lc->failed = rc < 0;
	return rc < 0 ? 0 : 1;
}

int cfg_parse(struct cfg *c, const char *name, const char *data, size_t len,
	      struct err *e)
{
	struct err inner = {0};
	struct load_ctx lc = {.cfg = c, .err = &inner, .at = data, .end = data + len};
	int line = ini_parse_stream(read_line, &lc, on_ini_entry, &lc);
	if (lc.stop_line && (line == 0 || lc.stop_line < line)) {
		if (lc.stop_long)
			return err_set(e, ERR_CONFIG, "%s:%d: line too long (the limit is %d bytes)",
				       name, lc.stop_line, INI_MAX_LINE - 2);
		return err_set(e, ERR_CONFIG, "%s:%d: a NUL byte; a config file is text", name, lc.stop_line);
	}
	if (line == 0)
		return 0;
	if (line < 0)
		return err_set(e, ERR_CONFIG, "%s: cannot parse the file", name);
	if (inner.kind == ERR_NONE)
		return err_set(e, ERR_CONFIG, "%s:%d: syntax error; expected 'key = value' or '[section]'", name, line);
	return err_set(e, ERR_CONFIG, "%s:%d: %s", name, line, inner.msg);
}

int cfg_load(struct cfg *c, const char *path, bool must_exist, struct err *e)
{
	struct trust_file f;
	int rc = trust_file_read(path, must_exist, &f, e);
	if (rc > 0)
		rc = cfg_parse(c, path, f.data, f.len, e);
	trust_file_free(&f);
	return rc < 0 ? -1 : 0;
}

/* ./sandbox.ini: anyone who can write the current directory, such as a
 * workspace with it mounted, can write this file, so it is used only as
 * trusted (trust.h). The bytes checked are the bytes parsed. */
static int load_found(struct cfg *c, const char *dir, const struct trust_file *user,
		      struct err *e)
{
	struct trust_file f;
	int rc = trust_file_read(CFG_FOUND_FILE, false, &f, e);
	/* The user's own file, in its own directory: read already. */
	bool same = rc > 0 && user->data && f.dev == user->dev && f.ino == user->ino;
	if (rc > 0 && !same) {
		rc = trust_check(dir, &f, e);
		if (rc == 0)
			rc = cfg_parse(c, f.name, f.data, f.len, e);
	}
	trust_file_free(&f);
	return rc < 0 ? -1 : 0;
}

int cfg_load_all(struct cfg *c, const char *named, struct err *e)
{
	char *dir = trust_dir_new();
	struct trust_file user = {0};
	char *user_path = dir ? xasprintf("%s/" CFG_USER_FILE, dir) : NULL;
	int rc = user_path ? trust_file_read(user_path, false, &user, e) : 0;
	if (rc > 0)
		rc = cfg_parse(c, user_path, user.data, user.len, e);
	if (rc >= 0)
		rc = named ? cfg_load(c, named, true, e) : load_found(c, dir, &user, e);
	trust_file_free(&user);
	free(user_path);
	free(dir);
	return rc < 0 ? -1 : 0;
}
