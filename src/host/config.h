/* config.h: the settings of a workspace and of its commands, from
 * sandbox.ini files and from the command line. Every source goes through
 * cfg_set(), so every create option is a config key by construction and
 * is checked the same way wherever it comes from. The layers, each over
 * the one before: the defaults here, the user's file, the project's file
 * (named, or ./sandbox.ini when trusted: trust.h), the command line. */
#ifndef SANDBOX_CONFIG_H
#define SANDBOX_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "util.h"

#define CFG_DEFAULT_WORKDIR "/workspace"
#define CFG_DEFAULT_NETWORK "none"
/* network = allow: no network but loopback, and a proxy on this side
 * that lets through what the allow patterns name (man sandbox, NETWORK
 * BY ALLOW-LIST). An allow key sets it too. */
#define CFG_NETWORK_ALLOW "allow"
#define CFG_DEFAULT_PIDS_LIMIT 2048
#define CFG_DEFAULT_MAX_OUTPUT (1024 * 1024)
#define CFG_DEFAULT_ENGINE_TIMEOUT 60.0
#define CFG_DEFAULT_IDLE 1800L
/* The most a snapshot may copy: the files its workspace changed, in
 * bytes at their apparent size (4 GiB). */
#define CFG_DEFAULT_SNAPSHOT_MAX (4LL << 30)
#define CFG_DEFAULT_MAX_SIZE (8LL << 30)
/* How long the resident process (resident.h) outlives the last
 * command, by default and at most, in seconds. */
#define CFG_DEFAULT_KEEP 300L
#define CFG_KEEP_MAX 86400L
/* The longest ttl and idle: ten years. */
#define CFG_EXPIRY_MAX (3650L * 86400)
/* The project's file, when no other is named: used only when trusted. */
#define CFG_FOUND_FILE "./sandbox.ini"
/* The user's defaults, in trust_dir_new()'s directory. */
#define CFG_USER_FILE "sandbox.ini"

/* A bind mount; ctr NULL means the workdir, whatever it ends up being. */
struct cfg_mount {
	char *host;
	char *ctr;
	bool ro;
};

struct cfg {
	char *engine;       /* "docker", "podman" or a path */
	char *image;
	char *from;         /* a snapshot's name, in place of image; NULL: none */
	char *workdir;
	bool workdir_set;   /* given, not the default: a snapshot's own yields */
	char *network;      /* none, bridge, a network's name, or CFG_NETWORK_ALLOW */
	struct strvec allow; /* network = allow's patterns (egress.h), each in its one form */
	struct cfg_mount *mounts;
	size_t nmounts;
	char *memory;
	char *cpus;
	long pids_limit;    /* -1: no limit */
	char *user;
	char *runtime;      /* the OCI runtime (runsc, crun, a path); NULL: the engine's */
	struct strvec env;  /* K=V, one entry per name */
	struct strvec secrets; /* NAME=SOURCE (env:VAR or file:PATH), one a name;
			     * their values are secret.h's to read */
	char *setup;
	char *name;
	double timeout;     /* seconds; 0: none */
	long max_output;    /* bytes per stream kept in JSON */
	double engine_timeout; /* seconds an engine call of our own may take */
	char *copy;         /* create --copy: DIR, absolute; NULL: none */
	struct strvec excludes; /* --exclude patterns, in order */
	long long snapshot_max; /* bytes a snapshot may copy at most; 0: no limit */
	long long max_size; /* bytes apply and cp out may write at most; 0: no limit */
	long ttl;           /* seconds the workspace lives; 0: for ever */
	long idle;          /* seconds without a command before it stops;
			     * 0: never; -1: not set (CFG_DEFAULT_IDLE where
			     * the workspace is made by the way: mcp, exec) */
	bool history;       /* every call goes in its workspace's history */
	long keep;          /* seconds the resident process outlives the last
			     * command; 0 (keep = no): none is used */
};

void cfg_init(struct cfg *c);
/* Whether c's network is allow. */
bool cfg_network_allow(const struct cfg *c);
/* The allow patterns as one label's value, space-separated (new). */
char *cfg_allow_label_new(const struct cfg *c);
void cfg_free(struct cfg *c);

/* Sets one key ("image", "pids_limit", "env" with "K=V", ...), checking
 * the value. Returns -1 with a message naming the key otherwise. */
int cfg_set(struct cfg *c, const char *key, const char *value, struct err *e);
/* Adds or replaces K=V in the environment list, checking K. */
int cfg_set_env(struct cfg *c, const char *name, const char *value, struct err *e);
/* Adds or replaces the secret name, read from source: "env:VAR" or
 * "file:PATH" (absolute, or ~/ for $HOME); checks both, reads neither. */
int cfg_set_secret(struct cfg *c, const char *name, const char *source, struct err *e);

/* Parses the text of an ini file: [sandbox] keys, [env] variables and
 * [secrets];
 * name is for messages, which carry name:line. Nothing after the first
 * error is applied. */
int cfg_parse(struct cfg *c, const char *name, const char *data, size_t len,
	      struct err *e);
/* Reads a file (checked and bounded: trust_file_read) and parses it. A
 * missing file is an error only when must_exist. */
int cfg_load(struct cfg *c, const char *path, bool must_exist, struct err *e);
/* Every file, in order: the user's defaults, when there; then named (the
 * user's choice: must exist, needs no trust), or without one
 * ./sandbox.ini when there, which must be trusted. */
int cfg_load_all(struct cfg *c, const char *named, struct err *e);

/* Checks shared by the config and the command line. */
bool cfg_valid_env_name(const char *s, size_t n);
bool cfg_valid_container_name(const char *s);
/* An OCI runtime's name as the engine knows it, or an absolute path. */
bool cfg_valid_runtime(const char *s);

#endif
