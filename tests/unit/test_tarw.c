/* test_tarw.c: the tar writer, read back by our reader (tar.h) and by
 * GNU tar on the host: short and long names and link targets, sizes,
 * modes and mtimes, directories' slash; misuse refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tar.h"
#include "tarw.h"
#include "util.h"

static int to_sbuf(void *ctx, const char *buf, size_t n)
{
	sbuf_add(ctx, buf, n);
	return 0;
}

struct seen {
	struct sbuf log;
	struct tar_reader *r;
};

static int seen_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct seen *s = ctx;
	sbuf_addf(&s->log, "%c %s %llu %o %lld [%s]\n", type, name, size, s->r->mode, s->r->mtime,
		  s->r->link);
	return 0;
}

static int seen_data(void *ctx, const char *buf, size_t n)
{
	struct seen *s = ctx;
	sbuf_addf(&s->log, "data %zu %.*s\n", n, (int)(n < 8 ? n : 8), buf);
	return 0;
}

int main(void)
{
	struct sbuf a = {0};
	struct tarw w;
	tarw_init(&w, to_sbuf, &a);
	char longname[300], longlink[250];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memset(longlink, 'l', sizeof(longlink) - 1);
	longlink[sizeof(longlink) - 1] = '\0';
	ok(tarw_entry(&w, "top", '5', 0750, 1000000000, 0, NULL) == 0, "a directory");
	ok(tarw_entry(&w, "top/f", '0', 0644, 1234567890, 5, NULL) == 0 && tarw_data(&w, "hel", 3) == 0 &&
	   tarw_data(&w, "lo", 2) == 0, "a file in two pieces");
	ok(tarw_data(&w, "x", 1) < 0, "data past the size is refused");
	ok(tarw_entry(&w, "top/l", '2', 0777, 0, 0, "../f") == 0, "a symlink");
	ok(tarw_entry(&w, longname, '0', 0600, -5, 1, NULL) == 0 && tarw_data(&w, "z", 1) == 0,
	   "a long name; an mtime before the epoch");
	ok(tarw_entry(&w, "top/ll", '2', 0777, 0, 0, longlink) == 0, "a long link target");
	ok(tarw_entry(&w, "top/h", '1', 0644, 0, 99, "top/f") == 0, "a hard link: no data whatever the size");
	ok(tarw_entry(&w, "top/g", '0', 04755, 0, 2, NULL) == 0 && tarw_entry(&w, "x", '0', 0, 0, 0, NULL) < 0,
	   "a new entry before the last file's data is refused");
	ok(tarw_finish(&w) < 0, "so is the end");
	ok(tarw_data(&w, "gg", 2) == 0 && tarw_finish(&w) == 0, "then both go");
	ok(a.len % 512 == 0, "whole blocks");

	struct seen s = {0};
	s.r = xmalloc(sizeof(*s.r));
	struct tar_sink sink = {.ctx = &s, .entry = seen_entry, .data = seen_data};
	tar_init(s.r, &sink);
	char err[200] = "";
	ok(tar_feed(s.r, a.buf, a.len, err, sizeof(err)) == 0 && tar_finish(s.r, err, sizeof(err)) == 0,
	   "our reader reads it (%s)", err);
	struct sbuf want = {0};
	sbuf_addf(&want, "5 top/ 0 750 1000000000 []\n0 top/f 5 644 1234567890 []\ndata 5 hello\n"
			 "2 top/l 0 777 0 [../f]\n0 %s 1 600 0 []\ndata 1 z\n2 top/ll 0 777 0 [%s]\n"
			 "1 top/h 0 644 0 [top/f]\n0 top/g 2 4755 0 []\ndata 2 gg\n",
		  longname, longlink);
	ok(strcmp(s.log.buf, want.buf) == 0, "names, types, sizes, modes, mtimes and links as written");
	if (strcmp(s.log.buf, want.buf) != 0)
		diag("got:\n%s", s.log.buf);

	/* GNU tar agrees, when the host has it. */
	char path[] = "/tmp/test_tarw.XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0 && write(fd, a.buf, a.len) == (ssize_t)a.len && system("tar --version >/dev/null 2>&1") == 0) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "tar -tvf %s 2>&1 | grep -c . | grep -qx 7", path);
		ok(system(cmd) == 0, "GNU tar lists the seven entries");
		snprintf(cmd, sizeof(cmd), "tar -tvf %s | grep -q 'top/ll -> %s$'", path, longlink);
		ok(system(cmd) == 0, "and the long link target");
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}

	unsigned char h[512];
	tarw_header(h, "big", '0', 0644, 0, 1ULL << 34, NULL);
	ok(h[124] == 0x80 && h[135] == 0 && h[131] == 4, "a size past 8 GiB in base-256");
	tar_init(s.r, &sink);
	sbuf_reset(&s.log);
	ok(tar_feed(s.r, (const char *)h, 512, err, sizeof(err)) == 0 && strstr(s.log.buf, "0 big 17179869184 "),
	   "which the reader reads");
	free(s.r);
	sbuf_free(&s.log);
	sbuf_free(&want);
	sbuf_free(&a);
	return done_testing();
}
