/* cmd_copy.c: create --copy DIR: DIR's tree, less what its patterns
 * leave out, copied into the new workspace's workdir (cp_seed), and its
 * baseline kept on the host (copy.h), where the workspace cannot reach;
 * diff (cmd_diff.c) and apply (cmd_apply.c) compare the workspace with
 * it. destroy forgets it. */
/* realpath(3) is XSI. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "copy.h"
#include "results.h"
#include "workspace.h"

#define READ_BUF 65536

/* The patterns: the config's, then DIR/.sandboxignore's. */
static int patterns(const struct cfg *c, const char *dir, struct strvec *out, struct err *e)
{
	for (size_t i = 0; i < c->excludes.n; i++)
		strvec_push(out, c->excludes.v[i]);
	char *path = xasprintf("%s/.sandboxignore", dir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	int rc = 0;
	struct stat st;
	if (fd < 0) {
		if (errno != ENOENT)
			rc = err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
	} else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > COPY_IGNORE_MAX) {
		rc = err_set(e, ERR_USAGE, "%s: not a regular file of at most 1 MiB", path);
	} else {
		char *buf = xmalloc((size_t)st.st_size + 1);
		ssize_t n = read(fd, buf, (size_t)st.st_size);
		if (n < 0)
			rc = err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
		else
			rc = copy_ignore_parse(buf, (size_t)n, path, out, e);
		free(buf);
	}
	if (fd >= 0)
		close(fd);
	free(path);
	/* Never copied: apply's staging left by a kill, and our own state,
	 * when it lies in DIR (a workspace could rewrite other copies'
	 * baselines through apply). */
	strvec_push(out, "/.sandbox-apply-*/");
	char *state = copy_state_root(), *real = state ? realpath(state, NULL) : NULL;
	size_t dl = strlen(dir);
	if (real && strncmp(real, dir, dl) == 0 && real[dl] == '/') {
		struct sbuf pat = {0};
		sbuf_addc(&pat, '/');
		for (const char *s = real + dl + 1; *s; s++) {
			if (strchr("*?[]{}\\", *s))
				sbuf_addc(&pat, '\\');
			sbuf_addc(&pat, *s);
		}
		strvec_push(out, pat.buf);
		sbuf_free(&pat);
	}
	free(real);
	free(state);
	return rc;
}

/* The child's records (copy.h's entry encoding) behind a header, as
 * one baseline. */
static int base_from_records(FILE *rec, const char *dir, const struct strvec *pats,
			     struct copy_base *b, struct err *e)
{
	struct copy_base head = {.dir = (char *)dir, .excludes = *pats};
	struct sbuf data = {0};
	copy_base_encode(&data, &head);
	char buf[READ_BUF];
	size_t n;
	rewind(rec);
	while ((n = fread(buf, 1, sizeof(buf), rec)) > 0)
		sbuf_add(&data, buf, n);
	int rc = ferror(rec) ? err_set(e, ERR_FAILED, "cannot read a temporary file")
			     : copy_base_decode(data.buf, data.len, b, e);
	sbuf_free(&data);
	return rc;
}

int copy_seed(struct app *a, struct ws *ws, struct err *e)
{
	const char *dir = a->cfg.copy;
	char *path = copy_base_path(ws->id, true);
	if (!path)
		return err_set(e, ERR_FAILED, "--copy needs HOME or XDG_STATE_HOME, to keep the copy's baseline");
	struct strvec pats = {0};
	struct copy_excl x = {0};
	struct copy_base b = {0};
	struct cp_result res = {0};
	FILE *rec = NULL;
	int rc = -1;
	if (patterns(&a->cfg, dir, &pats, e) < 0 || copy_excl_init(&x, &pats, e) < 0)
		goto out;
	if (!(rec = tmpfile())) {
		err_set(e, ERR_FAILED, "cannot make a temporary file: %s", strerror(errno));
		goto out;
	}
	if (cp_seed(a, ws, dir, ws->workdir ? ws->workdir : ".", &x, rec, &res, e) < 0)
		goto out;
	if (base_from_records(rec, dir, &pats, &b, e) < 0 || copy_base_save(path, &b, e) < 0)
		goto out;
	if (res.skipped && !a->json)
		fprintf(stderr, "sandbox: create: %llu file%s of DIR not copied (devices, FIFOs or sockets)\n",
			res.skipped, res.skipped == 1 ? "" : "s");
	rc = 0;
out:
	if (rec)
		fclose(rec);
	cp_result_free(&res);
	copy_base_free(&b);
	copy_excl_free(&x);
	strvec_clear(&pats);
	free(path);
	return rc;
}

void copy_forget(const char *id)
{
	char *path = copy_base_path(id, false);
	if (path) {
		unlink(path);
		char *review = xasprintf("%s.review", path);
		unlink(review);
		free(review);
	}
	free(path);
}
