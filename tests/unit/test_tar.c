/* test_tar.c: the tar reader against real archives from GNU tar (gnu,
 * posix and ustar formats) and BusyBox tar, fed whole, a byte at a time
 * and in random chunks; truncated, corrupted and hand-made archives. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sha256.h"
#include "tap.h"
#include "tar.h"
#include "util.h"

/* ---- the sink under test: it logs what it is told ---- */

/* Every callback appends to log, in a form that shows names with
 * newlines or odd bytes unambiguously; contents go in as their SHA-256. */
struct collect {
	struct sbuf log;
	struct sha256 sha;
	unsigned long long got, size;
	int entries, ends, open;
	int fail_at_entry; /* entry callback number that returns -1; 0: never */
	int fail_at_data;  /* same for data calls */
	int data_calls;
};

static int collect_entry(void *ctx, const char *name, char type, unsigned long long size)
{
	struct collect *c = ctx;
	c->entries++;
	if (c->open)
		sbuf_adds(&c->log, "ENTRY WITHOUT END\n");
	c->open = 1;
	c->got = 0;
	c->size = size;
	sha256_init(&c->sha);
	sbuf_addf(&c->log, "entry type=%c size=%llu namelen=%zu name=", type ? type : '0', size,
		  strlen(name));
	sbuf_adds(&c->log, name);
	sbuf_addc(&c->log, '\n');
	return c->entries == c->fail_at_entry ? -1 : 0;
}

static int collect_data(void *ctx, const char *buf, size_t n)
{
	struct collect *c = ctx;
	c->data_calls++;
	if (!c->open || n == 0)
		sbuf_adds(&c->log, "BAD DATA CALL\n");
	sha256_update(&c->sha, buf, n);
	c->got += n;
	return c->data_calls == c->fail_at_data ? -1 : 0;
}

static int collect_end(void *ctx)
{
	struct collect *c = ctx;
	unsigned char d[32];
	char hex[65];
	sha256_final(&c->sha, d);
	sha256_hex(d, hex);
	sbuf_addf(&c->log, "end bytes=%llu sha256=%s\n", c->got, hex);
	c->ends++;
	c->open = 0;
	return 0;
}

static void collect_init(struct collect *c, struct tar_sink *sink)
{
	memset(c, 0, sizeof(*c));
	sbuf_add(&c->log, "", 0);
	sink->ctx = c;
	sink->entry = collect_entry;
	sink->data = collect_data;
	sink->end = collect_end;
}

/* The reader's state is large: one, reused, not on the stack. */
static struct tar_reader reader;

/* Feeds buf in chunks (chunk 0: random sizes from seed) and finishes.
 * Returns 0 or -1; err holds the message. */
static int feed_all(struct collect *c, const char *buf, size_t n, size_t chunk,
		    unsigned long seed, char *err, size_t errlen)
{
	struct tar_sink sink;
	collect_init(c, &sink);
	tar_init(&reader, &sink);
	unsigned long x = seed | 1;
	for (size_t at = 0; at < n;) {
		size_t k = chunk;
		if (!k) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* Mostly small, sometimes several blocks at once. */
			k = x % 8 ? 1 + (x >> 8) % 700 : 1 + (x >> 8) % 20000;
		}
		if (k > n - at)
			k = n - at;
		if (tar_feed(&reader, buf + at, k, err, errlen) < 0)
			return -1;
		at += k;
	}
	return tar_finish(&reader, err, errlen);
}

/* ---- files and real tar programs ---- */

struct tfile {
	const char *name; /* as given to tar, relative to the directory */
	char type;        /* '0', '5' or '2' */
	const char *target; /* symlink target */
	size_t size;
	unsigned seed;    /* content: pseudo-random bytes from it */
};

static char *tfile_content(const struct tfile *f)
{
	char *buf = xmalloc(f->size + 1);
	unsigned long x = f->seed * 2654435761UL + 1;
	for (size_t i = 0; i < f->size; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (char)(x >> 24);
	}
	return buf;
}

static int mkdirs_for(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	for (char *p = path + strlen(dir) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			free(path);
			return -1;
		}
		*p = '/';
	}
	free(path);
	return 0;
}

static int tfile_create(const char *dir, const struct tfile *f)
{
	if (mkdirs_for(dir, f->name) < 0)
		return -1;
	char *path = xasprintf("%s/%s", dir, f->name);
	int rc = 0;
	if (f->type == '5') {
		rc = mkdir(path, 0755);
	} else if (f->type == '2') {
		rc = symlink(f->target, path);
	} else {
		char *content = tfile_content(f);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		rc = fd < 0 || write_all(fd, content, f->size) < 0 ? -1 : 0;
		if (fd >= 0)
			close(fd);
		free(content);
	}
	free(path);
	return rc;
}

/* What the reader should log for these files, tar listing them in order. */
static void expected_log(struct sbuf *log, const struct tfile *files, size_t n)
{
	sbuf_add(log, "", 0);
	for (size_t i = 0; i < n; i++) {
		const struct tfile *f = &files[i];
		size_t size = f->type == '0' ? f->size : 0;
		char *name = f->type == '5' ? xasprintf("%s/", f->name) : xstrdup(f->name);
		char hex[65];
		char *content = tfile_content(f);
		sha256_buf_hex(content, size, hex);
		sbuf_addf(log, "entry type=%c size=%zu namelen=%zu name=%s\n", f->type, size,
			  strlen(name), name);
		sbuf_addf(log, "end bytes=%zu sha256=%s\n", size, hex);
		free(content);
		free(name);
	}
}

/* Runs argv (searched in PATH) in dir; its stdout into out. */
static int run_capture(char *const argv[], const char *dir, struct sbuf *out)
{
	int fds[2];
	if (pipe(fds) < 0)
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		if (chdir(dir) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	sbuf_add(out, "", 0);
	char buf[65536];
	ssize_t r;
	while ((r = read(fds[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
		if (r > 0)
			sbuf_add(out, buf, (size_t)r);
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Archives files of dir with the tar command in pre (NULL-ended). */
static int make_archive(const char *dir, const char *const *pre, const struct tfile *files,
			size_t n, struct sbuf *out)
{
	struct strvec argv = {0};
	for (; *pre; pre++)
		strvec_push(&argv, *pre);
	strvec_push(&argv, "-cf");
	strvec_push(&argv, "-");
	for (size_t i = 0; i < n; i++)
		strvec_push(&argv, files[i].name);
	int rc = run_capture(strvec_argv(&argv), dir, out);
	strvec_clear(&argv);
	return rc;
}

#define LONG150 "llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll"
#define X120 "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"

static const struct tfile small_files[] = {
	{"plain.txt", '0', NULL, 6, 1},
	{"empty", '0', NULL, 0, 2},
	{"with space.txt", '0', NULL, 17, 3},
	{"nl\nname", '0', NULL, 3, 4},
	{"bad\xff\xfe", '0', NULL, 2, 5},
	{"caf\xc3\xa9", '0', NULL, 100, 6},
	{"b511", '0', NULL, 511, 7},
	{"b512", '0', NULL, 512, 8},
	{"b513", '0', NULL, 513, 9},
	{"pre/" X120 "/f.txt", '0', NULL, 40, 10},
	{"emptydir", '5', NULL, 0, 11},
	{"link", '2', "plain.txt", 0, 12},
};

/* Beyond what ustar can hold: names over 100 bytes in one component,
 * and paths over 255 bytes. */
static const struct tfile long_files[] = {
	{LONG150, '0', NULL, 33, 21},
	{"d1/" LONG150 "/" LONG150 "/file.txt", '0', NULL, 1000, 22},
	{"d1/" LONG150 "/nl\n" LONG150 "\xff", '0', NULL, 5, 23},
};

static const struct tfile big_files[] = {
	{"big.bin", '0', NULL, 3 << 20, 31},
	{"after.txt", '0', NULL, 10, 32},
};

struct archive {
	const char *title;
	struct sbuf data;
	struct sbuf want;
};

static void check_chunkings(struct archive *a, bool bytewise)
{
	char err[256];
	struct collect c;
	int rc = feed_all(&c, a->data.buf, a->data.len, a->data.len, 0, err, sizeof(err));
	if (!is_mem(c.log.buf, c.log.len, a->want.buf, a->want.len, "%s: fed whole", a->title) || rc)
		diag("rc %d: %s", rc, rc ? err : "");
	sbuf_free(&c.log);
	if (bytewise) {
		rc = feed_all(&c, a->data.buf, a->data.len, 1, 0, err, sizeof(err));
		ok(rc == 0 && c.log.len == a->want.len && memcmp(c.log.buf, a->want.buf, c.log.len) == 0,
		   "%s: fed 1 byte at a time", a->title);
		sbuf_free(&c.log);
	}
	static const size_t sizes[] = {511, 512, 513, 4096, 65536};
	for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
		rc = feed_all(&c, a->data.buf, a->data.len, sizes[i], 0, err, sizeof(err));
		ok(rc == 0 && c.log.len == a->want.len && memcmp(c.log.buf, a->want.buf, c.log.len) == 0,
		   "%s: fed in chunks of %zu", a->title, sizes[i]);
		sbuf_free(&c.log);
	}
	int bad = 0, ways = bytewise ? 20 : 6;
	for (unsigned long seed = 1; seed <= (unsigned long)ways; seed++) {
		rc = feed_all(&c, a->data.buf, a->data.len, 0, seed * 7919, err, sizeof(err));
		if (rc != 0 || c.log.len != a->want.len || memcmp(c.log.buf, a->want.buf, c.log.len) != 0) {
			diag("seed %lu: rc %d %s", seed, rc, rc ? err : "");
			bad++;
		}
		sbuf_free(&c.log);
	}
	is_int(bad, 0, "%s: fed in random chunk sizes, %d ways", a->title, ways);
}

/* Every prefix of the archive: an error unless it stops at a block
 * boundary between entries, and never an entry cut short while the
 * reader says all is well. */
static void check_truncations(struct archive *a)
{
	size_t first_zero = 0;
	static const char zero[512];
	for (size_t at = 0; at + 512 <= a->data.len; at += 512)
		if (memcmp(a->data.buf + at, zero, 512) == 0) {
			first_zero = at;
			break;
		}
	int bad = 0, errors = 0;
	int cuts = 0;
	for (size_t cut = 0; cut <= a->data.len; cut++) {
		/* Every cut in the first blocks, then a few per block. */
		size_t in = cut % 512;
		if (cut > 2048 && in != 0 && in != 1 && in != 100 && in != 511)
			continue;
		cuts++;
		char err[256] = "";
		struct collect c;
		int rc = feed_all(&c, a->data.buf, cut, cut ? cut : 1, 0, err, sizeof(err));
		bool whole = c.entries == c.ends && c.log.len <= a->want.len &&
			     memcmp(c.log.buf, a->want.buf, c.log.len) == 0;
		if (rc < 0)
			errors++;
		/* A cut into the end-of-archive zeros loses nothing; any cut
		 * before them, even between entries, is a truncated archive
		 * (another archive could have followed). */
		if ((rc == 0 && ((cut > 0 && cut <= first_zero) || !whole)) || (rc < 0 && cut > first_zero) ||
		    (rc < 0 && !strstr(err, "truncated"))) {
			if (bad++ < 5)
				diag("cut at %zu: rc %d (%s), %d entries, %d ends", cut, rc, err,
				     c.entries, c.ends);
		}
		sbuf_free(&c.log);
	}
	is_int(bad, 0, "%s: %d prefixes: 'truncated' unless cut into the end blocks (%d errors)",
	       a->title, cuts, errors);
}

static void check_corruption(struct archive *a)
{
	char err[256] = "";
	struct collect c;
	struct sbuf copy = {0};
	/* Header offsets: the first, and one in the middle, found by the
	 * checksum field pattern being valid there. */
	size_t offsets[2] = {0, 0};
	for (size_t at = 512; at + 512 <= a->data.len / 2 + 512; at += 512)
		if (a->data.buf[at + 156] == '0' && memcmp(a->data.buf + at + 257, "ustar", 5) == 0)
			offsets[1] = at;
	for (size_t i = 0; i < 2; i++) {
		static const size_t where[] = {0, 100, 148, 153, 156, 300, 511};
		for (size_t w = 0; w < ARRAY_LEN(where); w++) {
			sbuf_reset(&copy);
			sbuf_add(&copy, a->data.buf, a->data.len);
			copy.buf[offsets[i] + where[w]] ^= 0x01;
			int rc = feed_all(&c, copy.buf, copy.len, 1000, 0, err, sizeof(err));
			ok(rc < 0 && strstr(err, "checksum"),
			   "%s: a flipped bit at byte %zu of the header at %zu: checksum error",
			   a->title, where[w], offsets[i]);
			if (rc == 0 || !strstr(err, "checksum"))
				diag("rc %d: %s", rc, err);
			sbuf_free(&c.log);
		}
	}
	sbuf_free(&copy);
}

static const char *mk_tmpdir(char *buf)
{
	strcpy(buf, "/tmp/test_tar.XXXXXX");
	return mkdtemp(buf);
}

static void rm_tree(const char *dir)
{
	char *const argv[] = {"rm", "-rf", "--", (char *)dir, NULL};
	struct sbuf out = {0};
	run_capture(argv, "/", &out);
	sbuf_free(&out);
}

static void test_real_archives(void)
{
	char dirbuf[64];
	const char *dir = mk_tmpdir(dirbuf);
	if (!dir) {
		ok(false, "mkdtemp");
		return;
	}
	bool made = true;
	for (size_t i = 0; i < ARRAY_LEN(small_files); i++)
		made = made && tfile_create(dir, &small_files[i]) == 0;
	for (size_t i = 0; i < ARRAY_LEN(long_files); i++)
		made = made && tfile_create(dir, &long_files[i]) == 0;
	for (size_t i = 0; i < ARRAY_LEN(big_files); i++)
		made = made && tfile_create(dir, &big_files[i]) == 0;
	ok(made, "test files created in %s", dir);

	static const char *const gnu[] = {"tar", NULL};
	static const char *const posix[] = {"tar", "--format=posix", NULL};
	static const char *const ustar[] = {"tar", "--format=ustar", NULL};
	static const char *const busybox[] = {"/bin/busybox", "tar", NULL};
	static const struct {
		const char *title;
		const char *const *cmd;
		bool with_long;
	} tars[] = {
		{"GNU tar", gnu, true},
		{"GNU tar --format=posix", posix, true},
		{"GNU tar --format=ustar", ustar, false},
		{"BusyBox tar", busybox, true},
	};
	for (size_t t = 0; t < ARRAY_LEN(tars); t++) {
		if (tars[t].cmd == busybox && access("/bin/busybox", X_OK) != 0) {
			ok(true, "BusyBox tar: skipped, no /bin/busybox");
			continue;
		}
		struct tfile files[ARRAY_LEN(small_files) + ARRAY_LEN(long_files)];
		size_t n = 0;
		for (size_t i = 0; i < ARRAY_LEN(small_files); i++)
			files[n++] = small_files[i];
		for (size_t i = 0; tars[t].with_long && i < ARRAY_LEN(long_files); i++)
			files[n++] = long_files[i];

		struct archive small = {xasprintf("%s, small files", tars[t].title), {0}, {0}};
		if (!ok(make_archive(dir, tars[t].cmd, files, n, &small.data) == 0,
			"%s makes an archive of %zu files", tars[t].title, n)) {
			free((char *)small.title);
			sbuf_free(&small.data);
			continue;
		}
		expected_log(&small.want, files, n);
		check_chunkings(&small, true);
		check_truncations(&small);
		check_corruption(&small);

		struct archive big = {xasprintf("%s, a 3 MiB file", tars[t].title), {0}, {0}};
		ok(make_archive(dir, tars[t].cmd, big_files, ARRAY_LEN(big_files), &big.data) == 0,
		   "%s makes an archive of a 3 MiB file", tars[t].title);
		expected_log(&big.want, big_files, ARRAY_LEN(big_files));
		check_chunkings(&big, false);
		char err[256] = "";
		struct collect c;
		int rc = feed_all(&c, big.data.buf, (3 << 20) / 2 + 1000, 4096, 0, err, sizeof(err));
		ok(rc < 0 && strstr(err, "truncated") && strstr(err, "big.bin"),
		   "%s: cut inside the 3 MiB file: %s", tars[t].title, err);
		sbuf_free(&c.log);

		free((char *)small.title);
		free((char *)big.title);
		sbuf_free(&small.data);
		sbuf_free(&small.want);
		sbuf_free(&big.data);
		sbuf_free(&big.want);
	}
	rm_tree(dir);
}

/* ---- hand-made archives ---- */

static void hdr_checksum(unsigned char *h)
{
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

/* 11 octal digits (the size field's, NUL after), the low 33 bits of v. */
static void put_octal11(unsigned char *field, unsigned long long v)
{
	char oct[32];
	snprintf(oct, sizeof(oct), "%011llo", v & 077777777777ULL);
	memcpy(field, oct, 11);
}

/* Appends a header: name, typeflag, octal size (or raw size field). */
static void add_header(struct sbuf *a, const char *name, char type, unsigned long long size,
		       const unsigned char *raw_size)
{
	unsigned char h[512];
	memset(h, 0, sizeof(h));
	memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	if (raw_size)
		memcpy(h + 124, raw_size, 12);
	else
		put_octal11(h + 124, size);
	memcpy(h + 136, "00000000000", 11);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar\0" "00", 8);
	hdr_checksum(h);
	sbuf_add(a, h, sizeof(h));
}

/* Appends n bytes of payload and the padding to a block. */
static void add_payload(struct sbuf *a, const char *data, size_t n)
{
	sbuf_add(a, data, n);
	while (a->len % 512)
		sbuf_addc(a, '\0');
}

static void add_end(struct sbuf *a)
{
	static const char zero[1024];
	sbuf_add(a, zero, sizeof(zero));
}

/* One well-formed pax record: its length counts its own digits. */
static void pax_rec(struct sbuf *s, const char *key, const char *val)
{
	size_t n = strlen(key) + strlen(val) + 3, len = n;
	while (len != n + (size_t)snprintf(NULL, 0, "%zu", len))
		len = n + (size_t)snprintf(NULL, 0, "%zu", len);
	sbuf_addf(s, "%zu %s=%s\n", len, key, val);
}

static void add_pax(struct sbuf *a, const char *records)
{
	add_header(a, "PaxHeaders/x", 'x', strlen(records), NULL);
	add_payload(a, records, strlen(records));
}

/* Feeds a made archive whole and byte by byte; both must agree. */
static int feed_made(struct collect *c, const struct sbuf *a, char *err, size_t errlen)
{
	struct collect c1;
	char err1[256] = "";
	int rc1 = feed_all(&c1, a->buf, a->len, 1, 0, err1, sizeof(err1));
	int rc = feed_all(c, a->buf, a->len, a->len ? a->len : 1, 0, err, errlen);
	if (rc != rc1 || c1.log.len != c->log.len || memcmp(c1.log.buf, c->log.buf, c->log.len) != 0 ||
	    (rc < 0 && strcmp(err, err1) != 0))
		diag("fed whole and byte by byte differ: %s / %s", err, err1);
	sbuf_free(&c1.log);
	return rc;
}

static void test_made(void)
{
	struct sbuf a = {0};
	struct collect c;
	char err[256] = "";

	/* Base-256 size, as GNU tar writes it for files of 8 GiB and more. */
	unsigned char b256[12] = {0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xe8};
	char body[1000];
	memset(body, 'q', sizeof(body));
	add_header(&a, "b256", '0', 0, b256);
	add_payload(&a, body, sizeof(body));
	add_end(&a);
	int rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && strstr(c.log.buf, "size=1000 namelen=4 name=b256\nend bytes=1000"),
	   "a base-256 size field");
	sbuf_free(&c.log);

	sbuf_reset(&a);
	unsigned char neg[12] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	add_header(&a, "neg", '0', 0, neg);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "size"), "a negative base-256 size is an error: %s", err);
	sbuf_free(&c.log);

	sbuf_reset(&a);
	unsigned char huge[12] = {0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	add_header(&a, "huge", '0', 0, huge);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "size"), "a base-256 size over 64 bits is an error: %s", err);
	sbuf_free(&c.log);

	sbuf_reset(&a);
	add_header(&a, "blank", '0', 0, (const unsigned char *)"           ");
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "size"), "a blank size field is an error: %s", err);
	sbuf_free(&c.log);

	/* A long name at the limit, and one past it. */
	sbuf_reset(&a);
	char *name = xmalloc(TAR_META_MAX);
	memset(name, 'n', TAR_META_MAX - 1);
	name[TAR_META_MAX - 1] = '\0';
	add_header(&a, "././@LongLink", 'L', TAR_META_MAX, NULL);
	add_payload(&a, name, TAR_META_MAX);
	add_header(&a, "short", '0', 0, NULL);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && c.entries == 1 && strstr(c.log.buf, "namelen=65535 name=nnnn"),
	   "a long name of 65536 bytes (NUL included) is read");
	sbuf_free(&c.log);
	sbuf_reset(&a);
	add_header(&a, "././@LongLink", 'L', TAR_META_MAX + 1, NULL);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "long name of 65537 bytes"), "a long name over 64 KiB: %s", err);
	sbuf_free(&c.log);
	sbuf_reset(&a);
	add_header(&a, "PaxHeaders/x", 'x', 1ULL << 32, NULL);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "pax header of"), "a pax header of 4 GiB: %s", err);
	sbuf_free(&c.log);
	free(name);

	/* pax: path and size win over the header's; other keys ignored. */
	sbuf_reset(&a);
	struct sbuf recs = {0};
	pax_rec(&recs, "mtime", "1700000000.123456789");
	pax_rec(&recs, "path", "pax/\xff\nname");
	pax_rec(&recs, "size", "5");
	pax_rec(&recs, "uname", "nobody");
	pax_rec(&recs, "a-key-long-enough-to-take-a-three-digit-length", LONG150);
	add_pax(&a, recs.buf);
	sbuf_free(&recs);
	add_header(&a, "ignored", '0', 0, NULL);
	add_payload(&a, "hello", 5);
	add_header(&a, "next", '0', 1, NULL);
	add_payload(&a, "z", 1);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && strstr(c.log.buf, "entry type=0 size=5 namelen=10 name=pax/\xff\nname\nend bytes=5") &&
	   strstr(c.log.buf, "size=1 namelen=4 name=next\n"),
	   "pax path and size apply to the next entry only");
	if (rc)
		diag("%s", err);
	sbuf_free(&c.log);

	/* A GNU long name and a pax path both: the pax path wins. */
	sbuf_reset(&a);
	add_header(&a, "././@LongLink", 'L', 5, NULL);
	add_payload(&a, "long", 5);
	add_pax(&a, "12 path=pax\n");
	add_header(&a, "hdr", '0', 0, NULL);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	if (!ok(rc == 0 && strstr(c.log.buf, "name=pax\n"), "a pax path wins over a GNU long name"))
		diag("rc %d %s: %s", rc, err, c.log.buf);
	sbuf_free(&c.log);
	sbuf_reset(&a);
	add_pax(&a, "12 path=pax\n");
	add_header(&a, "././@LongLink", 'L', 5, NULL);
	add_payload(&a, "long", 5);
	add_header(&a, "hdr", '0', 0, NULL);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && strstr(c.log.buf, "name=pax\n"), "... in either order");
	sbuf_free(&c.log);

	static const char *const bad_pax[] = {
		"11 path=pax\n", "13 path=pax", "x3 path=pax\n", "13path=pax\n\n",
		"11 pathpax\n", "99 path=pax\n", "0 \n", "10 size=x\n",
		"8 size=\n", "32 size=99999999999999999999999\n", "12 path=pax\n3 x",
	};
	for (size_t i = 0; i < ARRAY_LEN(bad_pax); i++) {
		sbuf_reset(&a);
		add_pax(&a, bad_pax[i]);
		add_header(&a, "hdr", '0', 0, NULL);
		add_end(&a);
		rc = feed_made(&c, &a, err, sizeof(err));
		ok(rc < 0 && strstr(err, "pax"), "malformed pax header '%s': %s", bad_pax[i], err);
		sbuf_free(&c.log);
	}
	sbuf_reset(&a);
	add_pax(&a, "12 path=pQx\n");
	a.buf[512 + 9] = '\0';
	add_header(&a, "hdr", '0', 0, NULL);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "NUL"), "a NUL in a pax path: %s", err);
	sbuf_free(&c.log);

	/* ustar prefix, with the POSIX magic only. */
	sbuf_reset(&a);
	add_header(&a, "name.c", '0', 0, NULL);
	memcpy(a.buf + 345, "some/prefix", 11);
	hdr_checksum((unsigned char *)a.buf);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && strstr(c.log.buf, "name=some/prefix/name.c\n"), "the ustar prefix field");
	sbuf_free(&c.log);
	memcpy(a.buf + 257, "ustar  \0", 8);
	hdr_checksum((unsigned char *)a.buf);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && strstr(c.log.buf, "name=name.c\n"), "no prefix in the GNU format's header");
	sbuf_free(&c.log);

	/* A 100-byte name with no NUL after it. */
	sbuf_reset(&a);
	char n100[101];
	memset(n100, 'k', 100);
	n100[100] = '\0';
	add_header(&a, n100, '0', 0, NULL);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && strstr(c.log.buf, "namelen=100 name=kkkk"), "a name filling all 100 bytes");
	sbuf_free(&c.log);

	/* Types without data: their size field is not content. */
	sbuf_reset(&a);
	add_header(&a, "dir/", '5', 4096, NULL);
	add_header(&a, "hard", '1', 7, NULL);
	add_header(&a, "file", '\0', 2, NULL);
	add_payload(&a, "ab", 2);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && strstr(c.log.buf, "type=5 size=0 namelen=4 name=dir/\nend bytes=0") &&
	   strstr(c.log.buf, "type=1 size=0") && strstr(c.log.buf, "type=0 size=2 namelen=4 name=file\nend bytes=2"),
	   "directory and hard link: no content; an old-style '\\0' type file has its content");
	sbuf_free(&c.log);

	/* Global pax headers are skipped; a GNU long link name is the next entry's link. */
	sbuf_reset(&a);
	add_header(&a, "g", 'g', 10, NULL);
	add_payload(&a, "10 a=bcd\n\n", 10);
	add_header(&a, "././@LongLink", 'K', 3, NULL);
	add_payload(&a, "tg", 3);
	add_header(&a, "sym", '2', 0, NULL);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && c.entries == 1 && strstr(c.log.buf, "type=2 size=0 namelen=3 name=sym\n"),
	   "'g' and 'K' headers make no entry");
	sbuf_free(&c.log);

	/* Ends. */
	sbuf_reset(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && c.entries == 0, "an empty input is an empty archive");
	sbuf_free(&c.log);
	add_header(&a, "one", '0', 0, NULL);
	sbuf_add(&a, (char[512]){0}, 512);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && c.entries == 1, "one zero block at the end is a clean end");
	sbuf_free(&c.log);
	add_header(&a, "two", '0', 0, NULL);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && c.entries == 2, "a lone zero block between entries");
	sbuf_free(&c.log);
	/* Archives one after the other (xargs tar -c): all of their entries. */
	add_header(&a, "three", '0', 0, NULL);
	add_end(&a);
	sbuf_add(&a, (char[8192]){0}, 8192);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && c.entries == 3, "archives one after the other are read as one");
	sbuf_free(&c.log);
	sbuf_adds(&a, "trailing garbage after the end of the archive");
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0, "bytes after the end that are no header are an error");
	sbuf_free(&c.log);
	sbuf_reset(&a);
	add_header(&a, "cut", '0', 0, NULL);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0, "entries with no end block at all: truncated");
	sbuf_free(&c.log);
	sbuf_reset(&a);
	add_header(&a, "././@LongLink", 'L', 5, NULL);
	add_payload(&a, "long", 5);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "extended header"), "a long name with no entry after it: %s", err);
	sbuf_free(&c.log);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "extended header"), "... also before the end blocks: %s", err);
	sbuf_free(&c.log);

	sbuf_reset(&a);
	for (int i = 0; i < 512; i++)
		sbuf_addc(&a, 'A');
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc < 0 && strstr(err, "checksum") && strstr(err, "byte 0"), "not a tar archive: %s", err);
	sbuf_free(&c.log);

	/* Old tar writers summed signed chars. */
	sbuf_reset(&a);
	add_header(&a, "\xe9t\xe9", '0', 0, NULL);
	int ssum = 0;
	memset(a.buf + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		ssum += (signed char)a.buf[i];
	snprintf(a.buf + 148, 8, "%06o", ssum);
	add_end(&a);
	rc = feed_made(&c, &a, err, sizeof(err));
	ok(rc == 0 && c.entries == 1, "a checksum of signed bytes is accepted");
	sbuf_free(&c.log);

	sbuf_free(&a);
}

static void test_callbacks(void)
{
	struct sbuf a = {0};
	add_header(&a, "one", '0', 3, NULL);
	add_payload(&a, "abc", 3);
	add_header(&a, "two", '0', 3, NULL);
	add_payload(&a, "def", 3);
	add_end(&a);

	struct collect c;
	struct tar_sink sink;
	char err[256] = "";
	collect_init(&c, &sink);
	c.fail_at_entry = 2;
	tar_init(&reader, &sink);
	int rc = tar_feed(&reader, a.buf, a.len, err, sizeof(err));
	ok(rc < 0 && strstr(err, "entry callback") && strstr(err, "two") && c.ends == 1,
	   "an entry callback returning -1 stops the reader: %s", err);
	rc = tar_feed(&reader, a.buf, 1, err, sizeof(err));
	ok(rc < 0 && strstr(err, "earlier error"), "and every later feed fails: %s", err);
	rc = tar_finish(&reader, err, sizeof(err));
	ok(rc < 0, "and the finish too");
	sbuf_free(&c.log);

	collect_init(&c, &sink);
	c.fail_at_data = 1;
	tar_init(&reader, &sink);
	rc = tar_feed(&reader, a.buf, a.len, err, sizeof(err));
	ok(rc < 0 && strstr(err, "data callback") && c.ends == 0,
	   "a data callback returning -1 stops the reader: %s", err);
	sbuf_free(&c.log);

	struct tar_sink none = {NULL, NULL, NULL, NULL};
	tar_init(&reader, &none);
	rc = tar_feed(&reader, a.buf, a.len, err, sizeof(err));
	ok(rc == 0 && tar_finish(&reader, err, sizeof(err)) == 0, "NULL callbacks are skipped");
	sbuf_free(&a);
}

int main(void)
{
	test_real_archives();
	test_made();
	test_callbacks();
	return done_testing();
}
