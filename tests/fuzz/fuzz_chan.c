/* fuzz_chan.c: a libFuzzer target for the channel's request encoding
 * (proto_request_* in src/wire/proto.c): the argv of a call, sent to the server
 * in the workspace (SCRIPT_SERVE) as lines that it reads back with
 * `IFS= read -r`. An argv that came out otherwise would run another
 * command than the one asked for.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_chan; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_chan -max_total_time=600 build/fuzz/corpus_chan tests/fuzz/corpus_chan
 *
 * An input is a flags byte, a byte that picks one argument to replace by
 * one of the scripts the server holds, then the arguments, separated by
 * NUL bytes (argv never holds a NUL). The seeds (tests/fuzz/corpus_chan)
 * were written by hand with printf: a file tool's call, values with
 * newlines, backslashes, '=', '@0', control and non-ASCII bytes, digits
 * after a newline, empty values, and no arguments at all.
 *
 * A decoder written here reads the request as the server's loop does:
 * a line each for tag, stdin flag and count, then per value "=VALUE"
 * as it is, "@N" the server's script N, or else the rest of the line
 * through printf %b (with the server's trailing-x guard against $(...)
 * eating newlines). It aborts when the decoded argv, tag, flag or count
 * differ from what went in, when lines are left over or missing, or when
 * the request holds a NUL byte, or a line ends in a byte over 0x7f:
 * bash's `read -r`, in a UTF-8 locale, reads the newline after an
 * incomplete multibyte sequence as part of it (found here: "=a\303"
 * swallowed the next line, and the argv after it shifted), and an
 * incomplete UTF-8 sequence always ends in such a byte. The decoder
 * itself was checked against dash, BusyBox sh and bash (C and C.UTF-8)
 * on the corpus. They agree, but for a bug of bash 5.2 itself in a
 * UTF-8 locale: ${a#=} and ${a%x} return other bytes when the value has
 * invalid UTF-8 before a backslash ("\343\\y"). No encoding avoids
 * that; the server would have to decode its lines in the C locale. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "proto.h"
#include "scripts.h"
#include "util.h"

/* The server's S0..S4, in the order chan_open passes them. */
static const char *const fz_chan_scripts[] = {SCRIPT_EXEC, SCRIPT_READ, SCRIPT_WRITE,
					      SCRIPT_LIST, SCRIPT_TAR};

/* printf %b on s[0, n) into out, as dash and BusyBox do: "\0" and up to
 * three octal digits is a byte, as is "\1" to "\7" and up to two more;
 * "\\" a backslash; \a \b \f \n \r \t \v
 * their control characters; "\c" ends all output (*stopped); any other
 * backslash stays as it is. */
static void fz_chan_printf_b(const char *s, size_t n, struct sbuf *out, bool *stopped)
{
	static const char esc[] = "abfnrtv", ctl[] = "\a\b\f\n\r\t\v";
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 == n) {
			sbuf_addc(out, s[i]);
			continue;
		}
		char c = s[++i];
		const char *e = c ? strchr(esc, c) : NULL;
		if (c >= '0' && c <= '7') {
			/* "\0NNN"; dash and BusyBox take "\NNN" too. */
			unsigned v = c == '0' ? 0 : (unsigned)(c - '0');
			for (int k = c == '0' ? 0 : 1; k < 3 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7'; k++)
				v = v * 8 + (unsigned)(s[++i] - '0');
			sbuf_addc(out, (char)v);
		} else if (c == '\\') {
			sbuf_addc(out, '\\');
		} else if (e) {
			sbuf_addc(out, ctl[e - esc]);
		} else if (c == 'c') {
			*stopped = true;
			return;
		} else {
			sbuf_addc(out, '\\');
			sbuf_addc(out, c);
		}
	}
}

/* The next line of req from *at (without its newline); false at the
 * end, or for a last line without a newline, which `read` refuses. */
static bool fz_chan_line(const struct sbuf *req, size_t *at, const char **line, size_t *len)
{
	if (*at >= req->len)
		return false;
	const char *nl = memchr(req->buf + *at, '\n', req->len - *at);
	if (!nl)
		return false;
	*line = req->buf + *at;
	*len = (size_t)(nl - *line);
	*at += *len + 1;
	return true;
}

static bool fz_chan_line_is(const char *line, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(line, want, len) == 0;
}

/* One value line, decoded as the server's case statement does. */
static void fz_chan_value(const char *a, size_t len, struct sbuf *v)
{
	sbuf_add(v, "", 0);
	if (len >= 1 && a[0] == '=') {
		sbuf_add(v, a + 1, len - 1);
		return;
	}
	if (len == 2 && a[0] == '@' && a[1] >= '0' && a[1] <= '4') {
		sbuf_adds(v, fz_chan_scripts[a[1] - '0']);
		return;
	}
	/* a=$(printf '%bx' "${a#?}"); a=${a%x} */
	bool stopped = false;
	struct sbuf out = {0};
	sbuf_add(&out, "", 0);
	fz_chan_printf_b(len ? a + 1 : a, len ? len - 1 : 0, &out, &stopped);
	if (!stopped)
		sbuf_addc(&out, 'x');
	while (out.len && out.buf[out.len - 1] == '\n')
		out.len--;
	/* The encoder never writes "\c": without the x, the value is lost. */
	CHECK(out.len && out.buf[out.len - 1] == 'x');
	sbuf_add(v, out.buf, out.len - 1);
	sbuf_free(&out);
}

static void fz_chan_decode_check(const struct sbuf *req, const char *tag, bool with_stdin,
				 char *const *argv, size_t n)
{
	const char *line;
	size_t len, at = 0;
	char count[32];
	snprintf(count, sizeof(count), "%zu", n);
	CHECK(memchr(req->buf, '\0', req->len) == NULL);
	for (size_t i = 1; i < req->len; i++)
		if (req->buf[i] == '\n')
			CHECK((unsigned char)req->buf[i - 1] < 0x80);
	CHECK(fz_chan_line(req, &at, &line, &len) && fz_chan_line_is(line, len, tag));
	CHECK(fz_chan_line(req, &at, &line, &len) &&
	      fz_chan_line_is(line, len, with_stdin ? "1" : "0"));
	CHECK(fz_chan_line(req, &at, &line, &len) && fz_chan_line_is(line, len, count));
	for (size_t i = 0; i < n; i++) {
		struct sbuf v = {0};
		CHECK(fz_chan_line(req, &at, &line, &len));
		fz_chan_value(line, len, &v);
		if (v.len != strlen(argv[i]) || memcmp(v.buf, argv[i], v.len) != 0) {
			fprintf(stderr, "argument %zu came back as %zu bytes, not %zu\n", i, v.len,
				strlen(argv[i]));
			abort();
		}
		sbuf_free(&v);
	}
	CHECK(at == req->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	bool with_stdin = data[0] & 1;
	/* The arguments: the rest, split at each NUL; none when empty. */
	struct strvec argv = {0};
	const char *p = (const char *)data + 2, *end = (const char *)data + size;
	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *stop = nul ? nul : end;
		char *arg = xstrndup(p, (size_t)(stop - p));
		strvec_push(&argv, arg);
		free(arg);
		p = nul ? nul + 1 : end;
		if (nul && p == end)
			strvec_push(&argv, "");
	}
	/* The argument that goes as a slot, "@N": none, or j. */
	size_t j = argv.n;
	int slot = data[1] % 8;
	if (argv.n && slot < PROTO_NSLOTS) {
		j = (size_t)(data[1] / 8) % argv.n;
		free(argv.v[j]);
		argv.v[j] = xstrdup(fz_chan_scripts[slot]);
	}
	/* Tags are 16 hex digits (random_hex); from the flags here. */
	char tag[17];
	snprintf(tag, sizeof(tag), "%016x", (unsigned)data[0] * 0x01010101u);
	for (int k = 0; k < PROTO_NSLOTS; k++)
		CHECK(proto_slot_text(k) == fz_chan_scripts[k]);
	CHECK(!proto_slot_text(PROTO_NSLOTS) && !proto_slot_text(-1));

	struct sbuf req = {0};
	sbuf_add(&req, "", 0);
	proto_request_head(&req, tag, with_stdin, argv.n);
	for (size_t i = 0; i < argv.n; i++)
		if (i == j)
			proto_request_slot(&req, slot);
		else
			proto_request_value(&req, argv.v[i]);
	fz_chan_decode_check(&req, tag, with_stdin, argv.v, argv.n);

	sbuf_free(&req);
	strvec_clear(&argv);
	return 0;
}
