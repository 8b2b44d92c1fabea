/* tar.c: see tar.h. The archive is a run of 512-byte blocks: a header,
 * then its payload padded to a block, and so on, ended by two zero
 * blocks. The reader is a small state machine over those, so a chunk
 * may end anywhere: in a header, in a payload or in its padding. */
#include "tar.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TAR_BLOCK 512

/* Offsets of the header fields used (POSIX ustar; GNU shares them). */
#define TAR_NAME 0
#define TAR_NAME_LEN 100
#define TAR_MODE 100
#define TAR_MODE_LEN 8
#define TAR_MTIME 136
#define TAR_MTIME_LEN 12
#define TAR_LINKNAME 157
#define TAR_LINKNAME_LEN 100
#define TAR_SIZE 124
#define TAR_SIZE_LEN 12
#define TAR_CHKSUM 148
#define TAR_CHKSUM_LEN 8
#define TAR_TYPE 156
#define TAR_MAGIC 257
#define TAR_PREFIX 345
#define TAR_PREFIX_LEN 155

__attribute__((format(printf, 3, 4)))
static int tar_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
	if (errbuf && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The entry name for a message: control bytes (a newline in a name) as
 * '?', cut to keep the message short. */
static const char *tar_msg_name(const struct tar_reader *r, char *buf, size_t len)
{
	size_t i = 0;
	for (; r->name[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)r->name[i];
		buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[i] = '\0';
	return buf;
}

void tar_init(struct tar_reader *r, const struct tar_sink *sink)
{
	memset(r, 0, sizeof(*r));
	r->sink = *sink;
	r->state = TAR_HEADER;
}

/* ---- header fields ---- */

static bool tar_parse_octal(const unsigned char *f, size_t len, unsigned long long *out)
{
	size_t i = 0;
	unsigned long long v = 0;
	while (i < len && f[i] == ' ')
		i++;
	size_t first = i;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 61)
			return false;
		v = v << 3 | (unsigned)(f[i] - '0');
	}
	if (i == first || (i < len && f[i] != ' ' && f[i] != '\0'))
		return false;
	*out = v;
	return true;
}

/* GNU's base-256: the top bit of the first byte marks it, the next is
 * the sign; big-endian two's complement after that. A size is never
 * negative. */
static bool tar_parse_number(const unsigned char *f, size_t len, unsigned long long *out)
{
	if (!(f[0] & 0x80))
		return tar_parse_octal(f, len, out);
	if (f[0] & 0x40)
		return false;
	unsigned long long v = f[0] & 0x3f;
	for (size_t i = 1; i < len; i++) {
		if (v >> 56)
			return false;
		v = v << 8 | f[i];
	}
	*out = v;
	return true;
}

/* The checksum is the sum of the header's bytes with its own field read
 * as spaces. Old writers summed signed chars: either sum is accepted. */
static bool tar_checksum_ok(const unsigned char *h)
{
	unsigned long long want;
	if (!tar_parse_octal(h + TAR_CHKSUM, TAR_CHKSUM_LEN, &want))
		return false;
	long long usum = 0, ssum = 0;
	for (size_t i = 0; i < TAR_BLOCK; i++) {
		bool in_field = i >= TAR_CHKSUM && i < TAR_CHKSUM + TAR_CHKSUM_LEN;
		unsigned char c = in_field ? ' ' : h[i];
		usum += c;
		ssum += (signed char)c;
	}
	return (long long)want == usum || (long long)want == ssum;
}

static bool tar_all_zero_n(const unsigned char *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (h[i])
			return false;
	return true;
}

/* The name from the header itself: "prefix/name" in POSIX ustar (GNU's
 * own format keeps other data where the prefix would be). */
static void tar_header_name(struct tar_reader *r)
{
	const unsigned char *h = r->block;
	size_t n = strnlen((const char *)h + TAR_NAME, TAR_NAME_LEN), len = 0;
	bool posix = memcmp(h + TAR_MAGIC, "ustar\0" "00", 8) == 0;
	if (posix && h[TAR_PREFIX]) {
		len = strnlen((const char *)h + TAR_PREFIX, TAR_PREFIX_LEN);
		memcpy(r->name, h + TAR_PREFIX, len);
		r->name[len++] = '/';
	}
	memcpy(r->name + len, h + TAR_NAME, n);
	r->name[len + n] = '\0';
}

/* ---- pax extended headers ---- */

static int tar_pax_record(struct tar_reader *r, const char *key, size_t klen, const char *val,
			  size_t vlen, char *errbuf, size_t errlen)
{
	if (klen == 4 && memcmp(key, "path", 4) == 0) {
		if (memchr(val, '\0', vlen))
			return tar_err(errbuf, errlen, "a pax path holds a NUL byte");
		memcpy(r->name, val, vlen);
		r->name[vlen] = '\0';
		r->have_paxpath = true;
	} else if (klen == 8 && memcmp(key, "linkpath", 8) == 0) {
		if (memchr(val, '\0', vlen))
			return tar_err(errbuf, errlen, "a pax linkpath holds a NUL byte");
		memcpy(r->link, val, vlen);
		r->link[vlen] = '\0';
		r->have_paxlink = true;
	} else if (klen == 5 && memcmp(key, "mtime", 5) == 0) {
		/* Seconds, maybe negative, maybe with a fraction: the whole
		 * seconds are kept; an unreadable one is no error. */
		long long v = 0;
		size_t i = val[0] == '-' && vlen > 1 ? 1 : 0;
		bool ok = i < vlen;
		for (; i < vlen && val[i] != '.'; i++) {
			if (val[i] < '0' || val[i] > '9' || v > LLONG_MAX / 10 - 9) {
				ok = false;
				break;
			}
			v = v * 10 + (val[i] - '0');
		}
		if (ok) {
			r->pax_mtime = val[0] == '-' ? -v : v;
			r->have_paxmtime = true;
		}
	} else if (klen == 4 && memcmp(key, "size", 4) == 0) {
		unsigned long long v = 0;
		if (vlen == 0)
			return tar_err(errbuf, errlen, "an empty pax size");
		for (size_t i = 0; i < vlen; i++) {
			if (val[i] < '0' || val[i] > '9' || v > (~0ULL - 9) / 10)
				return tar_err(errbuf, errlen, "a bad pax size '%.*s'", (int)(vlen > 30 ? 30 : vlen), val);
			v = v * 10 + (unsigned)(val[i] - '0');
		}
		r->pax_size = v;
		r->have_paxsize = true;
	}
	return 0;
}

/* Records are "LEN KEY=VALUE\n", LEN counting the whole record. */
static int tar_pax_parse(struct tar_reader *r, char *errbuf, size_t errlen)
{
	const char *p = r->meta;
	size_t left = r->meta_len;
	while (left > 0) {
		size_t len = 0, i = 0;
		for (; i < left && p[i] >= '0' && p[i] <= '9' && len <= TAR_META_MAX; i++)
			len = len * 10 + (size_t)(p[i] - '0');
		if (i == 0 || i >= left || p[i] != ' ' || len <= i + 1 || len > left || p[len - 1] != '\n')
			return tar_err(errbuf, errlen, "a malformed pax record at byte %zu of a pax header",
				       (size_t)(p - r->meta));
		const char *kv = p + i + 1, *eq = memchr(kv, '=', len - i - 2);
		if (!eq)
			return tar_err(errbuf, errlen, "a pax record without '='");
		if (tar_pax_record(r, kv, (size_t)(eq - kv), eq + 1, (size_t)(p + len - 1 - (eq + 1)),
				   errbuf, errlen) < 0)
			return -1;
		p += len;
		left -= len;
	}
	return 0;
}

/* ---- the state machine ---- */

/* The payload and its padding are all read. */
static int tar_complete(struct tar_reader *r, char *errbuf, size_t errlen)
{
	r->state = TAR_HEADER;
	switch (r->payload) {
	case TAR_TO_SINK:
		if (r->sink.end && r->sink.end(r->sink.ctx) < 0) {
			char nb[128];
			return tar_err(errbuf, errlen, "stopped by the end callback after '%s'",
				       tar_msg_name(r, nb, sizeof(nb)));
		}
		r->name[0] = '\0';
		break;
	case TAR_TO_LONGNAME:
		/* A pax path, when there is one, wins over a GNU long name. */
		if (!r->have_paxpath) {
			size_t n = strnlen(r->meta, r->meta_len);
			memcpy(r->name, r->meta, n);
			r->name[n] = '\0';
			r->have_longname = true;
		}
		break;
	case TAR_TO_LONGLINK:
		if (!r->have_paxlink) {
			size_t n = strnlen(r->meta, r->meta_len);
			memcpy(r->link, r->meta, n);
			r->link[n] = '\0';
			r->have_longlink = true;
		}
		break;
	case TAR_TO_PAX:
		return tar_pax_parse(r, errbuf, errlen);
	case TAR_TO_NOWHERE:
		break;
	}
	return 0;
}

/* Goes past states with nothing left to read, so that an entry of size 0
 * ends right after its header. */
static int tar_settle(struct tar_reader *r, char *errbuf, size_t errlen)
{
	if (r->state == TAR_PAYLOAD && r->remaining == 0)
		r->state = TAR_PAD;
	if (r->state == TAR_PAD && r->pad == 0)
		return tar_complete(r, errbuf, errlen);
	return 0;
}

static int tar_begin(struct tar_reader *r, enum tar_payload payload, unsigned long long size)
{
	r->state = TAR_PAYLOAD;
	r->payload = payload;
	r->remaining = r->entry_size = size;
	r->pad = (size_t)((TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK);
	r->meta_len = 0;
	return 0;
}

/* Types whose size field, if any, has no content blocks after it. */
static bool tar_type_has_data(char type)
{
	return !(type >= '1' && type <= '6');
}

/* Mode, mtime and link target: from the header, unless an extended
 * header gave them. */
static void tar_header_meta(struct tar_reader *r, char type)
{
	const unsigned char *h = r->block;
	unsigned long long v;
	r->mode = tar_parse_octal(h + TAR_MODE, TAR_MODE_LEN, &v) ? (unsigned)(v & 07777) : 0644;
	if (r->have_paxmtime)
		r->mtime = r->pax_mtime;
	else
		r->mtime = tar_parse_number(h + TAR_MTIME, TAR_MTIME_LEN, &v) && v < (~0ULL >> 1)
				   ? (long long)v : 0;
	if (type != '1' && type != '2') {
		r->link[0] = '\0';
	} else if (!r->have_longlink && !r->have_paxlink) {
		size_t n = strnlen((const char *)h + TAR_LINKNAME, TAR_LINKNAME_LEN);
		memcpy(r->link, h + TAR_LINKNAME, n);
		r->link[n] = '\0';
	}
}

static int tar_entry(struct tar_reader *r, char type, unsigned long long size,
		     char *errbuf, size_t errlen)
{
	if (!r->have_longname && !r->have_paxpath)
		tar_header_name(r);
	if (r->have_paxsize)
		size = r->pax_size;
	if (!tar_type_has_data(type))
		size = 0;
	tar_header_meta(r, type);
	r->have_longname = r->have_paxpath = r->have_paxsize = false;
	r->have_longlink = r->have_paxlink = r->have_paxmtime = false;
	tar_begin(r, TAR_TO_SINK, size);
	if (r->sink.entry && r->sink.entry(r->sink.ctx, r->name, type, size) < 0) {
		char nb[128];
		return tar_err(errbuf, errlen, "stopped by the entry callback at '%s'",
			       tar_msg_name(r, nb, sizeof(nb)));
	}
	return 0;
}

static int tar_header(struct tar_reader *r, char *errbuf, size_t errlen)
{
	const unsigned char *h = r->block;
	unsigned long long at = r->offset - TAR_BLOCK, size;
	if (tar_all_zero_n(h, TAR_BLOCK)) {
		if (r->have_longname || r->have_paxpath || r->have_paxsize || r->have_longlink ||
		    r->have_paxlink)
			return tar_err(errbuf, errlen, "the archive ends after an extended header at byte %llu, with no entry for it", at);
		/* End-of-archive blocks and record padding. Headers may follow:
		 * `xargs tar -c` sends several archives one after the other, and
		 * they are read as one, like tar -i does. */
		r->zero_blocks++;
		return 0;
	}
	r->zero_blocks = 0;
	if (!tar_checksum_ok(h))
		return tar_err(errbuf, errlen, "bad header checksum at byte %llu: not a tar archive, or a damaged one", at);
	if (!tar_parse_number(h + TAR_SIZE, TAR_SIZE_LEN, &size))
		return tar_err(errbuf, errlen, "bad size field in the header at byte %llu", at);
	char type = (char)h[TAR_TYPE];
	switch (type) {
	case 'L':
	case 'K':
	case 'x':
		if (size > TAR_META_MAX)
			return tar_err(errbuf, errlen, "a %s of %llu bytes at byte %llu: over the limit of %d",
				       type == 'L' ? "long name" : type == 'K' ? "long link target" : "pax header",
				       size, at, TAR_META_MAX);
		return tar_begin(r, type == 'L' ? TAR_TO_LONGNAME : type == 'K' ? TAR_TO_LONGLINK : TAR_TO_PAX,
				 size);
	case 'g': /* global pax header */
		return tar_begin(r, TAR_TO_NOWHERE, size);
	default:
		return tar_entry(r, type, size, errbuf, errlen);
	}
}

static int tar_payload_take(struct tar_reader *r, const char *buf, size_t n,
			    char *errbuf, size_t errlen)
{
	switch (r->payload) {
	case TAR_TO_SINK:
		if (r->sink.data && r->sink.data(r->sink.ctx, buf, n) < 0) {
			char nb[128];
			return tar_err(errbuf, errlen, "stopped by the data callback in '%s'",
				       tar_msg_name(r, nb, sizeof(nb)));
		}
		break;
	case TAR_TO_LONGNAME:
	case TAR_TO_LONGLINK:
	case TAR_TO_PAX:
		memcpy(r->meta + r->meta_len, buf, n);
		r->meta_len += n;
		break;
	case TAR_TO_NOWHERE:
		break;
	}
	return 0;
}

/* Reads what the current state wants from buf; *used says how much. */
static int tar_step(struct tar_reader *r, const char *buf, size_t n, size_t *used,
		    char *errbuf, size_t errlen)
{
	size_t take;
	int rc = 0;
	switch (r->state) {
	case TAR_HEADER:
		take = TAR_BLOCK - r->fill < n ? TAR_BLOCK - r->fill : n;
		memcpy(r->block + r->fill, buf, take);
		r->fill += take;
		r->offset += take;
		*used = take;
		if (r->fill < TAR_BLOCK)
			return 0;
		r->fill = 0;
		rc = tar_header(r, errbuf, errlen);
		break;
	case TAR_PAYLOAD:
		take = r->remaining < n ? (size_t)r->remaining : n;
		r->offset += take;
		*used = take;
		r->remaining -= take;
		rc = tar_payload_take(r, buf, take, errbuf, errlen);
		break;
	case TAR_PAD:
		take = r->pad < n ? r->pad : n;
		r->offset += take;
		*used = take;
		r->pad -= take;
		break;
	case TAR_FAILED:
		return tar_err(errbuf, errlen, "an earlier error stopped reading this archive");
	}
	if (rc == 0)
		rc = tar_settle(r, errbuf, errlen);
	return rc;
}

int tar_feed(struct tar_reader *r, const char *buf, size_t n, char *errbuf, size_t errlen)
{
	if (r->state == TAR_FAILED)
		return tar_err(errbuf, errlen, "an earlier error stopped reading this archive");
	while (n > 0) {
		size_t used = 0;
		if (tar_step(r, buf, n, &used, errbuf, errlen) < 0) {
			r->state = TAR_FAILED;
			return -1;
		}
		buf += used;
		n -= used;
	}
	return 0;
}

int tar_finish(struct tar_reader *r, char *errbuf, size_t errlen)
{
	char nb[128];
	switch (r->state) {
	case TAR_FAILED:
		return tar_err(errbuf, errlen, "an earlier error stopped reading this archive");
	case TAR_HEADER:
		/* Zeros cut short are the end-of-archive blocks cut short:
		 * nothing of any entry is missing. */
		if (r->fill && !tar_all_zero_n(r->block, r->fill))
			return tar_err(errbuf, errlen, "truncated archive: it ends inside a header (%zu of 512 bytes)", r->fill);
		if (r->have_longname || r->have_paxpath || r->have_paxsize || r->have_longlink ||
		    r->have_paxlink)
			return tar_err(errbuf, errlen, "truncated archive: it ends after an extended header, with no entry for it");
		/* Entries, then no end block at all: cut at a header boundary. */
		if (r->offset > 0 && r->zero_blocks == 0 && r->fill == 0)
			return tar_err(errbuf, errlen, "truncated archive: no end-of-archive block");
		return 0;
	case TAR_PAYLOAD:
	case TAR_PAD:
		break;
	}
	if (r->payload != TAR_TO_SINK)
		return tar_err(errbuf, errlen, "truncated archive: it ends inside an extended header");
	if (r->state == TAR_PAD)
		return tar_err(errbuf, errlen, "truncated archive: it ends in the padding after '%s'",
			       tar_msg_name(r, nb, sizeof(nb)));
	return tar_err(errbuf, errlen, "truncated archive: it ends inside '%s' (%llu of %llu bytes)",
		       tar_msg_name(r, nb, sizeof(nb)), r->entry_size - r->remaining, r->entry_size);
}
