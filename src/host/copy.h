/* copy.h: copy workspaces (create --copy DIR, diff, apply). The host
 * keeps the baseline: each path of DIR as it was copied (its type,
 * permission bits, size, SHA-256 and link target), with the patterns
 * that left paths out, in a file of its own where the workspace cannot
 * reach. The workspace says what it holds now (SCRIPT_MANIFEST): that
 * answer is hostile input, parsed here with every size bounded. A path
 * the answer is unsure of is fetched whole (a tar stream), so a garbled
 * or forged line can hide a change from diff and apply alike, never
 * make them differ. Pure but for the baseline file's I/O. */
#ifndef SANDBOX_COPY_H
#define SANDBOX_COPY_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "util.h"

/* Paths in a tree, a baseline or a listing, at most: past it, an error. */
#define COPY_ENTRIES_MAX 1000000
/* Bytes of a path (relative, without "./"). */
#define COPY_PATH_MAX 4096
/* Bytes of the workspace's listing (SCRIPT_MANIFEST's answer). */
#define COPY_MANIFEST_MAX ((size_t)512 << 20)
/* Bytes of a baseline file, and of a .sandboxignore. */
#define COPY_BASE_FILE_MAX ((size_t)1 << 30)
#define COPY_IGNORE_MAX ((size_t)1 << 20)

/* One path: 'f' a regular file, 'd' a directory, 'l' a symlink; '?' in
 * a listing, a path whose type the answer did not say. */
struct copy_entry {
	char *path;
	char type;
	unsigned mode;          /* the permission bits (0777) */
	unsigned long long size;
	char sha[65];           /* a file's hex SHA-256; "" unknown */
	char *target;           /* a link's target; NULL else */
};

/* Sorted by copy_path_cmp, each path once. */
struct copy_tree {
	struct copy_entry *v;
	size_t n, cap;
};

/* The order of paths: a tree walked name by name (as diff -r does), so
 * that "a/b" comes before "a.c" and a directory before what is in it. */
int copy_path_cmp(const char *a, const char *b);
/* Why rel is no path of a tree ("" "/x" "a//b" "./a" "a/.." ...), or
 * NULL when it is one. */
const char *copy_path_bad(const char *rel, size_t len);
/* Whether a component of rel names version-control metadata (.git,
 * .hg, .svn, .jj, _darcs, .bzr; its case, trailing dots and spaces
 * ignored, and git~1): what a host tool reads as its own state and may
 * obey, never the work under review. */
bool copy_path_vcs(const char *rel);

void copy_tree_add(struct copy_tree *t, const struct copy_entry *e); /* takes its strings */
void copy_tree_sort(struct copy_tree *t);
struct copy_entry *copy_tree_find(const struct copy_tree *t, const char *path);
void copy_tree_free(struct copy_tree *t);
void copy_entry_free(struct copy_entry *e);

/* Patterns that leave paths out, as in a .sandboxignore: a pattern
 * (glob.h) without '/' matches a name at any depth; with a '/' (a
 * leading one is dropped), the path from DIR's top; a trailing '/'
 * matches directories only. A path is out when it or a directory above
 * it matches. */
struct copy_excl {
	struct glob_pat **pat;
	bool *dir_only, *anchored;
	size_t n;
};
int copy_excl_init(struct copy_excl *x, const struct strvec *patterns, struct err *e);
bool copy_excluded(const struct copy_excl *x, const char *rel, bool is_dir);
void copy_excl_free(struct copy_excl *x);
/* The patterns of a .sandboxignore's text, appended to out: one a line,
 * blank lines and lines starting with '#' skipped, trailing spaces cut.
 * '!' (a pattern that takes a path back) is refused. */
int copy_ignore_parse(const char *text, size_t len, const char *name, struct strvec *out,
		      struct err *e);
/* Of the patterns, those the workspace's find can prune by name, since
 * its -name matches them as glob.h does: printable ASCII without '/',
 * '?', brackets, braces or '\'. The listing is smaller; the host checks
 * all. */
bool copy_prunable(const char *pattern);

/* What the host keeps of a copy. */
struct copy_base {
	char *dir;              /* DIR on the host, absolute */
	struct strvec excludes;
	struct copy_tree tree;
};
void copy_base_free(struct copy_base *b);
/* The baseline file: "sandbox-copy 1\0", DIR "\0", each pattern as
 * "x\0PATTERN\0", each path as "e\0TYPE\0MODE\0SIZE\0SHA\0TARGET\0PATH\0". */
void copy_base_encode(struct sbuf *out, const struct copy_base *b);
int copy_base_decode(const char *buf, size_t len, struct copy_base *b, struct err *e);
/* Read and written whole; written under a temporary name renamed into
 * place. A missing file: -1 with *missing set. */
int copy_base_load(const char *path, struct copy_base *b, bool *missing, struct err *e);
int copy_base_save(const char *path, const struct copy_base *b, struct err *e);
/* A file of ours read whole, at most max bytes, into out (appended);
 * written whole under a temporary name renamed into place (0600). */
int copy_file_read(const char *path, size_t max, struct sbuf *out, bool *missing, struct err *e);
int copy_file_write(const char *path, const char *data, size_t len, struct err *e);

/* The last diff of a copy, kept beside its baseline: the review's ID
 * (the SHA-256 of the changes it showed) and each change's own hash
 * and path, in the order of paths; so that an apply bound to the ID can
 * say what differs. "sandbox-review 1\0ID\0", then "HASH\0PATH\0" each. */
struct copy_review {
	char id[65];
	struct copy_review_change {
		char hash[65];
		char *path;
	} *v;
	size_t n, cap;
};
void copy_review_add(struct copy_review *r, const char *hash, const char *path);
void copy_review_encode(struct sbuf *out, const struct copy_review *r);
/* -1 when buf is not such a record. */
int copy_review_decode(const char *buf, size_t len, struct copy_review *r);
void copy_review_free(struct copy_review *r);

/* The baseline's file for a container ID: $XDG_STATE_HOME/sandbox/copies/ID
 * (else ~/.local/state/...); NULL when neither is set. mkdirs: make its
 * directories (0700). Caller frees. */
char *copy_base_path(const char *id, bool mkdirs);
/* $XDG_STATE_HOME/sandbox (else ~/.local/state/sandbox), or NULL.
 * Caller frees. */
char *copy_state_root(void);

/* SCRIPT_MANIFEST's answer after its "OK" line: every path of the
 * workdir NUL-ended as "./PATH"; an empty one; lines "MODE SIZE ./PATH"
 * (MODE in hex, as stat %f); a line "--"; lines "SHA256  ./PATH" for
 * regular files. Fills out with the paths left after the patterns, each
 * with what the answer said of it for sure: a path given twice, or
 * whose lines are missing, garbled or disagree, gets type '?' (or no
 * sha). Devices, FIFOs and sockets are left out. -1 with e set when the
 * answer names a path no tree can hold, or is too large. */
int copy_manifest_parse(const char *buf, size_t len, const struct copy_excl *x,
			struct copy_tree *out, struct err *e);

/* The same answer read as it comes, in pieces of any size, so that only
 * what it says is kept, never its text: the paths it names may take at
 * most budget bytes of memory (copy_tree_cost's measure; past it, an
 * error: a workspace cannot make the host's memory grow without bound).
 * copy_manifest_parse is init, one feed and finish, with no budget. */
#define COPY_LIST_EXTRA ((size_t)8 << 20)
struct copy_manifest {
	const struct copy_excl *x;
	size_t budget, used;
	int part;               /* 0 the names, 1 the stat lines, 2 the hashes */
	struct sbuf cur;        /* the name or line not yet ended */
	bool skip;              /* it is too long: skipped to its end */
	bool failed;
	struct copy_tree t;     /* the names, sorted once the first part ends */
	unsigned char *flags;   /* what the lines said of each */
};
void copy_manifest_init(struct copy_manifest *m, const struct copy_excl *x, size_t budget);
int copy_manifest_feed(struct copy_manifest *m, const char *buf, size_t len, struct err *e);
int copy_manifest_finish(struct copy_manifest *m, struct copy_tree *out, struct err *e);
void copy_manifest_free(struct copy_manifest *m);
/* What the paths of t take, as a budget counts it. */
size_t copy_tree_cost(const struct copy_tree *t);

#endif
