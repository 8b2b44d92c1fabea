/* replay.c: runs a fuzz target's LLVMFuzzerTestOneInput on every file of
 * the corpus directories (or files) named, once each, without libFuzzer.
 * `make unit` links it with each tests/fuzz/fuzz_NAME.c and the ASan and
 * UBSan build of src/, and replays tests/fuzz/corpus_NAME/: the seeds and
 * every crash ever found are so regression tests wherever gcc is, clang
 * or not. A failing input aborts the run, which names the file first.
 * Prints TAP: one line per directory or file named. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define REPLAY_HAVE_SANITIZER 1
#endif
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input being run, for the handlers: set before each call. */
static char replay_current[4096];

/* Async-signal-safe: only write(2). */
static void replay_say_current(void)
{
	static const char what[] = "replay: the failing input is ";
	ssize_t ignored = write(2, what, sizeof(what) - 1);
	ignored = write(2, replay_current, strlen(replay_current));
	ignored = write(2, "\n", 1);
	(void)ignored;
}

static void replay_on_signal(int sig)
{
	replay_say_current();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void replay_handlers(void)
{
#ifdef REPLAY_HAVE_SANITIZER
	/* ASan and UBSan (with halt_on_error) end the process themselves. */
	__sanitizer_set_death_callback(replay_say_current);
#endif
	/* A target's own check calls abort(). */
	signal(SIGABRT, replay_on_signal);
	signal(SIGSEGV, replay_on_signal);
	signal(SIGBUS, replay_on_signal);
}

/* Reads the whole file into a buffer of exactly its size, so that a read
 * past the end is an ASan report, as under libFuzzer. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: %s: cannot read it\n", path);
		free(buf);
		return -1;
	}
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, n);
	free(buf);
	snprintf(replay_current, sizeof(replay_current), "%s", path);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int replay_skip(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Every file of dir, in name order; the count run, or -1. */
static long replay_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, replay_skip, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	long done = 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (done >= 0 && replay_file(path) == 0)
			done++;
		else
			done = -1;
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	replay_handlers();
	printf("1..%d\n", argc - 1);
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			n = replay_dir(argv[i]);
		else
			n = replay_file(argv[i]) == 0 ? 1 : -1;
		if (n > 0) {
			printf("ok %d - %ld inputs of %s replayed\n", i, n, argv[i]);
		} else {
			printf("not ok %d - %s: %s\n", i, argv[i], n ? "unreadable" : "no inputs in it");
			failed = 1;
		}
	}
	return failed;
}
