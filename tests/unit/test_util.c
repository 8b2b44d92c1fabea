/* test_util.c: the small pieces: strict number parsing, strvec and sbuf,
 * shell quoting read back by a real /bin/sh, the engine's environment
 * allow-list, and the error value. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "envp.h"
#include "err.h"
#include "quote.h"
#include "tap.h"
#include "utf8.h"
#include "util.h"

static void long_ok(const char *s, long min, long max, long want)
{
	long v = 12345;
	bool r = parse_long(s, min, max, &v);
	ok(r && v == want, "parse_long('%s', %ld, %ld) = %ld", s, min, max, want);
	if (!r || v != want)
		diag("returned %d, value %ld", r, v);
}

static void long_bad(const char *s, long min, long max)
{
	long v = 12345;
	bool r = parse_long(s, min, max, &v);
	ok(!r && v == 12345, "parse_long('%s', %ld, %ld) is refused, out untouched", s ? s : "(null)", min, max);
}

static void test_parse_long(void)
{
	long_ok("0", 0, 10, 0);
	long_ok("10", 0, 10, 10);
	long_ok("-1", -1, 10, -1);
	long_ok("-0", 0, 10, 0);
	long_ok("007", 0, 10, 7);
	long_ok("9223372036854775807", 0, LONG_MAX, LONG_MAX);
	long_ok("-9223372036854775808", LONG_MIN, 0, LONG_MIN);
	long_bad(NULL, 0, 10);
	long_bad("", 0, 10);
	long_bad(" 1", 0, 10);
	long_bad("\t1", 0, 10);
	long_bad("\n1", 0, 10);
	long_bad("1 ", 0, 10);
	long_bad("+1", 0, 10);
	long_bad("-", -10, 10);
	long_bad("- 1", -10, 10);
	long_bad("--1", -10, 10);
	long_bad("0x10", 0, 100);
	long_bad("1e3", 0, 10000);
	long_bad("12abc", 0, 100);
	long_bad("1.0", 0, 10);
	long_bad("11", 0, 10);
	long_bad("-2", -1, 10);
	long_bad("9223372036854775808", 0, LONG_MAX);
	long_bad("-9223372036854775809", LONG_MIN, 0);
	long_bad("99999999999999999999999", LONG_MIN, LONG_MAX);
	/* strtol(3) skips every isspace() byte, not only the three refused
	 * up front: "the whole string must be a number" fails for these. */
	long_bad("\r1", 0, 10);
	long_bad("\v1", 0, 10);
	long_bad("\f1", 0, 10);
}

static void secs_ok(const char *s, double want)
{
	double v = -7;
	bool r = parse_seconds(s, &v);
	ok(r && v == want, "parse_seconds('%s') = %g", s, want);
	if (!r || v != want)
		diag("returned %d, value %g", r, v);
}

static void secs_bad(const char *s)
{
	double v = -7;
	bool r = parse_seconds(s, &v);
	ok(!r && v == -7, "parse_seconds('%s') is refused, out untouched", s ? s : "(null)");
}

static void test_parse_seconds(void)
{
	secs_ok("0", 0);
	secs_ok("30", 30);
	secs_ok("1.5", 1.5);
	secs_ok(".5", 0.5);
	secs_ok("5.", 5);
	secs_ok("0.001", 0.001);
	secs_ok("864000000", 864000000.0);
	secs_bad(NULL);
	secs_bad("");
	secs_bad(".");
	secs_bad("..5");
	secs_bad("1.2.3");
	secs_bad("-1");
	secs_bad("-0");
	secs_bad("+1");
	secs_bad(" 1");
	secs_bad("1 ");
	secs_bad("1e3");
	secs_bad("1E3");
	secs_bad("inf");
	secs_bad("infinity");
	secs_bad("nan");
	secs_bad("0x10");
	secs_bad("1.5s");
	secs_bad("abc");
	secs_bad("864000000.5");
	secs_bad("99999999999999999999999999");
}

static void dur_ok(const char *s, long want)
{
	long v = -7;
	bool r = parse_duration(s, &v);
	ok(r && v == want, "parse_duration('%s') = %ld", s, want);
	if (!r || v != want)
		diag("returned %d, value %ld", r, v);
}

static void dur_bad(const char *s)
{
	long v = -7;
	bool r = parse_duration(s, &v);
	ok(!r && v == -7, "parse_duration('%s') is refused, out untouched", s ? s : "(null)");
}

static void test_parse_duration(void)
{
	dur_ok("0", 0);
	dur_ok("90", 90);
	dur_ok("90s", 90);
	dur_ok("15m", 900);
	dur_ok("2h", 7200);
	dur_ok("7d", 604800);
	dur_ok("0d", 0);
	dur_ok("106751991167300", 106751991167300L);
	dur_ok("106751991167300d", 106751991167300L * 86400);
	dur_bad(NULL);
	dur_bad("");
	dur_bad("s");
	dur_bad("m");
	dur_bad("d");
	dur_bad("-5m");
	dur_bad("-5");
	dur_bad("+5");
	dur_bad(" 5");
	dur_bad("5 m");
	dur_bad("1.5h");
	dur_bad("5ms");
	dur_bad("5mm");
	dur_bad("10x");
	dur_bad("5S");
	dur_bad("5M");
	dur_bad("1w");
	dur_bad("m5");
	dur_bad("106751991167301d");
	dur_bad("9999999999999999999");
	dur_bad("1234567890123456789012345");
	dur_bad("\r5m");
}

static void test_misc(void)
{
	char hex[13], hex2[13];
	ok(random_hex(hex, 12) == 0 && strlen(hex) == 12 && strspn(hex, "0123456789abcdef") == 12,
	   "random_hex: 12 lowercase hex digits and a NUL");
	random_hex(hex2, 12);
	ok(strcmp(hex, hex2) != 0, "random_hex: two calls differ");
	char big[80];
	is_int(random_hex(big, 65), -1, "random_hex: more than 64 digits refused");
	ok(random_hex(big, 0) == 0 && big[0] == '\0', "random_hex: 0 digits is the empty string");

	char *s = xstrndup("abcdef", 3);
	is_str(s, "abc", "xstrndup copies n bytes and ends them");
	free(s);
	s = xasprintf("%s-%d-%c", "x", 42, 'z');
	is_str(s, "x-42-z", "xasprintf formats");
	free(s);
	char longer[5000];
	memset(longer, 'q', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	s = xasprintf("<%s>", longer);
	ok(strlen(s) == sizeof(longer) + 1 && s[0] == '<' && s[sizeof(longer)] == '>',
	   "xasprintf of a long string");
	free(s);

	long long t0 = now_ms(), t1 = now_ms();
	ok(t0 > 0 && t1 >= t0, "now_ms is monotonic");

	/* write_all through a pipe larger than its buffer, with a reader. */
	FILE *f = tmpfile();
	char *blob = xmalloc(300000);
	for (size_t i = 0; i < 300000; i++)
		blob[i] = (char)(i * 7);
	is_int(write_all(fileno(f), blob, 300000), 0, "write_all: 300000 bytes to a file");
	rewind(f);
	char *back = xmalloc(300000);
	size_t got = fread(back, 1, 300000, f);
	ok(got == 300000 && memcmp(blob, back, 300000) == 0, "write_all: every byte arrives");
	fclose(f);
	free(blob);
	free(back);
	is_int(write_all(-1, "x", 1), -1, "write_all: a bad descriptor is -1");
}

static void test_strvec(void)
{
	struct strvec sv = {0};
	char **argv = strvec_argv(&sv);
	ok(argv != NULL && argv[0] == NULL && sv.n == 0, "strvec: empty argv is {NULL}, never NULL");

	char buf[32];
	for (int i = 0; i < 100; i++) {
		snprintf(buf, sizeof(buf), "arg%d", i);
		strvec_push(&sv, buf);
	}
	strcpy(buf, "changed");
	bool all = sv.n == 100;
	for (int i = 0; all && i < 100; i++) {
		char want[32];
		snprintf(want, sizeof(want), "arg%d", i);
		all = strcmp(sv.v[i], want) == 0;
	}
	ok(all, "strvec: 100 pushes keep their own copies, in order");
	ok(sv.v[100] == NULL && strvec_argv(&sv)[100] == NULL, "strvec: NULL-terminated after growth");
	strvec_pushf(&sv, "%s=%d", "K", 5);
	is_str(sv.v[100], "K=5", "strvec_pushf formats");
	ok(sv.v[101] == NULL, "strvec_pushf keeps the NULL");
	char *items[] = {"x", "", "z z"};
	strvec_push_all(&sv, items, 3);
	ok(sv.n == 104 && strcmp(sv.v[101], "x") == 0 && strcmp(sv.v[102], "") == 0 &&
	   strcmp(sv.v[103], "z z") == 0 && sv.v[104] == NULL, "strvec_push_all appends copies");
	strvec_push_all(&sv, NULL, 0);
	is_int((long long)sv.n, 104, "strvec_push_all of nothing");
	strvec_clear(&sv);
	ok(sv.v == NULL && sv.n == 0 && sv.cap == 0, "strvec_clear empties");
	strvec_push(&sv, "again");
	ok(sv.n == 1 && strcmp(sv.v[0], "again") == 0 && sv.v[1] == NULL, "strvec: usable after clear");
	strvec_clear(&sv);
}

static void test_sbuf(void)
{
	struct sbuf sb = {0};
	sbuf_rtrim(&sb);
	sbuf_reset(&sb);
	ok(sb.buf == NULL && sb.len == 0, "sbuf: rtrim and reset of an empty buffer are no-ops");
	sbuf_add(&sb, "a\0b", 3);
	ok(sb.len == 3 && memcmp(sb.buf, "a\0b", 3) == 0 && sb.buf[3] == '\0',
	   "sbuf_add: binary bytes, NUL after them");
	sbuf_addc(&sb, 'c');
	sbuf_adds(&sb, "de");
	sbuf_addf(&sb, "%03d", 7);
	ok(sb.len == 9 && memcmp(sb.buf, "a\0bcde007", 9) == 0 && sb.buf[9] == '\0',
	   "sbuf_addc, sbuf_adds, sbuf_addf append");
	sbuf_add(&sb, "zzz", 0);
	is_int((long long)sb.len, 9, "sbuf_add of 0 bytes");
	sbuf_reset(&sb);
	ok(sb.len == 0 && sb.buf && sb.buf[0] == '\0', "sbuf_reset keeps the buffer, empty");
	for (int i = 0; i < 10000; i++)
		sbuf_addc(&sb, (char)('a' + i % 26));
	ok(sb.len == 10000 && sb.buf[9999] == (char)('a' + 9999 % 26) && sb.buf[10000] == '\0',
	   "sbuf grows past many doublings");
	sbuf_reset(&sb);
	sbuf_adds(&sb, "  line \t\r\n\n ");
	sbuf_rtrim(&sb);
	ok(sb.len == 6 && strcmp(sb.buf, "  line") == 0, "sbuf_rtrim drops trailing blanks only");
	sbuf_reset(&sb);
	sbuf_adds(&sb, " \n\t");
	sbuf_rtrim(&sb);
	ok(sb.len == 0 && sb.buf[0] == '\0', "sbuf_rtrim of only blanks is empty");
	sbuf_free(&sb);
	ok(sb.buf == NULL && sb.len == 0 && sb.cap == 0, "sbuf_free empties");
}

static void test_quote_golden(void)
{
	static const char *const cases[][2] = {
		{"abc", "abc"},
		{"/usr/bin/docker", "/usr/bin/docker"},
		{"--env=A=1", "--env=A=1"},
		{"a,b:c@d%e^f+g", "a,b:c@d%e^f+g"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", "'it'\\''s'"},
		{"'", "''\\'''"},
		{"$HOME", "'$HOME'"},
		{"a\nb", "'a\nb'"},
		{"~", "'~'"},
		{"*", "'*'"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct sbuf out = {0};
		sq_quote(&out, cases[i][0]);
		is_str(out.buf, cases[i][1], "sq_quote('%s')", cases[i][0]);
		sbuf_free(&out);
	}
	struct sbuf out = {0};
	char *argv[] = {"/usr/bin/docker", "exec", "--env=A=b c", "--", "ctr", "sh", "-c", "echo 'hi'", "", NULL};
	sq_quote_argv(&out, argv);
	is_str(out.buf, "/usr/bin/docker exec '--env=A=b c' -- ctr sh -c 'echo '\\''hi'\\''' ''",
	       "sq_quote_argv: one line, words separated by spaces");
	sbuf_free(&out);
	char *none[] = {NULL};
	sq_quote_argv(&out, none);
	ok(out.len == 0, "sq_quote_argv of no words is empty");
	sbuf_free(&out);
}

/* Runs script with /bin/sh -c and returns all it printed. */
static char *sh_output(const char *script, size_t *len)
{
	struct sbuf out = {0};
	sbuf_add(&out, "", 0);
	FILE *p = popen(script, "r");
	if (!p) {
		diag("popen failed");
		*len = 0;
		return out.buf;
	}
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		sbuf_add(&out, buf, n);
	pclose(p);
	*len = out.len;
	return out.buf;
}

static void test_quote_roundtrip(void)
{
	static const char *const words[] = {
		"", " ", "  two  spaces  ", "a b", "it's", "''", "'\\''", "\"dq\"",
		"$(echo pwned)", "`echo pwned`", "${HOME}", "$HOME", "$", "$$", "$1", "$@",
		"a\nb", "\n", "trailing\n\n", "\\", "\\n", "\\'", "*", "?", "[a]", "~", "~root",
		"#comment", "a;b", "a|b", "a&b", "a>b", "<a", "(x)", "{x}", "{a,b}", "!x",
		"-n", "-e", "--", "a=b", "X=1 y", "\t", "\x01\x02\x1b[31m", "\x7f",
		"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xff\xfe", "%s%d%%", "%",
		"a'b'c'", "'''", "\\$(x)", "; rm -rf /; echo ",
	};
	int failures = 0;
	for (size_t i = 0; i < ARRAY_LEN(words); i++) {
		struct sbuf script = {0};
		sbuf_adds(&script, "printf %s ");
		sq_quote(&script, words[i]);
		size_t len;
		char *got = sh_output(script.buf, &len);
		if (!is_mem(got, len, words[i], strlen(words[i]),
			    "sh reads sq_quote of word %zu back exactly", i))
			failures++;
		free(got);
		sbuf_free(&script);
	}

	/* All of them at once, as one argv: each comes back as its own word. */
	struct sbuf script = {0}, want = {0};
	sbuf_adds(&script, "printf '[%s]' ");
	struct strvec argv = {0};
	for (size_t i = 0; i < ARRAY_LEN(words); i++) {
		strvec_push(&argv, words[i]);
		sbuf_addf(&want, "[%s]", words[i]);
	}
	sq_quote_argv(&script, strvec_argv(&argv));
	size_t len;
	char *got = sh_output(script.buf, &len);
	is_mem(got, len, want.buf, want.len, "sh reads sq_quote_argv back word for word");
	free(got);
	sbuf_free(&script);
	sbuf_free(&want);
	strvec_clear(&argv);
}

/* What crosses a channel encoded comes back exactly from printf %b, in
 * this machine's sh (dash, like Debian's images) and in busybox sh when
 * it is there (the BusyBox images). */
static void test_printf_b(void)
{
	struct sbuf enc = {0};
	sbuf_add_printf_b(&enc, "a\\b\n\xff\x01 ~");
	is_str(enc.buf, "a\\0134b\\0012\\0377\\0001 ~", "sbuf_add_printf_b: golden");
	sbuf_free(&enc);
	char all[256];
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	static const char *const shells[] = {"/bin/sh", "/bin/busybox sh"};
	for (size_t k = 0; k < ARRAY_LEN(shells); k++) {
		if (k == 1 && access("/bin/busybox", X_OK) != 0) {
			skip("no /bin/busybox here");
			continue;
		}
		struct sbuf script = {0}, word = {0};
		sbuf_addf(&script, "%s -c 'printf %%b \"$0\"' ", shells[k]);
		sbuf_add_printf_b(&word, all);
		sq_quote(&script, word.buf);
		sbuf_free(&word);
		size_t len;
		char *got = sh_output(script.buf, &len);
		is_mem(got, len, all, 255, "%s: printf %%b gives every byte value back", shells[k]);
		free(got);
		sbuf_free(&script);
	}
}

static void test_envp(void)
{
	char *env[] = {
		"SECRET_TOKEN=hunter2",
		"PATH=/first/bin",
		"LC_ALL=C",
		"AWS_SECRET_ACCESS_KEY=zzz",
		"HOME=/home/me",
		"HOME=/second/home",
		"LC_=bare",
		"LCX=1",
		"PATHX=1",
		"XPATH=1",
		"NOEQUALS",
		"=nothing",
		"DOCKER_HOST=unix:///run/docker.sock",
		"GITHUB_TOKEN=ghp_x",
		"LANG=C.UTF-8",
		"LC_CTYPE=en_US.UTF-8",
		"PATH=/second/bin",
		"CONTAINERS_CONF=/etc/c.conf",
		"XDG_RUNTIME_DIR=/run/user/0",
		"SSH_AUTH_SOCK=/tmp/agent",
		"LD_PRELOAD=/evil.so",
		"SANDBOX_WORKSPACE=sandbox-x",
		"TZ=UTC",
		"lc_all=lower",
		NULL,
	};
	struct strvec out = {0};
	envp_build(&out, env);
	const char *want[] = {
		"PATH=/first/bin", "LC_ALL=C", "HOME=/home/me",
		"DOCKER_HOST=unix:///run/docker.sock", "LANG=C.UTF-8",
		"LC_CTYPE=en_US.UTF-8", "CONTAINERS_CONF=/etc/c.conf",
		"XDG_RUNTIME_DIR=/run/user/0", "SSH_AUTH_SOCK=/tmp/agent", "TZ=UTC",
	};
	bool same = out.n == ARRAY_LEN(want) && out.v[out.n] == NULL;
	for (size_t i = 0; same && i < out.n; i++)
		same = strcmp(out.v[i], want[i]) == 0;
	ok(same, "envp_build: allowed names in order, LC_*, first duplicate wins, secrets dropped");
	if (!same)
		for (size_t i = 0; i < out.n; i++)
			diag("got %s", out.v[i]);
	ok(envp_get(out.v, "SECRET_TOKEN") == NULL && envp_get(out.v, "GITHUB_TOKEN") == NULL &&
	   envp_get(out.v, "AWS_SECRET_ACCESS_KEY") == NULL && envp_get(out.v, "LD_PRELOAD") == NULL &&
	   envp_get(out.v, "SANDBOX_WORKSPACE") == NULL, "envp_build: secrets and LD_PRELOAD never pass");
	is_str(envp_get(out.v, "HOME"), "/home/me", "envp_get: HOME");
	ok(envp_get(out.v, "HOM") == NULL && envp_get(out.v, "HOMEX") == NULL,
	   "envp_get: matches whole names only");
	ok(envp_get(NULL, "PATH") == NULL, "envp_get of no list");
	strvec_clear(&out);

	char *nopath[] = {"HOME=/h", "FOO=1", NULL};
	envp_build(&out, nopath);
	ok(out.n == 2 && strcmp(out.v[0], "HOME=/h") == 0 &&
	   strcmp(out.v[1], "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") == 0,
	   "envp_build: a default PATH when there is none");
	strvec_clear(&out);

	char *emptypath[] = {"PATH=", "USER=me", NULL};
	envp_build(&out, emptypath);
	ok(out.n == 2 && strcmp(out.v[0], "USER=me") == 0 &&
	   strcmp(out.v[1], "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") == 0,
	   "envp_build: an empty PATH is replaced by the default");
	strvec_clear(&out);

	/* getenv(3) gives the first PATH, the empty one: so the default. */
	char *twopaths[] = {"PATH=", "PATH=/b", NULL};
	envp_build(&out, twopaths);
	ok(out.n == 1 && strcmp(out.v[0], "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") == 0,
	   "envp_build: an empty first PATH wins over a later one, and gets the default");
	strvec_clear(&out);

	envp_build(&out, NULL);
	ok(out.n == 1 && strncmp(out.v[0], "PATH=/", 6) == 0, "envp_build: no environment at all");
	strvec_clear(&out);

	static const char *const allowed[] = {
		"PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "TZ",
		"DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH",
		"DOCKER_TLS_VERIFY", "CONTAINER_HOST", "CONTAINER_CONNECTION",
		"CONTAINERS_CONF", "CONTAINERS_STORAGE_CONF", "CONTAINERS_REGISTRIES_CONF",
		"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "SSH_AUTH_SOCK",
		"USER", "LOGNAME", "DBUS_SESSION_BUS_ADDRESS", "TMPDIR",
	};
	bool all = true;
	for (size_t i = 0; i < ARRAY_LEN(allowed); i++)
		if (!envp_allowed(allowed[i], strlen(allowed[i]))) {
			diag("not allowed: %s", allowed[i]);
			all = false;
		}
	ok(all, "envp_allowed: every name of the spec's allow-list");
	static const char *const refused[] = {
		"LC_", "LC", "PATH_", "PAT", "HOMEDIR", "SHELL", "PWD", "TERM",
		"LD_PRELOAD", "LD_LIBRARY_PATH", "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN",
		"SANDBOX_WORKSPACE", "SANDBOX_CONFIG", "DOCKER_HOSTX", "docker_host", "",
	};
	bool none = true;
	for (size_t i = 0; i < ARRAY_LEN(refused); i++)
		if (envp_allowed(refused[i], strlen(refused[i]))) {
			diag("allowed: %s", refused[i]);
			none = false;
		}
	ok(none, "envp_allowed: other names, prefixes and extensions refused");
	ok(envp_allowed("PATH=x", 4), "envp_allowed looks at len bytes of the name");
}

static void test_err(void)
{
	struct err e = {0};
	is_int(err_set(&e, ERR_WORKSPACE, "gone: %s", "sandbox-x"), -1, "err_set returns -1");
	ok(e.kind == ERR_WORKSPACE && strcmp(e.msg, "gone: sandbox-x") == 0, "err_set fills kind and message");
	is_int(err_set(NULL, ERR_USAGE, "x"), -1, "err_set with no err returns -1");
	char longer[3000];
	memset(longer, 'm', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	err_set(&e, ERR_FAILED, "%s", longer);
	ok(strlen(e.msg) == sizeof(e.msg) - 1, "err_set cuts a long message to the buffer");
	is_str(err_kind_name(ERR_USAGE), "usage", "kind name usage");
	is_str(err_kind_name(ERR_CONFIG), "config", "kind name config");
	is_str(err_kind_name(ERR_FAILED), "failed", "kind name failed");
	is_str(err_kind_name(ERR_ENGINE), "engine", "kind name engine");
	is_str(err_kind_name(ERR_WORKSPACE), "workspace", "kind name workspace");
	is_int(err_exit_status(ERR_NONE), 0, "exit status: none 0");
	is_int(err_exit_status(ERR_USAGE), 2, "exit status: usage 2");
	is_int(err_exit_status(ERR_CONFIG), 2, "exit status: config 2");
	is_int(err_exit_status(ERR_FAILED), 1, "exit status: failed 1");
	is_int(err_exit_status(ERR_ENGINE), 255, "exit status: engine 255");
	is_int(err_exit_status(ERR_WORKSPACE), 255, "exit status: workspace 255");
}

/* utf8_count over the whole of s, given in pieces of `step` bytes: the
 * bytes kept of the first max characters, and the count. */
static size_t count_in_pieces(const char *s, size_t n, size_t step, size_t max, size_t *chars)
{
	struct utf8_count c = {0};
	size_t kept = 0;
	for (size_t i = 0; i < n; i += step) {
		size_t len = n - i < step ? n - i : step;
		kept += utf8_count(&c, s + i, len, max);
	}
	*chars = c.chars;
	return kept;
}

static void test_utf8_count(void)
{
	static const struct {
		const char *s;
		size_t max, kept, chars;
		const char *what;
	} cases[] = {
		{"abc", 2, 2, 3, "ASCII: one byte a character"},
		{"a\xc3\xa9" "b", 2, 3, 3, "a 2-byte character is kept whole"},
		{"a\xe6\x97\xa5" "b", 2, 4, 3, "a 3-byte one too"},
		{"\xf0\x9f\x98\x80z", 1, 4, 2, "and a 4-byte one"},
		{"\x80\x80\x80\x80", 2, 2, 4, "stray continuation bytes: one character each"},
		{"\xc3\xa9\x80\x80", 2, 3, 3, "continuation bytes past what the lead calls for are stray"},
		{"\xe6\x97z", 1, 2, 2, "a sequence cut short ends at the next lead"},
		{"\xff\xfe\xc0\x80", 3, 3, 4, "bytes that start nothing count alone; 0xc0 calls for none"},
		{"", 5, 0, 0, "nothing: nothing"},
		{"abc", 0, 0, 3, "max 0: no byte kept"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		size_t n = strlen(cases[i].s), chars, chars1;
		size_t kept = count_in_pieces(cases[i].s, n, n ? n : 1, cases[i].max, &chars);
		size_t kept1 = count_in_pieces(cases[i].s, n, 1, cases[i].max, &chars1);
		ok(kept == cases[i].kept && chars == cases[i].chars && kept1 == kept && chars1 == chars,
		   "utf8_count: %s (%zu bytes kept, %zu characters; the same byte by byte)", cases[i].what,
		   kept, chars);
	}
	/* The case of the issue: a long run of continuation bytes. */
	size_t n = 1 << 20, chars;
	char *run = xmalloc(n);
	memset(run, 0x80, n);
	ok(count_in_pieces(run, n, 65536, 2000, &chars) == 2000 && chars == n,
	   "utf8_count: 1 MiB of 0x80 in 64 KiB pieces: 2000 bytes kept, each a character");
	free(run);
}

int main(void)
{
	test_parse_long();
	test_parse_seconds();
	test_parse_duration();
	test_misc();
	test_strvec();
	test_sbuf();
	test_quote_golden();
	test_quote_roundtrip();
	test_printf_b();
	test_envp();
	test_err();
	test_utf8_count();
	return done_testing();
}
