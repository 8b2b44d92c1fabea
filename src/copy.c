/* copy.c: see copy.h. */
#include "copy.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glob.h"
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

static bool is_hex64(const char *s)
{
	size_t n = strlen(s);
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
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
	    (*f[3] && !is_hex64(f[3])) || copy_path_bad(f[5], strlen(f[5])))
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

int copy_base_load(const char *path, struct copy_base *b, bool *missing, struct err *e)
{
	*missing = false;
	struct sbuf data = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		*missing = errno == ENOENT;
		return err_set(e, ERR_FAILED, "%s: %s", path, strerror(errno));
	}
	char buf[65536];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || data.len + (size_t)r > COPY_BASE_FILE_MAX) {
			if (r != 0) {
				close(fd);
				sbuf_free(&data);
				return err_set(e, ERR_FAILED, "%s: cannot read it", path);
			}
			break;
		}
		sbuf_add(&data, buf, (size_t)r);
	}
	close(fd);
	int rc = copy_base_decode(data.buf ? data.buf : "", data.len, b, e);
	sbuf_free(&data);
	return rc;
}

int copy_base_save(const char *path, const struct copy_base *b, struct err *e)
{
	struct sbuf data = {0};
	copy_base_encode(&data, b);
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	int rc = 0;
	if (fd < 0 || write_all(fd, data.buf, data.len) < 0 || fsync(fd) < 0) {
		rc = err_set(e, ERR_FAILED, "cannot write the copy's baseline %s: %s", tmp, strerror(errno));
	}
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = err_set(e, ERR_FAILED, "cannot write the copy's baseline %s: %s", tmp, strerror(errno));
	if (rc == 0 && rename(tmp, path) < 0)
		rc = err_set(e, ERR_FAILED, "cannot write the copy's baseline %s: %s", path, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	sbuf_free(&data);
	return rc;
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

/* One path of the answer, and what its lines said. */
struct seen {
	const char *path;       /* into the answer */
	size_t len;
	char type;              /* 0: no stat line yet */
	unsigned mode;
	unsigned long long size;
	const char *sha;        /* into the answer; NULL: none */
	bool dup, bad_stat, bad_sha;
};

static int seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	/* Paths hold no NUL: the answer's names end at one. */
	return copy_path_cmp(x->path, y->path);
}

static struct seen *seen_find(struct seen *v, size_t n, const char *path)
{
	struct seen key = {.path = path};
	return n ? bsearch(&key, v, n, sizeof(*v), seen_cmp) : NULL;
}

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

int copy_manifest_parse(const char *buf, size_t len, const struct copy_excl *x,
			struct copy_tree *out, struct err *e)
{
	*out = (struct copy_tree){0};
	if (len > COPY_MANIFEST_MAX)
		return err_set(e, ERR_WORKSPACE, "the workspace's listing is larger than %zu MiB",
			       COPY_MANIFEST_MAX >> 20);
	struct seen *v = NULL;
	size_t n = 0, cap = 0, at = 0;
	int rc = 0;
	/* The names. */
	for (;;) {
		const char *z = at < len ? memchr(buf + at, '\0', len - at) : NULL;
		if (!z) {
			rc = err_set(e, ERR_WORKSPACE, "the workspace's listing was cut short");
			goto out;
		}
		const char *s = buf + at;
		size_t l = (size_t)(z - s);
		at += l + 1;
		if (l == 0)
			break;
		if (l == 1 && s[0] == '.')
			continue;
		const char *why = l < 2 || s[0] != '.' || s[1] != '/' ? "a name not under './'"
								 : copy_path_bad(s + 2, l - 2);
		if (why) {
			struct sbuf shown = {0};
			sbuf_add(&shown, s, l < 200 ? l : 200);
			for (size_t i = 0; i < shown.len; i++)
				if ((unsigned char)shown.buf[i] < 0x20 || shown.buf[i] == 0x7f)
					shown.buf[i] = '?';
			rc = err_set(e, ERR_WORKSPACE, "the workspace's listing holds '%s', %s; nothing was done",
				     shown.buf, why);
			sbuf_free(&shown);
			goto out;
		}
		if (n == COPY_ENTRIES_MAX) {
			rc = err_set(e, ERR_WORKSPACE, "the workspace holds more than %d paths", COPY_ENTRIES_MAX);
			goto out;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = (struct seen){.path = s + 2, .len = l - 2};
	}
	if (n)
		qsort(v, n, sizeof(*v), seen_cmp);
	for (size_t i = 1; i < n; i++)
		if (copy_path_cmp(v[i - 1].path, v[i].path) == 0)
			v[i - 1].dup = v[i].dup = true;
	/* The stat lines, then the hashes. */
	bool hashes = false;
	char line[COPY_PATH_MAX + 128];
	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - (buf + at)) : len - at;
		const char *s = buf + at;
		at += l + 1;
		if (!hashes && l == 2 && s[0] == '-' && s[1] == '-') {
			hashes = true;
			continue;
		}
		if (l >= sizeof(line) || memchr(s, '\0', l))
			continue;
		memcpy(line, s, l);
		line[l] = '\0';
		char *path;
		struct seen *p;
		if (!hashes) {
			unsigned long mode;
			unsigned long long size;
			if (!stat_line(line, &mode, &size, &path) || !(p = seen_find(v, n, path)))
				continue;
			char t = type_of(mode);
			if (p->type && (p->type != t || p->mode != (mode & 0777) || p->size != size))
				p->bad_stat = true;
			p->type = t;
			p->mode = (unsigned)(mode & 0777);
			p->size = size;
		} else {
			if (l < 68 || line[64] != ' ' || line[65] != ' ' || line[66] != '.' || line[67] != '/')
				continue;
			line[64] = '\0';
			if (!is_hex64(line) || !(p = seen_find(v, n, line + 68)))
				continue;
			if (p->sha && memcmp(p->sha, s, 64) != 0)
				p->bad_sha = true;
			p->sha = s;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct seen *p = &v[i];
		if (i > 0 && p->dup && copy_path_cmp(v[i - 1].path, p->path) == 0)
			continue; /* once */
		char t = p->dup || p->bad_stat || !p->type ? '?' : p->type;
		if (t == 'x' || copy_excluded(x, p->path, t == 'd'))
			continue;
		struct copy_entry en = {.path = xstrdup(p->path), .type = t, .mode = p->mode, .size = p->size};
		if (t == 'f' && p->sha && !p->bad_sha) {
			memcpy(en.sha, p->sha, 64);
			en.sha[64] = '\0';
		}
		copy_tree_add(out, &en);
	}
out:
	free(v);
	if (rc < 0)
		copy_tree_free(out);
	return rc;
}
