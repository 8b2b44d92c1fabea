/* peak-rss.c: a library for LD_PRELOAD that, when the process exits,
 * appends its peak resident set (VmHWM, in KiB) to the file named by
 * PEAK_RSS_FILE. /usr/bin/time's maxrss would count the engine's CLI,
 * a child of sandbox, too; this is sandbox's own.
 *
 *   cc -shared -fPIC -o peak-rss.so tests/peak-rss.c
 *   PEAK_RSS_FILE=rss LD_PRELOAD=./peak-rss.so sandbox ... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((destructor)) static void peak_rss_report(void)
{
	const char *out = getenv("PEAK_RSS_FILE");
	char line[256];
	FILE *f = out ? fopen("/proc/self/status", "r") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "VmHWM:", 6) != 0)
			continue;
		FILE *o = fopen(out, "a");
		if (o) {
			fprintf(o, "%ld\n", strtol(line + 6, NULL, 10));
			fclose(o);
		}
	}
	if (f)
		fclose(f);
}
