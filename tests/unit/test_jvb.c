/* test_jvb.c: the value tree built in memory, and json_jv: written whole
 * it gives the bytes the json.h writer gives for the same values; capped,
 * a cut string gets KEY_truncated and KEY_bytes, an array KEY_count, and
 * the members of an object share the room. */
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "jvb.h"
#include "tap.h"
#include "util.h"

static const char odd[] = "a\"b\\c\n\t\x01\x7f caf\xc3\xa9 \xff\xfe end";

/* The same values, once through json.h, once as a tree. */
static void test_whole(void)
{
	struct json w = {0};
	json_obj_open(&w);
	json_key(&w, "workspace");
	json_str(&w, "sb-1");
	json_key(&w, "odd");
	json_strn(&w, odd, sizeof(odd) - 1);
	json_key(&w, "nul");
	json_strn(&w, "a\0b", 3);
	json_key(&w, "n");
	json_int(&w, 42);
	json_key(&w, "neg");
	json_int(&w, -9223372036854775807LL - 1);
	json_key(&w, "yes");
	json_bool(&w, true);
	json_key(&w, "no");
	json_bool(&w, false);
	json_key(&w, "none");
	json_null(&w);
	json_key(&w, "empty");
	json_arr_open(&w);
	json_arr_close(&w);
	json_key(&w, "list");
	json_arr_open(&w);
	for (int i = 0; i < 20; i++)
		json_str(&w, i % 2 ? "odd" : "even");
	json_arr_close(&w);
	json_key(&w, "objs");
	json_arr_open(&w);
	for (int i = 0; i < 5; i++) {
		json_obj_open(&w);
		json_key(&w, "i");
		json_int(&w, i);
		json_key(&w, "t");
		json_str(&w, "x");
		json_obj_close(&w);
	}
	json_arr_close(&w);
	json_key(&w, "sub");
	json_obj_open(&w);
	json_obj_close(&w);
	json_obj_close(&w);

	struct jv t = {0};
	jvb_obj(&t);
	jvb_str(jvb_put(&t, "workspace"), "sb-1");
	jvb_strn(jvb_put(&t, "odd"), odd, sizeof(odd) - 1);
	jvb_strn(jvb_put(&t, "nul"), "a\0b", 3);
	jvb_int(jvb_put(&t, "n"), 42);
	jvb_int(jvb_put(&t, "neg"), -9223372036854775807LL - 1);
	jvb_bool(jvb_put(&t, "yes"), true);
	jvb_bool(jvb_put(&t, "no"), false);
	jvb_put(&t, "none");
	jvb_arr(jvb_put(&t, "empty"));
	struct jv *list = jvb_put(&t, "list");
	jvb_arr(list);
	for (int i = 0; i < 20; i++)
		jvb_str(jvb_push(list), i % 2 ? "odd" : "even");
	struct jv *objs = jvb_put(&t, "objs");
	jvb_arr(objs);
	for (int i = 0; i < 5; i++) {
		struct jv *o = jvb_push(objs);
		jvb_obj(o);
		jvb_int(jvb_put(o, "i"), i);
		jvb_str(jvb_put(o, "t"), "x");
	}
	jvb_obj(jvb_put(&t, "sub"));

	struct json g = {0};
	json_jv(&g, &t, SIZE_MAX);
	is_mem(g.out.buf, g.out.len, w.out.buf, w.out.len, "a tree written whole is what json.h writes");
	sbuf_free(&g.out);
	g = (struct json){0};
	/* Room for all of it: nothing is cut, nothing marked. */
	json_jv(&g, &t, 100000);
	is_mem(g.out.buf, g.out.len, w.out.buf, w.out.len, "a tree within its room is written whole");
	sbuf_free(&g.out);
	jvb_free(&t);
	is_int(t.type, JV_NULL, "jvb_free leaves null");
	sbuf_free(&w.out);
}

static void capped(const struct jv *t, size_t room, const char *exp, const char *title)
{
	struct json g = {0};
	json_jv(&g, t, room);
	is_str(g.out.buf, exp, "%s", title);
	sbuf_free(&g.out);
}

static void test_cap(void)
{
	struct jv t = {0};
	jvb_obj(&t);
	jvb_str(jvb_put(&t, "s"), "0123456789");
	capped(&t, 4, "{\"s\":\"0123\",\"s_truncated\":true,\"s_bytes\":10}",
	       "a cut string keeps its first characters, with KEY_truncated and KEY_bytes");
	capped(&t, 10, "{\"s\":\"0123456789\"}", "a string that just fits is whole");
	jvb_free(&t);

	jvb_obj(&t);
	jvb_str(jvb_put(&t, "s"), "h\xc3\xa9llo");
	capped(&t, 2, "{\"s\":\"h\xc3\xa9\",\"s_truncated\":true,\"s_bytes\":6}",
	       "a cut counts characters, never splits one, and KEY_bytes counts bytes");
	jvb_free(&t);

	jvb_obj(&t);
	jvb_str(jvb_put(&t, "a"), "xy");
	jvb_str(jvb_put(&t, "b"), "0123456789");
	jvb_str(jvb_put(&t, "c"), "abcdefghij");
	capped(&t, 10, "{\"a\":\"xy\",\"b\":\"0123\",\"c\":\"abcd\",\"b_truncated\":true,"
		       "\"b_bytes\":10,\"c_truncated\":true,\"c_bytes\":10}",
	       "members share the room: the small one whole, the large ones equal parts");
	jvb_free(&t);

	jvb_obj(&t);
	jvb_str(jvb_put(&t, "p"), "dir");
	struct jv *m = jvb_put(&t, "m");
	jvb_arr(m);
	jvb_str(jvb_push(m), "aa");
	jvb_str(jvb_push(m), "bb");
	jvb_str(jvb_push(m), "cc");
	jvb_int(jvb_put(&t, "total"), 3);
	/* p needs 3; each element costs 1 + 4. */
	capped(&t, 3 + 11, "{\"p\":\"dir\",\"m\":[\"aa\",\"bb\"],\"total\":3,\"m_truncated\":true,\"m_count\":3}",
	       "an array keeps the elements that fit whole, with KEY_truncated and KEY_count");
	capped(&t, 3 + 4, "{\"p\":\"dir\",\"m\":[],\"total\":3,\"m_truncated\":true,\"m_count\":3}",
	       "an array with no room for one element is empty, and marked");
	jvb_free(&t);

	jvb_obj(&t);
	jvb_str(jvb_put(&t, "out"), "0123456789");
	jvb_bool(jvb_put(&t, "out_truncated"), false);
	jvb_int(jvb_put(&t, "out_bytes"), 99);
	capped(&t, 4, "{\"out\":\"0123\",\"out_truncated\":true,\"out_bytes\":99}",
	       "an object's own KEY_truncated turns true, its KEY_bytes is kept");
	jvb_free(&t);

	jvb_obj(&t);
	struct jv *o = jvb_put(&t, "o");
	jvb_obj(o);
	jvb_str(jvb_put(o, "d"), "abcdef");
	capped(&t, 3, "{\"o\":{\"d\":\"abc\",\"d_truncated\":true,\"d_bytes\":6}}",
	       "a nested object is capped within its share");
	jvb_free(&t);
}

int main(void)
{
	test_whole();
	test_cap();
	return done_testing();
}
