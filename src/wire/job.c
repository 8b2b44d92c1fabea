/* job.c: see job.h. */
#include "job.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool job_id_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > JOB_ID_LEN || s[0] == '0')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* A decimal number of at most max_digits digits, the whole of [s, s+n). */
static bool digits(const char *s, size_t n, size_t max_digits, long long *out)
{
	if (n == 0 || n > max_digits)
		return false;
	long long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

/* The next space-separated field of [*p, end): its start and length. */
static bool field(const char **p, const char *end, const char **f, size_t *n)
{
	const char *s = *p;
	if (s >= end)
		return false;
	const char *sp = memchr(s, ' ', (size_t)(end - s));
	*f = s;
	*n = (size_t)((sp ? sp : end) - s);
	*p = sp ? sp + 1 : end;
	return true;
}

/* EXIT ALIVE DONE, each a field. */
static int state_fields(const char **p, const char *end, struct job_state *st)
{
	const char *f;
	size_t n;
	long long x = -1, alive, done;
	if (!field(p, end, &f, &n))
		return -1;
	if (!(n == 1 && f[0] == '-') && !digits(f, n, 3, &x))
		return -1;
	if (!field(p, end, &f, &n) || !digits(f, n, 1, &alive) || alive > 1)
		return -1;
	if (!field(p, end, &f, &n) || !digits(f, n, 1, &done) || done > 1)
		return -1;
	*st = (struct job_state){.done = done, .alive = alive};
	if (x < 0) {
		st->phase = alive ? JOB_RUNNING : JOB_LOST;
	} else if (x > 128 && x <= 128 + 64) {
		st->phase = JOB_KILLED;
		st->code = (int)(x - 128);
	} else if (x <= 255) {
		st->phase = JOB_EXITED;
		st->code = (int)x;
	} else {
		/* No status can be that: the workspace wrote it. */
		st->phase = alive ? JOB_RUNNING : JOB_LOST;
	}
	return 0;
}

int job_state_parse(const char *line, struct job_state *st)
{
	if (strncmp(line, "J ", 2) != 0)
		return -1;
	const char *p = line + 2, *end = line + strlen(line);
	if (end[-1] == ' ' || state_fields(&p, end, st) < 0 || p != end)
		return -1;
	return 0;
}

const char *job_phase_name(enum job_phase p)
{
	switch (p) {
	case JOB_RUNNING: return "running";
	case JOB_EXITED: return "exited";
	case JOB_KILLED: return "killed";
	default: return "lost";
	}
}

void job_state_text(struct sbuf *out, const struct job_state *st)
{
	sbuf_adds(out, job_phase_name(st->phase));
	if (st->phase == JOB_EXITED) {
		sbuf_addf(out, " %d", st->code);
	} else if (st->phase == JOB_KILLED) {
		const char *name = job_signal_name(st->code);
		if (name)
			sbuf_addf(out, " %s", name);
		else
			sbuf_addf(out, " %d", st->code);
	}
}

int job_exit_status(const struct job_state *st)
{
	switch (st->phase) {
	case JOB_EXITED: return st->code;
	case JOB_KILLED: return 128 + st->code;
	default: return 255;
	}
}

bool job_ended(const struct job_state *st)
{
	return st->phase != JOB_RUNNING;
}

void job_command_line(struct sbuf *out, char *const *argv, size_t n)
{
	size_t start = out->len;
	/* A byte shows as 4 at most: past JOB_CMD_MAX + 4 the rest is cut. */
	for (size_t i = 0; i < n && out->len - start <= JOB_CMD_MAX; i++) {
		if (i)
			sbuf_addc(out, ' ');
		for (const unsigned char *p = (const unsigned char *)argv[i];
		     *p && out->len - start <= JOB_CMD_MAX; p++) {
			if (*p == '\n')
				sbuf_adds(out, "\\n");
			else if (*p == '\t')
				sbuf_adds(out, "\\t");
			else if (*p < 0x20 || *p == 0x7f)
				sbuf_addf(out, "\\%03o", *p);
			else
				sbuf_addc(out, (char)*p);
		}
	}
	if (out->len - start > JOB_CMD_MAX) {
		/* Cut at a character's start, not inside one. */
		size_t cut = start + JOB_CMD_MAX - 3;
		while (cut > start && ((unsigned char)out->buf[cut] & 0xc0) == 0x80)
			cut--;
		out->len = cut;
		out->buf[cut] = '\0';
		sbuf_adds(out, "...");
	}
}

int job_row_parse(const char *line, size_t len, struct job_row *r)
{
	const char *p = line, *end = line + len, *f;
	size_t n;
	long long v;
	*r = (struct job_row){.started = -1};
	if (memchr(line, '\0', len))
		return -1;
	if (!field(&p, end, &f, &n) || n > JOB_ID_LEN)
		return -1;
	memcpy(r->id, f, n);
	r->id[n] = '\0';
	if (!job_id_ok(r->id))
		return -1;
	if (!field(&p, end, &f, &n))
		return -1;
	if (digits(f, n, 18, &v))
		r->started = v;
	else if (!(n == 1 && f[0] == '-'))
		return -1;
	if (state_fields(&p, end, &r->st) < 0)
		return -1;
	/* The rest is the command as the job keeps it: the workspace may
	 * have written anything there, so it is cut and made one line. */
	size_t cl = (size_t)(end - p);
	char *argv[1] = {NULL};
	char *raw = xmalloc(cl + 1);
	memcpy(raw, p, cl);
	raw[cl] = '\0';
	argv[0] = raw;
	struct sbuf c = {0};
	job_command_line(&c, argv, 1);
	free(raw);
	r->command = c.buf ? c.buf : xstrdup("");
	return 0;
}

static const struct {
	int sig;
	const char *name;
} signals[] = {
	{SIGHUP, "HUP"}, {SIGINT, "INT"}, {SIGQUIT, "QUIT"}, {SIGILL, "ILL"},
	{SIGTRAP, "TRAP"}, {SIGABRT, "ABRT"}, {SIGBUS, "BUS"}, {SIGFPE, "FPE"},
	{SIGKILL, "KILL"}, {SIGUSR1, "USR1"}, {SIGSEGV, "SEGV"}, {SIGUSR2, "USR2"},
	{SIGPIPE, "PIPE"}, {SIGALRM, "ALRM"}, {SIGTERM, "TERM"}, {SIGCHLD, "CHLD"},
	{SIGCONT, "CONT"}, {SIGSTOP, "STOP"}, {SIGTSTP, "TSTP"}, {SIGTTIN, "TTIN"},
	{SIGTTOU, "TTOU"}, {SIGURG, "URG"}, {SIGXCPU, "XCPU"}, {SIGXFSZ, "XFSZ"},
	{SIGVTALRM, "VTALRM"}, {SIGPROF, "PROF"}, {SIGWINCH, "WINCH"}, {SIGIO, "IO"},
	{SIGSYS, "SYS"},
};

int job_signal_number(const char *s)
{
	long long v;
	if (digits(s, strlen(s), 2, &v))
		return v >= 1 && v <= 64 ? (int)v : -1;
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < ARRAY_LEN(signals); i++)
		if (strcasecmp(s, signals[i].name) == 0)
			return signals[i].sig;
	return -1;
}

const char *job_signal_name(int sig)
{
	for (size_t i = 0; i < ARRAY_LEN(signals); i++)
		if (signals[i].sig == sig)
			return signals[i].name;
	return NULL;
}

/* ---- the poll script's output ---- */

void job_reader_init(struct job_reader *r, unsigned long long max_out,
		     unsigned long long max_err)
{
	*r = (struct job_reader){0};
	r->s[0].max = max_out;
	r->s[0].asked = max_out > 0;
	r->s[1].max = max_err;
	r->s[1].asked = max_err > 0;
	r->cur = r->s[0].asked ? 0 : r->s[1].asked ? 1 : 2;
}

/* The stream after cur that was asked for, or 2. */
static int next_stream(const struct job_reader *r)
{
	for (int i = r->cur + 1; i < 2; i++)
		if (r->s[i].asked)
			return i;
	return 2;
}

/* "S START LEN MORE END". */
static int frame_line(struct job_reader *r)
{
	struct job_stream *s = &r->s[r->cur];
	const char *p = r->line + 2, *end = r->line + r->fill, *f;
	size_t n;
	long long start, len, more, send;
	if (r->fill < 2 || memcmp(r->line, "S ", 2) != 0 || r->line[r->fill - 1] == ' ' ||
	    !field(&p, end, &f, &n) || !digits(f, n, 18, &start) ||
	    !field(&p, end, &f, &n) || !digits(f, n, 18, &len) ||
	    !field(&p, end, &f, &n) || !digits(f, n, 1, &more) || more > 1 ||
	    !field(&p, end, &f, &n) || !digits(f, n, 18, &send) || p != end ||
	    (unsigned long long)len > s->max || (len && start + len > send))
		return -1;
	s->end = (unsigned long long)send;
	s->start = (unsigned long long)start;
	s->len = (unsigned long long)len;
	s->more = (unsigned long long)more;
	s->seen = true;
	r->left = s->len;
	r->in_data = true;
	r->fill = 0;
	if (r->left == 0) {
		r->in_data = false;
		r->cur = next_stream(r);
	}
	return 0;
}

int job_reader_feed(struct job_reader *r, const char *buf, size_t n)
{
	while (n && !r->bad && !r->stopped) {
		if (r->cur == 2) {
			r->bad = true; /* more than was asked for */
			break;
		}
		if (r->in_data) {
			size_t take = n < r->left ? n : (size_t)r->left;
			if (r->data && r->data(r->ctx, r->cur + 1, buf, take) < 0) {
				r->stopped = true;
				return -1;
			}
			buf += take;
			n -= take;
			r->left -= take;
			if (r->left == 0) {
				r->in_data = false;
				r->cur = next_stream(r);
			}
			continue;
		}
		char c = *buf++;
		n--;
		if (c != '\n') {
			if (r->fill == sizeof(r->line) - 1) {
				r->bad = true;
				break;
			}
			r->line[r->fill++] = c;
			continue;
		}
		r->line[r->fill] = '\0';
		if (frame_line(r) < 0)
			r->bad = true;
	}
	return r->bad || r->stopped ? -1 : 0;
}

bool job_reader_complete(const struct job_reader *r)
{
	return !r->bad && r->cur == 2 && !r->in_data;
}
