/* cmd_trust.c: the trust command: record the user's consent to a config
 * file as it is now (its SHA-256 under its real path), or take it back.
 * It reads no config and runs no engine: an untrusted ./sandbox.ini must
 * not stop the command that trusts it. The store is trust.c's. */
/* realpath(3) is XSI. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "results.h"
#include "sha256.h"
#include "trust.h"

/* The key a file is trusted under. A file that is gone can still be
 * revoked: its directory's real path and its name. */
static char *revoke_path_new(const char *name, struct err *e)
{
	char *real = realpath(name, NULL);
	if (real || errno != ENOENT) {
		if (!real)
			err_set(e, ERR_USAGE, "%s: %s", name, strerror(errno));
		return real;
	}
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	char *dir = slash ? xstrndup(name, (size_t)(slash - name + 1)) : xstrdup(".");
	char *rdir = realpath(dir, NULL);
	if (!rdir)
		err_set(e, ERR_USAGE, "%s: %s", dir, strerror(errno));
	else if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		err_set(e, ERR_USAGE, "%s: not a file name", name);
	else
		real = xasprintf("%s/%s", strcmp(rdir, "/") == 0 ? "" : rdir, base);
	free(rdir);
	free(dir);
	return real;
}

static int trust_one(const char *dir, const char *name, struct trust_result *r, struct err *e)
{
	struct trust_file f;
	if (trust_file_read(name, true, &f, e) < 0)
		return -1;
	char sha[65];
	sha256_buf_hex(f.data, f.len, sha);
	bool changed;
	char *real = trust_file_realpath_new(&f, e);
	int rc = real ? trust_update(dir, real, sha, &changed, e) : -1;
	if (rc == 0) {
		r->path = real;
		r->trusted = true;
		memcpy(r->sha256, sha, sizeof(sha));
	} else {
		free(real);
	}
	trust_file_free(&f);
	return rc;
}

static int revoke_one(const char *dir, const char *name, struct trust_result *r, struct err *e)
{
	char *real = revoke_path_new(name, e);
	if (!real)
		return -1;
	bool changed = false;
	int rc = 0;
	/* Such a path was never stored: nothing to revoke. */
	if (trust_path_ok(real))
		rc = trust_update(dir, real, NULL, &changed, e);
	if (rc == 0) {
		r->path = real;
		r->revoked = changed;
	} else {
		free(real);
	}
	return rc;
}

int do_trust(struct app *a, struct trust_result *r, struct err *e)
{
	*r = (struct trust_result){0};
	if (a->o.args.n > 1)
		return err_set(e, ERR_USAGE, "give one FILE (default ./sandbox.ini)");
	const char *name = a->o.args.n ? a->o.args.v[0] : CFG_FOUND_FILE;
	if (!*name)
		return err_set(e, ERR_USAGE, "the file name is empty");
	char *dir = trust_dir_new();
	if (!dir)
		return err_set(e, ERR_USAGE, "no place for the trust store: set HOME or XDG_CONFIG_HOME to an absolute path");
	int rc = a->o.trust.revoke ? revoke_one(dir, name, r, e) : trust_one(dir, name, r, e);
	free(dir);
	return rc;
}
