/* secret.c: see secret.h. */
#include "secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file's bytes, at most REDACT_MAX_LEN and a line ending. */
static int read_file(const char *name, const char *path, struct sbuf *out, struct err *e)
{
	char *full = NULL;
	if (strncmp(path, "~/", 2) == 0) {
		const char *home = getenv("HOME");
		if (!home || home[0] != '/')
			return err_set(e, ERR_CONFIG, "secret %s: file:%s, but HOME is not set", name, path);
		path = full = xasprintf("%s/%s", home, path + 2);
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	int rc = 0;
	if (fd < 0)
		rc = err_set(e, ERR_CONFIG, "secret %s: cannot read %s: %s", name, path, strerror(errno));
	else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		rc = err_set(e, ERR_CONFIG, "secret %s: %s is not a regular file", name, path);
	while (rc == 0) {
		char buf[4096];
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = err_set(e, ERR_CONFIG, "secret %s: cannot read %s: %s", name, path, strerror(errno));
		} else if (r == 0) {
			break;
		} else if (out->len + (size_t)r > REDACT_MAX_LEN + 2) {
			rc = err_set(e, ERR_CONFIG, "secret %s: %s is over %d bytes; a secret is a token or a key",
				     name, path, REDACT_MAX_LEN);
		} else {
			sbuf_add(out, buf, (size_t)r);
		}
	}
	if (fd >= 0)
		close(fd);
	free(full);
	if (rc == 0 && out->len && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
	if (rc == 0 && out->len && out->buf[out->len - 1] == '\r')
		out->buf[--out->len] = '\0';
	return rc;
}

static int read_one(const char *name, const char *source, struct sbuf *v, struct err *e)
{
	if (strncmp(source, "env:", 4) == 0) {
		const char *val = getenv(source + 4);
		if (!val)
			return err_set(e, ERR_CONFIG, "secret %s: the variable %s is not set", name, source + 4);
		sbuf_adds(v, val);
		return 0;
	}
	return read_file(name, source + 5, v, e);
}

int secrets_read(const struct strvec *specs, struct strvec *values, struct redact_set *set,
		 struct err *e)
{
	for (size_t i = 0; i < specs->n; i++) {
		const char *spec = specs->v[i];
		size_t nlen = strcspn(spec, "=");
		char *name = xstrndup(spec, nlen);
		struct sbuf v = {0};
		int rc = read_one(name, spec + nlen + 1, &v, e);
		if (rc == 0 && v.len && memchr(v.buf, '\0', v.len))
			rc = err_set(e, ERR_CONFIG, "secret %s: its value holds a NUL byte", name);
		else if (rc == 0 && (v.len < REDACT_MIN_LEN || v.len > REDACT_MAX_LEN))
			rc = err_set(e, ERR_CONFIG, "secret %s: %zu bytes; a secret must have %d to %d "
				     "to be kept out of output", name, v.len, REDACT_MIN_LEN, REDACT_MAX_LEN);
		if (rc == 0) {
			redact_add(set, name, v.buf, v.len);
			strvec_pushf(values, "%s=%s", name, v.buf);
		}
		/* The value leaves no copy behind in freed memory. */
		if (v.buf)
			memset(v.buf, 0, v.cap);
		sbuf_free(&v);
		free(name);
		if (rc < 0)
			return -1;
	}
	return 0;
}
