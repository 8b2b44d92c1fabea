/* copy.c: see copy.h. */
#include "copy.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glob.h"
#include "sha256.h"
#include "trust.h"

/* ---- paths ---- */

/* Each byte's rank: the end of the path first, then '/', then the
 * other bytes in their order (0x01 too, which '/' must not equal). */
static int rank(unsigned char c)
{
	return c == '\0' ? 0 : c == '/' ? 1 : c + 1;
}

int copy_path_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = rank((unsigned char)*a), y = rank((unsigned char)*b);
		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			return 0;
	}
}

const char *copy_path_bad(const char *rel, size_t len)
{
	if (len == 0)
		return "an empty name";
	if (len > COPY_PATH_MAX)
		return "a name too long";
	if (memchr(rel, '\0', len))
		return "a name with a NUL byte";
	if (rel[0] == '/')
		return "an absolute name";
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && rel[j] != '/')
			j++;
		size_t n = j - i;
		if (n == 0)
			return "a name with an empty part";
		if ((n == 1 && rel[i] == '.') || (n == 2 && rel[i] == '.' && rel[i + 1] == '.'))
			return "a name with a '.' or '..' part";
		i = j + 1;
		if (j + 1 == len)
			return "a name ending in '/'";
	}
	return NULL;
}

/* The names of version-control metadata: git, Mercurial, Subversion,
 * Jujutsu, darcs, Bazaar. */
static const char *const vcs_names[] = {".git", ".hg", ".svn", ".jj", "_darcs", ".bzr"};

static bool vcs_part(const char *s, size_t n)
{
	/* Filesystems of other systems take ".git." or ".git " for ".git",
	 * and NTFS's short name of it is "git~1". */
	while (n && (s[n - 1] == '.' || s[n - 1] == ' '))
		n--;
	if (n == 5 && strncasecmp(s, "git~1", 5) == 0)
		return true;
	for (size_t i = 0; i < ARRAY_LEN(vcs_names); i++)
		if (n == strlen(vcs_names[i]) && strncasecmp(s, vcs_names[i], n) == 0)
			return true;
	return false;
}

bool copy_path_vcs(const char *rel)
{
	for (const char *s = rel; *s;) {
		size_t n = strcspn(s, "/");
		if (vcs_part(s, n))
			return true;
		s += n + (s[n] == '/');
	}
	return false;
}

/* ---- trees ---- */

void copy_entry_free(struct copy_entry *e)
{
	free(e->path);
	free(e->target);
	e->path = e->target = NULL;
}

void copy_tree_add(struct copy_tree *t, const struct copy_entry *e)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n++] = *e;
}

static int entry_cmp(const void *a, const void *b)
{
	return copy_path_cmp(((const struct copy_entry *)a)->path,
			     ((const struct copy_entry *)b)->path);
}

void copy_tree_sort(struct copy_tree *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), entry_cmp);
}

struct copy_entry *copy_tree_find(const struct copy_tree *t, const char *path)
{
	struct copy_entry key = {.path = (char *)path};
	return t->n ? bsearch(&key, t->v, t->n, sizeof(*t->v), entry_cmp) : NULL;
}

void copy_tree_free(struct copy_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		copy_entry_free(&t->v[i]);
	free(t->v);
	*t = (struct copy_tree){0};
}

/* ---- patterns ---- */

int copy_excl_init(struct copy_excl *x, const struct strvec *patterns, struct err *e)
{
	*x = (struct copy_excl){0};
	size_t n = patterns->n;
	x->pat = xmalloc((n ? n : 1) * sizeof(*x->pat));
	x->dir_only = xmalloc((n ? n : 1) * sizeof(bool));
	x->anchored = xmalloc((n ? n : 1) * sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		char *p = xstrdup(patterns->v[i]);
		size_t len = strlen(p);
		bool dir_only = len > 1 && p[len - 1] == '/';
		if (dir_only)
			p[--len] = '\0';
		char *body = p[0] == '/' ? p + 1 : p;
		char msg[256];
		struct glob_pat *g = *body ? glob_compile(body, msg, sizeof(msg)) : NULL;
		if (!*body)
			snprintf(msg, sizeof(msg), "it names nothing");
		x->anchored[x->n] = body != p || strchr(body, '/');
		x->dir_only[x->n] = dir_only;
		free(p);
		if (!g) {
			copy_excl_free(x);
			return err_set(e, ERR_USAGE, "exclude '%s': %s", patterns->v[i], msg);
		}
		x->pat[x->n++] = g;
	}
	return 0;
}

/* Whether one path (not what is above it) matches. */
static bool matches(const struct copy_excl *x, const char *rel, bool is_dir)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	for (size_t i = 0; i < x->n; i++) {
		if (x->dir_only[i] && !is_dir)
			continue;
		if (glob_match(x->pat[i], x->anchored[i] ? rel : base))
			return true;
	}
	return false;
}

bool copy_excluded(const struct copy_excl *x, const char *rel, bool is_dir)
{
	if (!x || !x->n)
		return false;
	char buf[COPY_PATH_MAX + 1];
	size_t len = strlen(rel);
	if (len > COPY_PATH_MAX)
		return false;
	memcpy(buf, rel, len + 1);
	for (char *s = buf; (s = strchr(s, '/')); s++) {
		*s = '\0';
		bool hit = matches(x, buf, true);
		*s = '/';
		if (hit)
			return true;
	}
	return matches(x, buf, is_dir);
}

void copy_excl_free(struct copy_excl *x)
{
	for (size_t i = 0; i < x->n; i++)
		glob_free(x->pat[i]);
	free(x->pat);
	free(x->dir_only);
	free(x->anchored);
	*x = (struct copy_excl){0};
}

int copy_ignore_parse(const char *text, size_t len, const char *name, struct strvec *out,
		      struct err *e)
{
	size_t line = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, n = end - i;
		line++;
		const char *s = text + i;
		i = end + 1;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
		if (n == 0 || s[0] == '#')
			continue;
		if (memchr(s, '\0', n) || s[0] == '!')
			return err_set(e, ERR_USAGE, "%s:%zu: %s", name, line,
				       s[0] == '!' ? "'!' patterns (taking a path back) are not supported"
						   : "a NUL byte");
		char *p = xstrndup(s, n);
		strvec_push(out, p);
		free(p);
	}
	return 0;
}

bool copy_prunable(const char *p)
{
	/* find's -name and glob.h agree on '*' and plain ASCII; not on '?'
	 * (a byte there, a UTF-8 character here), nor on brackets, braces
	 * and escapes. */
	if (!*p)
		return false;
	for (const unsigned char *s = (const unsigned char *)p; *s; s++)
		if (*s < 0x20 || *s >= 0x7f || strchr("/?[]{}\\", *s))
			return false;
	return true;
}

/* ---- the baseline ---- */

void copy_base_free(struct copy_base *b)
{
	free(b->dir);
	strvec_clear(&b->excludes);
	copy_tree_free(&b->tree);
	b->dir = NULL;
}

#define BASE_MAGIC "sandbox-copy 1"

void copy_base_encode(struct sbuf *out, const struct copy_base *b)
{
	sbuf_add(out, BASE_MAGIC, sizeof(BASE_MAGIC));
	sbuf_add(out, b->dir, strlen(b->dir) + 1);
	for (size_t i = 0; i < b->excludes.n; i++) {
		sbuf_add(out, "x", 2);
		sbuf_add(out, b->excludes.v[i], strlen(b->excludes.v[i]) + 1);
	}
	for (size_t i = 0; i < b->tree.n; i++) {
		const struct copy_entry *en = &b->tree.v[i];
		char num[64];
		sbuf_add(out, "e", 2);
		sbuf_addc(out, en->type);
		sbuf_addc(out, '\0');
		snprintf(num, sizeof(num), "%o", en->mode);
		sbuf_add(out, num, strlen(num) + 1);
		snprintf(num, sizeof(num), "%llu", en->size);
		sbuf_add(out, num, strlen(num) + 1);
		sbuf_add(out, en->sha, strlen(en->sha) + 1);
		sbuf_adds(out, en->target ? en->target : "");
		sbuf_addc(out, '\0');
		sbuf_add(out, en->path, strlen(en->path) + 1);
	}
}

/* The next NUL-ended field of buf, or NULL at its end. */
static const char *field(const char *buf, size_t len, size_t *at)
{
	if (*at >= len)
		return NULL;
	const char *s = buf + *at, *z = memchr(s, '\0', len - *at);
	if (!z)
		return NULL;
	*at += (size_t)(z - s) + 1;
	return s;
}

static int decode_entry(const char *buf, size_t len, size_t *at, struct copy_entry *en)
{
	const char *f[6];
	for (int k = 0; k < 6; k++)
		if (!(f[k] = field(buf, len, at)))
			return -1;
	char *end;
	errno = 0;
	unsigned long mode = strtoul(f[1], &end, 8);
	if (*end || !*f[1] || mode > 0777)
		return -1;
	unsigned long long size = strtoull(f[2], &end, 10);
	if (*end || !*f[2] || errno || !strchr("fdl", f[0][0]) || f[0][1] ||
	    (*f[3] && !sha256_hex_ok(f[3])) || copy_path_bad(f[5], strlen(f[5])))
		return -1;
	*en = (struct copy_entry){.path = xstrdup(f[5]), .type = f[0][0], .mode = (unsigned)mode,
				  .size = size, .target = *f[0] == 'l' ? xstrdup(f[4]) : NULL};
	memcpy(en->sha, f[3], strlen(f[3]) + 1);
	return 0;
}

int copy_base_decode(const char *buf, size_t len, struct copy_base *b, struct err *e)
{
	*b = (struct copy_base){0};
	size_t at = 0;
	const char *magic = field(buf, len, &at), *dir = field(buf, len, &at);
	if (!magic || strcmp(magic, BASE_MAGIC) != 0 || !dir || dir[0] != '/')
		return err_set(e, ERR_FAILED, "the copy's baseline is not one this version reads");
	b->dir = xstrdup(dir);
	const char *kind;
	while ((kind = field(buf, len, &at))) {
		if (strcmp(kind, "x") == 0) {
			const char *p = field(buf, len, &at);
			if (!p)
				break;
			strvec_push(&b->excludes, p);
			continue;
		}
		struct copy_entry en;
		if (strcmp(kind, "e") != 0 || b->tree.n >= COPY_ENTRIES_MAX ||
		    decode_entry(buf, len, &at, &en) < 0)
			break;
		copy_tree_add(&b->tree, &en);
	}
	if (at != len) {
		copy_base_free(b);
		return err_set(e, ERR_FAILED, "the copy's baseline is damaged");
	}
	copy_tree_sort(&b->tree);
	for (size_t i = 1; i < b->tree.n; i++)
		if (copy_path_cmp(b->tree.v[i - 1].path, b->tree.v[i].path) == 0) {
			copy_base_free(b);
			return err_set(e, ERR_FAILED, "the copy's baseline is damaged");
		}
	return 0;
}

int copy_file_read(const char *path, size_t max, struct sbuf *out, bool *missing, struct err *e)
{
	*missing = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		*missing = errno == ENOENT;
		return err_set(e, ERR_FAILED, "%s: %s", path, strerror(errno));
	}
	char buf[65536];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || out->len + (size_t)r > max) {
			if (r != 0) {
				close(fd);
				sbuf_free(out);
				return err_set(e, ERR_FAILED, "%s: cannot read it", path);
			}
			break;
		}
		sbuf_add(out, buf, (size_t)r);
	}
	close(fd);
	return 0;
}

int copy_file_write(const char *path, const char *data, size_t len, struct err *e)
{
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	int rc = 0;
	if (fd < 0 || write_all(fd, data, len) < 0 || fsync(fd) < 0)
		rc = err_set(e, ERR_FAILED, "cannot write %s: %s", tmp, strerror(errno));
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = err_set(e, ERR_FAILED, "cannot write %s: %s", tmp, strerror(errno));
	if (rc == 0 && rename(tmp, path) < 0)
		rc = err_set(e, ERR_FAILED, "cannot write %s: %s", path, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

int copy_base_load(const char *path, struct copy_base *b, bool *missing, struct err *e)
{
	struct sbuf data = {0};
	if (copy_file_read(path, COPY_BASE_FILE_MAX, &data, missing, e) < 0)
		return -1;
	int rc = copy_base_decode(data.buf ? data.buf : "", data.len, b, e);
	sbuf_free(&data);
	return rc;
}

int copy_base_save(const char *path, const struct copy_base *b, struct err *e)
{
	struct sbuf data = {0};
	copy_base_encode(&data, b);
	int rc = copy_file_write(path, data.buf, data.len, e);
	sbuf_free(&data);
	return rc;
}

/* ---- the last review ---- */

#define REVIEW_MAGIC "sandbox-review 1"

void copy_review_encode(struct sbuf *out, const struct copy_review *r)
{
	sbuf_add(out, REVIEW_MAGIC, sizeof(REVIEW_MAGIC));
	sbuf_add(out, r->id, strlen(r->id) + 1);
	for (size_t i = 0; i < r->n; i++) {
		sbuf_add(out, r->v[i].hash, strlen(r->v[i].hash) + 1);
		sbuf_add(out, r->v[i].path, strlen(r->v[i].path) + 1);
	}
}

void copy_review_add(struct copy_review *r, const char *hash, const char *path)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	memcpy(r->v[r->n].hash, hash, 65);
	r->v[r->n++].path = xstrdup(path);
}

int copy_review_decode(const char *buf, size_t len, struct copy_review *r)
{
	*r = (struct copy_review){0};
	size_t at = 0;
	const char *magic = field(buf, len, &at), *id = field(buf, len, &at);
	if (!magic || strcmp(magic, REVIEW_MAGIC) != 0 || !id || !sha256_hex_ok(id))
		return -1;
	memcpy(r->id, id, 65);
	const char *h, *p;
	while ((h = field(buf, len, &at))) {
		if (!sha256_hex_ok(h) || !(p = field(buf, len, &at)) || copy_path_bad(p, strlen(p))) {
			copy_review_free(r);
			return -1;
		}
		copy_review_add(r, h, p);
	}
	return at == len ? 0 : (copy_review_free(r), -1);
}

void copy_review_free(struct copy_review *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].path);
	free(r->v);
	*r = (struct copy_review){0};
}

static bool id_ok(const char *id)
{
	size_t n = strlen(id);
	if (n == 0 || n > 128)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)id[i]))
			return false;
	return true;
}

char *copy_state_root(void)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		return xasprintf("%s/sandbox", xdg);
	if (home && home[0] == '/')
		return xasprintf("%s/.local/state/sandbox", home);
	return NULL;
}

char *copy_base_path(const char *id, bool mkdirs)
{
	char *root = id_ok(id) ? copy_state_root() : NULL;
	if (!root)
		return NULL;
	if (mkdirs) {
		/* Each level, as mkdir -p would. */
		for (char *s = root + 1; (s = strchr(s, '/')); s++) {
			*s = '\0';
			mkdir(root, 0700);
			*s = '/';
		}
		mkdir(root, 0700);
	}
	char *dir = xasprintf("%s/copies", root);
	if (mkdirs)
		mkdir(dir, 0700);
	char *path = xasprintf("%s/%s", dir, id);
	free(dir);
	free(root);
	return path;
}

/* ---- the workspace's listing ---- */

static char type_of(unsigned long m)
{
	switch (m & 0170000) {
	case 0100000: return 'f';
	case 0040000: return 'd';
	case 0120000: return 'l';
	default: return 'x'; /* a device, FIFO or socket */
	}
}

/* "MODE SIZE ./PATH": the path's line, or false. The line is a copy
 * (NUL-ended) the caller may cut. */
static bool stat_line(char *s, unsigned long *mode, unsigned long long *size, char **path)
{
	char *end;
	if (!isxdigit((unsigned char)*s))
		return false;
	errno = 0;
	*mode = strtoul(s, &end, 16);
	if (*end != ' ' || errno || end - s > 8)
		return false;
	s = end + 1;
	if (!isdigit((unsigned char)*s))
		return false;
	*size = strtoull(s, &end, 10);
	if (*end != ' ' || errno || end[1] != '.' || end[2] != '/')
		return false;
	*path = end + 3;
	return true;
}

/* What a path's lines said, beside its entry. */
enum { SEEN_DUP = 1, SEEN_BAD_STAT = 2, SEEN_BAD_SHA = 4, SEEN_SHA = 8 };

/* The memory a path of the answer takes: its entry, its name, and
 * malloc's share. */
static size_t path_cost(size_t len)
{
	return sizeof(struct copy_entry) + len + 1 + 16;
}

size_t copy_tree_cost(const struct copy_tree *t)
{
	size_t cost = 0;
	for (size_t i = 0; i < t->n; i++)
		cost += path_cost(strlen(t->v[i].path));
	return cost;
}

void copy_manifest_init(struct copy_manifest *m, const struct copy_excl *x, size_t budget)
{
	*m = (struct copy_manifest){.x = x, .budget = budget};
}

void copy_manifest_free(struct copy_manifest *m)
{
	copy_tree_free(&m->t);
	free(m->flags);
	sbuf_free(&m->cur);
	*m = (struct copy_manifest){0};
}

/* Marks m failed: every later call fails too. */
static int manifest_failed(struct copy_manifest *m)
{
	m->failed = true;
	return -1;
}

/* One name of the first part ("./PATH"). */
static int manifest_name(struct copy_manifest *m, const char *s, size_t l, struct err *e)
{
	if (l == 1 && s[0] == '.')
		return 0;
	const char *why = l < 2 || s[0] != '.' || s[1] != '/' ? "a name not under './'"
							 : copy_path_bad(s + 2, l - 2);
	if (why) {
		struct sbuf shown = {0};
		sbuf_add(&shown, s, l < 200 ? l : 200);
		for (size_t i = 0; i < shown.len; i++)
			if ((unsigned char)shown.buf[i] < 0x20 || shown.buf[i] == 0x7f)
				shown.buf[i] = '?';
		err_set(e, ERR_WORKSPACE, "the workspace's listing holds '%s', %s; nothing was done", shown.buf, why);
		sbuf_free(&shown);
		return manifest_failed(m);
	}
	struct copy_tree *t = &m->t;
	if (t->n == COPY_ENTRIES_MAX)
		return err_set(e, ERR_WORKSPACE, "the workspace holds more than %d paths", COPY_ENTRIES_MAX),
		       manifest_failed(m);
	/* Per entry, as copy_tree_cost counts the baseline: the same tree
	 * listed back always fits. */
	m->used += path_cost(l - 2);
	if (m->used > m->budget)
		return err_set(e, ERR_WORKSPACE, "the workspace lists over %zu MiB of paths more than the copy "
			       "had; nothing was done: leave out what it made (.sandboxignore, or exclude)",
			       COPY_LIST_EXTRA >> 20), manifest_failed(m);
	struct copy_entry en = {.path = xstrndup(s + 2, l - 2)};
	copy_tree_add(t, &en);
	return 0;
}

static void manifest_sort(struct copy_manifest *m)
{
	copy_tree_sort(&m->t);
	m->flags = xmalloc(m->t.n ? m->t.n : 1);
	memset(m->flags, 0, m->t.n ? m->t.n : 1);
	for (size_t i = 1; i < m->t.n; i++)
		if (copy_path_cmp(m->t.v[i - 1].path, m->t.v[i].path) == 0)
			m->flags[i - 1] |= SEEN_DUP, m->flags[i] |= SEEN_DUP;
}

/* One line of the second part ("MODE SIZE ./PATH") or the third
 * ("SHA256  ./PATH"); garbled ones are skipped. */
static void manifest_line(struct copy_manifest *m, char *line, size_t l)
{
	if (m->part == 1 && l == 2 && line[0] == '-' && line[1] == '-') {
		m->part = 2;
		return;
	}
	if (memchr(line, '\0', l))
		return;
	line[l] = '\0';
	char *path;
	struct copy_entry *p;
	if (m->part == 1) {
		unsigned long mode;
		unsigned long long size;
		if (!stat_line(line, &mode, &size, &path) || !(p = copy_tree_find(&m->t, path)))
			return;
		unsigned char *f = &m->flags[p - m->t.v];
		char t = type_of(mode);
		if (p->type && (p->type != t || p->mode != (mode & 0777) || p->size != size))
			*f |= SEEN_BAD_STAT;
		p->type = t;
		p->mode = (unsigned)(mode & 0777);
		p->size = size;
	} else {
		if (l < 68 || line[64] != ' ' || line[65] != ' ' || line[66] != '.' || line[67] != '/')
			return;
		line[64] = '\0';
		if (!sha256_hex_ok(line) || !(p = copy_tree_find(&m->t, line + 68)))
			return;
		unsigned char *f = &m->flags[p - m->t.v];
		if ((*f & SEEN_SHA) && memcmp(p->sha, line, 64) != 0)
			*f |= SEEN_BAD_SHA;
		memcpy(p->sha, line, 65);
		*f |= SEEN_SHA;
	}
}

/* The longest line of the second and third parts worth reading. */
#define LINE_MAX_LEN (COPY_PATH_MAX + 128)

int copy_manifest_feed(struct copy_manifest *m, const char *buf, size_t len, struct err *e)
{
	if (m->failed)
		return -1;
	for (size_t at = 0; at < len;) {
		char end = m->part == 0 ? '\0' : '\n';
		const char *z = memchr(buf + at, end, len - at);
		size_t l = z ? (size_t)(z - (buf + at)) : len - at;
		/* A name no path can be, or a line longer than any worth
		 * reading: the one fails the whole, the other is skipped. */
		if (m->part == 0 && m->cur.len + l > COPY_PATH_MAX + 2)
			return err_set(e, ERR_WORKSPACE, "the workspace's listing holds a name too long; "
				       "nothing was done"), manifest_failed(m);
		if (!m->skip && m->cur.len + l < LINE_MAX_LEN)
			sbuf_add(&m->cur, buf + at, l);
		else
			m->skip = true;
		at += l + (z != NULL);
		if (!z)
			break;
		if (m->part == 0 && m->cur.len == 0) {
			m->part = 1;
			manifest_sort(m);
		} else if (m->part == 0) {
			if (manifest_name(m, m->cur.buf, m->cur.len, e) < 0)
				return -1;
		} else if (!m->skip) {
			sbuf_addc(&m->cur, '\0');
			manifest_line(m, m->cur.buf, m->cur.len - 1);
		}
		sbuf_reset(&m->cur);
		m->skip = false;
	}
	return 0;
}

int copy_manifest_finish(struct copy_manifest *m, struct copy_tree *out, struct err *e)
{
	*out = (struct copy_tree){0};
	if (m->failed)
		return -1;
	if (m->part == 0)
		return err_set(e, ERR_WORKSPACE, "the workspace's listing was cut short"), manifest_failed(m);
	if (m->cur.len && !m->skip) {
		sbuf_addc(&m->cur, '\0');
		manifest_line(m, m->cur.buf, m->cur.len - 1);
	}
	struct copy_tree *t = &m->t;
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct copy_entry *p = &t->v[i];
		unsigned f = m->flags[i];
		bool again = i > 0 && (f & SEEN_DUP) && k > 0 && copy_path_cmp(t->v[k - 1].path, p->path) == 0;
		char type = (f & (SEEN_DUP | SEEN_BAD_STAT)) || !p->type ? '?' : p->type;
		if (again || type == 'x' || copy_excluded(m->x, p->path, type == 'd')) {
			copy_entry_free(p);
			continue;
		}
		p->type = type;
		if (type != 'f' || !(f & SEEN_SHA) || (f & SEEN_BAD_SHA))
			p->sha[0] = '\0';
		t->v[k++] = *p;
	}
	t->n = k;
	*out = *t;
	*t = (struct copy_tree){0};
	return 0;
}

int copy_manifest_parse(const char *buf, size_t len, const struct copy_excl *x,
			struct copy_tree *out, struct err *e)
{
	struct copy_manifest m;
	copy_manifest_init(&m, x, SIZE_MAX);
	int rc = len > COPY_MANIFEST_MAX ? err_set(e, ERR_WORKSPACE, "the workspace's listing is larger "
						     "than %zu MiB", COPY_MANIFEST_MAX >> 20)
					 : copy_manifest_feed(&m, buf, len, e);
	if (rc == 0)
		rc = copy_manifest_finish(&m, out, e);
	else
		*out = (struct copy_tree){0};
	copy_manifest_free(&m);
	return rc;
}
