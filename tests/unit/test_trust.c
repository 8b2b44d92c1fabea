/* test_trust.c: the trust store's text (strict parse, format, round
 * trip), its entries, reading a file safely (FIFO, directory, mode, size),
 * trust_check and trust_update on a real store (also with concurrent
 * writers), where the store lives, and cfg_load_all's layers. */
/* realpath(3) is XSI. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "sha256.h"
#include "tap.h"
#include "trust.h"
#include "util.h"

#define H0 "0000000000000000000000000000000000000000000000000000000000000000"
#define H1 "1111111111111111111111111111111111111111111111111111111111111111"
#define HA "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"

static int parse(struct trust_store *ts, const char *text, struct err *e)
{
	return trust_parse(ts, "STORE", text, strlen(text), e);
}

static void parses(const char *text, size_t n, const char *title)
{
	struct trust_store ts;
	struct err e = {0};
	int rc = parse(&ts, text, &e);
	ok(rc == 0 && ts.n == n, "parse: %s (%zu entries)", title, n);
	if (rc != 0 || ts.n != n)
		diag("rc %d, %zu entries, message: %s", rc, ts.n, e.msg);
	trust_store_free(&ts);
}

/* A bad store: a config error whose message starts with want. */
static void refused_n(const char *text, size_t len, const char *want, const char *title)
{
	struct trust_store ts;
	struct err e = {0};
	int rc = trust_parse(&ts, "STORE", text, len, &e);
	bool has = strncmp(e.msg, want, strlen(want)) == 0 &&
		   strstr(e.msg, "then run 'sandbox trust' again") != NULL;
	ok(rc == -1 && e.kind == ERR_CONFIG && has && ts.n == 0 && ts.v == NULL,
	   "parse refuses %s: '%s...'", title, want);
	if (!has)
		diag("message: %s", e.msg);
	trust_store_free(&ts);
}

static void refused(const char *text, const char *want, const char *title)
{
	refused_n(text, strlen(text), want, title);
}

static void test_parse(void)
{
	parses("", 0, "an empty store");
	parses("# only a comment\n#\n", 0, "comments");
	parses(H0 " /a\n" HA " /b c/d e.ini\n", 2, "two entries, a path with spaces");
	parses("# x\n" H0 " /\n# y\n", 1, "the root path");
	struct trust_store ts;
	struct err e = {0};
	parse(&ts, "#c\n" H0 " /a b\n" HA " /x/y.ini\n", &e);
	ok(ts.n == 2 && strcmp(ts.v[0].path, "/a b") == 0 && strcmp(ts.v[0].sha256, H0) == 0 &&
	   strcmp(ts.v[1].path, "/x/y.ini") == 0 && strcmp(ts.v[1].sha256, HA) == 0,
	   "parse: paths and hashes as written, in order");
	ok(trust_find(&ts, "/x/y.ini") == &ts.v[1] && trust_find(&ts, "/x") == NULL &&
	   trust_find(&ts, "/x/y.ini/") == NULL, "find: the exact path only");
	trust_store_free(&ts);

	const char *want = "STORE:1: expected 'SHA256 PATH'";
	refused("x\n", want, "a word");
	refused("\n", want, "an empty line");
	refused(" # comment\n", want, "an indented comment");
	refused(H0 "\n", want, "a hash without a path");
	refused(H0 " \n", want, "a hash and a space");
	refused(H0 "  /a\n", "STORE:1: the path must be absolute", "two spaces");
	refused(H0 "\t/a\n", want, "a tab for the space");
	refused("ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789 /a\n", want,
		"uppercase hex");
	refused("000000000000000000000000000000000000000000000000000000000000000 /a\n", want,
		"63 hex digits");
	refused("00000000000000000000000000000000000000000000000000000000000000000 /a\n", want,
		"65 hex digits");
	refused("000000000000000000000000000000000000000000000000000000000000000g /a\n", want,
		"a g among the digits");
	refused(H0 " a/b\n", "STORE:1: the path must be absolute", "a relative path");
	refused(H0 " /a\r\n", "STORE:1: the path must be absolute", "a CRLF line");
	refused(H0 " /a\tb\n", "STORE:1: the path must be absolute", "a tab in the path");
	refused(H0 " /a\x7f\n", "STORE:1: the path must be absolute", "DEL in the path");
	refused(H0 " /a\n" H1 " /a\n", "STORE:2: the path is already on an earlier line",
		"a path twice");
	refused(H0 " /a\n" H0 " /b\n#\n" H1 " /b\n" H1 " /a\n",
		"STORE:4: the path is already on an earlier line", "two paths twice: the first repeat");
	refused(H0 " /a\n" H0 " /a/\n" H0 " /A\n" H0 " /a\n",
		"STORE:4: the path is already on an earlier line", "paths are compared byte for byte");
	refused(H0 " /a", "STORE:1: the last line has no newline", "no newline at the end");
	refused("#\n#", "STORE:2: the last line has no newline", "a comment without a newline");
	refused_n(H0 " /a\0b\n", sizeof(H0 " /a\0b\n") - 1, "STORE:1: a NUL byte", "a NUL in the path");
	refused_n("#\0\n", 3, "STORE:1: a NUL byte", "a NUL in a comment");
	refused("#\n" H0 " /ok\nbad\n", "STORE:3: expected", "the line of the error");

	struct sbuf long_path = {0};
	sbuf_adds(&long_path, H0 " /");
	for (int i = 0; i < TRUST_MAX_PATH - 1; i++)
		sbuf_addc(&long_path, 'p');
	sbuf_addc(&long_path, '\n');
	parses(long_path.buf, 1, "a path of 4095 bytes");
	sbuf_reset(&long_path);
	sbuf_adds(&long_path, H0 " /");
	for (int i = 0; i < TRUST_MAX_PATH; i++)
		sbuf_addc(&long_path, 'p');
	sbuf_addc(&long_path, '\n');
	refused(long_path.buf, "STORE:1: the path must be absolute", "a path of 4096 bytes");
	sbuf_free(&long_path);

	/* A store at the size cap (repeats are found by sorting, not by
	 * comparing every pair: the time is shown, not judged). */
	struct sbuf big = {0};
	char sha[65];
	int n = 0;
	while (big.len < TRUST_MAX_FILE - 200) {
		char *p = xasprintf("/p/%d", n++);
		sha256_buf_hex(p, strlen(p), sha);
		sbuf_addf(&big, "%s %s\n", sha, p);
		free(p);
	}
	long long t0 = now_ms();
	int rc = trust_parse(&ts, "STORE", big.buf, big.len, &e);
	long long took = now_ms() - t0;
	ok(rc == 0 && ts.n == (size_t)n, "parse: a store of 1 MiB, %d entries", n);
	diag("parsed in %lld ms", took);
	trust_store_free(&ts);
	sbuf_free(&big);
}

static void test_edit_and_format(void)
{
	struct trust_store ts = {0};
	struct err e = {0};
	is_int(trust_put(&ts, "/p/a.ini", H0, &e), 0, "put: a new path");
	is_int(trust_put(&ts, "/p/b c.ini", HA, &e), 0, "put: another");
	is_int(trust_put(&ts, "/p/a.ini", H1, &e), 0, "put: the same path again");
	ok(ts.n == 2 && strcmp(ts.v[0].sha256, H1) == 0, "put: the same path gets the new hash, in place");
	is_int(trust_put(&ts, "rel.ini", H0, &e), -1, "put: a relative path is refused");
	is_int(trust_put(&ts, "/a\nb", H0, &e), -1, "put: a newline in the path is refused");
	is_int(trust_put(&ts, "/c.ini", "ABC", &e), -1, "put: a hash that is not 64 hex digits is refused");
	is_int((long long)ts.n, 2, "put: refused entries are not added");

	struct sbuf text = {0};
	trust_format(&ts, &text);
	ok(text.len > 0 && text.buf[0] == '#', "format: a comment header first");
	ok(strstr(text.buf, "\n" H1 " /p/a.ini\n" HA " /p/b c.ini\n") != NULL &&
	   text.buf[text.len - 1] == '\n', "format: one 'SHA256 PATH' line per entry, in order");
	struct trust_store back;
	int rc = trust_parse(&back, "STORE", text.buf, text.len, &e);
	ok(rc == 0 && back.n == ts.n && strcmp(back.v[0].path, ts.v[0].path) == 0 &&
	   strcmp(back.v[1].sha256, ts.v[1].sha256) == 0, "format: parses back to the same entries");
	trust_store_free(&back);

	ok(trust_drop(&ts, "/p/a.ini") && ts.n == 1 && strcmp(ts.v[0].path, "/p/b c.ini") == 0,
	   "drop: removes the entry, keeps the others");
	ok(!trust_drop(&ts, "/p/a.ini") && ts.n == 1, "drop: a path not there is false");
	trust_store_free(&ts);
	sbuf_reset(&text);
	trust_format(&ts, &text);
	rc = trust_parse(&back, "STORE", text.buf, text.len, &e);
	ok(rc == 0 && back.n == 0, "format: an empty store parses back empty");
	trust_store_free(&back);
	sbuf_free(&text);
}

static char *write_file(const char *dir, const char *name, const char *text, size_t n,
			mode_t mode)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write_all(fd, text, n) < 0)
		diag("cannot write %s", path);
	if (fd >= 0)
		close(fd);
	chmod(path, mode);
	return path;
}

static char *write_text(const char *dir, const char *name, const char *text, mode_t mode)
{
	return write_file(dir, name, text, strlen(text), mode);
}

static void test_file_read(const char *dir)
{
	struct trust_file f;
	struct err e = {0};
	char *path = write_text(dir, "a.ini", "[env]\nA = 1\n", 0644);
	is_int(trust_file_read(path, true, &f, &e), 1, "read: a regular file");
	is_mem(f.data, f.len, "[env]\nA = 1\n", 12, "read: its bytes");
	ok(f.data[f.len] == '\0', "read: a NUL after them");
	struct stat st;
	stat(path, &st);
	ok(f.dev == st.st_dev && f.ino == st.st_ino, "read: the file's device and inode");
	char *real = trust_file_realpath_new(&f, &e);
	char *want = realpath(path, NULL);
	is_str(real, want, "realpath: the file's real path");
	free(real);
	free(want);
	trust_file_free(&f);

	/* The name now names another file (made before the rename, so its
	 * inode is another): the path no longer keys what we read. */
	is_int(trust_file_read(path, true, &f, &e), 1, "read: again");
	char *other = write_text(dir, "b.ini", "other", 0644);
	rename(other, path);
	free(other);
	real = trust_file_realpath_new(&f, &e);
	ok(real == NULL && strstr(e.msg, "changed while it was read"),
	   "realpath: refused when the name was pointed at another file since");
	free(real);
	trust_file_free(&f);
	free(path);

	char *missing = xasprintf("%s/missing.ini", dir);
	is_int(trust_file_read(missing, false, &f, &e), 0, "read: a missing optional file is 0");
	is_int(trust_file_read(missing, true, &f, &e), -1, "read: a missing required file is -1");
	ok(strstr(e.msg, "No such file or directory") != NULL, "read: missing: the reason");
	free(missing);

	is_int(trust_file_read(dir, true, &f, &e), -1, "read: a directory is refused");
	ok(strstr(e.msg, ": not a regular file") != NULL, "read: a directory: not a regular file");

	char *fifo = xasprintf("%s/fifo.ini", dir);
	mkfifo(fifo, 0644);
	/* Without O_NONBLOCK the open would wait for a writer, for ever. */
	alarm(10);
	is_int(trust_file_read(fifo, false, &f, &e), -1, "read: a FIFO is refused, without waiting");
	alarm(0);
	ok(strstr(e.msg, ": not a regular file") != NULL, "read: a FIFO: not a regular file");
	unlink(fifo);
	free(fifo);

	path = write_text(dir, "open.ini", "", 0666);
	is_int(trust_file_read(path, true, &f, &e), -1, "read: a file anybody can write is refused");
	ok(strstr(e.msg, "writable by everyone") != NULL, "read: world-writable: the reason");
	unlink(path);
	free(path);

	char *big = xmalloc(TRUST_MAX_FILE + 1);
	memset(big, ';', TRUST_MAX_FILE + 1);
	path = write_file(dir, "big.ini", big, TRUST_MAX_FILE, 0644);
	is_int(trust_file_read(path, true, &f, &e), 1, "read: a file of exactly 1 MiB");
	is_int((long long)f.len, TRUST_MAX_FILE, "read: all of it");
	trust_file_free(&f);
	unlink(path);
	free(path);
	path = write_file(dir, "big.ini", big, TRUST_MAX_FILE + 1, 0644);
	is_int(trust_file_read(path, true, &f, &e), -1, "read: one byte more is refused");
	ok(strstr(e.msg, "1048577 bytes; the limit is 1048576 (1 MiB)") != NULL,
	   "read: too big: the size and the limit");
	unlink(path);
	free(path);
	free(big);
}

static void test_dir(void)
{
	char *old_xdg = getenv("XDG_CONFIG_HOME") ? xstrdup(getenv("XDG_CONFIG_HOME")) : NULL;
	char *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	setenv("HOME", "/h", 1);
	char *d = trust_dir_new();
	is_str(d, "/x/conf/sandbox", "dir: $XDG_CONFIG_HOME/sandbox");
	free(d);
	setenv("XDG_CONFIG_HOME", "rel/conf", 1);
	d = trust_dir_new();
	is_str(d, "/h/.config/sandbox", "dir: a relative XDG_CONFIG_HOME is ignored: ~/.config/sandbox");
	free(d);
	unsetenv("XDG_CONFIG_HOME");
	d = trust_dir_new();
	is_str(d, "/h/.config/sandbox", "dir: without XDG_CONFIG_HOME, ~/.config/sandbox");
	free(d);
	setenv("HOME", "h", 1);
	d = trust_dir_new();
	is_str(d, NULL, "dir: none without an absolute XDG_CONFIG_HOME or HOME");
	free(d);
	if (old_xdg)
		setenv("XDG_CONFIG_HOME", old_xdg, 1);
	if (old_home)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_xdg);
	free(old_home);
}

static char *slurp(const char *path)
{
	struct trust_file f;
	struct err e = {0};
	if (trust_file_read(path, true, &f, &e) <= 0)
		return NULL;
	return f.data;
}

static void test_check_and_update(const char *dir)
{
	char *store_dir = xasprintf("%s/conf/sandbox", dir);
	char *store = xasprintf("%s/trusted", store_dir);
	char *path = write_text(dir, "sandbox.ini", "[env]\nA = 1\n", 0644);
	char *real = realpath(path, NULL);
	char sha[65];
	sha256_buf_hex("[env]\nA = 1\n", 12, sha);
	struct trust_file f;
	struct err e = {0};
	trust_file_read(path, true, &f, &e);

	is_int(trust_lookup(store_dir, &f, &e), TRUST_UNKNOWN, "lookup: no store: unknown");
	is_int(trust_check(store_dir, &f, &e), -1, "check: no store: not trusted");
	ok(strstr(e.msg, " is not trusted; check it, then run 'sandbox trust'") != NULL,
	   "check: the message says what to run");
	is_int(trust_check(NULL, &f, &e), -1, "check: no store directory: not trusted");
	ok(strstr(e.msg, "name it with --config") != NULL, "check: no store directory: says --config");

	bool changed;
	is_int(trust_update(store_dir, real, sha, &changed, &e), 0, "update: records the file");
	ok(changed, "update: a new entry is a change");
	struct stat st;
	ok(stat(store, &st) == 0 && (st.st_mode & 0777) == 0600, "update: the store is mode 0600");
	ok(stat(store_dir, &st) == 0 && (st.st_mode & 0777) == 0700,
	   "update: its directory is made, mode 0700");
	is_int(trust_check(store_dir, &f, &e), 0, "check: trusted now");
	is_int(trust_lookup(store_dir, &f, &e), TRUST_OK, "lookup: trusted now");
	is_int(trust_update(store_dir, real, sha, &changed, &e), 0, "update: the same again");
	ok(!changed, "update: the same hash is no change");
	trust_file_free(&f);

	free(write_text(dir, "sandbox.ini", "[env]\nA = 2\n", 0644));
	trust_file_read(path, true, &f, &e);
	is_int(trust_lookup(store_dir, &f, &e), TRUST_CHANGED, "lookup: a changed file");
	is_int(trust_check(store_dir, &f, &e), -1, "check: a changed file is refused");
	ok(strstr(e.msg, " changed since 'sandbox trust'") != NULL, "check: the message says it changed");
	trust_file_free(&f);

	is_int(trust_update(store_dir, real, NULL, &changed, &e), 0, "update: revoke");
	ok(changed, "update: revoking an entry is a change");
	char *text = slurp(store);
	ok(text && !strstr(text, real), "update: the path is gone from the store");
	free(text);
	is_int(trust_update(store_dir, real, NULL, &changed, &e), 0, "update: revoke again");
	ok(!changed, "update: revoking what is not there is no change");

	/* A store that does not parse is left as it is, and said so. */
	free(write_text(store_dir, "trusted", "junk\n", 0600));
	is_int(trust_update(store_dir, real, sha, &changed, &e), -1, "update: a malformed store is an error");
	ok(strstr(e.msg, "/trusted:1: expected 'SHA256 PATH'") != NULL, "update: the store's line");
	text = slurp(store);
	is_str(text, "junk\n", "update: the malformed store is untouched");
	free(text);
	unlink(store);

	/* Writers at once: the lock keeps every entry. */
	enum { KIDS = 6, EACH = 20 };
	pid_t kids[KIDS];
	for (int k = 0; k < KIDS; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			int bad = 0;
			for (int i = 0; i < EACH; i++) {
				char *p = xasprintf("/k%d/f%d.ini", k, i);
				struct err ke = {0};
				bool c;
				bad |= trust_update(store_dir, p, HA, &c, &ke) < 0;
				free(p);
			}
			_exit(bad);
		}
	}
	int failed = 0;
	for (int k = 0; k < KIDS; k++) {
		int status;
		failed += kids[k] < 0 || waitpid(kids[k], &status, 0) < 0 || status != 0;
	}
	is_int(failed, 0, "update: %d writers at once, each succeeds", KIDS);
	text = slurp(store);
	struct trust_store ts = {0};
	int rc = text ? trust_parse(&ts, "store", text, strlen(text), &e) : -1;
	is_int(rc == 0 ? (long long)ts.n : -1, KIDS * EACH, "update: every entry of every writer is there");
	trust_store_free(&ts);
	free(text);
	char *tmpl = xasprintf("ls -a %s | grep -c 'trusted\\.' >%s/count", store_dir, dir);
	(void)!system(tmpl);
	free(tmpl);
	char *count_path = xasprintf("%s/count", dir);
	text = slurp(count_path);
	is_str(text, "1\n", "update: no temporary file is left, only the lock");
	free(text);
	unlink(count_path);
	free(count_path);

	unlink(store);
	char *lock = xasprintf("%s/trusted.lock", store_dir);
	unlink(lock);
	free(lock);
	rmdir(store_dir);
	char *conf = xasprintf("%s/conf", dir);
	rmdir(conf);
	free(conf);
	unlink(path);
	free(path);
	free(real);
	free(store);
	free(store_dir);
}

/* cfg_load_all in dir/proj, with dir/conf as XDG_CONFIG_HOME. */
static void test_layers(const char *dir)
{
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	char *conf = xasprintf("%s/conf", dir);
	char *sdir = xasprintf("%s/sandbox", conf);
	char *proj = xasprintf("%s/proj", dir);
	mkdir(conf, 0700);
	mkdir(sdir, 0700);
	mkdir(proj, 0700);
	setenv("XDG_CONFIG_HOME", conf, 1);
	if (chdir(proj) < 0)
		diag("cannot enter %s", proj);

	struct cfg c;
	struct err e = {0};
	cfg_init(&c);
	is_int(cfg_load_all(&c, NULL, &e), 0, "layers: no file at all is fine");
	cfg_free(&c);

	free(write_text(sdir, "sandbox.ini",
			"[sandbox]\nimage = user\nworkdir = /u\n[env]\nU = user\nP = user\n", 0644));
	cfg_init(&c);
	is_int(cfg_load_all(&c, NULL, &e), 0, "layers: the user's file alone");
	ok(c.image && strcmp(c.image, "user") == 0 && strcmp(c.workdir, "/u") == 0,
	   "layers: the user's keys apply");
	cfg_free(&c);

	free(write_text(proj, "sandbox.ini", "[sandbox]\nimage = proj\n[env]\nP = proj\n", 0644));
	cfg_init(&c);
	is_int(cfg_load_all(&c, NULL, &e), -1, "layers: an untrusted ./sandbox.ini fails the whole load");
	ok(strstr(e.msg, "./sandbox.ini is not trusted") == e.msg, "layers: the message names ./sandbox.ini");
	cfg_free(&c);

	char *real = xasprintf("%s/sandbox.ini", proj);
	char *rreal = realpath(real, NULL);
	char sha[65];
	const char *proj_text = "[sandbox]\nimage = proj\n[env]\nP = proj\n";
	sha256_buf_hex(proj_text, strlen(proj_text), sha);
	bool changed;
	trust_update(sdir, rreal, sha, &changed, &e);
	cfg_init(&c);
	is_int(cfg_load_all(&c, NULL, &e), 0, "layers: the user's file, then the trusted project file");
	ok(c.image && strcmp(c.image, "proj") == 0 && strcmp(c.workdir, "/u") == 0,
	   "layers: the project's keys over the user's, the others kept");
	ok(c.env.n == 2 && strcmp(c.env.v[0], "U=user") == 0 && strcmp(c.env.v[1], "P=proj") == 0,
	   "layers: [env] merged by name");
	cfg_free(&c);

	char *named = write_text(dir, "named.ini", "[sandbox]\nimage = named\n", 0644);
	cfg_init(&c);
	is_int(cfg_load_all(&c, named, &e), 0, "layers: a named file needs no trust");
	ok(c.image && strcmp(c.image, "named") == 0 && strcmp(c.workdir, "/u") == 0 &&
	   c.env.n == 2 && strcmp(c.env.v[1], "P=user") == 0,
	   "layers: the named file instead of ./sandbox.ini, over the user's");
	cfg_free(&c);

	/* In the user's own directory, ./sandbox.ini is the user's file. */
	if (chdir(sdir) < 0)
		diag("cannot enter %s", sdir);
	cfg_init(&c);
	is_int(cfg_load_all(&c, NULL, &e), 0, "layers: in the user's directory its file needs no trust");
	cfg_free(&c);

	if (chdir(cwd) < 0)
		diag("cannot go back to %s", cwd);
	unsetenv("XDG_CONFIG_HOME");
	char *rm = xasprintf("rm -rf '%s' '%s' '%s'", conf, proj, named);
	(void)!system(rm);
	free(rm);
	free(named);
	free(rreal);
	free(real);
	free(proj);
	free(sdir);
	free(conf);
}

static void test_parse_buffer(void)
{
	struct cfg c;
	struct err e = {0};
	cfg_init(&c);
	is_int(cfg_parse(&c, "T", "[sandbox]\nimage = a\0b\n", 22, &e), -1,
	       "cfg_parse: a NUL byte is refused");
	is_str(e.msg, "T:2: a NUL byte; a config file is text", "cfg_parse: the NUL's line");
	ok(c.image == NULL, "cfg_parse: nothing of that line applied");
	is_int(cfg_parse(&c, "T", "[sandbox]\nimage = x", 19, &e), 0,
	       "cfg_parse: a last line without a newline");
	is_str(c.image, "x", "cfg_parse: ... is read");
	is_int(cfg_parse(&c, "T", "[sandbox]\nimage = yz", 19, &e), 0,
	       "cfg_parse: only len bytes are read");
	is_str(c.image, "y", "cfg_parse: ... not what follows them");
	cfg_free(&c);
}

/* A link is trusted where it stands: never through the file it points
 * to, which may be another project's, trusted with its own mounts. */
static void test_link(const char *dir)
{
	char *store_dir = xasprintf("%s/conf-link/sandbox", dir);
	char *other = xasprintf("%s/other", dir), *here = xasprintf("%s/here", dir);
	mkdir(other, 0755);
	mkdir(here, 0755);
	char *target = write_text(other, "sandbox.ini", "[env]\nB = 1\n", 0644);
	char *link = xasprintf("%s/sandbox.ini", here);
	ok(symlink(target, link) == 0, "a link to another project's file");
	char *real = realpath(target, NULL);
	char sha[65];
	sha256_buf_hex("[env]\nB = 1\n", 12, sha);
	bool changed;
	struct err e = {0};
	trust_update(store_dir, real, sha, &changed, &e);
	struct trust_file f;
	is_int(trust_file_read(link, true, &f, &e), 1, "the link is read");
	ok(f.link, "and known for a link");
	char *key = trust_file_realpath_new(&f, &e);
	ok(key && strcmp(key, link) == 0, "its key is where it stands: %s", key ? key : e.msg);
	is_int(trust_lookup(store_dir, &f, &e), TRUST_UNKNOWN, "not trusted through its target");
	is_int(trust_check(store_dir, &f, &e), -1, "refused");
	ok(strstr(e.msg, "is a symbolic link, and a link is trusted only where it stands") != NULL,
	   "the message says why, and what to run: %s", e.msg);
	trust_update(store_dir, key, sha, &changed, &e);
	is_int(trust_check(store_dir, &f, &e), 0, "trusted once trusted where it stands");
	trust_file_free(&f);
	free(key);
	free(real);
	free(link);
	free(target);
	free(here);
	free(other);
	free(store_dir);
}

int main(void)
{
	char tmpl[] = "/tmp/sandbox-test-trust.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!dir) {
		diag("mkdtemp failed");
		return 1;
	}
	test_parse();
	test_edit_and_format();
	test_file_read(dir);
	test_dir();
	test_check_and_update(dir);
	test_layers(dir);
	test_link(dir);
	test_parse_buffer();
	char *rm = xasprintf("rm -rf '%s'", dir);
	(void)!system(rm);
	free(rm);
	return done_testing();
}
