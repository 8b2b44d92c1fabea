/* job.h: background jobs as the host sees them: their ids, their
 * states, signal names, and the answers of the job scripts (scripts.h),
 * which come from the workspace and are checked as hostile input. No
 * I/O: cmd_job.c runs the scripts. */
#ifndef SANDBOX_JOB_H
#define SANDBOX_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* A job id: the number exec --background printed, 1 to 999999999, as
 * the workspace's directory of it is named. */
#define JOB_ID_LEN 9
bool job_id_ok(const char *s);

enum job_phase { JOB_RUNNING, JOB_EXITED, JOB_KILLED, JOB_LOST };

struct job_state {
	enum job_phase phase;
	int code;          /* JOB_EXITED: the status; JOB_KILLED: the signal */
	bool done;         /* its output is all kept (the cappers ended) */
	bool alive;        /* its runner lives */
};

/* "J EXIT ALIVE DONE" (SCRIPT_JOB_POLL): 0, or -1 when it is not that. A
 * status above 128 is a signal's, as a shell reports it: 137 is KILL. */
int job_state_parse(const char *line, struct job_state *st);
/* "running", "exited", "killed", "lost". */
const char *job_phase_name(enum job_phase p);
/* As `jobs` shows it: "running", "exited 3", "killed TERM", "lost". */
void job_state_text(struct sbuf *out, const struct job_state *st);
/* What wait, and logs --follow, exit with: the status; 128+N for a
 * signal; 255 for a lost job (the workspace stopped while it ran). */
int job_exit_status(const struct job_state *st);
/* Ended: it will not change any more. */
bool job_ended(const struct job_state *st);

/* A line of SCRIPT_JOBS: "N START EXIT ALIVE DONE CMD". */
struct job_row {
	char id[JOB_ID_LEN + 1];
	long long started;     /* seconds since the epoch; -1 unknown */
	struct job_state st;
	char *command;         /* owned; as exec --background showed it */
};
/* The command as a job keeps it, one line of at most JOB_CMD_MAX bytes:
 * control bytes become \ escapes, longer ones end in "...". */
#define JOB_CMD_MAX 200
void job_command_line(struct sbuf *out, char *const *argv, size_t n);
int job_row_parse(const char *line, size_t len, struct job_row *r);

/* A signal, by name (TERM, SIGTERM, term) or number (1 to 64): its
 * number, or -1. */
int job_signal_number(const char *s);
/* Its name without SIG, or NULL for one without a name. */
const char *job_signal_name(int sig);

/* The answer of SCRIPT_JOB_POLL after its first line: for each stream
 * asked for, "S START LEN MORE END\n" and LEN bytes. Fed as it arrives;
 * bytes go to data(stream 1 or 2) as they come. */
struct job_stream {
	unsigned long long start, len, more; /* of the stream's frame */
	unsigned long long end;  /* the stream's end, as the script saw it */
	unsigned long long max;  /* the most bytes asked for (LEN above: bad) */
	bool asked, seen;
};
struct job_reader {
	struct job_stream s[2];  /* stdout, stderr */
	int cur;                 /* the stream being read: 0, 1; 2 finished */
	unsigned long long left; /* its bytes still to come */
	char line[64];
	size_t fill;
	bool in_data, bad;
	bool stopped;            /* data said stop (our stdout closed) */
	int (*data)(void *ctx, int stream, const char *buf, size_t n);
	void *ctx;
};
void job_reader_init(struct job_reader *r, unsigned long long max_out,
		     unsigned long long max_err);
/* -1 when the answer is not what was asked for (r->bad), or data said
 * stop. */
int job_reader_feed(struct job_reader *r, const char *buf, size_t n);
/* Whether every stream asked for came whole. */
bool job_reader_complete(const struct job_reader *r);

#endif
