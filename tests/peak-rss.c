/* peak-rss.c: a library the CLI tests preload into sandbox (see
 * peak_kib in tests/lib.sh): as the process exits, it writes its peak
 * resident set, VmHWM of /proc/self/status in KiB, to $PEAK_RSS_FILE.
 * Unlike getrusage's (and so /usr/bin/time's) figure, it leaves out the
 * engine's client, which sandbox runs as a child. Only the program
 * $PEAK_RSS_EXE (an absolute path, links resolved) writes it, not a
 * wrapper such as timeout(1) that the library is preloaded into too. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((destructor)) static void peak_rss_write(void)
{
	const char *path = getenv("PEAK_RSS_FILE"), *exe = getenv("PEAK_RSS_EXE");
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (!path || !exe || n < 0)
		return;
	self[n] = '\0';
	if (strcmp(self, exe) != 0)
		return;
	FILE *in = fopen("/proc/self/status", "r");
	if (!in)
		return;
	char line[256];
	long kib = -1;
	while (fgets(line, sizeof(line), in))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	fclose(in);
	FILE *out = fopen(path, "w");
	if (out) {
		fprintf(out, "%ld\n", kib);
		fclose(out);
	}
}
