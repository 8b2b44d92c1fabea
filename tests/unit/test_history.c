/* test_history.c: the history's files (history.h): records appended
 * and read back in order, a file rotated past HISTORY_ROTATE with the
 * older one kept, a torn last line left for later, names that are no
 * workspace's refused, a link where a file should be refused; and a
 * record's fields as record_format writes them (record.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history.h"
#include "jsonr.h"
#include "opts.h"
#include "record.h"
#include "tap.h"

static char dir[] = "/tmp/test_history.XXXXXX";

static int lines_of(const char *name, struct strvec *v, long long *size)
{
	struct err e = {0};
	return history_lines(dir, name, v, size, &e);
}

static void test_append_and_read(void)
{
	struct err e = {0};
	ok(history_append(dir, "ws-1", "{\"a\":1}", 7, &e) == 0, "a record is appended");
	ok(history_append(dir, "ws-1", "{\"a\":2}", 7, &e) == 0, "and another");
	struct strvec v = {0};
	long long size = 0;
	ok(lines_of("ws-1", &v, &size) == 0 && v.n == 2 && strcmp(v.v[0], "{\"a\":1}") == 0 &&
	   strcmp(v.v[1], "{\"a\":2}") == 0, "read back in order");
	is_int(size, 16, "and the size read is the file's");
	struct stat st;
	char *path = xasprintf("%s/ws-1.jsonl", dir);
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "the file is 0600");
	/* A torn line (a writer's, half done) waits. */
	FILE *f = fopen(path, "a");
	fputs("{\"a\":3", f);
	fclose(f);
	struct strvec more = {0};
	ok(history_more(dir, "ws-1", &more, &size, &e) == 0 && more.n == 0, "a torn line is not read");
	f = fopen(path, "a");
	fputs("}\n", f);
	fclose(f);
	ok(history_more(dir, "ws-1", &more, &size, &e) == 0 && more.n == 1 &&
	   strcmp(more.v[0], "{\"a\":3}") == 0, "and read once whole");
	strvec_clear(&more);
	strvec_clear(&v);
	free(path);
	ok(history_append(dir, "ws-1", "a\nb", 3, &e) < 0, "a record with a newline is refused");
	ok(history_append(dir, "../x", "{}", 2, &e) < 0, "a name with a slash is refused");
	ok(!history_name_ok(".hidden") && !history_name_ok("") && history_name_ok("a.b_c-1"),
	   "names are a workspace's");
}

static void test_rotation(void)
{
	struct err e = {0};
	char rec[1024];
	memset(rec, 'x', sizeof(rec));
	rec[0] = '{';
	rec[sizeof(rec) - 1] = '}';
	long n = HISTORY_ROTATE / (long)sizeof(rec) + 3;
	bool all = true;
	for (long i = 0; i < n && all; i++)
		all = history_append(dir, "ws-2", rec, sizeof(rec), &e) == 0;
	ok(all, "%ld records of 1 KiB appended", n);
	char *old = xasprintf("%s/ws-2.jsonl.1", dir), *cur = xasprintf("%s/ws-2.jsonl", dir);
	struct stat so, sc;
	ok(stat(old, &so) == 0 && stat(cur, &sc) == 0 && so.st_size >= HISTORY_ROTATE &&
	   sc.st_size < HISTORY_ROTATE, "the file was rotated past %ld bytes", HISTORY_ROTATE);
	struct strvec v = {0};
	long long size = 0;
	ok(lines_of("ws-2", &v, &size) == 0 && (long)v.n == n, "both are read: every record");
	strvec_clear(&v);
	struct strvec names = {0};
	ok(history_names(dir, &names, &e) == 0 && names.n == 2 && strcmp(names.v[0], "ws-1") == 0 &&
	   strcmp(names.v[1], "ws-2") == 0, "the names with a history, sorted");
	strvec_clear(&names);
	ok(history_remove(dir, "ws-2", &e) == 0 && stat(old, &so) < 0 && stat(cur, &sc) < 0,
	   "remove takes both files");
	free(old);
	free(cur);
}

static void test_link_refused(void)
{
	struct err e = {0};
	char *target = xasprintf("%s/target", dir), *link = xasprintf("%s/ws-3.jsonl", dir);
	FILE *f = fopen(target, "w");
	fclose(f);
	ok(symlink(target, link) == 0, "a link in a file's place");
	ok(history_append(dir, "ws-3", "{}", 2, &e) < 0, "is not written through");
	struct stat st;
	ok(stat(target, &st) == 0 && st.st_size == 0, "its target is as it was");
	free(target);
	free(link);
}

static void test_record(void)
{
	struct app a = {0};
	cfg_init(&a.cfg);
	char *argv[] = {"-w", "w1", "exec", "--", "echo", "hi"};
	a.argv = argv;
	a.argc = 6;
	const struct command *c = cmd_find("exec");
	struct record_start s = {.wall_ms = 1796650000123LL, .ms = 1000};
	struct err e = {0};
	err_set(&e, ERR_WORKSPACE, "gone");
	struct sbuf out = {0};
	record_format(&out, &a, "w1", c, NULL, -1, &e, &s, 1042);
	struct jv *d = jv_parse(out.buf, out.len, NULL, NULL, 0);
	ok(d && !memchr(out.buf, '\n', out.len), "a record is one JSON object on one line");
	is_str(jv_str(jv_get(d, "time")), "2026-12-07T13:26:40.123Z", "its time, UTC, to the ms");
	is_str(jv_str(jv_get(d, "via")), "cli", "from the command line");
	is_str(jv_str(jv_get(d, "command")), "exec", "the command");
	ok(jv_count(jv_get(d, "argv")) == 6 && strcmp(jv_str(jv_at(jv_get(d, "argv"), 4)), "echo") == 0,
	   "the words asked");
	is_str(jv_str(jv_get(d, "error")), "workspace", "how it failed");
	ok(jv_get(d, "duration_ms") && jv_get(d, "duration_ms")->num.i == 42, "how long it took");
	jv_free(d);
	sbuf_reset(&out);
	char big[1000];
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	char *many[100];
	for (int i = 0; i < 100; i++)
		many[i] = big;
	a.argv = many;
	a.argc = 100;
	record_format(&out, &a, "w1", c, NULL, -1, &e, &s, 1042);
	d = jv_parse(out.buf, out.len, NULL, NULL, 0);
	size_t kept = jv_count(jv_get(d, "argv"));
	ok(d && kept > 0 && kept < 100 &&
	   strlen(jv_str(jv_at(jv_get(d, "argv"), 0))) == RECORD_VALUE_MAX &&
	   jv_get(d, "argv_cut")->num.i == 100 - (long long)kept && out.len < HISTORY_RECORD_MAX,
	   "what was asked is cut to a bound: %zu words kept, %zu bytes", kept, out.len);
	jv_free(d);
	/* Control bytes take six each in JSON: the bound holds. */
	memset(big, 1, sizeof(big) - 1);
	sbuf_reset(&out);
	record_format(&out, &a, "w1", c, NULL, -1, &e, &s, 1042);
	d = jv_parse(out.buf, out.len, NULL, NULL, 0);
	ok(d && out.len < HISTORY_RECORD_MAX, "also for words of control bytes: %zu bytes", out.len);
	jv_free(d);
	sbuf_free(&out);
	cfg_free(&a.cfg);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_append_and_read();
	test_rotation();
	test_link_refused();
	test_record();
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	free(cmd);
	return done_testing();
}
