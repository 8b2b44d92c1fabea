/* fuzz_config.c: a libFuzzer target for the config file's handler
 * (cfg_parse, src/host/config.c, over inih) and the trust store's parser
 * (trust_parse, src/host/trust.c): the text of either can come from a file
 * that a workspace wrote.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_config; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_config -max_total_time=120 build/fuzz/corpus_config tests/fuzz/corpus_config
 *
 * The same input goes to both parsers. Besides crashes and sanitizer
 * reports (a read past the input's size: it is copied to a buffer of
 * exactly that size), it aborts when:
 * - either parser gives a different answer for the same text twice;
 * - an error is not a config error naming the file and a line within
 *   the text;
 * - a parsed config breaks an invariant of cfg_set's checks (engine,
 *   image, workdir, network, names of [env]);
 * - an accepted store holds a bad entry (hash, path, a path twice), or
 *   not one entry per line that is not a comment;
 * - an accepted store, formatted, does not parse back to the same
 *   entries, or formats differently the second time;
 * - a store refused is not left empty. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "config.h"
#include "err.h"
#include "trust.h"
#include "utf8.h"
#include "util.h"



static size_t count_lines(const char *s, size_t n)
{
	size_t lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += s[i] == '\n';
	return lines + (n && s[n - 1] != '\n');
}

/* "NAME:LINE: ..." with 1 <= LINE <= max, or "NAME: ...". */
static void check_message(const struct err *e, const char *name, size_t max_line)
{
	size_t n = strlen(name);
	CHECK(e->kind == ERR_CONFIG);
	CHECK(strncmp(e->msg, name, n) == 0 && e->msg[n] == ':');
	if (e->msg[n + 1] == ' ')
		return;
	char *end;
	unsigned long line = strtoul(e->msg + n + 1, &end, 10);
	CHECK(end != e->msg + n + 1 && *end == ':');
	CHECK(line >= 1 && line <= max_line);
}

static void check_cfg(const struct cfg *c)
{
	CHECK(c->engine && *c->engine && !has_control(c->engine));
	CHECK(c->engine[0] == '/' || !strchr(c->engine, '/'));
	CHECK(!c->image || (*c->image && *c->image != '-' && !has_control(c->image) &&
			    !strchr(c->image, ' ')));
	CHECK(c->workdir[0] == '/' && !has_control(c->workdir) && !strchr(c->workdir, ','));
	CHECK(*c->network && *c->network != '-');
	CHECK(!c->name || cfg_valid_container_name(c->name));
	CHECK(c->pids_limit == -1 || (c->pids_limit >= 1 && c->pids_limit <= 4194304));
	CHECK(c->max_output >= 1 && c->max_output <= (1L << 30));
	CHECK(c->timeout >= 0);
	for (size_t i = 0; i < c->nmounts; i++)
		CHECK(c->mounts[i].host[0] == '/' && (!c->mounts[i].ctr || c->mounts[i].ctr[0] == '/'));
	for (size_t i = 0; i < c->env.n; i++) {
		const char *eq = strchr(c->env.v[i], '=');
		CHECK(eq && cfg_valid_env_name(c->env.v[i], (size_t)(eq - c->env.v[i])));
	}
	CHECK(c->env.v == NULL || c->env.v[c->env.n] == NULL);
}

static void fuzz_cfg(const char *text, size_t size)
{
	struct cfg a, b;
	struct err ea = {0}, eb = {0};
	cfg_init(&a);
	cfg_init(&b);
	int ra = cfg_parse(&a, "fuzz.ini", text, size, &ea);
	int rb = cfg_parse(&b, "fuzz.ini", text, size, &eb);
	CHECK(ra == rb && ra >= -1 && ra <= 0);
	CHECK(strcmp(ea.msg, eb.msg) == 0);
	if (ra < 0)
		check_message(&ea, "fuzz.ini", count_lines(text, size));
	check_cfg(&a);
	CHECK(strcmp(a.engine, b.engine) == 0 && a.env.n == b.env.n && a.nmounts == b.nmounts);
	cfg_free(&a);
	cfg_free(&b);
}

static void check_store(const struct trust_store *ts, const char *text, size_t size)
{
	size_t entries = 0;
	for (size_t at = 0; at < size;) {
		const char *nl = memchr(text + at, '\n', size - at);
		CHECK(nl);
		entries += text[at] != '#';
		at = (size_t)(nl - text) + 1;
	}
	CHECK(entries == ts->n);
	for (size_t i = 0; i < ts->n; i++) {
		const struct trust_entry *t = &ts->v[i];
		CHECK(strlen(t->sha256) == 64 && strspn(t->sha256, "0123456789abcdef") == 64);
		CHECK(trust_path_ok(t->path));
		CHECK(trust_find(ts, t->path) == t);
	}
}

static bool same_store(const struct trust_store *a, const struct trust_store *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].path, b->v[i].path) != 0 || strcmp(a->v[i].sha256, b->v[i].sha256) != 0)
			return false;
	return true;
}

static void fuzz_store(const char *text, size_t size)
{
	struct trust_store ts;
	struct err e = {0};
	int rc = trust_parse(&ts, "store", text, size, &e);
	if (rc < 0) {
		CHECK(ts.n == 0 && ts.v == NULL);
		check_message(&e, "store", count_lines(text, size));
		return;
	}
	CHECK(rc == 0);
	check_store(&ts, text, size);

	struct sbuf out = {0}, again = {0};
	trust_format(&ts, &out);
	struct trust_store back;
	CHECK(trust_parse(&back, "formatted", out.buf, out.len, &e) == 0);
	CHECK(same_store(&ts, &back));
	trust_format(&back, &again);
	CHECK(out.len == again.len && memcmp(out.buf, again.buf, out.len) == 0);

	/* Dropping every entry, first to last, leaves none. */
	while (back.n)
		CHECK(trust_drop(&back, back.v[0].path));
	CHECK(ts.n == 0 || !trust_drop(&back, ts.v[0].path));
	trust_store_free(&back);
	sbuf_free(&again);
	sbuf_free(&out);
	trust_store_free(&ts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Bigger than any file sandbox reads: nothing more to learn. */
	if (size > TRUST_MAX_FILE)
		return 0;
	/* A copy of exactly size bytes: no NUL after it to lean on. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	fuzz_cfg(text, size);
	fuzz_store(text, size);
	free(text);
	return 0;
}
