/* results.h: what every command does, as a typed result, and the
 * presenters that show it. A do-function checks its command's
 * options, acts in the workspace and fills its result, printing nothing;
 * three presenters render a result: the CLI's text (on out, and notes such
 * as "no match" on err), the tree of
 * its --json object (which MCP's structuredContent is too, capped), and
 * the text an MCP client's model reads. Strings of a result are borrowed
 * from the app (its options) or owned by the result (freed with it); the
 * tree borrows them all, so it goes before the result does. Each type of
 * result is a struct result_type too, which a command's row names
 * (opts.c) and the front ends use (main.c, mcp.c). */
#ifndef SANDBOX_RESULTS_H
#define SANDBOX_RESULTS_H

#include <stdbool.h>
#include <stdio.h>

#include "app.h"
#include "exec.h"
#include "err.h"
#include "job.h"
#include "jsonr.h"
#include "resident.h"
#include "util.h"

/* How the front ends handle one type of result, struct NAME_result,
 * without knowing it: made by RESULT_TYPE(NAME) or TOOL_RESULT_TYPE in
 * the present_*.c of its family, of the typed functions declared below,
 * each through an adaptor that gives the pointer its own type back (a
 * function called through a pointer of another type is undefined). */
struct result_type {
	size_t size;            /* sizeof(struct NAME_result) */
	/* Calls do_fn, a do-function of this type kept as a row keeps it
	 * (opts.h), as the int (struct app *, struct NAME_result *,
	 * struct err *) that it is (C17 6.3.2.3p8). */
	int (*run)(void (*do_fn)(void), struct app *a, void *r, struct err *e);
	void (*free)(void *r);  /* NAME_result_free */
	void (*text)(FILE *out, FILE *err, const void *r);
	void (*tree)(struct jv *t, const void *r);
	void (*model)(struct sbuf *out, const void *r); /* a tool's; else NULL */
	bool (*is_error)(const void *r);                /* a tool's; else NULL */
};

#define RESULT_ADAPTORS_(name)                                                           \
	static int name##_run_(void (*do_fn)(void), struct app *a, void *r, struct err *e) \
	{                                                                                 \
		return ((int (*)(struct app *, struct name##_result *, struct err *))do_fn)( \
			a, r, e);                                                         \
	}                                                                                 \
	static void name##_free_(void *r)                                                 \
	{                                                                                 \
		name##_result_free(r);                                                    \
	}                                                                                 \
	static void name##_text_(FILE *out, FILE *err, const void *r)                     \
	{                                                                                 \
		name##_text(out, err, r);                                                 \
	}                                                                                 \
	static void name##_tree_(struct jv *t, const void *r)                             \
	{                                                                                 \
		name##_tree(t, r);                                                        \
	}

/* NAME_result_type, of NAME_result_free, NAME_text and NAME_tree: a
 * result of the command line's only. */
#define RESULT_TYPE(name)                                                        \
	RESULT_ADAPTORS_(name)                                                   \
	const struct result_type name##_result_type = {                          \
		sizeof(struct name##_result), name##_run_, name##_free_,         \
		name##_text_, name##_tree_, NULL, NULL}

/* The same for a tool's result, with NAME_model, and is_error: bool
 * (const struct NAME_result *), or result_no_error. */
#define TOOL_RESULT_TYPE(name, is_error)                                         \
	RESULT_ADAPTORS_(name)                                                   \
	static void name##_model_(struct sbuf *out, const void *r)               \
	{                                                                        \
		name##_model(out, r);                                            \
	}                                                                        \
	static bool name##_is_error_(const void *r)                              \
	{                                                                        \
		return is_error((const struct name##_result *)r);                \
	}                                                                        \
	const struct result_type name##_result_type = {                          \
		sizeof(struct name##_result), name##_run_, name##_free_,         \
		name##_text_, name##_tree_, name##_model_, name##_is_error_}

/* The is_error of a tool whose every result is an answer, not a failure. */
bool result_no_error(const void *r);

/* create, start, stop: the workspace acted on. */
struct ref_result {
	char *workspace, *id;    /* owned */
};

/* list: every workspace of the engine. */
struct ws_row {
	char *id, *name, *state, *image, *spec; /* owned */
	char *runtime;           /* owned; "": the engine's own */
	long long created;       /* seconds since the epoch */
	int exit;                /* the keep-alive's status, once stopped */
	long long expires;       /* ttl's deadline; 0: none */
	long idle;               /* seconds; 0: none */
};
struct list_result {
	struct ws_row *rows;
	size_t n;
	long long now;           /* when they were listed, for their age */
};

/* destroy, prune: the workspaces removed; destroy --snapshot: the
 * snapshot removed. */
struct removed_result {
	struct strvec names;     /* owned */
	char *snapshot;          /* owned; NULL: workspaces were the matter */
};

/* pool: its pools, a line each (fill: the one it filled). */
struct pool_row {
	char *spec, *image;      /* owned */
	long ready;              /* running, ready to be taken */
	long stopped;            /* not running: never taken, pool drain removes them */
};
struct pool_result {
	enum { POOL_FILL, POOL_LIST, POOL_DRAIN } action;
	struct pool_row *rows;
	size_t n;
	long made;               /* fill: how many it made */
	struct removed_result removed; /* drain */
};
/* snapshot, fork: the snapshot made, what it leaves out, and (fork) the
 * workspace made from it. */
struct snap_mount {
	char *type, *source, *dest; /* owned, made printable */
};
struct snapshot_result {
	const char *cmd;         /* snapshot or fork, for its notes */
	char *source;            /* the workspace snapshotted; owned */
	char *name;              /* NAME; owned */
	char *image;             /* SNAPSHOT_REPO:NAME; owned */
	char *image_id;          /* owned */
	struct snap_mount *mounts; /* not in the snapshot; owned */
	size_t nmounts;
	bool mounts_cut;         /* more than SNAP_MOUNTS_MAX: those shown */
	char *workspace, *id;    /* fork: the new workspace; owned, else NULL */
};
#define SNAP_MOUNTS_MAX 64

/* snapshots: every image of ours labelled a snapshot. */
struct snap_row {
	char *name, *image, *id, *of, *workdir; /* owned, made printable */
	long long created, size;
};
struct snapshots_result {
	struct snap_row *rows;
	size_t n;
	long long now;
	bool more;               /* more than SNAP_LIST_MAX: those shown */
};
#define SNAP_LIST_MAX 10000

/* trust: the file's real path, and what became of it. */
struct trust_result {
	char *path;              /* owned */
	char sha256[65];         /* trusted: its hash */
	bool trusted, revoked;   /* revoked: it had been trusted */
};

/* resident: what runs, and what became of it. */
struct resident_result {
	struct resident_info info;
	char *endpoint;          /* the engine and what chooses its daemon */
	bool stop;               /* resident stop: the one shown was told to end */
	bool all;                /* resident stop --all: stopped says how many */
	long stopped;
	bool serve;              /* resident serve: it ran, and shows nothing */
};

struct exec_result {
	const char *cmd;         /* exec or run, for messages */
	const char *workspace;
	int status;              /* what exec exits with: the command's status,
				  * 124 timed out, 128+N interrupted, 255 */
	struct exec_res res;     /* how it ended; owned */
	double timeout;
	struct sbuf out, err;    /* --json and MCP: the kept bytes, head and
				  * tail (else they went out as they came); owned */
	bool out_cut, err_cut;   /* the middle was cut */
	unsigned long long out_total, err_total;
	bool removed;            /* run: the workspace is gone, else why not */
	struct err not_removed;
	char job[JOB_ID_LEN + 1]; /* exec --background: the job started; then
				  * nothing above but workspace counts */
};

/* jobs: the workspace's background jobs, by number. */
struct jobs_result {
	const char *workspace;
	struct job_row *rows;    /* owned */
	size_t n;
	long long now;           /* when they were listed, for their age */
	bool more;               /* there were more than JOBS_MAX */
};

/* logs (and job_output): a job's state and its output from an offset. */
struct logs_stream {
	bool asked;
	unsigned long long offset; /* asked from */
	unsigned long long start;  /* where the bytes shown begin: past offset
				    * when those before were not kept */
	unsigned long long next;   /* the offset to ask from next */
	struct sbuf data;          /* --json, MCP: the bytes kept, head and
				    * tail (else they went out as they came) */
	bool cut;                  /* the middle of data was cut */
	bool seen;                 /* start is known */
};
struct logs_result {
	const char *workspace;
	const char *job;
	struct job_state st;
	struct logs_stream s[2];   /* stdout, stderr */
	bool more;                 /* more output was there than was read */
	bool follow;               /* its status is the job's */
};

/* kill: what the signal did. */
struct kill_result {
	const char *workspace;
	const char *job;
	int signal;              /* 0: TERM, then KILL */
	const char *outcome;     /* "gone", "alive", "sent", "ended" (it had) */
	struct job_state st;
};

/* wait: the job's state when it ended, or when the wait gave up. */
struct wait_result {
	const char *workspace;
	const char *job;
	struct job_state st;
	bool timed_out;
};

struct read_result {
	const char *workspace;
	const char *path;
	struct sbuf content;     /* the numbered lines shown; owned */
	bool raw;                /* --raw: the bytes went to stdout, nothing else */
	long start_line, lines, total_lines;
	unsigned long long size;
	char sha256[65];
};

struct write_result {
	const char *workspace;
	const char *path;
	unsigned long long bytes;
	char sha256[65];         /* "" when nothing asked for it (the CLI's text) */
	bool created;
};

struct edit_result {
	const char *workspace;
	const char *path;
	long long replacements;
	struct sbuf diff;        /* owned */
	bool omitted;            /* the diff was too large: where it changed */
	long long omitted_line, omitted_old, omitted_new;
	char sha256[65];
};

struct glob_result {
	const char *workspace;
	const char *pattern;
	const char *path;        /* the base directory, "." for none */
	struct strvec matches;   /* newest first, joined to path; owned */
	unsigned long long total;
	long limit;              /* the --limit they were kept within */
	size_t max_bytes;        /* and the bytes */
};

struct grep;
struct grep_result {
	const char *workspace;
	const char *pattern;
	const char *path;        /* the base directory, "." for none */
	struct grep *g;          /* after grep_finish: files and lines; owned */
	long limit;              /* the --limit they were kept within */
	size_t max_bytes;        /* and the bytes */
};

/* cp: what was copied, and where. */
struct cp_result {
	const char *workspace;
	const char *dest;        /* as given */
	bool out;                /* from the workspace to the host */
	bool stream;             /* to stdout, a tar stream: no text */
	unsigned long long files, dirs, links, bytes;
	unsigned long long skipped; /* devices, FIFOs, sockets: not copied */
	char *first_skipped;     /* the first of them, shown; owned */
};

/* diff, apply: one path that changed since the copy (or the last apply). */
struct copy_entry;
struct copy_change {
	char *path;              /* owned */
	char kind;               /* 'A' added, 'D' deleted, 'M' its content
				  * or target, 'm' its mode only, 'T' its type */
	char old_type, new_type; /* 'f', 'd', 'l'; 0: none on that side */
	unsigned old_mode, new_mode;
	bool binary;             /* its diff names it only */
	bool conflict;           /* DIR's path changed since the copy too */
	bool refused;            /* apply never writes it: version-control
				  * metadata, or a link or a file of DIR on
				  * its way */
	const char *why;         /* apply: of a conflict or refusal */
	bool noop;               /* apply: DIR has it already */
	bool kept;               /* apply: a directory left, not empty in DIR */
	bool done;               /* apply: written */
	bool removed;            /* apply: its old side removed from DIR */
	long long insertions, deletions;
	struct sbuf text;        /* diff: its part of the diff; owned */
	/* While the command runs: its sides, and the new side's index. */
	const struct copy_entry *old, *now;
	size_t now_index;
};
struct diff_result {
	const char *workspace;
	char *dir;               /* DIR; owned */
	char id[65];             /* the review's ID: apply --expect takes it */
	struct copy_change *v;   /* owned */
	size_t n;
	bool stat, name_only;
};
struct apply_result {
	const char *workspace;
	char *dir;               /* owned */
	char id[65];             /* the ID of the changes it found */
	struct copy_change *v;   /* owned */
	size_t n;
	size_t conflicts, refused;
	bool check, force;
	bool applied;            /* written (not --check, nothing in the way) */
	char *error;             /* a write failed half-way: why; the changes
				  * done (done) were written. Owned. */
};
/* doctor: one line per check, in order. A check that could not be made
 * (the daemon down: no image to look for) is skipped, and says why. */
enum doctor_state { DOCTOR_OK, DOCTOR_FAIL, DOCTOR_SKIP };
struct doctor_check {
	const char *check;       /* "engine", "daemon", ...: static */
	enum doctor_state state;
	char *detail;            /* what was found; owned */
	char *fix;               /* what to do, when it failed; owned, or NULL */
};
struct doctor_result {
	struct doctor_check *v;
	size_t n;
};

/* The do-functions: the exit status with res filled (to free with its
 * _free), or -1 with e set and nothing to free. The status is 0; glob
 * and grep's is 1 when nothing matches, exec and run's the command's.
 * read --raw streams the file to stdout: its result says so, and no
 * more. */
int do_create(struct app *a, struct ref_result *res, struct err *e);
int do_start(struct app *a, struct ref_result *res, struct err *e);
int do_stop(struct app *a, struct ref_result *res, struct err *e);
int do_list(struct app *a, struct list_result *res, struct err *e);
int do_destroy(struct app *a, struct removed_result *res, struct err *e);
int do_prune(struct app *a, struct removed_result *res, struct err *e);
int do_pool(struct app *a, struct pool_result *res, struct err *e);
/* Every workspace of the engine in two engine calls (a ps, an inspect),
 * a pool's ready ones (pool.h) only with pools, only them with only. */
enum life_which { LIFE_WORKSPACES, LIFE_ALL, LIFE_POOLS };
int life_list(struct app *a, struct list_result *r, enum life_which which, struct err *e);
/* Removes ids in one engine call; r->names are their names. Those of
 * paused (may be NULL) are unpaused first, in one call. */
int life_remove(struct app *a, const struct strvec *ids, const struct strvec *paused,
		struct removed_result *r, struct err *e);
/* Whether w expired: its ttl passed, or its keep-alive ended it. */
bool life_expired(const struct ws_row *w, long long now);
int do_trust(struct app *a, struct trust_result *res, struct err *e);
int do_resident(struct app *a, struct resident_result *res, struct err *e);
/* exec -t too: the command with our terminal, its status the result's
 * (the terminal showed the rest). */
int do_exec(struct app *a, struct exec_result *res, struct err *e);
/* Starts cmd as a background job in ws (cmd_job.c), shown as shown in
 * the list of jobs: id gets its number. */
int job_start(struct app *a, struct ws *ws, char *const *cmd, size_t n, const char *shown,
	      char id[JOB_ID_LEN + 1], struct err *e);
/* Creates a workspace, runs the command in it and removes it, whatever
 * happened: res->removed says whether that worked, also after -1. */
int do_run(struct app *a, struct exec_result *res, struct err *e);
int do_read(struct app *a, struct read_result *res, struct err *e);
int do_write(struct app *a, struct write_result *res, struct err *e);
int do_edit(struct app *a, struct edit_result *res, struct err *e);
int do_glob(struct app *a, struct glob_result *res, struct err *e);
int do_grep(struct app *a, struct grep_result *res, struct err *e);
/* jobs, logs, kill, wait: a job of the workspace named (never a new
 * one). logs --follow and wait return the job's status (124: the wait
 * timed out); kill 1 when the job is still alive after KILL. */
int do_jobs(struct app *a, struct jobs_result *res, struct err *e);
int do_logs(struct app *a, struct logs_result *res, struct err *e);
int do_kill(struct app *a, struct kill_result *res, struct err *e);
int do_wait(struct app *a, struct wait_result *res, struct err *e);
/* Copies each source to the destination; a tar stream to stdout when
 * that is "-" (its result says so). */
int do_cp(struct app *a, struct cp_result *res, struct err *e);
/* create --copy's copy: DIR's tree, less the paths excl leaves out,
 * into dest in the workspace; each path sent as a baseline entry
 * (copy.h) into rec. */
struct copy_excl;
int cp_seed(struct app *a, struct ws *ws, const char *dir, const char *dest,
	    const struct copy_excl *excl, FILE *rec, struct cp_result *res, struct err *e);
/* Status 1 when something changed. */
int do_diff(struct app *a, struct diff_result *res, struct err *e);
/* Status 1 when conflicts (without --force) or refusals stopped it. */
int do_apply(struct app *a, struct apply_result *res, struct err *e);
/* do_apply's work once the copy's context is open (copy_fetch.h), res
 * begun as do_apply begins it: from the first pass to the baseline's
 * save; -1 with e set, else res filled. The fuzz target calls it with a
 * workspace it forges (copy_ctx's run). */
struct copy_ctx;
int apply_copy(struct copy_ctx *c, struct apply_result *res, struct err *e);
void copy_changes_free(struct copy_change *v, size_t n);
/* Makes every check; 1 when one of them failed. */
int do_doctor(struct app *a, struct doctor_result *res, struct err *e);
int do_snapshot(struct app *a, struct snapshot_result *res, struct err *e);
int do_snapshots(struct app *a, struct snapshots_result *res, struct err *e);
/* A snapshot, then a workspace created from it; when the create fails
 * the snapshot stays, and e says so. */
int do_fork(struct app *a, struct snapshot_result *res, struct err *e);
/* destroy --snapshot NAME: only an image of ours (its label); one in use
 * by a container stays. */
int snap_destroy(struct app *a, const char *name, struct removed_result *res, struct err *e);

void ref_result_free(struct ref_result *r);
void list_result_free(struct list_result *r);
void ws_row_free(struct ws_row *w);
void removed_result_free(struct removed_result *r);
void pool_result_free(struct pool_result *r);
void trust_result_free(struct trust_result *r);
void resident_result_free(struct resident_result *r);
void exec_result_free(struct exec_result *r);
void read_result_free(struct read_result *r);
void write_result_free(struct write_result *r); /* owns nothing: for symmetry */
void edit_result_free(struct edit_result *r);
void glob_result_free(struct glob_result *r);
void grep_result_free(struct grep_result *r);
void jobs_result_free(struct jobs_result *r);
void logs_result_free(struct logs_result *r);
void kill_result_free(struct kill_result *r); /* owns nothing */
void wait_result_free(struct wait_result *r); /* owns nothing */
void cp_result_free(struct cp_result *r);
void diff_result_free(struct diff_result *r);
void apply_result_free(struct apply_result *r);
void doctor_result_free(struct doctor_result *r);
void snapshot_result_free(struct snapshot_result *r);
void snapshots_result_free(struct snapshots_result *r);

/* The CLI's text. exec's output went out live: its text is what became
 * of the command, when that is not its own status. run_left says on err
 * that run could not remove its workspace, in text and --json alike. */
void run_left(FILE *err, const struct exec_result *r);
void ref_text(FILE *out, FILE *err, const struct ref_result *r);
/* A workspace made on first use (exec, a file tool), on stderr: the
 * command line's app.created. */
void created_text(const char *ref);
void list_text(FILE *out, FILE *err, const struct list_result *r);
void removed_text(FILE *out, FILE *err, const struct removed_result *r);
void pool_text(FILE *out, FILE *err, const struct pool_result *r);
void trust_text(FILE *out, FILE *err, const struct trust_result *r);
void resident_text(FILE *out, FILE *err, const struct resident_result *r);
void exec_text(FILE *out, FILE *err, const struct exec_result *r);
void read_text(FILE *out, FILE *err, const struct read_result *r);
void write_text(FILE *out, FILE *err, const struct write_result *r);
void edit_text(FILE *out, FILE *err, const struct edit_result *r);
void glob_text(FILE *out, FILE *err, const struct glob_result *r);
void grep_text(FILE *out, FILE *err, const struct grep_result *r);
void jobs_text(FILE *out, FILE *err, const struct jobs_result *r);
/* logs: the bytes went out as they came; this says what else there is. */
void logs_text(FILE *out, FILE *err, const struct logs_result *r);
void kill_text(FILE *out, FILE *err, const struct kill_result *r);
void wait_text(FILE *out, FILE *err, const struct wait_result *r);
void cp_text(FILE *out, FILE *err, const struct cp_result *r);
void diff_text(FILE *out, FILE *err, const struct diff_result *r);
void apply_text(FILE *out, FILE *err, const struct apply_result *r);
/* "ok    NAME: DETAIL", "FAIL  NAME: DETAIL; FIX", "skip  NAME: WHY". */
void doctor_text(FILE *out, FILE *err, const struct doctor_result *r);
/* snapshot: NAME; fork: the new ref; on err a line for each mount left
 * out of the snapshot. */
void snapshot_text(FILE *out, FILE *err, const struct snapshot_result *r);
/* "NAME WORKSPACE AGE SIZE" under a header. */
void snapshots_text(FILE *out, FILE *err, const struct snapshots_result *r);

/* The --json object, into *t (zeroed; jvb_free it). */
void ref_tree(struct jv *t, const struct ref_result *r);
void list_tree(struct jv *t, const struct list_result *r);
void pool_tree(struct jv *t, const struct pool_result *r);
void removed_tree(struct jv *t, const struct removed_result *r);
void trust_tree(struct jv *t, const struct trust_result *r);
void resident_tree(struct jv *t, const struct resident_result *r);
void exec_tree(struct jv *t, const struct exec_result *r);
void read_tree(struct jv *t, const struct read_result *r);
void write_tree(struct jv *t, const struct write_result *r);
void edit_tree(struct jv *t, const struct edit_result *r);
void glob_tree(struct jv *t, const struct glob_result *r);
void grep_tree(struct jv *t, const struct grep_result *r);
void jobs_tree(struct jv *t, const struct jobs_result *r);
void logs_tree(struct jv *t, const struct logs_result *r);
void kill_tree(struct jv *t, const struct kill_result *r);
void wait_tree(struct jv *t, const struct wait_result *r);
void cp_tree(struct jv *t, const struct cp_result *r);
void diff_tree(struct jv *t, const struct diff_result *r);
void apply_tree(struct jv *t, const struct apply_result *r);
void doctor_tree(struct jv *t, const struct doctor_result *r);
void snapshot_tree(struct jv *t, const struct snapshot_result *r);
void snapshots_tree(struct jv *t, const struct snapshots_result *r);

/* The text for the model, appended to out: the MCP tools'. */
void exec_model(struct sbuf *out, const struct exec_result *r);
void read_model(struct sbuf *out, const struct read_result *r);
void write_model(struct sbuf *out, const struct write_result *r);
void edit_model(struct sbuf *out, const struct edit_result *r);
void diff_model(struct sbuf *out, const struct diff_result *r);
void glob_model(struct sbuf *out, const struct glob_result *r);
void grep_model(struct sbuf *out, const struct grep_result *r);
void jobs_model(struct sbuf *out, const struct jobs_result *r);
void logs_model(struct sbuf *out, const struct logs_result *r);
void kill_model(struct sbuf *out, const struct kill_result *r);

/* Whether an MCP client is told the call failed (isError): exec's
 * command failed or timed out; the job is still alive after KILL. No
 * match is an answer, not a failure. */
bool exec_is_error(const struct exec_result *r);
bool kill_is_error(const struct kill_result *r);

/* Each result's type, as the rows of opts.c name them: made in the
 * present_*.c of its family. */
extern const struct result_type ref_result_type, list_result_type, removed_result_type,
	pool_result_type, snapshot_result_type, snapshots_result_type;
extern const struct result_type trust_result_type, doctor_result_type, resident_result_type;
extern const struct result_type exec_result_type;
extern const struct result_type read_result_type, write_result_type, edit_result_type,
	glob_result_type, grep_result_type;
extern const struct result_type jobs_result_type, logs_result_type, kill_result_type,
	wait_result_type;
extern const struct result_type cp_result_type, diff_result_type, apply_result_type;

/* run's finish (its row's): run_left on stderr, after the result or the
 * error. */
void run_finish(const void *r);

/* The commands with no result: what they show is their own (a terminal,
 * JSON-RPC on stdout). */
int cmd_shell(struct app *a, struct err *e);
int cmd_mcp(struct app *a, struct err *e);
/* history: the record of calls (history.h), as it shows it itself. */
int cmd_history(struct app *a, struct err *e);
/* forward (cmd_forward.c): runs until a signal; its status. */
int cmd_forward(struct app *a, struct err *e);
/* net (cmd_net.c): the connections of network allow; net serve, a proxy. */
int cmd_net(struct app *a, struct err *e);

#endif
