/* test_present_grep.c: grep's presenters on results made by hand, in its
 * three outputs (files, content with context, count): the CLI's text
 * (names quoted where they must be, "--" between groups, the rest past
 * --limit or the bytes), the --json object and the text for the model.
 * The expected text is t34-grep.sh's where it tests the same. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grep.h"
#include "present_check.h"
#include "results.h"
#include "tap.h"
#include "util.h"

/* A result as grep_finish leaves it: files in order, with their lines. */
static struct grep_result grep_res(enum grep_mode mode, long context, const char *path)
{
	struct grep *g = xmalloc(sizeof(*g));
	memset(g, 0, sizeof(*g));
	g->o.mode = mode;
	g->o.before = g->o.after = context;
	return (struct grep_result){.workspace = "sb-1", .pattern = "foo", .path = path, .g = g,
				    .limit = 100, .max_bytes = (size_t)4 << 20};
}

static struct grep_file *add_file(struct grep_result *r, const char *path, long count)
{
	struct grep *g = r->g;
	g->files = xrealloc(g->files, (g->nfiles + 1) * sizeof(*g->files));
	struct grep_file *f = &g->files[g->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	f->count = count;
	g->produced += g->o.mode == GREP_CONTENT ? 0 : 1;
	return f;
}

/* A line of f: a match, or context (sep: a "--" before it). */
static void add_line(struct grep_result *r, struct grep_file *f, long no, const char *text,
		     bool match, bool sep)
{
	f->lines = xrealloc(f->lines, (f->nlines + 1) * sizeof(*f->lines));
	f->lines[f->nlines++] = (struct grep_line){no, xstrdup(text), match, sep};
	r->g->produced++;
}

static void test_files(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	struct grep_result r = grep_res(GREP_FILES, 0, "r");
	add_file(&r, "r/a.txt", 3);
	add_file(&r, "r/crlf.txt", 1);
	r.g->produced = 4;
	r.limit = 2;
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r/a.txt\nr/crlf.txt\n(2 more lines; raise --limit or narrow the search)\n",
		   "grep: the files, then how many more past --limit");
	is_str(err_text, "", "grep: nothing on stderr when something matched");
	grep_model(&m, &r);
	check_model(&m, "r/a.txt\nr/crlf.txt\n(2 more; raise limit or narrow the search)\n",
		    "grep, model: the files, and how many more");
	grep_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"pattern\":\"foo\",\"path\":\"r\",\"output\":\"files\","
		       "\"matches\":[\"r/a.txt\",\"r/crlf.txt\"],\"total_lines\":4,\"truncated\":true}\n",
		   "grep --json files: the names, total_lines, truncated");
	r.limit = 100;
	r.g->produced = 3;
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r/a.txt\nr/crlf.txt\n(1 more line; the output stops at 4 MiB: narrow the search)\n",
		   "grep: one more line, past the bytes shown");
	r.g->produced = 2;
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r/a.txt\nr/crlf.txt\n", "grep: all shown, nothing more said");
	grep_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"pattern\":\"foo\",\"path\":\"r\",\"output\":\"files\","
		       "\"matches\":[\"r/a.txt\",\"r/crlf.txt\"],\"total_lines\":2,\"truncated\":false}\n",
		   "grep --json files: all shown, not truncated");
	grep_result_free(&r);
	ok(r.g == NULL, "grep_result_free: nothing left to free twice");
}

/* Names with a quote, a colon, a newline, a tab (t34's r2). */
static const char *const r2[] = {"r2/\"q.txt", "r2/a:b.txt", "r2/new\nline.txt", "r2/plain.txt",
				 "r2/tab\there.txt", "\"q"};

static struct grep_result r2_res(enum grep_mode mode)
{
	struct grep_result r = grep_res(mode, 0, "r2");
	for (size_t i = 0; i < sizeof(r2) / sizeof(r2[0]); i++) {
		struct grep_file *f = add_file(&r, r2[i], 1);
		if (mode == GREP_CONTENT)
			add_line(&r, f, 1, "foo", true, false);
	}
	return r;
}

static void test_names(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	struct grep_result r = r2_res(GREP_FILES);
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r2/\"q.txt\nr2/a:b.txt\n\"r2/new\\nline.txt\"\nr2/plain.txt\n\"r2/tab\\there.txt\"\n"
			"\"\\\"q\"\n",
		   "grep files: a newline or a tab, or a quote first, quoted C-style; a colon not");
	grep_model(&m, &r);
	check_model(&m, "r2/\"q.txt\nr2/a:b.txt\nr2/new\nline.txt\nr2/plain.txt\nr2/tab\there.txt\n\"q\n",
		    "grep, model: the names as they are");
	grep_result_free(&r);

	r = r2_res(GREP_CONTENT);
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r2/\"q.txt:1:foo\n\"r2/a:b.txt\":1:foo\n\"r2/new\\nline.txt\":1:foo\n"
			"r2/plain.txt:1:foo\n\"r2/tab\\there.txt\":1:foo\n\"\\\"q\":1:foo\n",
		   "grep content: a name with a colon quoted too, so that the line number is found");
	grep_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"pattern\":\"foo\",\"path\":\"r2\",\"output\":\"content\","
		       "\"matches\":[{\"path\":\"r2/\\\"q.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r2/a:b.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r2/new\\nline.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r2/plain.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r2/tab\\there.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"\\\"q\",\"line\":1,\"text\":\"foo\",\"match\":true}],"
		       "\"total_lines\":6,\"truncated\":false}\n",
		   "grep --json content: the exact names");
	grep_result_free(&r);

	r = r2_res(GREP_COUNT);
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r2/\"q.txt:1\n\"r2/a:b.txt\":1\n\"r2/new\\nline.txt\":1\nr2/plain.txt:1\n"
			"\"r2/tab\\there.txt\":1\n\"\\\"q\":1\n",
		   "grep count: quoted as content is");
	grep_result_free(&r);
}

/* t34's a.txt with -C 1, then crlf.txt: "--" between groups and files. */
static void test_content(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	struct grep_result r = grep_res(GREP_CONTENT, 1, "r");
	struct grep_file *f = add_file(&r, "r/a.txt", 2);
	add_line(&r, f, 1, "foo", true, false);
	add_line(&r, f, 2, "bar", false, false);
	add_line(&r, f, 9, "4", false, true);
	add_line(&r, f, 10, "foo", true, false);
	f = add_file(&r, "r/crlf.txt", 1);
	add_line(&r, f, 1, "foo", true, false);
	add_line(&r, f, 2, "end", false, false);
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r/a.txt:1:foo\nr/a.txt-2-bar\n--\nr/a.txt-9-4\nr/a.txt:10:foo\n--\n"
			"r/crlf.txt:1:foo\nr/crlf.txt-2-end\n",
		   "grep content -C: ':' on a match, '-' on context, '--' between groups and files");
	grep_model(&m, &r);
	check_model(&m, "r/a.txt:1:foo\nr/a.txt-2-bar\nr/a.txt-9-4\nr/a.txt:10:foo\nr/crlf.txt:1:foo\n"
			"r/crlf.txt-2-end\n",
		    "grep, model: the same lines, no '--'");
	grep_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"pattern\":\"foo\",\"path\":\"r\",\"output\":\"content\","
		       "\"matches\":[{\"path\":\"r/a.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r/a.txt\",\"line\":2,\"text\":\"bar\",\"match\":false},"
		       "{\"path\":\"r/a.txt\",\"line\":9,\"text\":\"4\",\"match\":false},"
		       "{\"path\":\"r/a.txt\",\"line\":10,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r/crlf.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r/crlf.txt\",\"line\":2,\"text\":\"end\",\"match\":false}],"
		       "\"total_lines\":6,\"truncated\":false}\n",
		   "grep --json content: a line each, match true or false");
	r.g->o.before = r.g->o.after = 0;
	r.g->produced = 8;
	r.limit = 6;
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r/a.txt:1:foo\nr/a.txt-2-bar\n--\nr/a.txt-9-4\nr/a.txt:10:foo\n"
			"r/crlf.txt:1:foo\nr/crlf.txt-2-end\n(2 more lines; raise --limit or narrow the search)\n",
		   "grep content without context: no '--' between files; the rest past --limit");
	grep_model(&m, &r);
	check_model(&m, "r/a.txt:1:foo\nr/a.txt-2-bar\nr/a.txt-9-4\nr/a.txt:10:foo\nr/crlf.txt:1:foo\n"
			"r/crlf.txt-2-end\n(2 more; raise limit or narrow the search)\n",
		    "grep, model: the rest past the limit");
	grep_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"pattern\":\"foo\",\"path\":\"r\",\"output\":\"content\","
		       "\"matches\":[{\"path\":\"r/a.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r/a.txt\",\"line\":2,\"text\":\"bar\",\"match\":false},"
		       "{\"path\":\"r/a.txt\",\"line\":9,\"text\":\"4\",\"match\":false},"
		       "{\"path\":\"r/a.txt\",\"line\":10,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r/crlf.txt\",\"line\":1,\"text\":\"foo\",\"match\":true},"
		       "{\"path\":\"r/crlf.txt\",\"line\":2,\"text\":\"end\",\"match\":false}],"
		       "\"total_lines\":8,\"truncated\":true}\n",
		   "grep --json content: total_lines counts those not shown, truncated");
	grep_result_free(&r);
}

static void test_count(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	struct grep_result r = grep_res(GREP_COUNT, 0, "r");
	add_file(&r, "r/a.txt", 3);
	add_file(&r, "r/crlf.txt", 1);
	add_file(&r, "r/d/b.c", 1);
	add_file(&r, "r/nonl.txt", 1);
	TEXT_OF(grep_text, &r, buf);
	check_text(buf, "r/a.txt:3\nr/crlf.txt:1\nr/d/b.c:1\nr/nonl.txt:1\n", "grep count: path:N");
	grep_model(&m, &r);
	check_model(&m, "r/a.txt:3\nr/crlf.txt:1\nr/d/b.c:1\nr/nonl.txt:1\n", "grep, model: path:N");
	grep_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"pattern\":\"foo\",\"path\":\"r\",\"output\":\"count\","
		       "\"matches\":[{\"path\":\"r/a.txt\",\"count\":3},{\"path\":\"r/crlf.txt\",\"count\":1},"
		       "{\"path\":\"r/d/b.c\",\"count\":1},{\"path\":\"r/nonl.txt\",\"count\":1}],"
		       "\"total_lines\":4,\"truncated\":false}\n",
		   "grep --json count: path and count");
	grep_result_free(&r);
}

static void test_none(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	static const char *const modes[] = {"files", "content", "count"};
	for (int mode = GREP_FILES; mode <= GREP_COUNT; mode++) {
		struct grep_result r = grep_res((enum grep_mode)mode, 0, ".");
		TEXT_OF(grep_text, &r, buf);
		check_text(buf, "", "grep, no match: nothing on stdout");
		is_str(err_text, "sandbox: grep: no match\n", "grep %s, no match: stderr says so",
		       modes[mode]);
		grep_model(&m, &r);
		check_model(&m, "no match\n", "grep, model: no match");
		grep_tree(&t, &r);
		char exp[256];
		snprintf(exp, sizeof(exp), "{\"workspace\":\"sb-1\",\"pattern\":\"foo\",\"path\":\".\","
			 "\"output\":\"%s\",\"matches\":[],\"total_lines\":0,\"truncated\":false}\n",
			 modes[mode]);
		check_tree(&t, exp, "grep --json, no match: an empty list");
		grep_result_free(&r);
	}
}

int main(void)
{
	test_files();
	test_names();
	test_content();
	test_count();
	test_none();
	free(err_text);
	return done_testing();
}
