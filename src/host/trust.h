/* trust.h: reading a config file safely, and the user's consent to the
 * one that sandbox finds without being told, ./sandbox.ini.
 *
 * A config file chooses the engine program, the mounts and the network.
 * A workspace that has the current directory mounted can write
 * ./sandbox.ini, and so choose what the next sandbox command runs on the
 * host. Such a file is used only while its SHA-256 is the one recorded by
 * `sandbox trust` for its real path, in the trust store:
 *
 *	$XDG_CONFIG_HOME/sandbox/trusted (else ~/.config/sandbox/trusted)
 *
 * one line per file, "SHA256 PATH", and '#' comments. Every file is read
 * once into memory, bounded; that same buffer is hashed and parsed, so the
 * content cannot change between the check and the use. */
#ifndef SANDBOX_TRUST_H
#define SANDBOX_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "util.h"

/* The largest config file, and the largest trust store. */
#define TRUST_MAX_FILE (1024 * 1024)
/* The longest path the store holds, in bytes. */
#define TRUST_MAX_PATH 4095

/* A file read whole, once. */
struct trust_file {
	const char *name; /* as named, for messages; borrowed */
	char *data;       /* len bytes, then a NUL */
	size_t len;
	dev_t dev;        /* what was read, to tie it to a path */
	ino_t ino;
	bool link;        /* name is a symbolic link: trusted where it
			   * stands, not where it points */
};

/* Checks, before opening it, that name is a regular file (so that no
 * FIFO blocks us and no device is opened), not writable by everyone, owned
 * by the user or root, and at most TRUST_MAX_FILE bytes; opens that very
 * file (on Linux; elsewhere it checks the opened one is the same) without
 * waiting, and reads it, bounded. Returns 1 when read, 0 when it does not
 * exist and !must_exist, -1 otherwise. */
int trust_file_read(const char *name, bool must_exist, struct trust_file *f,
		    struct err *e);
void trust_file_free(struct trust_file *f);
/* The real path of f's name, checked to be the file that was read: the
 * key of the store; for a name that is a symbolic link, the link's own
 * (its directory's real path and its name), so that a link planted
 * beside a project is never trusted through the file it points to.
 * NULL and e when it cannot be had. */
char *trust_file_realpath_new(const struct trust_file *f, struct err *e);

struct trust_entry {
	char sha256[65]; /* lowercase hex */
	char *path;      /* absolute, no control characters */
};

struct trust_store {
	struct trust_entry *v;
	size_t n, cap;
};

/* Parses a store's text strictly: each line is a comment ('#' first) or
 * 64 lowercase hex digits, one space and an absolute path without control
 * characters, of at most TRUST_MAX_PATH bytes, ended by a newline; no path
 * twice. name is for messages. On error ts is left empty. */
int trust_parse(struct trust_store *ts, const char *name, const char *data,
		size_t len, struct err *e);
/* The store's text, a comment header and one line per entry, in order:
 * what trust_parse reads back. */
void trust_format(const struct trust_store *ts, struct sbuf *out);
const struct trust_entry *trust_find(const struct trust_store *ts, const char *path);
/* Adds path with its hash, or gives an entry of path the new hash. */
int trust_put(struct trust_store *ts, const char *path, const char *sha256,
	      struct err *e);
/* Removes path's entry; false when there was none. */
bool trust_drop(struct trust_store *ts, const char *path);
void trust_store_free(struct trust_store *ts);
/* A path the store can hold: absolute, no control characters, not too long. */
bool trust_path_ok(const char *path);

/* $XDG_CONFIG_HOME/sandbox, else $HOME/.config/sandbox (each only when
 * absolute), else NULL. It holds the store and the user's defaults. */
char *trust_dir_new(void);

/* 0 when the store in dir records f's hash for f's real path; otherwise a
 * config error that says how to trust it (TRUST_FIX). */
int trust_check(const char *dir, const struct trust_file *f, struct err *e);
/* What the store in dir says of f: TRUST_OK (its hash is recorded for
 * its real path), TRUST_UNKNOWN (nothing is), TRUST_CHANGED (another
 * hash is); -1 with e set when the store or the path cannot be read. */
enum { TRUST_OK, TRUST_UNKNOWN, TRUST_CHANGED };
int trust_lookup(const char *dir, const struct trust_file *f, struct err *e);
/* What to do about a file that is not trusted as it is. */
#define TRUST_FIX "check it, then run 'sandbox trust' (or name it with --config)"

/* Under the store's lock: records sha256 for path, or, when sha256 is
 * NULL, removes path's entry. The store is replaced atomically (a temporary
 * file renamed over it). *changed says whether an entry was added, changed
 * or removed. dir is created (mode 0700) when missing. */
int trust_update(const char *dir, const char *path, const char *sha256,
		 bool *changed, struct err *e);

#endif
