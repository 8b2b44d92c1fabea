/* cmd_cp.c: `cp`, files and directory trees between the host and a
 * workspace, as tar streams through the engine's exec (so a remote
 * daemon does as well as a local one). Out of the workspace, the stream
 * is hostile: it is read with tar.h and written by extract.h, which
 * keeps every entry under the destination. Into it, a child process of
 * ours writes the stream (tarw.h) into a pipe that feeds the script's
 * stdin, so that memory stays flat and the engine client reads as fast
 * as the disk gives. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "copy.h"
#include "extract.h"
#include "hostdir.h"
#include "feed.h"
#include "results.h"
#include "scripts.h"
#include "sha256.h"
#include "spawn.h"
#include "tar.h"
#include "tarw.h"
#include "tools.h"

#define CP_BUF (1024 * 1024)
/* What a directory, a link or any entry but a file's data costs, as
 * --max-size counts it: a block of the disk it lands on. */
#define CP_ENTRY_COST 4096

/* One side of the command line: the host's path, or the workspace's. */
struct cp_spec {
	const char *arg;     /* as given */
	bool ws;             /* REF:PATH or :PATH */
	char *ref;           /* REF; NULL for :PATH (owned) */
	char *path;          /* the path on its side (owned) */
	bool stream;         /* "-": a tar stream on stdin or stdout */
};

static void spec_free(struct cp_spec *s)
{
	free(s->ref);
	free(s->path);
}

/* REF:PATH when what comes before the first ':' holds no '/': a host
 * path with a ':' is written ./a:b. */
static void spec_parse(const char *arg, struct cp_spec *s)
{
	*s = (struct cp_spec){.arg = arg};
	const char *colon = strchr(arg, ':');
	if (strcmp(arg, "-") == 0) {
		s->stream = true;
		s->path = xstrdup("-");
	} else if (colon && !memchr(arg, '/', (size_t)(colon - arg))) {
		s->ws = true;
		s->ref = colon > arg ? xstrndup(arg, (size_t)(colon - arg)) : NULL;
		s->path = xstrdup(*(colon + 1) ? colon + 1 : ".");
	} else {
		s->path = xstrdup(arg);
	}
}

/* A source path's form: "DIR/." (or ".") stands for the directory's
 * contents; trailing slashes go. *base gets the last name. */
static bool src_contents(char *path, const char **base)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	bool contents = false;
	if (strcmp(path, ".") == 0 || strcmp(path, "/") == 0 || strcmp(path, "..") == 0 ||
	    (n >= 2 && strcmp(path + n - 2, "/.") == 0) || (n >= 3 && strcmp(path + n - 3, "/..") == 0)) {
		contents = true;
		if (n >= 2 && strcmp(path + n - 2, "/.") == 0) {
			path[n - 2] = '\0';
			if (!*path)
				strcpy(path, "/");
		}
	}
	const char *slash = strrchr(path, '/');
	*base = slash && slash[1] ? slash + 1 : path;
	return contents;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* ---- out of the workspace ---- */

struct cp_out {
	struct app *a;
	struct cp_result *res;
	const struct tool_out *out;
	const char *src_base;   /* the name the stream's top has; NULL: contents */
	bool contents;
	const char *dest;       /* the host path */
	bool dest_dir;          /* dest exists as a directory */
	bool started, failed;
	struct err err;         /* the first failure */
	int root;
	/* Everything is extracted under root/stage_name, then moved into
	 * root when whole, so that a stop leaves DEST as it was. */
	int stage_fd;
	char stage_name[40];
	char *made;             /* DEST, when this cp made it; owned */
	unsigned long long bytes, next_look; /* of files, for max_size and the reserve */
	struct extract x;
	bool have_x;
	/* DEST "-": the stream, rewritten */
	bool stream;
	struct tarw w;
	struct sbuf clean, mapped;
	struct tar_reader *tr;
	char *top_as;           /* owned */
};

static int stdout_out(void *ctx, const char *buf, size_t n)
{
	(void)ctx;
	return spawn_write_out(1, buf, n);
}

/* The answer line says what the path is: where its stream goes follows
 * (docker cp's rules, see the man page). */
static int out_start(struct cp_out *c)
{
	const char *head = c->out->head.buf ? c->out->head.buf : "";
	c->started = true;
	char kind = strncmp(head, "OK ", 3) == 0 && strlen(head) == 4 ? head[3] : 0;
	if (kind != 'D' && kind != 'F' && kind != 'L')
		return err_set(&c->err, ERR_WORKSPACE, "unexpected answer from the cp script");
	if (c->stream) {
		tarw_init(&c->w, stdout_out, NULL);
		c->top_as = c->contents ? NULL : xstrdup(c->src_base);
		return 0;
	}
	const char *dest = c->dest;
	size_t dn = strlen(dest);
	bool slash = dn && dest[dn - 1] == '/';
	struct stat st;
	bool exists = stat(dest, &st) == 0;
	char *top_as = NULL;
	if (exists && S_ISDIR(st.st_mode)) {
		c->root = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		top_as = c->contents ? NULL : xstrdup(c->src_base);
	} else if (exists && kind == 'D') {
		return err_set(&c->err, ERR_FAILED, "%s: not a directory: a directory cannot be copied onto it", dest);
	} else if (!exists && errno != ENOENT) {
		return err_set(&c->err, ERR_FAILED, "%s: %s", dest, strerror(errno));
	} else if (!exists && slash && kind != 'D') {
		return err_set(&c->err, ERR_FAILED, "%s: no such directory", dest);
	} else {
		char *trimmed = xstrdup(dest);
		for (size_t n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/';)
			trimmed[--n] = '\0';
		char *parent = dir_of(trimmed);
		if (c->contents) {
			if (mkdir(trimmed, 0700) == 0)
				c->made = xstrdup(trimmed);
			else if (errno != EEXIST)
				c->root = -1;
			if (c->made || errno == EEXIST)
				c->root = open(trimmed, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else {
			c->root = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			top_as = xstrdup(base_of(trimmed));
		}
		free(parent);
		free(trimmed);
	}
	if (c->root < 0) {
		free(top_as);
		return err_set(&c->err, ERR_FAILED, "%s: %s", dest,
			       errno == ENOENT ? "no such directory" : strerror(errno));
	}
	c->top_as = top_as;
	if (hostdir_name(c->stage_name, sizeof(c->stage_name), EXTRACT_TMP) < 0)
		return err_set(&c->err, ERR_FAILED, "cannot read /dev/urandom");
	if ((c->stage_fd = hostdir_stage(c->root, c->stage_name)) < 0) {
		c->stage_name[0] = '\0';
		return err_set(&c->err, ERR_FAILED, "%s: cannot write in it: %s", dest, strerror(errno));
	}
	extract_init(&c->x, c->stage_fd, c->contents ? NULL : c->src_base, c->top_as);
	c->x.top_only = kind != 'D';
	c->have_x = true;
	return 0;
}

/* DEST "-": each entry checked as extract would, then written anew. */
static int stream_entry(struct cp_out *c, const char *name, char type)
{
	const char *why = extract_name(name, &c->clean);
	if (!why)
		why = extract_map(c->clean.buf, c->contents ? NULL : c->src_base, c->top_as, &c->mapped);
	const char *link = c->tr->link;
	struct sbuf lclean = {0}, lmapped = {0};
	if (!why && type == '1') {
		why = extract_name(link, &lclean);
		if (!why)
			why = extract_map(lclean.buf, c->contents ? NULL : c->src_base, c->top_as, &lmapped);
		if (why)
			why = "a hard link to a file outside the copy";
		link = lmapped.buf;
	}
	int rc = 0;
	if (why) {
		struct sbuf shown = {0};
		tool_show_path(&shown, name, false);
		err_set(&c->err, ERR_FAILED, "%s: %s", shown.buf, why);
		sbuf_free(&shown);
		rc = -1;
	} else if (type == '3' || type == '4' || type == '6') {
		c->res->skipped++;
	} else if (!strchr("01257", type)) {
		rc = err_set(&c->err, ERR_FAILED, "an entry of a type cp does not know ('%c')",
			     type >= 0x20 && type < 0x7f ? type : '?');
	} else {
		char t = type == '\0' || type == '7' ? '0' : type;
		const char *nm = *c->mapped.buf ? c->mapped.buf : ".";
		if (tarw_entry(&c->w, nm, t, c->tr->mode & 0777, c->tr->mtime,
			       t == '0' ? c->tr->entry_size : 0, t == '1' || t == '2' ? link : NULL) < 0)
			rc = err_set(&c->err, ERR_FAILED, "cannot write the output");
		c->res->files += t == '0';
		c->res->dirs += t == '5';
		c->res->links += t == '1' || t == '2';
	}
	sbuf_free(&lclean);
	sbuf_free(&lmapped);
	return rc;
}

/* n more bytes of files: under max_size, and (DEST a directory) above
 * its filesystem's reserve, looked at each MiB. */
static int cp_room(struct cp_out *c, unsigned long long n, bool look)
{
	long long max = c->a->cfg.max_size;
	if (max > 0 && c->bytes + n > (unsigned long long)max)
		return err_set(&c->err, ERR_FAILED, "the copy comes to more than max_size, %.1f MiB (a sparse "
			       "file counts in full); nothing was written: pass --max-size", max / 1048576.0);
	if (c->stream || !(look || c->bytes + n >= c->next_look))
		return 0;
	c->next_look = c->bytes + n + (1 << 20);
	unsigned long long avail, reserve;
	int rc = disk_room(c->root, look ? n : 0, &avail, &reserve);
	if (rc < 0)
		return err_set(&c->err, ERR_FAILED, "%s: %s", c->dest, strerror(errno));
	if (rc > 0)
		return err_set(&c->err, ERR_FAILED, "%s's filesystem would fall under the %.1f MiB it keeps "
			       "free (a twentieth of it; %.1f MiB free); nothing was written", c->dest,
			       reserve / 1048576.0, avail / 1048576.0);
	return 0;
}

static int tar_entry_cb(void *ctx, const char *name, char type, unsigned long long size)
{
	struct cp_out *c = ctx;
	/* What a file's header says it brings, before any of it; any other
	 * entry costs the disk a block. */
	bool file = type == '0' || type == '\0' || type == '7';
	if (cp_room(c, file ? size : CP_ENTRY_COST, true) < 0)
		return -1;
	if (!file)
		c->bytes += CP_ENTRY_COST;
	if (c->stream)
		return stream_entry(c, name, type);
	return extract_entry(&c->x, name, type, c->tr->mode, c->tr->mtime, c->tr->link, &c->err);
}

static int tar_data_cb(void *ctx, const char *buf, size_t n)
{
	struct cp_out *c = ctx;
	if (cp_room(c, n, false) < 0)
		return -1;
	c->bytes += n;
	if (c->stream) {
		if (c->w.left == 0)
			return 0; /* a skipped entry's */
		c->res->bytes += n;
		return tarw_data(&c->w, buf, n) < 0 ? err_set(&c->err, ERR_FAILED, "cannot write the output") : 0;
	}
	return extract_data(&c->x, buf, n, &c->err);
}

static int tar_end_cb(void *ctx)
{
	struct cp_out *c = ctx;
	return c->stream ? 0 : extract_end(&c->x, &c->err);
}

static int out_body(void *ctx, const char *buf, size_t n)
{
	struct cp_out *c = ctx;
	if (c->failed)
		return -1;
	if (!c->started && out_start(c) < 0) {
		c->failed = true;
		return -1;
	}
	char msg[300];
	if (tar_feed(c->tr, buf, n, msg, sizeof(msg)) < 0) {
		if (c->err.kind == ERR_NONE)
			err_set(&c->err, ERR_WORKSPACE, "the stream from the workspace: %s", msg);
		c->failed = true;
		return -1;
	}
	return 0;
}

static const struct {
	const char *why, *text;
} cp_refusals[] = {
	{"notfound", "no such file or directory"},
	{"notdir", "not a directory"},
	{"notfile", "not a regular file, a directory or a link"},
	{"denied", "permission denied"},
	{"isdir", "a directory is in its place"},
	{"input", "the stream was cut short; nothing was put in place"},
	{"rename", "cannot put it in place"},
	{"copy", "cannot copy into it (is the disk full?)"},
	{"inlink", "a symbolic link in the workspace stands where a directory comes; remove it first"},
};

/* "E WHY [NAME]" from a cp script: path names what was asked for. */
static int cp_refusal(const char *head, const char *path, struct err *e)
{
	if (strncmp(head, "E ", 2) != 0)
		return 0;
	const char *why = head + 2;
	size_t wl = strcspn(why, " ");
	const char *name = why[wl] ? why + wl + 1 : NULL;
	struct sbuf shown = {0};
	tool_show_path(&shown, name ? name : path, false);
	const char *text = NULL;
	for (size_t i = 0; i < ARRAY_LEN(cp_refusals); i++)
		if (strlen(cp_refusals[i].why) == wl && strncmp(why, cp_refusals[i].why, wl) == 0)
			text = cp_refusals[i].text;
	if (name && text && strncmp(why, "notdir", wl) == 0)
		text = "a file is in the place of a directory that comes; remove it first";
	if (name && text && strncmp(why, "isdir", wl) == 0)
		text = "a directory is in the place of a file that comes; remove it first";
	err_set(e, ERR_FAILED, "%s%s: %s", name ? "" : ":", shown.buf, text ? text : why);
	sbuf_free(&shown);
	return -1;
}

static int tar_status(const struct tool_out *out)
{
	const char *p = NULL;
	for (const char *q = out->err.buf; q && (q = strstr(q, "tar:")); q += 4)
		p = q;
	return p ? atoi(p + 4) : -1;
}

static int copy_out(struct app *a, struct ws *ws, struct cp_spec *src, const char *dest,
		    bool stream, struct cp_result *res, struct err *e)
{
	const char *base = NULL;
	bool contents = src_contents(src->path, &base);
	char *arg = tool_arg_path(src->path, e);
	if (!arg)
		return -1;
	struct cp_out c = {.a = a, .res = res, .src_base = base, .contents = contents, .dest = dest,
			   .stream = stream, .root = -1, .stage_fd = -1};
	c.tr = xmalloc(sizeof(*c.tr));
	struct tar_sink sink = {.ctx = &c, .entry = tar_entry_cb, .data = tar_data_cb, .end = tar_end_cb};
	tar_init(c.tr, &sink);
	struct tool_out out = {.body = out_body, .ctx = &c};
	c.out = &out;
	char *args[] = {"/bin/sh", "-c", (char *)SCRIPT_CP_OUT, "sh", arg, contents ? "c" : "p"};
	int rc = tool_run(a, ws, PROTO_COMMAND, args, ARRAY_LEN(args), NULL, false, &out, e);
	const char *head = out.head.buf ? out.head.buf : "";
	if (rc == 0 && cp_refusal(head, src->path, e) < 0)
		rc = -1;
	if (rc == 0 && !c.started && !c.failed && out_start(&c) < 0)
		c.failed = true;
	if (rc == 0 && c.failed)
		rc = -1, *e = c.err;
	char msg[300];
	if (rc == 0 && tar_finish(c.tr, msg, sizeof(msg)) < 0)
		rc = err_set(e, ERR_WORKSPACE, "the stream from the workspace: %s", msg);
	if (rc == 0 && tar_status(&out) != 0)
		rc = err_set(e, ERR_FAILED, ":%s: tar in the workspace failed (status %d): some files could not be read",
			     src->path, tar_status(&out));
	if (rc == 0 && stream && tarw_finish(&c.w) < 0)
		rc = err_set(e, ERR_FAILED, "cannot write the output");
	/* Whole: into place, then the directories' modes and times there. */
	if (rc == 0 && c.have_x && hostdir_move(c.stage_fd, c.root, e) < 0)
		rc = -1;
	c.x.root = c.root;
	if (rc == 0 && c.have_x && extract_finish(&c.x, e) < 0)
		rc = -1;
	if (c.have_x) {
		res->files += c.x.files;
		res->dirs += c.x.ndirs;
		res->links += c.x.links;
		res->bytes += c.x.bytes;
		res->skipped += c.x.skipped;
		if (c.x.first_skipped && !res->first_skipped)
			res->first_skipped = xstrdup(c.x.first_skipped);
		extract_free(&c.x);
	}
	if (c.stage_fd >= 0)
		close(c.stage_fd);
	if (c.stage_name[0])
		hostdir_remove(c.root, c.stage_name);
	if (rc < 0 && c.made)
		rmdir(c.made);
	free(c.made);
	if (c.root >= 0)
		close(c.root);
	free(c.top_as);
	free(c.tr);
	sbuf_free(&c.clean);
	sbuf_free(&c.mapped);
	tool_out_free(&out);
	free(arg);
	return rc;
}

/* ---- into the workspace ---- */

/* The child's side: the stream into fd, counts and a message into st. */
struct cp_in {
	int fd;
	struct tarw w;
	char *buf;
	unsigned long long files, dirs, links, bytes, skipped;
	char *first_skipped;
	char msg[1024];
	/* "SECONDS NAME\0" for each directory whose mtime BusyBox tar will
	 * have moved: it makes a link that is absolute or holds ".." only at
	 * the end of the archive, in the directory it set the time of. Sent
	 * as the file "times"; on disk, not in memory. */
	FILE *times;
	bool late_link;         /* the directory being walked holds one */
	/* create --copy: the paths left out, and where each path sent goes
	 * as a baseline entry (copy.h's encoding); else NULL. */
	const struct copy_excl *excl;
	FILE *rec;
};


static int fd_out(void *ctx, const char *buf, size_t n)
{
	struct cp_in *c = ctx;
	return write_all(c->fd, buf, n);
}

__attribute__((format(printf, 2, 3)))
static int in_fail(struct cp_in *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int in_fail_path(struct cp_in *c, const char *path, const char *what)
{
	int saved = errno;
	struct sbuf shown = {0};
	tool_show_path(&shown, path, false);
	in_fail(c, "%s: %s%s%s", shown.buf, what, saved ? ": " : "", saved ? strerror(saved) : "");
	sbuf_free(&shown);
	return -1;
}

static int in_write_err(struct cp_in *c)
{
	return in_fail(c, "the workspace stopped reading the stream");
}

/* A baseline entry for the path sent as name ("x" or "x/REL"). */
static int in_record(struct cp_in *c, const char *name, char type, unsigned mode,
		     unsigned long long size, const char *sha, const char *target)
{
	if (!c->rec || !name[1])
		return 0;
	if (fprintf(c->rec, "e%c%c%c%o%c%llu%c%s%c%s%c%s", 0, type, 0, mode & 0777, 0, size, 0,
		    sha, 0, target, 0, name + 2) < 0 || fputc('\0', c->rec) == EOF)
		return in_fail(c, "cannot write a temporary file: %s", strerror(errno));
	return 0;
}

static int in_file(struct cp_in *c, int at, const char *leaf, const char *name,
		   const char *shown, const struct stat *st)
{
	int fd = openat(at, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return in_fail_path(c, shown, "cannot read it");
	if (tarw_entry(&c->w, name, '0', st->st_mode, st->st_mtime, (unsigned long long)st->st_size, NULL) < 0) {
		close(fd);
		return in_write_err(c);
	}
	unsigned long long left = (unsigned long long)st->st_size;
	struct sha256 h;
	sha256_init(&h);
	while (left) {
		ssize_t r = read(fd, c->buf, left < CP_BUF ? (size_t)left : CP_BUF);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			close(fd);
			return in_fail_path(c, shown, r == 0 ? "it shrank while it was read" : "cannot read it");
		}
		if (tarw_data(&c->w, c->buf, (size_t)r) < 0) {
			close(fd);
			return in_write_err(c);
		}
		if (c->rec)
			sha256_update(&h, c->buf, (size_t)r);
		left -= (unsigned long long)r;
		c->bytes += (unsigned long long)r;
	}
	close(fd);
	c->files++;
	if (!c->rec)
		return 0;
	unsigned char d[32];
	char hex[65];
	sha256_final(&h, d);
	sha256_hex(d, hex);
	return in_record(c, name, 'f', st->st_mode, (unsigned long long)st->st_size, hex, "");
}

/* One entry of the host's tree: name is its name in the stream, shown
 * its host path for messages; a directory's contents follow it. */
static int in_walk(struct cp_in *c, int at, const char *leaf, struct sbuf *name,
		   struct sbuf *shown, bool follow)
{
	struct stat st;
	if (fstatat(at, leaf, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
		return in_fail_path(c, shown->buf, "cannot read it");
	if (name->buf[1] && copy_excluded(c->excl, name->buf + 2, S_ISDIR(st.st_mode)))
		return 0;
	if (S_ISREG(st.st_mode))
		return in_file(c, at, leaf, name->buf, shown->buf, &st);
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX + 1];
		ssize_t n = readlinkat(at, leaf, target, PATH_MAX);
		if (n < 0)
			return in_fail_path(c, shown->buf, "cannot read the link");
		target[n] = '\0';
		if (tarw_entry(&c->w, name->buf, '2', 0777, st.st_mtime, 0, target) < 0)
			return in_write_err(c);
		if (target[0] == '/' || strstr(target, ".."))
			c->late_link = true;
		c->links++;
		return in_record(c, name->buf, 'l', 0777, 0, "", target);
	}
	if (!S_ISDIR(st.st_mode)) {
		c->skipped++;
		if (!c->first_skipped)
			c->first_skipped = xstrdup(shown->buf);
		return 0;
	}
	int fd = openat(at, leaf, O_RDONLY | O_DIRECTORY | (follow ? 0 : O_NOFOLLOW) | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return in_fail_path(c, shown->buf, "cannot read the directory");
	}
	int rc = 0;
	if (tarw_entry(&c->w, name->buf, '5', st.st_mode, st.st_mtime, 0, NULL) < 0)
		rc = in_write_err(c);
	else if (c->dirs++, in_record(c, name->buf, 'd', st.st_mode, 0, "", "") < 0)
		rc = -1;
	size_t nlen = name->len, slen = shown->len;
	bool outer_late = c->late_link;
	c->late_link = false;
	struct dirent *de;
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		sbuf_addc(name, '/');
		sbuf_adds(name, de->d_name);
		if (slen && shown->buf[slen - 1] != '/')
			sbuf_addc(shown, '/');
		sbuf_adds(shown, de->d_name);
		rc = in_walk(c, dirfd(d), de->d_name, name, shown, false);
		name->len = nlen;
		name->buf[nlen] = '\0';
		shown->len = slen;
		shown->buf[slen] = '\0';
	}
	if (rc == 0 && errno)
		rc = in_fail_path(c, shown->buf, "cannot read the directory");
	/* Once more after its contents: BusyBox tar sets a directory's mtime
	 * when it makes it, and the files made in it then move it. */
	if (rc == 0 && tarw_entry(&c->w, name->buf, '5', st.st_mode, st.st_mtime, 0, NULL) < 0)
		rc = in_write_err(c);
	if (rc == 0 && c->late_link) {
		if (!c->times)
			c->times = tmpfile();
		if (!c->times || fprintf(c->times, "%lld %s", (long long)st.st_mtime, name->buf) < 0 ||
		    fputc('\0', c->times) == EOF)
			rc = in_fail(c, "cannot write a temporary file: %s", strerror(errno));
	}
	c->late_link = outer_late;
	closedir(d);
	return rc;
}

/* SRC "-": a tar stream of the user's, read as one from a workspace
 * would be (its names checked the same), written anew under "x". */
struct cp_restream {
	struct cp_in *c;
	struct tar_reader *tr;
	struct sbuf clean;
	bool skipping;
};

static int restream_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct cp_restream *s = ctx;
	struct cp_in *c = s->c;
	const char *why = extract_name(name, &s->clean);
	struct sbuf mapped = {0}, lclean = {0};
	const char *link = s->tr->link;
	if (!why && type == '1' && (why = extract_name(link, &lclean)) == NULL && !*lclean.buf)
		why = "a hard link to the top";
	int rc = 0;
	s->skipping = false;
	if (why) {
		struct sbuf shown = {0};
		tool_show_path(&shown, name, false);
		rc = in_fail(c, "%s: %s; nothing was copied", shown.buf, why);
		sbuf_free(&shown);
	} else if (type == '3' || type == '4' || type == '6') {
		c->skipped++;
		s->skipping = true;
		if (!c->first_skipped) {
			struct sbuf shown = {0};
			tool_show_path(&shown, name, false);
			c->first_skipped = xstrdup(shown.buf);
			sbuf_free(&shown);
		}
	} else if (!strchr("01257", type)) {
		rc = in_fail(c, "an entry of a type cp does not know ('%c')", type >= 0x20 && type < 0x7f ? type : '?');
	} else {
		char t = type == '\0' || type == '7' ? '0' : type;
		sbuf_adds(&mapped, "x");
		if (*s->clean.buf)
			sbuf_addf(&mapped, "/%s", s->clean.buf);
		if (t == '1') {
			struct sbuf l = {0};
			sbuf_addf(&l, "x/%s", lclean.buf);
			sbuf_free(&lclean);
			lclean = l;
			link = lclean.buf;
		}
		if (!*s->clean.buf && t != '5')
			rc = in_fail(c, "the stream's top is not a directory");
		else if (tarw_entry(&c->w, mapped.buf, t, s->tr->mode & 0777, s->tr->mtime,
				    t == '0' ? size : 0, t == '1' || t == '2' ? link : NULL) < 0)
			rc = in_write_err(c);
		c->files += t == '0';
		c->dirs += t == '5' && *s->clean.buf;
		c->links += t == '1' || t == '2';
	}
	sbuf_free(&mapped);
	sbuf_free(&lclean);
	return rc;
}

static int restream_data(void *ctx, const char *buf, size_t n)
{
	struct cp_restream *s = ctx;
	if (s->skipping)
		return 0;
	s->c->bytes += n;
	return tarw_data(&s->c->w, buf, n) < 0 ? in_write_err(s->c) : 0;
}

static int in_restream(struct cp_in *c)
{
	struct cp_restream s = {.c = c};
	s.tr = xmalloc(sizeof(*s.tr));
	struct tar_sink sink = {.ctx = &s, .entry = restream_entry, .data = restream_data};
	tar_init(s.tr, &sink);
	char msg[300];
	int rc = tarw_entry(&c->w, "x", '5', 0755, (long long)time(NULL), 0, NULL) < 0 ? in_write_err(c) : 0;
	for (;;) {
		if (rc < 0)
			break;
		ssize_t r = read(0, c->buf, CP_BUF);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = in_fail(c, "cannot read the input: %s", strerror(errno));
			break;
		}
		if (r == 0) {
			if (tar_finish(s.tr, msg, sizeof(msg)) < 0)
				rc = c->msg[0] ? -1 : in_fail(c, "the input: %s; nothing was copied", msg);
			break;
		}
		if (tar_feed(s.tr, c->buf, (size_t)r, msg, sizeof(msg)) < 0)
			rc = c->msg[0] ? -1 : in_fail(c, "the input: %s; nothing was copied", msg);
	}
	sbuf_free(&s.clean);
	free(s.tr);
	return rc;
}

/* The child: writes the stream into fd, then its counts (or why it
 * failed) into st, and exits. It never returns. */
static void in_child(int fd, int st, const char *src, bool follow,
		     const struct copy_excl *excl, FILE *rec)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	struct cp_in c = {.fd = fd, .excl = excl, .rec = rec};
	c.buf = xmalloc(CP_BUF);
	tarw_init(&c.w, fd_out, &c);
	int rc;
	if (!src) {
		rc = in_restream(&c);
	} else {
		struct sbuf name = {0}, shown = {0};
		sbuf_adds(&name, "x");
		sbuf_adds(&shown, src);
		rc = in_walk(&c, AT_FDCWD, src, &name, &shown, follow);
		sbuf_free(&name);
		sbuf_free(&shown);
	}
	if (rc == 0 && c.times) {
		long size = ftell(c.times);
		rewind(c.times);
		if (size < 0 || tarw_entry(&c.w, "times", '0', 0600, 0, (unsigned long long)size, NULL) < 0)
			rc = in_write_err(&c);
		size_t r;
		while (rc == 0 && (r = fread(c.buf, 1, CP_BUF, c.times)) > 0)
			if (tarw_data(&c.w, c.buf, r) < 0)
				rc = in_write_err(&c);
		if (rc == 0 && c.w.left)
			rc = in_fail(&c, "cannot read a temporary file");
	}
	/* The mark of a whole stream: the script puts nothing in place
	 * without it. */
	if (rc == 0 && (tarw_entry(&c.w, "end", '0', 0600, 0, 0, NULL) < 0 || tarw_finish(&c.w) < 0))
		rc = in_write_err(&c);
	if (rc == 0 && rec && fflush(rec) != 0)
		rc = in_fail(&c, "cannot write a temporary file: %s", strerror(errno));
	close(fd);
	FILE *f = fdopen(st, "w");
	if (f) {
		fprintf(f, "%llu %llu %llu %llu %llu\n%s\n%s\n", c.files, c.dirs, c.links, c.bytes,
			c.skipped, rc == 0 ? "" : c.msg, c.first_skipped ? c.first_skipped : "");
		fclose(f);
	}
	_exit(rc == 0 ? 0 : 1);
}

/* Reads the child's report, at most a few KiB. */
static int in_report(int st, struct cp_result *res, struct err *e)
{
	char buf[4096];
	size_t n = 0;
	for (;;) {
		ssize_t r = read(st, buf + n, sizeof(buf) - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (n += (size_t)r) == sizeof(buf) - 1)
			break;
	}
	buf[n] = '\0';
	unsigned long long v[5];
	char *nl = strchr(buf, '\n');
	if (!nl || sscanf(buf, "%llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
		return err_set(e, ERR_FAILED, "the stream into the workspace failed");
	char *msg = nl + 1, *nl2 = strchr(msg, '\n');
	if (nl2)
		*nl2 = '\0';
	if (*msg)
		return err_set(e, ERR_FAILED, "%s", msg);
	res->files += v[0];
	res->dirs += v[1];
	res->links += v[2];
	res->bytes += v[3];
	res->skipped += v[4];
	char *skip = nl2 ? nl2 + 1 : NULL, *nl3 = skip ? strchr(skip, '\n') : NULL;
	if (nl3)
		*nl3 = '\0';
	if (skip && *skip && !res->first_skipped)
		res->first_skipped = xstrdup(skip);
	return 0;
}

static int copy_in(struct app *a, struct ws *ws, struct cp_spec *src, const char *dest,
		   const struct copy_excl *excl, FILE *rec, struct cp_result *res, struct err *e)
{
	const char *kind = "c", *base = "x";
	bool seed = rec != NULL;
	bool follow = false;
	if (!src->stream) {
		size_t n = strlen(src->path);
		follow = n > 1 && src->path[n - 1] == '/';
		bool contents = src_contents(src->path, &base);
		struct stat st;
		if ((follow || contents ? stat(src->path, &st) : lstat(src->path, &st)) < 0)
			return err_set(e, ERR_FAILED, "%s: %s", src->path, strerror(errno));
		if (contents && !S_ISDIR(st.st_mode))
			return err_set(e, ERR_FAILED, "%s: not a directory", src->path);
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return err_set(e, ERR_FAILED, "%s: not a regular file, a directory or a link", src->path);
		kind = contents ? (seed ? "s" : "c") : S_ISDIR(st.st_mode) ? "d" : "f";
		follow = follow || contents;
	}
	char *arg = tool_arg_path(dest, e);
	if (!arg)
		return -1;
	char suffix[17];
	if (random_hex(suffix, 16) < 0) {
		free(arg);
		return err_set(e, ERR_FAILED, "cannot read /dev/urandom");
	}
	int data[2], st[2];
	if (pipe(data) < 0) {
		free(arg);
		return err_set(e, ERR_FAILED, "cannot make a pipe: %s", strerror(errno));
	}
	if (pipe(st) < 0) {
		int saved = errno;
		close(data[0]);
		close(data[1]);
		free(arg);
		return err_set(e, ERR_FAILED, "cannot make a pipe: %s", strerror(saved));
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(data[0]); close(data[1]); close(st[0]); close(st[1]);
		free(arg);
		return err_set(e, ERR_FAILED, "cannot fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(data[0]);
		close(st[0]);
		in_child(data[1], st[1], src->stream ? NULL : src->path, follow, excl, rec);
	}
	close(data[1]);
	close(st[1]);
	fcntl(data[0], F_SETFD, FD_CLOEXEC);
	fcntl(st[0], F_SETFD, FD_CLOEXEC);
	struct feed feed;
	feed_init_raw(&feed, data[0]);
	struct tool_out out = {0};
	char *args[] = {"/bin/sh", "-c", (char *)SCRIPT_CP_IN, "sh", arg, (char *)kind, (char *)base, suffix};
	int rc = tool_run(a, ws, PROTO_COMMAND, args, ARRAY_LEN(args), &feed, false, &out, e);
	feed_free(&feed);
	close(data[0]);
	struct err child_err = {0};
	int crc = in_report(st[0], res, &child_err);
	close(st[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	const char *head = out.head.buf ? out.head.buf : "";
	/* The child's own failure explains a stream cut short. */
	if (crc < 0 && (rc < 0 || strcmp(head, "E input") == 0 || strcmp(head, "OK") == 0))
		rc = -1, *e = child_err;
	else if (rc == 0 && cp_refusal(head, dest, e) < 0)
		rc = -1;
	else if (rc == 0 && strcmp(head, "OK") != 0)
		rc = err_set(e, ERR_WORKSPACE, "unexpected answer from the cp script");
	else if (rc == 0 && crc < 0)
		rc = -1, *e = child_err;
	tool_out_free(&out);
	free(arg);
	return rc;
}

/* ---- the command ---- */

int do_cp(struct app *a, struct cp_result *res, struct err *e)
{
	*res = (struct cp_result){0};
	size_t n = a->o.args.n;
	if (n < 2)
		return err_set(e, ERR_USAGE, "give a source and a destination: cp SRC... DEST, one of them :PATH in the workspace");
	struct cp_spec *s = xmalloc(n * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		spec_parse(a->o.args.v[i], &s[i]);
	struct cp_spec *dst = &s[n - 1];
	int rc = 0;
	const char *ref = NULL;
	bool out = !dst->ws;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (s[i].ref && ref && strcmp(s[i].ref, ref) != 0)
			rc = err_set(e, ERR_USAGE, "one workspace at a time: %s and %s", ref, s[i].ref);
		if (s[i].ref)
			ref = s[i].ref;
		if (i < n - 1 && s[i].ws != out)
			rc = err_set(e, ERR_USAGE, "%s: every source must be on the %s side, the destination on the other; "
				     "the workspace's side is written :PATH or REF:PATH", s[i].arg,
				     out ? "workspace's" : "host's");
		if (s[i].stream && (n != 2 || (i == 0 && out) || (i == 1 && !out)))
			rc = err_set(e, ERR_USAGE, "'-' is a tar stream: cp - :DEST, or cp :SRC -, with one source");
	}
	if (rc == 0 && out && !dst->stream && n > 2) {
		struct stat st;
		if (stat(dst->path, &st) < 0 || !S_ISDIR(st.st_mode))
			rc = err_set(e, ERR_USAGE, "%s: several sources need an existing directory as the destination", dst->arg);
	}
	if (rc == 0 && ref) {
		if (ws_check_ref(ref, e) < 0)
			rc = -1;
		else
			a->ref = ref;
	}
	if (rc == 0 && out && dst->stream && a->json)
		rc = err_set(e, ERR_USAGE, "'-' writes a tar stream on stdout; it does not go with --json");
	if (rc == 0 && out && dst->stream && isatty(1))
		rc = err_set(e, ERR_USAGE, "the tar stream would go to a terminal: redirect stdout, or give a directory");
	if (rc == 0 && !out && s[0].stream && isatty(0))
		rc = err_set(e, ERR_USAGE, "no tar stream: stdin is a terminal");
	struct ws ws;
	if (rc == 0 && ws_select(a, &ws, e) < 0)
		rc = -1;
	if (rc == 0) {
		for (size_t i = 0; i + 1 < n && rc == 0; i++)
			rc = out ? copy_out(a, &ws, &s[i], dst->path, dst->stream, res, e)
				 : copy_in(a, &ws, &s[i], dst->path, NULL, NULL, res, e);
		ws_free(&ws);
	}
	res->workspace = a->ws_name;
	res->dest = a->o.args.v[n - 1];
	res->out = out;
	res->stream = out && dst->stream;
	for (size_t i = 0; i < n; i++)
		spec_free(&s[i]);
	free(s);
	if (rc < 0)
		cp_result_free(res);
	return rc;
}

void cp_result_free(struct cp_result *r)
{
	free(r->first_skipped);
	r->first_skipped = NULL;
}

int cp_seed(struct app *a, struct ws *ws, const char *dir, const char *dest,
	    const struct copy_excl *excl, FILE *rec, struct cp_result *res, struct err *e)
{
	*res = (struct cp_result){0};
	struct cp_spec src = {.arg = dir, .path = xasprintf("%s/.", dir)};
	int rc = copy_in(a, ws, &src, dest, excl, rec, res, e);
	free(src.path);
	if (rc < 0)
		cp_result_free(res);
	return rc;
}
