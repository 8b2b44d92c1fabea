/* test_scripts.c: the scripts in the binary are the ones the checks read.
 * scripts/embed-sh writes each script twice, as build/gen/sh/NAME.sh
 * (which `make check-sh` gives to sh -n and shellcheck) and as the C
 * string SCRIPT_NAME: here the two are held equal byte for byte, so that
 * what is checked is what runs, and every script of src/wire/sh is in both. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scripts.h"
#include "slurp.h"
#include "tap.h"
#include "util.h"

struct script_file {
	const char *name;
	const char *text;
};

static const struct script_file files[] = {
#define SCRIPT_FILE(name, text) {name, text},
#include "scripts-list.h"
#undef SCRIPT_FILE
};
#define NFILES (sizeof(files) / sizeof(files[0]))

static const struct script_file *find(const char *name)
{
	for (size_t i = 0; i < NFILES; i++)
		if (strcmp(files[i].name, name) == 0)
			return &files[i];
	return NULL;
}

static void test_same_bytes(void)
{
	for (size_t i = 0; i < NFILES; i++) {
		char *path = xasprintf("build/gen/sh/%s.sh", files[i].name);
		size_t len = 0;
		char *got = slurp(path, &len);
		ok(got && len == strlen(files[i].text) && memcmp(got, files[i].text, len) == 0,
		   "%s: the string is the file, byte for byte", path);
		free(got);
		free(path);
	}
}

/* Every NAME.sh of dir (but the fragments, _NAME.sh, when skip_ is
 * set) is a script of the list; returns how many there are. */
static size_t count_listed(const char *dir, bool skip_, bool *all)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	*all = d != NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".sh") != 0 ||
		    (skip_ && e->d_name[0] == '_'))
			continue;
		char *name = xasprintf("%.*s", (int)(len - 3), e->d_name);
		if (!find(name)) {
			diag("%s/%s: no SCRIPT_ for it", dir, e->d_name);
			*all = false;
		}
		free(name);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void test_every_script(void)
{
	bool all;
	size_t n = count_listed("src/wire/sh", true, &all);
	ok(all && n == NFILES, "every script of src/wire/sh is embedded (%zu of %zu)", n, NFILES);
	n = count_listed("build/gen/sh", false, &all);
	ok(all && n == NFILES, "build/gen/sh holds the embedded scripts and nothing else");
}

/* A channel carries SCRIPT_SESSION as it is: one line (#oneline). The
 * others end as files do. */
static void test_line_ends(void)
{
	const char *nl = strchr(SCRIPT_SESSION, '\n');
	ok(!nl, "the session's script is one line, no newline");
	bool ends = true;
	for (size_t i = 0; i < NFILES; i++) {
		size_t len = strlen(files[i].text);
		if (files[i].text != SCRIPT_SESSION && (!len || files[i].text[len - 1] != '\n')) {
			diag("%s: no newline at its end", files[i].name);
			ends = false;
		}
	}
	ok(ends, "every other script ends with a newline");
}

int main(void)
{
	test_same_bytes();
	test_every_script();
	test_line_ends();
	return done_testing();
}
