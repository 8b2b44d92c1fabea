/* cmd_file.c: `read` and `write`, file contents in and out of the
 * workspace, streamed: memory stays flat whatever the file's size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "feed.h"
#include "opt_id.h"
#include "results.h"
#include "sha256.h"
#include "scripts.h"
#include "tools.h"
#include "utf8.h"

#define READ_LINE_MAX 2000   /* characters shown of one line */
/* Bytes of numbered lines one read shows, whatever --limit says: with
 * the line cap, what the host holds stays small however large the file,
 * and its JSON (at most 6 bytes a byte) too. */
#define READ_TEXT_MAX (1024 * 1024)

struct reader {
	struct app *a;
	long offset, end;        /* the lines shown: [offset, end) */
	struct sbuf probe;       /* the start of the file, until it is judged */
	bool judged, binary;
	struct sha256 hash;
	unsigned long long bytes;
	long line;               /* number of the line being read, from 1 */
	struct utf8_count chars; /* of it, so far */
	bool line_open;          /* bytes of the current line were seen */
	struct sbuf text;        /* the numbered lines shown */
	long shown;
};

static bool shown_line(const struct reader *r)
{
	return r->line >= r->offset && r->line < r->end;
}

/* Ends a shown line: the note for a cut one, the newline. */
static void end_line(struct reader *r)
{
	if (r->chars.chars > READ_LINE_MAX) {
		size_t more = r->chars.chars - READ_LINE_MAX;
		sbuf_addf(&r->text, " [... line cut: %zu more character%s]", more,
			  more == 1 ? "" : "s");
	}
	sbuf_addc(&r->text, '\n');
	r->shown++;
}

/* Adds the bytes of a shown line up to READ_LINE_MAX characters (see
 * utf8_count: stray continuation bytes count one each). */
static void add_chars(struct reader *r, const char *buf, size_t n)
{
	sbuf_add(&r->text, buf, utf8_count(&r->chars, buf, n, READ_LINE_MAX));
}

/* Starts a line. Once READ_TEXT_MAX bytes are shown, no more lines are,
 * and the note says where to go on. */
static void begin_line(struct reader *r)
{
	r->line_open = true;
	r->chars = (struct utf8_count){0};
	if (!shown_line(r))
		return;
	if (r->text.len >= READ_TEXT_MAX) {
		r->end = r->line;
		return;
	}
	sbuf_addf(&r->text, "%6ld\t", r->line);
}

/* Feeds bytes of the file, split into numbered lines. */
static void read_lines(struct reader *r, const char *buf, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (!r->line_open)
			begin_line(r);
		const char *nl = memchr(buf + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - buf) : n;
		if (shown_line(r))
			add_chars(r, buf + i, end - i);
		i = end;
		if (nl) {
			if (shown_line(r))
				end_line(r);
			r->line++;
			r->line_open = false;
			i++;
		}
	}
}

static void judge(struct reader *r)
{
	r->judged = true;
	r->binary = tool_is_binary(r->probe.buf, r->probe.len);
	if (!r->binary)
		read_lines(r, r->probe.buf ? r->probe.buf : "", r->probe.len);
	sbuf_free(&r->probe);
}

static int read_body(void *ctx, const char *buf, size_t n)
{
	struct reader *r = ctx;
	sha256_update(&r->hash, buf, n);
	r->bytes += n;
	if (r->judged) {
		read_lines(r, buf, n);
		return 0;
	}
	sbuf_add(&r->probe, buf, n);
	if (r->probe.len >= TOOL_PROBE)
		judge(r);
	return r->binary ? -1 : 0; /* a binary file: no need for the rest */
}

static int raw_body(void *ctx, const char *buf, size_t n)
{
	(void)ctx;
	return spawn_write_out(1, buf, n);
}

/* Ends the last line and hands what was shown to res. */
static void read_fill(struct reader *r, struct read_result *res)
{
	long total = r->line - 1 + (r->line_open ? 1 : 0);
	if (r->line_open && shown_line(r))
		end_line(r);
	res->content = r->text;
	r->text = (struct sbuf){0};
	res->start_line = r->offset;
	res->lines = r->shown;
	res->total_lines = total;
	res->size = r->bytes;
}

/* Runs the read script; lone: it may go lone on a channel, fast, with
 * no size in its head ("S -"). */
static int read_in(struct app *a, struct ws *ws, const char *path, bool lone,
		   struct read_result *res, struct err *e)
{
	char *arg = tool_arg_path(path, e);
	if (!arg)
		return -1;
	struct reader r = {.a = a, .offset = a->o.read.offset, .end = a->o.read.offset + a->o.read.limit, .line = 1};
	sha256_init(&r.hash);
	struct tool_out out = {.body = a->o.read.raw ? raw_body : read_body, .ctx = &r, .lone = lone};
	int rc = tool_run(a, ws, PROTO_READ, &arg, 1, NULL, false, &out, e);
	free(arg);
	if (rc == 0)
		rc = tool_refusal(out.head.buf ? out.head.buf : "", path, e);
	if (rc == 0 && strncmp(out.head.buf ? out.head.buf : "", "S ", 2) != 0)
		rc = err_set(e, ERR_WORKSPACE, "unexpected answer from the read script");
	/* Without the size ("S -", a lone read), the bytes counted stand for
	 * it: a file that grows or shrinks while it is read is shown as cat
	 * read it, where a size taken first would call it changed. A binary
	 * file, whose bytes are not all read, is asked for again the other
	 * way, for its size. */
	bool sized = rc == 0 && strcmp(out.head.buf, "S -") != 0;
	bool again = false;
	if (rc == 0 && !a->o.read.raw) {
		if (!r.judged)
			judge(&r);
		unsigned long long size = sized ? strtoull(out.head.buf + 2, NULL, 10) : r.bytes;
		struct sbuf shown = {0};
		tool_show_path(&shown, path, false);
		long total = r.line - 1 + (r.line_open ? 1 : 0);
		if (r.binary && !sized)
			again = true;
		else if (r.binary && opt_say(a, O_RAW))
			rc = err_set(e, ERR_FAILED, "%s: binary file (%llu bytes); use %s for its bytes",
				     shown.buf, size, opt_say(a, O_RAW));
		else if (r.binary)
			rc = err_set(e, ERR_FAILED, "%s: binary file (%llu bytes); use exec to look at it (od, base64)",
				     shown.buf, size);
		else if (r.bytes != size)
			rc = err_set(e, ERR_FAILED, "%s: changed while it was read (%llu bytes, then %llu); read it again",
				     shown.buf, size, r.bytes);
		else if (r.offset > 1 && r.offset > total)
			rc = err_set(e, ERR_USAGE, "%s: %s %ld is past the end (%ld lines)",
				     shown.buf, opt_say(a, O_OFFSET), r.offset, total);
		else {
			unsigned char digest[32];
			sha256_final(&r.hash, digest);
			sha256_hex(digest, res->sha256);
			read_fill(&r, res);
		}
		sbuf_free(&shown);
	}
	sbuf_free(&r.text);
	sbuf_free(&r.probe);
	tool_out_free(&out);
	return again ? read_in(a, ws, path, false, res, e) : rc;
}

int tool_one_path(struct app *a, const char **path, struct err *e)
{
	if (a->o.args.n != 1)
		return err_set(e, ERR_USAGE, a->o.args.n ? "give one path" : "which file? give its path");
	*path = a->o.args.v[0];
	return 0;
}

int do_read(struct app *a, struct read_result *res, struct err *e)
{
	*res = (struct read_result){0};
	const char *path = NULL;
	if (tool_one_path(a, &path, e) < 0)
		return -1;
	if (a->o.read.raw && a->json)
		return err_set(e, ERR_USAGE, "--raw writes the file's bytes; it does not go with --json");
	struct ws ws;
	if (ws_select(a, &ws, e) < 0)
		return -1;
	int rc = read_in(a, &ws, path, true, res, e);
	ws_free(&ws);
	res->workspace = a->ws_name;
	res->path = path;
	res->raw = a->o.read.raw;
	if (rc < 0)
		read_result_free(res);
	return rc;
}

int tool_write(struct app *a, struct ws *ws, const char *path, struct feed *feed,
	       unsigned long long direct, const char *expect_sha, char sha[65],
	       bool *created, struct err *e)
{
	/* "dir/" names a directory: BusyBox's mv would move the file into it. */
	size_t plen = strlen(path);
	if (plen && path[plen - 1] == '/')
		return err_set(e, ERR_FAILED, "%s: is a directory", path);
	char suffix[17];
	if (random_hex(suffix, 16) < 0)
		return err_set(e, ERR_FAILED, "cannot read /dev/urandom");
	char *arg = tool_arg_path(path, e);
	if (!arg)
		return -1;
	char size[24] = "";
	if (!feed)
		snprintf(size, sizeof(size), "%llu", direct);
	else if (feed->tail) {
		snprintf(feed->tag, sizeof(feed->tag), "%s", suffix);
		snprintf(size, sizeof(size), "t");
	}
	char *args[] = {arg, suffix, (char *)(expect_sha ? expect_sha : ""), size};
	struct tool_out out = {0};
	int rc = tool_run(a, ws, PROTO_WRITE, args, ARRAY_LEN(args), feed, !feed, &out, e);
	free(arg);
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0 && feed && feed->src_errno)
		rc = err_set(e, ERR_FAILED, "cannot read the input: %s; the file is unchanged",
			     strerror(feed->src_errno));
	if (rc == 0)
		rc = tool_refusal(head, path, e);
	int c = -1;
	if (rc == 0 && sscanf(head, "OK %d", &c) != 1)
		rc = err_set(e, ERR_WORKSPACE, "unexpected answer from the write script");
	if (rc == 0) {
		/* The frames made sure that all of it arrived: the hash of what
		 * was sent is the file's. */
		unsigned char digest[32];
		sha[0] = '\0';
		if (feed && feed->hashing) {
			sha256_final(&feed->hash, digest);
			sha256_hex(digest, sha);
		}
		*created = c == 1;
	}
	tool_out_free(&out);
	return rc;
}

/* Bytes left in stdin when it is a regular file, or -1. */
static long long stdin_file_size(void)
{
	struct stat st;
	if (fstat(0, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	off_t pos = lseek(0, 0, SEEK_CUR);
	return (long long)st.st_size - (pos > 0 ? (long long)pos : 0);
}

int do_write(struct app *a, struct write_result *res, struct err *e)
{
	*res = (struct write_result){0};
	const char *path = NULL;
	if (tool_one_path(a, &path, e) < 0)
		return -1;
	/* Reading a terminal would wait for typing, a prompt in disguise. */
	if (!a->o.write.content && isatty(0))
		return err_set(e, ERR_USAGE, "no content: give --content TEXT, or the bytes on stdin");
	/* A regular file whose hash nobody asked for goes to the engine client
	 * as its stdin, unframed: it reads a file faster than a pipe, and the
	 * size, known beforehand, tells a whole copy from a cut one. */
	long long direct = a->o.write.content || a->json ? -1 : stdin_file_size();
	struct feed feed;
	if (a->o.write.content) {
		feed_init_buf(&feed, a->o.write.content, strlen(a->o.write.content));
		feed.hashing = a->json; /* only JSON shows it */
	} else if (direct < 0 && stdin_file_size() < 0) {
		/* A pipe: its end says how much it was; the tag comes with
		 * the call (tool_write). */
		feed_init_tail(&feed, 0, "", a->json);
	} else {
		feed_init_fd(&feed, 0);
		feed.hashing = a->json;
	}
	struct ws ws;
	if (ws_select(a, &ws, e) < 0) {
		feed_free(&feed);
		return -1;
	}
	int rc = tool_write(a, &ws, path, direct >= 0 ? NULL : &feed,
			    direct >= 0 ? (unsigned long long)direct : 0, NULL, res->sha256,
			    &res->created, e);
	res->workspace = a->ws_name;
	res->path = path;
	res->bytes = direct >= 0 ? (unsigned long long)direct : feed.sent;
	feed_free(&feed);
	ws_free(&ws);
	return rc;
}
