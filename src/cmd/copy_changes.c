/* copy_changes.c: the changes a copy workspace made, what apply would
 * find in DIR for each, and the review's ID (copy_changes.h). */
#include "copy_changes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostdir.h"
#include "sha256.h"
#include "tools.h"

/* The changes one diff or apply takes, and the bytes of their names:
 * each costs memory in every form a result takes (text, --json, MCP). */
#define CHANGES_MAX 10000
#define CHANGE_NAMES_MAX ((size_t)512 << 10)

/* ---- changes ---- */

static char kind_of(const struct copy_entry *b, const struct copy_entry *n)
{
	if (!b)
		return 'A';
	if (!n)
		return 'D';
	if (b->type != n->type)
		return 'T';
	if (b->type == 'f' && strcmp(b->sha, n->sha) != 0)
		return 'M';
	if (b->type == 'l' && strcmp(b->target ? b->target : "", n->target ? n->target : "") != 0)
		return 'M';
	if (b->type != 'l' && b->mode != n->mode)
		return 'm';
	return 0;
}

size_t copy_changes_of(const struct copy_ctx *c, struct copy_change **v)
{
	size_t n = 0, cap = 0, i = 0, j = 0;
	*v = NULL;
	const struct copy_tree *B = &c->base.tree, *N = &c->now;
	while (i < B->n || j < N->n) {
		int cmp = i == B->n ? 1 : j == N->n ? -1 : copy_path_cmp(B->v[i].path, N->v[j].path);
		const struct copy_entry *b = cmp <= 0 ? &B->v[i] : NULL, *nw = cmp >= 0 ? &N->v[j] : NULL;
		size_t ni = cmp >= 0 ? j : 0;
		i += cmp <= 0;
		j += cmp >= 0;
		const char *path = b ? b->path : nw->path;
		char k = copy_wanted(c, path) ? kind_of(b, nw)
			 : copy_on_way(c, path) && !b && nw->type == 'd' ? 'A' : 0;
		if (!k)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			*v = xrealloc(*v, cap * sizeof(**v));
		}
		(*v)[n++] = (struct copy_change){
			.path = xstrdup(path), .kind = k, .old = b, .now = nw, .now_index = ni,
			.old_type = b ? b->type : 0, .old_mode = b ? b->mode : 0,
			.new_type = nw ? nw->type : 0, .new_mode = nw ? nw->mode : 0};
	}
	return n;
}

int copy_changes_fit(const struct copy_change *v, size_t n, struct err *e)
{
	size_t names = 0;
	for (size_t i = 0; i < n; i++)
		names += strlen(v[i].path) + 1;
	if (n <= CHANGES_MAX && names <= CHANGE_NAMES_MAX)
		return 0;
	return err_set(e, ERR_WORKSPACE, "the workspace changed %zu paths (%zu KiB of names), more than one "
		       "review holds (%d, or %zu KiB); nothing was done: review it in parts, naming PATHs, or "
		       "leave out what it made (.sandboxignore, exclude)", n, names >> 10, CHANGES_MAX,
		       CHANGE_NAMES_MAX >> 10);
}

void copy_changes_free(struct copy_change *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		sbuf_free(&v[i].text);
	}
	free(v);
}

/* ---- the review ---- */

static void side_add(struct sbuf *s, const struct copy_entry *x)
{
	if (!x) {
		sbuf_add(s, "-", 2);
		return;
	}
	sbuf_addf(s, "%c %o %llu %s", x->type, x->mode, x->type == 'f' ? x->size : 0,
		  x->type == 'f' ? x->sha : "");
	sbuf_addc(s, '\0');
	if (x->type == 'l')
		sbuf_add(s, x->target ? x->target : "", strlen(x->target ? x->target : "") + 1);
}

void copy_review_of(const struct copy_change *v, size_t n, struct copy_review *rv)
{
	struct sbuf all = {0}, one = {0};
	sbuf_adds(&all, "sandbox-review 1\n");
	for (size_t i = 0; i < n; i++) {
		sbuf_reset(&one);
		sbuf_add(&one, v[i].path, strlen(v[i].path) + 1);
		sbuf_addc(&one, v[i].kind);
		side_add(&one, v[i].old);
		side_add(&one, v[i].now);
		char h[65];
		sha256_buf_hex(one.buf, one.len, h);
		copy_review_add(rv, h, v[i].path);
		sbuf_add(&all, h, 64);
		sbuf_addc(&all, '\n');
	}
	sha256_buf_hex(all.buf, all.len, rv->id);
	sbuf_free(&all);
	sbuf_free(&one);
}

char *copy_review_path(const struct copy_ctx *c)
{
	return xasprintf("%s.review", c->base_path);
}

/* ---- DIR's side: what apply would find ---- */

/* The order of changes: their paths'. */
static int change_cmp(const void *a, const void *b)
{
	return copy_path_cmp(((const struct copy_change *)a)->path,
			     ((const struct copy_change *)b)->path);
}

struct copy_change *copy_change_at(struct copy_change *v, size_t n, const char *path)
{
	struct copy_change key = {.path = (char *)path};
	return n ? bsearch(&key, v, n, sizeof(*v), change_cmp) : NULL;
}

/* Whether the directory above path is made by this apply. */
static bool parent_made(struct copy_change *v, size_t n, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	char *up = xstrndup(path, (size_t)(slash - path));
	const struct copy_change *ch = copy_change_at(v, n, up);
	free(up);
	return ch && ch->new_type == 'd' && ch->kind != 'm';
}

/* Whether DIR's directory at rel holds only what the baseline has (so
 * that removing the baseline's paths empties it). */
static bool only_known(const struct copy_ctx *c, int dfd, struct sbuf *rel)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return false;
	}
	bool ok = true;
	size_t len = rel->len;
	struct dirent *de;
	while (ok && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		sbuf_addc(rel, '/');
		sbuf_adds(rel, de->d_name);
		const struct copy_entry *b = copy_tree_find(&c->base.tree, rel->buf);
		struct stat sb;
		if (!b || fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			ok = false;
		else if (S_ISDIR(sb.st_mode)) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			ok = sub >= 0 && only_known(c, sub, rel);
		}
		rel->len = len;
		rel->buf[len] = '\0';
	}
	closedir(d);
	return ok;
}

/* Checks one change against DIR as it is now. */
static void check_one(const struct copy_ctx *c, struct copy_change *v, size_t n,
		      struct copy_change *ch)
{
	/* DIR's path, read once. */
	struct copy_entry st;
	bool cut;
	int rc = copy_dir_state(c->root, ch->path, &st, NULL, &cut), rc_errno = errno;
	if (rc == 0 && ((ch->now && st.type && copy_same(&st, ch->now)) || (!ch->now && !st.type))) {
		ch->noop = true; /* DIR has it already */
		copy_entry_free(&st);
		return;
	}
	if (copy_path_vcs(ch->path)) {
		ch->refused = true;
		ch->why = "version-control metadata, which a tool on the host would obey: apply never "
			  "writes it, not even with --force (read it here; copy it by hand if you must)";
		copy_entry_free(&st);
		return;
	}
	if (ch->kind == 'T' && ch->old_type == 'd') {
		const char *leaf;
		int pfd = hostdir_parent(c->root, ch->path, false, 0, &leaf);
		int dfd = pfd >= 0 ? hostdir_opendir(pfd, leaf) : -1;
		struct sbuf rel = {0};
		sbuf_adds(&rel, ch->path);
		if (dfd >= 0 && !only_known(c, dfd, &rel)) {
			ch->refused = true;
			ch->why = "DIR's directory holds files the copy did not (left out, or made since): "
				  "it cannot become a file";
		}
		sbuf_free(&rel);
		if (pfd >= 0)
			close(pfd);
		if (ch->refused) {
			copy_entry_free(&st);
			return;
		}
	}
	if (rc < 0 && (rc_errno == ELOOP || rc_errno == ENOTDIR) && !parent_made(v, n, ch->path)) {
		ch->refused = true;
		ch->why = "a link or a file of DIR lies on its way";
	} else if (rc < 0 && !parent_made(v, n, ch->path)) {
		ch->conflict = true;
		ch->why = "cannot be read in DIR";
	} else if (ch->old && rc == 0 && !copy_same(&st, ch->old)) {
		ch->conflict = true;
		ch->why = st.type ? "changed in DIR since the copy" : "gone from DIR since the copy";
	} else if (!ch->old && rc == 0 && st.type) {
		ch->conflict = true;
		ch->why = "made in DIR since the copy";
	} else if (!ch->old && rc == 0 && strchr(ch->path, '/') && !parent_made(v, n, ch->path)) {
		const char *leaf;
		int pfd = hostdir_parent(c->root, ch->path, false, 0, &leaf);
		if (pfd < 0) {
			ch->conflict = true;
			ch->why = "its directory is gone from DIR";
		} else {
			close(pfd);
		}
	}
	copy_entry_free(&st);
}

/* Whether dir ("" the top) holds, in the workspace, what makes git take
 * it for a bare repository: HEAD, objects/ and refs/. */
static bool bare_repo(const struct copy_ctx *c, const char *dir, size_t len)
{
	static const char *const parts[] = {"HEAD", "objects", "refs"};
	bool yes = true;
	for (size_t i = 0; yes && i < ARRAY_LEN(parts); i++) {
		char *p = len ? xasprintf("%.*s/%s", (int)len, dir, parts[i]) : xstrdup(parts[i]);
		const struct copy_entry *x = copy_tree_find(&c->now, p);
		yes = x && (i == 0 ? x->type != 'd' : x->type == 'd');
		free(p);
	}
	return yes;
}

/* Whether a directory above path is a bare repository: what is in it is
 * git's metadata as much as .git's is. */
static bool in_bare_repo(const struct copy_ctx *c, const char *path)
{
	if (bare_repo(c, "", 0))
		return true;
	for (const char *s = path; (s = strchr(s, '/')); s++)
		if (bare_repo(c, path, (size_t)(s - path)))
			return true;
	return false;
}

void copy_check_all(const struct copy_ctx *c, struct copy_change *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_one(c, v, n, &v[i]);
	for (size_t i = 0; i < n; i++)
		if (!v[i].refused && !v[i].noop && in_bare_repo(c, v[i].path)) {
			v[i].refused = true;
			v[i].why = "in a directory the workspace made a bare git repository (HEAD, objects/, "
				   "refs/), whose config git would obey: apply never writes it, not even with "
				   "--force";
		}
	for (size_t i = n; i-- > 0;) {
		struct copy_change *ch = &v[i];
		if (ch->refused || ch->noop || ch->old_type != 'd' || (ch->kind != 'D' && ch->kind != 'T'))
			continue;
		size_t len = strlen(ch->path);
		for (size_t j = i + 1; j < n && strncmp(v[j].path, ch->path, len) == 0 &&
				       v[j].path[len] == '/'; j++)
			if (v[j].refused) {
				ch->refused = true;
				ch->why = "it holds a path apply refuses, which stays";
				break;
			}
	}
}

