/* main.c: the command table, option parsing (global options before and
 * after the command name), config loading, engine resolution, and the one
 * place that reports errors and picks the exit status. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "envp.h"
#include "json.h"
#include "spawn.h"
#include "version.h"

extern char **environ;

enum opt_id {
	O_KEY, O_WS, O_JSON, O_CONFIG, O_VERBOSE, O_HELP, O_VERSION,
	O_SHELL, O_CWD, O_INTERACTIVE, O_ALL, O_STOPPED, O_OLDER,
	O_OFFSET, O_LIMIT, O_RAW, O_CONTENT, O_OLD, O_NEW, O_OLD_FILE, O_NEW_FILE,
	O_EXPECT, O_PATH, O_GLOB, O_ICASE, O_FIXED, O_OUTPUT, O_AFTER, O_BEFORE,
	O_CONTEXT, O_RM, O_OUTPUT_LIMIT, O_REVOKE,
};

/* Which commands take an option. */
enum {
	G_ALL = 1, G_CREATE = 2, G_EXEC = 4, G_PRUNE = 8, G_DESTROY = 16,
	G_READ = 32, G_WRITE = 64, G_EDIT = 128, G_GLOB = 256, G_GREP = 512,
	G_MCP = 1024, G_TRUST = 2048,
};

struct optdef {
	const char *lng;
	char shrt;
	bool arg;
	unsigned groups;
	enum opt_id id;
	const char *key; /* the config key, for O_KEY */
};

static const struct optdef opts[] = {
	{"workspace", 'w', true, G_ALL, O_WS, NULL},
	{"engine", 0, true, G_ALL, O_KEY, "engine"},
	{"json", 0, false, G_ALL, O_JSON, NULL},
	{"config", 'c', true, G_ALL, O_CONFIG, NULL},
	{"verbose", 'v', false, G_ALL, O_VERBOSE, NULL},
	{"help", 'h', false, G_ALL, O_HELP, NULL},
	{"version", 0, false, G_ALL, O_VERSION, NULL},
	{"image", 0, true, G_CREATE, O_KEY, "image"},
	{"workdir", 0, true, G_CREATE, O_KEY, "workdir"},
	{"network", 0, true, G_CREATE, O_KEY, "network"},
	{"mount", 0, true, G_CREATE, O_KEY, "mount"},
	{"memory", 0, true, G_CREATE, O_KEY, "memory"},
	{"cpus", 0, true, G_CREATE, O_KEY, "cpus"},
	{"pids-limit", 0, true, G_CREATE, O_KEY, "pids_limit"},
	{"user", 0, true, G_CREATE, O_KEY, "user"},
	{"env", 'e', true, G_CREATE | G_EXEC, O_KEY, "env"},
	{"setup", 0, true, G_CREATE, O_KEY, "setup"},
	{"name", 0, true, G_CREATE, O_KEY, "name"},
	{"timeout", 0, true, G_EXEC | G_MCP, O_KEY, "timeout"},
	{"max-output", 0, true, G_EXEC, O_KEY, "max_output"},
	{"cwd", 0, true, G_EXEC, O_CWD, NULL},
	{"interactive", 'i', false, G_EXEC, O_INTERACTIVE, NULL},
	{"all", 0, false, G_DESTROY | G_EDIT, O_ALL, NULL},
	{"stopped", 0, false, G_PRUNE, O_STOPPED, NULL},
	{"older-than", 0, true, G_PRUNE, O_OLDER, NULL},
	{"offset", 0, true, G_READ, O_OFFSET, NULL},
	{"limit", 0, true, G_READ | G_GLOB | G_GREP, O_LIMIT, NULL},
	{"raw", 0, false, G_READ, O_RAW, NULL},
	{"content", 0, true, G_WRITE, O_CONTENT, NULL},
	{"old", 0, true, G_EDIT, O_OLD, NULL},
	{"new", 0, true, G_EDIT, O_NEW, NULL},
	{"old-file", 0, true, G_EDIT, O_OLD_FILE, NULL},
	{"new-file", 0, true, G_EDIT, O_NEW_FILE, NULL},
	{"expect-sha256", 0, true, G_EDIT, O_EXPECT, NULL},
	{"path", 0, true, G_GLOB | G_GREP, O_PATH, NULL},
	{"glob", 0, true, G_GREP, O_GLOB, NULL},
	{"ignore-case", 'i', false, G_GREP, O_ICASE, NULL},
	{"fixed-strings", 'F', false, G_GREP, O_FIXED, NULL},
	{"output", 0, true, G_GREP, O_OUTPUT, NULL},
	{"after-context", 'A', true, G_GREP, O_AFTER, NULL},
	{"before-context", 'B', true, G_GREP, O_BEFORE, NULL},
	{"context", 'C', true, G_GREP, O_CONTEXT, NULL},
	{"rm", 0, false, G_MCP, O_RM, NULL},
	{"output-limit", 0, true, G_MCP, O_OUTPUT_LIMIT, NULL},
	{"revoke", 0, false, G_TRUST, O_REVOKE, NULL},
};

struct command {
	const char *name;
	int (*fn)(struct app *, struct err *);
	unsigned groups;
	bool takes_command; /* the first non-option starts the command line */
	bool no_config;     /* reads no config file and needs no engine */
	const char *usage;
	const char *help;
};

#define CREATE_OPTS \
	"  --image IMG            image of the new workspace\n" \
	"  --workdir DIR          where commands start (default /workspace; created)\n" \
	"  --network none|bridge|NAME   network (default none)\n" \
	"  --mount HOST[:CTR[:ro]]      bind mount (CTR defaults to the workdir)\n" \
	"  --memory SIZE, --cpus N, --pids-limit N (default 2048; -1: none)\n" \
	"  --user USER, -e, --env K=V, --name NAME\n" \
	"  --setup CMD            run once after creation; failure removes it\n"
#define EXEC_OPTS \
	"  --timeout SECONDS      kill the command in the workspace after this\n" \
	"  --cwd DIR              directory to run in (relative: under the workdir)\n" \
	"  -e, --env K=V          environment for this command (repeatable)\n" \
	"  -i, --interactive      forward stdin to the command\n" \
	"  --max-output BYTES     with --json, bytes kept per stream (default 1 MiB)\n"

static const struct command commands[] = {
	{"create", cmd_create, G_CREATE, false, false,
	 "create [options] [-- ENGINE_RUN_ARGS...]",
	 "Create a workspace and print its ref.\n" CREATE_OPTS},
	{"exec", cmd_exec, G_EXEC, true, false,
	 "exec [options] [--] CMD [ARG...] | exec [options] -c TEXT",
	 "Run a command in the workspace named by -w or SANDBOX_WORKSPACE, or in a\n"
	 "new one. Exits with the command's status; 124 on timeout; 255 when the\n"
	 "sandbox itself failed. After exec, -c is shell text: use --config FILE.\n" EXEC_OPTS},
	{"run", cmd_run, G_CREATE | G_EXEC, true, false,
	 "run [options] [--] CMD [ARG...] | run [options] -c TEXT",
	 "Create a workspace, run one command in it, remove it whatever happens.\n"
	 CREATE_OPTS EXEC_OPTS},
	{"start", cmd_start, 0, false, false, "start [REF]", "Start a stopped workspace.\n"},
	{"stop", cmd_stop, 0, false, false, "stop [REF]", "Stop a workspace; its files stay.\n"},
	{"destroy", cmd_destroy, G_DESTROY, false, false, "destroy REF... | destroy --all",
	 "Remove workspaces and their anonymous volumes; a gone one is no error.\n"
	 "-w REF names one too; SANDBOX_WORKSPACE alone does not.\n"},
	{"list", cmd_list, 0, false, false, "list", "List the workspaces: ref, state, image, age.\n"},
	{"prune", cmd_prune, G_PRUNE, false, false, "prune [--older-than DURATION] [--stopped]",
	 "Remove workspaces in bulk (DURATION: 90s, 15m, 2h, 7d).\n"},
	{"read", cmd_read, G_READ, false, false, "read PATH [--offset N] [--limit N] [--raw]",
	 "Print a file of the workspace with numbered lines (cat -n style), from\n"
	 "line --offset (default 1), at most --limit lines (default 2000); a line\n"
	 "over 2000 characters is cut. A binary file is refused unless --raw,\n"
	 "which writes its exact bytes.\n"},
	{"write", cmd_write, G_WRITE, false, false, "write PATH [--content TEXT]",
	 "Write a file of the workspace atomically, from --content or from stdin\n"
	 "(any bytes, any size); missing directories are created, an existing\n"
	 "file keeps its mode and owner.\n"},
	{"edit", cmd_edit, G_EDIT, false, false,
	 "edit PATH --old TEXT|--old-file F --new TEXT|--new-file F [--all] [--expect-sha256 HASH]",
	 "Replace the exact old text with the new one and print the diff. The old\n"
	 "text must occur once, unless --all; --old-file F and --new-file F take\n"
	 "either from a local file. --expect-sha256 refuses if the file changed.\n"},
	{"glob", cmd_glob, G_GLOB, false, false, "glob PATTERN [--path DIR] [--limit N]",
	 "List the files under --path (default: the workdir) that match PATTERN,\n"
	 "newest first: * and ? within a name, [...], {a,b}, ** for any depth.\n"
	 "At most --limit paths (default 1000). Exit 1 when none matches.\n"},
	{"grep", cmd_grep, G_GREP, false, false,
	 "grep REGEX [--path PATH] [--glob PATTERN] [-i] [-F] [--output files|content|count] [-A N] [-B N] [-C N] [--limit N]",
	 "Search the files under --path (a file or a directory; default: the\n"
	 "workdir) for an extended regular expression (-F: a fixed string; -i:\n"
	 "any case). --glob keeps the files whose name (or path, with a /)\n"
	 "matches. Binary files and .git are skipped; output is sorted by path,\n"
	 "at most --limit lines (default 1000). Exit 1 when nothing matches.\n"},
	{"mcp", cmd_mcp, G_CREATE | G_MCP, false, false,
	 "mcp [create options] [--timeout SECONDS] [--output-limit CHARS] [--rm]",
	 "Serve the six tools (exec, read, write, edit, glob, grep) to an agent as a\n"
	 "Model Context Protocol server: JSON-RPC on stdin and stdout, logs on\n"
	 "stderr. The workspace is -w REF, or one created on the first call from\n"
	 "the config and the create options; its ref goes to stderr. At the end of\n"
	 "input the server exits and keeps the workspace, unless --rm.\n"
	 CREATE_OPTS
	 "  --timeout SECONDS      exec's default timeout (default 120)\n"
	 "  --output-limit CHARS   text of a result kept, head and tail (default 30000)\n"
	 "  --rm                   remove the workspace when the server ends\n"},
	{"trust", cmd_trust, G_TRUST, false, true, "trust [--revoke] [FILE]",
	 "Trust the config file FILE (default ./sandbox.ini) as it is now: record\n"
	 "its SHA-256 under its real path in ~/.config/sandbox/trusted. A\n"
	 "./sandbox.ini is used only while it is trusted and unchanged, since a\n"
	 "workspace with the directory mounted can write it; read it first. A file\n"
	 "named with --config or SANDBOX_CONFIG needs no trust.\n"
	 "  --revoke               forget FILE: it is no longer trusted\n"},
	{"help", NULL, 0, false, false, "help [COMMAND]", "Show help.\n"},
};

static const char global_help[] =
	"Global options (before or after the command):\n"
	"  -w, --workspace REF    the workspace (default: $SANDBOX_WORKSPACE)\n"
	"  --engine ENGINE        docker, podman or a path (default docker)\n"
	"  --json                 print one JSON object on stdout\n"
	"  -c, --config FILE      the project's config file (default: $SANDBOX_CONFIG,\n"
	"                         else ./sandbox.ini once trusted: 'sandbox help trust');\n"
	"                         ~/.config/sandbox/sandbox.ini is read before it\n"
	"  -v, --verbose          print each engine command before it runs\n"
	"  -h, --help, --version\n";

static void print_usage(FILE *f)
{
	fprintf(f, "usage: sandbox [global options] COMMAND [options]\n");
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		fprintf(f, "       sandbox %s\n", commands[i].usage);
}

static void print_help(const struct command *c)
{
	if (!c) {
		print_usage(stdout);
		printf("\nAn isolated Docker or Podman container to work in.\n\n%s"
		       "\nRun 'sandbox help COMMAND' for a command's options; man sandbox for all.\n",
		       global_help);
		return;
	}
	printf("usage: sandbox %s\n\n%s\n%s", c->usage, c->help, global_help);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

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

static bool allowed(const struct parsed *p, const struct optdef *o)
{
	return (o->groups & G_ALL) || (p->cmd && (p->cmd->groups & o->groups));
}

/* The same letter can mean different things to different commands (-i:
 * exec's stdin, grep's case): the one the command takes wins. */
static const struct optdef *find_long(const struct parsed *p, const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (strlen(opts[i].lng) == len && strncmp(opts[i].lng, name, len) == 0 &&
		    allowed(p, &opts[i]))
			return &opts[i];
	return NULL;
}

static const struct optdef *find_short(const struct parsed *p, char c)
{
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (opts[i].shrt == c && allowed(p, &opts[i]))
			return &opts[i];
	return NULL;
}

/* --old-file, --new-file: the bytes of a local file. */
static int read_local(const char *path, struct sbuf *out, struct err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
	char buf[65536];
	size_t n;
	sbuf_reset(out);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(out, buf, n);
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return err_set(e, ERR_USAGE, "%s: cannot read it", path);
	return 0;
}

static int set_count(const char *opt, const char *val, long min, long max, long *out,
		     struct err *e)
{
	long v;
	if (!parse_long(val, min, LONG_MAX, &v))
		return err_set(e, ERR_USAGE, "%s '%s': expected a number from %ld", opt, val, min);
	if (v > max)
		return err_set(e, ERR_USAGE, "%s '%s': at most %ld", opt, val, max);
	*out = v;
	return 0;
}

static int apply_tool_opt(struct app *a, enum opt_id id, const char *val, struct err *e)
{
	switch (id) {
	case O_OFFSET: return set_count("--offset", val, 1, APP_COUNT_MAX, &a->offset, e);
	case O_LIMIT: return set_count("--limit", val, 1, APP_COUNT_MAX, &a->limit, e);
	case O_AFTER: return set_count("-A", val, 0, APP_COUNT_MAX, &a->after, e);
	case O_BEFORE: return set_count("-B", val, 0, APP_COUNT_MAX, &a->before, e);
	case O_CONTEXT:
		if (set_count("-C", val, 0, APP_COUNT_MAX, &a->after, e) < 0)
			return -1;
		a->before = a->after;
		return 0;
	case O_RAW: a->raw = true; return 0;
	case O_CONTENT: a->content = val; return 0;
	case O_OLD:
	case O_NEW: {
		struct sbuf *t = id == O_OLD ? &a->old_text : &a->new_text;
		sbuf_reset(t);
		sbuf_adds(t, val);
		*(id == O_OLD ? &a->old_set : &a->new_set) = true;
		return 0;
	}
	case O_OLD_FILE:
	case O_NEW_FILE:
		*(id == O_OLD_FILE ? &a->old_set : &a->new_set) = true;
		return read_local(val, id == O_OLD_FILE ? &a->old_text : &a->new_text, e);
	case O_EXPECT: a->expect_sha = val; return 0;
	case O_PATH:
		if (!*val)
			return err_set(e, ERR_USAGE, "--path is empty");
		a->path = val;
		return 0;
	case O_GLOB: a->glob = val; return 0;
	case O_ICASE: a->icase = true; return 0;
	case O_FIXED: a->fixed = true; return 0;
	case O_OUTPUT: a->output = val; return 0;
	case O_RM: a->rm = true; return 0;
	case O_REVOKE: a->revoke = true; return 0;
	case O_OUTPUT_LIMIT: return set_count("--output-limit", val, 1000, APP_OUTPUT_LIMIT_MAX,
					     &a->output_limit, e);
	default: return 0;
	}
}

static int apply_opt(struct app *a, struct parsed *p, const struct optdef *o,
		     const char *val, struct err *e)
{
	switch (o->id) {
	case O_KEY:
		p->keys = xrealloc(p->keys, (p->nkeys + 1) * sizeof(*p->keys));
		p->keys[p->nkeys++] = (struct pending){o->key, val};
		break;
	case O_WS: a->ref = val; break;
	case O_JSON: a->json = true; break;
	case O_CONFIG: p->config = val; break;
	case O_VERBOSE: p->verbose = true; break;
	case O_HELP: p->help = true; break;
	case O_VERSION: p->version = true; break;
	case O_SHELL: a->shell = val; break;
	case O_CWD:
		if (!*val || has_control(val))
			return err_set(e, ERR_USAGE, "--cwd: expected a directory, without control characters");
		a->cwd = val;
		break;
	case O_INTERACTIVE: a->interactive = true; break;
	case O_ALL: a->all = true; break;
	case O_STOPPED: a->stopped = true; break;
	case O_OLDER:
		if (!parse_duration(val, &a->older_than))
			return err_set(e, ERR_USAGE, "--older-than '%s': expected a duration like 90s, 15m, 2h or 7d", val);
		break;
	default:
		return apply_tool_opt(a, o->id, val, e);
	}
	return 0;
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
	const struct optdef *o;
	const char *val = NULL;
	if (arg[1] == '-') {
		const char *eq = strchr(arg + 2, '=');
		o = find_long(p, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
		if (!o)
			return unknown(p, arg, e);
		if (eq && !o->arg)
			return err_set(e, ERR_USAGE, "option --%s takes no value", o->lng);
		val = eq ? eq + 1 : NULL;
	} else {
		/* -c is the shell text after exec and run, the config elsewhere. */
		static const struct optdef shell = {"command", 'c', true, G_ALL, O_SHELL, NULL};
		if (arg[1] == 'c' && p->cmd && p->cmd->takes_command)
			o = &shell;
		else
			o = find_short(p, arg[1]);
		if (!o)
			return unknown(p, arg, e);
		if (arg[2] && !o->arg)
			return err_set(e, ERR_USAGE, "option '%s': give short options one at a time", arg);
		val = arg[2] ? arg + 2 : NULL;
	}
	if (o->arg && !val) {
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
			struct strvec *rest = p->cmd && !p->cmd->takes_command &&
						      strcmp(p->cmd->name, "create") == 0
						      ? &a->extra : &a->args;
			strvec_push_all(rest, argv + i + 1, (size_t)(argc - i - 1));
			break;
		}
		if (arg[0] == '-' && arg[1]) {
			if (parse_opt(a, p, argc, argv, &i, e) < 0)
				return -1;
			continue;
		}
		if (!p->cmd) {
			p->cmd = find_command(arg);
			if (!p->cmd)
				return err_set(e, ERR_USAGE, "unknown command '%s'; see 'sandbox --help'", arg);
			a->cmd = p->cmd->name;
			continue;
		}
		if (p->cmd->takes_command) {
			/* The command's own flags are never taken for ours. */
			strvec_push_all(&a->args, argv + i, (size_t)(argc - i));
			break;
		}
		strvec_push(&a->args, arg);
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

static void report(const struct app *a, const struct err *e)
{
	if (a->json) {
		struct json j = {0};
		/* The caller needs the ref of what we made, even on failure. */
		err_json(&j, e, a->ws_created ? a->ws_name : NULL);
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

static int run(struct app *a, struct parsed *p, int argc, char **argv, struct err *e)
{
	if (parse_args(a, p, argc, argv, e) < 0)
		return -1;
	if (p->version) {
		printf("sandbox %s\n", SANDBOX_VERSION);
		return 0;
	}
	if (p->help || !p->cmd || !p->cmd->fn) {
		const struct command *c = p->cmd && p->cmd->fn ? p->cmd : NULL;
		if (p->cmd && !p->cmd->fn && a->args.n && !(c = find_command(a->args.v[0])))
			return err_set(e, ERR_USAGE, "no command '%s'", a->args.v[0]);
		if (!p->cmd && !p->help) {
			print_usage(stderr);
			return 2;
		}
		print_help(c);
		return 0;
	}
	if (p->cmd->no_config)
		return p->cmd->fn(a, e);
	const char *config = p->config ? p->config : getenv("SANDBOX_CONFIG");
	if (config && !*config)
		config = NULL;
	if (cfg_load_all(&a->cfg, config, e) < 0)
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
	if (!a->limit)
		a->limit = strcmp(p->cmd->name, "read") == 0 ? 2000 : 1000;
	if (!a->offset)
		a->offset = 1;
	spawn_verbose = p->verbose;
	envp_build(&a->envp, environ);
	a->cache_dir = cache_dir_new();
	if (resolve_engine(a, e) < 0)
		return -1;
	return p->cmd->fn(a, e);
}

int main(int argc, char **argv)
{
	struct app a = {.older_than = -1, .out = stdout};
	struct parsed p = {0};
	struct err e = {0};
	cfg_init(&a.cfg);
	spawn_install_signals();
	int status = run(&a, &p, argc, argv, &e);
	if (status < 0) {
		report(&a, &e);
		status = err_exit_status(e.kind);
		if (e.kind == ERR_INTERRUPTED && spawn_interrupted)
			status = 128 + (int)spawn_interrupted;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (status == 0)
			fprintf(stderr, "sandbox: cannot write the output: %s\n", strerror(errno));
		status = status ? status : 1;
	}
	cfg_free(&a.cfg);
	strvec_clear(&a.envp);
	strvec_clear(&a.args);
	strvec_clear(&a.extra);
	sbuf_free(&a.old_text);
	sbuf_free(&a.new_text);
	free(a.engine);
	free(a.cache_dir);
	free(p.keys);
	return status;
}
