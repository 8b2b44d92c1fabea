/* test_opts.c: the tables of opts.c and what is made from them: the usage
 * and help text and the MCP tools' schemas against golden files, the rows
 * against each other and against the man page, each command's way to
 * run and to show what it did, and the checks of a command line's
 * counts and of a tool's arguments.
 *
 * SANDBOX_UPDATE_GOLDEN=1 build/unit/test_opts writes the golden files
 * anew (then read the diff before committing it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "results.h"
#include "slurp.h"
#include "tap.h"

#define GOLDEN_HELP "tests/unit/golden/help.txt"
#define GOLDEN_TOOLS "tests/unit/golden/tools.json"

static void golden(const char *path, const char *got, size_t len)
{
	if (getenv("SANDBOX_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");
		ok(f && fwrite(got, 1, len, f) == len && fclose(f) == 0, "%s written", path);
		return;
	}
	size_t wlen = 0;
	char *want = slurp(path, &wlen);
	bool same = want && wlen == len && memcmp(want, got, len) == 0;
	ok(same, "%s: the same as made now", path);
	if (!same)
		diag("differs: run SANDBOX_UPDATE_GOLDEN=1 %s and read git diff", "build/unit/test_opts");
	free(want);
}

static void test_help_golden(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	size_t n;
	const struct command *cmds = cmd_table(&n);
	opts_help(f, NULL);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\n==== sandbox help %s\n", cmds[i].name);
		opts_help(f, &cmds[i]);
	}
	fclose(f);
	golden(GOLDEN_HELP, buf, len);
	free(buf);
}

static void test_tools_golden(void)
{
	struct json j = {0};
	opts_tools_list(&j, 120);
	sbuf_addc(&j.out, '\n');
	golden(GOLDEN_TOOLS, j.out.buf, j.out.len);
	sbuf_free(&j.out);
}

/* Every row can be shown, and no two rows of a command clash. */
static void test_rows(void)
{
	size_t n, nc;
	const struct opt *o = opt_table(&n);
	const struct command *cmds = cmd_table(&nc);
	bool good = true;
	for (size_t i = 0; i < n; i++) {
		if (o[i].lng && !o[i].help && o[i].id != O_ARG) {
			diag("--%s has no help line", o[i].lng);
			good = false;
		}
		if (o[i].mcp && !o[i].desc) {
			diag("argument %s has no description", o[i].mcp);
			good = false;
		}
		if (o[i].type == OT_COUNT && (o[i].min > o[i].max ||
					      (o[i].dflt && (o[i].dflt < o[i].min || o[i].dflt > o[i].max)))) {
			diag("--%s: its default or limits are out of order", o[i].lng);
			good = false;
		}
		for (size_t k = i + 1; k < n; k++) {
			uint64_t both = o[i].cmds & o[k].cmds, tools = o[i].tools & o[k].tools;
			if (both && o[i].lng && o[k].lng && strcmp(o[i].lng, o[k].lng) == 0) {
				diag("--%s: two rows for one command", o[i].lng);
				good = false;
			}
			if (both && o[i].shrt && o[i].shrt == o[k].shrt &&
			    !opt_global(&o[i]) && !opt_global(&o[k])) {
				diag("-%c: two rows for one command", o[i].shrt);
				good = false;
			}
			if (tools && o[i].mcp && o[k].mcp && strcmp(o[i].mcp, o[k].mcp) == 0) {
				diag("argument %s: two rows for one tool", o[i].mcp);
				good = false;
			}
		}
	}
	ok(good, "every row has its help, its limits in order, and no twin");
	size_t tools = 0;
	for (size_t i = 0; i < nc; i++)
		tools += cmds[i].mcp_desc != NULL;
	ok(tools == 10, "ten commands are MCP tools (%zu)", tools);
}

/* Each row runs something, or is help; what it runs a front end can
 * show: a result with its text and tree, and a tool's with its text for
 * the model and its is_error too. */
static void test_commands(void)
{
	size_t nc;
	const struct command *cmds = cmd_table(&nc);
	bool good = true;
	uint64_t seen = 0;
	for (size_t i = 0; i < nc; i++) {
		const struct command *c = &cmds[i];
		const struct result_type *t = c->result;
		bool runs = (c->run != NULL) + (c->plain != NULL) == 1;
		bool shows = !c->run || (t && t->size && t->run && t->free && t->text && t->tree);
		bool answers = !c->mcp_desc || (c->run && t && t->model && t->is_error);
		if (!(runs || c->id == C_HELP) || !shows || !answers || (seen & CMD(c->id))) {
			diag("%s: a do-function and its result's type, or plain; a tool's "
			     "result with a model and is_error; one row an id", c->name);
			good = false;
		}
		seen |= CMD(c->id);
	}
	ok(good, "every command runs (help aside) and shows what it did, on both sides for a tool");
	ok(!cmd_of(C_HELP)->run && !cmd_of(C_HELP)->plain, "help runs nothing: main's own");
}

/* The man page names every command and every option of the table. */
static void test_man(void)
{
	size_t len = 0, n, nc;
	char *man = slurp("man/sandbox.1", &len);
	if (!man) {
		ok(false, "man/sandbox.1 can be read (run from the top directory)");
		return;
	}
	const struct opt *o = opt_table(&n);
	const struct command *cmds = cmd_table(&nc);
	bool good = true;
	char want[128];
	for (size_t i = 0; i < nc; i++) {
		snprintf(want, sizeof(want), ".Cm %s\n", cmds[i].name);
		if (!strstr(man, want)) {
			diag("man/sandbox.1's SYNOPSIS lacks %s", cmds[i].name);
			good = false;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!o[i].lng)
			continue;
		/* mdoc writes each - of a name as \- */
		size_t w = (size_t)snprintf(want, sizeof(want), "Fl \\-");
		for (const char *c = o[i].lng; *c && w + 3 < sizeof(want); c++) {
			if (*c == '-')
				want[w++] = '\\';
			want[w++] = *c;
		}
		want[w] = '\0';
		if (!strstr(man, want)) {
			diag("man/sandbox.1 lacks --%s", o[i].lng);
			good = false;
		}
		snprintf(want, sizeof(want), "Fl %c ", o[i].shrt);
		if (o[i].shrt && !strstr(man, want)) {
			diag("man/sandbox.1 lacks -%c", o[i].shrt);
			good = false;
		}
	}
	ok(good, "man/sandbox.1 names every command and every option");
	free(man);
}

static void test_counts(void)
{
	const struct command *read = cmd_find("read"), *grep = cmd_find("grep");
	const struct opt *lr = opt_find_long(read, "limit", 5), *lg = opt_find_long(grep, "limit", 5);
	ok(lr && lg && lr != lg, "read's --limit and grep's are rows of their own");
	struct err e = {0};
	long v = 0;
	ok(opt_count(lg, "--limit", "10000", &v, &e) == 0 && v == 10000, "grep --limit 10000");
	ok(opt_count(lg, "--limit", "10001", &v, &e) < 0 &&
		   strcmp(e.msg, "--limit '10001': at most 10000") == 0, "grep --limit 10001: %s", e.msg);
	ok(opt_count(lr, "--limit", "0", &v, &e) < 0 &&
		   strcmp(e.msg, "--limit '0': expected a number from 1") == 0, "read --limit 0: %s", e.msg);
	ok(opt_count(lr, "--limit", "99999999999999999999", &v, &e) < 0, "a count past long: refused");
	ok(!opt_find_short(read, 'c') && opt_find_short(cmd_find("exec"), 'c') &&
		   opt_find_short(cmd_find("exec"), 'c')->id == O_SHELL,
	   "-c is exec's shell text, and no option of read");
	ok(!opt_find_long(NULL, "limit", 5) && opt_find_long(NULL, "json", 4),
	   "before the command, only the global options");
	struct opts o = {0};
	opt_defaults(&o, C_READ);
	ok(o.read.limit == 2000 && o.read.offset == 1, "read's defaults: --limit 2000, --offset 1");
	opt_defaults(&o, C_GREP);
	ok(o.grep.limit == 1000 && o.glob.limit == 0 && o.read.limit == 2000,
	   "grep's default --limit: 1000, in grep's options alone");
}

/* Where each command keeps its options: a row stores into the struct of
 * every command that takes it, and nowhere else. */
static void test_fields(void)
{
	static const struct {
		enum cmd_id c;
		size_t off, size;
	} own[] = {
		{C_EXEC, offsetof(struct opts, exec), sizeof(struct exec_opts)},
		{C_RUN, offsetof(struct opts, exec), sizeof(struct exec_opts)},
		{C_SHELL, offsetof(struct opts, exec), sizeof(struct exec_opts)},
		{C_DESTROY, offsetof(struct opts, life), sizeof(struct life_opts)},
		{C_PRUNE, offsetof(struct opts, life), sizeof(struct life_opts)},
		{C_READ, offsetof(struct opts, read), sizeof(struct read_opts)},
		{C_WRITE, offsetof(struct opts, write), sizeof(struct write_opts)},
		{C_EDIT, offsetof(struct opts, edit), sizeof(struct edit_opts)},
		{C_GLOB, offsetof(struct opts, glob), sizeof(struct glob_opts)},
		{C_GREP, offsetof(struct opts, grep), sizeof(struct grep_opts)},
		{C_MCP, offsetof(struct opts, mcp), sizeof(struct mcp_opts)},
		{C_TRUST, offsetof(struct opts, trust), sizeof(struct trust_opts)},
		{C_LOGS, offsetof(struct opts, logs), sizeof(struct logs_opts)},
		{C_KILL, offsetof(struct opts, kill), sizeof(struct kill_opts)},
		{C_WAIT, offsetof(struct opts, wait), sizeof(struct wait_opts)},
		{C_SNAPSHOT, offsetof(struct opts, snap), sizeof(struct snap_opts)},
	};
	size_t n, bad = 0, stored = 0;
	const struct opt *t = opt_table(&n);
	for (size_t i = 0; i < n; i++) {
		if (!t[i].at)
			continue;
		stored++;
		size_t at = t[i].at - 1;
		for (size_t k = 0; k < ARRAY_LEN(own); k++) {
			if (!((t[i].cmds | t[i].tools) & CMD(own[k].c)))
				continue;
			if (at < own[k].off || at >= own[k].off + own[k].size) {
				diag("%s of %s is kept outside its options", t[i].lng ? t[i].lng : t[i].mcp,
				     cmd_of(own[k].c)->name);
				bad++;
			}
		}
	}
	ok(stored > 20 && bad == 0, "each of %zu rows keeps its value in its own command's options",
	   stored);

	struct app a = {0};
	struct err e = {0};
	const struct command *grep = cmd_find("grep");
	ok(opt_store(&a, opt_find_long(grep, "context", 7), NULL, 3, &e) == 0 &&
		   a.o.grep.after == 3 && a.o.grep.before == 3,
	   "grep -C sets the lines after and before");
	ok(opt_store(&a, opt_find_long(grep, "path", 4), "", 0, &e) < 0 &&
		   strcmp(e.msg, "--path is empty") == 0,
	   "grep --path '': refused");
	ok(opt_store(&a, opt_find_long(grep, "limit", 5), NULL, 7, &e) == 0 &&
		   a.o.grep.limit == 7 && a.o.glob.limit == 0 && a.o.read.limit == 0,
	   "grep --limit is grep's alone");
	const struct opt *session = opt_find_long(cmd_find("exec"), "session", 7);
	a.cmd = "exec";
	const char *good[] = {"a", "dev", "A-1.b_2", "0123456789012345678901234567890123456789012345678901234567890123"};
	const char *refuse[] = {"", ".", "..", "../x", ".x", "-x", "_x", "a b", "a/b", "a\nb", "\xc3\xa9",
			     "01234567890123456789012345678901234567890123456789012345678901234"};
	size_t taken = 0, refused = 0;
	for (size_t i = 0; i < ARRAY_LEN(good); i++)
		taken += opt_store(&a, session, good[i], 0, &e) == 0 && a.o.exec.session == good[i];
	for (size_t i = 0; i < ARRAY_LEN(refuse); i++)
		refused += opt_store(&a, session, refuse[i], 0, &e) < 0 && strstr(e.msg, "--session");
	ok(taken == ARRAY_LEN(good) && refused == ARRAY_LEN(refuse),
	   "--session: %zu names taken, %zu refused (a directory's name: no /, no dot first)", taken,
	   refused);
	opts_free(&a.o);
}

static struct jv *parse(const char *s)
{
	struct jv_limits lim = {.max_size = 1 << 20, .max_members = 1000};
	return jv_parse(s, strlen(s), &lim, NULL, 0);
}

static void check(const char *tool, const char *args, const char *msg)
{
	struct jv *v = parse(args);
	struct err e = {0};
	int rc = opts_tool_check(cmd_find(tool), v, &e);
	if (msg)
		ok(rc < 0 && strcmp(e.msg, msg) == 0, "%s %s: refused: %s", tool, args, e.msg);
	else
		ok(rc == 0, "%s %s: taken%s%s", tool, args, rc ? ": " : "", rc ? e.msg : "");
	jv_free(v);
}

static void test_tool_args(void)
{
	check("read", "{\"path\":\"a\",\"limit\":5}", NULL);
	check("read", "{}", "tool read needs the argument path");
	check("read", "{\"path\":\"\"}", "argument path is empty");
	check("read", "{\"path\":\"a\",\"limit\":100000001}", "argument limit must be at most 100000000");
	check("grep", "{\"pattern\":\"a\",\"limit\":10001}", "argument limit must be at most 10000");
	check("grep", "{\"pattern\":\"a\",\"context\":1000000000}", "argument context must be at most 100");
	check("grep", "{\"pattern\":\"a\",\"output_mode\":\"lines\"}",
	      "argument output_mode: 'lines' is not one of its values (see the schema)");
	check("grep", "{\"pattern\":\"a\",\"fixed\":true}", "tool grep has no argument 'fixed'");
	check("edit", "{\"path\":\"a\",\"old_text\":\"x\",\"new_text\":\"y\",\"replace_all\":1}",
	      "argument replace_all must be a boolean");
	check("exec", "{\"command\":\"true\",\"timeout\":0}", "argument timeout must be a number of seconds above 0");
	check("exec", "{\"command\":\"true\",\"env\":{\"A B\":\"x\"}}", "argument env: 'A B' is not a variable name");
	check("exec", "{\"command\":\"true\",\"env\":{\"A\":\"x\"},\"cwd\":\"d\",\"timeout\":1.5}", NULL);

	struct app a = {0};
	struct err e = {0};
	struct jv *v = parse("{\"new_text\":\"N\",\"path\":\"p\",\"old_text\":\"O\",\"replace_all\":true}");
	ok(opts_tool_apply(cmd_find("edit"), &a, v, &e) == 0 && a.o.args.n == 1 &&
		   strcmp(a.o.args.v[0], "p") == 0 && a.o.edit.all && a.o.edit.old.set &&
		   a.o.edit.new.set && strcmp(a.o.edit.old.text.buf, "O") == 0 &&
		   strcmp(a.o.edit.new.text.buf, "N") == 0,
	   "edit's arguments set what --old, --new and --all set");
	jv_free(v);
	opts_free(&a.o);

	struct app b = {0};
	v = parse("{\"command\":\"true\",\"cwd\":\"a\\u0001b\"}");
	ok(opts_tool_apply(cmd_find("exec"), &b, v, &e) < 0 &&
		   strstr(e.msg, "without control characters"), "a cwd with a control character: refused");
	jv_free(v);
	opts_free(&b.o);
}

int main(void)
{
	test_help_golden();
	test_tools_golden();
	test_rows();
	test_commands();
	test_man();
	test_counts();
	test_tool_args();
	test_fields();
	return done_testing();
}
