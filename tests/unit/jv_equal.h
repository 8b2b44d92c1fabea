/* jv_equal.h: deep equality of two JSON trees (src/codec/jsonr.h), for the
 * reader's unit tests and its fuzz target alike. */
#ifndef SANDBOX_TEST_JV_EQUAL_H
#define SANDBOX_TEST_JV_EQUAL_H

#include <stdbool.h>
#include <string.h>

#include "jsonr.h"

/* Deep equality: numbers by their text, strings and keys by bytes,
 * members in order. */
static bool jv_equal(const struct jv *a, const struct jv *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case JV_NULL:
		return true;
	case JV_BOOL:
		return a->b == b->b;
	case JV_NUMBER:
		return a->num.text_len == b->num.text_len &&
		       memcmp(a->num.text, b->num.text, a->num.text_len) == 0;
	case JV_STRING:
		return a->str.len == b->str.len && memcmp(a->str.s, b->str.s, a->str.len) == 0;
	case JV_ARRAY:
		if (a->arr.count != b->arr.count)
			return false;
		for (size_t i = 0; i < a->arr.count; i++)
			if (!jv_equal(&a->arr.items[i], &b->arr.items[i]))
				return false;
		return true;
	case JV_OBJECT:
		if (a->obj.count != b->obj.count)
			return false;
		for (size_t i = 0; i < a->obj.count; i++) {
			const struct jv_member *x = &a->obj.members[i], *y = &b->obj.members[i];
			if (x->key_len != y->key_len || memcmp(x->key, y->key, x->key_len) != 0 ||
			    !jv_equal(&x->value, &y->value))
				return false;
		}
		return true;
	}
	return false;
}

#endif
