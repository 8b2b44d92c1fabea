/* proto.h: the wire between the host and the scripts in the workspace
 * (scripts.h), in one place: how a call is asked for (the wrapper's
 * arguments for an engine exec of its own; a request line by line on a
 * channel), the words the scripts answer with and what each one means
 * for a call, and the server's slots. Pure: no I/O, unit-tested.
 *
 * Its two byte-level layers have files of their own: marker.h finds the
 * words ("\036TAG:WORD\036") in a stream of output, whatever the chunking;
 * feed.h frames what goes on a call's stdin. */
#ifndef SANDBOX_PROTO_H
#define SANDBOX_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#include "marker.h"
#include "util.h"

/* What a call runs: a command line, or one of our file tools' scripts
 * (then its arguments follow). A script is named, never recognised by
 * its text: on a channel it goes by its slot, with no new sh. */
enum proto_script {
	PROTO_COMMAND, /* args is a command line */
	PROTO_READ,    /* SCRIPT_READ */
	PROTO_WRITE,   /* SCRIPT_WRITE */
	PROTO_LIST,    /* SCRIPT_LIST */
	PROTO_TAR,     /* SCRIPT_TAR */
};

/* The server's slots (SCRIPT_SERVE's S0..S4, a request's "@N"): the
 * wrapper first, then each script at the number of its enum (proto.c's
 * slots[]). scripts/embed-sh writes the server's slot lines from
 * PROTO_NSLOTS: a new slot is a row of slots[] and this number, and
 * test_proto fails when they part. */
#define PROTO_SLOT_WRAPPER 0
#define PROTO_NSLOTS 5
const char *proto_slot_text(int slot);

/* The wrapper's MODE (SCRIPT_EXEC). */
enum proto_mode {
	PROTO_MODE_PLAIN,       /* an engine exec: the arguments as they are */
	PROTO_MODE_ENCODED,     /* an engine exec: CWD and arguments %b-encoded */
	PROTO_MODE_CHAN,        /* on a channel: a command line */
	PROTO_MODE_CHAN_SCRIPT, /* on a channel: a script (slot) and its arguments */
};

/* One call, as the wrapper gets it. */
struct proto_call {
	const char *workdir;      /* NULL: the container's own */
	const char *cwd;          /* NULL: the workdir; relative: under it */
	bool input;               /* the command reads stdin (after the tag) */
	enum proto_script script;
	char *const *args;        /* the command, or the script's arguments */
	size_t nargs;
	char *const *env;         /* K=V; on a channel only (through env(1)):
				   * an engine exec sets them itself */
	size_t nenv;
	/* A PROTO_READ of one path with no input may go lone on a channel
	 * (SCRIPT_SERVE): its head then says "S -", no size. */
	bool lone;
};

/* The command of an engine exec of its own: /bin/sh -c SCRIPT_EXEC sh
 * WORKDIR CWD MODE INPUT CMD..., appended to out. The engines carry
 * arguments as JSON strings, which turn bytes that are not UTF-8 into
 * U+FFFD: such a call goes encoded (PROTO_MODE_ENCODED). */
void proto_exec_argv(struct strvec *out, const struct proto_call *c);

/* The request for the call on a channel, appended to out:
 *   TAG \n  STDIN (0 or 1) \n  NARGS \n  then NARGS values, one a line:
 *   "=VALUE" as it is, "@N" slot N, or "\\" and the value for printf %b
 *   (one holding a newline, or ending in a byte over 0x7f, which bash's
 *   `read -r` may join to the newline in a UTF-8 locale).
 * The values are the wrapper's command line, its own script by slot. */
void proto_request(struct sbuf *out, const char *tag, const struct proto_call *c);
/* Whether the call goes lone (STDIN r): WORKDIR, CWD and the path. */
bool proto_call_lone(const struct proto_call *c);

/* The pieces of a request, for a request of any argv (and the tests). */
void proto_request_head(struct sbuf *out, const char *tag, bool with_stdin, size_t nvalues);
void proto_request_value(struct sbuf *out, const char *v);
void proto_request_slot(struct sbuf *out, int slot);

/* The channel's server: /bin/sh -c SCRIPT_SERVE sandbox-chan TAG S0..S4;
 * kept (the resident's): sandbox-kept, and while it waits for a request
 * it is no sign of use to the workspace's idle clock. */
void proto_serve_argv(struct strvec *out, const char *tag, bool kept);

/* The kill of a call's process group (lone: of the process alone):
 * /bin/sh -c SCRIPT_KILL sandbox-kill PGID [p]; its answer, out[0, n),
 * "k" when it starts and then "gone", says it is gone (anything else: it
 * may be alive). */
void proto_kill_argv(struct strvec *out, long pgid, bool lone);
bool proto_kill_gone(const char *out, size_t n);

/* The words markers carry. */
enum proto_word_kind {
	PROTO_W_UNKNOWN,  /* not ours, or a number out of range: ignored */
	PROTO_W_OK,       /* the server is up */
	PROTO_W_NOSETSID, /* the server cannot run calls: no setsid */
	PROTO_W_READY,    /* the wrapper entered the workdir and runs it */
	PROTO_W_NOCWD,    /* the working directory does not exist */
	PROTO_W_OOM,      /* an out-of-memory kill happened while it ran */
	PROTO_W_PID,      /* pid:PGID, the call's process group (2..2^30) */
	PROTO_W_PROC,     /* proc:PID, a lone call's process, in no group of its own */
	PROTO_W_DONE,     /* done:STATUS, the command's status (0..255) */
	PROTO_W_BEGIN,    /* a channel's call begins */
	PROTO_W_END,      /* end:STATUS, a channel's call ended (0..255) */
};
struct proto_word {
	enum proto_word_kind kind;
	long num; /* with PID, DONE, END */
};
struct proto_word proto_word_parse(const char *word);

/* What a call's reply said so far, from the words of its two streams
 * (1: stdout, 2: stderr). Only the words that count, where they count:
 * ready, nocwd, oom and pid on stderr; the first pid (or proc, on a
 * channel); begin and end on a channel, end only after begin. */
struct proto_reply {
	bool on_chan;
	bool ready, nocwd, oom;
	long pgid; /* 0 until said */
	bool lone; /* pgid is a process's, which leads no group */
	struct proto_reply_stream {
		bool done, begun, ended;
		int status, end_status;
	} s[2];
};
void proto_reply_init(struct proto_reply *r, bool on_chan);
void proto_reply_word(struct proto_reply *r, int stream, const char *word);

/* Whose the bytes of a stream are, now. */
enum proto_data {
	PROTO_DATA_NONE,   /* nobody's: a background process's, outside the call */
	PROTO_DATA_ENGINE, /* the engine's own words (stderr before ready) */
	PROTO_DATA_OUT,    /* the command's output */
};
enum proto_data proto_reply_data(const struct proto_reply *r, int stream);
/* Both done markers came: the command's status is s[1].status. */
bool proto_reply_done(const struct proto_reply *r);
/* On a channel, both end markers came: the server is ready for more. */
bool proto_reply_ended(const struct proto_reply *r);

/* A reply as bytes: both streams' marker scanners and the reply state;
 * the bytes that are not markers go to data, with whose they are. */
struct proto_reader {
	struct proto_reply reply;
	struct marker_scan scan[2];
	struct proto_side {
		struct proto_reader *rd;
		int stream;
	} side[2];
	void (*data)(void *ctx, int stream, enum proto_data whose, const char *buf, size_t n);
	void *ctx;
};
void proto_reader_init(struct proto_reader *rd, const char *tag, bool on_chan,
		       void (*data)(void *ctx, int stream, enum proto_data whose,
				    const char *buf, size_t n),
		       void *ctx);
void proto_reader_feed(struct proto_reader *rd, int stream, const char *buf, size_t n);
/* At the end: held-back bytes that were no marker after all. */
void proto_reader_flush(struct proto_reader *rd);

#endif
