/* json.c: see json.h. */
#include "json.h"

#include <stdio.h>
#include <string.h>

#include "err.h"
#include "utf8.h"

static void comma(struct json *j)
{
	if (j->need_comma)
		sbuf_addc(&j->out, ',');
	j->need_comma = true;
}

void json_obj_open(struct json *j)
{
	comma(j);
	sbuf_addc(&j->out, '{');
	j->need_comma = false;
}

void json_obj_close(struct json *j)
{
	sbuf_addc(&j->out, '}');
	j->need_comma = true;
}

void json_arr_open(struct json *j)
{
	comma(j);
	sbuf_addc(&j->out, '[');
	j->need_comma = false;
}

void json_arr_close(struct json *j)
{
	sbuf_addc(&j->out, ']');
	j->need_comma = true;
}

void json_key(struct json *j, const char *key)
{
	json_keyn(j, key, strlen(key));
}

void json_keyn(struct json *j, const char *key, size_t n)
{
	comma(j);
	json_quote(&j->out, key, n);
	sbuf_addc(&j->out, ':');
	j->need_comma = false;
}

void json_str(struct json *j, const char *s)
{
	json_strn(j, s, strlen(s));
}

void json_strn(struct json *j, const char *s, size_t n)
{
	comma(j);
	json_quote(&j->out, s, n);
}

void json_int(struct json *j, long long v)
{
	comma(j);
	sbuf_addf(&j->out, "%lld", v);
}

void json_double(struct json *j, double v)
{
	comma(j);
	if (v != v || v > 1e308 || v < -1e308)
		sbuf_adds(&j->out, "null"); /* JSON has no NaN or infinity */
	else
		sbuf_addf(&j->out, "%.17g", v);
}

void json_bool(struct json *j, bool v)
{
	comma(j);
	sbuf_adds(&j->out, v ? "true" : "false");
}

void json_null(struct json *j)
{
	comma(j);
	sbuf_adds(&j->out, "null");
}


void json_print(const struct json *j, FILE *f)
{
	fwrite(j->out.buf, 1, j->out.len, f);
	fputc('\n', f);
}

static const struct redact_set *redactions;

void json_redact(const struct redact_set *set)
{
	redactions = set && !redact_empty(set) ? set : NULL;
}

/* s[0, n) as it may be written: with the secrets replaced, in r when
 * that changed it. */
static const char *redacted(const char *s, size_t *n, struct sbuf *r)
{
	if (!redactions)
		return s;
	redact_buf(redactions, s, *n, false, r);
	if (r->len == *n && memcmp(r->buf, s, *n) == 0)
		return s;
	*n = r->len;
	return r->buf;
}

static void quote(struct sbuf *out, const char *s, size_t n);

void json_quote(struct sbuf *out, const char *s, size_t n)
{
	struct sbuf r = {0};
	s = redacted(s, &n, &r);
	quote(out, s, n);
	sbuf_free(&r);
}

static void quote(struct sbuf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	sbuf_addc(out, '"');
	size_t i = 0;
	while (i < n) {
		unsigned char c = p[i];
		if (c == '"' || c == '\\') {
			sbuf_addc(out, '\\');
			sbuf_addc(out, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': sbuf_adds(out, "\\n"); break;
			case '\t': sbuf_adds(out, "\\t"); break;
			case '\r': sbuf_adds(out, "\\r"); break;
			default: sbuf_addf(out, "\\u%04x", c); break;
			}
			i++;
		} else {
			size_t len = utf8_len(p + i, n - i);
			if (len == 0) {
				sbuf_adds(out, "\\ufffd");
				i++;
			} else {
				sbuf_add(out, p + i, len);
				i += len;
			}
		}
	}
	sbuf_addc(out, '"');
}

static size_t quoted_len(const char *s, size_t n);

size_t json_quoted_len(const char *s, size_t n)
{
	struct sbuf r = {0};
	s = redacted(s, &n, &r);
	size_t len = quoted_len(s, n);
	sbuf_free(&r);
	return len;
}

static size_t quoted_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 2, i = 0;
	while (i < n) {
		unsigned char c = p[i];
		size_t u;
		if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r') {
			len += 2;
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			len += 6;
			i++;
		} else if ((u = utf8_len(p + i, n - i)) == 0) {
			len += 6; /* \ufffd */
			i++;
		} else {
			len += u;
			i += u;
		}
	}
	return len;
}

void json_err(struct json *j, const struct err *e, const char *ref)
{
	json_obj_open(j);
	json_key(j, "error");
	json_obj_open(j);
	json_key(j, "kind");
	json_str(j, err_kind_name(e->kind));
	json_key(j, "message");
	json_str(j, e->msg);
	json_obj_close(j);
	if (ref) {
		json_key(j, "workspace");
		json_str(j, ref);
	}
	json_obj_close(j);
}
