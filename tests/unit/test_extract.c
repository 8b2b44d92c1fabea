/* test_extract.c: cp's host side of a stream from a workspace: the name
 * checks (pure), and extraction into a scratch directory: files renamed
 * into place with their modes and mtimes, links as links, and every way
 * out of DEST refused, with nothing half-written left behind. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract.h"
#include "tap.h"

static void name_is(const char *in, const char *want, const char *why_has)
{
	struct sbuf out = {0};
	const char *why = extract_name(in, &out);
	if (want)
		ok(!why && strcmp(out.buf, want) == 0, "name '%s' is '%s' (got '%s', %s)", in, want,
		   out.buf, why ? why : "accepted");
	else
		ok(why && strstr(why, why_has), "name '%s' refused: %s", in, why ? why : "(accepted)");
	sbuf_free(&out);
}

static void map_is(const char *clean, const char *top, const char *as, const char *want)
{
	struct sbuf out = {0};
	const char *why = extract_map(clean, top, as, &out);
	if (want)
		ok(!why && strcmp(out.buf, want) == 0, "'%s' under %s as %s is '%s' (got '%s')", clean,
		   top ? top : "-", as ? as : "-", want, out.buf);
	else
		ok(why != NULL, "'%s' is not under %s", clean, top);
	sbuf_free(&out);
}

static int count_temps(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "find %s -name '.sandbox-cp-*' | grep -q .", dir);
	return system(cmd) == 0;
}

int main(void)
{
	name_is("a/b", "a/b", NULL);
	name_is("./a//b/", "a/b", NULL);
	name_is("./", "", NULL);
	name_is(".", "", NULL);
	name_is("a/./b/.", "a/b", NULL);
	name_is("..a/b..", "..a/b..", NULL);
	name_is("new\nline/-x", "new\nline/-x", NULL);
	name_is("", NULL, "empty");
	name_is("/etc/passwd", NULL, "absolute");
	name_is("a/../../b", NULL, "..");
	name_is("..", NULL, "..");
	name_is("a/..", NULL, "..");
	{
		/* A chain of one-letter directories as long as a path may be,
		 * and one byte past it. */
		char deep[EXTRACT_NAME_MAX + 2];
		for (size_t i = 0; i < sizeof(deep) - 1; i++)
			deep[i] = i % 2 ? '/' : 'd';
		deep[EXTRACT_NAME_MAX] = '\0';
		struct sbuf out = {0};
		ok(!extract_name(deep, &out), "a name of %d bytes is taken", EXTRACT_NAME_MAX);
		deep[EXTRACT_NAME_MAX] = 'd';
		deep[EXTRACT_NAME_MAX + 1] = '\0';
		ok(extract_name(deep, &out) != NULL, "one of %d bytes is refused", EXTRACT_NAME_MAX + 1);
		sbuf_free(&out);
	}
	map_is("top/x/y", "top", "dest", "dest/x/y");
	map_is("top", "top", "dest", "dest");
	map_is("top", "top", NULL, "");
	map_is("topx/y", "top", "dest", NULL);
	map_is("other", "top", "dest", NULL);
	map_is("a/b", NULL, NULL, "a/b");

	char dir[] = "/tmp/test_extract.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char path[600];
	snprintf(path, sizeof(path), "%s/outside", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dest", dir);
	mkdir(path, 0755);
	int root = open(path, O_RDONLY | O_DIRECTORY);
	struct extract x;
	struct err e = {0};
	extract_init(&x, root, "src", "copy");
	ok(extract_entry(&x, "./src/", '5', 0750, 1000000000, "", &e) == 0, "the top directory");
	ok(extract_entry(&x, "./src/f", '0', 0640, 1234567890, "", &e) == 0 &&
	   extract_data(&x, "hello", 5, &e) == 0, "a file, begun");
	snprintf(path, sizeof(path), "%s/dest/copy/f", dir);
	ok(access(path, F_OK) != 0 && count_temps(dir), "not in place until whole: a temporary");
	ok(extract_end(&x, &e) == 0, "ended");
	struct stat st;
	ok(stat(path, &st) == 0 && st.st_size == 5 && (st.st_mode & 07777) == 0640 &&
	   st.st_mtime == 1234567890 && !count_temps(dir), "in place, with its mode and mtime");
	ok(extract_entry(&x, "src/l", '2', 0777, 0, "../outside", &e) == 0, "a link pointing out");
	e.msg[0] = '\0';
	ok(extract_entry(&x, "src/l/pwned", '0', 0644, 0, "", &e) < 0 && strstr(e.msg, "src/l/pwned") &&
	   strstr(e.msg, "symbolic link"), "a file through it is refused and named (%s)", e.msg);
	snprintf(path, sizeof(path), "%s/outside/pwned", dir);
	ok(access(path, F_OK) != 0, "nothing written outside");
	ok(extract_entry(&x, "src/../../escape", '0', 0644, 0, "", &e) < 0 && strstr(e.msg, ".."),
	   "a .. name is refused");
	ok(extract_entry(&x, "/abs", '0', 0644, 0, "", &e) < 0 && strstr(e.msg, "absolute"),
	   "an absolute name is refused");
	ok(extract_entry(&x, "elsewhere/f", '0', 0644, 0, "", &e) < 0 && strstr(e.msg, "not under"),
	   "a name not under the source is refused");
	ok(extract_entry(&x, "src/h", '1', 0644, 0, "/etc/passwd", &e) < 0,
	   "a hard link to an absolute name is refused");
	ok(extract_entry(&x, "src/h", '1', 0644, 0, "src/f", &e) == 0, "a hard link to a file it wrote");
	snprintf(path, sizeof(path), "%s/dest/copy/h", dir);
	struct stat st2;
	ok(stat(path, &st2) == 0 && st2.st_ino == st.st_ino, "is the same file");
	snprintf(path, sizeof(path), "%s/dest/copy/pre", dir);
	close(open(path, O_WRONLY | O_CREAT, 0644));
	ok(extract_entry(&x, "src/h2", '1', 0644, 0, "src/pre", &e) < 0 && strstr(e.msg, "did not write"),
	   "a hard link to a file already there is refused");
	ok(extract_entry(&x, "src/fifo", '6', 0644, 0, "", &e) == 0 && x.skipped == 1 && x.first_skipped,
	   "a FIFO is skipped and counted");
	ok(extract_entry(&x, "src/cut", '0', 0644, 0, "", &e) == 0 && extract_data(&x, "abc", 3, &e) == 0,
	   "a file cut short, begun");
	ok(extract_entry(&x, "src", '0', 0644, 0, "", &e) < 0 && strstr(e.msg, "not a directory"),
	   "the top as a file is refused");
	snprintf(path, sizeof(path), "%s/dest/copy/cut", dir);
	ok(access(path, F_OK) != 0 && !count_temps(dir), "the cut file is not there, nor its temporary");
	ok(extract_finish(&x, &e) == 0, "finished");
	snprintf(path, sizeof(path), "%s/dest/copy", dir);
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0750 && st.st_mtime == 1000000000,
	   "the directory's mode and mtime, after its contents");
	extract_free(&x);

	/* One file: the top itself, nothing else. */
	extract_init(&x, root, "one", "single");
	x.top_only = true;
	ok(extract_entry(&x, "./one", '0', 0600, 0, "", &e) == 0 && extract_end(&x, &e) == 0, "one file");
	ok(extract_entry(&x, "./one/more", '0', 0600, 0, "", &e) < 0 && strstr(e.msg, "more than"),
	   "a second entry is refused");
	extract_free(&x);
	close(root);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", dir, dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	return done_testing();
}
