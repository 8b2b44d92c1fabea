/* main.c: the command line read by the tables of opts.c (global options
 * before and after the command name), config loading, engine resolution,
 * the secrets' reading, and the one place that reports errors and picks
 * the exit status. fopencookie is glibc's, under _GNU_SOURCE. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "chan.h"
#include "envp.h"
#include "json.h"
#include "jvb.h"
#include "opts.h"
#include "present.h"
#include "resident.h"
#include "secret.h"
#include "results.h"
#include "spawn.h"
#include "version.h"

extern char **environ;

/* A config key and its value from the command line, applied after the
 * config file so that the command line wins. */
struct pending {
	const char *key;
	const char *value;
};

struct parsed {
	const struct command *cmd;
	const char *config;
	bool help, version, verbose;
	struct pending *keys;
	size_t nkeys;
};

static int apply_opt(struct app *a, struct parsed *p, const struct opt *o,
		     const char *val, struct err *e)
{
	char spelled[64];
	long n = 0;
	switch (o->id) {
	case O_KEY:
		if (strcmp(o->key, "timeout") == 0)
			a->o.timeout_given = true;
		p->keys = xrealloc(p->keys, (p->nkeys + 1) * sizeof(*p->keys));
		p->keys[p->nkeys++] = (struct pending){o->key, val};
		return 0;
	case O_CONFIG: p->config = val; return 0;
	case O_VERBOSE: p->verbose = true; return 0;
	case O_HELP: p->help = true; return 0;
	case O_VERSION: p->version = true; return 0;
	default:
		if (o->type == OT_COUNT &&
		    opt_count(o, opt_spelling(o, spelled, sizeof(spelled)), val, &n, e) < 0)
			return -1;
		return opt_store(a, o, val, n, e);
	}
}

static int unknown(const struct parsed *p, const char *arg, struct err *e)
{
	if (p->cmd)
		return err_set(e, ERR_USAGE, "unknown option '%s' for %s; see 'sandbox help %s'",
			       arg, p->cmd->name, p->cmd->name);
	return err_set(e, ERR_USAGE, "unknown option '%s'; see 'sandbox --help'", arg);
}

/* Parses one option at argv[*i]; advances *i past its value. */
static int parse_opt(struct app *a, struct parsed *p, int argc, char **argv, int *i,
		     struct err *e)
{
	const char *arg = argv[*i];
	const struct opt *o;
	const char *val = NULL;
	if (arg[1] == '-') {
		const char *eq = strchr(arg + 2, '=');
		o = opt_find_long(p->cmd, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
		if (!o)
			return unknown(p, arg, e);
		if (eq && o->type == OT_FLAG)
			return err_set(e, ERR_USAGE, "option --%s takes no value", o->lng);
		val = eq ? eq + 1 : NULL;
	} else {
		o = opt_find_short(p->cmd, arg[1]);
		if (!o && arg[1] == 'c')
			return err_set(e, ERR_USAGE, "-c is the shell text of exec and run; for a config file, use --config FILE");
		if (!o)
			return unknown(p, arg, e);
		if (arg[2] && o->type == OT_FLAG)
			return err_set(e, ERR_USAGE, "option '%s': give short options one at a time", arg);
		val = arg[2] ? arg + 2 : NULL;
	}
	bool needs = o->type != OT_FLAG;
	if (needs && !val) {
		if (*i + 1 >= argc)
			return err_set(e, ERR_USAGE, "option '%s' needs a value", arg);
		val = argv[++*i];
	}
	return apply_opt(a, p, o, val, e);
}

static int parse_args(struct app *a, struct parsed *p, int argc, char **argv,
		      struct err *e)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (strcmp(arg, "--") == 0) {
			struct strvec *rest = p->cmd && (p->cmd->flags & CF_ENGINE_ARGS)
						      ? &a->o.extra : &a->o.args;
			strvec_push_all(rest, argv + i + 1, (size_t)(argc - i - 1));
			break;
		}
		if (arg[0] == '-' && arg[1]) {
			if (parse_opt(a, p, argc, argv, &i, e) < 0)
				return -1;
			continue;
		}
		if (!p->cmd) {
			p->cmd = cmd_find(arg);
			if (!p->cmd)
				return err_set(e, ERR_USAGE, "unknown command '%s'; see 'sandbox --help'", arg);
			a->cmd = p->cmd->name;
			opt_defaults(&a->o, p->cmd->id);
			continue;
		}
		if (p->cmd->flags & CF_TAKES_COMMAND) {
			/* The command's own flags are never taken for ours. */
			strvec_push_all(&a->o.args, argv + i, (size_t)(argc - i));
			break;
		}
		strvec_push(&a->o.args, arg);
	}
	/* Positional values are checked where their meaning is known: a ref
	 * by ws_check_ref; a file name may hold any byte but NUL. */
	return 0;
}

/* PATH search for the engine, once; an absolute path is taken as is. */
static int resolve_engine(struct app *a, struct err *e)
{
	const char *name = a->cfg.engine;
	if (name[0] == '/') {
		if (access(name, X_OK) < 0)
			return err_set(e, ERR_ENGINE, "engine %s: %s", name, strerror(errno));
		a->engine = xstrdup(name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = xstrdup(path);
	for (char *dir = strtok(copy, ":"); dir; dir = strtok(NULL, ":")) {
		if (dir[0] != '/')
			continue; /* a relative PATH entry would depend on our cwd */
		char *cand = xasprintf("%s/%s", dir, name);
		if (access(cand, X_OK) == 0) {
			a->engine = cand;
			break;
		}
		free(cand);
	}
	free(copy);
	if (!a->engine)
		return err_set(e, ERR_ENGINE, "engine '%s' not found in PATH; install Docker or Podman, or pass --engine", name);
	return 0;
}

static char *cache_dir_new(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && xdg[0] == '/')
		return xasprintf("%s/sandbox/ids", xdg);
	const char *home = getenv("HOME");
	if (home && home[0] == '/')
		return xasprintf("%s/.cache/sandbox/ids", home);
	return NULL;
}

/* SANDBOX_KEEP stands for the config's keep, over the files. */
static int keep_from_env(struct app *a, struct err *e)
{
	const char *keep = getenv("SANDBOX_KEEP");
	if (!keep || !*keep || cfg_set(&a->cfg, "keep", keep, e) == 0)
		return 0;
	char msg[sizeof(e->msg)];
	memcpy(msg, e->msg, sizeof(msg));
	return err_set(e, ERR_USAGE, "SANDBOX_KEEP: %.900s", msg);
}

/* stdout and stderr through spawn_write_out, which keeps the secrets
 * out of what they write, as it does of a command's live output: one
 * stream of each, in the order it is written. */
static ssize_t redacted_write(void *cookie, const char *buf, size_t n)
{
	return spawn_write_text((int)(intptr_t)cookie, buf, n) < 0 ? -1 : (ssize_t)n;
}

static FILE *redacted_file(int fd, int mode)
{
	FILE *f = fopencookie((void *)(intptr_t)fd, "w",
			      (cookie_io_functions_t){.write = redacted_write});
	if (f)
		setvbuf(f, NULL, mode, mode == _IONBF ? 0 : BUFSIZ);
	return f;
}

/* The secrets' values: read, checked against the names the engine and
 * the command's environment use, and kept out of every output from now
 * on (the MCP server's messages are JSON, whose every string is). */
static int load_secrets(struct app *a, const struct command *c, struct err *e)
{
	if (!a->cfg.secrets.n)
		return 0;
	for (size_t i = 0; i < a->cfg.secrets.n; i++) {
		const char *s = a->cfg.secrets.v[i];
		size_t n = strcspn(s, "=");
		if (envp_allowed(s, n))
			return err_set(e, ERR_CONFIG, "secret %.*s: the engine's own variable; name the secret otherwise",
				       (int)n, s);
		for (size_t j = 0; j < a->cfg.env.n; j++)
			if (strncmp(a->cfg.env.v[j], s, n + 1) == 0)
				return err_set(e, ERR_CONFIG, "secret %.*s: also a variable of [env] or -e; keep one",
					       (int)n, s);
	}
	if (secrets_read(&a->cfg.secrets, &a->secrets, &a->redact, e) < 0)
		return -1;
	json_redact(&a->redact);
	spawn_redact(&a->redact);
	/* The MCP server's stdout is its messages, JSON all of whose strings
	 * are redacted: a stream must not hold back their ends. */
	FILE *out = c->id == C_MCP ? stdout : redacted_file(1, isatty(1) ? _IOLBF : _IOFBF);
	FILE *err = redacted_file(2, _IONBF);
	if (!out || !err)
		return err_set(e, ERR_FAILED, "cannot set up the output: %s", strerror(errno));
	fflush(stdout);
	stdout = out;
	stderr = err;
	return 0;
}

static void report(const struct app *a, const struct err *e)
{
	if (a->json) {
		struct json j = {0};
		/* The caller needs the ref of what we made, even on failure. */
		json_err(&j, e, a->ws_created ? a->ws_name : NULL);
		json_print(&j, stdout);
		sbuf_free(&j.out);
		return;
	}
	/* Messages quote user values: keep control bytes off the terminal. */
	char msg[sizeof(e->msg)];
	size_t i;
	for (i = 0; e->msg[i]; i++)
		msg[i] = ((unsigned char)e->msg[i] < 0x20 || e->msg[i] == 0x7f) ? '?' : e->msg[i];
	msg[i] = '\0';
	if (a->cmd)
		fprintf(stderr, "sandbox: %s: %s\n", a->cmd, msg);
	else
		fprintf(stderr, "sandbox: %s\n", msg);
}

/* The command line shows a result as its --json tree, or as its text. */
static void show(void *ctx, const struct result_type *t, const void *r)
{
	const struct app *a = ctx;
	if (!a->json) {
		t->text(stdout, stderr, r);
		return;
	}
	struct jv tree = {0};
	t->tree(&tree, r);
	present_json(stdout, &tree);
	jvb_free(&tree);
}

static int run_command(const struct command *c, struct app *a, struct err *e)
{
	return c->plain ? c->plain(a, e) : cmd_call(c, a, show, a, e);
}

static int run(struct app *a, struct parsed *p, struct chan *chan, int argc, char **argv,
	       struct err *e)
{
	if (parse_args(a, p, argc, argv, e) < 0)
		return -1;
	a->argv = argv + 1;
	a->argc = argc - 1;
	if (p->version) {
		printf("sandbox %s\n", SANDBOX_VERSION);
		return 0;
	}
	/* help, the command that runs nothing, is ours. */
	bool help = p->cmd && !p->cmd->plain && !p->cmd->run;
	if (p->help || !p->cmd || help) {
		const struct command *c = p->cmd && !help ? p->cmd : NULL;
		if (help && a->o.args.n && !(c = cmd_find(a->o.args.v[0])))
			return err_set(e, ERR_USAGE, "no command '%s'", a->o.args.v[0]);
		if (!p->cmd && !p->help) {
			opts_usage(stderr);
			return 2;
		}
		opts_help(stdout, c);
		return 0;
	}
	if (p->cmd->flags & CF_NO_CONFIG)
		return run_command(p->cmd, a, e);
	const char *config = p->config ? p->config : getenv("SANDBOX_CONFIG");
	if (config && !*config)
		config = NULL;
	a->config = config;
	a->config_from_env = config && !p->config;
	/* doctor says itself what is wrong with which file, or the engine. */
	bool lenient = p->cmd->flags & CF_LENIENT;
	if (cfg_load_all(&a->cfg, config, e) < 0) {
		if (!lenient)
			return -1;
		*e = (struct err){0};
	}
	if (keep_from_env(a, e) < 0)
		return -1;
	for (size_t i = 0; i < p->nkeys; i++) {
		if (cfg_set(&a->cfg, p->keys[i].key, p->keys[i].value, e) < 0) {
			e->kind = ERR_USAGE;
			return -1;
		}
	}
	if (!a->ref) {
		const char *env = getenv("SANDBOX_WORKSPACE");
		a->ref = env && *env ? env : NULL;
		a->ref_from_env = a->ref != NULL;
	}
	spawn_verbose = p->verbose;
	if (!a->json)
		a->created = created_text;
	envp_build(&a->envp, environ);
	if (load_secrets(a, p->cmd, e) < 0) {
		if (!lenient)
			return -1;
		/* doctor and the others go on without any of them. */
		*e = (struct err){0};
		strvec_clear(&a->secrets);
		redact_set_free(&a->redact);
		json_redact(NULL);
		spawn_redact(NULL);
	}
	a->cache_dir = cache_dir_new();
	if (resolve_engine(a, e) < 0) {
		if (!lenient)
			return -1;
		a->engine_err = *e;
		*e = (struct err){0};
	}
	if (a->engine && !(p->cmd->flags & CF_NO_RESIDENT) &&
	    (a->resident = resident_new(a->engine, a->envp.v, a->cfg.keep)))
		a->chan = chan;
	return run_command(p->cmd, a, e);
}

int main(int argc, char **argv)
{
	struct app a = {.origin = &app_origin};
	struct parsed p = {0};
	struct chan chan = {0};
	struct err e = {0};
	cfg_init(&a.cfg);
	spawn_install_signals();
	int status = run(&a, &p, &chan, argc, argv, &e);
	/* A channel the resident lent goes back, before anything is said. */
	chan_release(&chan);
	resident_free(a.resident);
	if (status < 0) {
		report(&a, &e);
		status = err_exit_status(e.kind);
		/* As diff(1): 1 says something changed; trouble is 2. */
		if (status == 1 && p.cmd && (p.cmd->flags & CF_DIFF_STATUS))
			status = 2;
		if (e.kind == ERR_INTERRUPTED && spawn_interrupted)
			status = spawn_interrupted_status();
	}
	if (fflush(stdout) != 0 || ferror(stdout) || spawn_write_end() < 0) {
		if (status == 0)
			fprintf(stderr, "sandbox: cannot write the output: %s\n", strerror(errno));
		status = status ? status : 1;
	}
	spawn_write_end();
	cfg_free(&a.cfg);
	strvec_clear(&a.envp);
	strvec_clear(&a.secrets);
	redact_set_free(&a.redact);
	opts_free(&a.o);
	free(a.engine);
	free(a.cache_dir);
	free(p.keys);
	return status;
}
