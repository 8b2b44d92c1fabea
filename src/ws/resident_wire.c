/* resident_wire.c: see resident_wire.h. */
#include "resident_wire.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "version.h"

const char *resident_build(void)
{
	static char build[96];
	if (build[0])
		return build;
	struct stat st;
	if (stat("/proc/self/exe", &st) == 0)
		snprintf(build, sizeof(build), "%s+%llx.%llx.%lld.%ld", SANDBOX_VERSION,
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			 (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
	else
		snprintf(build, sizeof(build), "%s+unknown", SANDBOX_VERSION);
	return build;
}

int resident_hello_format(char *buf, size_t cap, long keep)
{
	return snprintf(buf, cap, "sandbox-resident %d %s %ld %ld", RESIDENT_PROTO,
			resident_build(), (long)getpid(), keep);
}

/* The next word of *s, at most cap - 1 bytes, and the space after it. */
static bool word(const char **s, char *out, size_t cap)
{
	size_t n = strcspn(*s, " ");
	if (n == 0 || n >= cap)
		return false;
	memcpy(out, *s, n);
	out[n] = '\0';
	*s += n;
	/* One space between words, none at the end. */
	return **s != ' ' || *++*s != '\0';
}

/* A decimal number as we write it: digits only, no leading zero. */
static bool number(const char **s, long min, long max, long *out)
{
	char w[24];
	return word(s, w, sizeof(w)) && strspn(w, "0123456789") == strlen(w) &&
	       (w[0] != '0' || !w[1]) && parse_long(w, min, max, out);
}

bool resident_hello_parse(const char *s, struct resident_hello *h)
{
	char w[24];
	long proto, pid, keep;
	if (!word(&s, w, sizeof(w)) || strcmp(w, "sandbox-resident") != 0 ||
	    !number(&s, 1, 1000, &proto) || !word(&s, h->build, sizeof(h->build)) ||
	    !number(&s, 1, 1L << 30, &pid) || !number(&s, 1, 1L << 30, &keep) || *s)
		return false;
	h->proto = (int)proto;
	h->pid = (pid_t)pid;
	h->keep = keep;
	return true;
}

bool resident_hello_ours(const struct resident_hello *h)
{
	return h->proto == RESIDENT_PROTO && strcmp(h->build, resident_build()) == 0;
}

pid_t resident_word_pid(const char *s, const char *w)
{
	size_t n = strlen(w);
	long pid;
	if (strncmp(s, w, n) != 0 || s[n] != ' ')
		return 0;
	s += n + 1;
	return number(&s, 1, 1L << 30, &pid) && !*s ? (pid_t)pid : 0;
}

bool resident_lent_parse(const char *s, int nfds, struct resident_lent *l)
{
	memset(l, 0, sizeof(*l));
	if (nfds != 3)
		return false;
	if ((l->pid = resident_word_pid(s, "held")) > 0)
		return true;
	char w[8];
	long pid;
	if (!word(&s, w, sizeof(w)) || strcmp(w, "new") != 0 || !number(&s, 1, 1L << 30, &pid) ||
	    !word(&s, l->tag, sizeof(l->tag)) || *s || strlen(l->tag) != MARKER_TAG_LEN ||
	    strspn(l->tag, "0123456789abcdef") != MARKER_TAG_LEN)
		return false;
	l->pid = (pid_t)pid;
	l->fresh = true;
	return true;
}
