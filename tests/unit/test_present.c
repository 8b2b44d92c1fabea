/* test_present.c: the presenters of exec, read, write, edit and glob on fixed
 * results: the CLI's text, the --json object, the text for the model,
 * and an MCP result made of them (U+FFFD for bytes that are not UTF-8,
 * the cap); exec's too. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "json.h"
#include "jvb.h"
#include "mcp_result.h"
#include "opts.h"
#include "present_check.h"
#include "results.h"
#include "tap.h"
#include "util.h"

static const char *lines2 = "     1\thello\n     2\tworld\n";

static void test_read(void)
{
	struct read_result r = {.workspace = "sb-1", .path = "a.txt", .start_line = 1, .lines = 2,
				.total_lines = 5, .size = 30, .sha256 = "ab12"};
	sbuf_adds(&r.content, lines2);
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};

	TEXT_OF(read_text, &r, buf);
	check_text(buf, "     1\thello\n     2\tworld\n(3 more lines; continue with --offset 3)\n",
		   "read: the lines, and where to go on");
	read_model(&m, &r);
	check_model(&m, "     1\thello\n     2\tworld\n(3 more lines; continue with offset 3)\n",
		    "read, model: where to go on, as the tool's argument");
	read_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"path\":\"a.txt\",\"content\":\"     1\\thello\\n     2\\tworld\\n\","
		       "\"start_line\":1,\"lines\":2,\"total_lines\":5,\"truncated\":true,\"size\":30,"
		       "\"sha256\":\"ab12\"}\n",
		   "read --json: the object");

	r.total_lines = 3;
	TEXT_OF(read_text, &r, buf);
	check_text(buf, "     1\thello\n     2\tworld\n(1 more line; continue with --offset 3)\n",
		   "read: one more line");
	read_model(&m, &r);
	check_model(&m, "     1\thello\n     2\tworld\n(1 more lines; continue with offset 3)\n",
		    "read, model: one more line, as it always said");

	r.total_lines = 2;
	TEXT_OF(read_text, &r, buf);
	check_text(buf, lines2, "read: all of it, nothing more said");
	read_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"path\":\"a.txt\",\"content\":\"     1\\thello\\n     2\\tworld\\n\","
		       "\"start_line\":1,\"lines\":2,\"total_lines\":2,\"truncated\":false,\"size\":30,"
		       "\"sha256\":\"ab12\"}\n",
		   "read --json: not truncated");
	read_result_free(&r);

	struct read_result empty = {.workspace = "sb-1", .path = "e", .start_line = 1};
	TEXT_OF(read_text, &empty, buf);
	check_text(buf, "(empty file)\n", "read: an empty file says so");
	read_model(&m, &empty);
	check_model(&m, "(empty file)\n", "read, model: an empty file says so");
}

static void test_write(void)
{
	struct write_result r = {.workspace = "sb-1", .path = "d/x", .bytes = 12, .sha256 = "ff",
				 .created = true};
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	TEXT_OF(write_text, &r, buf);
	check_text(buf, "wrote 12 bytes to d/x (new file)\n", "write: bytes, path, new file");
	write_model(&m, &r);
	check_model(&m, "wrote 12 bytes to d/x (new file)", "write, model: no newline");
	write_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"path\":\"d/x\",\"bytes\":12,\"sha256\":\"ff\",\"created\":true}\n",
		   "write --json: the object");
	r.bytes = 1;
	r.created = false;
	r.path = "a\nb";
	TEXT_OF(write_text, &r, buf);
	check_text(buf, "wrote 1 byte to \"a\\nb\"\n", "write: one byte; a path with a newline quoted");
	write_model(&m, &r);
	check_model(&m, "wrote 1 bytes to a\nb", "write, model: the path as it is");
}

static const char *diff1 = "--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n";

static void test_edit(void)
{
	struct edit_result r = {.workspace = "sb-1", .path = "f", .replacements = 1, .sha256 = "cd"};
	sbuf_adds(&r.diff, diff1);
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	TEXT_OF(edit_text, &r, buf);
	check_text(buf, diff1, "edit: the diff");
	edit_model(&m, &r);
	check_model(&m, "replaced 1 occurrence in f\n--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n",
		    "edit, model: what was replaced, then the diff");
	edit_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"path\":\"f\",\"replacements\":1,"
		       "\"diff\":\"--- f\\n+++ f\\n@@ -1 +1 @@\\n-a\\n+b\\n\",\"sha256\":\"cd\"}\n",
		   "edit --json: the object");
	sbuf_reset(&r.diff);
	r.replacements = 3;
	r.omitted = true;
	r.omitted_line = 7;
	r.omitted_old = 1;
	r.omitted_new = 40000;
	TEXT_OF(edit_text, &r, buf);
	check_text(buf, "(diff omitted: over 1 MiB; from line 7, 1 line became 40000)\n",
		   "edit: a diff too large, where it changed");
	edit_model(&m, &r);
	check_model(&m, "replaced 3 occurrences in f\n"
			"(diff omitted: over 1 MiB; from line 7, 1 line became 40000)\n",
		    "edit, model: occurrences, and the note");
	edit_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"path\":\"f\",\"replacements\":3,\"diff\":\"\","
		       "\"diff_omitted\":{\"line\":7,\"old_lines\":1,\"new_lines\":40000},\"sha256\":\"cd\"}\n",
		   "edit --json: diff_omitted");
	edit_result_free(&r);
}

static void test_glob(void)
{
	struct glob_result r = {.workspace = "sb-1", .pattern = "*.c", .path = "src", .total = 5,
				.limit = 2, .max_bytes = (size_t)4 << 20};
	strvec_push(&r.matches, "src/b.c");
	strvec_push(&r.matches, "src/a\tb.c");
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	TEXT_OF(glob_text, &r, buf);
	check_text(buf, "src/b.c\n\"src/a\\tb.c\"\n(3 more matches; raise --limit or narrow the pattern)\n",
		   "glob: the names, quoted when they must be, and the rest at --limit");
	glob_model(&m, &r);
	check_model(&m, "src/b.c\nsrc/a\tb.c\n(3 more; raise limit or narrow the search)\n",
		    "glob, model: the names as they are, and the rest");
	glob_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"pattern\":\"*.c\",\"path\":\"src\","
		       "\"matches\":[\"src/b.c\",\"src/a\\tb.c\"],\"total\":5,\"truncated\":true}\n",
		   "glob --json: the object");
	r.limit = 10;
	r.total = 3;
	TEXT_OF(glob_text, &r, buf);
	check_text(buf, "src/b.c\n\"src/a\\tb.c\"\n(1 more match; the output stops at 4 MiB: narrow the pattern)\n",
		   "glob: the rest past the bytes shown");
	glob_result_free(&r);

	struct glob_result none = {.workspace = "sb-1", .pattern = "*.x", .path = ".", .limit = 10};
	TEXT_OF(glob_text, &none, buf);
	check_text(buf, "", "glob: nothing on stdout when nothing matches");
	is_str(err_text, "sandbox: glob: no file matches\n", "glob: stderr says none matches");
	glob_model(&m, &none);
	check_model(&m, "no file matches\n", "glob, model: says none matches");
	glob_tree(&t, &none);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"pattern\":\"*.x\",\"path\":\".\",\"matches\":[],"
		       "\"total\":0,\"truncated\":false}\n",
		   "glob --json: no match");
}

/* An exec result whose streams were kept: out, and err cut from total. */
static void exec_fill(struct exec_result *r, const char *out, const char *err,
		      unsigned long long err_total)
{
	*r = (struct exec_result){.cmd = "exec", .workspace = "sb-1", .timeout = 2,
				  .removed = true};
	sbuf_adds(&r->out, out);
	sbuf_adds(&r->err, err);
	r->out_total = strlen(out);
	r->err_total = err_total;
	r->err_cut = err_total > strlen(err);
	r->res.duration_ms = 12;
}

static void run_left_text(FILE *out, FILE *err, const struct exec_result *r)
{
	(void)out;
	run_left(err, r);
}

static void test_exec(void)
{
	struct exec_result r;
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	exec_fill(&r, "hi\n", "", 0);
	r.res.outcome = EXEC_DONE;
	TEXT_OF(exec_text, &r, buf);
	check_text(buf, "", "exec: the output went out live: no text after it");
	is_str(err_text, "", "exec: a command's own status says nothing on stderr");
	exec_model(&m, &r);
	check_model(&m, "hi\n[exit code 0]", "exec, model: stdout and the exit code");
	ok(!exec_is_error(&r), "exec: status 0 is no error");
	exec_result_type.model(&m, &r);
	check_model(&m, "hi\n[exit code 0]", "exec, model, through its result type: the same");
	ok(!exec_result_type.is_error(&r), "exec, through its result type: status 0 is no error");
	exec_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"exit_code\":0,\"stdout\":\"hi\\n\",\"stderr\":\"\","
		       "\"timed_out\":false,\"oom_killed\":false,\"kill\":null,\"duration_ms\":12,"
		       "\"stdout_truncated\":false,\"stderr_truncated\":false,\"stdout_bytes\":3,"
		       "\"stderr_bytes\":0}\n",
		   "exec --json: the object");
	exec_result_free(&r);

	/* stderr kept head and tail: 4 of 10 bytes, the middle cut. */
	exec_fill(&r, "x", "ab\xc3\xa9", 10);
	r.res.outcome = EXEC_TIMED_OUT;
	r.res.kill = KILL_KILLED;
	r.status = 124;
	TEXT_OF(exec_text, &r, buf);
	check_text(buf, "", "exec timed out: nothing on stdout");
	is_str(err_text, "sandbox: exec: timed out after 2s; the command was killed in the workspace\n",
	       "exec timed out: stderr says so, and what became of the command");
	exec_model(&m, &r);
	check_model(&m, "x\n[stderr]\nab\n[... 6 bytes cut ...]\n\xc3\xa9\n"
			"[timed out after 2s; the command was killed in the workspace]",
		    "exec, model: stderr's cut middle is marked, at a character's start");
	ok(exec_is_error(&r), "exec: a timeout is an error for the model");
	ok(exec_result_type.is_error(&r), "exec, through its result type: a timeout is an error");
	exec_tree(&t, &r);
	ok(strstr(jv_str(jv_get(&t, "kill")), "killed") != NULL, "exec --json: kill says killed");
	jvb_free(&t);
	exec_result_free(&r);

	exec_fill(&r, "", "", 0);
	r.res.outcome = EXEC_DONE;
	r.res.status = r.status = 137;
	r.res.oom = true;
	TEXT_OF(exec_text, &r, buf);
	free(buf);
	is_str(err_text, "sandbox: exec: the command was killed for lack of memory (the workspace's memory limit)\n",
	       "exec: an out-of-memory kill is said");
	exec_model(&m, &r);
	check_model(&m, "[exit code 137]", "exec, model: the status, nothing else");
	ok(exec_is_error(&r), "exec: a status other than 0 is an error for the model");
	exec_result_free(&r);

	/* exec -t: the terminal showed it all; its result is its status. */
	r = (struct exec_result){.cmd = "exec", .workspace = "sb-1", .status = 3};
	TEXT_OF(exec_result_type.text, &r, buf);
	check_text(buf, "", "exec -t: nothing on stdout after the terminal");
	is_str(err_text, "", "exec -t: nothing on stderr either");
	exec_result_free(&r);

	exec_fill(&r, "", "", 0);
	r.cmd = "run";
	r.workspace = "sb-9";
	r.removed = false;
	err_set(&r.not_removed, ERR_ENGINE, "cannot reach the engine");
	TEXT_OF(run_left_text, &r, buf);
	free(buf);
	is_str(err_text, "sandbox: run: cannot reach the engine; remove it with 'sandbox destroy sb-9'\n",
	       "run: a workspace it could not remove is named, with what to do");
	r.removed = true;
	TEXT_OF(run_left_text, &r, buf);
	free(buf);
	is_str(err_text, "", "run: nothing said when it was removed");
	ok(cmd_of(C_RUN)->finish == run_finish && !cmd_of(C_EXEC)->finish,
	   "run's row says what it left, after the result or the error; exec's does not");
	exec_result_free(&r);
}

/* The life cycle's and trust's results. */
static void test_life(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct ref_result ref = {.workspace = "sb-1", .id = "abc"};
	TEXT_OF(ref_text, &ref, buf);
	check_text(buf, "sb-1\n", "create, start, stop: the ref alone");
	ref_tree(&t, &ref);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"id\":\"abc\"}\n", "create --json: ref and id");

	struct ws_row rows[] = {
		{.id = "i1", .name = "sb-1", .state = "running", .image = "busybox", .created = 1000, .spec = "s1"},
		{.id = "i2", .name = "sb-2", .state = "exited", .image = "debian", .created = 100, .spec = ""},
	};
	struct list_result l = {.rows = rows, .n = 2, .now = 1000 + 3 * 3600};
	TEXT_OF(list_text, &l, buf);
	check_text(buf,
		   "REF                      STATE      IMAGE                            AGE   EXPIRES\n"
		   "sb-1                     running    busybox                          3h    -\n"
		   "sb-2                     exited     debian                           3h    -\n",
		   "list: a table, ages in the largest unit, no expiry");
	rows[1].runtime = "runsc";
	TEXT_OF(list_text, &l, buf);
	check_text(buf,
		   "REF                      STATE      IMAGE                            AGE   EXPIRES          RUNTIME\n"
		   "sb-1                     running    busybox                          3h    -                -\n"
		   "sb-2                     exited     debian                           3h    -                runsc\n",
		   "list: a RUNTIME column once a workspace has a runtime of its own");
	rows[1].runtime = NULL;
	l.now = 1000 + 119;
	TEXT_OF(list_text, &l, buf);
	ok(strstr(buf, "running    busybox                          119s  -\n") &&
		   strstr(buf, "16m   -\n"), "list: seconds under 2 minutes, then minutes");
	free(buf);
	list_tree(&t, &l);
	check_tree(&t, "{\"workspaces\":[{\"workspace\":\"sb-1\",\"id\":\"i1\",\"state\":\"running\","
		       "\"image\":\"busybox\",\"created\":1000,\"age_s\":119,\"expires\":null,"
		       "\"idle_s\":null,\"expired\":false,\"spec\":\"s1\",\"runtime\":null},{\"workspace\":\"sb-2\","
		       "\"id\":\"i2\",\"state\":\"exited\",\"image\":\"debian\",\"created\":100,"
		       "\"age_s\":1019,\"expires\":null,\"idle_s\":null,\"expired\":false,\"spec\":\"\",\"runtime\":null}]}\n",
		   "list --json: every workspace, its age in seconds, no expiry");

	struct ws_row exp[] = {
		{.id = "i3", .name = "sb-3", .state = "running", .image = "b", .created = 1000,
		 .expires = 1000 + 7200, .idle = 1800, .spec = ""},
		{.id = "i4", .name = "sb-4", .state = "exited", .image = "b", .created = 1000,
		 .exit = 4, .idle = 60, .spec = ""},
		{.id = "i5", .name = "sb-5", .state = "running", .image = "b", .created = 1000,
		 .expires = 1010, .spec = ""},
		{.id = "i6", .name = "sb-6", .state = "exited", .image = "b", .created = 1000,
		 .exit = 4, .spec = ""},
	};
	l = (struct list_result){.rows = exp, .n = 4, .now = 1000 + 60};
	TEXT_OF(list_text, &l, buf);
	check_text(buf,
		   "REF                      STATE      IMAGE                            AGE   EXPIRES\n"
		   "sb-3                     running    b                                60s   in 119m, idle 30m\n"
		   "sb-4                     exited     b                                60s   expired\n"
		   "sb-5                     running    b                                60s   expired\n"
		   "sb-6                     exited     b                                60s   -\n",
		   "list: the ttl's deadline and the idle time; expired past the ttl or stopped by the keep-alive (4 without an idle time is the command's own)");
	list_tree(&t, &l);
	size_t jlen;
	FILE *jf = open_memstream(&buf, &jlen);
	present_json(jf, &t);
	fclose(jf);
	jvb_free(&t);
	ok(strstr(buf, "\"expires\":8200,\"idle_s\":1800,\"expired\":false") != NULL,
	   "list --json: expires as an epoch, idle in seconds");
	free(buf);

	struct removed_result rm = {0};
	removed_tree(&t, &rm);
	check_tree(&t, "{\"removed\":[]}\n", "destroy --json: none removed is an empty list");
	strvec_push(&rm.names, "sb-1");
	strvec_push(&rm.names, "sb-2");
	TEXT_OF(removed_text, &rm, buf);
	check_text(buf, "removed sb-1\nremoved sb-2\n", "destroy, prune: a line each");
	removed_result_free(&rm);

	struct trust_result tr = {.path = "/p/sandbox.ini", .sha256 = "ff", .trusted = true};
	TEXT_OF(trust_text, &tr, buf);
	check_text(buf, "trusted /p/sandbox.ini (sha256 ff)\n", "trust: the path and its hash");
	trust_tree(&t, &tr);
	check_tree(&t, "{\"path\":\"/p/sandbox.ini\",\"sha256\":\"ff\",\"trusted\":true}\n",
		   "trust --json");
	tr = (struct trust_result){.path = "/p/x.ini", .revoked = false};
	TEXT_OF(trust_text, &tr, buf);
	check_text(buf, "/p/x.ini was not trusted\n", "trust --revoke of an untrusted file says so");
	tr.revoked = true;
	trust_tree(&t, &tr);
	check_tree(&t, "{\"path\":\"/p/x.ini\",\"revoked\":true,\"trusted\":false}\n",
		   "trust --revoke --json");
}

/* doctor: a line per check, the fix after a failure; the same in JSON,
 * a null fix when it passed, ok only when every check did. */
static void test_doctor(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct doctor_check v[] = {
		{"engine", DOCTOR_OK, "/usr/bin/docker (Docker version 1)", NULL},
		{"daemon", DOCTOR_FAIL, "no answer at unix:///x", "start it"},
		{"image", DOCTOR_SKIP, "not checked: the daemon did not answer", NULL},
	};
	struct doctor_result r = {v, 3};
	TEXT_OF(doctor_text, &r, buf);
	check_text(buf,
		   "ok    engine: /usr/bin/docker (Docker version 1)\n"
		   "FAIL  daemon: no answer at unix:///x; start it\n"
		   "skip  image: not checked: the daemon did not answer\n",
		   "doctor: ok, FAIL with its fix, skip");
	doctor_tree(&t, &r);
	check_tree(&t,
		   "{\"checks\":[{\"check\":\"engine\",\"ok\":true,\"skipped\":false,"
		   "\"detail\":\"/usr/bin/docker (Docker version 1)\",\"fix\":null},"
		   "{\"check\":\"daemon\",\"ok\":false,\"skipped\":false,"
		   "\"detail\":\"no answer at unix:///x\",\"fix\":\"start it\"},"
		   "{\"check\":\"image\",\"ok\":false,\"skipped\":true,"
		   "\"detail\":\"not checked: the daemon did not answer\",\"fix\":null}],"
		   "\"ok\":false}\n",
		   "doctor --json: every check, null fixes, ok false");
	r.n = 1;
	doctor_tree(&t, &r);
	check_tree(&t,
		   "{\"checks\":[{\"check\":\"engine\",\"ok\":true,\"skipped\":false,"
		   "\"detail\":\"/usr/bin/docker (Docker version 1)\",\"fix\":null}],"
		   "\"ok\":true}\n",
		   "doctor --json: ok true when every check passed");
}

static void test_mcp_result(void)
{
	struct read_result r = {.workspace = "sb-1", .path = "l1", .start_line = 1, .lines = 1,
				.total_lines = 1, .size = 11, .sha256 = "00"};
	sbuf_adds(&r.content, "     1\tcaf\xff\n");
	struct sbuf text = {0}, res = {0};
	struct jv t = {0};
	read_model(&text, &r);
	read_tree(&t, &r);
	mcp_result(&res, &text, &t, 1000, false);
	is_str(res.buf, "{\"content\":[{\"type\":\"text\",\"text\":\"     1\\tcaf\xef\xbf\xbd\\n\"}],"
			"\"structuredContent\":{\"workspace\":\"sb-1\",\"path\":\"l1\","
			"\"content\":\"     1\\tcaf\xef\xbf\xbd\\n\",\"start_line\":1,\"lines\":1,"
			"\"total_lines\":1,\"truncated\":false,\"size\":11,\"sha256\":\"00\"},"
			"\"isError\":false}",
	       "MCP result: a byte that is not UTF-8 is U+FFFD itself, in the text and the tree");
	sbuf_free(&res);
	jvb_free(&t);

	read_tree(&t, &r);
	mcp_result(&res, &text, &t, 12, false);
	is_str(res.buf, "{\"content\":[{\"type\":\"text\",\"text\":\"     1\\tcaf\xef\xbf\xbd\\n\"}],"
			"\"structuredContent\":{\"workspace\":\"sb-1\",\"path\":\"l1\","
			"\"content\":\"    \",\"start_line\":1,\"lines\":1,"
			"\"total_lines\":1,\"truncated\":false,\"size\":11,\"sha256\":\"00\","
			"\"content_truncated\":true,\"content_bytes\":14},\"isError\":false}",
	       "MCP result: capped, the members share the room, content gets its marks");
	sbuf_free(&res);
	jvb_free(&t);

	read_tree(&t, &r);
	mcp_result(&res, &text, &t, 10, false);
	ok(strstr(res.buf, "\"text\":\"     \\n[... 2 characters cut ...]\\ncaf\xef\xbf\xbd\\n\"") != NULL,
	   "MCP result: a text over the limit keeps its head and its tail");
	sbuf_free(&res);
	jvb_free(&t);
	sbuf_free(&text);
	read_result_free(&r);
}

int main(void)
{
	test_read();
	test_write();
	test_edit();
	test_glob();
	test_exec();
	test_life();
	test_doctor();
	test_mcp_result();
	free(err_text);
	return done_testing();
}
