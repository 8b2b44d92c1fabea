/* jvb.c: see jvb.h. */
#include "jvb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "util.h"

void jvb_obj(struct jv *v)
{
	*v = (struct jv){.type = JV_OBJECT};
}

void jvb_arr(struct jv *v)
{
	*v = (struct jv){.type = JV_ARRAY};
}

void jvb_str(struct jv *v, const char *s)
{
	jvb_strn(v, s, strlen(s));
}

void jvb_strn(struct jv *v, const char *s, size_t len)
{
	*v = (struct jv){.type = JV_STRING, .str = {s ? s : "", s ? len : 0}};
}

/* The text is the tree's: jvb_free frees it. */
void jvb_int(struct jv *v, long long i)
{
	char *text = xasprintf("%lld", i);
	*v = (struct jv){.type = JV_NUMBER,
			 .num = {text, strlen(text), (double)i, true, i}};
}

void jvb_bool(struct jv *v, bool b)
{
	*v = (struct jv){.type = JV_BOOL, .b = b};
}

/* Room for one more of count items of size: the capacity is the power
 * of two at or above count (4 at least), so it need not be kept. */
static void *grow(void *items, size_t count, size_t size)
{
	if (count == 0)
		return xmalloc(4 * size);
	if (count >= 4 && (count & (count - 1)) == 0)
		return xrealloc(items, 2 * count * size);
	return items;
}

struct jv *jvb_put(struct jv *obj, const char *key)
{
	obj->obj.members = grow(obj->obj.members, obj->obj.count, sizeof(struct jv_member));
	struct jv_member *m = &obj->obj.members[obj->obj.count++];
	*m = (struct jv_member){.key = key, .key_len = strlen(key)};
	return &m->value;
}

struct jv *jvb_push(struct jv *arr)
{
	arr->arr.items = grow(arr->arr.items, arr->arr.count, sizeof(struct jv));
	struct jv *v = &arr->arr.items[arr->arr.count++];
	*v = (struct jv){.type = JV_NULL};
	return v;
}

void jvb_free(struct jv *v)
{
	switch (v->type) {
	case JV_NUMBER:
		free((char *)v->num.text);
		break;
	case JV_ARRAY:
		for (size_t i = 0; i < v->arr.count; i++)
			jvb_free(&v->arr.items[i]);
		free(v->arr.items);
		break;
	case JV_OBJECT:
		for (size_t i = 0; i < v->obj.count; i++)
			jvb_free(&v->obj.members[i].value);
		free(v->obj.members);
		break;
	default:
		break;
	}
	*v = (struct jv){.type = JV_NULL};
}

/* ---- writing, capped ----
 *
 * The room counts what the strings hold, and all of each element of an
 * array (keys, numbers and punctuation too). So a capped object's JSON
 * stays within about 6 bytes a character of the room, whatever was put
 * in it. */

/* What a value costs as an element of an array: all of it. */
static size_t cap_whole(const struct jv *v)
{
	size_t cost = 1;
	switch (v->type) {
	case JV_STRING:
		return 2 + utf8_chars(v->str.s, v->str.len);
	case JV_NUMBER:
		return v->num.text_len;
	case JV_ARRAY:
		for (size_t i = 0; i < v->arr.count; i++)
			cost += 1 + cap_whole(&v->arr.items[i]);
		return cost;
	case JV_OBJECT:
		for (size_t i = 0; i < v->obj.count; i++)
			cost += v->obj.members[i].key_len + 4 + cap_whole(&v->obj.members[i].value);
		return cost;
	default:
		return 5;
	}
}

/* The room a value needs to be kept whole. */
static size_t cap_need(const struct jv *v)
{
	size_t need = 0;
	switch (v->type) {
	case JV_STRING:
		return utf8_chars(v->str.s, v->str.len);
	case JV_ARRAY:
		for (size_t i = 0; i < v->arr.count; i++)
			need += 1 + cap_whole(&v->arr.items[i]);
		return need;
	case JV_OBJECT:
		for (size_t i = 0; i < v->obj.count; i++)
			need += cap_need(&v->obj.members[i].value);
		return need;
	default:
		return 0;
	}
}

static void cap_string(struct json *j, const struct jv *v, size_t room)
{
	json_strn(j, v->str.s, room == SIZE_MAX ? v->str.len
						: utf8_prefix(v->str.s, v->str.len, room));
}

static void cap_array(struct json *j, const struct jv *v, size_t room)
{
	json_arr_open(j);
	for (size_t i = 0; i < v->arr.count; i++) {
		if (room != SIZE_MAX) {
			size_t cost = 1 + cap_whole(&v->arr.items[i]);
			if (cost > room)
				break;
			room -= cost;
		}
		json_jv(j, &v->arr.items[i], SIZE_MAX);
	}
	json_arr_close(j);
}

/* null, a boolean or a number, as it was. */
static void cap_plain(struct json *j, const struct jv *v)
{
	if (v->type == JV_BOOL) {
		json_bool(j, v->b);
	} else if (v->type == JV_NUMBER) {
		if (j->need_comma)
			sbuf_addc(&j->out, ',');
		sbuf_add(&j->out, v->num.text, v->num.text_len);
		j->need_comma = true;
	} else {
		json_null(j);
	}
}

/* Whether key is NAME + suffix for a member NAME that is cut. */
static bool cap_marks(const struct jv *obj, const bool *cut, const char *key, size_t len,
		      const char *suffix)
{
	size_t sl = strlen(suffix);
	if (len <= sl || memcmp(key + len - sl, suffix, sl) != 0)
		return false;
	for (size_t i = 0; i < obj->obj.count; i++) {
		const struct jv_member *m = &obj->obj.members[i];
		if (cut[i] && m->key_len == len - sl && memcmp(m->key, key, m->key_len) == 0)
			return true;
	}
	return false;
}

/* NAME_truncated and NAME_bytes (or NAME_count) of a cut string or
 * array NAME, where the object lacks them. */
static void cap_add_marks(struct json *j, const struct jv *obj, const struct jv_member *m)
{
	bool is_str = m->value.type == JV_STRING;
	char *t = xasprintf("%.*s_truncated", (int)m->key_len, m->key);
	char *n = xasprintf("%.*s_%s", (int)m->key_len, m->key, is_str ? "bytes" : "count");
	if (!jv_get(obj, t)) {
		json_key(j, t);
		json_bool(j, true);
	}
	if (!jv_get(obj, n)) {
		json_key(j, n);
		json_int(j, (long long)(is_str ? m->value.str.len : m->value.arr.count));
	}
	free(t);
	free(n);
}

/* Each member's share of the room: smallest need first, each gets what
 * it needs up to an equal part of what is left. */
static void cap_shares(const struct jv *v, size_t room, size_t *need, size_t *share)
{
	size_t count = v->obj.count;
	size_t *order = xmalloc((count ? count : 1) * sizeof(*order));
	for (size_t i = 0; i < count; i++) {
		need[i] = cap_need(&v->obj.members[i].value);
		size_t k = i;
		for (; k > 0 && need[order[k - 1]] > need[i]; k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
	for (size_t k = 0; k < count; k++) {
		size_t i = order[k], part = room / (count - k);
		share[i] = need[i] < part ? need[i] : part;
		room -= share[i];
	}
	free(order);
}

static void whole_object(struct json *j, const struct jv *v)
{
	json_obj_open(j);
	for (size_t i = 0; i < v->obj.count; i++) {
		json_keyn(j, v->obj.members[i].key, v->obj.members[i].key_len);
		json_jv(j, &v->obj.members[i].value, SIZE_MAX);
	}
	json_obj_close(j);
}

static void cap_object(struct json *j, const struct jv *v, size_t room)
{
	if (room == SIZE_MAX) {
		whole_object(j, v);
		return;
	}
	size_t count = v->obj.count, n = count ? count : 1;
	size_t *need = xmalloc(n * sizeof(*need)), *share = xmalloc(n * sizeof(*share));
	bool *cut = xmalloc(n * sizeof(*cut));
	cap_shares(v, room, need, share);
	for (size_t i = 0; i < count; i++) {
		enum jv_type t = v->obj.members[i].value.type;
		cut[i] = need[i] > share[i] && (t == JV_STRING || t == JV_ARRAY);
	}
	json_obj_open(j);
	for (size_t i = 0; i < count; i++) {
		const struct jv_member *m = &v->obj.members[i];
		json_keyn(j, m->key, m->key_len);
		if (cap_marks(v, cut, m->key, m->key_len, "_truncated"))
			json_bool(j, true);
		else
			json_jv(j, &m->value, share[i]);
	}
	for (size_t i = 0; i < count; i++)
		if (cut[i])
			cap_add_marks(j, v, &v->obj.members[i]);
	json_obj_close(j);
	free(need);
	free(share);
	free(cut);
}

void json_jv(struct json *j, const struct jv *v, size_t room)
{
	switch (v->type) {
	case JV_STRING: cap_string(j, v, room); break;
	case JV_ARRAY: cap_array(j, v, room); break;
	case JV_OBJECT: cap_object(j, v, room); break;
	default: cap_plain(j, v); break;
	}
}
