/* history.h: the record of every call, kept on the host, a file a
 * workspace: DIR/NAME.jsonl, DIR being $XDG_STATE_HOME/sandbox/history
 * (else ~/.local/state/sandbox/history), mode 0700, each file 0600 and
 * never reached through a link. Nothing of a workspace's mounts leads
 * here: the workspace cannot write it. A record is one JSON object on
 * one line (the caller's, JSON's escapes keep it on one), appended with
 * one write under the file's lock; past HISTORY_ROTATE bytes the file
 * becomes NAME.jsonl.1 (the one before goes) and a new one begins. A
 * workspace's history outlives it until history --prune. */
#ifndef SANDBOX_HISTORY_H
#define SANDBOX_HISTORY_H

#include <stdbool.h>

#include "err.h"
#include "util.h"

#define HISTORY_ROTATE (1L << 20)
/* The longest record: a longer one is not written (the caller cuts). */
#define HISTORY_RECORD_MAX 16384

/* The directory, made when missing (0700, ours, no link): NULL with e
 * set when there is none to use. */
char *history_dir_new(struct err *e);
/* The same for another record kept so, ~/.local/state/sandbox/WHAT
 * (the connections of network = allow: "net"). */
char *history_dir_of_new(const char *what, struct err *e);
/* Whether name may name a history file: a workspace's name. */
bool history_name_ok(const char *name);
/* Appends line (n bytes, no newline) to name's history. */
int history_append(const char *dir, const char *name, const char *line, size_t n,
		   struct err *e);
/* The names that have a history, sorted. */
int history_names(const char *dir, struct strvec *names, struct err *e);
/* name's records, oldest first (the rotated file's, then the file's),
 * each whole line, appended to lines; a file's last HISTORY_ROTATE
 * bytes and a record at most. *size says how far the file is read,
 * for history_more. */
int history_lines(const char *dir, const char *name, struct strvec *lines, long long *size,
		  struct err *e);
/* The whole lines written to name's file since *size (which moves on;
 * back to 0 when the file was rotated). */
int history_more(const char *dir, const char *name, struct strvec *lines, long long *size,
		 struct err *e);
/* Removes name's history (its file and the rotated one). */
int history_remove(const char *dir, const char *name, struct err *e);

#endif
